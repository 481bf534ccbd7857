// The algorithms of Open MPI 4.1 and MPICH 4 added beside the original ones (knomial trees,
// chains, scan/exscan, Rabenseifner, pairwise and Bruck exchanges, neighbour exchange, the
// Open MPI barriers) against closed forms on the uniform star (coll_fixtures.hpp:
// T(m) = 2L + 2m/B per uncontended message, S(m) = m/B per link; reductions free), within
// 1 %. Eager sends complete when their last byte has left, so a rank's k concurrent sends
// leave S(m) apart and its step ends k S(m) after it began.
#include <gtest/gtest.h>

#include <algorithm>

#include "coll_fixtures.hpp"
#include "run/model.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;
using mpi::CollOp;

constexpr double kTol = 0.01;

void expect_near_rel(double got, double want, const std::string& what) {
    EXPECT_NEAR(got, want, kTol * want) << what;
}

// The radix-4 knomial bcast over its tree: rank vr receives at t(vr); then, level by level
// from the highest, its up to 3 children of the level receive at start + T + (j-1) S, and
// the next level starts 3 S (or fewer) later.
double knomial_bcast_time(int p, double m) {
    std::vector<double> t(static_cast<std::size_t>(p), 0.0);
    double last = 0;
    for (int vr = 0; vr < p; ++vr) {  // parents come before their children
        long mask = 1;
        while (mask < p && (vr / mask) % 4 == 0) mask *= 4;
        double start = t[static_cast<std::size_t>(vr)];
        for (long lvl = mask / 4; lvl > 0; lvl /= 4) {
            int n = 0;
            for (long j = 1; j < 4 && vr + j * lvl < p; ++j, ++n)
                t[static_cast<std::size_t>(vr + j * lvl)] =
                    start + T(m) + static_cast<double>(n) * S(m);
            start += n * S(m);
            last = std::max(last, start);
        }
        last = std::max(last, t[static_cast<std::size_t>(vr)]);
    }
    return last;
}

TEST(NewBcast, KnomialFollowsItsTree) {
    for (int p : {2, 4, 5, 16, 23, 64}) {
        for (double m : {0.0, 1e4}) {
            const auto res =
                run_collective(p, {CollOp::Bcast, "knomial", static_cast<std::uint64_t>(m)});
            expect_near_rel(res.simulated.seconds(), knomial_bcast_time(p, m),
                            fmt::format("p={} m={}", p, m));
        }
    }
}

// Dependency graphs (Transfer::after). Eager: a middle rank forwards segment k when it has
// arrived, which is when the step-by-step chain forwards it too: the same closed form.
TEST(NewBcast, PipelineIsTheChainWhenSendsAreEager) {
    for (int p : {2, 3, 8}) {
        const double s = 64 * 1024, n = 8;
        const auto bytes = static_cast<std::uint64_t>(s * n);
        for (const char* alg : {"pipeline", "pipelined_chain"})
            expect_near_rel(run_collective(p, {CollOp::Bcast, alg, bytes}).simulated.seconds(),
                            (p - 1) * T(s) + (n - 1) * S(s), fmt::format("{} p={}", alg, p));
    }
}

// --algorithm bcast=pipeline:segment=16KiB sets the segment: 16 pieces of 16 KiB.
TEST(NewBcast, SegmentFromTheAlgorithmFlag) {
    const double s = 16 * 1024, n = 16;
    for (int p : {2, 5})
        expect_near_rel(run_collective(p, {CollOp::Bcast, "pipeline:segment=16KiB",
                                           static_cast<std::uint64_t>(s * n)})
                            .simulated.seconds(),
                        (p - 1) * T(s) + (n - 1) * S(s), fmt::format("p={}", p));
}

TEST(NewBcast, PipelinedBinaryTreeAndChainForwardAsSegmentsArrive) {
    const double s = 64 * 1024, n = 8;
    const auto bytes = static_cast<std::uint64_t>(s * n);
    // p = 7: the root's link carries 2n segments; the last reaches node 2 at T + (2n-1) S,
    // which forwards it to 5, then 6: 2T + 2n S.
    expect_near_rel(
        run_collective(7, {CollOp::Bcast, "pipelined_binary_tree", bytes}).simulated.seconds(),
        2 * T(s) + 2 * n * S(s), "pipelined_binary_tree p=7");
    // p = 9: chains 1-2, 3-4, 5-6, 7-8; segment k leaves the root for head c at (4k+c+1) S;
    // the last reaches the last tail T later than its head: 4n S + 4L + 3S.
    expect_near_rel(run_collective(9, {CollOp::Bcast, "chain", bytes}).simulated.seconds(),
                    4 * n * S(s) + 4 * kL + 3 * S(s), "chain p=9");
}

// Rendezvous (every message above the threshold), links of 20 us: the step-by-step chain posts the
// receive of segment k only when its forward of k-1 has completed, so each hop waits for the
// handshake of the next; the dependency graph keeps two receives posted ahead and forwards
// as data arrives. Same data, strictly less time; both exactly the bytes of the broadcast.
TEST(NewBcast, PipelineOverlapsTheRendezvousHandshakes) {
    std::string xml = R"(<cluster name="rendezvous-star">
  <network granularity="message" eager-threshold="1KiB"/>
  <collectives reduce-instructions-per-byte="0"/>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="6" type="n"/>
  <switch name="sw"/>
)";
    for (int i = 0; i < 6; ++i)
        xml += fmt::format(
            "  <cable from=\"n{}.s0\" to=\"sw\" latency=\"20us\" bandwidth=\"1GB/s\"/>\n", i);
    const auto t = run::parse_model(xml + "</cluster>\n", "rendezvous-star.xml");
    auto run = [&](const char* alg) {
        mpi::Op op;
        op.kind = mpi::OpKind::Collective;
        op.coll = CollOp::Bcast;
        op.bytes = 16 * 64 * 1024;
        ScriptProgram prog(std::vector<std::vector<mpi::Op>>(6, {op}));
        mpi::SimulationOptions o;
        o.algorithm_overrides = {std::string("bcast=") + alg};
        return mpi::simulate(t, one_rank_per_node(t, 6), prog, o);
    };
    const auto graph = run("pipeline"), steps = run("pipelined_chain");
    EXPECT_LT(graph.simulated.seconds(), 0.85 * steps.simulated.seconds())
        << graph.simulated.seconds() << " s vs " << steps.simulated.seconds() << " s";
    // Never faster than the data's path: 5 hops of one segment (each after its handshake,
    // 2 x 2L), then 15 more segments.
    const double L = 20e-6, hop = 4 * L + 2 * L + 2 * 65536 / kB;
    EXPECT_GE(graph.simulated.seconds(), 5 * hop + 15 * S(65536));
    for (std::size_t r = 0; r < 6; ++r) {
        EXPECT_EQ(graph.ranks[r].bytes_received, r == 0 ? 0u : 16u * 64 * 1024);
        EXPECT_EQ(graph.ranks[r].bytes_received, steps.ranks[r].bytes_received);
    }
}

TEST(NewBcast, SplitBinaryTreeSendsHalvesThenSwaps) {
    // p = 3: the root sends A to 1 and B to 2 (S apart), then 1 and 2 swap: T(m/2) + S(m/2) +
    // T(m/2). p = 2: A to 1, then B: T(m/2) + S(m/2) (the second leaves S later).
    const double m = 1e6, h = m / 2;
    expect_near_rel(
        run_collective(3, {CollOp::Bcast, "split_binary_tree", 1000000}).simulated.seconds(),
        2 * T(h) + S(h), "p=3");
    expect_near_rel(
        run_collective(2, {CollOp::Bcast, "split_binary_tree", 1000000}).simulated.seconds(),
        T(h) + S(h), "p=2");
}

TEST(NewBcast, ScatterRdAllgatherIsTheScatterThenTheHypercube) {
    // p = 2^k, b = m/p: the binomial scatter sum_{j<k} T(2^j b) = 2kL + 2(p-1)S(b), then the
    // recursive-doubling allgather, as much again.
    for (int p : {2, 4, 16}) {
        const double m = 1 << 20, b = m / p;
        const int k = ceil_log2(p);
        expect_near_rel(
            run_collective(p, {CollOp::Bcast, "scatter_rd_allgather", 1 << 20}).simulated.seconds(),
            4 * k * kL + 4 * (p - 1) * S(b), fmt::format("p={}", p));
    }
}

// The mirror: every child of a rank (of every level) sends as soon as its own subtree is
// combined; their messages queue on the rank's down-link in the order they leave (arrival =
// max(leave + T, previous arrival + S)), and the rank sends up when the last has arrived
// (its levels' steps end in order, each when its messages are in; reductions are free).
double knomial_reduce_time(int p, double m) {
    std::vector<double> done(static_cast<std::size_t>(p), 0.0);  // when vr may send up
    for (int vr = p - 1; vr >= 0; --vr) {                        // children (larger vr) first
        long mask = 1;
        while (mask < p && (vr / mask) % 4 == 0) mask *= 4;
        std::vector<double> leave;
        for (long lvl = 1; lvl < mask && vr + lvl < p; lvl *= 4)
            for (long j = 1; j < 4 && vr + j * lvl < p; ++j)
                leave.push_back(done[static_cast<std::size_t>(vr + j * lvl)]);
        std::sort(leave.begin(), leave.end());
        double arrive = 0;
        for (double l : leave) arrive = std::max(l + T(m), arrive + S(m));
        done[static_cast<std::size_t>(vr)] = arrive;
    }
    return done[0];
}

TEST(NewReduce, KnomialMirrorsTheBcastTree) {
    for (int p : {2, 4, 5, 16, 23}) {
        const double m = 1e4;
        const auto res = run_collective(p, {CollOp::Reduce, "knomial", 10000});
        expect_near_rel(res.simulated.seconds(), knomial_reduce_time(p, m), fmt::format("p={}", p));
    }
}

// A chain toward the root, n segments s: the last segment leaves the tail at n S (eager
// sends S apart) and needs p - 1 hops of T - S more... as the bcast pipeline:
// (p - 1) T(s) + (n - 1) S(s).
TEST(NewReduce, PipelineIsTheChainOfSegments) {
    for (int p : {2, 3, 8, 13}) {
        const double s = 64 * 1024, n = 8;
        const auto res =
            run_collective(p, {CollOp::Reduce, "pipeline", static_cast<std::uint64_t>(s * n)});
        expect_near_rel(res.simulated.seconds(), (p - 1) * T(s) + (n - 1) * S(s),
                        fmt::format("p={}", p));
    }
}

TEST(NewBarrier, LinearDoubleRingAndRecursiveDoubling) {
    for (int p : {2, 3, 8, 13, 16}) {
        // Linear: every signal reaches rank 0 by T(0), its releases leave at once: 2 T(0).
        expect_near_rel(run_collective(p, {CollOp::Barrier, "linear"}).simulated.seconds(),
                        2 * T(0), fmt::format("linear p={}", p));
        // Double ring: the token makes 2 p hops.
        expect_near_rel(run_collective(p, {CollOp::Barrier, "double_ring"}).simulated.seconds(),
                        2 * p * T(0), fmt::format("double_ring p={}", p));
        // Recursive doubling over the hypercube: rank x ends round j at
        // c_x(j) = max(c_x(j-1), c_{x^2^j}(j-1) + T(0)) (eager signals wait for nobody),
        // c_x(0) = T(0) for the ranks x < p - pof2 that first hear from x + pof2, else 0;
        // those release x + pof2 at c_x(k), T(0) later.
        const int k = ceil_log2(p + 1) - 1, pof2 = 1 << k;
        std::vector<double> c(static_cast<std::size_t>(pof2));
        for (int x = 0; x < pof2; ++x) c[static_cast<std::size_t>(x)] = x < p - pof2 ? T(0) : 0;
        for (int j = 0; j < k; ++j) {
            auto next = c;
            for (int x = 0; x < pof2; ++x)
                next[static_cast<std::size_t>(x)] =
                    std::max(c[static_cast<std::size_t>(x)],
                             c[static_cast<std::size_t>(x ^ (1 << j))] + T(0));
            c = next;
        }
        double want = 0;
        for (int x = 0; x < pof2; ++x)
            want = std::max(want, c[static_cast<std::size_t>(x)] + (x < p - pof2 ? T(0) : 0));
        expect_near_rel(
            run_collective(p, {CollOp::Barrier, "recursive_doubling"}).simulated.seconds(), want,
            fmt::format("recursive_doubling p={}", p));
    }
}

TEST(Scan, LinearIsAChain) {
    // Scan: p - 1 hops of the whole vector. Exscan: the same chain (the combination before
    // passing on is free here).
    for (int p : {2, 5, 16}) {
        const double m = 1e5;
        for (CollOp op : {CollOp::Scan, CollOp::Exscan})
            expect_near_rel(run_collective(p, {op, "linear", static_cast<std::uint64_t>(m)})
                                .simulated.seconds(),
                            (p - 1) * T(m), fmt::format("{} p={}", mpi::to_string(op), p));
    }
}

TEST(Scan, RecursiveDoublingTakesCeilLog2Exchanges) {
    // Each round exchanges the partial both ways at once (up- and down-link): T(m).
    for (int p : {2, 5, 16, 33}) {
        const double m = 1e5;
        for (CollOp op : {CollOp::Scan, CollOp::Exscan})
            expect_near_rel(
                run_collective(p, {op, "recursive_doubling", static_cast<std::uint64_t>(m)})
                    .simulated.seconds(),
                ceil_log2(p) * T(m), fmt::format("{} p={}", mpi::to_string(op), p));
    }
}

TEST(NewAllreduce, RabenseifnerHalvesThenDoubles) {
    // p = 2^k: halving rounds move m/2, m/4, ... m/p, the doubling rounds the same back:
    // 2 sum_{j=1..k} T(m / 2^j) = 4 k L + 4 (1 - 1/p) m/B.
    for (int p : {2, 4, 16, 64}) {
        const double m = 1 << 20;
        const int k = ceil_log2(p);
        expect_near_rel(
            run_collective(p, {CollOp::Allreduce, "rabenseifner", 1 << 20}).simulated.seconds(),
            4 * k * kL + 4 * (1 - 1.0 / p) * m / kB, fmt::format("p={}", p));
    }
}

TEST(NewAllreduce, SegmentedRingIsTheRingWhenOneSegmentHoldsABlock) {
    for (int p : {3, 8}) {
        const std::uint64_t m = 1 << 20;
        const auto ring = run_collective(p, {CollOp::Allreduce, "ring", m});
        const auto seg = run_collective(p, {CollOp::Allreduce, "segmented_ring", m});
        // The default 64 KiB segment cuts each block m/p into ceil(m/p/64Ki) phases: the
        // reduce-scatter takes phases (p-1) T(s) instead of (p-1) T(m/p).
        const double b = static_cast<double>(m) / p, s = 65536, phases = std::ceil(b / s);
        expect_near_rel(seg.simulated.seconds(), phases * (p - 1) * T(b / phases) + (p - 1) * T(b),
                        fmt::format("p={}", p));
        EXPECT_GT(seg.simulated, ring.simulated);
    }
}

TEST(NewReduceScatter, PairwiseTakesPMinusOneRounds) {
    for (int p : {2, 5, 8}) {
        const double m = 1e5;
        for (CollOp op : {CollOp::ReduceScatter, CollOp::ReduceScatterBlock})
            expect_near_rel(run_collective(p, {op, "pairwise", static_cast<std::uint64_t>(m)})
                                .simulated.seconds(),
                            (p - 1) * T(m), fmt::format("{} p={}", mpi::to_string(op), p));
    }
}

TEST(NewAlltoall, BruckMovesTheSlotsOfEachBit) {
    // Step k moves the slots t < p with bit k set: sum over k of T(n_k m).
    for (int p : {2, 5, 8, 16}) {
        const double m = 1e4;
        double want = 0;
        for (int d = 1; d < p; d *= 2) {
            int n = 0;
            for (int t = 1; t < p; ++t) n += (t & d) != 0;
            want += T(n * m);
        }
        expect_near_rel(run_collective(p, {CollOp::Alltoall, "bruck", 10000}).simulated.seconds(),
                        want, fmt::format("p={}", p));
    }
}

TEST(NewAlltoall, PairwiseXorTakesPMinusOneRounds) {
    for (int p : {2, 4, 8, 6}) {
        const double m = 1e4;
        expect_near_rel(
            run_collective(p, {CollOp::Alltoall, "pairwise_xor", 10000}).simulated.seconds(),
            (p - 1) * T(m), fmt::format("p={}", p));
    }
}

TEST(NewAllgather, NeighborExchangeTakesHalfPSteps) {
    // Even p: one block, then p/2 - 1 steps of two blocks. Odd p: the ring.
    for (int p : {2, 4, 8, 16}) {
        const double m = 1e4;
        expect_near_rel(
            run_collective(p, {CollOp::Allgather, "neighbor_exchange", 10000}).simulated.seconds(),
            T(m) + (p / 2 - 1) * T(2 * m), fmt::format("p={}", p));
    }
    expect_near_rel(
        run_collective(5, {CollOp::Allgather, "neighbor_exchange", 10000}).simulated.seconds(),
        4 * T(1e4), "p=5 (ring)");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;
using mpi::CollOp;

// Composed algorithms: the second phase starts when the root has finished the first, while
// every other rank waits with its receive posted, so the call takes the sum of the phases.
TEST(NewComposed, LinearAndKnomialAllreduceAreTheSumOfTheirPhases) {
    for (int p : {4, 7, 16}) {
        const std::uint64_t m = 100000;
        for (const char* alg : {"linear", "knomial"}) {
            const double whole = run_collective(p, {CollOp::Allreduce, alg, m}).simulated.seconds();
            const double reduce = run_collective(p, {CollOp::Reduce, alg, m}).simulated.seconds();
            const double bcast = run_collective(p, {CollOp::Bcast, alg, m}).simulated.seconds();
            EXPECT_NEAR(whole, reduce + bcast, 0.01 * whole) << alg << " p=" << p;
        }
    }
}

TEST(NewComposed, LinearAllgatherIsAGatherThenABcastOfAll) {
    for (int p : {3, 8}) {
        const std::uint64_t m = 10000;
        const double whole =
            run_collective(p, {CollOp::Allgather, "linear", m}).simulated.seconds();
        const double gather = run_collective(p, {CollOp::Gather, "linear", m}).simulated.seconds();
        const double bcast =
            run_collective(p, {CollOp::Bcast, "linear", m * static_cast<std::uint64_t>(p)})
                .simulated.seconds();
        EXPECT_NEAR(whole, gather + bcast, 0.01 * whole) << "p=" << p;
    }
}

// linear_sync: batches of 4 exchanges, each as the linear alltoall of 5 ranks (4 sends S
// apart on the up-link, 4 receives on the down-link): (k + 1) S(m) + 2L for a batch of k.
TEST(NewAlltoall, LinearSyncGoesInBatchesOfFour) {
    for (int p : {3, 5, 9, 11}) {
        const double m = 1e4;
        double want = 0;
        for (int first = 1; first < p; first += 4) {
            const int k = std::min(4, p - first);
            want += (k + 1) * S(m) + 2 * kL;
        }
        expect_near_rel(
            run_collective(p, {CollOp::Alltoall, "linear_sync", 10000}).simulated.seconds(), want,
            fmt::format("p={}", p));
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
