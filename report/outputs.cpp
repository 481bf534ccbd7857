// The outputs of a run after its timeline (report/outputs.hpp) and the four built-ins.
#include "report/outputs.hpp"

#include <fstream>

#include "simulator/error.hpp"
#include "traces/otf2.hpp"

namespace clustersim::traces {
namespace {

void register_builtin_outputs(RunOutputRegistry& r) {
    r.add(RunOutputEntry{
        "statistics",
        "per-rank and per-operation statistics and the message size and bandwidth histograms",
        {},
        "ranks.csv, operations.csv, histogram_sizes.csv, histogram_bandwidth.csv",
        [](const OutputContext& c) { write_stats_csv(c.stats, c.log, c.dir.string()); }});
    r.add(RunOutputEntry{
        "summary", "the statistics' text summary", {}, "summary.txt", [](const OutputContext& c) {
            const std::filesystem::path path = c.dir / "summary.txt";
            std::ofstream f(path);
            if (!f) throw InputError(path.string(), 0, "cannot write the summary");
            f << c.summary;
        }});
    r.add(RunOutputEntry{"simulated_trace",
                         "the simulated run as a trace in the native binary format, with the "
                         "simulated times",
                         {},
                         "simulated.cstrace",
                         [](const OutputContext& c) {
                             write_binary(c.simulated, (c.dir / "simulated.cstrace").string());
                         }});
    r.add(RunOutputEntry{"otf2",
                         "the simulated run as an OTF2 archive",
                         {},
                         "timeline.otf2 (+ timeline.def, timeline/: OTF2 for Vampir and other "
                         "OTF2 tools)",
                         [](const OutputContext& c) {
                             write_otf2(c.simulated, (c.dir / "timeline.otf2").string());
                         }});
}

}  // namespace

RunOutputRegistry& run_outputs() {
    static RunOutputRegistry registry("run output");
    static const bool filled = (register_builtin_outputs(registry), true);
    (void)filled;
    return registry;
}

}  // namespace clustersim::traces
