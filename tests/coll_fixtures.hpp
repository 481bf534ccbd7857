// Shared harness for collective-algorithm tests: a uniform star and a one-call runner.
//
// The star: p single-socket nodes, each socket cabled straight to one switch (unlimited
// relay); every link has latency L = 1 us and bandwidth B = 1 GB/s; whole-message transfers;
// every message eager (sends complete when their last byte has left); reductions free
// unless asked. A message of m bytes between two ranks thus takes
//     T(m) = 2 L + 2 m / B     (two store_and_forward hops)
// and each rank has one up-link and one down-link: two messages into one rank serialize on
// its down-link (m / B each), two out of one rank on its up-link.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim_fixtures.hpp"

namespace clustersim::testing {

constexpr double kL = 1e-6;  // s
constexpr double kB = 1e9;   // B/s

inline double T(double m) {
    return 2 * kL + 2 * m / kB;
}
inline double S(double m) {
    return m / kB;
}  // serialization of m on one link

inline run::Model uniform_star(int p, std::uint64_t reduce_ipb = 0, const std::string& extra = "") {
    std::string xml = fmt::format(R"(<cluster name="uniform-star">
  <network granularity="message" eager-threshold="1TiB"/>
  <collectives reduce-instructions-per-byte="{}">{}</collectives>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="{}" type="n"/>
  <switch name="sw"/>
)",
                                  reduce_ipb, extra, p);
    for (int i = 0; i < p; ++i)
        xml += fmt::format(
            "  <cable from=\"n{}.s0\" to=\"sw\" latency=\"1us\" bandwidth=\"1GB/s\"/>\n", i);
    return run::parse_model(xml + "</cluster>\n", "uniform-star.xml");
}

struct CollCall {
    mpi::CollOp op;
    std::string algorithm;
    std::uint64_t bytes = 0;
    std::int32_t root = 0;
    const std::vector<std::uint64_t>* counts = nullptr;
};

// Runs one call of the collective on p ranks (rank i on node i) of the uniform star.
inline mpi::SimulationResult run_collective(int p, const CollCall& c,
                                            std::uint64_t reduce_ipb = 0) {
    const auto t = uniform_star(p, reduce_ipb);
    mpi::Op op;
    op.kind = mpi::OpKind::Collective;
    op.coll = c.op;
    op.bytes = c.bytes;
    op.root = c.root;
    op.counts = c.counts;
    ScriptProgram prog(std::vector<std::vector<mpi::Op>>(static_cast<std::size_t>(p), {op}));
    mpi::SimulationOptions o;
    o.algorithm_overrides = {std::string(mpi::to_string(c.op)) + "=" + c.algorithm};
    return mpi::simulate(t, one_rank_per_node(t, static_cast<std::size_t>(p)), prog, o);
}

// Runs script `a` on rank 0 and `b` on rank 1 of the two-node model `t` (rank i on node i)
// under the network model `network`; each rank's bytes sent must be the other's received.
inline Time run_two_ranks(run::Model t, const std::string& network, std::vector<mpi::Op> a,
                          std::vector<mpi::Op> b) {
    mpi::choose_network(t, network);
    ScriptProgram prog({std::move(a), std::move(b)});
    const auto res = mpi::simulate(t, one_rank_per_node(t.topology, 2), prog);
    EXPECT_EQ(res.ranks[0].bytes_sent, res.ranks[1].bytes_received);
    EXPECT_EQ(res.ranks[1].bytes_sent, res.ranks[0].bytes_received);
    return res.simulated;
}

inline int ceil_log2(int p) {
    int k = 0;
    while ((1 << k) < p) ++k;
    return k;
}

}  // namespace clustersim::testing
