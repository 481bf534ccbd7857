// `clustersim trace merge` (traces/merge.hpp): rank files written here record by record (the
// tracer's format, traces/rank_file.hpp), merged, and checked field by field: compute bursts
// are the gaps between calls minus the tracer's buffer writes, Waitalls over scattered
// handles become waits, unmodeled calls are named and counted; and every bad input (missing
// or truncated rank file, files of two runs, ...) is a one-line error naming the file.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "report/recorder.hpp"
#include "simulator/error.hpp"
#include "traces/merge.hpp"
#include "traces/rank_file.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {
namespace CLUSTERSIM_TEST_FILE {

namespace rf = rankfile;
namespace fs = std::filesystem;

struct RankWriter {
    rf::RawHeader h;
    std::vector<char> bytes;
    std::uint64_t records = 0;

    RankWriter(std::uint64_t run, int rank, int size) {
        h.run_id = run;
        h.rank = rank;
        h.size = size;
        std::snprintf(h.host.data(), h.host.size(), "node%d", rank);
        std::snprintf(h.program.data(), h.program.size(), "app");
        put_raw(&h, sizeof h);
    }
    void put_raw(const void* p, std::size_t n) {
        const char* c = static_cast<const char*>(p);
        bytes.insert(bytes.end(), c, c + n);
    }
    rf::RawRecord& add(rf::RawRecord r, std::vector<std::uint64_t> extra = {}) {
        r.extra = static_cast<std::uint32_t>(extra.size());
        put_raw(&r, sizeof r);
        if (!extra.empty()) put_raw(extra.data(), extra.size() * 8);
        ++records;
        last = r;
        return last;
    }
    void end(std::int64_t at) {
        rf::RawRecord r;
        r.kind = rf::kEnd;
        r.start_ns = r.end_ns = at;
        r.bytes = records;
        put_raw(&r, sizeof r);
    }
    std::string save(const std::string& dir) const {
        const std::string path = dir + "/app.r" + std::to_string(h.rank) + rf::kExtension;
        std::ofstream(path, std::ios::binary)
            .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return path;
    }
    rf::RawRecord last;
};

rf::RawRecord rec(std::uint8_t kind, const char* call, std::int64_t start, std::int64_t end) {
    rf::RawRecord r;
    r.kind = kind;
    r.call = rf::call_index(call);
    r.start_ns = start;
    r.end_ns = end;
    return r;
}

class Merge : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir = (fs::path(::testing::TempDir()) /
               (std::string("clustersim_merge_") + info->name() + "_" + std::to_string(::getpid())))
                  .string();
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    // A complete two-rank run: rank 0 computes, sends, waits; rank 1 receives.
    std::pair<RankWriter, RankWriter> two_ranks(std::uint64_t run = 7) {
        RankWriter a(run, 0, 2), b(run, 1, 2);
        rf::RawRecord s = rec(rf::kSend, "MPI_Send", 1000, 3000);
        s.peer = 1;
        s.tag = 5;
        s.bytes = 4096;
        a.add(s);
        rf::RawRecord r = rec(rf::kRecv, "MPI_Recv", 500, 3100);
        r.tag = 5;
        r.bytes = 4096;
        b.add(r);
        a.end(5000);
        b.end(5000);
        return {a, b};
    }

    std::string merge_error(const std::vector<std::string>& inputs) {
        MergeReport rep;
        try {
            merge_rank_files(inputs, {}, rep);
        } catch (const InputError& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
            return what;
        }
        ADD_FAILURE() << "no error";
        return {};
    }

    std::string dir;
};

std::vector<Record> records(const Trace& t, std::uint32_t rank) {
    std::vector<Record> out;
    auto c = t.cursor(rank);
    Record r;
    while (c.next(r)) out.push_back(r);
    return out;
}

TEST_F(Merge, ComputeBurstsAreTheGapsBetweenCallsMinusBufferWrites) {
    RankWriter a(1, 0, 1);
    a.add(rec(rf::kCollective, "MPI_Barrier", 2000, 2500));  // 2 us of compute first
    a.add(rec(rf::kFlush, "MPI_Send", 3000, 3400));          // the tracer's 400 ns write
    a.add(rec(rf::kCollective, "MPI_Barrier", 4500, 4600));  // gap 2000 - 400 = 1600 ns
    a.end(10'000);                                           // tail 5400 ns
    const std::string p = a.save(dir);
    MergeReport rep;
    const Trace t = merge_rank_files({p}, {}, rep);
    const auto r = records(t, 0);
    ASSERT_EQ(r.size(), 5u);
    EXPECT_EQ(r[0].kind, mpi::OpKind::Compute);
    EXPECT_EQ(r[0].compute_time, Time::ns(2000));
    EXPECT_EQ(r[0].start, Time::zero());
    EXPECT_EQ(r[0].end, Time::ns(2000));
    EXPECT_EQ(r[1].kind, mpi::OpKind::Collective);
    EXPECT_EQ(r[1].coll, mpi::CollOp::Barrier);
    EXPECT_EQ(r[1].start, Time::ns(2000));
    EXPECT_EQ(r[1].end, Time::ns(2500));
    EXPECT_EQ(r[2].compute_time, Time::ns(1600));
    EXPECT_EQ(r[4].compute_time, Time::ns(5400));
    EXPECT_EQ(r[4].end, Time::ns(10'000));
    EXPECT_EQ(rep.flushes, 1u);
    EXPECT_EQ(rep.flush_ns, 400u);
    EXPECT_EQ(rep.calls.at("MPI_Barrier"), 2u);
    EXPECT_EQ(t.name, "app");
}

// compare's recorded side (run_log_from_trace with a TracerOverhead): the buffer write
// inside a merged compute burst is taken out of it, and the rank's later records move
// earlier by it.
TEST_F(Merge, CompareSubtractsTheRecordedBufferWrites) {
    RankWriter a(1, 0, 1);
    a.add(rec(rf::kCollective, "MPI_Barrier", 2000, 2500));
    a.add(rec(rf::kFlush, "MPI_Send", 3000, 3400));  // 400 ns in the gap 2500..4500
    a.add(rec(rf::kCollective, "MPI_Barrier", 4500, 4600));
    a.end(10'000);
    MergeReport rep;
    const Trace t = merge_rank_files({a.save(dir)}, {}, rep);
    const RunLog plain = run_log_from_trace(t, "as recorded");
    TracerOverhead overhead;
    const RunLog net = run_log_from_trace(t, "net", &overhead);
    EXPECT_EQ(overhead.total, Time::ns(400));
    EXPECT_EQ(overhead.bursts, 1u);
    ASSERT_EQ(plain.ops.size(), 5u);
    ASSERT_EQ(net.ops.size(), 5u);
    EXPECT_EQ(plain.ops[2].end - plain.ops[2].start, Time::ns(2000));
    EXPECT_EQ(net.ops[2].end - net.ops[2].start, Time::ns(1600));
    EXPECT_EQ(net.ops[3].start, Time::ns(4100));  // the second barrier, 400 ns earlier
    EXPECT_EQ(net.ops[4].end, Time::ns(9600));
    EXPECT_EQ(net.simulated, Time::ns(9600));
    EXPECT_EQ(plain.simulated, Time::ns(10'000));
    TracerOverhead none;  // a trace without buffer writes: nothing subtracted
    auto [b, c] = two_ranks();
    const Trace u = merge_rank_files({b.save(dir), c.save(dir)}, {}, rep);
    run_log_from_trace(u, "none", &none);
    EXPECT_EQ(none.total, Time::zero());
    EXPECT_EQ(none.bursts, 0u);
}

TEST_F(Merge, FieldsOfEveryModeledKindCarryOver) {
    RankWriter a(3, 0, 2), b(3, 1, 2);
    rf::RawRecord is = rec(rf::kIsend, "MPI_Isend", 0, 100);
    is.peer = 1;
    is.tag = 9;
    is.bytes = 100;
    is.handle = 0;
    a.add(is);
    rf::RawRecord ir = rec(rf::kIrecv, "MPI_Irecv", 100, 200);
    ir.peer = 1;
    ir.tag = 9;
    ir.bytes = 100;
    ir.handle = 1;
    a.add(ir);
    rf::RawRecord wa = rec(rf::kWaitall, "MPI_Waitall", 200, 900);
    wa.count = 2;
    a.add(wa, {1, 0});  // contiguous once sorted: waitall handle=0 count=2
    rf::RawRecord gv = rec(rf::kCollective, "MPI_Gatherv", 1000, 1500);
    gv.coll = static_cast<std::uint8_t>(mpi::CollOp::Gatherv);
    a.add(gv, {8, 16});
    rf::RawRecord fo = rec(rf::kFileOpen, "MPI_File_open", 1500, 2100);
    fo.file = 1;
    const std::string name = "/tmp/checkpoint.dat";
    fo.count = static_cast<std::uint32_t>(name.size());
    std::vector<std::uint64_t> words((name.size() + 7) / 8, 0);
    std::memcpy(words.data(), name.data(), name.size());
    a.add(fo, words);
    rf::RawRecord w = rec(rf::kFileWriteAtAll, "MPI_File_write_at_all", 2100, 2900);
    w.file = 1;
    w.bytes = 65536;
    w.offset = 131072;
    a.add(w);
    rf::RawRecord sp = rec(rf::kCommSplit, "MPI_Comm_split", 2900, 3100);
    sp.color = 1;
    sp.key = 4;
    sp.newcomm = 2;
    a.add(sp);
    a.end(4000);
    b.end(4000);
    const std::string pa = a.save(dir);
    b.save(dir);
    MergeReport rep;
    const Trace t = merge_rank_files({dir}, {}, rep);
    ASSERT_EQ(t.ranks(), 2u);
    const auto r = records(t, 0);
    ASSERT_EQ(r.size(), 9u);  // 7 calls, a burst before the gatherv, the tail
    EXPECT_EQ(r[0].kind, mpi::OpKind::Isend);
    EXPECT_EQ(r[0].peer, 1);
    EXPECT_EQ(r[0].tag, 9);
    EXPECT_EQ(r[0].bytes, 100u);
    EXPECT_EQ(r[2].kind, mpi::OpKind::Waitall);
    EXPECT_EQ(r[2].handle, 0u);
    EXPECT_EQ(r[2].count, 2u);
    EXPECT_EQ(r[3].kind, mpi::OpKind::Compute);
    EXPECT_EQ(r[3].compute_time, Time::ns(100));
    EXPECT_EQ(r[4].coll, mpi::CollOp::Gatherv);
    ASSERT_NE(r[4].counts, kNone);
    EXPECT_EQ(t.count_lists[static_cast<std::size_t>(r[4].counts)],
              (std::vector<std::uint64_t>{8, 16}));
    EXPECT_EQ(r[5].kind, mpi::OpKind::FileOpen);
    EXPECT_EQ(t.strings[static_cast<std::size_t>(r[5].path)], name);
    EXPECT_EQ(r[6].kind, mpi::OpKind::FileWriteAtAll);
    EXPECT_EQ(r[6].offset, 131072u);
    EXPECT_EQ(r[6].bytes, 65536u);
    EXPECT_EQ(r[7].kind, mpi::OpKind::CommSplit);
    EXPECT_EQ(r[7].color, 1);
    EXPECT_EQ(r[7].key, 4);
    EXPECT_EQ(r[7].newcomm, 2u);
    EXPECT_EQ(rep.files[0], pa);
    EXPECT_EQ(rep.hosts[1], "node1");
    EXPECT_TRUE(rep.unmodeled.empty());
}

TEST_F(Merge, WaitallOverScatteredHandlesBecomesWaitsEndingWithTheCall) {
    RankWriter a(4, 0, 1);
    rf::RawRecord wa = rec(rf::kWaitall, "MPI_Waitall", 0, 700);
    wa.count = 2;
    a.add(wa, {0, 2});
    a.end(700);
    MergeReport rep;
    const Trace t = merge_rank_files({a.save(dir)}, {}, rep);
    const auto r = records(t, 0);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].kind, mpi::OpKind::Wait);
    EXPECT_EQ(r[0].handle, 0u);
    EXPECT_EQ(r[0].end, Time::zero());
    EXPECT_EQ(r[1].handle, 2u);
    EXPECT_EQ(r[1].end, Time::ns(700));
    EXPECT_EQ(rep.waitalls_split, 1u);
}

TEST_F(Merge, UnmodeledCallsAreKeptNamedAndCounted) {
    RankWriter a(5, 0, 1);
    a.add(rec(rf::kUnmodeled, "MPI_Iprobe", 100, 150));
    a.add(rec(rf::kUnmodeled, "MPI_Iprobe", 200, 260));
    a.add(rec(rf::kUnmodeled, "MPI_Comm_rank", 300, 310));
    a.end(400);
    MergeReport rep;
    const Trace t = merge_rank_files({a.save(dir)}, {}, rep);
    EXPECT_EQ(rep.unmodeled.at("MPI_Iprobe"), 2u);
    EXPECT_EQ(rep.unmodeled.at("MPI_Comm_rank"), 1u);
    EXPECT_EQ(rep.unmodeled_ns, 120u);
    const auto r = records(t, 0);
    std::vector<std::string> names;
    for (const Record& x : r)
        if (x.kind == mpi::OpKind::Unmodeled) {
            names.push_back(t.strings[static_cast<std::size_t>(x.path)]);
            EXPECT_GT(x.compute_time, Time::zero());
        }
    EXPECT_EQ(names, (std::vector<std::string>{"MPI_Iprobe", "MPI_Iprobe", "MPI_Comm_rank"}));
    EXPECT_EQ(record_name(r[1]), "unmodeled");
}

// Failed polls are not records: the tracer writes one kPolls count per MPI function before
// the trailer; their time is in the gaps, so it stays in the compute bursts.
TEST_F(Merge, FailedPollsAreCountedAndTheirTimeStaysInTheComputeBursts) {
    RankWriter a(8, 0, 1);
    rf::RawRecord w = rec(rf::kWait, "MPI_Test", 5000, 5100);  // the successful poll
    w.handle = 0;
    rf::RawRecord ir = rec(rf::kIrecv, "MPI_Irecv", 100, 200);
    ir.peer = -1;
    a.add(ir);
    a.add(w);
    rf::RawRecord p = rec(rf::kPolls, "MPI_Test", 5200, 5200);
    p.bytes = 40;  // 40 failed MPI_Test between 200 and 5000 ns
    p.bytes2 = 3000;
    a.add(p);
    rf::RawRecord q = rec(rf::kPolls, "MPI_Iprobe", 5200, 5200);
    q.bytes = 7;
    q.bytes2 = 350;
    a.add(q);
    a.end(5200);
    MergeReport rep;
    const Trace t = merge_rank_files({a.save(dir)}, {}, rep);
    const auto r = records(t, 0);
    ASSERT_EQ(r.size(), 5u);  // burst, irecv, burst (the polls' time in it), wait, tail
    EXPECT_EQ(r[2].kind, mpi::OpKind::Compute);
    EXPECT_EQ(r[2].compute_time, Time::ns(4800));
    EXPECT_EQ(r[3].kind, mpi::OpKind::Wait);
    EXPECT_EQ(rep.failed_polls.at("MPI_Test").calls, 40u);
    EXPECT_EQ(rep.failed_polls.at("MPI_Test").ns, 3000u);
    EXPECT_EQ(rep.failed_polls.at("MPI_Iprobe").calls, 7u);
    EXPECT_EQ(rep.failed_polls.at("MPI_Iprobe").ns, 350u);
    EXPECT_EQ(rep.calls.at("MPI_Test"), 1u);  // the recorded one only
    EXPECT_EQ(rep.calls.count("MPI_Iprobe"), 0u);
    EXPECT_EQ(rep.raw_records, 5u);  // trailer included
}

// MPI_Cancel of a traced request is a `cancel` record; the wait that completes it is kept
// (flagged cancelled in the rank file, counted in the report).
TEST_F(Merge, CancelIsARecordAndTheCancelledCompletionIsCounted) {
    RankWriter a(9, 0, 1);
    rf::RawRecord ir = rec(rf::kIrecv, "MPI_Irecv", 0, 100);
    ir.peer = -1;
    ir.tag = -1;
    ir.handle = 3;
    a.add(ir);
    rf::RawRecord c = rec(rf::kCancel, "MPI_Cancel", 200, 300);
    c.handle = 3;
    a.add(c);
    rf::RawRecord w = rec(rf::kWait, "MPI_Wait", 300, 400);
    w.handle = 3;
    w.flags = rf::kFlagCancelled;
    a.add(w);
    a.end(400);
    MergeReport rep;
    const Trace t = merge_rank_files({a.save(dir)}, {}, rep);
    const auto r = records(t, 0);
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[2].kind, mpi::OpKind::Cancel);
    EXPECT_EQ(record_name(r[2]), "cancel");
    EXPECT_EQ(r[2].handle, 3u);
    EXPECT_EQ(r[2].start, Time::ns(200));
    EXPECT_EQ(r[3].kind, mpi::OpKind::Wait);
    EXPECT_EQ(rep.cancelled_completions, 1u);
    EXPECT_EQ(rep.calls.at("MPI_Cancel"), 1u);
    EXPECT_TRUE(rep.unmodeled.empty());
}

TEST_F(Merge, MergedTraceSurvivesTheBinaryAndTextFormats) {
    auto [a, b] = two_ranks();
    RankWriter c(7, 0, 2);  // rank 0 with an unmodeled call too
    rf::RawRecord s = rec(rf::kSend, "MPI_Send", 1000, 3000);
    s.peer = 1;
    s.bytes = 4096;
    c.add(s);
    c.add(rec(rf::kUnmodeled, "MPI_Probe", 3100, 3200));
    c.end(5000);
    c.save(dir);
    b.save(dir);
    MergeReport rep;
    const Trace t = merge_rank_files({dir}, {}, rep);
    const std::string bin = dir + "/merged.cstrace", txt = dir + "/merged.txt";
    write_binary(t, bin);
    write_text(t, txt);
    const Trace tb = read_binary(bin), tt = read_text(txt);
    for (std::uint32_t r = 0; r < 2; ++r) {
        EXPECT_EQ(records(tb, r), records(t, r));
        EXPECT_EQ(records(tt, r), records(t, r));
    }
}

// ---- bad inputs: one line naming the file ------------------------------------------------

TEST_F(Merge, MissingRankFileIsNamed) {
    auto [a, b] = two_ranks();
    const std::string pa = a.save(dir);
    const std::string e = merge_error({pa});
    EXPECT_NE(e.find(pa), std::string::npos) << e;
    EXPECT_NE(e.find("rank 1 of the run's 2 ranks is missing"), std::string::npos) << e;
    EXPECT_NE(e.find("app.r1.csrank"), std::string::npos) << e;
}

TEST_F(Merge, TruncatedRecordIsAnError) {
    auto [a, b] = two_ranks();
    a.bytes.resize(sizeof(rf::RawHeader) + 50);  // half a record
    const std::string pa = a.save(dir);
    b.save(dir);
    const std::string e = merge_error({dir});
    EXPECT_NE(e.find(pa), std::string::npos) << e;
    EXPECT_NE(e.find("truncated at byte 168: record 1 needs 120 bytes, 50 left"), std::string::npos)
        << e;
}

TEST_F(Merge, FileWithoutTrailerIsTruncated) {
    auto [a, b] = two_ranks();
    a.bytes.resize(a.bytes.size() - sizeof(rf::RawRecord));  // drop the trailer
    const std::string pa = a.save(dir);
    b.save(dir);
    const std::string e = merge_error({dir});
    EXPECT_NE(e.find(pa + ": truncated: 1 records and no end-of-trace record"), std::string::npos)
        << e;
}

TEST_F(Merge, TruncatedHeaderIsAnError) {
    auto [a, b] = two_ranks();
    a.bytes.resize(100);
    const std::string pa = a.save(dir);
    const std::string e = merge_error({pa});
    EXPECT_NE(e.find("truncated: the header needs 168 bytes, the file has 100"), std::string::npos)
        << e;
}

TEST_F(Merge, FilesFromTwoRunsAreRefused) {
    auto [a, b] = two_ranks(7);
    auto [c, d] = two_ranks(8);
    a.save(dir);
    const std::string pd = d.save(dir);  // rank 1 of another run
    const std::string e = merge_error({dir});
    EXPECT_NE(e.find(pd), std::string::npos) << e;
    EXPECT_NE(e.find("rank files of two different runs"), std::string::npos) << e;
    EXPECT_NE(e.find("0000000000000008"), std::string::npos) << e;
}

TEST_F(Merge, DifferentRunSizesAreRefused) {
    auto [a, b] = two_ranks(7);
    RankWriter c(7, 1, 3);
    c.end(10);
    a.save(dir);
    c.save(dir);
    EXPECT_NE(merge_error({dir}).find("a run of 3 ranks, but"), std::string::npos);
}

TEST_F(Merge, RankTwiceIsRefused) {
    auto [a, b] = two_ranks();
    const std::string pa = a.save(dir);
    const std::string copy = dir + "/copy.csrank";
    fs::copy_file(pa, copy);
    const std::string e = merge_error({pa, copy});
    EXPECT_NE(e.find("rank 0 twice"), std::string::npos) << e;
}

TEST_F(Merge, NotARankFile) {
    const std::string p = dir + "/x.csrank";
    std::ofstream(p) << std::string(400, 'x');
    EXPECT_NE(merge_error({p}).find("not a clustersim rank file (expected magic CSRANK01)"),
              std::string::npos);
}

TEST_F(Merge, MissingPathAndEmptyFolder) {
    EXPECT_NE(merge_error({dir + "/nope"}).find("no such rank file or folder"), std::string::npos);
    EXPECT_NE(merge_error({dir}).find("no rank files (*.csrank) in this folder"),
              std::string::npos);
}

TEST_F(Merge, UnknownKindAndBytesAfterTheTrailer) {
    {
        RankWriter a(9, 0, 1);
        a.add(rec(77, "MPI_Send", 0, 1));
        a.end(5);
        EXPECT_NE(merge_error({a.save(dir)}).find("unknown record kind 77"), std::string::npos);
    }
    {
        RankWriter a(9, 0, 1);
        a.end(5);
        a.put_raw("junk", 4);
        EXPECT_NE(merge_error({a.save(dir)}).find("4 bytes after the end-of-trace record"),
                  std::string::npos);
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::traces
