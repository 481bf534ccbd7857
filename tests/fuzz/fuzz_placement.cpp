// Placement maps (collectives/placement.cpp, --placement map:FILE): the bytes as the map of a
// 16-rank run on a generated star of 8 nodes with 2 sockets of 2 cores each (names n0..n7).
#include "collectives/placement.hpp"
#include "fuzz_common.hpp"
#include "run/model.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_placement) {
    using namespace clustersim;
    static const run::Model model = [] {
        topo::GenerateOptions g;
        g.kind = "star";
        g.nodes = 8;
        g.sockets = 2;
        g.cores = 2;
        return run::parse_model(topo::generate_model_xml(g), "star-8.xml");
    }();
    const std::string path =
        fuzz::write_input("input.map", {reinterpret_cast<const char*>(data), size});
    fuzz::expect_clean([&] { (void)mpi::place_ranks_from_map(model.topology, 16, path); });
    return 0;
}
