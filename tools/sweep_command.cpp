#include "tools/sweep_command.hpp"

#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "sweep/sweep_engine.hpp"
#include "tools/whole_number.hpp"

namespace clustersim::cli {
namespace {

namespace fs = std::filesystem;

// Under mpirun: replace this process by the MPI engine, installed next to clustersim.
[[noreturn]] void exec_mpi_engine(const SweepFlags& f, const sweep::SweepOptions& o, int ranks) {
    const std::string exe =
        (fs::path(o.clustersim).parent_path() / "clustersim-sweep-mpi").string();
    if (::access(exe.c_str(), X_OK) != 0)
        throw InputError("mpirun", 0,
                         fmt::format("started as one of {} MPI ranks, but {} is missing: build "
                                     "clustersim with -DCLUSTERSIM_MPI=ON for the MPI engine",
                                     ranks, exe));
    std::vector<std::string> args = {exe,   "--clustersim", o.clustersim,          "--out",
                                     o.out, "--jobs",       std::to_string(o.jobs)};
    if (f.retry_failed) args.push_back("--retry-failed");
    if (!f.time_limit.empty()) args.insert(args.end(), {"--time-limit", f.time_limit});
    if (!f.memory_limit.empty()) args.insert(args.end(), {"--memory-limit", f.memory_limit});
    if (o.progress) args.push_back("--progress");
    args.push_back(f.file);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    throw std::runtime_error(fmt::format("cannot start {}", exe));
}

// The CPUs this process may run on (its affinity mask: what a batch system granted).
std::size_t usable_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return static_cast<std::size_t>(CPU_COUNT(&set));
    return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

void add_sweep_command(CLI::App& app, SweepFlags& f) {
    auto* s = app.add_subcommand(
        "sweep",
        "Run many simulations from a sweep file (JSON): locally (--jobs N), under mpirun, or "
        "as a Slurm job array (--emit-array); then `sweep collect` and `sweep plot`");
    f.command = s;
    s->add_option("FILE", f.file, "sweep file (JSON): base run, axes, zip, limits");
    s->add_option("--jobs,-j", f.jobs,
                  "points run at once, each in its own process (default: the CPUs this process "
                  "may use; under mpirun: per rank, default 1; with --emit-array: per task, "
                  "default 1)");
    s->add_option("--out,-o", f.out,
                  "output folder: results.jsonl, results.csv, journal.jsonl, models/ (default: "
                  "NAME.sweep in the current folder)");
    s->add_flag("--retry-failed", f.retry_failed,
                "rerun points that failed on bad input too (crashed and killed points are always "
                "rerun)");
    s->add_option("--time-limit", f.time_limit,
                  "wall-time limit of one point, e.g. 10min (default: the file's, else 1h)");
    s->add_option("--memory-limit", f.memory_limit,
                  "address-space limit of one point, e.g. 4GiB (default: the file's, else none)");
    s->add_option("--emit-array", f.emit_array,
                  "write a Slurm job-array script DIR/sweep.sbatch (DIR is the output folder) "
                  "instead of running");
    s->add_option("--chunk", f.chunk, "points per array task (with --emit-array; default 1)");
    s->add_option("--task", f.task, "run one array task's points (what the script runs)")
        ->check(whole_number(INT64_MAX));
    s->add_flag("--list", f.list, "print the points and their commands; run nothing");
    s->add_flag("--progress", f.progress,
                "progress line on stderr even when it is not a terminal (under mpirun: a "
                "line every 10 s)");

    auto* c = s->add_subcommand("collect",
                                "Gather a sweep folder's records (Slurm tasks, interrupted runs) "
                                "into results.jsonl and results.csv");
    f.collect = c;
    c->add_option("DIR", f.collect_dir, "the sweep's output folder")->required();

    auto* p = s->add_subcommand(
        "plot", "Plot a sweep's results (SVG) and print the best configuration per point");
    f.plot_cmd = p;
    p->add_option("RESULTS", f.plot.results, "results.jsonl, or the sweep's output folder")
        ->required();
    p->add_option("--x", f.plot.x, "x axis: an axis or result field, e.g. size")->required();
    p->add_option("--y", f.plot.y,
                  "y axis: a result field, e.g. simulated_time, events, wall_time, "
                  "\"one-way bandwidth\", /result/network/packets")
        ->required();
    p->add_option("--series", f.plot.series, "one line per value of this field, e.g. algorithm");
    p->add_option("--facet", f.plot.facet, "one panel per value of this field, e.g. ranks");
    p->add_flag("--log-x", f.plot.log_x, "logarithmic x axis");
    p->add_flag("--log-y", f.plot.log_y, "logarithmic y axis");
    p->add_flag("--speedup", f.plot.speedup,
                "plot (y at the smallest x) / y per series: speed-up vs ranks");
    p->add_flag("--maximize", f.plot.maximize, "the best series has the largest y");
    p->add_option("--title", f.plot.title, "figure title (default: from the fields)");
    p->add_option("-o,--output", f.plot.svg, "the SVG file to write");
    p->add_option("--table", f.plot.table, "also write the best-configuration table here");
}

bool run_sweep_command(const SweepFlags& f, int& code) {
    if (f.command == nullptr || !*f.command) return false;
    if (*f.collect) {
        code = sweep::collect(f.collect_dir);
        return true;
    }
    if (*f.plot_cmd) {
        const std::string table = sweep::plot(f.plot);
        std::cout << table;
        if (!f.plot.svg.empty()) std::cout << "\nfigure: " << f.plot.svg << "\n";
        code = 0;
        return true;
    }
    if (f.file.empty())
        throw InputError("sweep", 0, "expected a sweep FILE (or: sweep collect DIR, sweep plot)");
    sweep::SweepOptions o;
    o.file = f.file;
    o.out = f.emit_array.empty() ? f.out : f.emit_array;
    if (!f.emit_array.empty() && !f.out.empty() && f.out != f.emit_array)
        throw InputError("--emit-array", 0,
                         "names the output folder; leave out --out or give the same");
    o.clustersim = sweep::self_exe();
    o.retry_failed = f.retry_failed;
    o.time_limit = f.time_limit;
    o.memory_limit = f.memory_limit;
    const int mpi_ranks = sweep::mpi_launch_size();
    // Default: every CPU this process may use; one per rank under mpirun, one per array task.
    o.jobs = f.jobs != 0 ? f.jobs : mpi_ranks > 1 || !f.emit_array.empty() ? 1 : usable_cpus();
    if (o.jobs > 1024) throw InputError("--jobs", 0, fmt::format("{}: at most 1024", o.jobs));
    o.progress = f.progress || ::isatty(2);
    o.progress_lines = !::isatty(2);
    if (f.list) {
        code = sweep::list_points(o);
        return true;
    }
    if (!f.emit_array.empty()) {
        code = sweep::emit_array(o, f.chunk);
        return true;
    }
    if (f.task >= 0) {
        code = sweep::run_task(o, static_cast<std::size_t>(f.task), f.chunk);
        return true;
    }
    if (mpi_ranks > 1) exec_mpi_engine(f, o, mpi_ranks);
    code = sweep::run_local(o);
    return true;
}

}  // namespace clustersim::cli
