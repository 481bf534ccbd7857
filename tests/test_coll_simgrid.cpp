// SimGrid's SMPI defaults as a decision profile (--mpi simgrid, collectives/selection.cpp) and
// the algorithms it chooses that clustersim had not (collectives/algorithms/*.cpp): closed
// forms on the uniform star of coll_fixtures.hpp (T(m) = 2L + 2m/B, S(m) = m/B), the
// profile's choices, its 16-byte envelope and its eager-only sends.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "coll_fixtures.hpp"
#include "collectives/selection.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using mpi::CollOp;
using mpi::profile_choice;
using namespace testing;

constexpr double kTol = 1e-9;  // relative

void expect_near_rel(double got, double want, const std::string& what) {
    EXPECT_NEAR(got, want, kTol * want) << what;
}

const int kPs[] = {2, 3, 5, 8, 13, 16};

// direct: in the one step rank r's k-th send (k = 1..p-1) leaves its up-link at k S. Rank d
// hears from the d lower ranks in their slot d and from the p-1-d higher ones in slot d+1,
// so the ranks' down-links finish at 2L + (p-1+d) S (d >= 1) or 2L + p S (d = 0): the last
// rank's, 2L + 2 (p-1) S, ends the call. Every rank sends its block p-1 times and receives
// p-1 blocks.
TEST(SimgridAlgorithms, DirectAllgatherQueuesOnTheLastRanksDownLink) {
    const std::uint64_t m = 100'000;
    for (int p : kPs) {
        const auto res = run_collective(p, {CollOp::Allgather, "direct", m});
        expect_near_rel(res.simulated.seconds(), 2 * kL + 2 * (p - 1) * S(m),
                        fmt::format("p={}", p));
        for (int r = 0; r < p; ++r) {
            EXPECT_EQ(res.ranks[r].bytes_sent, (p - 1) * m) << p;
            EXPECT_EQ(res.ranks[r].bytes_received, (p - 1) * m) << p;
        }
    }
}

// allgatherv/direct with unequal blocks: rank r's block is (r + 1) b; what each rank sends
// and receives follows the counts.
TEST(SimgridAlgorithms, DirectAllgathervMovesEachRanksBlock) {
    const std::uint64_t b = 10'000;
    for (int p : {2, 5, 8}) {
        std::vector<std::uint64_t> counts;
        std::uint64_t total = 0;
        for (int r = 0; r < p; ++r) {
            counts.push_back((r + 1) * b);
            total += (r + 1) * b;
        }
        const auto res = run_collective(p, {CollOp::Allgatherv, "direct", 0, 0, &counts});
        for (int r = 0; r < p; ++r) {
            EXPECT_EQ(res.ranks[r].bytes_sent, (p - 1) * counts[r]) << p;
            EXPECT_EQ(res.ranks[r].bytes_received, total - counts[r]) << p;
        }
        // The last rank's down-link carries every other block after its own sends started:
        // at least 2L + the serialization of all it receives.
        EXPECT_GE(res.simulated.seconds(), 2 * kL + S(static_cast<double>(total - counts[p - 1])));
    }
}

// linear_reduce_bcast: the linear reduce (the p-1 vectors queue on rank 0's down-link: p S(m)
// + 2L), then the binomial bcast from rank 0 (ceil(log2 p) T(m) for p = 2^k; over its tree
// otherwise, pinned by test_coll_barrier_bcast's Bcast.BinomialFollowsItsTree).
TEST(SimgridAlgorithms, LinearReduceThenBinomialBcastAllreduce) {
    const std::uint64_t m = 1 << 20;
    for (int p : kPs) {
        const auto res = run_collective(p, {CollOp::Allreduce, "linear_reduce_bcast", m});
        const double bcast = run_collective(p, {CollOp::Bcast, "binomial", m}).simulated.seconds();
        if ((p & (p - 1)) == 0) expect_near_rel(bcast, ceil_log2(p) * T(m), "bcast");
        expect_near_rel(res.simulated.seconds(), p * S(m) + 2 * kL + bcast, fmt::format("p={}", p));
        EXPECT_EQ(res.ranks[0].bytes_received, (p - 1) * m);
        EXPECT_EQ(res.ranks[p - 1].bytes_sent, m);
    }
}

// direct scan / exscan: rank q sends its vector to q+1, ..., p-1 in that order, so rank r
// hears from q in slot r-q: arrivals at the switch L + S, ..., L + r S, one per S, and its
// down-link finishes at (r + 1) S + 2L; the last rank ends the call at p S + 2L.
TEST(SimgridAlgorithms, DirectScanAndExscan) {
    const std::uint64_t m = 100'000;
    for (int p : kPs) {
        for (CollOp op : {CollOp::Scan, CollOp::Exscan}) {
            const auto res = run_collective(p, {op, "direct", m});
            expect_near_rel(res.simulated.seconds(), p * S(m) + 2 * kL,
                            fmt::format("{} p={}", mpi::to_string(op), p));
            for (int r = 0; r < p; ++r) {
                EXPECT_EQ(res.ranks[r].bytes_sent, (p - 1 - r) * m);
                EXPECT_EQ(res.ranks[r].bytes_received, r * m);
            }
        }
    }
}

// reduce_scatter: the linear reduce of the p-block vector (p S(p m) + 2L), then the linear
// scatter of one block to each rank (p S(m) + 2L).
TEST(SimgridAlgorithms, ReduceThenScatter) {
    const std::uint64_t m = 50'000;
    for (int p : kPs) {
        for (CollOp op : {CollOp::ReduceScatter, CollOp::ReduceScatterBlock}) {
            const auto res = run_collective(p, {op, "reduce_scatter", m});
            expect_near_rel(res.simulated.seconds(), p * S(p * m) + p * S(m) + 4 * kL,
                            fmt::format("{} p={}", mpi::to_string(op), p));
            EXPECT_EQ(res.ranks[0].bytes_received, (p - 1) * p * m);
            EXPECT_EQ(res.ranks[0].bytes_sent, (p - 1) * m);
        }
    }
}

TEST(SimgridProfile, ChoosesSmpiDefaultAlgorithms) {
    const std::string s = "simgrid";
    for (int p : {2, 16, 128}) {
        for (std::uint64_t b : {8ull, 65536ull, 8ull << 20}) {
            EXPECT_EQ(profile_choice(s, CollOp::Barrier, 0, p).name, "linear");
            EXPECT_EQ(profile_choice(s, CollOp::Bcast, b, p).name, "binomial");
            EXPECT_EQ(profile_choice(s, CollOp::Reduce, b, p).name, "linear");
            EXPECT_EQ(profile_choice(s, CollOp::Allreduce, b, p).name, "linear_reduce_bcast");
            EXPECT_EQ(profile_choice(s, CollOp::Allgather, b, p).name, "direct");
            EXPECT_EQ(profile_choice(s, CollOp::Allgatherv, b, p).name, "direct");
            EXPECT_EQ(profile_choice(s, CollOp::Gather, b, p).name, "linear");
            EXPECT_EQ(profile_choice(s, CollOp::Scatterv, b, p).name, "linear");
            EXPECT_EQ(profile_choice(s, CollOp::Alltoallv, b, p).name, "linear");
            EXPECT_EQ(profile_choice(s, CollOp::Scan, b, p).name, "direct");
            EXPECT_EQ(profile_choice(s, CollOp::ReduceScatter, b, p).name, "reduce_scatter");
        }
    }
    // alltoall__ompi's rules with SimGrid's functions: 16 ranks, 8 B: 3 (bruck); 16 ranks,
    // 64 KiB: 4 (linear_sync -> basic_linear); 128 ranks, 8 MiB: 2 (pair, XOR); 2 ranks,
    // 8 B: 2 (pair); 2 ranks, 2 B: 5 (two_proc -> basic_linear).
    EXPECT_EQ(profile_choice(s, CollOp::Alltoall, 8, 16).name, "bruck");
    EXPECT_EQ(profile_choice(s, CollOp::Alltoall, 65536, 16).name, "linear");
    EXPECT_EQ(profile_choice(s, CollOp::Alltoall, 8 << 20, 128).name, "pairwise_xor");
    EXPECT_EQ(profile_choice(s, CollOp::Alltoall, 8, 2).name, "pairwise_xor");
    EXPECT_EQ(profile_choice(s, CollOp::Alltoall, 2, 2).name, "linear");
}

// A 1 MiB send on the star with a 1 KiB eager threshold: rendezvous (RTS, CTS, data) takes
// 3 messages' time, T(0) + T(0) + T(m); under --mpi simgrid it goes eagerly with SimGrid's
// 16-byte envelope: T(m + 16).
TEST(SimgridProfile, EagerSendsWithTheSixteenByteEnvelope) {
    auto t = uniform_star(2);
    t.topology.settings.eager_threshold = 1024;
    const std::uint64_t m = 1 << 20;
    for (const std::string profile : {"", "simgrid"}) {
        ScriptProgram prog({{send(1, m)}, {recv(0, m)}});
        mpi::SimulationOptions o;
        o.mpi_profile = profile;
        const auto res = mpi::simulate(t, one_rank_per_node(t, 2), prog, o);
        const double want = profile.empty() ? 2 * T(0) + T(m) : T(m + 16);
        expect_near_rel(res.simulated.seconds(), want, "profile '" + profile + "'");
        EXPECT_EQ(res.ranks[1].bytes_received, m) << "the envelope is not payload";
    }
}

// Under --mpi simgrid a collective charges no reduction work (SimGrid's replay reduces with
// MPI_OP_NULL); the model's reduce-instructions-per-byte applies otherwise.
TEST(SimgridProfile, NoReductionWorkInsideCollectives) {
    const int p = 4;
    const std::uint64_t m = 1 << 20;
    const auto t = uniform_star(p, 1);  // 1 instruction per byte at 1 G instructions/s
    mpi::Op op;
    op.kind = mpi::OpKind::Collective;
    op.coll = CollOp::Reduce;
    op.bytes = m;
    for (const std::string profile : {"", "simgrid"}) {
        ScriptProgram prog(std::vector<std::vector<mpi::Op>>(p, {op}));
        mpi::SimulationOptions o;
        o.mpi_profile = profile;
        o.algorithm_overrides = {"reduce=linear"};
        const auto res = mpi::simulate(t, one_rank_per_node(t, p), prog, o);
        const double net = p * S(m + (profile.empty() ? 0 : 16)) + 2 * kL;
        const double reduce = profile.empty() ? (p - 1) * m / 1e9 : 0;
        expect_near_rel(res.simulated.seconds(), net + reduce, "profile '" + profile + "'");
    }
}

// The same with a model that prices reductions by a measured rate or curve (a calibrated
// model's <collectives reduce-rate>): none under --mpi simgrid either.
TEST(SimgridProfile, NoReductionWorkWhateverTheModelPricesItBy) {
    const int p = 4;
    const std::uint64_t m = 1 << 20;
    mpi::Op op;
    op.kind = mpi::OpKind::Collective;
    op.coll = CollOp::Reduce;
    op.bytes = m;
    for (const bool curve : {false, true}) {
        auto t = uniform_star(p, 0);
        if (curve)
            t.mpi.reduce_curve = {{1024, Bandwidth{100000000}}, {1 << 24, Bandwidth{100000000}}};
        else
            t.mpi.reduce_bandwidth = Bandwidth{100000000};
        for (const std::string profile : {"", "simgrid"}) {
            ScriptProgram prog(std::vector<std::vector<mpi::Op>>(p, {op}));
            mpi::SimulationOptions o;
            o.mpi_profile = profile;
            o.algorithm_overrides = {"reduce=linear"};
            const auto res = mpi::simulate(t, one_rank_per_node(t, p), prog, o);
            const double net = p * S(m + (profile.empty() ? 0 : 16)) + 2 * kL;
            const double reduce = profile.empty() ? (p - 1) * m / 1e8 : 0;
            expect_near_rel(res.simulated.seconds(), net + reduce,
                            fmt::format("profile '{}', {}", profile, curve ? "curve" : "rate"));
        }
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
