// The `clustersim jitter` commands' shared parts (tools/jitter_command.cpp: the command line,
// max_of_distributions and the jitter-trace commands; tools/jitsim_command.cpp: jitSim):
// quantities in time or cycles, task lists, start policies, output files and units. Internal
// to tools/.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/jitter.hpp"
#include "simulator/time.hpp"
#include "tools/jitter_command.hpp"

namespace clustersim::cli::jitter_cli {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

inline constexpr std::uint64_t kMaxPerTaskTasks = 65536;
inline constexpr std::uint64_t kMaxTasks = std::uint64_t{1} << 32;

// ---- parsing ---------------------------------------------------------------------------

std::vector<std::string> split(const std::string& text, char sep);
// A clock frequency: a speed with a prefix or unit (2.4GHz, 2.4G) or plain hertz.
double parse_frequency(const std::string& flag, const std::string& text);
// A quantity of CPU time: `300us` (a time) or `100000cycles`.
struct Quantity {
    bool is_cycles = false;
    std::uint64_t cycles = 0;
    Time time;
    std::string text;
};
Quantity parse_quantity(const std::string& flag, const std::string& text);
// A quantity in cycles at `frequency_hz` (a time needs a frequency; `source` names the trace).
std::uint64_t to_cycles(const Quantity& q, double frequency_hz, const std::string& flag,
                        const std::string& source);
// --tasks: a list and ranges of task counts, sorted, without repeats.
std::vector<std::uint64_t> parse_tasks(const std::string& flag, const std::string& text);
jitter::StartPolicy policy_of(const std::string& name);

// ---- output ----------------------------------------------------------------------------

std::string format_frequency(double hz);
std::string format_seconds(double s);
// A unit for a column of seconds: the one format_seconds would pick for `typical`.
std::pair<const char*, double> seconds_unit(double typical);
std::ofstream open_out(const std::string& path, const char* flag);
void close_out(std::ofstream& f, const std::string& path, const char* flag);
std::string csv_field(const std::string& s);

// ---- the models ------------------------------------------------------------------------

int cmd_jitsim(const JitterFlags& f);
int cmd_max_of_distributions(const JitterFlags& f);

}  // namespace clustersim::cli::jitter_cli
