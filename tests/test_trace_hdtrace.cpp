// The HDTrace reader (traces/hdtrace.cpp) on the recorded partdiff-par run in
// ../shared/external/hdtrace-partdiff-mpi-io and on small hand-written projects.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "simulator/error.hpp"
#include "trace_fixtures.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {
namespace CLUSTERSIM_TEST_FILE {

namespace fs = std::filesystem;

const std::string kDir = std::string(CLUSTERSIM_SHARED_DIR) + "/external/hdtrace-partdiff-mpi-io";
const std::string kProj = kDir + "/partdiff-par.proj";

Trace read(const std::string& path, ReadReport& report, bool skip_unknown = false) {
    return testing::read_with(*make_hdtrace_reader(), path, report, skip_unknown);
}
Trace read(const std::string& path) {
    ReadReport report;
    return read(path, report);
}
using testing::records;
std::map<std::string, int> kinds(const Trace& t, std::uint32_t rank) {
    return testing::kinds(t, rank, false);
}

// ---- the partdiff-par run ------------------------------------------------------------------

TEST(HdtracePartdiff, ReadsFiveRanksFilesAndName) {
    SKIP_WITHOUT_EXTERNAL();
    const Trace t = read(kProj);
    EXPECT_EQ(t.ranks(), 5u);
    EXPECT_EQ(t.name, "partdiff-par");
    EXPECT_EQ(t.format, "hdtrace");
    EXPECT_EQ(t.traced_speed, 0u);  // unknown: replay keeps the recorded compute times
    // The <FileList> of the .proj: InitialSize bytes, SimpleStripe ChunkSize 64K = 65536.
    ASSERT_EQ(t.files.size(), 3u);
    EXPECT_EQ(t.files[0].name, "pvfs2://pvfs2/visualization.dat");
    EXPECT_EQ(t.files[0].size, 323844u);
    EXPECT_EQ(t.files[1].name, "pvfs2://pvfs2/checkpoint.1");
    EXPECT_EQ(t.files[1].size, 5235848u);
    EXPECT_EQ(t.files[2].name, "pvfs2://pvfs2/checkpoint.2");
    EXPECT_EQ(t.files[2].size, 5235848u);
    for (const auto& f : t.files) EXPECT_EQ(f.stripe, 65536u);
}

TEST(HdtracePartdiff, FolderReadsLikeTheProject) {
    SKIP_WITHOUT_EXTERNAL();
    const Trace a = read(kProj);
    const Trace b = read(kDir);
    ASSERT_EQ(a.ranks(), b.ranks());
    for (std::uint32_t r = 0; r < a.ranks(); ++r) EXPECT_EQ(records(a, r), records(b, r));
    const auto reader = make_hdtrace_reader();
    EXPECT_TRUE(reader->sniff(kDir, ""));
    EXPECT_TRUE(reader->sniff(kProj, "<?xml version=\"1.0\"?><Application name=\"x\">"));
    EXPECT_FALSE(reader->sniff(kDir + "/partdiff-par_node05_0_0.trc", "<Program timeAdjustment"));
}

// Hand count of the top-level calls (outside <Nested> blocks) of each .trc, with
//   awk '/<Nested>/{d++; next} /<\/Nested>/{d--; next}
//        d==0 && match($0, /^[ \t]*<[A-Z][A-Za-z_]*/) {...count the element name...}'
// rank 0 (node05): Sendrecv 500, File_write_at 151, File_write 3, File_open 51, File_close 51,
//   Recv 4, Allgather 1, Bcast 1, Reduce 1, Barrier 1, and the local calls Init 1,
//   Finalize 1, Type_commit 2, Type_free 1, Type_vector 1, File_get_position 1;
// ranks 1, 2, 3 (node09, node08, node07): Sendrecv 1000, File_write_at 100, File_open 51,
//   File_close 51, Send 1, Allgather/Bcast/Reduce/Barrier 1 each, Init 1, Finalize 1,
//   Type_commit 1, Type_free 1, Type_vector 1;
// rank 4 (node06): as ranks 1-3 but Sendrecv 500.
// File_write (no file view) replays as file_write_at; local calls become compute records.
TEST(HdtracePartdiff, TopLevelRecordsPerRankMatchAHandCount) {
    SKIP_WITHOUT_EXTERNAL();
    const Trace t = read(kProj);
    using M = std::map<std::string, int>;
    const M rank0 = {
        {"sendrecv", 500}, {"file_write_at", 154}, {"file_open", 51}, {"file_close", 51},
        {"recv", 4},       {"allgather", 1},       {"bcast", 1},      {"reduce", 1},
        {"barrier", 1}};
    auto others = [](int sendrecv) {
        return M{{"sendrecv", sendrecv},
                 {"file_write_at", 100},
                 {"file_open", 51},
                 {"file_close", 51},
                 {"send", 1},
                 {"allgather", 1},
                 {"bcast", 1},
                 {"reduce", 1},
                 {"barrier", 1}};
    };
    EXPECT_EQ(kinds(t, 0), rank0);
    EXPECT_EQ(kinds(t, 1), others(1000));
    EXPECT_EQ(kinds(t, 2), others(1000));
    EXPECT_EQ(kinds(t, 3), others(1000));
    EXPECT_EQ(kinds(t, 4), others(500));
    // Nested calls are not replayed: no gather/gatherv (only inside File_open), no
    // comm_split (every top-level call is on MPI_COMM_WORLD, cid 0).
    for (std::uint32_t r = 0; r < 5; ++r) {
        EXPECT_EQ(kinds(t, r).count("gather"), 0u);
        EXPECT_EQ(kinds(t, r).count("comm_split"), 0u);
    }
}

TEST(HdtracePartdiff, FileWritesCarryOffsetsAndSizes) {
    SKIP_WITHOUT_EXTERNAL();
    const Trace t = read(kProj);
    std::vector<Record> w0, w4;
    for (const Record& r : records(t, 0))
        if (r.kind == mpi::OpKind::FileWriteAt) w0.push_back(r);
    for (const Record& r : records(t, 4))
        if (r.kind == mpi::OpKind::FileWriteAt) w4.push_back(r);
    ASSERT_GE(w0.size(), 4u);
    // Rank 0's File_write calls (lines 193-201 of partdiff-par.c): header at offsets 0, 4, 8.
    EXPECT_EQ(w0[0].file, 0u);
    EXPECT_EQ(w0[0].offset, 0u);
    EXPECT_EQ(w0[0].bytes, 4u);
    EXPECT_EQ(w0[1].offset, 4u);
    EXPECT_EQ(w0[1].bytes, 4u);
    EXPECT_EQ(w0[2].offset, 8u);
    EXPECT_EQ(w0[2].bytes, 32u);
    // Its first checkpoint write: fid 1 at 0, 1048464 bytes.
    EXPECT_EQ(w0[3].file, 1u);
    EXPECT_EQ(w0[3].offset, 0u);
    EXPECT_EQ(w0[3].bytes, 1048464u);
    // Rank 4 writes the last part of the checkpoint.
    ASSERT_FALSE(w4.empty());
    EXPECT_EQ(w4[0].file, 1u);
    EXPECT_EQ(w4[0].offset, 4193856u);
    EXPECT_EQ(w4[0].bytes, 1041992u);
    // Opens name the declared files; every open gets a fresh handle (HDTrace's fid 1 is
    // checkpoint.1 each time it is reopened).
    std::uint32_t opens = 0;
    for (const Record& r : records(t, 0)) {
        if (r.kind != mpi::OpKind::FileOpen) continue;
        EXPECT_EQ(r.file, opens++);
    }
    EXPECT_EQ(opens, 51u);
    for (const Record& r : records(t, 0)) {
        if (r.kind != mpi::OpKind::FileOpen) continue;
        {
            ASSERT_GE(r.path, 0);
            const std::string& name = t.strings[static_cast<std::size_t>(r.path)];
            EXPECT_TRUE(name == t.files[0].name || name == t.files[1].name ||
                        name == t.files[2].name)
                << name;
            EXPECT_EQ(r.comm, 0);
        }
    }
}

TEST(HdtracePartdiff, ReceivesTakeTheSizeOfTheMatchingSend) {
    SKIP_WITHOUT_EXTERNAL();
    const Trace t = read(kProj);
    std::vector<Record> recv;
    for (const Record& r : records(t, 0))
        if (r.kind == mpi::OpKind::Recv) recv.push_back(r);
    ASSERT_EQ(recv.size(), 4u);
    // Ranks 1..4 each send their part of the matrix (tag 555); rank 4's part is smaller.
    const std::uint64_t expect[] = {1048464, 1048464, 1048464, 1041992};
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(recv[static_cast<std::size_t>(i)].peer, i + 1);
        EXPECT_EQ(recv[static_cast<std::size_t>(i)].tag, 555);
        EXPECT_EQ(recv[static_cast<std::size_t>(i)].bytes, expect[i]);
    }
    // Sendrecv receive sides get the partner's send size (6472 bytes, 809 doubles).
    for (const Record& r : records(t, 1)) {
        if (r.kind != mpi::OpKind::Sendrecv) continue;
        EXPECT_EQ(r.bytes, 6472u);
        EXPECT_EQ(r.bytes2, 6472u);
    }
}

TEST(HdtracePartdiff, TimelinesTileFromACommonOrigin) {
    SKIP_WITHOUT_EXTERNAL();
    const Trace t = read(kProj);
    for (std::uint32_t r = 0; r < t.ranks(); ++r) {
        const auto recs = records(t, r);
        ASSERT_FALSE(recs.empty());
        Time sum = Time::zero();
        for (std::size_t i = 0; i < recs.size(); ++i) {
            const Record& x = recs[i];
            EXPECT_TRUE(x.timed) << "rank " << r << " record " << i;
            EXPECT_LE(x.start, x.end);
            if (i > 0) {
                EXPECT_LE(recs[i - 1].end, x.start) << "rank " << r << " record " << i;
            }
            if (x.kind == mpi::OpKind::Compute) {
                EXPECT_EQ(x.compute_time, x.end - x.start);
                EXPECT_GT(x.compute_time, Time::zero());
                EXPECT_EQ(x.instructions, 0u);
            }
            sum += x.end - x.start;
        }
        EXPECT_EQ(recs.front().start, Time::zero()) << "rank " << r;
        EXPECT_EQ(sum, recs.back().end - recs.front().start) << "rank " << r;
    }
    // Rank 0 (node05) starts first: its Allgather at 0.954060 s is the origin, and it ends
    // with Finalize at 4.881011 s.
    const auto r0 = records(t, 0);
    EXPECT_EQ(record_name(r0.front()), "allgather");
    EXPECT_EQ(r0.back().end, Time::ps(3'926'951'000'000));
    // Rank 4 (node06) has timeAdjustment 1247131125.06: its Allgather at 0.894578 s is
    // 0.000518 s after the origin, preceded by a compute record covering the gap.
    const auto r4 = records(t, 4);
    ASSERT_GE(r4.size(), 2u);
    EXPECT_EQ(r4[0].kind, mpi::OpKind::Compute);
    EXPECT_EQ(record_name(r4[1]), "allgather");
    EXPECT_EQ(r4[1].start, Time::ps(518'000'000));
}

TEST(HdtracePartdiff, ReportSaysWhatItAssumed) {
    SKIP_WITHOUT_EXTERNAL();
    ReadReport report;
    read(kProj, report);
    EXPECT_TRUE(report.skipped.empty());
    bool origin = false, nested = false;
    for (const auto& n : report.notes) {
        origin = origin || n.find("time origin: 1247131125.954060000000 s") != std::string::npos;
        nested = nested || n.find("nested calls skipped") != std::string::npos;
    }
    EXPECT_TRUE(origin);
    EXPECT_TRUE(nested);
}

// ---- small hand-written projects ----------------------------------------------------------

class HdtraceSmall : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("clustersim-hdtrace-" +
                std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    // Two ranks on hosts h0 and h1; communicator cid 1 holds world rank 1 as its rank 0 and
    // world rank 0 as its rank 1.
    std::string project() const {
        const std::string proj = (dir_ / "app.proj").string();
        std::ofstream(proj) << R"(<?xml version="1.0" encoding="UTF-8"?><Application name="app">
 <FileList>
 <File name="f.dat"><InitialSize>1M</InitialSize></File>
 </FileList>
 <Topology>
  <Level type="Hostname"><Level type="Rank"><Level type="Thread"></Level></Level></Level>
  <Node name="h0">
   <Node name="0"><Node name="0" /></Node>
  </Node>
  <Node name="h1">
   <Node name="1">
    <Node name="0" />
   </Node>
  </Node>
 </Topology>
 <CommunicatorList>
  <Communicator name="WORLD">
   <Rank global="0" local="0" cid="0" /><Rank global="1" local="1" cid="0" />
  </Communicator>
  <Communicator name="">
   <Rank global="1" local="0" cid="1" /><Rank global="0" local="1" cid="1" />
  </Communicator>
 </CommunicatorList>
</Application>
)";
        return proj;
    }
    void trace(const std::string& name, const std::string& body,
               const std::string& adjust = "100") const {
        std::ofstream(dir_ / name) << "<Program timeAdjustment='" << adjust << "'>\n"
                                   << body << "</Program>\n";
    }
    // A valid pair of traces: a send 0 -> 1, a Bcast on cid 1 rooted at world rank 1.
    void good_traces() const {
        trace("app_h0_0_0.trc",
              "<Init time='1.0' end='1.5'/>\n"
              "<Nested>\n"
              "  <Send size='4' toRank='1' toTag='9' cid='0' time='2.1' end='2.2'/>\n"
              "</Nested>\n"
              "<Send size='1000' toRank='1' toTag='7' cid='0' time='2.0' end='3.0'/>\n"
              "<Bcast size='8' rootRank='1' cid='1' time='4.0' end='4.25'/>\n");
        trace("app_h1_1_0.trc",
              "<Recv fromRank='0' fromTag='7' cid='0' time='1.0' end='2.5'/>\n"
              "<Bcast size='8' rootRank='1' cid='1' time='3.5' end='4.0'/>\n",
              "100.5");
    }
    fs::path dir_;
};

TEST_F(HdtraceSmall, CommunicatorsRanksAndNesting) {
    const std::string proj = project();
    good_traces();
    ReadReport report;
    const Trace t = read(proj, report);
    ASSERT_EQ(t.ranks(), 2u);
    ASSERT_EQ(t.files.size(), 1u);
    EXPECT_EQ(t.files[0].size, 1u << 20);  // PIOsimHD's M is 1024 * 1024

    const auto r0 = records(t, 0);
    const auto r1 = records(t, 1);
    // Every rank first creates cid 1 from MPI_COMM_WORLD: color cid (member) with its rank
    // in cid 1 as key, into handle 1.
    ASSERT_GE(r0.size(), 1u);
    EXPECT_EQ(r0[0].kind, mpi::OpKind::CommSplit);
    EXPECT_EQ(r0[0].comm, 0);
    EXPECT_EQ(r0[0].color, 1);
    EXPECT_EQ(r0[0].key, 1);
    EXPECT_EQ(r0[0].newcomm, 1u);
    EXPECT_EQ(r1[0].kind, mpi::OpKind::CommSplit);
    EXPECT_EQ(r1[0].key, 0);
    // Rank 0: split, compute (Init: local), compute gap, send, compute gap, bcast. The nested
    // Send is skipped. Origin = 101.0 s (rank 0's Init; rank 1 starts at 100.5 + 1.0).
    std::vector<std::string> names0;
    for (const auto& r : r0) names0.push_back(record_name(r));
    EXPECT_EQ(names0, (std::vector<std::string>{"comm_split", "compute", "compute", "send",
                                                "compute", "bcast"}));
    EXPECT_EQ(r0[3].peer, 1);
    EXPECT_EQ(r0[3].bytes, 1000u);
    EXPECT_EQ(r0[3].start, Time::s(1));
    EXPECT_EQ(r0[5].comm, 1);
    EXPECT_EQ(r0[5].root, 0);  // world rank 1 is rank 0 of cid 1
    EXPECT_EQ(r0[5].bytes, 8u);
    EXPECT_EQ(r0[5].start, Time::s(3));
    EXPECT_EQ(r0[5].end, Time::ms(3250));
    // Rank 1: timeAdjustment 100.5, so its Recv [1.0, 2.5] is [0.5, 2.0] after the origin.
    std::vector<std::string> names1;
    for (const auto& r : r1) names1.push_back(record_name(r));
    EXPECT_EQ(names1,
              (std::vector<std::string>{"comm_split", "compute", "recv", "compute", "bcast"}));
    EXPECT_EQ(r1[2].start, Time::ms(500));
    EXPECT_EQ(r1[2].end, Time::s(2));
    EXPECT_EQ(r1[2].bytes, 1000u);  // from the matching send
    EXPECT_EQ(r1[4].root, 0);
}

TEST_F(HdtraceSmall, NonblockingAndVCollectives) {
    const std::string proj = project();
    for (int r = 0; r < 2; ++r) {
        const int peer = 1 - r;
        trace(r == 0 ? "app_h0_0_0.trc" : "app_h1_1_0.trc",
              fmt::format("<Isend size='{}' toRank='{}' toTag='1' cid='0' rid='5' time='1.0' "
                          "end='1.0'/>\n"
                          "<Irecv fromRank='{}' fromTag='1' cid='0' rid='6' time='1.0' "
                          "end='1.1'/>\n"
                          "<Waitall time='1.1' end='1.2'><For rid='6'/><For rid='5'/></Waitall>\n"
                          "<Gatherv size='{}' root='0' cid='0' count='1' tid='1' time='1.2' "
                          "end='1.3'/>\n",
                          10 * (r + 1), peer, peer, 4 * (r + 1)));
    }
    const Trace t = read(proj);
    for (std::uint32_t r = 0; r < 2; ++r) {
        std::vector<Record> recs;
        for (const Record& x : records(t, r))
            if (x.kind != mpi::OpKind::Compute) recs.push_back(x);
        ASSERT_EQ(recs.size(), 4u);
        EXPECT_EQ(recs[0].kind, mpi::OpKind::Isend);
        EXPECT_EQ(recs[0].handle, 5u);
        EXPECT_EQ(recs[1].kind, mpi::OpKind::Irecv);
        EXPECT_EQ(recs[1].handle, 6u);
        EXPECT_EQ(recs[1].bytes, 10u * (2 - r));  // the other rank's Isend
        EXPECT_EQ(recs[2].kind, mpi::OpKind::Waitall);
        EXPECT_EQ(recs[2].handle, 5u);
        EXPECT_EQ(recs[2].count, 2u);
        EXPECT_EQ(record_name(recs[3]), "gatherv");
        ASSERT_GE(recs[3].counts, 0);
        EXPECT_EQ(t.count_lists[static_cast<std::size_t>(recs[3].counts)],
                  (std::vector<std::uint64_t>{4, 8}));
    }
}

TEST_F(HdtraceSmall, MissingTraceNamesTheProjectAndRank) {
    const std::string proj = project();
    good_traces();
    fs::remove(dir_ / "app_h1_1_0.trc");
    try {
        read(proj);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), proj);
        EXPECT_EQ(e.line(), 11);  // <Node name="1"> of host h1
        EXPECT_NE(std::string(e.what()).find("rank 1: trace file 'app_h1_1_0.trc' not found"),
                  std::string::npos)
            << e.what();
    }
}

TEST_F(HdtraceSmall, UnsupportedRecordIsAnErrorOrCounted) {
    const std::string proj = project();
    good_traces();
    trace("app_h1_1_0.trc",
          "<Recv fromRank='0' fromTag='7' cid='0' time='1.0' end='2.5'/>\n"
          "<Scan size='8' cid='0' time='2.6' end='2.7'/>\n"
          "<Bcast size='8' rootRank='1' cid='1' time='3.5' end='4.0'/>\n",
          "100.5");
    const std::string trc = (dir_ / "app_h1_1_0.trc").string();
    try {
        read(proj);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), trc);
        EXPECT_EQ(e.line(), 3);
        EXPECT_NE(std::string(e.what()).find("unsupported record <Scan>"), std::string::npos)
            << e.what();
    }
    ReadReport report;
    const Trace t = read(proj, report, /*skip_unknown=*/true);
    EXPECT_EQ(report.skipped.at("Scan"), 1u);
    // The skipped call's time stays in the timeline, inside the compute gap.
    const auto r1 = records(t, 1);
    Time sum = Time::zero();
    for (const auto& r : r1) sum += r.end - r.start;
    EXPECT_EQ(sum, r1.back().end - r1.front().start);
    EXPECT_EQ(kinds(t, 1),
              (std::map<std::string, int>{{"comm_split", 1}, {"recv", 1}, {"bcast", 1}}));
}

TEST_F(HdtraceSmall, MalformedTimeIsAnError) {
    const std::string proj = project();
    good_traces();
    trace("app_h0_0_0.trc",
          "<Init time='1.0' end='1.5'/>\n"
          "<Send size='1000' toRank='1' toTag='7' cid='0' time='2.0x' end='3.0'/>\n");
    try {
        read(proj);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), (dir_ / "app_h0_0_0.trc").string());
        EXPECT_EQ(e.line(), 3);
        EXPECT_NE(std::string(e.what()).find("time='2.0x'"), std::string::npos) << e.what();
    }
}

TEST_F(HdtraceSmall, UnknownCommunicatorIsAnError) {
    const std::string proj = project();
    good_traces();
    trace("app_h0_0_0.trc", "<Barrier cid='7' time='1.0' end='1.5'/>\n");
    try {
        read(proj);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), 2);
        EXPECT_NE(std::string(e.what()).find("cid 7 is not in the communicator list"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::traces
