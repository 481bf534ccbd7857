// The OS-jitter side of the command line (issue 6):
//
//   clustersim jitter [--model jitsim]            jitSim's fast prediction: slowdown of a
//                                                 compute + barrier loop vs task count
//   clustersim jitter --model max_of_distributions  Garg–De: distribution of max(w + δ) over
//                                                 N processes, its bound, anomalous nodes
//   clustersim jitter-trace generate|convert|info  synthetic traces, format conversion, and
//                                                 a summary of a trace
//
// Conventions (also in the --help texts and tools/README.md):
//  - A work quantum or latency is a time (`300us`, converted with the trace's frequency: its
//    header's, or --frequency which wins) or a cycle count (`100000cycles`).
//  - The MPI-stack latency L is split between the two ends of a message: a send costs
//    floor(L/2) cycles of CPU work and a receive L - floor(L/2), both stretched by the
//    jitter they meet; --network-latency (between nodes) and --shm-latency (within a node)
//    are the times in flight. Tasks fill the cores of a node (--cores-per-node), then the
//    next node.
//  - The default barrier is `none` (an ideal barrier of zero cost, jitSim Fig. 3);
//    latencies are only accepted with a tree barrier.
//  - A work quantum larger than all the compute cycles of a trace is an error (a phase would
//    see the whole trace); runs of many phases longer than the trace wrap around (coverage
//    above 100 %).
//  - --per-task is refused above 65,536 tasks (the output would be unreadably large).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace clustersim::cli {

struct JitterFlags {
    std::string model = "jitsim";
    // jitsim
    std::vector<std::string> traces;
    std::string format = "auto", frequency, gen_length = "1s", work;
    std::uint32_t phases = 0;
    std::string tasks, policy, window, start_indices, barrier = "none";
    std::uint32_t arity = 0;  // 0: not given
    std::string network_latency, mpi_latency, shm_latency;
    std::uint32_t cores_per_node = 1;
    std::uint64_t seed = 1;
    unsigned threads = 0;
    bool per_task = false, json = false;
    std::string csv, svg;
    // max-of-distributions
    std::string distributions, latency;
    std::uint32_t iterations = 10000;
};

struct JitterTraceFlags {
    // generate
    std::string spec, length = "1s", frequency, out, out_format;
    std::uint64_t seed = 1;
    // convert
    std::string input, output, to, in_format = "auto", convert_frequency;
    // info
    std::string info_file, info_format = "auto", info_frequency;
};

// The subcommands `jitter` and `jitter-trace` (with generate, convert, info) added to `app`,
// their flags bound to the members.
struct JitterCommands {
    JitterFlags jitter;
    JitterTraceFlags trace;
    CLI::App* jitter_app = nullptr;
    CLI::App* trace_app = nullptr;
    CLI::App* generate_app = nullptr;
    CLI::App* convert_app = nullptr;
    CLI::App* info_app = nullptr;
};
void add_jitter_commands(CLI::App& app, JitterCommands& c);

// Runs the one of them that was given on the command line: true (and its exit code in
// `code`) if one was; false if none of them was.
bool run_jitter_commands(const JitterCommands& c, int& code);

int cmd_jitter(const JitterFlags& f);
int cmd_jitter_trace_generate(const JitterTraceFlags& f);
int cmd_jitter_trace_convert(const JitterTraceFlags& f);
int cmd_jitter_trace_info(const JitterTraceFlags& f);

}  // namespace clustersim::cli
