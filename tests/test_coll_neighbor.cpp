// Neighbourhood collectives on process topologies, run by the runtime on the uniform star of
// coll_fixtures.hpp (latency L, bandwidth B per link, whole messages, eager sends): closed
// forms within 1 %, and the communicator records they need.
//
// The `linear` algorithm posts every receive, then every send (in neighbour order). A rank
// with d out-neighbours sends d blocks of m bytes back to back on its up-link; the last leaves
// it at d·m/B and reaches its receiver after one more link: L + m/B + L. On a Cartesian grid
// with at least 3 ranks per dimension, or periodic of size 2, the blocks a rank receives
// reach the switch at distinct multiples of m/B, so its down-link never queues them:
//     T = 2L + (d + 1)·m/B,  d = 2 · dimensions.
// Into one rank from k senders at once (a graph's hub) they queue on its down-link:
//     T = 2L + (k + 1)·m/B.
#include <gtest/gtest.h>

#include "coll_fixtures.hpp"
#include "collectives/apps.hpp"
#include "simulator/error.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;
using mpi::CollOp;
using mpi::OpKind;

constexpr double kTol = 0.01;

void expect_near_rel(double got, double want, const std::string& what) {
    EXPECT_NEAR(got, want, kTol * want) << what;
}

// One topology constructor, then one neighbourhood collective on the communicator it makes
// (handle 1), on p ranks of the uniform star. `specs` are the ranks' topology arguments.
mpi::SimulationResult run_on(int p, OpKind create, const std::vector<mpi::TopoSpec>& specs,
                             CollOp coll, std::uint64_t bytes, bool nonblocking = false,
                             const std::vector<std::vector<std::uint64_t>>* counts = nullptr) {
    const auto t = uniform_star(p);
    static std::vector<std::vector<std::uint64_t>> encoded;  // live as long as the run
    encoded.clear();
    for (const auto& s : specs) encoded.push_back(mpi::encode_topo_spec(create, s));
    std::vector<std::vector<mpi::Op>> script(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) {
        mpi::Op c;
        c.kind = create;
        c.newcomm = 1;
        c.counts = &encoded[specs.size() == 1 ? 0 : static_cast<std::size_t>(r)];
        mpi::Op op;
        op.kind = OpKind::Collective;
        op.coll = coll;
        op.comm = 1;
        op.bytes = bytes;
        op.nonblocking = nonblocking;
        if (counts != nullptr) op.counts = &(*counts)[static_cast<std::size_t>(r)];
        auto& s = script[static_cast<std::size_t>(r)];
        s.push_back(c);
        if (create == OpKind::CartCreate) {
            std::int64_t grid = 1;
            for (auto d : specs[0].dims) grid *= d;
            if (r >= grid) continue;  // MPI_COMM_NULL
        }
        s.push_back(op);
        if (nonblocking) {
            mpi::Op w;
            w.kind = OpKind::Wait;
            s.push_back(w);
        }
    }
    ScriptProgram prog(script);
    mpi::SimulationOptions o;
    return mpi::simulate(t, one_rank_per_node(t, static_cast<std::size_t>(p)), prog, o);
}

mpi::TopoSpec cart(std::vector<std::int32_t> dims, bool periodic) {
    mpi::TopoSpec s;
    s.periods.assign(dims.size(), periodic ? 1 : 0);
    s.dims = std::move(dims);
    return s;
}

TEST(Neighbor, AlltoallOnAPeriodicRing) {
    const double m = 1e4;
    for (int p : {2, 3, 5, 8})
        for (CollOp op : {CollOp::NeighborAlltoall, CollOp::NeighborAllgather})
            for (bool nb : {false, true})
                expect_near_rel(run_on(p, OpKind::CartCreate, {cart({p}, true)}, op, 10000, nb)
                                    .simulated.seconds(),
                                2 * kL + 3 * S(m),
                                fmt::format("{} p={} nonblocking={}", to_string(op), p, nb));
}

TEST(Neighbor, AlltoallOnTorusAndLine) {
    const double m = 1e4;
    expect_near_rel(
        run_on(12, OpKind::CartCreate, {cart({3, 4}, true)}, CollOp::NeighborAlltoall, 10000)
            .simulated.seconds(),
        2 * kL + 5 * S(m), "3x4 torus");
    expect_near_rel(
        run_on(27, OpKind::CartCreate, {cart({3, 3, 3}, true)}, CollOp::NeighborAlltoall, 10000)
            .simulated.seconds(),
        2 * kL + 7 * S(m), "3x3x3 torus");
    // A line (not periodic): a rank next to an end gets its two blocks at once, queued on its
    // down-link: still 2L + 3m/B.
    expect_near_rel(
        run_on(6, OpKind::CartCreate, {cart({6}, false)}, CollOp::NeighborAlltoall, 10000)
            .simulated.seconds(),
        2 * kL + 3 * S(m), "line of 6");
    // Ranks outside the grid take no part: 6 of 8 ranks in the grid.
    expect_near_rel(
        run_on(8, OpKind::CartCreate, {cart({6}, true)}, CollOp::NeighborAlltoall, 10000)
            .simulated.seconds(),
        2 * kL + 3 * S(m), "6 of 8 ranks");
}

TEST(Neighbor, VFormsMoveTheirCounts) {
    // A periodic ring whose rank r sends c_r = (1 + r mod 3) * 5000 B to both neighbours;
    // alltoallv: rank r's time is set by its own sends and its slowest incoming block.
    const int p = 6;
    std::vector<std::vector<std::uint64_t>> counts(p);
    auto c = [](int r) { return 5000.0 * (1 + ((r % p) + p) % p % 3); };
    for (int r = 0; r < p; ++r) {
        const auto cr = static_cast<std::uint64_t>(c(r));
        counts[static_cast<std::size_t>(r)] = {cr, cr, static_cast<std::uint64_t>(c(r - 1 + p)),
                                               static_cast<std::uint64_t>(c(r + 1))};
    }
    // Block to the -1 neighbour leaves at c/B, to the +1 at 2c/B; rank r gets r+1's first
    // (at the switch c_{r+1}/B + L) and r-1's second (2 c_{r-1}/B + L); each then crosses the
    // down-link (its size / B + L), queued behind the other if they overlap.
    double want = 0;
    for (int r = 0; r < p; ++r) {
        const double a = c(r + 1) / kB + kL, b = 2 * c(r - 1 + p) / kB + kL;
        const double first = std::min(a, b), second = std::max(a, b);
        const double s1 = a <= b ? c(r + 1) / kB : c(r - 1 + p) / kB;
        const double s2 = a <= b ? c(r - 1 + p) / kB : c(r + 1) / kB;
        const double done1 = first + s1;
        const double done2 = std::max(second, done1) + s2;
        want = std::max(want, done2 + kL);
    }
    expect_near_rel(run_on(p, OpKind::CartCreate, {cart({p}, true)}, CollOp::NeighborAlltoallv, 0,
                           false, &counts)
                        .simulated.seconds(),
                    want, "alltoallv ring");
}

TEST(Neighbor, GraphHubQueuesOnItsDownLink) {
    // Every rank but 0 sends rank 0 one block: 2L + p m/B, made adjacently and by rank 0
    // naming every edge (MPI_Dist_graph_create).
    const int p = 7;
    const double m = 1e4;
    std::vector<mpi::TopoSpec> adjacent(p), general(p);
    for (int r = 1; r < p; ++r) {
        adjacent[0].sources.push_back(r);
        adjacent[static_cast<std::size_t>(r)].destinations.push_back(0);
        general[0].sources.push_back(r);
        general[0].destinations.push_back(0);
    }
    expect_near_rel(
        run_on(p, OpKind::DistGraphCreateAdjacent, adjacent, CollOp::NeighborAlltoall, 10000)
            .simulated.seconds(),
        2 * kL + p * S(m), "adjacent");
    expect_near_rel(run_on(p, OpKind::DistGraphCreate, general, CollOp::NeighborAllgather, 10000)
                        .simulated.seconds(),
                    2 * kL + p * S(m), "dist_graph_create");
}

TEST(Neighbor, AppsRunOnTheirGrid) {
    mpi::AppRegistry apps;
    mpi::register_builtin_apps(apps);
    const double m = 1e4;
    // 4 x 2 torus of 8 ranks: d = 4 (the size-2 dimension's two neighbours are one rank);
    // iterations follow one another; the nonblocking form waits for each call.
    for (const char* spec : {"neighbor_alltoall:size=10000B,dims=4x2,periodic=1,iterations=2",
                             "ineighbor_allgather:size=10000B,dims=4x2,periodic=1,iterations=2"}) {
        const auto t = uniform_star(8);
        auto app = apps.create(spec, 8);
        const auto res = mpi::simulate(t, one_rank_per_node(t, 8), *app, {});
        expect_near_rel(res.simulated.seconds(), 2 * (2 * kL + 5 * S(m)), spec);
    }
    // v-forms run (their counts are each rank's own).
    for (const char* spec :
         {"neighbor_allgatherv:size=4KiB,dims=3x3", "neighbor_alltoallw:size=4KiB",
          "ineighbor_alltoallv:size=4KiB,dims=2x2x2,periodic=1"}) {
        const auto t = uniform_star(9);
        auto app = apps.create(spec, 9);
        EXPECT_GT(mpi::simulate(t, one_rank_per_node(t, 9), *app, {}).simulated.seconds(), 0)
            << spec;
    }
    for (const char* bad :
         {"neighbor_alltoall:size=1KiB,dims=4x5", "neighbor_alltoall:size=1KiB,dims=4x0",
          "neighbor_alltoall:size=1KiB,dims=4y4", "neighbor_alltoall:size=1KiB,periodic=2"})
        EXPECT_THROW(apps.create(bad, 16), InputError) << bad;
}

TEST(Neighbor, BadTopologiesAreInputErrors) {
    // A neighbourhood collective on a communicator without a topology.
    {
        const auto t = uniform_star(2);
        mpi::Op op;
        op.kind = OpKind::Collective;
        op.coll = CollOp::NeighborAlltoall;
        op.bytes = 8;
        ScriptProgram prog({{op}, {op}});
        EXPECT_THROW(mpi::simulate(t, one_rank_per_node(t, 2), prog, {}), InputError);
    }
    // Rank 0 names rank 1 as a destination, rank 1 does not name rank 0 as a source.
    std::vector<mpi::TopoSpec> g(2);
    g[0].destinations = {1};
    EXPECT_THROW(run_on(2, OpKind::DistGraphCreateAdjacent, g, CollOp::NeighborAlltoall, 8),
                 InputError);
    // A grid larger than the communicator, ranks that disagree on the grid.
    EXPECT_THROW(run_on(2, OpKind::CartCreate, {cart({3}, false)}, CollOp::NeighborAlltoall, 8),
                 InputError);
    EXPECT_THROW(run_on(2, OpKind::CartCreate, {cart({2}, false), cart({2}, true)},
                        CollOp::NeighborAlltoall, 8),
                 InputError);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
