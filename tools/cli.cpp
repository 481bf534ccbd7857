#include "tools/cli.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "collectives/apps.hpp"
#include "collectives/placement.hpp"
#include "collectives/simulation.hpp"
#include "iosys/cache.hpp"
#include "iosys/file_system.hpp"
#include "iosys/ior.hpp"
#include "simulator/error.hpp"
#include "simulator/memory.hpp"
#include "simulator/units.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"
#include "topologies/summary.hpp"

namespace clustersim::cli {
namespace {

constexpr int kBadInput = 2;

// Parses a unit-bearing flag value, turning a UnitError into an InputError naming the flag.
template <typename F>
auto flag_value(const std::string& flag, const std::string& text, F parse) {
    try {
        return parse(text);
    } catch (const UnitError& e) {
        throw InputError(flag, 0, e.what());
    }
}

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

std::string with_commas(std::uint64_t v) {
    std::string s = std::to_string(v);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3)
        s.insert(static_cast<std::size_t>(i), ",");
    return s;
}

int cmd_validate(const std::string& model_path) {
    const topo::Topology t = topo::load_model(model_path);
    io::check_io(t);
    topo::Router router(t);
    std::cout << topo::format_summary(topo::summarize(t, router));
    return 0;
}

struct GenerateFlags {
    std::string kind;
    std::uint32_t nodes = 16, sockets = 1, cores = 1;
    std::string cpu_speed = "2G", link_bandwidth = "1.25GB/s", link_latency = "1us",
                switch_bandwidth;
    std::string memory_bandwidth = "20GB/s", memory_latency = "100ns";
    std::string granularity = "100KiB", nic = "packet", routing = "shortest-path", memory = "16GiB";
    std::string eager_threshold = "64KiB", down, up, dims;
    std::uint32_t groups = 0, routers = 0, nodes_per_router = 0, global_links = 0;
    std::string local_latency = "1us", local_bandwidth = "1.25GB/s", global_latency = "2us",
                global_bandwidth = "1.25GB/s";
};

int cmd_generate(const GenerateFlags& f) {
    topo::GenerateOptions o;
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
    o.granularity =
        f.granularity == "message" ? 0 : flag_value("--granularity", f.granularity, parse_size);
    if (f.granularity != "message" && o.granularity == 0)
        throw InputError("--granularity", 0, "expected a positive size or 'message'");
    if (f.nic == "packet")
        o.nic = topo::NicModel::Packet;
    else if (f.nic == "analytical")
        o.nic = topo::NicModel::Analytical;
    else
        throw InputError("--nic", 0, fmt::format("'{}': expected packet or analytical", f.nic));
    if (f.routing == "shortest-path")
        o.routing = topo::Routing::ShortestPath;
    else if (f.routing == "round-robin")
        o.routing = topo::Routing::RoundRobin;
    else if (f.routing == "valiant")
        o.routing = topo::Routing::Valiant;
    else
        throw InputError(
            "--routing", 0,
            fmt::format("'{}': expected shortest-path, round-robin or valiant", f.routing));
    o.groups = f.groups;
    o.routers = f.routers;
    o.nodes_per_router = f.nodes_per_router;
    o.global_links = f.global_links;
    o.local_latency = flag_value("--local-latency", f.local_latency, parse_time);
    o.local_bandwidth = flag_value("--local-bandwidth", f.local_bandwidth, parse_bandwidth);
    o.global_latency = flag_value("--global-latency", f.global_latency, parse_time);
    o.global_bandwidth = flag_value("--global-bandwidth", f.global_bandwidth, parse_bandwidth);
    o.memory = flag_value("--memory", f.memory, parse_size);
    o.eager_threshold = flag_value("--eager-threshold", f.eager_threshold, parse_size);
    if (!f.down.empty()) o.down = parse_list("--down", f.down);
    if (!f.up.empty()) o.up = parse_list("--up", f.up);
    if (!f.dims.empty()) o.dims = parse_list("--dims", f.dims);
    if (o.nodes == 0) throw InputError("--nodes", 0, "expected at least 1 node");
    if (o.sockets == 0) throw InputError("--sockets", 0, "expected at least 1 socket");
    if (o.cores == 0) throw InputError("--cores", 0, "expected at least 1 core");
    std::cout << topo::generate_model_xml(o);
    return 0;
}

struct RunFlags {
    std::string model, app, placement = "round-robin";
    std::uint32_t ranks = 0;
    bool json = false, per_rank = false;
    std::vector<std::string> algorithms;
    std::string network;
    std::string cache;
    std::uint64_t seed = 1;
};

// Per-operation totals over all ranks.
std::array<mpi::OpStats, mpi::kStatKinds> op_totals(const mpi::SimulationResult& res) {
    std::array<mpi::OpStats, mpi::kStatKinds> total{};
    for (const auto& r : res.ranks) {
        for (int k = 0; k < mpi::kStatKinds; ++k) {
            total[k].count += r.ops[k].count;
            total[k].time += r.ops[k].time;
            total[k].bytes += r.ops[k].bytes;
        }
    }
    return total;
}

nlohmann::json io_json(const mpi::IoReport& io) {
    nlohmann::json j;
    j["bytes_written"] = io.bytes_written;
    j["bytes_read"] = io.bytes_read;
    j["files"] = io.files;
    const bool any = io.first_start != Time::max() && io.last_end > io.first_start;
    const double span = any ? (io.last_end - io.first_start).seconds() : 0.0;
    j["io_span_s"] = span;
    j["aggregate_throughput_bytes_per_s"] =
        span > 0 ? static_cast<double>(io.bytes_written + io.bytes_read) / span : 0.0;
    nlohmann::json servers = nlohmann::json::array();
    for (const auto& s : io.servers)
        servers.push_back({{"node", s.node},
                           {"cache", s.cache},
                           {"disk", s.disk},
                           {"bytes_written", s.bytes_written},
                           {"bytes_read", s.bytes_read},
                           {"disk_requests", s.disk_requests},
                           {"disk_bytes_written", s.disk_bytes_written},
                           {"disk_bytes_read", s.disk_bytes_read},
                           {"disk_busy_s", s.disk_busy.seconds()},
                           {"track_seeks", s.track_seeks},
                           {"average_seeks", s.average_seeks},
                           {"cache_hits", s.cache_hits},
                           {"cache_hit_bytes", s.cache_hit_bytes},
                           {"cache_misses", s.cache_misses},
                           {"merged_chunks", s.merged},
                           {"write_stalls", s.write_stalls},
                           {"peak_cache_bytes", s.peak_memory},
                           {"readahead_waits", s.readahead_waits}});
    j["servers"] = servers;
    return j;
}

void print_io(const mpi::IoReport& io) {
    const bool any = io.first_start != Time::max() && io.last_end > io.first_start;
    const Time span = any ? io.last_end - io.first_start : Time::zero();
    std::cout << fmt::format("  file data          {} written, {} read, {} file(s)\n",
                             format_size(io.bytes_written), format_size(io.bytes_read), io.files);
    if (span.ps() > 0)
        std::cout << fmt::format(
            "  I/O throughput     {} (first request to last completion: {})\n",
            format_bandwidth(Bandwidth{static_cast<std::uint64_t>(
                static_cast<double>(io.bytes_written + io.bytes_read) / span.seconds())}),
            format_time(span));
    std::cout << "\n  server   cache          disk    received     sent   disk busy    seeks "
                 "(track/avg)   cache hits\n";
    for (const auto& s : io.servers)
        std::cout << fmt::format(
            "  {:<8} {:<14} {:<6} {:>9} {:>9} {:>11} {:>9}/{:<9} {:>8}\n", s.node, s.cache, s.disk,
            format_size(s.bytes_written), format_size(s.bytes_read), format_time(s.disk_busy),
            with_commas(s.track_seeks), with_commas(s.average_seeks), with_commas(s.cache_hits));
}

int cmd_run(const RunFlags& f) {
    const auto t_load = std::chrono::steady_clock::now();
    topo::Topology t = topo::load_model(f.model);
    if (!f.network.empty()) mpi::choose_network(t, f.network);
    if (!f.cache.empty()) {
        if (t.io.servers.empty())
            throw InputError(
                "--cache", 0,
                fmt::format("the model {} has no <io-server> to give a cache layer", f.model));
        io::CacheRegistry caches("cache");
        io::register_builtin_caches(caches);
        if (caches.find(f.cache) == nullptr)
            throw InputError(
                "--cache", 0,
                fmt::format("unknown cache layer '{}'; valid: {}", f.cache, caches.names_list()));
        // Keep the model's parameters when the layer stays the same kind; a new kind gets
        // its defaults (the server node's memory for write_behind).
        for (auto& s : t.io.servers)
            if (s.cache.model != f.cache) s.cache = topo::ComponentSpec{f.cache, {}, 0};
    }
    const double load_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_load).count();
    mpi::AppRegistry registry;
    mpi::register_builtin_apps(registry);
    io::register_io_apps(registry);
    const std::uint32_t ranks = f.ranks != 0 ? f.ranks : registry.min_ranks(f.app);
    auto app = registry.create(f.app, ranks);
    const auto placement = mpi::place_ranks(t, ranks, f.placement);
    mpi::SimulationOptions options;
    options.algorithm_overrides = f.algorithms;
    options.seed = f.seed;
    std::vector<io::FileDecl> files;
    if (const auto* io_app = dynamic_cast<const io::IoApp*>(app.get())) files = io_app->files();
    options.io = io::io_factory(std::move(files));
    const mpi::SimulationResult res = mpi::simulate(t, placement, *app, options);
    const std::uint64_t peak = peak_memory_bytes();
    const double eps =
        res.wall_seconds > 0 ? static_cast<double>(res.events) / res.wall_seconds : 0.0;

    if (f.json) {
        nlohmann::json j;
        j["model"] = f.model;
        j["app"] = f.app;
        j["ranks"] = ranks;
        j["placement"] = f.placement;
        j["simulated_time_s"] = res.simulated.seconds();
        j["simulated_time_ps"] = res.simulated.ps();
        j["events"] = res.events;
        j["wall_time_s"] = res.wall_seconds;
        j["model_load_s"] = load_s;
        j["events_per_s"] = eps;
        j["peak_memory_bytes"] = peak;
        j["network"] = {{"model", f.network.empty() ? std::string(topo::to_string(t.settings.model))
                                                    : f.network},
                        {"messages", res.network.messages_delivered},
                        {"bytes_sent", res.network.bytes_sent},
                        {"bytes_delivered", res.network.bytes_delivered},
                        {"packets", res.network.packets},
                        {"packet_hops", res.network.packet_hops}};
        nlohmann::json ops = nlohmann::json::object();
        const auto totals = op_totals(res);
        for (int k = 0; k < mpi::kStatKinds; ++k) {
            if (totals[k].count == 0) continue;
            ops[mpi::stat_name(k)] = {{"count", totals[k].count},
                                      {"time_s", totals[k].time.seconds()},
                                      {"bytes", totals[k].bytes}};
        }
        j["operations"] = ops;
        nlohmann::json summary = nlohmann::json::object();
        for (const auto& [k, v] : app->summarize(res.simulated)) summary[k] = v;
        j["app_summary"] = summary;
        if (res.has_io) j["io"] = io_json(res.io);
        if (f.per_rank) {
            nlohmann::json pr = nlohmann::json::array();
            for (std::size_t r = 0; r < res.ranks.size(); ++r) {
                const auto& loc = res.placement[r];
                pr.push_back({{"rank", r},
                              {"node", t.nodes[loc.node].name},
                              {"socket", loc.socket},
                              {"core", loc.core},
                              {"finish_s", res.ranks[r].finish.seconds()},
                              {"bytes_sent", res.ranks[r].bytes_sent},
                              {"bytes_received", res.ranks[r].bytes_received}});
            }
            j["per_rank"] = pr;
        }
        std::cout << j.dump(2) << "\n";
        return 0;
    }

    std::cout << fmt::format("clustersim run: model {} ({} nodes), app {}\n", f.model,
                             t.nodes.size(), f.app);
    std::cout << fmt::format("  {} ranks placed {}", ranks, f.placement);
    const std::size_t show = std::min<std::size_t>(res.placement.size(), 4);
    for (std::size_t r = 0; r < show; ++r) {
        const auto& loc = res.placement[r];
        std::cout << fmt::format("{} rank {} on {} socket {} core {}", r == 0 ? ":" : ",", r,
                                 t.nodes[loc.node].name, loc.socket, loc.core);
    }
    std::cout << (res.placement.size() > show ? ", ...\n" : "\n");
    std::cout << fmt::format("\n  simulated time     {}\n", format_time(res.simulated));
    for (const auto& [k, v] : app->summarize(res.simulated))
        std::cout << fmt::format("  {:<18} {}\n", k, v);
    std::cout << fmt::format(
        "  messages           {} ({} delivered in {} packets, {} packet hops)\n",
        with_commas(res.network.messages_delivered), format_size(res.network.bytes_delivered),
        with_commas(res.network.packets), with_commas(res.network.packet_hops));
    if (res.has_io) print_io(res.io);
    std::cout << "\n  operation          count   time (sum over ranks)   bytes\n";
    const auto totals = op_totals(res);
    for (int k = 0; k < mpi::kStatKinds; ++k) {
        const mpi::OpStats& total = totals[k];
        if (total.count == 0) continue;
        std::cout << fmt::format("  {:<14} {:>9}   {:>21}   {}\n", mpi::stat_name(k),
                                 with_commas(total.count), format_time(total.time),
                                 format_size(total.bytes));
    }
    std::cout << fmt::format(
        "\n  simulator: {} events in {:.3f} s wall ({:.1f} M events/s), model load {:.3f} s, "
        "peak memory {}\n",
        with_commas(res.events), res.wall_seconds, eps / 1e6, load_s, format_size(peak));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"clustersim: predict how MPI applications perform on a described cluster"};
    app.require_subcommand(1);

    std::string validate_model;
    auto* validate =
        app.add_subcommand("validate", "Build a model and print what was built, or its errors");
    validate->add_option("MODEL", validate_model, "cluster model XML file")->required();

    GenerateFlags g;
    auto* generate =
        app.add_subcommand("generate", "Write a generated cluster model XML to stdout");
    generate->add_option("KIND", g.kind, "star, fat-tree, torus or dragonfly")
        ->required()
        ->check(CLI::IsMember({"star", "fat-tree", "torus", "dragonfly"}));
    generate->add_option("--nodes", g.nodes,
                         "number of nodes (star; torus/fat-tree default shape)");
    generate->add_option("--sockets", g.sockets, "sockets per node");
    generate->add_option("--cores", g.cores, "cores per socket");
    generate->add_option("--cpu-speed", g.cpu_speed, "instructions per second per core, e.g. 2.8G");
    generate->add_option("--link-bandwidth", g.link_bandwidth,
                         "network link bandwidth, e.g. 10Gbit/s");
    generate->add_option("--link-latency", g.link_latency, "network link latency, e.g. 1us");
    generate->add_option("--switch-bandwidth", g.switch_bandwidth,
                         "switch relay bandwidth (default unlimited)");
    generate->add_option("--memory-bandwidth", g.memory_bandwidth,
                         "socket to memory-node bandwidth");
    generate->add_option("--memory-latency", g.memory_latency, "socket to memory-node latency");
    generate->add_option("--granularity", g.granularity,
                         "packet size, or 'message' for whole messages");
    generate->add_option("--nic", g.nic, "packet or analytical");
    generate->add_option("--routing", g.routing,
                         "shortest-path, round-robin or valiant (dragonfly)");
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
    generate->add_option("--local-latency", g.local_latency,
                         "dragonfly: router-to-router latency in a group");
    generate->add_option("--local-bandwidth", g.local_bandwidth,
                         "dragonfly: router-to-router bandwidth in a group");
    generate->add_option("--global-latency", g.global_latency, "dragonfly: latency between groups");
    generate->add_option("--global-bandwidth", g.global_bandwidth,
                         "dragonfly: bandwidth between groups");

    RunFlags r;
    auto* run = app.add_subcommand("run", "Simulate an application on a cluster model");
    run->add_option("MODEL", r.model, "cluster model XML file")->required();
    run->add_option(
           "--app", r.app,
           "application, e.g. pingpong:size=1MiB,iterations=10, bcast:size=100MiB, ring:size=1MiB")
        ->required();
    run->add_option("--ranks", r.ranks, "number of MPI ranks (default: the app's minimum)");
    run->add_option("--placement", r.placement,
                    "round-robin, sequential, or map:FILE (lines: RANK NODE [SOCKET [CORE]])");
    run->add_option("--algorithm", r.algorithms,
                    "collective algorithm override, e.g. bcast=binomial (repeatable)");
    run->add_option("--network", r.network,
                    "network model: packet, cut-through or fluid (default: the model's)");
    run->add_option("--seed", r.seed, "seed of random choices (Valiant routing)");
    run->add_option("--cache", r.cache,
                    "cache layer (I/O scheduler) for every I/O server, replacing the model's: "
                    "none, write_behind, aggregation, reorder");
    run->add_flag("--json", r.json, "print one JSON object instead of the summary");
    run->add_flag("--per-rank", r.per_rank, "with --json: add per-rank results");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "clustersim: error: " << e.what() << " (see clustersim --help)\n";
        return kBadInput;
    }

    try {
        if (*validate) return cmd_validate(validate_model);
        if (*generate) return cmd_generate(g);
        if (*run) return cmd_run(r);
    } catch (const InputError& e) {
        std::cerr << "clustersim: error: " << e.what() << "\n";
        return kBadInput;
    } catch (const std::exception& e) {  // a bug, not the user's input: say so
        std::cerr << "clustersim: internal error: " << e.what() << " (please report it)\n";
        return 1;
    }
    return 0;
}

}  // namespace clustersim::cli
