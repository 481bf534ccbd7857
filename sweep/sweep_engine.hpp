// Running a sweep: preparing the output folder (generated models, earlier results), running
// the points (local worker processes; the MPI engine is in mpi_engine.hpp; Slurm job arrays),
// the results files (JSON Lines and CSV, in point order) and the progress line.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/process.hpp"
#include "sweep/sweep.hpp"

namespace clustersim::sweep {

struct SweepOptions {
    std::string file;           // the sweep file
    std::string out;            // output folder (default: NAME.sweep in the current folder)
    std::string clustersim;     // the clustersim binary the points run
    std::size_t jobs = 1;       // points at once (per MPI rank under MPI)
    bool retry_failed = false;  // rerun points that failed with bad input (exit 2) too
    std::string time_limit, memory_limit;  // override the sweep file's limits (flags)
    bool progress = false;        // progress line on stderr (the caller decides: a terminal)
    bool progress_lines = false;  // whole lines instead of '\r' updates (under mpirun)
};

// Every engine starts from this: the sweep expanded, its folder made, its models generated,
// the results of earlier runs loaded.
struct Prepared {
    SweepSpec spec;
    std::vector<Point> points;
    std::string out;                                  // absolute
    std::string out_shown;                            // as the user gave it (messages)
    std::map<std::string, nlohmann::json> done;       // hash -> record, from earlier runs
    std::map<std::string, std::string> model_errors;  // model_key -> why generation failed
    std::vector<std::size_t> todo;                    // point indices to run, longest first
    std::size_t skipped = 0;                          // points done before
    Limits limits;                                    // the file's, overridden by the flags
};

// Loads the sweep, makes the output folder, loads earlier results. With generate_models,
// writes the generated models the points to run need (models/KEY.xml), reusing existing ones.
Prepared prepare(const SweepOptions& o, bool generate_models);

// The record of a point (one line of results.jsonl).
nlohmann::json make_record(const Prepared& p, const Point& point, const Outcome& o);
nlohmann::json model_failure_record(const Point& point, const std::string& error);
// Fields that are measurements of this machine, not results of the simulation: they differ
// from run to run; everything else in a record is deterministic.
const std::vector<std::string>& measured_fields();  // JSON pointers, e.g. "/wall_time_s"
nlohmann::json without_measured(nlohmann::json record);

// Appends records to a file, one line each, flushed (crash-safe resume).
class Journal {
  public:
    explicit Journal(const std::string& path);
    ~Journal();
    Journal(const Journal&) = delete;
    Journal& operator=(const Journal&) = delete;
    void append(const nlohmann::json& record);

  private:
    std::FILE* f_ = nullptr;
    std::string path_;
};

// "37/200 points, 1 failed, 4.1 s, ETA 18 s" on stderr.
class Progress {
  public:
    Progress(std::size_t total, bool enabled, bool lines);
    void point_done(bool failed);
    void finish();

  private:
    std::size_t total_, done_ = 0, failed_ = 0;
    bool enabled_, lines_, shown_ = false;
    double start_, last_ = -1;
};

// Whether a record is a failure (status other than "ok").
bool record_failed(const nlohmann::json& record);

// Writes results.jsonl and results.csv (points in index order, those with a record), prints
// the summary; returns the exit code (0: every point ok; 1: some failed or missing).
int finish(const Prepared& p, const std::map<std::string, nlohmann::json>& fresh, std::size_t ran,
           double wall_s, const std::string& engine);

// The engines.
int run_local(const SweepOptions& o);
// Slurm: writes DIR/sweep.sbatch, a job array of ceil(points / chunk) tasks.
int emit_array(const SweepOptions& o, std::size_t chunk);
// One array task: points [task * chunk, (task + 1) * chunk), into DIR/parts/task-K.jsonl.
int run_task(const SweepOptions& o, std::size_t task, std::size_t chunk);
// Gathers the records of a folder (journal, parts, earlier results) into results.*.
int collect(const std::string& dir);
// Prints the points (index, hash, axes, command) without running them.
int list_points(const SweepOptions& o);

// The clustersim binary this process runs as (/proc/self/exe).
std::string self_exe();
// The size of an MPI job this process was started in (Open MPI, MPICH, PMIx env), or 0.
int mpi_launch_size();

}  // namespace clustersim::sweep
