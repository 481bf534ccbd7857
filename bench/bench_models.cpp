// Issue 8's comparison: the same collective on the same star under each network model.
// A star of N single-socket nodes, 1.25 GB/s and 5 us links, 100 KiB packets.
//
//   bench_models N APP MODEL      e.g.  bench_models 1024 allgather:size=10KiB fluid
//   APP: an --app spec (allgather uses the ring algorithm, bcast the binary tree)
//   MODEL: packet | cut_through | fluid
#include <chrono>
#include <string>

#include <fmt/format.h>

#include "bench/bench_args.hpp"
#include "collectives/apps.hpp"
#include "run/model.hpp"
#include "run/simulation.hpp"
#include "simulator/memory.hpp"
#include "simulator/units.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"

using namespace clustersim;

namespace {

int bench_main(int argc, char** argv) {
    const auto n = static_cast<std::uint32_t>(
        bench::count_arg(argc, argv, 1, "RANKS", 1024, 1, bench::kMaxRanks));
    const std::string app_spec = argc > 2 ? argv[2] : "allgather:size=10KiB";
    const std::string model = argc > 3 ? argv[3] : "fluid";

    const auto t0 = std::chrono::steady_clock::now();
    topo::GenerateOptions o;
    o.kind = "star";
    o.nodes = n;
    o.link_bandwidth = parse_bandwidth("1.25GB/s");
    o.link_latency = parse_time("5us");
    // As models/README.md's figures were measured: 100 KiB store-and-forward packets (the
    // model chosen sets the switches' rule).
    o.granularity = 100 * 1024;
    o.forwarding = topo::kStoreAndForward;
    run::Model t_model = run::parse_model(topo::generate_model_xml(o), "bench-models.xml");
    topo::Topology& t = t_model.topology;
    mpi::choose_network(t_model, model);

    mpi::AppRegistry apps;
    mpi::register_builtin_apps(apps);
    auto app = apps.create(app_spec, n);
    mpi::SimulationOptions options;
    options.algorithm_overrides = {"allgather=ring", "bcast=binary_tree"};
    const auto res = mpi::simulate(t_model, mpi::place_ranks(t, n, mpi::PlacementKind::RoundRobin),
                                   *app, options);
    const auto t1 = std::chrono::steady_clock::now();
    // The process's CPU time from its start (clock_gettime, nanoseconds): what a run costs,
    // start-up and model build included, without /usr/bin/time's 10 ms steps.
    const double cpu = process_cpu_seconds();
    fmt::print(
        "{:>6} ranks  {:<24} {:<12} simulated {:>10} ({} ps)  events {:>11}  wall {:>7.3f} s  "
        "process cpu {:.4f} s  peak memory {}\n",
        n, app_spec, model, format_time(res.simulated), res.simulated.ps(), res.events,
        std::chrono::duration<double>(t1 - t0).count(), cpu, format_size(peak_memory_bytes()));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return bench::guarded_main("bench_models", [&] { return bench_main(argc, argv); });
}
