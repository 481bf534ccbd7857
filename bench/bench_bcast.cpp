// PIOsimHD section 4.2: MPI_Bcast of SIZE by ALGORITHM on a star of N single-process nodes,
// GRANULARITY packets, one rank per node. Reports model build time, events, wall time of
// the simulation and peak memory.
//
//   bench_bcast N [SIZE=100MiB] [ALGORITHM=binary_tree] [GRANULARITY=100KiB] [packet|analytical]
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
#include "topologies/nic_models.hpp"

using namespace clustersim;

namespace {

int bench_main(int argc, char** argv) {
    const auto n = static_cast<std::uint32_t>(
        bench::count_arg(argc, argv, 1, "RANKS", 1024, 1, bench::kMaxRanks));
    const std::string size = argc > 2 ? argv[2] : "100MiB";
    const std::string algorithm = argc > 3 ? argv[3] : "binary_tree";
    const std::string gran = argc > 4 ? argv[4] : "100KiB";
    const std::string nic = argc > 5 ? argv[5] : "packet";

    const auto t0 = std::chrono::steady_clock::now();
    topo::GenerateOptions o;
    o.kind = "star";
    o.nodes = n;
    o.granularity = gran == "message" ? 0 : parse_size(gran);
    // Store-and-forward, as its figures were measured (bench/README.md).
    o.forwarding = topo::kStoreAndForward;
    o.nic = topo::nic_models().select(nic);  // any registered NIC model, NAME[:key=value]
    const run::Model t_model = run::parse_model(topo::generate_model_xml(o), "bench-bcast.xml");
    const topo::Topology& t = t_model.topology;
    const auto t1 = std::chrono::steady_clock::now();

    mpi::AppRegistry apps;
    mpi::register_builtin_apps(apps);
    auto app = apps.create("bcast:size=" + size, n);
    mpi::SimulationOptions options;
    options.algorithm_overrides = {"bcast=" + algorithm};
    const double cpu0 = process_cpu_seconds();
    const auto res = mpi::simulate(t_model, mpi::place_ranks(t, n, mpi::PlacementKind::RoundRobin),
                                   *app, options);
    const double sim_cpu = process_cpu_seconds() - cpu0;
    const auto t2 = std::chrono::steady_clock::now();

    fmt::print("bcast {} by {} on a star of {} nodes, {} granularity, {} NIC\n", size, algorithm, n,
               gran, nic);
    fmt::print("  simulated time   {}\n", format_time(res.simulated));
    fmt::print("  model build      {:.3f} s\n", std::chrono::duration<double>(t1 - t0).count());
    fmt::print("  events           {}  ({} packets)\n", res.events, res.network.packets);
    fmt::print("  event loop       {:.3f} s  ({:.1f} M events/s)\n", res.wall_seconds,
               static_cast<double>(res.events) / res.wall_seconds / 1e6);
    fmt::print("  simulate CPU     {:.3f} s  ({:.1f} M events/s on CPU time)\n", sim_cpu,
               static_cast<double>(res.events) / sim_cpu / 1e6);
    fmt::print("  total wall       {:.3f} s\n", std::chrono::duration<double>(t2 - t0).count());
    fmt::print("  peak memory      {}\n", format_size(peak_memory_bytes()));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return bench::guarded_main("bench_bcast", [&] { return bench_main(argc, argv); });
}
