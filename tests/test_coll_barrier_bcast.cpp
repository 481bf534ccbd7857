// Barrier and broadcast algorithms against closed forms on the uniform star
// (coll_fixtures.hpp: T(m) = 2L + 2m/B per uncontended message, S(m) = m/B per link).
#include <gtest/gtest.h>

#include <algorithm>

#include "coll_fixtures.hpp"

namespace clustersim {
namespace {

using namespace testing;
using mpi::CollOp;

const std::vector<int> kRanks{2, 3, 4, 5, 7, 8, 13, 16};

// Garg-De: a binary-tree barrier on N = 2^k - 1 ranks with one-way latency tau (zero-byte
// messages) takes 2 tau log2((N+1)/2): the pre-barrier climbs the tree's depth, the
// post-barrier descends it.
TEST(Barrier, GargDeBinaryTreeTakesTwoTauLogNPlusOneOverTwo) {
    const double tau = 2 * kL;  // socket -> switch -> socket
    for (int n : {1, 3, 7, 15, 31, 63}) {
        const auto res = run_collective(n, {CollOp::Barrier, "binary_tree"});
        EXPECT_NEAR(res.simulated.seconds(), 2 * tau * std::log2((n + 1) / 2.0), 1e-12) << n;
    }
}

TEST(Barrier, BinaryTreeOnAnyCount) {
    // Depth of the heap-ordered tree: floor(log2 p); up and down again.
    for (int p : kRanks) {
        const auto res = run_collective(p, {CollOp::Barrier, "binary_tree"});
        EXPECT_NEAR(res.simulated.seconds(), 2 * T(0) * std::floor(std::log2(p)), 1e-12) << p;
    }
}

TEST(Barrier, DisseminationTakesCeilLog2Rounds) {
    for (int p : kRanks) {
        const auto res = run_collective(p, {CollOp::Barrier, "dissemination"});
        EXPECT_NEAR(res.simulated.seconds(), ceil_log2(p) * T(0), 1e-12) << p;
        for (const auto& r : res.ranks) EXPECT_EQ(r.bytes_sent + r.bytes_received, 0u);
    }
}

TEST(Barrier, VirtualCostsNothingButWaitsForTheLastRank) {
    // Rank 2 computes 1 ms (1e6 instructions at 1G instr/s) before entering: everyone
    // leaves the barrier at 1 ms exactly, and no byte moves.
    const auto t = uniform_star(4);
    mpi::Op barrier;
    barrier.kind = mpi::OpKind::Collective;
    barrier.coll = CollOp::Barrier;
    ScriptProgram prog({{barrier}, {barrier}, {compute(1'000'000), barrier}, {barrier}});
    mpi::SimulationOptions o;
    o.algorithm_overrides = {"barrier=virtual"};
    const auto res = mpi::simulate(t, one_rank_per_node(t, 4), prog, o);
    for (const auto& r : res.ranks) {
        EXPECT_EQ(r.finish, Time::ms(1));
        EXPECT_EQ(r.bytes_sent + r.bytes_received, 0u);
    }
    EXPECT_EQ(res.network.messages_sent, 0u);
}

// Binomial (MPICH): relative rank v receives from v - lowbit(v); a rank sends to v + 2^i
// for decreasing i below its lowest set bit. Sends are eager: a rank's j-th send leaves
// j S(m) after its first, so arrival(v) = arrival(parent) + j S(m) + T(m). For p = 2^k the
// critical path is the chain of first sends: exactly log2(p) T(m), the textbook
// ceil(log2 p) (alpha + m/beta); otherwise it is computed from the tree below.
double binomial_bcast_time(int p, double m) {
    std::vector<double> arrival(static_cast<std::size_t>(p), 0.0);
    double worst = 0;
    for (int v = 1; v < p; ++v) {
        const int low = v & -v, parent = v - low;
        int parent_low = parent & -parent;
        if (parent == 0) {  // the root: above every bit
            parent_low = 1;
            while (parent_low < p) parent_low <<= 1;
        }
        int j = 0;  // children of `parent` sent to before v
        for (int c = parent_low >> 1; c > low; c >>= 1)
            if (parent + c < p) ++j;
        arrival[v] = arrival[parent] + j * S(m) + T(m);
        worst = std::max(worst, arrival[v]);
    }
    return worst;
}

TEST(Bcast, BinomialFollowsItsTree) {
    const std::uint64_t m = 1 << 20;
    for (int p : kRanks) {
        if ((p & (p - 1)) == 0) {
            EXPECT_NEAR(binomial_bcast_time(p, m), ceil_log2(p) * T(m), 1e-12);
        }
        for (int root : {0, p - 1}) {
            const auto res = run_collective(p, {CollOp::Bcast, "binomial", m, root});
            EXPECT_NEAR(res.simulated.seconds(), binomial_bcast_time(p, m), 1e-9) << p << " root " << root;
            for (int r = 0; r < p; ++r) EXPECT_EQ(res.ranks[r].bytes_received, r == root ? 0 : m) << p;
        }
    }
}

// Linear: the root pushes p-1 copies through its one up-link; the last leaves at
// (p-1) S(m) and arrives one more link and 2L later.
TEST(Bcast, LinearIsLimitedByTheRootsLink) {
    const std::uint64_t m = 1 << 20;
    for (int p : kRanks) {
        const auto res = run_collective(p, {CollOp::Bcast, "linear", m, 0});
        EXPECT_NEAR(res.simulated.seconds(), (p - 1) * S(m) + S(m) + 2 * kL, 1e-9) << p;
        EXPECT_EQ(res.ranks[0].bytes_sent, (p - 1) * m);
    }
}

}  // namespace
}  // namespace clustersim
