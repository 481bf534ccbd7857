// The trace side of the command line: outputs of `run --out`, and the `convert`, `import`
// `compare` and `trace merge` commands.
#pragma once

#include <string>
#include <vector>

#include "report/op_spill.hpp"
#include "report/run_log.hpp"
#include "traces/trace.hpp"

namespace clustersim::cli {

// Writes `dir`/timeline.json (Chrome trace events), the statistics CSVs, summary.txt and
// simulated.cstrace (the simulated run as a native binary trace with times); prints the
// statistics summary on stdout if `print`. Creates `dir` if needed. With `spill`, the
// operations are read from it (log.ops is not) and the timeline and statistics are written
// without holding them in memory.
void write_outputs(const std::string& dir, const traces::RunLog& log,
                   const traces::Trace& simulated, bool print, traces::OpSpill* spill = nullptr);

// Creates `dir` (`run --out`) and returns the path of the scratch file the run's operations
// are spilled to there (an OpSpill removes it); InputError("--out", ...) if it cannot.
std::string prepare_out_dir(const std::string& dir);

struct ConvertFlags {
    std::string input, output, to, format = "auto";
    bool skip_unknown = false;
    // --to goal: how collectives are expanded (the model's <collectives> and costs, the
    // overrides and profile a run would take).
    std::string model, mpi;
    std::vector<std::string> algorithms;
};
int cmd_convert(const ConvertFlags& f);

struct ImportFlags {
    std::string kind, input, placement_out;
    std::string file_system;  // piosimhd: "pvfs2" adds PVFS2's request path
    std::string mpi_channel;  // piosimhd: "sock" adds MPICH2 ch3:sock's connection set-up
};
int cmd_import(const ImportFlags& f);

struct MergeFlags {
    std::vector<std::string> inputs;  // rank files or folders
    std::string output, to, name, traced_speed;
};
int cmd_trace_merge(const MergeFlags& f);
// The format `trace merge` and `record` write: --to, else by the output's extension (.txt =
// text); throws InputError naming --to for any other name.
std::string merged_trace_format(const std::string& output, const std::string& to);

struct CompareFlags {
    std::string recorded, simulated, out, format = "auto";
    std::string timeline_window;  // "FROM,TO" of compare_timeline.svg (default: whole run)
    bool skip_unknown = false;
    bool by_size = false;  // --by-size: the table per operation and message size class
    bool json = false;     // --json: one JSON object on stdout instead of the tables
};
int cmd_compare(const CompareFlags& f);

}  // namespace clustersim::cli
