// OpSpill (the operations of `run --out` on disk): the timeline written from it is the same
// text as write_timeline of the in-memory RunLog, and its statistics equal compute_stats,
// on a pseudo-random run of 300,000 operations (three sorted runs on disk) with overlapping
// operations, waits, clipped intervals, collectives whose members finish in any order, a
// collective some member never finished, and hardware spans.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "report/op_spill.hpp"
#include "report/stats.hpp"
#include "report/timeline.hpp"
#include "simulator/error.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

traces::RunLog make_run(std::size_t n, std::uint32_t ranks) {
    static const char* const kAlgorithms[] = {"bcast/binomial", "allreduce/ring"};
    std::mt19937_64 rng(19);
    traces::RunLog log;
    log.title = "spill test";
    log.ranks.resize(ranks);
    for (std::uint32_t r = 0; r < ranks; ++r) {
        log.ranks[r].app = "app";
        log.ranks[r].app_rank = static_cast<std::int32_t>(r);
        log.ranks[r].node = "n" + std::to_string(r / 2);
    }
    std::vector<std::int64_t> now(ranks, 0);
    const int bcast = mpi::kOpKinds + static_cast<int>(mpi::CollOp::Bcast);
    const int allreduce = mpi::kOpKinds + static_cast<int>(mpi::CollOp::Allreduce);
    std::uint32_t seq = 0;
    std::vector<mpi::OpEvent> pending;  // a collective's members, finished in shuffled order
    while (log.ops.size() < n) {
        const auto kind = rng() % 5;
        if (kind == 0) {  // a collective of all ranks (the last one: rank 0 never finishes it)
            const bool last = log.ops.size() + ranks >= n;
            const int k = rng() % 2 ? bcast : allreduce;
            for (std::uint32_t r = 0; r < ranks; ++r) {
                if (last && r == 0) continue;
                mpi::OpEvent e;
                e.rank = static_cast<std::int32_t>(r);
                e.kind = k;
                e.start = Time::ps(now[r] + static_cast<std::int64_t>(rng() % 50));
                e.end = e.start + Time::ps(static_cast<std::int64_t>(rng() % 100));
                e.wait = Time::ps(static_cast<std::int64_t>(rng() % 20));
                e.bytes = rng() % 4096;
                e.comm = 0;
                e.seq = seq;
                e.comm_size = ranks;
                e.algorithm = kAlgorithms[k == bcast ? 0 : 1];
                now[r] = e.end.ps();
                pending.push_back(e);
            }
            ++seq;
            std::shuffle(pending.begin(), pending.end(), rng);
            for (const auto& e : pending) log.ops.push_back(e);
            pending.clear();
        } else {  // compute, send or receive, sometimes overlapping the rank's previous one
            mpi::OpEvent e;
            e.rank = static_cast<std::int32_t>(rng() % ranks);
            e.kind = static_cast<int>(kind == 1   ? mpi::OpKind::Compute
                                      : kind == 2 ? mpi::OpKind::Send
                                                  : mpi::OpKind::Recv);
            const auto r = static_cast<std::size_t>(e.rank);
            e.start = Time::ps(now[r] - static_cast<std::int64_t>(rng() % 8));
            e.end = e.start + Time::ps(static_cast<std::int64_t>(rng() % 64));
            e.wait = Time::ps(static_cast<std::int64_t>(rng() % 80) - 10);
            e.bytes = kind == 1 ? 0 : rng() % 100000;
            e.peer = kind == 1 ? -1 : static_cast<std::int32_t>((r + 1) % ranks);
            now[r] = std::max(now[r], e.end.ps());
            log.ops.push_back(e);
        }
    }
    for (const auto& e : log.ops) log.simulated = max(log.simulated, e.end);
    log.hardware.push_back({"disk n0", Time::ps(5), Time::ps(90), "write 1 KiB"});
    log.hardware.push_back({"disk n0", Time::ps(10), Time::ps(20), "write 2 KiB"});
    return log;
}

TEST(OpSpill, TimelineAndStatisticsEqualTheInMemoryOnes) {
    const fs::path dir =
        fs::temp_directory_path() / ("clustersim_spill_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    struct Cleanup {
        fs::path d;
        ~Cleanup() { fs::remove_all(d); }
    } cleanup{dir};
    const traces::RunLog log = make_run(300'000, 7);
    ASSERT_GT(log.ops.size(), 2 * traces::OpSpill::kRunOps);

    traces::write_timeline(log, (dir / "memory.json").string());
    const traces::Stats expected = traces::compute_stats(log);

    traces::RunLog header = log;
    header.ops.clear();
    traces::Stats got;
    {
        traces::OpSpill spill((dir / "spill").string());
        for (const auto& e : log.ops) spill.add(e);
        spill.finish();
        EXPECT_EQ(spill.ops(), log.ops.size());
        EXPECT_EQ(spill.ranks(), 7u);
        EXPECT_GT(fs::file_size(dir / "spill"), 0u);
        traces::write_timeline_sorted(
            header, spill.ranks(), [&](mpi::OpEvent& e, Time& w) { return spill.next(e, w); },
            (dir / "spill.json").string());
        got = spill.stats().finish(header);
        // Read twice: rewind starts over with the same operations.
        spill.rewind();
        std::size_t again = 0;
        mpi::OpEvent e;
        Time w;
        while (spill.next(e, w)) ++again;
        EXPECT_EQ(again, log.ops.size());
    }
    EXPECT_FALSE(fs::exists(dir / "spill")) << "the scratch file is removed";

    const std::string a = slurp(dir / "memory.json"), b = slurp(dir / "spill.json");
    EXPECT_GT(a.size(), 1'000'000u);
    EXPECT_TRUE(a == b) << "timelines differ (sizes " << a.size() << " and " << b.size() << ")";
    EXPECT_NE(a.find(R"("name":"wait")"), std::string::npos);

    ASSERT_EQ(got.ranks.size(), expected.ranks.size());
    for (std::size_t r = 0; r < got.ranks.size(); ++r) {
        EXPECT_EQ(got.ranks[r].compute, expected.ranks[r].compute) << r;
        EXPECT_EQ(got.ranks[r].comm, expected.ranks[r].comm) << r;
        EXPECT_EQ(got.ranks[r].wait, expected.ranks[r].wait) << r;
        EXPECT_EQ(got.ranks[r].idle, expected.ranks[r].idle) << r;
        EXPECT_EQ(got.ranks[r].ops, expected.ranks[r].ops) << r;
        EXPECT_EQ(got.ranks[r].bytes_p2p, expected.ranks[r].bytes_p2p) << r;
    }
    EXPECT_GT(expected.wait, Time::zero());
    ASSERT_EQ(got.kinds.size(), expected.kinds.size());
    for (std::size_t k = 0; k < got.kinds.size(); ++k) {
        EXPECT_EQ(got.kinds[k].count, expected.kinds[k].count) << k;
        EXPECT_EQ(got.kinds[k].time, expected.kinds[k].time) << k;
        EXPECT_EQ(got.kinds[k].wait, expected.kinds[k].wait) << k;
        EXPECT_EQ(got.kinds[k].min, expected.kinds[k].min) << k;
        EXPECT_EQ(got.kinds[k].max, expected.kinds[k].max) << k;
    }
    EXPECT_EQ(got.finish, expected.finish);
    EXPECT_EQ(traces::format_stats(got, header), traces::format_stats(expected, log));
}

TEST(OpSpill, UnwritableScratchFileIsAnInputError) {
    EXPECT_THROW(traces::OpSpill("/proc/no/such/dir/spill"), InputError);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
