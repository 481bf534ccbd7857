// The `clustersim` command line: validate, generate, run.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace clustersim::cli {

// Runs the command; returns the process exit code (0 ok, 2 bad input or flags).
int main(int argc, char** argv);

// `clustersim run` leaves its results unfreed at its end, for the process ends next (the
// program sets it; a caller that goes on after cli::main, a test, does not).
void set_exit_without_teardown(bool on);

// Every option of every command that takes text, as (command path, option): ("run",
// "--network"), ("trace merge", "INPUT"). Each must have a row in flag_values().
std::vector<std::pair<std::string, std::string>> text_options();

}  // namespace clustersim::cli
