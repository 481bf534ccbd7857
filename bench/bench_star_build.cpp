// Building star models of N single-process nodes: XML generation is excluded; parsing the
// model, building the graph, and the router are timed. One size per process, so the peak
// memory figure belongs to that size alone.
//
//   bench_star_build N
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "bench/bench_args.hpp"
#include "simulator/memory.hpp"
#include "simulator/units.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"

using namespace clustersim;

namespace {

int bench_main(int argc, char** argv) {
    const auto n = static_cast<std::uint32_t>(
        bench::count_arg(argc, argv, 1, "N", 65536, 1, bench::kMaxRanks));
    topo::GenerateOptions o;
    o.kind = "star";
    o.nodes = n;
    const std::string xml = topo::generate_model_xml(o);
    const std::uint64_t before = peak_memory_bytes();
    const auto t0 = std::chrono::steady_clock::now();
    const topo::Topology t = topo::parse_model(xml, "bench-star.xml");
    const auto t1 = std::chrono::steady_clock::now();
    topo::Router router(t);
    // One route across the star, so the router has done real work.
    const auto path =
        router.path(t.nodes.front().sockets[0].vertex, t.nodes.back().sockets[0].vertex);
    const auto t2 = std::chrono::steady_clock::now();
    fmt::print(
        "{:>7} nodes  {:>8} vertices  {:>8} edges  parse+build {:.3f} s  router {:.3f} s  "
        "total {:.3f} s  peak memory {} (before build {})  path {} hops\n",
        n, t.num_vertices(), t.num_edges(), std::chrono::duration<double>(t1 - t0).count(),
        std::chrono::duration<double>(t2 - t1).count(),
        std::chrono::duration<double>(t2 - t0).count(), format_size(peak_memory_bytes()),
        format_size(before), path.size());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return bench::guarded_main("bench_star_build", [&] { return bench_main(argc, argv); });
}
