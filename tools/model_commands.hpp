// `clustersim validate`, `generate` and `list`: the commands about models (a model file
// checked, a fabric generated, the registered models and names listed), out of cli.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace clustersim::cli {

struct GenerateFlags {
    std::string kind;
    std::uint32_t nodes = 16, sockets = 1, cores = 1;
    std::string cpu_speed = "2G", link_bandwidth = "1.25GB/s", link_latency = "1us",
                switch_bandwidth;
    std::string memory_bandwidth = "20GB/s", memory_latency = "100ns";
    // granularity, forwarding empty: the kind's own (topo::default_packet_size/_forwarding).
    std::string granularity, forwarding, nic = "packet", routing, memory = "16GiB";
    std::string eager_threshold = "64KiB", down, up, dims;
    std::optional<std::uint32_t> groups, routers, nodes_per_router, global_links;
    // Empty: from --link-bandwidth / --link-latency (GenerateOptions).
    std::string local_latency, local_bandwidth, global_latency, global_bandwidth;
    // Flags given on the command line, by name, and the command itself (for the file's comment).
    std::vector<std::string> given;
    std::string command;
};

// `clustersim generate`'s subcommand, filling `g`.
CLI::App* add_generate(CLI::App& app, GenerateFlags& g);
// `clustersim validate MODEL`: builds the model and prints its summary.
int cmd_validate(const std::string& model_path);
// `clustersim generate KIND [flags]`: the generated model XML on stdout.
int cmd_generate(const GenerateFlags& f);
// `clustersim list [KIND...]`: every registered name with its help.
int cmd_list(const std::vector<std::string>& kinds);

}  // namespace clustersim::cli
