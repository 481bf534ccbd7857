// `clustersim sweep`: many runs from a sweep file (run/), locally, under mpirun or as a Slurm
// job array; `sweep collect` and `sweep plot`.
#pragma once

#include <cstddef>
#include <string>

#include <CLI/CLI.hpp>

#include "sweep/plot.hpp"

namespace clustersim::cli {

struct SweepFlags {
    std::string file, out, emit_array, time_limit, memory_limit, collect_dir;
    std::size_t jobs = 0, chunk = 1;
    long long task = -1;
    bool retry_failed = false, list = false, progress = false;
    sweep::PlotOptions plot;
    CLI::App *command = nullptr, *collect = nullptr, *plot_cmd = nullptr;
};

void add_sweep_command(CLI::App& app, SweepFlags& f);
// Returns true (and the exit code) when the sweep command was the one given.
bool run_sweep_command(const SweepFlags& f, int& code);

}  // namespace clustersim::cli
