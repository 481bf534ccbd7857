// The outputs of a run (`clustersim run --out DIR`) after its timeline: the statistics'
// CSV files, the summary, the simulated trace and its OTF2 archive, kept in one
// NamedRegistry (simulator/registry.hpp). Adding an output is one function and one line:
// `run_outputs().add(RunOutputEntry{...})`, from any translation unit; `run --out` writes
// it and names its files, and `clustersim list outputs` lists it.
//
// The timeline (timeline.json) is not an entry: it is written first, streaming the
// operations spilled to disk during the run, and the statistics every entry gets are
// computed in the same pass (tools/trace_commands.cpp, write_outputs).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "report/run_log.hpp"
#include "report/stats.hpp"
#include "simulator/params.hpp"
#include "simulator/registry.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {

// What one output is given: the --out folder (it exists), the run's log, the simulated
// trace, the statistics and their text summary.
struct OutputContext {
    const std::filesystem::path& dir;
    const RunLog& log;
    const Trace& simulated;
    const Stats& stats;
    const std::string& summary;
};

struct RunOutputEntry {
    std::string name;               // "statistics"
    std::string doc;                // one line
    std::vector<ParamInfo> params;  // none yet: every output is written
    // Its files as the "wrote DIR: ..." line names them ("summary.txt").
    std::string files;
    // Writes them into context.dir; InputError naming the file when it cannot.
    std::function<void(const OutputContext& context)> write;
};

using RunOutputRegistry = NamedRegistry<RunOutputEntry>;

// Every output after the timeline: statistics, summary, simulated_trace and otf2 on first
// use, in that order, then whatever is added.
RunOutputRegistry& run_outputs();

}  // namespace clustersim::traces
