// GOAL schedules as a run's program (traces/goal_source.cpp), for the "trace:" source.
#pragma once

#include <memory>
#include <string>

#include "run/program_source.hpp"

namespace clustersim::traces {

// True if `path` is to be read as a GOAL schedule: --format goal, or auto and detected so.
bool is_goal_input(const std::string& path, const std::string& format);
// The schedule at `path` as a program of a run (`spec`: the --app it came from).
std::unique_ptr<run::LoadedProgram> load_goal(const std::string& spec, const std::string& path,
                                              const run::SourceOptions& options);

}  // namespace clustersim::traces
