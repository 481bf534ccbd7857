// The SimGrid time-independent trace reader (traces/simgrid_ti.cpp) on SimGrid's own traces in
// ../shared/external/simgrid-ti-traces and on small hand-written bad inputs.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "simulator/error.hpp"
#include "trace_fixtures.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {
namespace CLUSTERSIM_TEST_FILE {

namespace fs = std::filesystem;
using mpi::CollOp;
using mpi::OpKind;
using ::testing::HasSubstr;

const std::string kDir = std::string(CLUSTERSIM_SHARED_DIR) + "/external/simgrid-ti-traces";

Trace read(const std::string& path, ReadReport& report, bool skip_unknown = false) {
    return testing::read_with(*make_simgrid_ti_reader(), path, report, skip_unknown);
}
Trace read(const std::string& path) {
    ReadReport report;
    return read(path, report);
}
using testing::records;
std::map<std::string, int> kinds(const Trace& t, std::uint32_t rank) {
    return testing::kinds(t, rank, true);
}

std::string sniff_head(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    return head;
}

// A temporary folder with files written by the test.
class TempDir {
  public:
    TempDir() {
        dir_ = fs::temp_directory_path() /
               fmt::format("clustersim-simgrid-ti-{}-{}", ::getpid(),
                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    ~TempDir() { fs::remove_all(dir_); }
    std::string write(const std::string& name, const std::string& text) const {
        const fs::path p = dir_ / name;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text;
        return p.string();
    }

  private:
    fs::path dir_;
};

// Expects InputError whose file, line and message match.
template <class F>
void expect_error(F&& f, const std::string& file, int line, const std::string& part) {
    try {
        f();
        ADD_FAILURE() << "no InputError; expected one containing '" << part << "'";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), file) << e.what();
        EXPECT_EQ(e.line(), line) << e.what();
        EXPECT_THAT(e.what(), HasSubstr(part));
    }
}

// ---- SimGrid's traces -------------------------------------------------------------------------

TEST(SimgridTi, Actions01IndexRecordsByHand) {
    SKIP_WITHOUT_EXTERNAL();
    ReadReport report;
    const Trace t = read(kDir + "/actions01.index.txt", report);
    EXPECT_EQ(t.name, "actions01");
    EXPECT_EQ(t.format, "simgrid_ti");
    EXPECT_EQ(t.traced_speed, 0u);
    ASSERT_EQ(t.ranks(), 2u);
    // actions0.txt: init, send 1 0 1e6, recv 1 1 1e6, send 1 2 1e6, finalize -> 3 records.
    const auto r0 = records(t, 0);
    ASSERT_EQ(r0.size(), 3u);
    EXPECT_EQ(r0[0].kind, OpKind::Send);
    EXPECT_EQ(r0[0].peer, 1);
    EXPECT_EQ(r0[0].tag, 0);
    EXPECT_EQ(r0[0].bytes, 1'000'000u);  // 1e6 MPI_BYTE (plain 'init')
    EXPECT_EQ(r0[1].kind, OpKind::Recv);
    EXPECT_EQ(r0[1].tag, 1);
    EXPECT_EQ(r0[2].kind, OpKind::Send);
    EXPECT_EQ(r0[2].tag, 2);
    // actions1.txt: init, recv 0 0 1e6, compute 1e9, isend 0 1 1e6, irecv 0 2 1e6,
    // wait 0 1 2 (the irecv: src 0, dst 1, tag 2), finalize -> Recv, Compute, Isend h0,
    // Irecv h1, Wait h1, and the isend still outstanding at the end: Wait h0 -> 6 records.
    const auto r1 = records(t, 1);
    ASSERT_EQ(r1.size(), 6u);
    EXPECT_EQ(r1[0].kind, OpKind::Recv);
    EXPECT_EQ(r1[0].peer, 0);
    EXPECT_EQ(r1[1].kind, OpKind::Compute);
    EXPECT_EQ(r1[1].instructions, 1'000'000'000u);
    EXPECT_EQ(r1[2].kind, OpKind::Isend);
    EXPECT_EQ(r1[2].tag, 1);
    EXPECT_EQ(r1[2].handle, 0u);
    EXPECT_EQ(r1[3].kind, OpKind::Irecv);
    EXPECT_EQ(r1[3].tag, 2);
    EXPECT_EQ(r1[3].handle, 1u);
    EXPECT_EQ(r1[4].kind, OpKind::Wait);
    EXPECT_EQ(r1[4].handle, 1u);
    EXPECT_EQ(r1[5].kind, OpKind::Wait);
    EXPECT_EQ(r1[5].handle, 0u);
    EXPECT_FALSE(report.notes.empty());
}

TEST(SimgridTi, SplitTracesListsFilesRelativeToTheParentFolder) {
    SKIP_WITHOUT_EXTERNAL();
    // replay/split_traces names replay/actions0.txt: relative to the index's parent folder.
    const Trace a = read(kDir + "/replay/split_traces");
    const Trace b = read(kDir + "/actions01.index.txt");
    ASSERT_EQ(a.ranks(), 2u);
    EXPECT_EQ(a.name, "split_traces");
    for (std::uint32_t r = 0; r < 2; ++r) EXPECT_EQ(records(a, r), records(b, r));
}

TEST(SimgridTi, ThirtyTwoRanksCountedWithAwk) {
    SKIP_WITHOUT_EXTERNAL();
    ReadReport report;
    const Trace t = read(kDir + "/ti_traces_32_1.index.txt", report);
    EXPECT_EQ(t.name, "ti_traces_32_1");
    ASSERT_EQ(t.ranks(), 32u);
    // awk '{c[$2]++}' per file: compute 45, barrier 16, comm_size 15, bcast 9, allreduce 6,
    // alltoall 5, alltoallv 2, gather 1, init 1, finalize 1 (101 lines, every rank alike);
    // comm_size, init and finalize make no record; each allreduce's flops are a compute
    // after it (SimGrid's replay): 90 records per rank, 51 of them computes.
    std::uint64_t computes = 0, flops = 0;
    for (std::uint32_t r = 0; r < 32; ++r) {
        EXPECT_EQ(t.events(r), 90u) << "rank " << r;
        const auto k = kinds(t, r);
        EXPECT_EQ(k.at("compute"), 51) << r;
        EXPECT_EQ(k.at("barrier"), 16) << r;
        EXPECT_EQ(k.at("bcast"), 9) << r;
        EXPECT_EQ(k.at("allreduce"), 6) << r;
        EXPECT_EQ(k.at("alltoall"), 5) << r;
        EXPECT_EQ(k.at("alltoallv"), 2) << r;
        EXPECT_EQ(k.at("gather"), 1) << r;
        for (const Record& rec : records(t, r)) {
            if (rec.kind != OpKind::Compute) continue;
            ++computes;
            flops += rec.instructions;
        }
    }
    EXPECT_EQ(t.total_events(), 32u * 90u);
    EXPECT_EQ(computes, 1440u + 192u);
    // awk '$2=="compute"{s+=$3} END{printf "%.0f", s}' ti_traces_32_1/*.txt, plus
    // awk '$2=="allreduce"{s+=$4} END{printf "%.0f", s}' (192 allreduces, 7,704,776,422 flops)
    EXPECT_EQ(flops, 2'266'760'717'150u + 7'704'776'422u);
    // The compute right after rank 0's first allreduce is its flops: 0 allreduce 32 12513009 1.
    {
        const auto r0 = records(t, 0);
        for (std::size_t i = 0; i + 1 < r0.size(); ++i)
            if (r0[i].kind == OpKind::Collective && r0[i].coll == CollOp::Allreduce) {
                EXPECT_EQ(r0[i + 1].kind, OpKind::Compute);
                EXPECT_EQ(r0[i + 1].instructions, 12'513'009u);
                break;
            }
    }

    // 'init 1': sizes are counts of MPI_DOUBLE (8 B) unless a datatype id is given.
    const auto r0 = records(t, 0);
    EXPECT_EQ(r0[0].kind, OpKind::Compute);
    EXPECT_EQ(r0[0].instructions, 127'161u);  // 0 compute 127161
    const Record& bcast = r0[4];              // 0 bcast 1
    EXPECT_EQ(bcast.coll, CollOp::Bcast);
    EXPECT_EQ(bcast.bytes, 8u);
    std::vector<Record> gathers, allreduces, alltoallvs;
    for (const Record& rec : r0) {
        if (rec.kind != OpKind::Collective) continue;
        if (rec.coll == CollOp::Gather) gathers.push_back(rec);
        if (rec.coll == CollOp::Allreduce) allreduces.push_back(rec);
        if (rec.coll == CollOp::Alltoallv) alltoallvs.push_back(rec);
    }
    ASSERT_EQ(gathers.size(), 1u);
    EXPECT_EQ(gathers[0].bytes, 795u * 8);  // 0 gather 795 795 0
    EXPECT_EQ(gathers[0].root, 0);
    ASSERT_EQ(allreduces.size(), 6u);
    EXPECT_EQ(allreduces[0].bytes, 32u * 4);  // 0 allreduce 32 12513009 1 (1 = MPI_INT)
    EXPECT_EQ(allreduces[1].bytes, 1u * 8);   // 0 allreduce 1 11040132
    // alltoallv: a 32 x 32 matrix from every rank's send counts; rank 0 sends 414465
    // doubles to ranks 0..28 and 414450 to ranks 29..31.
    ASSERT_EQ(alltoallvs.size(), 2u);
    ASSERT_GE(alltoallvs[0].counts, 0);
    const auto& m = t.count_lists[static_cast<std::size_t>(alltoallvs[0].counts)];
    ASSERT_EQ(m.size(), 32u * 32u);
    EXPECT_EQ(m[0 * 32 + 0], 414'465u * 8);
    EXPECT_EQ(m[0 * 32 + 28], 414'465u * 8);
    EXPECT_EQ(m[0 * 32 + 29], 414'450u * 8);
    // Every rank's k-th alltoallv shares one matrix.
    for (const Record& rec : records(t, 17)) {
        if (rec.kind == OpKind::Collective && rec.coll == CollOp::Alltoallv) {
            EXPECT_EQ(rec.counts, alltoallvs[0].counts);
            break;
        }
    }
}

TEST(SimgridTi, EveryReplayFileReads) {
    SKIP_WITHOUT_EXTERNAL();
    // Merged files: one line per action, all ranks in one file. Records by hand (init,
    // finalize and comm_size make none).
    const std::map<std::string, std::vector<std::uint64_t>> expected{
        {"actions0.txt", {3, 0}},  // a per-rank file on its own: peer 1 is a rank
        {"actions1.txt", {0, 6}},  // rank 1 only: rank 0 has no actions
        {"actions_allgatherv.txt", {1, 1, 1, 1}},
        {"actions_allreduce.txt", {3, 3, 3}},  // allreduce, its 5e8 flops, compute
        {"actions_alltoall.txt", {1, 1, 1}},
        {"actions_alltoallv.txt", {1, 1, 1}},
        {"actions_barrier.txt", {3, 3, 2}},  // send/recv, barrier, compute
        // bcast, compute, bcast, compute, reduce, the reduce's 5e8 flops
        {"actions_bcast.txt", {6, 6, 6}},
        {"actions_bcast_reduce_datatypes.txt", {6, 6, 6}},
        {"actions_gather.txt", {1, 1, 1, 1}},
        {"actions_reducescatter.txt", {2, 2, 2, 2}},  // reducescatter, its flops
        {"actions_waitall.txt", {3, 3, 3}},           // 2 isend/irecv + waitall (one Waitall 0..1)
        {"actions_with_isend.txt", {4, 5, 8}},        // rank 2: its isend waited for at the end
    };
    std::size_t seen = 0;
    for (const auto& entry : fs::directory_iterator(kDir + "/replay")) {
        const std::string file = entry.path().filename().string();
        if (file == "split_traces") continue;
        SCOPED_TRACE(file);
        ReadReport report;
        const Trace t = read(entry.path().string(), report);
        EXPECT_TRUE(make_simgrid_ti_reader()->sniff(entry.path().string(),
                                                    sniff_head(entry.path().string())));
        const auto it = expected.find(file);
        ASSERT_NE(it, expected.end()) << "new file in replay/: add its counts";
        ASSERT_EQ(t.ranks(), it->second.size());
        for (std::uint32_t r = 0; r < t.ranks(); ++r) EXPECT_EQ(t.events(r), it->second[r]) << r;
        ++seen;
    }
    EXPECT_EQ(seen, expected.size());
}

TEST(SimgridTi, CollectivesMapSizesRootsAndCounts) {
    SKIP_WITHOUT_EXTERNAL();
    {
        // 0 alltoallv 100 1 40 30 1000 1 80 100: send counts 1 40 30 (MPI_BYTE).
        const Trace t = read(kDir + "/replay/actions_alltoallv.txt");
        const Record r = records(t, 1)[0];
        EXPECT_EQ(r.coll, CollOp::Alltoallv);
        const auto& m = t.count_lists.at(static_cast<std::size_t>(r.counts));
        EXPECT_EQ(m, (std::vector<std::uint64_t>{1, 40, 30, 80, 1, 40, 100, 30, 1}));
    }
    {
        // allgatherv 275427 x3, 204020 then '0 0': datatype 0 = MPI_DOUBLE for both sides.
        const Trace t = read(kDir + "/replay/actions_allgatherv.txt");
        const Record r = records(t, 3)[0];
        EXPECT_EQ(r.coll, CollOp::Allgatherv);
        EXPECT_EQ(t.count_lists.at(static_cast<std::size_t>(r.counts)),
                  (std::vector<std::uint64_t>{275427 * 8, 275427 * 8, 275427 * 8, 204020 * 8}));
    }
    {
        // bcast 5e4 1 0: root 1, MPI_DOUBLE; bcast 5e4 0 3: MPI_SHORT; reduce 5e4 5e8 0 4:
        // MPI_LONG.
        const Trace t = read(kDir + "/replay/actions_bcast_reduce_datatypes.txt");
        const auto r = records(t, 2);
        EXPECT_EQ(r[0].coll, CollOp::Bcast);
        EXPECT_EQ(r[0].root, 1);
        EXPECT_EQ(r[0].bytes, 50'000u * 8);
        EXPECT_EQ(r[2].bytes, 50'000u * 2);
        EXPECT_EQ(r[4].coll, CollOp::Reduce);
        EXPECT_EQ(r[4].bytes, 50'000u * 8);
        EXPECT_EQ(r[1].instructions, 500'000'000u);
    }
    {
        // gather 68 68 0 0 0: root 0, datatype 0 (8 B).
        const Trace t = read(kDir + "/replay/actions_gather.txt");
        const Record r = records(t, 2)[0];
        EXPECT_EQ(r.coll, CollOp::Gather);
        EXPECT_EQ(r.bytes, 68u * 8);
    }
    {
        // reducescatter 275427 x3 204020 <flops> 0: the mean block, rounded up, in doubles.
        ReadReport report;
        const Trace t = read(kDir + "/replay/actions_reducescatter.txt", report);
        const Record r = records(t, 0)[0];
        EXPECT_EQ(r.coll, CollOp::ReduceScatter);
        EXPECT_EQ(r.bytes, (275427u * 3 + 204020 + 3) / 4 * 8);
    }
    {
        // 0 irecv 1 0 2000 / 0 irecv 2 2 3000 / 0 waitall: one Waitall over handles 0, 1.
        const Trace t = read(kDir + "/replay/actions_waitall.txt");
        const auto r = records(t, 0);
        ASSERT_EQ(r.size(), 3u);
        EXPECT_EQ(r[2].kind, OpKind::Waitall);
        EXPECT_EQ(r[2].handle, 0u);
        EXPECT_EQ(r[2].count, 2u);
        EXPECT_EQ(r[1].bytes, 3000u);
    }
    {
        // Rank 1: irecv 0 0 1e6, compute, test (ignored), compute, wait 0 1 0, send 2 1 1e6.
        ReadReport report;
        const Trace t = read(kDir + "/replay/actions_with_isend.txt", report);
        const auto r = records(t, 1);
        ASSERT_EQ(r.size(), 5u);
        EXPECT_EQ(r[0].kind, OpKind::Irecv);
        EXPECT_EQ(r[3].kind, OpKind::Wait);
        EXPECT_EQ(r[3].handle, r[0].handle);
        EXPECT_EQ(r[4].kind, OpKind::Send);
        EXPECT_EQ(r[4].peer, 2);
        bool noted = false;
        for (const auto& n : report.notes) noted = noted || n.find("test") != std::string::npos;
        EXPECT_TRUE(noted);
    }
}

TEST(SimgridTi, SniffsIndexAndActionFilesOnly) {
    SKIP_WITHOUT_EXTERNAL();
    const auto reader = make_simgrid_ti_reader();
    for (const std::string f : {"/actions01.index.txt", "/ti_traces_32_1.index.txt",
                                "/replay/split_traces", "/ti_traces_32_1/ti_trace3.txt"})
        EXPECT_TRUE(reader->sniff(kDir + f, sniff_head(kDir + f))) << f;
    TempDir d;
    const std::string other = d.write("other.txt", "clustersim-trace 1\nrank 0\n");
    EXPECT_FALSE(reader->sniff(other, sniff_head(other)));
    EXPECT_FALSE(reader->sniff(kDir, ""));
}

// ---- bad inputs ---------------------------------------------------------------------------------

TEST(SimgridTi, MissingRankFileNamesIndexAndLine) {
    TempDir d;
    d.write("t/r0.txt", "0 init\n0 compute 10\n");
    const std::string index = d.write("t.index", "t/r0.txt\n\nt/r1.txt\n");
    expect_error([&] { read(index); }, index, 3, "rank 1: cannot open 't/r1.txt' (looked in");
}

TEST(SimgridTi, PerRankFilesSkipOtherRanksLinesAsSimgridDoes) {
    // SimGrid's replay_runner ignores a per-rank file's lines for another actor ("Ignore trace
    // element not for me"): the same merged file listed once per rank gives each rank its own.
    TempDir d;
    d.write("r0.txt", "0 init\n0 compute 7\n");
    d.write("r1.txt", "1 init\n2 compute 5\n1 compute 9\n");
    const std::string index = d.write("t.index", "r0.txt\nr1.txt\n");
    ReadReport report;
    const Trace t = read(index, report);
    ASSERT_EQ(t.ranks(), 2u);
    EXPECT_EQ(records(t, 1).at(0).instructions, 9u);
    EXPECT_EQ(t.events(1), 1u);
    bool noted = false;
    for (const auto& n : report.notes) noted = noted || n.find("1 line of another rank") == 0;
    EXPECT_TRUE(noted);

    const std::string merged = d.write("m.txt", "0 compute 1\n1 compute 2\n2 compute 3\n");
    const std::string three = d.write("three.index", "m.txt\nm.txt\nm.txt\n");
    const Trace t3 = read(three);
    ASSERT_EQ(t3.ranks(), 3u);
    for (std::uint32_t r = 0; r < 3; ++r) {
        ASSERT_EQ(t3.events(r), 1u);
        EXPECT_EQ(records(t3, r)[0].instructions, r + 1);
    }
}

TEST(SimgridTi, OneLineIndexIsOneTraceSharedByAllRanks) {
    // smpirun -replay INDEX with one line: the shared trace; ranks come from the rank fields
    // (the form "rank field 1 does not match the file's rank 0" used to refuse).
    TempDir d;
    d.write("all.txt", "0 init\n1 init\n0 send 1 0 1e3\n1 recv 0 0 1e3\n1 compute 4\n");
    const std::string index = d.write("shared.index", "all.txt\n");
    const Trace t = read(index);
    ASSERT_EQ(t.ranks(), 2u);
    EXPECT_EQ(records(t, 0).at(0).kind, OpKind::Send);
    EXPECT_EQ(records(t, 0)[0].bytes, 1000u);
    EXPECT_EQ(records(t, 1).at(0).kind, OpKind::Recv);
    EXPECT_EQ(records(t, 1).at(1).instructions, 4u);
    EXPECT_EQ(t.name, "shared");
}

TEST(SimgridTi, ReductionFlopsScanExscanAndSendrecv) {
    TempDir d;
    const std::string f = d.write("t.txt",
                                  "0 init\n1 init\n"
                                  "0 reduce 10 2.5e3 1\n1 reduce 10 2.5e3 1\n"
                                  "0 allreduce 4 0\n1 allreduce 4 0\n"
                                  "0 scan 8 100 0\n1 scan 8 100 0\n"
                                  "0 exscan 3 7\n1 exscan 3 7\n"
                                  "0 sendRecv 5 1 6 1\n1 sendrecv 6 0 5 0 1 2\n");
    const Trace t = read(f);
    const auto r0 = records(t, 0);
    // reduce, its 2,500 flops, allreduce (0 flops: no compute), scan, 100, exscan, 7, sendrecv.
    ASSERT_EQ(r0.size(), 8u);
    EXPECT_EQ(r0[0].coll, CollOp::Reduce);
    EXPECT_EQ(r0[0].root, 1);
    EXPECT_EQ(r0[0].bytes, 10u);
    EXPECT_EQ(r0[1].kind, OpKind::Compute);
    EXPECT_EQ(r0[1].instructions, 2500u);
    EXPECT_EQ(r0[2].coll, CollOp::Allreduce);
    EXPECT_EQ(r0[3].coll, CollOp::Scan);
    EXPECT_EQ(r0[3].bytes, 64u);  // 8 MPI_DOUBLE
    EXPECT_EQ(r0[4].instructions, 100u);
    EXPECT_EQ(r0[5].coll, CollOp::Exscan);
    EXPECT_EQ(r0[5].bytes, 3u);
    EXPECT_EQ(r0[6].instructions, 7u);
    EXPECT_EQ(r0[7].kind, OpKind::Sendrecv);
    EXPECT_EQ(r0[7].peer, 1);
    EXPECT_EQ(r0[7].bytes, 5u);
    EXPECT_EQ(r0[7].peer2, 1);
    EXPECT_EQ(r0[7].bytes2, 6u);
    const auto r1 = records(t, 1);
    EXPECT_EQ(r1.back().bytes, 6u * 4);   // MPI_INT
    EXPECT_EQ(r1.back().bytes2, 5u * 1);  // MPI_CHAR

    const std::string bad = d.write("bad.txt", "0 scan 8\n");
    expect_error([&] { read(bad); }, bad, 1, "expected 'scan <size> <flops> [<datatype>]'");
    const std::string neg = d.write("neg.txt", "0 allreduce 8 -3\n");
    expect_error([&] { read(neg); }, neg, 1, "malformed flop count '-3'");
}

TEST(SimgridTi, S4uActorReplayForm) {
    // SimGrid's examples/cpp/replay-comm/s4u-replay-comm.txt, as it is written there.
    TempDir d;
    const std::string f = d.write("s4u-replay-comm.txt",
                                  "# sample action file\np0 recv p1\np0 compute 1e9\n\n"
                                  "p1 send p0 1e10\np1 compute 1e9\n");
    const auto reader = make_simgrid_ti_reader();
    EXPECT_TRUE(reader->sniff(f, sniff_head(f)));
    ReadReport report;
    const Trace t = read(f, report);
    ASSERT_EQ(t.ranks(), 2u);
    const auto r0 = records(t, 0), r1 = records(t, 1);
    ASSERT_EQ(r0.size(), 2u);
    EXPECT_EQ(r0[0].kind, OpKind::Recv);
    EXPECT_EQ(r0[0].peer, 1);
    EXPECT_EQ(r0[0].bytes, 10'000'000'000u);  // the matching send's size
    EXPECT_EQ(r0[1].instructions, 1'000'000'000u);
    ASSERT_EQ(r1.size(), 2u);
    EXPECT_EQ(r1[0].kind, OpKind::Send);
    EXPECT_EQ(r1[0].peer, 0);
    EXPECT_EQ(r1[0].bytes, 10'000'000'000u);

    const std::string unmatched = d.write("u.txt", "p0 recv p1\np0 recv p1\np1 send p0 5\n");
    expect_error([&] { read(unmatched); }, unmatched, 2, "p1 sends p0 only 1 message");
    // A recv read before its malformed send: the error is the send's line, not the recv's.
    const std::string bad_size = d.write("b.txt", "p0 recv p1\np1 send p0 1e30\n");
    expect_error([&] { read(bad_size); }, bad_size, 2, "send: malformed size '1e30'");
    const std::string io = d.write("io.txt", "p0 open /lib/libsimgrid.so.3.6.2\n");
    expect_error([&] { read(io); }, io, 1, "S4U I/O action 'open' is not supported");
    const std::string name = d.write("n.txt", "p0 compute 5\nalice compute 3\n");
    expect_error([&] { read(name); }, name, 2, "'alice' is not such a name");
}

TEST(SimgridTi, UnknownActionIsAnErrorOrSkipped) {
    TempDir d;
    const std::string f =
        d.write("t.txt", "0 init\n1 init\n0 frobnicate 3\n0 compute 1e3\n1 frobnicate\n");
    expect_error([&] { read(f); }, f, 3, "unsupported action 'frobnicate'");
    ReadReport report;
    const Trace t = read(f, report, true);
    EXPECT_EQ(report.skipped.at("frobnicate"), 2u);
    EXPECT_EQ(t.events(0), 1u);
    EXPECT_EQ(t.events(1), 0u);
}

TEST(SimgridTi, MalformedNumbersAndArguments) {
    TempDir d;
    const std::string a = d.write("a.txt", "0 init\n1 init\n0 send 1 0 1e6x\n1 recv 0 0 1e6\n");
    expect_error([&] { read(a); }, a, 3, "malformed size '1e6x'");
    const std::string b = d.write("b.txt", "0 send 1 0 2.5\n");
    expect_error([&] { read(b); }, b, 1, "expected a non-negative whole number");
    const std::string c = d.write("c.txt", "0 compute -4\n");
    expect_error([&] { read(c); }, c, 1, "malformed flop count '-4'");
    const std::string e = d.write("e.txt", "0 init\n1 bcast 1e3 5\n");
    expect_error([&] { read(e); }, e, 2, "root 5 is out of range");
    const std::string g = d.write("g.txt", "0 bcast\n");
    expect_error([&] { read(g); }, g, 1, "bcast: expected 'bcast <size> [<root> [<datatype>]]'");
    const std::string h = d.write("h.txt", "x0 init\n");
    expect_error([&] { read(h); }, h, 1, "'x0' is not a rank number");
    const std::string w = d.write("w.txt", "0 wait\n");
    expect_error([&] { read(w); }, w, 1, "wait without an outstanding isend or irecv");
}

TEST(SimgridTi, OldFormatWithoutTagsAndLifoWait) {
    TempDir d;
    // SimGrid 3.1x: send <dst> <size>, Isend/Irecv capitalized, wait pops the latest request.
    const std::string f = d.write("old.txt",
                                  "0 init\n1 init\n0 Irecv 1 100\n0 Isend 1 200\n0 wait\n0 wait\n"
                                  "1 send 0 100\n1 recv 0 200\n0 sleep 0.5\n");
    const Trace t = read(f);
    const auto r = records(t, 0);
    ASSERT_EQ(r.size(), 5u);
    EXPECT_EQ(r[0].kind, OpKind::Irecv);
    EXPECT_EQ(r[0].tag, 0);
    EXPECT_EQ(r[1].kind, OpKind::Isend);
    EXPECT_EQ(r[1].bytes, 200u);
    EXPECT_EQ(r[2].handle, r[1].handle);  // the latest request first
    EXPECT_EQ(r[3].handle, r[0].handle);
    EXPECT_EQ(r[4].kind, OpKind::Compute);
    EXPECT_EQ(r[4].compute_time, Time::ms(500));
    EXPECT_EQ(records(t, 1)[0].bytes, 100u);
}

TEST(SimgridTi, HandlesAreReusedAfterWaits) {
    TempDir d;
    std::string text = "0 init\n1 init\n";
    for (int i = 0; i < 3; ++i) text += "0 isend 1 7 10\n0 waitall\n1 recv 0 7 10\n";
    const Trace t = read(d.write("h.txt", text));
    const auto r = records(t, 0);
    ASSERT_EQ(r.size(), 6u);
    for (std::size_t i = 0; i < r.size(); i += 2) {
        EXPECT_EQ(r[i].handle, 0u);
        EXPECT_EQ(r[i + 1].kind, OpKind::Wait);
        EXPECT_EQ(r[i + 1].handle, 0u);
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::traces
