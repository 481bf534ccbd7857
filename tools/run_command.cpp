#include "tools/run_command.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "collectives/apps.hpp"
#include "collectives/placement.hpp"
#include "iosys/cache.hpp"
#include "iosys/file_system.hpp"
#include "iosys/ior.hpp"
#include "run/simulation.hpp"
#include "simulator/error.hpp"
#include "simulator/memory.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"
#include "tools/cli_util.hpp"
#include "tools/progress.hpp"
#include "tools/trace_commands.hpp"
#include "topologies/model_xml.hpp"
#include "traces/jitter_io.hpp"
#include "traces/reader.hpp"
#include "traces/recorder.hpp"
#include "traces/replay.hpp"

namespace clustersim::cli {
namespace {

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
    // Columns as wide as their widest entry (node names can be long: "PVS-Node_11").
    std::size_t wn = 6, wc = 5, wd = 4;
    for (const auto& s : io.servers)
        wn = std::max(wn, s.node.size()), wc = std::max(wc, s.cache.size()),
        wd = std::max(wd, s.disk.size());
    std::cout << fmt::format("\n  {:<{}}  {:<{}}  {:<{}}  {:>10}  {:>10}  {:>10}  {:>19}  {:>10}\n",
                             "server", wn, "cache", wc, "disk", wd, "received", "sent", "disk busy",
                             "seeks (track/avg)", "cache hits");
    for (const auto& s : io.servers)
        std::cout << fmt::format(
            "  {:<{}}  {:<{}}  {:<{}}  {:>10}  {:>10}  {:>10}  {:>19}  {:>10}\n", s.node, wn,
            s.cache, wc, s.disk, wd, format_size(s.bytes_written), format_size(s.bytes_read),
            format_time(s.disk_busy),
            fmt::format("{}/{}", with_commas(s.track_seeks), with_commas(s.average_seeks)),
            with_commas(s.cache_hits));
}

}  // namespace

void prepare_output_dir(const std::string& flag, const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        throw InputError(flag, 0, fmt::format("'{}' is a file, not a folder", dir));
    fs::create_directories(dir, ec);
    if (ec)
        throw InputError(flag, 0, fmt::format("cannot make folder '{}': {}", dir, ec.message()));
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw InputError(flag, 0,
                         fmt::format("cannot write in '{}': {}", dir, std::strerror(errno)));
}

void check_output_file(const std::string& flag, const std::string& file) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(file, ec))
        throw InputError(flag, 0, fmt::format("'{}' is a folder, not a file", file));
    fs::path parent = fs::path(file).parent_path();
    if (parent.empty()) parent = ".";
    if (!fs::is_directory(parent, ec))
        throw InputError(flag, 0,
                         fmt::format("folder '{}' of '{}' does not exist", parent.string(), file));
    if (::access(parent.c_str(), W_OK | X_OK) != 0 ||
        (fs::exists(file, ec) && ::access(file.c_str(), W_OK) != 0))
        throw InputError(flag, 0, fmt::format("cannot write '{}': {}", file, std::strerror(errno)));
}

int cmd_run(const RunFlags& f) {
    // Outputs first: a bad --out must not cost the run.
    if (!f.out.empty()) prepare_output_dir("--out", f.out);
    if (f.progress && f.quiet)
        throw InputError("--progress", 0, "--progress and --quiet contradict each other");
    const double progress_interval =
        flag_value("--progress-interval", f.progress_interval, parse_time).seconds();
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
            throw InputError("--cache", 0,
                             fmt::format("unknown cache layer '{}'{}; valid: {}", f.cache,
                                         did_you_mean(f.cache, split_names(caches.names_list())),
                                         caches.names_list()));
        // Keep the model's parameters when the layer stays the same kind; a new kind gets
        // its defaults (the server node's memory for write_behind).
        for (auto& s : t.io.servers)
            if (s.cache.model != f.cache) s.cache = topo::ComponentSpec{f.cache, {}, 0};
    }
    const double load_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_load).count();
    // The applications: built-in apps and traces, each with its own ranks.
    mpi::AppRegistry registry;
    mpi::register_builtin_apps(registry);
    io::register_io_apps(registry);
    struct AppRun {
        std::string spec;
        std::unique_ptr<mpi::App> app;         // a built-in app
        std::unique_ptr<traces::Trace> trace;  // or a trace
        std::unique_ptr<traces::TraceProgram> replay;
        std::uint32_t ranks = 0;
    };
    std::vector<AppRun> apps;
    std::vector<io::FileDecl> files;
    std::size_t builtin = 0;
    std::uint64_t traced_speed = 0;
    if (!f.traced_speed.empty())
        traced_speed = flag_value("--traced-speed", f.traced_speed, parse_speed);
    if (f.ranks.size() > f.apps.size())
        throw InputError("--ranks", 0,
                         fmt::format("given {} times for {} --app", f.ranks.size(), f.apps.size()));
    for (const auto& spec : f.apps) {
        AppRun a;
        a.spec = spec;
        if (spec.rfind("trace:", 0) == 0) {
            traces::ReadOptions ro;
            ro.skip_unknown = f.skip_unknown;
            traces::ReadReport report;
            a.trace = std::make_unique<traces::Trace>(
                traces::load_trace(spec.substr(6), f.format, ro, report));
            for (const auto& [kind, n] : report.skipped)
                std::cerr << fmt::format("clustersim: skipped {} '{}' record(s) of {}\n", n, kind,
                                         spec.substr(6));
            print_unmodeled(report, spec.substr(6));
            a.ranks = a.trace->ranks();
            if (a.ranks == 0) throw InputError(spec.substr(6), 0, "the trace has no ranks");
            for (const auto& d : a.trace->files) files.push_back(d);
        } else {
            if (builtin < f.ranks.size() && f.ranks[builtin] == 0)
                throw InputError("--ranks", 0,
                                 fmt::format("0 ranks for '{}'; expected at least 1 (leave "
                                             "--ranks out for the app's minimum, {})",
                                             spec, registry.min_ranks(spec)));
            if (builtin < f.ranks.size() && f.ranks[builtin] > traces::kMaxRanks)
                throw InputError("--ranks", 0,
                                 fmt::format("{} ranks for '{}'; at most {} ranks in a run "
                                             "(docs/limits.md)",
                                             f.ranks[builtin], spec, traces::kMaxRanks));
            a.ranks = builtin < f.ranks.size() ? f.ranks[builtin] : registry.min_ranks(spec);
            a.app = registry.create(spec, a.ranks);
            if (const auto* io_app = dynamic_cast<const io::IoApp*>(a.app.get()))
                for (const auto& d : io_app->files()) files.push_back(d);
            ++builtin;
        }
        apps.push_back(std::move(a));
    }
    std::uint64_t all_ranks = 0;  // 64 bits: a sum of --ranks never wraps to a small number
    for (const auto& a : apps) all_ranks += a.ranks;
    if (all_ranks > traces::kMaxRanks)
        throw InputError(f.ranks.empty() ? "--app" : "--ranks", 0,
                         fmt::format("{} ranks in all; at most {} ranks in a run (docs/limits.md)",
                                     all_ranks, traces::kMaxRanks));
    const auto ranks = static_cast<std::uint32_t>(all_ranks);
    // A rank costs about 2.75 KiB in the runtime at the peak of a barrier (259 MiB for
    // 100,000 ranks, 2.71 GiB for 1,048,576 on this machine): refuse before allocating rather
    // than die of std::bad_alloc half-way.
    constexpr std::uint64_t kBytesPerRank = 2816;
    const auto pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 &&
        all_ranks * kBytesPerRank >
            static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page))
        throw InputError(f.ranks.empty() ? "--app" : "--ranks", 0,
                         fmt::format("{} ranks need about {} (2.75 KiB per rank) but this machine "
                                     "has {} of memory (docs/limits.md)",
                                     all_ranks, format_size(all_ranks * kBytesPerRank),
                                     format_size(static_cast<std::uint64_t>(pages) *
                                                 static_cast<std::uint64_t>(page))));
    std::uint64_t cores = 0;
    for (const auto& n : t.nodes)
        for (const auto& s : n.sockets) cores += s.cores;
    if (ranks > cores && !f.oversubscribe)
        throw InputError("--placement", 0,
                         fmt::format("{} ranks need {} cores but the model has {}; pass "
                                     "--oversubscribe to let ranks share cores",
                                     ranks, ranks, cores));
    const auto placement = mpi::place_ranks(t, ranks, f.placement);
    // Programs: traces replay with the target cores' speeds.
    traces::MultiProgram multi;
    std::uint32_t first = 0;
    for (auto& a : apps) {
        if (a.trace) {
            std::vector<std::uint64_t> speed(a.ranks);
            for (std::uint32_t r = 0; r < a.ranks; ++r) {
                const auto& loc = placement[first + r];
                speed[r] = t.nodes[loc.node].sockets[loc.socket].speed;
            }
            a.replay =
                std::make_unique<traces::TraceProgram>(*a.trace, std::move(speed), traced_speed);
            multi.add(*a.replay, a.ranks);
        } else {
            std::vector<std::uint64_t> speed(a.ranks);
            for (std::uint32_t r = 0; r < a.ranks; ++r) {
                const auto& loc = placement[first + r];
                speed[r] = t.nodes[loc.node].sockets[loc.socket].speed;
            }
            a.app->set_core_speeds(speed);
            multi.add(*a.app, a.ranks);
        }
        first += a.ranks;
    }
    mpi::SimulationOptions options;
    options.algorithm_overrides = f.algorithms;
    options.mpi_profile = f.mpi;
    options.seed = f.seed;
    options.io = io::io_factory(std::move(files));
    options.jitter_loader = [](const std::string& path, double frequency_hz) {
        return traces::read_jitter_trace(path, traces::JitterFormat::Auto, frequency_hz);
    };
    if (apps.size() > 1) options.app_sizes = multi.sizes();
    std::unique_ptr<traces::Recorder> recorder;
    mpi::Program* program = &multi;
    if (!f.out.empty()) {
        recorder = std::make_unique<traces::Recorder>(multi, ranks, true, prepare_out_dir(f.out));
        options.observer = recorder.get();
        program = recorder.get();
    }
    if (f.timeline_detail != "ranks" && f.timeline_detail != "hardware")
        throw InputError("--timeline-detail", 0,
                         fmt::format("'{}': expected ranks or hardware", f.timeline_detail));
    // The progress line (tools/progress.hpp): records of traces, operations of built-in apps.
    bool any_trace = false, any_app = false;
    for (const auto& a : apps) (a.trace ? any_trace : any_app) = true;
    ProgressLine progress(f.quiet      ? ProgressMode::Quiet
                          : f.progress ? ProgressMode::Periodic
                                       : ProgressMode::Auto,
                          progress_interval, ::isatty(2) != 0, std::cerr,
                          any_trace && any_app ? "records and operations"
                          : any_trace          ? "records"
                                               : "operations");
    if (progress.active()) {
        options.progress = [&](std::uint64_t events, Time now) {
            const mpi::ProgramProgress p = multi.progress();
            progress.update(events, now, p.done, p.total);
        };
    }
    std::vector<net::Activity> link_activity, disk_activity;
    if (f.timeline_detail == "hardware") {
        if (f.out.empty())
            throw InputError("--timeline-detail", 0, "'hardware' needs --out (it is a timeline)");
        options.link_activity = &link_activity;
        options.disk_activity = &disk_activity;
    }
    // Errors of the program (a deadlock, a bad request handle) name the trace when there is one.
    auto simulate = [&] {
        try {
            return mpi::simulate(t, placement, *program, options);
        } catch (const InputError& e) {
            if (e.file() != "app") throw;
            std::string where;
            for (const auto& a : apps)
                if (a.trace) where += (where.empty() ? "" : ", ") + a.spec.substr(6);
            if (where.empty()) throw;
            throw InputError(where, 0, e.message());
        }
    };
    const mpi::SimulationResult res = simulate();
    progress.finish();
    if (recorder) {
        auto& log = recorder->log();
        log.title =
            fmt::format("{} on {} (simulated)", apps.size() == 1 ? apps[0].spec : "apps", t.name);
        std::uint32_t r0 = 0;
        for (const auto& a : apps) {
            const std::string name = a.trace ? a.trace->name : a.spec;
            for (std::uint32_t r = 0; r < a.ranks; ++r) {
                log.ranks[r0 + r].app = name;
                log.ranks[r0 + r].app_rank = static_cast<std::int32_t>(r);
                log.ranks[r0 + r].node = t.nodes[placement[r0 + r].node].name;
            }
            r0 += a.ranks;
        }
        for (const auto& a : link_activity)
            log.hardware.push_back(
                traces::HardwareSpan{fmt::format("link {}->{}", t.vertex(t.source_of(a.track)).name,
                                                 t.vertex(t.target_of(a.track)).name),
                                     a.start, a.end, format_size(a.bytes)});
        for (const auto& a : disk_activity)
            log.hardware.push_back(
                traces::HardwareSpan{fmt::format("disk {}", a.track < res.io.servers.size()
                                                                ? res.io.servers[a.track].node
                                                                : std::to_string(a.track)),
                                     a.start, a.end, format_size(a.bytes)});
        if (f.timeline_detail == "hardware" && t.settings.model != topo::NetworkModel::Packet)
            std::cerr << fmt::format(
                "clustersim: note: the {} network model keeps no per-link "
                "intervals; the timeline has disk tracks only\n",
                t.settings.model == topo::NetworkModel::Fluid ? "fluid" : t.comm.model);
        auto& st = recorder->trace();
        st.name = apps.size() == 1 && apps[0].trace ? apps[0].trace->name : "simulated";
    }
    // Written after the summary so the statistics follow it on stdout.
    auto outputs = [&] {
        if (recorder)
            write_outputs(f.out, recorder->log(), recorder->trace(), !f.json, recorder->spill());
    };
    const std::uint64_t peak = peak_memory_bytes();
    const double eps =
        res.wall_seconds > 0 ? static_cast<double>(res.events) / res.wall_seconds : 0.0;

    if (f.json) {
        nlohmann::json j;
        j["model"] = f.model;
        j["app"] = f.apps.size() == 1 ? nlohmann::json(f.apps[0]) : nlohmann::json(f.apps);
        j["ranks"] = ranks;
        j["placement"] = f.placement;
        j["simulated_time_s"] = res.simulated.seconds();
        j["simulated_time_ps"] = res.simulated.ps();
        j["events"] = res.events;
        j["wall_time_s"] = res.wall_seconds;
        j["model_load_s"] = load_s;
        j["events_per_s"] = eps;
        j["peak_memory_bytes"] = peak;
        // The --network value as given, else the model's: "packet", "fluid", or the analytic
        // model's name ("bus_only").
        const std::string model_name = !f.network.empty() ? f.network
                                       : t.settings.model == topo::NetworkModel::Analytic
                                           ? t.comm.model
                                           : std::string(topo::to_string(t.settings.model));
        j["network"] = {{"model", model_name},
                        {"messages", res.network.messages_delivered},
                        {"bytes_sent", res.network.bytes_sent},
                        {"bytes_delivered", res.network.bytes_delivered},
                        {"messages_waited", res.network.messages_waited},
                        {"resource_wait_s", res.network.resource_wait.seconds()}};
        // What the model moved: packets and their link traversals (packet model), or flows
        // and the times their rates were solved (fluid model).
        if (t.settings.model == topo::NetworkModel::Fluid) {
            j["network"]["flows"] = res.network.packets;
            j["network"]["rate_recomputations"] = res.network.packet_hops;
        } else if (t.settings.model == topo::NetworkModel::Packet) {
            j["network"]["packets"] = res.network.packets;
            j["network"]["packet_hops"] = res.network.packet_hops;
        }
        nlohmann::json ops = nlohmann::json::object();
        const auto totals = op_totals(res);
        for (int k = 0; k < mpi::kStatKinds; ++k) {
            if (totals[k].count == 0) continue;
            ops[mpi::stat_name(k)] = {{"count", totals[k].count},
                                      {"time_s", totals[k].time.seconds()},
                                      {"bytes", totals[k].bytes}};
        }
        j["operations"] = ops;
        // Which algorithm each collective call ran: "bcast/binomial" -> calls.
        nlohmann::json algs = nlohmann::json::object();
        for (const auto& [name, calls] : res.algorithms) algs[name] = calls;
        j["collective_algorithms"] = algs;
        nlohmann::json summary = nlohmann::json::object();
        for (const auto& a : apps)
            if (a.app)
                for (const mpi::AppResult& x : a.app->summarize(res.simulated))
                    summary[x.key] = x.value;
        j["app_summary"] = summary;
        if (res.has_io) j["io"] = io_json(res.io);
        if (!t.jitter.empty()) {
            Time sum, most;
            for (const auto& r : res.ranks) sum += r.jitter, most = max(most, r.jitter);
            j["jitter"] = {{"total_s", sum.seconds()}, {"max_per_rank_s", most.seconds()}};
        }
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
                              {"bytes_received", res.ranks[r].bytes_received},
                              {"jitter_s", res.ranks[r].jitter.seconds()}});
            }
            j["per_rank"] = pr;
        }
        std::cout << j.dump(2) << "\n";
        outputs();
        return 0;
    }

    std::string app_list;
    for (const auto& a : apps)
        app_list += (app_list.empty() ? "" : " + ") +
                    (a.trace ? fmt::format("{} ({} ranks, {} events)", a.spec, a.ranks,
                                           with_commas(a.trace->total_events()))
                             : a.spec);
    std::cout << fmt::format("clustersim run: model {} ({} nodes), app {}\n", f.model,
                             t.nodes.size(), app_list);
    std::cout << fmt::format("  {} ranks placed {}", ranks, f.placement);
    const std::size_t show = std::min<std::size_t>(res.placement.size(), 4);
    for (std::size_t r = 0; r < show; ++r) {
        const auto& loc = res.placement[r];
        std::cout << fmt::format("{} rank {} on {} socket {} core {}", r == 0 ? ":" : ",", r,
                                 t.nodes[loc.node].name, loc.socket, loc.core);
    }
    std::cout << (res.placement.size() > show ? ", ...\n" : "\n");
    std::cout << fmt::format("\n  simulated time     {}\n", format_time(res.simulated));
    for (const auto& a : apps)
        if (a.app)
            for (const mpi::AppResult& x : a.app->summarize(res.simulated))
                std::cout << fmt::format("  {:<18} {}\n", x.label, x.text);
    if (t.settings.model == topo::NetworkModel::Analytic) {
        std::cout << fmt::format("  network model      {} (analytic{})\n", t.comm.model,
                                 t.comm.collectives_as_messages ? ", collectives as messages"
                                                                : ", collectives timed as a whole");
        std::cout << fmt::format(
            "  messages           {} ({} delivered; {} waited for a bus or link, {} in all)\n",
            with_commas(res.network.messages_delivered), format_size(res.network.bytes_delivered),
            with_commas(res.network.messages_waited), format_time(res.network.resource_wait));
    } else if (t.settings.model == topo::NetworkModel::Fluid) {
        std::cout << fmt::format(
            "  messages           {} ({} delivered in {} flows, {} rate recomputations)\n",
            with_commas(res.network.messages_delivered), format_size(res.network.bytes_delivered),
            with_commas(res.network.packets), with_commas(res.network.packet_hops));
    } else {
        std::cout << fmt::format(
            "  messages           {} ({} delivered in {} packets, {} packet hops)\n",
            with_commas(res.network.messages_delivered), format_size(res.network.bytes_delivered),
            with_commas(res.network.packets), with_commas(res.network.packet_hops));
    }
    if (!t.jitter.empty()) {
        // OS jitter met by the ranks' CPU work (the model's <jitter> elements).
        Time sum, most;
        std::size_t worst = 0;
        for (std::size_t r = 0; r < res.ranks.size(); ++r) {
            sum += res.ranks[r].jitter;
            if (res.ranks[r].jitter > most) most = res.ranks[r].jitter, worst = r;
        }
        const Time mean = res.ranks.empty()
                              ? Time::zero()
                              : Time::ps(sum.ps() / static_cast<std::int64_t>(res.ranks.size()));
        std::cout << fmt::format(
            "  OS jitter          {} per rank on average, at most {} (rank {})\n",
            format_time(mean), format_time(most), worst);
    }
    if (res.has_io) print_io(res.io);
    const auto totals = op_totals(res);
    std::size_t wop = 14;  // "operation" column: as wide as the longest name shown
    for (int k = 0; k < mpi::kStatKinds; ++k)
        if (totals[k].count > 0) wop = std::max(wop, std::string(mpi::stat_name(k)).size());
    std::cout << fmt::format("\n  {:<{}} {:>9}   {:>21}   bytes\n", "operation", wop, "count",
                             "time (sum over ranks)");
    for (int k = 0; k < mpi::kStatKinds; ++k) {
        const mpi::OpStats& total = totals[k];
        if (total.count == 0) continue;
        std::cout << fmt::format("  {:<{}} {:>9}   {:>21}   {}\n", mpi::stat_name(k), wop,
                                 with_commas(total.count), format_time(total.time),
                                 format_size(total.bytes));
    }
    if (!res.algorithms.empty()) {
        std::cout << "\n  collective algorithm          calls\n";
        for (const auto& [name, calls] : res.algorithms)
            std::cout << fmt::format("  {:<28} {:>6}\n", name, with_commas(calls));
    }
    std::cout << fmt::format(
        "\n  simulator: {} events in {:.3f} s wall ({:.1f} M events/s), model load {:.3f} s, "
        "peak memory {}\n",
        with_commas(res.events), res.wall_seconds, eps / 1e6, load_s, format_size(peak));
    outputs();
    return 0;
}

}  // namespace clustersim::cli
