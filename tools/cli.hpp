// The `clustersim` command line: validate, generate, run.
#pragma once

namespace clustersim::cli {

// Runs the command; returns the process exit code (0 ok, 2 bad input or flags).
int main(int argc, char** argv);

}  // namespace clustersim::cli
