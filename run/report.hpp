// The report of one run: what `clustersim run` prints, as text (the summary) or as one JSON
// object (--json). cmd_run (tools/run_command.cpp) fills a RunReport and picks a renderer.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/apps.hpp"
#include "run/model.hpp"
#include "run/simulation.hpp"
#include "topologies/topology.hpp"

namespace clustersim::run {

// Where the process's wall-clock time went, phase by phase (seconds). The phases follow one
// another, so they add up to the process's time until the report (`total_s`).
struct RunPhases {
    double start_s = 0;          // from the process's start to the run: libraries, flags
    double model_load_s = 0;     // reading the model (and generating a fabric)
    double programs_load_s = 0;  // reading the traces, building the apps
    double placement_s = 0;      // placing the ranks, binding programs to their cores
    double set_up_s = 0;         // the simulator: routes, network, cores, runtime, ranks
    double event_loop_s = 0;     // the simulation itself
    double results_s = 0;        // gathering the results, freeing the simulator's state
    double report_s = 0;         // the summary's figures (and, with --json, the outputs)
    double outputs_s = 0;        // --out's files (with --json: before the JSON is printed)
    double total_s() const {
        return start_s + model_load_s + programs_load_s + placement_s + set_up_s + event_loop_s +
               results_s + report_s + outputs_s;
    }
};

struct RunReport {
    std::string model;              // the model file as given
    std::vector<std::string> apps;  // the --app specs as given
    // The text header's app list: "pingpong:size=1MiB" or "trace:x.cstrace (4 ranks, 1,024
    // events) + stream:size=1KiB".
    std::string app_line;
    std::uint32_t ranks = 0;
    std::string placement;          // --placement as given
    std::string network;            // --network as given ("" = the model's)
    const Model* loaded = nullptr;  // the model file as read (graph and parts)
    const mpi::SimulationResult* result = nullptr;
    std::vector<mpi::AppResult> summary;  // the built-in apps' own results, in app order
    std::vector<std::string> warnings;    // what the run should not be trusted for (traces)
    double model_load_s = 0;
    RunPhases phases;
    std::uint64_t peak_memory_bytes = 0;
    bool header_shown = false;  // render_header printed it before the run: render_text skips it
};

// The summary's first lines, what runs where: model, apps, ranks and their placement. Printed
// before the run (render_text's first lines otherwise).
void render_header(const std::string& model_path, const Model& model, const std::string& app_line,
                   std::uint32_t ranks, const std::string& placement,
                   const std::vector<mpi::RankLocation>& where, std::ostream& out);

// The run's one I/O throughput, Darshan's agg_perf_by_slowest: the file data the ranks
// wrote and read through MPI-IO over the slowest rank's time in MPI-IO calls (open, set_view,
// seek, data, sync and close; waits for the other members of collective ones included). I/O
// in phases between computation is not diluted by the computation.
struct IoThroughput {
    std::uint64_t bytes = 0;   // written + read through MPI-IO
    Time slowest;              // the longest time one rank spent in MPI-IO calls
    int rank = -1;             // that rank (-1: no rank spent time in MPI-IO)
    double bytes_per_s = 0.0;  // bytes / slowest; 0 without time
};
IoThroughput io_throughput(const mpi::SimulationResult& result);

// The summary of `clustersim run` (README.md, "What the first command prints").
void render_text(const RunReport& report, std::ostream& out);
// One JSON object (docs/schema: the run JSON Schema); `per_rank` adds the per-rank array.
nlohmann::json render_json(const RunReport& report, bool per_rank);

// The network model's name for the report: `--network` as given, else the model's: "packet",
// "fluid", or the analytic model's name ("bus_only").
std::string report_network_name(const RunReport& report);

}  // namespace clustersim::run
