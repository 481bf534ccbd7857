// `clustersim extrapolate TRACE@P1 TRACE@P2 [TRACE@P3 ...] --ranks P -o OUT`: a trace of an
// SPMD program at P ranks from traces of it at a few other rank counts
// (traces/extrapolate.hpp; traces/README.md, "Extrapolation").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace clustersim::cli {

struct ExtrapolateFlags {
    std::vector<std::string> inputs;  // TRACE or TRACE@P
    std::string output, to, format = "auto";
    std::uint32_t ranks = 0;
    int dims = 0;
    CLI::App* command = nullptr;
};

void add_extrapolate_command(CLI::App& app, ExtrapolateFlags& f);
// Returns true (and the exit code) when `extrapolate` was the command given.
bool run_extrapolate_command(const ExtrapolateFlags& f, int& code);

}  // namespace clustersim::cli
