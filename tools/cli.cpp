#include "tools/cli.hpp"

#include <cstdio>
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "iosys/file_system.hpp"
#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "tools/cli_util.hpp"
#include "tools/jitter_command.hpp"
#include "tools/run_command.hpp"
#include "tools/trace_commands.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/routing.hpp"
#include "topologies/summary.hpp"

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
                    "round-robin, sequential, or map:FILE (lines: RANK NODE [SOCKET [CORE]])");
    run->add_flag("--oversubscribe", r.oversubscribe,
                  "allow more ranks than cores (ranks then share cores)");
    run->add_option("--algorithm", r.algorithms,
                    "collective algorithm override, e.g. bcast=binomial, "
                    "bcast=pipeline:segment=64KiB, write_all=two_phase (repeatable)");
    run->add_option("--mpi", r.mpi,
                    "choose collective algorithms (and segment sizes) per call as an MPI "
                    "library's default decision rules do: openmpi-4.1, mpich-4 (--algorithm "
                    "still wins)");
    run->add_option("--network", r.network,
                    "network model: packet, cut-through, fluid, or an analytic communication "
                    "model: simple, bus_only, incoming_link_only, outgoing_link_only, "
                    "contention, pmac, with optional parameters, e.g. bus_only:buses=4 "
                    "(default: the model's)");
    run->add_option("--seed", r.seed, "seed of random choices (Valiant routing)");
    run->add_option("--cache", r.cache,
                    "cache layer (I/O scheduler) for every I/O server, replacing the model's: "
                    "none, write_behind, aggregation, reorder");
    run->add_option("--format", r.format,
                    "trace format of trace: apps: auto, native-text, native-binary, simgrid-ti, "
                    "hdtrace");
    run->add_flag("--skip-unknown", r.skip_unknown,
                  "skip trace records clustersim does not support (counted per kind) instead "
                  "of stopping");
    run->add_option("--traced-speed", r.traced_speed,
                    "instructions/s of a core of the traced machine (e.g. 2.8G): compute "
                    "times are projected by the ratio to the target cores (default: the "
                    "trace's, else times are kept)");
    run->add_option("--out", r.out,
                    "write the timeline (Chrome trace JSON), statistics (CSV, summary) and the "
                    "simulated trace to this folder");
    run->add_option("--timeline-detail", r.timeline_detail, "ranks (default) or hardware");
    run->add_flag("--json", r.json, "print one JSON object instead of the summary");
    run->add_flag("--per-rank", r.per_rank, "with --json: add per-rank results");

    ConvertFlags cv;
    auto* convert =
        app.add_subcommand("convert", "Convert a trace to the native text or binary format");
    convert->add_option("INPUT", cv.input, "trace (any readable format)")->required();
    convert->add_option("OUTPUT", cv.output, "file to write")->required();
    convert->add_option("--to", cv.to,
                        "text or binary (default: by OUTPUT's extension: .txt = text)");
    convert->add_option("--format", cv.format, "format of INPUT (default: auto)");
    convert->add_flag("--skip-unknown", cv.skip_unknown, "skip unsupported records");

    MergeFlags mf;
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

    ImportFlags im;
    auto* import = app.add_subcommand(
        "import",
        "Convert a PIOsimHD model or a SimGrid platform into a clustersim model (stdout)");
    import->add_option("KIND", im.kind, "piosimhd or simgrid")->required();
    import->add_option("FILE", im.input, "the model or platform XML")->required();
    import->add_option("--placement-out", im.placement_out,
                       "also write the source's process placement as a map file "
                       "(for run --placement map:FILE)");

    CompareFlags cf;
    auto* compare = app.add_subcommand(
        "compare", "Compare a recorded run (trace with times) with a simulated one");
    compare->add_option("RECORDED", cf.recorded, "trace with recorded times")->required();
    compare->add_option("SIMULATED", cf.simulated, "a run --out folder, or its simulated.cstrace")
        ->required();
    compare->add_option(
        "--out", cf.out,
        "write the side-by-side timelines (JSON and SVG), a CSV and a per-rank SVG bar chart here");
    compare->add_option("--format", cf.format, "format of RECORDED (default: auto)");
    compare->add_flag("--skip-unknown", cf.skip_unknown, "skip unsupported records");
    compare->add_option("--timeline-window", cf.timeline_window,
                        "FROM,TO: the excerpt compare_timeline.svg draws (e.g. 0s,50ms; "
                        "default: the whole run)");

    JitterCommands jc;
    add_jitter_commands(app, jc);

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
        if (*convert) return cmd_convert(cv);
        if (*import) return cmd_import(im);
        if (*merge) return cmd_trace_merge(mf);
        if (*compare) return cmd_compare(cf);
        if (int code = 0; run_jitter_commands(jc, code)) return code;
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
