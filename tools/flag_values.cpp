#include "tools/flag_values.hpp"

#include <fmt/format.h>

#include "collectives/apps.hpp"
#include "collectives/collective.hpp"
#include "collectives/placement.hpp"
#include "collectives/selection.hpp"
#include "import/import.hpp"
#include "iosys/cache.hpp"
#include "iosys/disk.hpp"
#include "iosys/ior.hpp"
#include "models/cpu.hpp"
#include "models/jitter.hpp"
#include "report/outputs.hpp"
#include "run/network_models.hpp"
#include "simulator/suggest.hpp"
#include "topologies/nic_models.hpp"
#include "topologies/topology.hpp"
#include "traces/jitter_io.hpp"
#include "traces/reader.hpp"
#include "traces/writer.hpp"

namespace clustersim::cli {

Catalogue catalogue() {
    Catalogue c;
    io::add_io_apps();
    for (const mpi::AppInfo& a : mpi::apps().entries()) {
        std::string params;
        for (const ParamInfo& p : a.params)
            params += fmt::format("{}{}={}", params.empty() ? "" : ",", p.name,
                                  p.default_value.empty() ? "(" + p.type + ")" : p.default_value);
        c.apps.emplace_back(a.name + (params.empty() ? "" : ":" + params), a.help);
    }
    for (const mpi::AlgorithmInfo& a : mpi::collective_algorithms().entries())
        c.algorithms.emplace_back(mpi::AlgorithmKey{}(a), a.help);
    for (const run::NetworkModelEntry& e : run::network_models().entries())
        c.networks.emplace_back(e.name, e.doc);
    for (const traces::ReaderEntry& e : traces::trace_readers().entries())
        c.formats.emplace_back(e.name, e.doc);
    const io::CacheRegistry& caches = io::cache_models();
    for (const auto& e : caches.entries()) c.caches.emplace_back(e.name, e.doc);
    const io::DiskRegistry& disks = io::disk_models();
    for (const auto& e : disks.entries()) c.disks.emplace_back(e.name, e.doc);
    for (const traces::WriterEntry& e : traces::trace_writers().entries())
        c.writers.emplace_back(e.name, e.doc);
    for (const traces::ImporterEntry& e : traces::importers().entries())
        c.importers.emplace_back(e.name, e.doc);
    for (const mpi::ProfileEntry& e : mpi::mpi_profiles().entries())
        c.profiles.emplace_back(e.name, e.doc);
    for (const traces::RunOutputEntry& e : traces::run_outputs().entries())
        c.outputs.emplace_back(e.name, e.doc + " (" + e.files + ")");
    for (const traces::JitterFormatEntry& e : traces::jitter_formats().entries())
        c.jitter.emplace_back(e.name, e.doc);
    return c;
}

const std::vector<std::string>& fabric_kinds() {
    static const std::vector<std::string> names{"star", "fat-tree", "torus", "dragonfly"};
    return names;
}

const std::vector<std::string>& timeline_details() {
    static const std::vector<std::string> names{"ranks", "hardware"};
    return names;
}

std::vector<std::string> convert_formats() {
    return traces::trace_writers().keys();
}

const std::vector<std::string>& merged_formats() {
    static const std::vector<std::string> names{"text", "binary"};
    return names;
}

std::vector<std::string> import_kinds() {
    return traces::importers().keys();
}

const std::vector<std::string>& jitter_models() {
    static const std::vector<std::string> names{"jitsim", "max_of_distributions"};
    return names;
}

const std::vector<std::string>& jitter_barriers() {
    static const std::vector<std::string> names{"none", "binary_tree", "kary_tree"};
    return names;
}

const std::vector<std::string>& list_kinds() {
    static const std::vector<std::string> kinds{"apps",      "algorithms", "models",  "networks",
                                                "formats",   "caches",     "disks",   "writers",
                                                "importers", "profiles",   "outputs", "jitter"};
    return kinds;
}

const std::vector<std::string>& default_list_kinds() {
    static const std::vector<std::string> kinds{"apps", "algorithms", "models", "formats"};
    return kinds;
}

namespace {

// The names of a catalogue section, without their parameters ("pingpong", not
// "pingpong:size=...").
std::vector<std::string> names_of(const std::vector<std::pair<std::string, std::string>>& items) {
    std::vector<std::string> names;
    for (const auto& [n, help] : items) names.push_back(n.substr(0, n.find(':')));
    return names;
}

template <class Entries>
std::vector<std::string> entry_names(const Entries& entries) {
    std::vector<std::string> names;
    for (const auto& e : entries) names.push_back(e.name);
    return names;
}

}  // namespace

std::vector<FlagValues> flag_values() {
    using enum ValueKind;
    const Catalogue c = catalogue();
    std::vector<std::string> formats{"auto"};
    for (const std::string& n : names_of(c.formats)) formats.push_back(n);
    const std::vector<std::string> commands{"validate",     "generate", "run",     "convert",
                                            "trace",        "import",   "compare", "jitter",
                                            "jitter-trace", "record",   "list",    "completion",
                                            "version",      "help",     "sweep",   "extrapolate"};
    return {
        {"validate", "MODEL", File, {}},
        {"generate", "KIND", Names, fabric_kinds()},
        {"generate", "--cpu-speed", Text, {}},
        {"generate", "--link-bandwidth", Text, {}},
        {"generate", "--link-latency", Text, {}},
        {"generate", "--switch-bandwidth", Text, {}},
        {"generate", "--memory-bandwidth", Text, {}},
        {"generate", "--memory-latency", Text, {}},
        {"generate", "--granularity", Names, {"message"}},  // or a packet size
        {"generate", "--forwarding", Names, entry_names(topo::forwarding_models().entries())},
        {"generate", "--nic", Names, entry_names(topo::nic_models().entries())},
        {"generate", "--routing", Names, topo::routing_names()},
        {"generate", "--memory", Text, {}},
        {"generate", "--eager-threshold", Text, {}},
        {"generate", "--down", Text, {}},
        {"generate", "--up", Text, {}},
        {"generate", "--dims", Text, {}},
        {"generate", "--local-latency", Text, {}},
        {"generate", "--local-bandwidth", Text, {}},
        {"generate", "--global-latency", Text, {}},
        {"generate", "--global-bandwidth", Text, {}},
        {"run", "MODEL", File, {}},
        {"run", "--app", Names, names_of(c.apps)},              // or trace:PATH, with parameters
        {"run", "--placement", Names, mpi::placement_names()},  // or map:FILE
        {"run", "--algorithm", Names, names_of(c.algorithms)},
        {"run", "--mpi", Names, mpi::profile_names()},
        {"run", "--network", Names, names_of(c.networks)},
        {"run", "--cpu", Names, entry_names(cpu::cpu_models().entries())},
        {"run", "--cache", Names, names_of(c.caches)},
        {"run", "--format", Names, formats},
        {"run", "--traced-speed", Text, {}},
        {"run", "--out", Folder, {}},
        {"run", "--timeline-detail", Names, timeline_details()},
        {"run", "--progress-interval", Text, {}},
        {"convert", "INPUT", File, {}},
        {"convert", "OUTPUT", File, {}},
        {"convert", "--to", Names, convert_formats()},
        {"convert", "--format", Names, formats},
        {"convert", "--model", File, {}},
        {"convert", "--algorithm", Names, names_of(c.algorithms)},
        {"convert", "--mpi", Names, mpi::profile_names()},
        {"extrapolate", "TRACE", File, {}},  // TRACE or TRACE@P
        {"extrapolate", "--out", File, {}},
        {"extrapolate", "--to", Names, merged_formats()},
        {"extrapolate", "--format", Names, formats},
        {"trace merge", "INPUT", File, {}},
        {"trace merge", "--out", File, {}},
        {"trace merge", "--to", Names, merged_formats()},
        {"trace merge", "--name", Text, {}},
        {"trace merge", "--traced-speed", Text, {}},
        {"import", "KIND", Names, import_kinds()},
        {"import", "FILE", File, {}},
        {"import", "--placement-out", File, {}},
        {"import", "--file-system", Names, {"pvfs2"}},
        {"import", "--mpi-channel", Names, {"sock"}},
        {"compare", "RECORDED", File, {}},
        {"compare", "SIMULATED", File, {}},
        {"compare", "--out", Folder, {}},
        {"compare", "--format", Names, formats},
        {"compare", "--timeline-window", Text, {}},
        {"jitter", "--model", Names, jitter_models()},
        {"jitter", "--trace", File, {}},  // or gen:SPEC
        {"jitter", "--format", Names, traces::jitter_format_names()},
        {"jitter", "--frequency", Text, {}},
        {"jitter", "--gen-length", Text, {}},
        {"jitter", "--work", Text, {}},
        {"jitter", "--tasks", Text, {}},
        {"jitter", "--policy", Names, jitter::start_policy_names()},  // comma-separated
        {"jitter", "--window", Text, {}},
        {"jitter", "--start-indices", Text, {}},
        {"jitter", "--barrier", Names, jitter_barriers()},
        {"jitter", "--network-latency", Text, {}},
        {"jitter", "--mpi-latency", Text, {}},
        {"jitter", "--shm-latency", Text, {}},
        {"jitter", "--csv", File, {}},
        {"jitter", "--svg", File, {}},
        {"jitter", "--distributions", File, {}},
        {"jitter", "--latency", Text, {}},
        {"jitter-trace generate", "--spec", Text, {}},
        {"jitter-trace generate", "--length", Text, {}},
        {"jitter-trace generate", "--frequency", Text, {}},
        {"jitter-trace generate", "--out", File, {}},
        {"jitter-trace generate", "--format", Names, traces::jitter_format_names()},
        {"jitter-trace convert", "IN", File, {}},
        {"jitter-trace convert", "OUT", File, {}},
        {"jitter-trace convert", "--to", Names, traces::jitter_format_names()},
        {"jitter-trace convert", "--format", Names, traces::jitter_format_names()},
        {"jitter-trace convert", "--frequency", Text, {}},
        {"jitter-trace info", "FILE", File, {}},
        {"jitter-trace info", "--format", Names, traces::jitter_format_names()},
        {"jitter-trace info", "--frequency", Text, {}},
        {"record", "--out", File, {}},
        {"record", "--dir", Folder, {}},
        {"record", "--tracer", File, {}},
        {"record", "--to", Names, merged_formats()},
        {"record", "--name", Text, {}},
        {"record", "--traced-speed", Text, {}},
        {"record", "COMMAND", File, {}},  // the program (mpirun), then its arguments
        {"list", "KIND", Names, list_kinds()},
        {"completion", "SHELL", Names, {"bash"}},
        {"help", "COMMAND", Names, commands},
        {"sweep", "FILE", File, {}},
        {"sweep", "--out", Folder, {}},
        {"sweep", "--time-limit", Text, {}},
        {"sweep", "--memory-limit", Text, {}},
        {"sweep", "--emit-array", Folder, {}},
        {"sweep collect", "DIR", Folder, {}},
        {"sweep plot", "RESULTS", File, {}},
        {"sweep plot", "--x", Text, {}},  // a field of the results: see `sweep plot --help`
        {"sweep plot", "--y", Text, {}},
        {"sweep plot", "--series", Text, {}},
        {"sweep plot", "--facet", Text, {}},
        {"sweep plot", "--title", Text, {}},
        {"sweep plot", "--output", File, {}},
        {"sweep plot", "--table", File, {}},
    };
}

const FlagValues* find_flag_values(const std::vector<FlagValues>& table, std::string_view command,
                                   std::string_view option) {
    for (const FlagValues& f : table)
        if (f.command == command && f.option == option) return &f;
    return nullptr;
}

}  // namespace clustersim::cli
