#include "tools/cli.hpp"

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

constexpr int kBadInput = 2;

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

int cmd_validate(const std::string& model_path) {
    const run::Model m = run::load_model(model_path);
    const topo::Topology& t = m.topology;
    io::check_io(t, m.io, m.mpi);
    (void)mpi::cpu_model_of(t);  // <network cpu>: a registered CPU model
    topo::Router router(t);
    std::cout << topo::format_summary(run::summarize(m, router));
    return 0;
}

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
                                     "valiant, ugal_l, ugal_g (dragonfly), dimension_order (torus) "
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
    if (o.routing && *o.routing == topo::Routing::DimensionOrder && f.kind != "torus")
        throw InputError("--routing", 0,
                         fmt::format("dimension_order routing needs a torus, not a {}", f.kind));
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
        print_registered(title, entries, [](const auto& p) { return p.meaning; });
    };
    io::CacheRegistry caches("cache");
    io::register_builtin_caches(caches);
    print_io("cache layers (--cache NAME, <cache model=...>)", caches.entries());
    io::DiskRegistry disks("disk");
    io::register_builtin_disks(disks);
    print_io("disk models (<disk model=...>)", disks.entries());
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
        else
            throw InputError("list", 0,
                             fmt::format("unknown kind '{}'{}; expected one of: apps, algorithms, "
                                         "models, networks, formats, caches, disks",
                                         k, did_you_mean(k, list_kinds())));
    }
    return 0;
}

// The deepest subcommand the parser entered (the app itself if none).
const CLI::App* selected(const CLI::App& app) {
    for (const CLI::App* sub : app.get_subcommands())
        if (sub->parsed()) return selected(*sub);
    return &app;
}

// One line for a parse error, with a suggestion where a flag or subcommand is misspelt.
std::string explain(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
    const CLI::App* where = selected(app);
    const std::string path = where == &app ? "clustersim" : "clustersim " + where->get_name();
    std::string line = e.what();
    std::vector<std::string> subs;
    for (const CLI::App* s : app.get_subcommands({})) subs.push_back(s->get_name());
    if (where == &app && argc > 1 && argv[1][0] != '-' &&
        std::find(subs.begin(), subs.end(), argv[1]) == subs.end())
        return fmt::format("unknown command '{}'{} (see clustersim --help)", argv[1],
                           did_you_mean(argv[1], subs));
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
        // "The following argument(s) were not expected: --rank 16"
        const std::string text = e.what();
        const std::size_t colon = text.find(": ");
        std::vector<std::string> extras;
        if (colon != std::string::npos) {
            std::size_t pos = colon + 2;
            while (pos < text.size()) {
                const std::size_t sp = text.find(' ', pos);
                extras.push_back(text.substr(pos, sp == std::string::npos ? sp : sp - pos));
                if (sp == std::string::npos) break;
                pos = sp + 1;
            }
        }
        for (const std::string& x : extras) {
            if (x.rfind("-", 0) == 0) {
                std::vector<std::string> flags;
                for (const CLI::Option* o : where->get_options()) {
                    for (const std::string& l : o->get_lnames())
                        flags.push_back(fmt::format("--{}", l));
                    for (const std::string& s : o->get_snames())
                        flags.push_back(fmt::format("-{}", s));
                }
                const std::string name = x.substr(0, x.find('='));
                return fmt::format("{}unknown flag '{}'{} (see {} --help)",
                                   where == &app ? "" : where->get_name() + ": ", name,
                                   did_you_mean(name, flags), path);
            }
        }
        if (where == &app && !extras.empty()) {
            return fmt::format("unknown command '{}'{} (see clustersim --help)", extras.front(),
                               did_you_mean(extras.front(), subs));
        }
        return fmt::format("{}unexpected argument(s) '{}' (see {} --help)",
                           where == &app ? "" : where->get_name() + ": ",
                           text.substr(colon == std::string::npos ? 0 : colon + 2), path);
    }
    return fmt::format("{} (see {} --help)", line, path);
}

}  // namespace

// The first option or positional given an empty value ("--out ''", an empty OUTPUT), on the
// command line's parsed subcommands; "" when none. A traced program's own arguments (record's
// COMMAND) may be empty.
std::string empty_value(const CLI::App& app) {
    for (const CLI::Option* o : app.get_options()) {
        if (o->count() == 0 || o->get_expected_min() == 0 || o->get_name() == "COMMAND") continue;
        for (const std::string& v : o->results())
            if (v.empty()) return o->get_name();
    }
    for (const CLI::App* s : app.get_subcommands())
        if (std::string n = empty_value(*s); !n.empty()) return n;
    return {};
}

namespace {

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
        "dimension_order (torus) or d_mod_k, adaptive_up (fat-tree) (default: the fabric's own: "
        "d_mod_k on a "
        "fat-tree, "
        "dimension_order on a torus, shortest_path (minimal) on a star or dragonfly)");
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

CLI::App* add_run(CLI::App& app, RunFlags& r) {
    auto* run =
        app.add_subcommand("run", "Simulate applications (built-in or traces) on a cluster model");
    run->add_option("MODEL", r.model, "cluster model XML file")->required();
    run->add_option("--app", r.apps,
                    "application: pingpong:size=1MiB,iterations=10, bcast:size=100MiB, "
                    "io:op=write,size=1GiB, ..., or trace:PATH (a trace file, index or project); "
                    "repeat to run several applications at once, each with its own ranks")
        ->required();
    run->add_option("--ranks", r.ranks,
                    "ranks of each built-in app, in --app order (default: the app's minimum; a "
                    "trace brings its own)");
    run->add_option("--placement", r.placement,
                    "round_robin, sequential, or map:FILE (lines: RANK NODE [SOCKET [CORE]])");
    run->add_flag("--oversubscribe", r.oversubscribe,
                  "allow more ranks than cores (ranks then share cores)");
    run->add_option("--algorithm", r.algorithms,
                    "collective algorithm override, e.g. bcast=binomial, "
                    "bcast=pipeline:segment=64KiB, write_all=two_phase (repeatable)");
    run->add_option(
        "--mpi", r.mpi,
        "choose collective algorithms (and segment sizes) per call as an MPI "
        "library's default decision rules do: openmpi_4.1, mpich_4, simgrid (--algorithm "
        "still wins)");
    run->add_option("--network", r.network,
                    "network model: packet, cut_through, fluid, or an analytic communication "
                    "model: simple, bus_only, incoming_link_only, outgoing_link_only, "
                    "contention, pmac, with optional parameters, e.g. bus_only:buses=4 "
                    "(default: the model's)");
    run->add_option("--cpu", r.cpu,
                    "CPU model of every core: processor_sharing or run_to_completion, or one "
                    "registered later, NAME[:key=value,...] (default: the model's)");
    run->add_option("--seed", r.seed, "seed of random choices (Valiant and UGAL routing)")
        ->check(whole_number(UINT64_MAX));
    run->add_option("--cache", r.cache,
                    "cache layer (I/O scheduler) for every I/O server, replacing the model's: "
                    "none, write_behind, aggregation, reorder");
    run->add_option("--format", r.format,
                    "trace format of trace: apps: auto, native_text, native_binary, simgrid_ti, "
                    "hdtrace, otf2, dumpi");
    run->add_flag("--skip-unknown", r.skip_unknown,
                  "skip trace records clustersim does not support (counted per kind) instead "
                  "of stopping");
    run->add_option("--traced-speed", r.traced_speed,
                    "instructions/s of a core of the traced machine (e.g. 2.8G): compute "
                    "times are projected by the ratio to the target cores (default: the "
                    "trace's, else times are kept)");
    run->add_option("--out", r.out,
                    "write the timeline (Chrome trace JSON and OTF2), statistics (CSV, summary) "
                    "and the simulated trace to this folder");
    run->add_option("--timeline-detail", r.timeline_detail, "ranks (default) or hardware");
    auto* json_flag =
        run->add_flag("--json", r.json, "print one JSON object instead of the summary");
    run->add_flag("--per-rank", r.per_rank, "with --json: add per-rank results")->needs(json_flag);
    run->add_flag("--progress", r.progress,
                  "print a progress line (fraction done, time left, event rate) to stderr every "
                  "--progress-interval, also when stderr is not a terminal (batch jobs)");
    run->add_option("--progress-interval", r.progress_interval,
                    "time between progress lines with --progress (default 10s; 0s: after "
                    "every chunk of events, from 64 up to 262,144, shorter while events are "
                    "slow)");
    run->add_flag("-q,--quiet", r.quiet, "no progress line, not even on a terminal");
    {
        // Every name the flags accept, at the end of `run --help`.
        const Catalogue c = catalogue();
        auto names = [](const std::vector<std::pair<std::string, std::string>>& items) {
            std::string s;
            for (const auto& [n, h] : items)
                s += (s.empty() ? "" : ", ") + n.substr(0, n.find(':'));
            return s;
        };
        std::string algs;
        for (const auto& [n, h] : c.algorithms) algs += (algs.empty() ? "" : ", ") + n;
        run->footer(
            fmt::format("Apps: {}\n\nCollective algorithms: {}\n\nNetwork models: {}\n\n"
                        "Trace formats: auto, {}\n\nCache layers: {}\n\n"
                        "'clustersim list' prints each with its parameters.",
                        names(c.apps), algs, names(c.networks), names(c.formats), names(c.caches)));
    }

    return run;
}

CLI::App* add_convert(CLI::App& app, ConvertFlags& cv) {
    auto* convert = app.add_subcommand(
        "convert", "Convert a trace to the native text or binary format, or OTF2");
    convert->add_option("INPUT", cv.input, "trace (any readable format)")->required();
    convert->add_option("OUTPUT", cv.output, "file to write")->required();
    convert->add_option(
        "--to", cv.to,
        "text, binary or otf2 (default: by OUTPUT's extension: .txt = text, .otf2 = "
        "otf2: OUTPUT is the anchor file, NAME.def and NAME/ go beside it)");
    convert->add_option("--format", cv.format,
                        "format of INPUT: auto (default), native_text, native_binary, "
                        "simgrid_ti, hdtrace, otf2, dumpi");
    convert->add_flag("--skip-unknown", cv.skip_unknown, "skip unsupported records");

    return convert;
}

// `trace merge`: returns `merge`.
CLI::App* add_trace_merge(CLI::App& app, MergeFlags& mf) {
    auto* trace = app.add_subcommand("trace", "Work with traces recorded by the MPI tracer");
    trace->require_subcommand(1);
    auto* merge = trace->add_subcommand(
        "merge", "Merge the rank files of a run traced with libclustersim-trace.so into one trace");
    merge->add_option("INPUT", mf.inputs, "rank files (*.csrank), or folders holding them")
        ->required();
    merge->add_option("-o,--out", mf.output, "trace file to write")->required();
    merge->add_option("--to", mf.to,
                      "text or binary (default: by the output's extension: .txt = text)");
    merge->add_option("--name", mf.name, "trace name (default: the traced program's)");
    merge->add_option("--traced-speed", mf.traced_speed,
                      "instructions/s of a core of the traced machine (e.g. 2.8G; from "
                      "clustersim-calibrate): stored in the trace for projection at replay");

    return merge;
}

CLI::App* add_import(CLI::App& app, ImportFlags& im) {
    auto* import = app.add_subcommand(
        "import",
        "Convert a PIOsimHD model or a SimGrid platform into a clustersim model (stdout)");
    import->add_option("KIND", im.kind, "piosimhd or simgrid")->required();
    import->add_option("FILE", im.input, "the model or platform XML")->required();
    import->add_option("--placement-out", im.placement_out,
                       "also write the source's process placement as a map file "
                       "(for run --placement map:FILE)");
    import->add_option("--file-system", im.file_system,
                       "piosimhd: pvfs2 = the servers run PVFS2: add its request handshake, "
                       "small I/O and the open's metadata lookup (traces/README.md)");
    import->add_option("--mpi-channel", im.mpi_channel,
                       "piosimhd: sock = the ranks ran MPICH2's ch3:sock (TCP): each pair of "
                       "ranks connects on its first message, 2 round trips (traces/README.md)");

    return import;
}

CLI::App* add_compare(CLI::App& app, CompareFlags& cf) {
    auto* compare = app.add_subcommand(
        "compare", "Compare a recorded run (trace with times) with a simulated one");
    compare->add_option("RECORDED", cf.recorded, "trace with recorded times")->required();
    compare->add_option("SIMULATED", cf.simulated, "a run --out folder, or its simulated.cstrace")
        ->required();
    compare->add_option(
        "--out", cf.out,
        "write the side-by-side timelines (JSON and SVG), a CSV and a per-rank SVG bar chart here");
    compare->add_option("--format", cf.format,
                        "format of RECORDED: auto (default), native_text, native_binary, "
                        "simgrid_ti, hdtrace, otf2, dumpi");
    compare->add_flag("--skip-unknown", cf.skip_unknown, "skip unsupported records");
    compare->add_flag("--json", cf.json,
                      "print one JSON object instead of the tables: runtime, the split "
                      "(replayed, modelled, no record), ranks, operations (and by size)");
    compare->add_flag("--by-size", cf.by_size,
                      "also compare per operation and message size class (0 B, up to 64 B, "
                      "1 KiB, 16 KiB, 256 KiB, 4 MiB, 64 MiB, above): calls, recorded and "
                      "simulated time, error, time per call (and in compare.csv with --out)");
    compare->add_option("--timeline-window", cf.timeline_window,
                        "FROM,TO: the excerpt compare_timeline.svg draws (e.g. 0s,50ms; "
                        "default: the whole run)");

    return compare;
}

CLI::App* add_record(CLI::App& app, RecordFlags& rec) {
    auto* record = app.add_subcommand(
        "record",
        "Run an MPI program with the tracer preloaded and merge its rank files into one trace: "
        "clustersim record [-o OUT] -- mpirun -np 4 ./app ARGS (as root, Open MPI's mpirun "
        "needs --allow-run-as-root)");
    record->add_option("-o,--out", rec.output, "trace file to write (default recorded.cstrace)");
    record->add_option("--dir", rec.dir, "folder of the rank files (default: OUT.ranks)");
    record->add_option("--tracer", rec.tracer,
                       "libclustersim-trace.so (default: $CLUSTERSIM_TRACER, else the one "
                       "installed beside clustersim)");
    record->add_option("--to", rec.to, "text or binary (default: by OUT's extension)");
    record->add_option("--name", rec.name, "trace name (default: the traced program's)");
    record->add_option("--traced-speed", rec.traced_speed,
                       "instructions/s of a core of the traced machine (e.g. 2.8G)");
    record->add_option("COMMAND", rec.command, "the command after --, e.g. mpirun -np 2 ./app")
        ->required();
    record->positionals_at_end();

    return record;
}

// The command line, for a generated file's first comment: from `generate` on, arguments that a
// shell would split or expand quoted.
std::string generate_command_line(int argc, char** argv) {
    std::string command = "clustersim";
    bool after = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (!after && a != "generate") continue;
        after = true;
        const bool plain = !a.empty() && a.find_first_not_of(
                                             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
                                             "TUVWXYZ0123456789-_.,:/=+@%") == std::string::npos;
        command += " " + (plain ? a : "'" + a + "'");
    }
    return command;
}

// `clustersim help [COMMAND]`.
int print_help(CLI::App& app, const std::vector<std::string>& help_topic) {
    if (help_topic.empty()) {
        std::cout << app.get_formatter()->make_help(&app, "clustersim", CLI::AppFormatMode::Normal);
        return 0;
    }
    CLI::App* topic = nullptr;
    std::vector<std::string> names;
    for (CLI::App* s : app.get_subcommands({})) {
        names.push_back(s->get_name());
        if (s->get_name() == help_topic.front()) topic = s;
    }
    if (topic == nullptr) {
        std::cerr << fmt::format(
            "clustersim: error: help: unknown command '{}'{} (see "
            "clustersim --help)\n",
            help_topic.front(), did_you_mean(help_topic.front(), names));
        return kBadInput;
    }
    std::cout << topic->help();
    return 0;
}

// `clustersim completion SHELL`.
int print_completion(CLI::App& app, const std::string& completion_shell) {
    if (completion_shell != "bash") {
        std::cerr << fmt::format("clustersim: error: completion: '{}'{}: only bash is supported\n",
                                 completion_shell, did_you_mean(completion_shell, {"bash"}));
        return kBadInput;
    }
    std::cout << bash_completion(app);
    return 0;
}

// Runs a command; its errors become one line on stderr and an exit code: 2 for bad input
// (and for memory the input asked for), 1 for a bug.
template <typename F>
int guarded(F command) {
    try {
        return command();
    } catch (const InputError& e) {
        std::cerr << "clustersim: error: " << e.what() << "\n";
        return kBadInput;
    } catch (const std::bad_alloc&) {
        std::cerr << "clustersim: error: out of memory: the run needs more memory than this "
                     "process may use (the machine's, or a limit such as ulimit -v)\n";
        return kBadInput;
    } catch (const std::filesystem::filesystem_error& e) {
        // A path the system refuses (too long, a loop of links, no permission) where a
        // reader asked std::filesystem about it: the path and the system's reason.
        std::cerr << fmt::format("clustersim: error: {}: {}\n", e.path1().string(),
                                 e.code().message());
        return kBadInput;
    } catch (const std::exception& e) {  // a bug, not the user's input: say so
        std::cerr << "clustersim: internal error: " << e.what() << " (please report it)\n";
        return 1;
    }
}

// The whole command line: every command, the flags it fills, and the parser.
struct CommandLine {
    CLI::App app{"clustersim: predict how MPI applications perform on a described cluster"};
    std::string validate_model;
    GenerateFlags g;
    RunFlags r;
    ConvertFlags cv;
    MergeFlags mf;
    ImportFlags im;
    CompareFlags cf;
    JitterCommands jc;
    RecordFlags rec;
    std::vector<std::string> list_kinds;
    std::string completion_shell;
    std::vector<std::string> help_topic;
    SweepFlags sw;
    CLI::App* validate = nullptr;
    CLI::App* generate = nullptr;
    CLI::App* run = nullptr;
    CLI::App* convert = nullptr;
    CLI::App* merge = nullptr;
    CLI::App* import = nullptr;
    CLI::App* compare = nullptr;
    CLI::App* record = nullptr;
    CLI::App* list = nullptr;
    CLI::App* completion = nullptr;
    CLI::App* help = nullptr;

    CommandLine() {
        app.require_subcommand(1);
        app.set_version_flag("--version", version_line(), "print the version and git revision");
        app.footer(
            "Run 'clustersim list' for every app, algorithm, network model and trace format, "
            "and 'clustersim COMMAND --help' for a command's flags.");
        validate =
            app.add_subcommand("validate", "Build a model and print what was built, or its errors");
        validate->add_option("MODEL", validate_model, "cluster model XML file")->required();
        generate = add_generate(app, g);
        run = add_run(app, r);
        convert = add_convert(app, cv);
        merge = add_trace_merge(app, mf);
        import = add_import(app, im);
        compare = add_compare(app, cf);
        add_jitter_commands(app, jc);
        record = add_record(app, rec);
        list = app.add_subcommand(
            "list",
            "Print every app, collective algorithm, network model, trace format, cache layer "
            "and disk model, with its parameters");
        list->add_option("KIND", list_kinds,
                         "apps, algorithms, models (network models, caches and disks with "
                         "their parameters), networks, formats, caches or disks (default: apps, "
                         "algorithms, models, formats)");
        completion = app.add_subcommand("completion",
                                        "Print a shell completion script: clustersim "
                                        "completion bash > /etc/bash_completion.d/clustersim");
        completion->add_option("SHELL", completion_shell, "bash")->required();
        app.add_subcommand("version", "Print the version and git revision");
        help = app.add_subcommand("help", "Print the help of clustersim or of one command");
        help->add_option("COMMAND", help_topic, "a command, e.g. run");
        add_sweep_command(app, sw);
    }
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;
};

}  // namespace

std::vector<std::pair<std::string, std::string>> text_options() {
    const CommandLine cl;
    std::vector<std::pair<std::string, std::string>> out;
    each_command(cl.app, [&](const std::string& path, const CLI::App& s) {
        for (const CLI::Option* o : s.get_options())
            if (o->get_type_size() != 0 && o->get_type_name().rfind("TEXT", 0) == 0)
                out.emplace_back(path, option_key(*o));
    });
    return out;
}

int main(int argc, char** argv) {
    // A registered name given with the other separator ('-' for '_') is read with a note.
    set_spelling_notes(&std::cerr);
    CommandLine cl;
    CLI::App& app = cl.app;

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "clustersim: error: " << explain(app, e, argc, argv) << "\n";
        return kBadInput;
    }
    // An empty value is bad input (issue 53), never "not given" (`run --out ''` wrote nothing
    // in silence) nor a path the system names without the flag (`convert TRACE ''`: "cannot
    // write: No such file or directory").
    if (const std::string flag = empty_value(app); !flag.empty()) {
        std::cerr << "clustersim: error: " << flag
                  << ": an empty value; give one, or leave the flag out\n";
        return kBadInput;
    }
    if (app.got_subcommand("version")) {
        std::cout << version_line() << "\n";
        return 0;
    }
    if (*cl.help) return print_help(app, cl.help_topic);
    if (*cl.completion) return print_completion(app, cl.completion_shell);

    return guarded([&] {
        if (*cl.validate) return cmd_validate(cl.validate_model);
        if (*cl.generate) {
            for (const CLI::Option* opt : cl.generate->get_options())
                if (opt->count() > 0) cl.g.given.push_back(opt->get_name());
            cl.g.command = generate_command_line(argc, argv);
            return cmd_generate(cl.g);
        }
        if (*cl.run) return cmd_run(cl.r);
        if (*cl.convert) return cmd_convert(cl.cv);
        if (*cl.import) return cmd_import(cl.im);
        if (*cl.merge) return cmd_trace_merge(cl.mf);
        if (*cl.compare) return cmd_compare(cl.cf);
        if (*cl.record) return cmd_record(cl.rec);
        if (*cl.list) return cmd_list(cl.list_kinds);
        if (int code = 0; run_jitter_commands(cl.jc, code)) return code;
        if (int code = 0; run_sweep_command(cl.sw, code)) return code;
        return 0;
    });
}

}  // namespace clustersim::cli
