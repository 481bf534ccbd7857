// Barrier and broadcast algorithms against closed forms on the uniform star
// (coll_fixtures.hpp: T(m) = 2L + 2m/B per uncontended message, S(m) = m/B per link).
#include <gtest/gtest.h>

#include <algorithm>

#include "coll_fixtures.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

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
            EXPECT_NEAR(res.simulated.seconds(), binomial_bcast_time(p, m), 1e-9)
                << p << " root " << root;
            for (int r = 0; r < p; ++r)
                EXPECT_EQ(res.ranks[r].bytes_received, r == root ? 0 : m) << p;
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

// ---- binary_tree, pipelined_chain, scatter_allgather ---------------------------------------

int floor_log2(int x) {
    int k = 0;
    while ((2 << k) <= x) ++k;
    return k;
}
int bits_set(int x) {
    int n = 0;
    for (; x > 0; x >>= 1) n += x & 1;
    return n;
}

// Binary tree (heap order over relative ranks: children 2v+1, 2v+2). A parent posts both
// sends in one step; they share its up-link, whole message after whole message, so the
// left child's copy leaves first and the right child's S(m) later; nothing else shares a
// link (each rank receives once). Hence arrival(left) = arrival(v) + T(m) and
// arrival(right) = arrival(v) + S(m) + T(m). Writing v + 1 in binary (root = 1, a left
// step appends 0, a right step appends 1): arrival(v) = depth(v) T(m) + rights(v) S(m),
// depth = floor(log2(v+1)), rights = popcount(v+1) - 1. A parent's sends end 2 S(m) after
// its arrival, before its children's copies arrive, so the bcast ends at the latest
// arrival: max over v of that (the deepest node is not always the last when S(m) > 2L).
double binary_tree_bcast_time(int p, double m) {
    double worst = 0;
    for (int v = 1; v < p; ++v)
        worst = std::max(worst, floor_log2(v + 1) * T(m) + (bits_set(v + 1) - 1) * S(m));
    return worst;
}

TEST(Bcast, BinaryTreeRightChildrenWaitOneSerialization) {
    const std::uint64_t m = 1 << 20;
    for (int p : kRanks) {
        for (int root : {0, p / 2, p - 1}) {
            const auto res = run_collective(p, {CollOp::Bcast, "binary_tree", m, root});
            EXPECT_NEAR(res.simulated.seconds(), binary_tree_bcast_time(p, m), 1e-9)
                << p << " root " << root;
            std::uint64_t sent = 0, received = 0;
            for (int r = 0; r < p; ++r) {
                const int vr = (r - root + p) % p;
                const std::uint64_t children =
                    (2 * vr + 1 < p ? 1u : 0u) + (2 * vr + 2 < p ? 1u : 0u);
                EXPECT_EQ(res.ranks[r].bytes_received, r == root ? 0 : m) << p << " rank " << r;
                EXPECT_EQ(res.ranks[r].bytes_sent, children * m) << p << " rank " << r;
                sent += res.ranks[r].bytes_sent;
                received += res.ranks[r].bytes_received;
            }
            EXPECT_EQ(sent, received);
            EXPECT_EQ(sent, (p - 1) * m);
        }
    }
    // Full trees: the rightmost leaf is last, log2(p+1) - 1 levels deep, all right steps.
    EXPECT_NEAR(binary_tree_bcast_time(15, m), 3 * (T(m) + S(m)), 1e-15);
}

// Pipelined chain with n segments of s bytes, the last one s' = m - (n-1) s <= s.
// Rank 0 sends segment k during [k S(s), (k+1) S(s)]. A middle rank i, in step k, forwards
// segment k-1 (its send ends S(s) after the step starts) while receiving segment k; by
// induction segment k (k <= n-2) leaves rank i at sigma_i(k) = k S(s) + i T(s) and arrives
// at rank i+1 at k S(s) + (i+1) T(s): the forward of segment k-1 and the arrival of segment
// k end at the same instant, so every step lasts exactly S(s) and no link ever queues.
// The last segment leaves rank i at sigma_i(n-1) = sigma_i(n-2) + S(s) (after the previous
// send), but the receiver's down-link is still busy with segment n-2 until
// sigma_i(n-2) + 2 S(s) + L, so it arrives at sigma_i(n-1) + S(s) + S(s') + 2L (not
// + T(s')); this is earlier than the receiver's own forward of segment n-2 ends, so the
// next rank again sends it at (n-1) S(s) + (i+1) T(s). The last rank has it at
//     n >= 2:  (p-2) T(s) + (n-1) S(s) + S(s) + S(s') + 2L
// (= (p-1) T(s) + (n-1) S(s) for equal segments), and n = 1: (p-1) T(m). The middle
// ranks finish S(s') after sending the last segment, before that.
double pipelined_chain_time(int p, std::uint64_t m, std::uint64_t seg) {
    const std::uint64_t n = m == 0 ? 1 : (m + seg - 1) / seg;
    if (n == 1) return (p - 1) * T(m);
    const double s = seg, last = m - (n - 1) * seg;
    return (p - 2) * T(s) + (n - 1) * S(s) + S(s) + S(last) + 2 * kL;
}

// One bcast under a model rule (to set the segment size, which --algorithm cannot).
mpi::SimulationResult run_bcast_with_rule(int p, std::uint64_t m, int root,
                                          const std::string& rule) {
    const auto t = uniform_star(p, 0, rule);
    mpi::Op op;
    op.kind = mpi::OpKind::Collective;
    op.coll = CollOp::Bcast;
    op.bytes = m;
    op.root = root;
    ScriptProgram prog(std::vector<std::vector<mpi::Op>>(static_cast<std::size_t>(p), {op}));
    return mpi::simulate(t, one_rank_per_node(t, static_cast<std::size_t>(p)), prog);
}

void expect_chain_bytes(const mpi::SimulationResult& res, int p, int root, std::uint64_t m) {
    // Everyone but the root receives the message once; everyone but the chain's end
    // (relative rank p-1) forwards it once.
    for (int r = 0; r < p; ++r) {
        const int vr = (r - root + p) % p;
        EXPECT_EQ(res.ranks[r].bytes_received, vr == 0 ? 0 : m) << p << " rank " << r;
        EXPECT_EQ(res.ranks[r].bytes_sent, vr == p - 1 ? 0 : m) << p << " rank " << r;
    }
}

TEST(Bcast, PipelinedChainDefaultSegment) {
    // 64 KiB segments (the default): 1 MiB is 16 equal segments, 1 MiB + 1000 B is 16 full
    // and one of 1000 B, 0 B is one empty segment.
    const std::uint64_t seg = 64 * 1024;
    EXPECT_NEAR(pipelined_chain_time(5, 1 << 20, seg), 4 * T(seg) + 15 * S(seg), 1e-15);
    for (std::uint64_t m :
         {std::uint64_t{1} << 20, (std::uint64_t{1} << 20) + 1000, std::uint64_t{0}}) {
        for (int p : kRanks) {
            for (int root : {0, p - 1}) {
                const auto res = run_collective(p, {CollOp::Bcast, "pipelined_chain", m, root});
                EXPECT_NEAR(res.simulated.seconds(), pipelined_chain_time(p, m, seg), 1e-9)
                    << p << " root " << root << " m " << m;
                expect_chain_bytes(res, p, root, m);
            }
        }
    }
}

TEST(Bcast, PipelinedChainSegmentFromTheModel) {
    // 1 MiB in 100,000-byte segments: 10 full and a last one of 48,576 B.
    const std::uint64_t m = 1 << 20, seg = 100'000;
    const std::string rule =
        R"(<algorithm operation="bcast" name="pipelined_chain" segment="100000B"/>)";
    for (int p : kRanks) {
        for (int root : {0, 1}) {
            const auto res = run_bcast_with_rule(p, m, root, rule);
            EXPECT_NEAR(res.simulated.seconds(), pipelined_chain_time(p, m, seg), 1e-9)
                << p << " root " << root;
            expect_chain_bytes(res, p, root, m);
        }
    }
}

// Scatter-allgather on m = p b (p equal blocks of b). The binomial scatter sends each
// child the blocks of its subtree (n_c blocks, n_c = min(lowbit(c), p - c)), one send after
// the other (largest subtree first), so with a(0) = 0,
//     a(c) = a(parent) + S(b) * (blocks sent by the parent before c) + T(n_c b)
// and rank u leaves the scatter at f(u) = a(u) + (n_u - 1) S(b) (its own sends), or
// f(0) = (p-1) S(b) for the root. In the ring, step k of rank v ends at
//     t_v(k) = max(t_v(k-1) + S(b), t_{v-1}(k-1) + T(b)),   t_v(-1) = f(v)
// (its send; the block from v-1, sent when v-1 began step k). Unrolled, t_v(p-2) is the max
// over j of f(v-j) + j T(b) + (p-1-j) S(b); since T > S the longest chain of hops wins:
//     time = max_u f(u) + (p-1) T(b)
// (no link carries two messages at once: a rank's scatter message reaches its down-link
// before its ring predecessor's first block, which starts later in the same subtree).
double scatter_allgather_time(int p, double b) {
    std::vector<double> a(static_cast<std::size_t>(p), 0.0);
    double last_scatter = (p - 1) * S(b);  // the root
    for (int v = 1; v < p; ++v) {
        const int low = v & -v, parent = v - low;
        int top = parent & -parent;  // parent's sends go to parent + top/2, top/4, ...
        if (parent == 0) {
            top = 1;
            while (top < p) top <<= 1;
        }
        double before = 0;  // blocks the parent sends before v's
        for (int c = top >> 1; c > low; c >>= 1)
            if (parent + c < p) before += std::min(c, p - parent - c);
        const int n = std::min(low, p - v);
        a[v] = a[parent] + before * S(b) + T(n * b);
        last_scatter = std::max(last_scatter, a[v] + (n - 1) * S(b));
    }
    return last_scatter + (p - 1) * T(b);
}

TEST(Bcast, ScatterAllgatherIsTheScatterThenARing) {
    const std::uint64_t b = 64 * 1024;
    // p = 2^k: the scatter's last rank is p-1, at the end of the chain of first sends
    // 0 -> p/2 -> 3p/4 -> ... -> p-1 carrying p/2, p/4, ..., 1 blocks: sum of T(2^i b) =
    // 2 k L + 2 (p-1) S(b), i.e. the textbook log2(p) alpha + (p-1)/p m beta per hop, then
    // the ring's (p-1) T(b).
    for (int p : {2, 4, 8, 16})
        EXPECT_NEAR(scatter_allgather_time(p, b),
                    2 * ceil_log2(p) * kL + 2 * (p - 1) * S(b) + (p - 1) * T(b), 1e-15);
    for (int p : kRanks) {
        const std::uint64_t m = p * b;
        for (int root : {0, p - 1}) {
            const auto res = run_collective(p, {CollOp::Bcast, "scatter_allgather", m, root});
            EXPECT_NEAR(res.simulated.seconds(), scatter_allgather_time(p, b), 1e-9)
                << p << " root " << root;
        }
    }
}

TEST(Bcast, ScatterAllgatherMovesSubtreesThenAllButOneBlock) {
    // Uneven blocks: m = 1 MiB + 123, block i = m / p (+1 for i < m % p).
    const std::uint64_t m = (1 << 20) + 123;
    for (int p : kRanks) {
        auto block = [&](int i) { return m / p + (static_cast<std::uint64_t>(i) < m % p ? 1 : 0); };
        auto blocks = [&](int first, int n) {
            std::uint64_t sum = 0;
            for (int i = first; i < first + n; ++i) sum += block(i);
            return sum;
        };
        for (int root : {0, p - 1}) {
            const auto res = run_collective(p, {CollOp::Bcast, "scatter_allgather", m, root});
            std::uint64_t sent = 0, received = 0;
            for (int r = 0; r < p; ++r) {
                const int vr = (r - root + p) % p;
                // Scatter: vr receives its subtree's blocks [vr, vr + n) and passes on all but
                // its own. Ring: it receives every block but its own and sends every block
                // but its successor's.
                const std::uint64_t subtree = vr == 0 ? m : blocks(vr, std::min(vr & -vr, p - vr));
                EXPECT_EQ(res.ranks[r].bytes_received, (vr == 0 ? 0 : subtree) + m - block(vr))
                    << p << " " << r;
                EXPECT_EQ(res.ranks[r].bytes_sent, subtree - block(vr) + m - block((vr + 1) % p))
                    << p << " " << r;
                sent += res.ranks[r].bytes_sent;
                received += res.ranks[r].bytes_received;
            }
            EXPECT_EQ(sent, received);
        }
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
