// PIOsimHD section 4.1: one process sends a large message to another on the same node,
// cut into packets of the given granularity. Reports events, wall time, events per second
// and peak memory. Not a test: run it on a quiet machine (see bench/README.md).
//
//   bench_stream [SIZE=100GiB] [GRANULARITY=100KiB] [packet|analytical]
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "collectives/apps.hpp"
#include "run/model.hpp"
#include "run/simulation.hpp"
#include "simulator/memory.hpp"
#include "simulator/units.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/nic_models.hpp"

using namespace clustersim;

int main(int argc, char** argv) {
    const std::string size = argc > 1 ? argv[1] : "100GiB";
    const std::string gran = argc > 2 ? argv[2] : "100KiB";
    const std::string nic = argc > 3 ? argv[3] : "packet";

    topo::GenerateOptions o;
    o.kind = "star";
    o.nodes = 1;
    o.sockets = 1;
    o.cores = 2;
    o.granularity = parse_size(gran);
    // Store-and-forward, as its figures were measured (bench/README.md).
    o.forwarding = topo::kStoreAndForward;
    o.nic = topo::nic_models().select(nic);  // any registered NIC model, NAME[:key=value]
    const run::Model t_model = run::parse_model(topo::generate_model_xml(o), "bench-stream.xml");
    const topo::Topology& t = t_model.topology;

    mpi::AppRegistry apps;
    mpi::register_builtin_apps(apps);
    auto app = apps.create("stream:size=" + size, 2);
    const auto ranks = mpi::place_ranks(t, 2, mpi::PlacementKind::Sequential);
    const auto res = mpi::simulate(t_model, ranks, *app);

    fmt::print("stream {} on one node (two cores of one socket), granularity {}, {} NIC\n", size,
               gran, nic);
    fmt::print("  simulated time   {}\n", format_time(res.simulated));
    fmt::print("  packets          {}\n", res.network.packets);
    fmt::print("  events           {}\n", res.events);
    fmt::print("  wall time        {:.3f} s\n", res.wall_seconds);
    fmt::print("  events/s         {:.1f} M\n",
               static_cast<double>(res.events) / res.wall_seconds / 1e6);
    fmt::print("  peak memory      {}\n", format_size(peak_memory_bytes()));
    return 0;
}
