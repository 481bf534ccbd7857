// A sweep's results (sweep/plot.cpp, `clustersim sweep plot`): the bytes as results.jsonl,
// plotted (SVG and table) with y = simulated_time against x = size, by series network,
// then against the input's own first field names, which the fuzzer can reach.
#include "fuzz_common.hpp"
#include "sweep/plot.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_sweep_results) {
    namespace sw = clustersim::sweep;
    const std::string path =
        clustersim::fuzz::write_input("results.jsonl", {reinterpret_cast<const char*>(data), size});
    for (const bool log : {false, true}) {
        sw::PlotOptions o;
        o.results = path;
        o.x = "size";
        o.y = "simulated_time";
        o.series = "network";
        o.facet = log ? "ranks" : "";
        o.log_x = o.log_y = log;
        o.speedup = log;
        o.svg = clustersim::fuzz::scratch() + "/plot.svg";
        o.table = clustersim::fuzz::scratch() + (log ? "/table.csv" : "/table.md");
        clustersim::fuzz::expect_clean([&] { (void)sw::plot(o); });
    }
    return 0;
}
