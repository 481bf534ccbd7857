#include "tools/model_commands.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "collectives/apps.hpp"
#include "collectives/collective.hpp"
#include "iosys/cache.hpp"
#include "iosys/disk.hpp"
#include "iosys/file_system.hpp"
#include "iosys/ior.hpp"
#include "models/cpu.hpp"
#include "run/network_models.hpp"
#include "run/simulation.hpp"
#include "simulator/error.hpp"
#include "simulator/params.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"
#include "tools/cli_util.hpp"
#include "tools/completion.hpp"
#include "tools/flag_values.hpp"
#include "tools/jitter_command.hpp"
#include "tools/record_command.hpp"
#include "tools/run_command.hpp"
#include "tools/sweep_command.hpp"
#include "tools/trace_commands.hpp"
#include "tools/version.hpp"
#include "tools/whole_number.hpp"
#include "topologies/forwarding.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/nic_models.hpp"
#include "topologies/routing.hpp"
#include "topologies/summary.hpp"
#include "traces/reader.hpp"

namespace clustersim::cli {
namespace {

std::vector<std::uint32_t> parse_list(const std::string& flag, const std::string& text) {
    std::vector<std::uint32_t> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t comma = text.find_first_of(",x", pos);
        const std::string item =
            text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        const std::uint64_t v = flag_value(flag, item, parse_count);
        if (v == 0 || v > UINT32_MAX)
            throw InputError(flag, 0, fmt::format("'{}': expected positive numbers", text));
        out.push_back(static_cast<std::uint32_t>(v));
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return out;
}

// The flags each kind of fabric uses beyond the common ones; any other kind's flag given is
// refused, not ignored. --nodes is refused where the shape flags give the node count.
void check_generate_flags(const GenerateFlags& f) {
    auto given = [&](const std::string& flag) {
        return std::find(f.given.begin(), f.given.end(), flag) != f.given.end();
    };
    struct Owned {
        const char* flag;
        std::vector<std::string> kinds;  // the kinds that use it
    };
    static const Owned owned[] = {
        {"--down", {"fat-tree"}},
        {"--up", {"fat-tree"}},
        {"--dims", {"torus"}},
        {"--groups", {"dragonfly"}},
        {"--routers", {"dragonfly"}},
        {"--nodes-per-router", {"dragonfly"}},
        {"--global-links", {"dragonfly"}},
        {"--local-latency", {"dragonfly"}},
        {"--local-bandwidth", {"dragonfly"}},
        {"--global-latency", {"dragonfly"}},
        {"--global-bandwidth", {"dragonfly"}},
        {"--switch-bandwidth", {"star", "fat-tree", "dragonfly"}},
    };
    for (const Owned& o : owned) {
        if (!given(o.flag) || std::find(o.kinds.begin(), o.kinds.end(), f.kind) != o.kinds.end())
            continue;
        std::string kinds;
        for (std::size_t i = 0; i < o.kinds.size(); ++i)
            kinds += (i == 0 ? "" : i + 1 == o.kinds.size() ? " or " : ", ") + o.kinds[i];
        throw InputError(
            o.flag, 0,
            fmt::format("a {} does not use it (a flag for a {}); leave it out", f.kind, kinds));
    }
    const bool shaped =
        (f.kind == "torus" && given("--dims")) || (f.kind == "fat-tree" && given("--down")) ||
        (f.kind == "dragonfly" && (given("--routers") || given("--groups") ||
                                   given("--nodes-per-router") || given("--global-links")));
    if (shaped && given("--nodes"))
        throw InputError("--nodes", 0,
                         fmt::format("the {} shape flags give the number of nodes; leave --nodes "
                                     "out",
                                     f.kind));
}

void print_section(std::ostream& out, const std::string& title,
                   const std::vector<std::pair<std::string, std::string>>& items) {
    out << title << ":\n";
    std::size_t width = 0;
    for (const auto& [name, help] : items) width = std::max(width, name.size());
    width = std::min<std::size_t>(width, 34);
    for (const auto& [name, help] : items) {
        if (name.size() > width)
            out << fmt::format("  {}\n  {:<{}}  {}\n", name, "", width, help);
        else
            out << fmt::format("  {:<{}}  {}\n", name, width, help);
    }
}

// Every registered model with its documented parameters (`clustersim list models`): the
// network models (run/network_models.hpp), NIC models (topologies/nic_models.hpp), cache
// layers and disk models (iosys/).
void print_models(std::ostream& out) {
    out << "network models (--network NAME[:key=value,...]):\n";
    const std::vector<run::NetworkModelEntry> nets = run::network_models().entries();
    std::size_t width = 0;
    for (const auto& e : nets) width = std::max(width, e.name.size());
    auto same_params = [](const run::NetworkModelEntry& a, const run::NetworkModelEntry& b) {
        if (a.params.size() != b.params.size()) return false;
        for (std::size_t i = 0; i < a.params.size(); ++i)
            if (a.params[i].name != b.params[i].name) return false;
        return true;
    };
    const run::NetworkModelEntry* listed = nullptr;  // the last entry whose parameters were
    for (const auto& e : nets) {
        out << fmt::format("  {:<{}}  {}\n", e.name, width, e.doc);
        if (e.params.empty()) continue;
        if (listed != nullptr && same_params(e, *listed)) {
            out << fmt::format("  {:<{}}  parameters: as {}\n", "", width, listed->name);
            continue;
        }
        listed = &e;
        std::size_t pw = 0;
        for (const ParamInfo& p : e.params) pw = std::max(pw, p.name.size());
        for (const ParamInfo& p : e.params)
            out << fmt::format("    {:<{}}  {}\n", p.name, pw, describe_param(p));
    }
    // A titled list of registered models: name, one line, then each parameter described by
    // `describe` (ParamInfo's type, unit and default for NIC models; iosys' meaning).
    auto print_registered = [&out](const std::string& title, const auto& entries, auto describe) {
        out << "\n" << title << ":\n";
        std::size_t w = 0;
        for (const auto& e : entries) w = std::max(w, e.name.size());
        for (const auto& e : entries) {
            out << fmt::format("  {:<{}}  {}\n", e.name, w, e.doc);
            std::size_t pw = 0;
            for (const auto& p : e.params) pw = std::max(pw, p.name.size());
            for (const auto& p : e.params)
                out << fmt::format("    {:<{}}  {}\n", p.name, pw, describe(p));
        }
    };
    print_registered(
        "NIC models (<network nic=...>, <node-type nic=...>, generate --nic; "
        "NAME[:key=value,...])",
        topo::nic_models().entries(), [](const ParamInfo& p) { return describe_param(p); });
    print_registered(
        "switch forwarding (forwarding=... on <network>, <switch>, <nic>; "
        "NAME[:key=value,...])",
        topo::forwarding_models().entries(), [](const ParamInfo& p) { return describe_param(p); });
    print_registered("CPU models (<network cpu=...>, run --cpu; NAME[:key=value,...])",
                     cpu::cpu_models().entries(),
                     [](const ParamInfo& p) { return describe_param(p); });
    auto print_io = [&](const std::string& title, const auto& entries) {
        print_registered(title, entries,
                         [](const ParamInfo& p) { return io::describe_io_param(p); });
    };
    const io::CacheRegistry& caches = io::cache_models();
    print_io("cache layers (--cache NAME, <cache model=...>)", caches.entries());
    const io::DiskRegistry& disks = io::disk_models();
    print_io("disk models (<disk model=...>)", disks.entries());
}

}  // namespace

int cmd_validate(const std::string& model_path) {
    const run::Model m = run::load_model(model_path);
    const topo::Topology& t = m.topology;
    io::check_io(t, m.io, m.mpi);
    (void)mpi::cpu_model_of(t);  // <network cpu>: a registered CPU model
    topo::Router router(t);
    std::cout << topo::format_summary(run::summarize(m, router));
    return 0;
}

int cmd_generate(const GenerateFlags& f) {
    check_generate_flags(f);

    topo::GenerateOptions o;
    o.command = f.command;
    o.kind = f.kind;
    o.nodes = f.nodes;
    o.sockets = f.sockets;
    o.cores = f.cores;
    o.cpu_speed = flag_value("--cpu-speed", f.cpu_speed, parse_speed);
    o.link_bandwidth = flag_value("--link-bandwidth", f.link_bandwidth, parse_bandwidth);
    o.link_latency = flag_value("--link-latency", f.link_latency, parse_time);
    if (!f.switch_bandwidth.empty())
        o.switch_bandwidth = flag_value("--switch-bandwidth", f.switch_bandwidth, parse_bandwidth);
    o.memory_bandwidth = flag_value("--memory-bandwidth", f.memory_bandwidth, parse_bandwidth);
    o.memory_latency = flag_value("--memory-latency", f.memory_latency, parse_time);
    if (!f.forwarding.empty())
        o.forwarding = select_flag("--forwarding", topo::forwarding_models(), f.forwarding);
    // --granularity left out: the kind's own (generate_model_xml).
    if (!f.granularity.empty() && f.granularity != "message" &&
        std::isalpha(static_cast<unsigned char>(f.granularity.front())) &&
        !closest_name(f.granularity, {"message"}).empty())
        throw InputError("--granularity", 0,
                         fmt::format("'{}'{}: expected a packet size or 'message'", f.granularity,
                                     did_you_mean(f.granularity, {"message"})));
    if (!f.granularity.empty()) {
        o.granularity =
            f.granularity == "message" ? 0 : flag_value("--granularity", f.granularity, parse_size);
        if (f.granularity != "message" && *o.granularity == 0)
            throw InputError("--granularity", 0, "expected a positive size or 'message'");
    }
    o.nic = select_flag("--nic", topo::nic_models(), f.nic);
    if (f.routing.empty())
        o.routing.reset();  // the fabric's own (topo::natural_routing)
    else if (const std::optional<topo::Routing> r = topo::parse_routing(f.routing))
        o.routing = *r;
    else
        throw InputError("--routing", 0,
                         fmt::format("'{}'{}: expected shortest_path, round_robin, simgrid, "
                                     "valiant, ugal_l, ugal_g (dragonfly), dimension_order, "
                                     "dimension_order_balanced (torus) "
                                     "or d_mod_k, adaptive_up (fat-tree)",
                                     f.routing, did_you_mean(f.routing, topo::routing_names())));
    // 0 is "choose for me" inside GenerateOptions; given as a flag it is a mistake, not a
    // silent default.
    const auto positive = [](const char* flag, std::uint32_t v) {
        if (v == 0)
            throw InputError(flag, 0,
                             "expected at least 1 (leave the flag out to let generate "
                             "choose a balanced shape)");
        return v;
    };
    o.groups = f.groups ? positive("--groups", *f.groups) : 0;
    o.routers = f.routers ? positive("--routers", *f.routers) : 0;
    o.nodes_per_router =
        f.nodes_per_router ? positive("--nodes-per-router", *f.nodes_per_router) : 0;
    o.global_links = f.global_links ? positive("--global-links", *f.global_links) : 0;
    if (!f.local_latency.empty())
        o.local_latency = flag_value("--local-latency", f.local_latency, parse_time);
    if (!f.local_bandwidth.empty())
        o.local_bandwidth = flag_value("--local-bandwidth", f.local_bandwidth, parse_bandwidth);
    if (!f.global_latency.empty())
        o.global_latency = flag_value("--global-latency", f.global_latency, parse_time);
    if (!f.global_bandwidth.empty())
        o.global_bandwidth = flag_value("--global-bandwidth", f.global_bandwidth, parse_bandwidth);
    o.memory = flag_value("--memory", f.memory, parse_size);
    o.eager_threshold = flag_value("--eager-threshold", f.eager_threshold, parse_size);
    if (!f.down.empty()) o.down = parse_list("--down", f.down);
    if (!f.up.empty()) o.up = parse_list("--up", f.up);
    if (!f.dims.empty()) o.dims = parse_list("--dims", f.dims);
    if (o.nodes == 0) throw InputError("--nodes", 0, "expected at least 1 node");
    if (o.sockets == 0) throw InputError("--sockets", 0, "expected at least 1 socket");
    if (o.cores == 0) throw InputError("--cores", 0, "expected at least 1 core");
    if (o.routing && topo::needs_dragonfly(*o.routing) && f.kind != "dragonfly")
        throw InputError("--routing", 0,
                         fmt::format("{} routing needs a dragonfly, not a {}",
                                     topo::to_string(*o.routing), f.kind));
    if (o.routing && topo::needs_torus(*o.routing) && f.kind != "torus")
        throw InputError(
            "--routing", 0,
            fmt::format("{} routing needs a torus, not a {}", topo::to_string(*o.routing), f.kind));
    if (o.routing && topo::needs_fat_tree(*o.routing) && f.kind != "fat-tree")
        throw InputError("--routing", 0,
                         fmt::format("{} routing needs a fat-tree, not a {}",
                                     topo::to_string(*o.routing), f.kind));
    // generate_model_xml names no flag (it also serves the library): when the shape the flags
    // describe is impossible, name the flags that describe it.
    const char* flags = f.kind == "dragonfly"
                            ? "--nodes/--groups/--routers/--nodes-per-router/--global-links"
                        : f.kind == "torus"    ? "--nodes/--dims"
                        : f.kind == "fat-tree" ? "--nodes/--down/--up"
                                               : "--nodes";
    std::string xml;
    try {
        xml = topo::generate_model_xml(o);
    } catch (const InputError& e) {
        if (!e.file().empty()) throw;
        throw InputError(flags, 0, e.message());
    }
    check_written_model(xml, flags);
    std::cout << xml;
    return 0;
}

int cmd_list(const std::vector<std::string>& kinds) {
    const Catalogue c = catalogue();
    const std::vector<std::string> what = kinds.empty() ? default_list_kinds() : kinds;
    bool first = true;
    for (const std::string& k : what) {
        if (!first) std::cout << "\n";
        first = false;
        if (k == "apps")
            print_section(std::cout, "apps (--app NAME:key=value,...)", c.apps);
        else if (k == "algorithms")
            print_section(std::cout, "collective algorithms (--algorithm OPERATION=NAME)",
                          c.algorithms);
        else if (k == "models")
            print_models(std::cout);
        else if (k == "networks")
            print_section(std::cout, "network models (--network NAME[:key=value,...])", c.networks);
        else if (k == "formats")
            print_section(std::cout, "trace formats (--format NAME)", c.formats);
        else if (k == "caches")
            print_section(std::cout, "cache layers (--cache NAME, <cache model=...>)", c.caches);
        else if (k == "disks")
            print_section(std::cout, "disk models (<disk model=...>)", c.disks);
        else if (k == "writers")
            print_section(std::cout, "trace writers (convert --to NAME)", c.writers);
        else if (k == "importers")
            print_section(std::cout, "platform importers (import NAME FILE)", c.importers);
        else if (k == "profiles")
            print_section(std::cout,
                          "MPI decision profiles (--mpi NAME, <collectives profile=...>)",
                          c.profiles);
        else if (k == "outputs")
            print_section(std::cout, "outputs of a run after timeline.json (run --out DIR)",
                          c.outputs);
        else if (k == "jitter")
            print_section(std::cout,
                          "jitter trace formats (jitter --format NAME, jitter-trace convert --to "
                          "NAME)",
                          c.jitter);
        else
            throw InputError(
                "list", 0,
                fmt::format("unknown kind '{}'{}; expected one of: apps, algorithms, "
                            "models, networks, formats, caches, disks, writers, importers, "
                            "profiles, outputs, jitter",
                            k, did_you_mean(k, list_kinds())));
    }
    return 0;
}

CLI::App* add_generate(CLI::App& app, GenerateFlags& g) {
    auto* generate =
        app.add_subcommand("generate", "Write a generated cluster model XML to stdout");
    generate->add_option("KIND", g.kind, "star, fat-tree, torus or dragonfly")
        ->required()
        ->transform(CLI::Validator(
            [](std::string& kind) {
                // The fabric kinds are the XML's element names (keys: words joined by '-');
                // '_' reads as '-' with a note, a misspelling gets a suggestion.
                const std::vector<std::string>& kinds = fabric_kinds();
                if (const std::string* k =
                        find_named(kinds, kind, [](const std::string& n) { return n; })) {
                    kind = *k;
                    return std::string();
                }
                return fmt::format("'{}'{}: expected star, fat-tree, torus or dragonfly", kind,
                                   did_you_mean(kind, kinds));
            },
            "KIND"));
    generate->add_option("--nodes", g.nodes,
                         "number of nodes (star; torus/fat-tree default shape)");
    generate->add_option("--sockets", g.sockets, "sockets per node");
    generate->add_option("--cores", g.cores, "cores per socket");
    generate->add_option("--cpu-speed", g.cpu_speed, "instructions per second per core, e.g. 2.8G");
    generate->add_option("--link-bandwidth", g.link_bandwidth,
                         "bandwidth of every network link (a dragonfly's local and global "
                         "cables too, unless --local-bandwidth/--global-bandwidth), e.g. "
                         "10Gbit/s (default 1.25GB/s)");
    generate->add_option("--link-latency", g.link_latency,
                         "latency of every network link (a dragonfly's local cables too, its "
                         "global ones twice it, unless --local-latency/--global-latency), e.g. "
                         "1us (default 1us)");
    generate->add_option("--switch-bandwidth", g.switch_bandwidth,
                         "switch relay bandwidth (default unlimited)");
    generate->add_option("--memory-bandwidth", g.memory_bandwidth,
                         "socket to memory-node bandwidth");
    generate->add_option("--memory-latency", g.memory_latency, "socket to memory-node latency");
    generate->add_option("--granularity", g.granularity,
                         "packet size, or 'message' for whole messages (default 4KiB, an "
                         "InfiniBand MTU, on every kind)");
    generate->add_option("--forwarding", g.forwarding,
                         "how switches and NICs forward a packet: cut_through (the default on "
                         "every kind, as InfiniBand, Slingshot and Omni-Path switches do) or "
                         "store_and_forward (PIOsimHD's)");
    generate->add_option("--nic", g.nic,
                         "NIC model: packet or analytical (clustersim list models), with optional "
                         "parameters NAME:key=value,...");
    generate->add_option(
        "--routing", g.routing,
        "shortest_path, round_robin, simgrid, valiant, ugal_l or ugal_g (dragonfly), "
        "dimension_order, dimension_order_balanced (torus) or d_mod_k, adaptive_up (fat-tree) "
        "(default: the fabric's own: d_mod_k on a fat-tree, dimension_order_balanced on a "
        "torus, ugal_l on a dragonfly, shortest_path on a star)");
    generate->add_option("--memory", g.memory, "memory per node, e.g. 64GiB");
    generate->add_option("--eager-threshold", g.eager_threshold, "largest eagerly sent message");
    generate->add_option("--down", g.down, "fat-tree: children per switch per level, e.g. 8,4");
    generate->add_option("--up", g.up, "fat-tree: parents per vertex per level, e.g. 1,2");
    generate->add_option("--dims", g.dims, "torus: dimensions, e.g. 4,4,4");
    generate->add_option("--groups", g.groups,
                         "dragonfly: groups (default: routers x global links + 1)");
    generate->add_option("--routers", g.routers, "dragonfly: routers per group");
    generate->add_option("--nodes-per-router", g.nodes_per_router, "dragonfly: nodes per router");
    generate->add_option("--global-links", g.global_links, "dragonfly: global cables per router");
    generate->add_option(
        "--local-latency", g.local_latency,
        "dragonfly: router-to-router latency in a group (default: --link-latency)");
    generate->add_option("--local-bandwidth", g.local_bandwidth,
                         "dragonfly: router-to-router bandwidth in a group (default: "
                         "--link-bandwidth)");
    generate->add_option("--global-latency", g.global_latency,
                         "dragonfly: latency between groups (default: twice --link-latency)");
    generate->add_option("--global-bandwidth", g.global_bandwidth,
                         "dragonfly: bandwidth between groups (default: --link-bandwidth)");

    return generate;
}

}  // namespace clustersim::cli
