// One run assembled in one place: a RunSpec (the model, the programs, the options) becomes a
// RunOutcome (the simulated result with everything it was computed from). `clustersim run`
// (tools/run_command.cpp) turns its flags into a RunSpec; bench/bench_replay.cpp, the run
// fuzzer and the tests call execute() the same way. The programs come from the program
// sources (run/program_source.hpp), so this file names no app and no trace format.
//
// What execute() does, in order: reads the model (unless one is given), applies --network,
// --cpu and --cache, reads every --app through its source (--ranks counts the apps whose
// source does not bring its own ranks, in --app order), checks the rank budget (at most
// mpi::kMaxRanks = 2^24; about 2.75 KiB of memory per rank) and the cores (--oversubscribe),
// places the ranks, binds each program to its cores' speeds, lets the hooks wrap the program
// (a recorder), runs mpi::simulate, and turns an error of one rank's operation into one that
// names the program's input and the record.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "run/model.hpp"
#include "run/program_source.hpp"
#include "run/report.hpp"
#include "run/simulation.hpp"

namespace clustersim::run {

struct RunSpec {
    // The process ends after this run: the simulator's state is left to its exit, not freed.
    bool leave_state_to_exit = false;
    std::string model_path;            // the model file
    std::optional<Model> model;        // or a model already read (model_path then only names it)
    std::vector<std::string> apps;     // --app specs, in order
    std::vector<std::uint32_t> ranks;  // --ranks, one per app whose source takes a count
    std::string placement = "round_robin";
    bool oversubscribe = false;
    std::string network;  // --network NAME[:key=value,...] ("": the model's)
    std::string cpu;      // --cpu NAME[:key=value,...] ("": the model's)
    std::string cache;    // --cache NAME: every I/O server's cache layer ("": the model's)
    std::vector<std::string> algorithms;  // --algorithm op=name
    std::string mpi;                      // --mpi decision profile
    std::uint64_t seed = 1;
    SourceOptions source;            // the trace flags
    bool hardware_activity = false;  // keep link and disk busy intervals (timelines)
};

// What the progress hook is told, about every progress_wall_s of wall time.
struct RunProgress {
    std::uint64_t events = 0;
    Time simulated;
    std::uint64_t done = 0, total = 0;  // operations or records completed, of all (0: unknown)
    const net::NetworkStats* network = nullptr;
    std::string_view work_unit;  // the network model's work: "packet hops", ... ("": none)
};

struct RunSetup;

struct RunHooks {
    // Once the programs are read and placed (on `model`, as the run uses it), before they are
    // bound to their cores' speeds.
    std::function<void(const RunSetup& setup, const Model& model)> placed;
    // Once the programs are loaded and placed, before the run: may return another program to
    // run in place of `program` (a recorder wrapping it) and set `observer`. Null: unchanged.
    std::function<mpi::Program*(mpi::Program& program, const RunSetup& setup,
                                mpi::OpObserver*& observer)>
        wrap;
    // Progress of the run (unset: none is computed).
    std::function<void(const RunProgress&)> progress;
    std::uint64_t progress_every = std::uint64_t{1} << 18;  // events between calls, at most
    std::ostream* notes = nullptr;  // notes (flags left unused, records skipped); null: none
};

// The programs of a run, read and placed.
struct RunSetup {
    std::vector<std::unique_ptr<LoadedProgram>> programs;  // in --app order
    std::uint32_t ranks = 0;                               // over all programs
    std::vector<mpi::RankLocation> placement;
    // "records", "operations" or "records and operations": what the programs count.
    std::string unit;
};

struct RunOutcome {
    Model model;  // as the run used it (after --network, --cache)
    RunSetup setup;
    mpi::SimulationResult result;
    std::vector<net::Activity> link_activity, disk_activity;  // with hardware_activity
    double model_load_s = 0;                                  // reading the model
    double programs_load_s = 0;                               // reading the programs (traces)
    double placement_s = 0;  // placing the ranks, binding the programs to their cores' speeds
    // The whole simulation: set-up (result.set_up_seconds), the event loop
    // (result.wall_seconds), then gathering the results and freeing the simulator's state.
    double simulation_s = 0;
};

// Rewrites the registered names `spec` gives in the other spelling ('-' for '_',
// simulator/spelling.hpp) as registered: --placement, --network, --cpu, --cache (with a note
// each). execute() does it too; a caller that reports the spec calls it first.
void canonicalize_names(RunSpec& spec);

// Runs `spec`; bad input is an InputError naming the file and line or the flag.
RunOutcome execute(RunSpec spec, const Sources& sources, const RunHooks& hooks = {});

// The programs as the summary names them: "pingpong:size=1MiB + trace:x.cstrace (4 ranks,
// 1,024 events)".
std::string describe_programs(const RunSetup& setup);

// The report of a run (run/report.hpp) as `clustersim run` prints it; points into `outcome`.
RunReport make_report(const RunSpec& spec, const RunOutcome& outcome);

}  // namespace clustersim::run
