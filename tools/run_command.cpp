#include "tools/run_command.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "collectives/apps.hpp"
#include "collectives/io_service.hpp"
#include "collectives/placement.hpp"
#include "collectives/rank_error.hpp"
#include "iosys/cache.hpp"
#include "iosys/file_system.hpp"
#include "iosys/ior.hpp"
#include "models/cpu.hpp"
#include "run/report.hpp"
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
    run::Model model = run::load_model(f.model);
    topo::Topology& t = model.topology;
    std::string network;  // --network as choose_network() accepted it
    if (!f.network.empty()) network = mpi::choose_network(model, f.network);
    // An analytic network model that times each collective call as a whole runs no algorithm:
    // say so rather than let --algorithm (and --mpi's choices) pass unused. Collective I/O
    // algorithms (write_all=two_phase) are the I/O system's and are used all the same.
    if (t.settings.model == topo::NetworkModel::Analytic && !model.comm.collectives_as_messages) {
        std::string unused;
        for (const auto& a : f.algorithms)
            if (!mpi::is_io_collective_name(a.substr(0, a.find('='))))
                unused += fmt::format("{}--algorithm {}", unused.empty() ? "" : ", ", a);
        if (!f.mpi.empty()) unused += fmt::format("{}--mpi {}", unused.empty() ? "" : ", ", f.mpi);
        if (!unused.empty())
            std::cerr << fmt::format(
                "clustersim: note: {} not used: the {} network model times each collective call "
                "as a whole; add collectives=messages to --network to simulate the algorithm\n",
                unused, model.comm.model);
    }
    std::optional<cpu::CpuModelId> cpu;  // --cpu, parsed once against the registry
    if (!f.cpu.empty()) cpu = select_flag("--cpu", cpu::cpu_models(), f.cpu);
    if (!f.cache.empty()) {
        if (model.io.servers.empty())
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
        for (auto& s : model.io.servers)
            if (s.cache.model != f.cache) s.cache = io::ComponentSpec{f.cache, {}, 0};
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
    // --ranks counts the built-in apps' ranks in their --app order; a trace brings its own, so
    // a --ranks beyond the built-in apps would be silently unused.
    const auto builtin_apps = static_cast<std::size_t>(
        std::count_if(f.apps.begin(), f.apps.end(),
                      [](const std::string& s) { return !s.starts_with("trace:"); }));
    // A bad --format is refused even when no trace is read; the trace flags with no trace:
    // app would pass unused: say so (as for --algorithm below).
    traces::check_trace_format(f.format);
    if (builtin_apps == f.apps.size()) {
        std::string unused;
        auto add = [&](const std::string& flag) {
            unused += fmt::format("{}{}", unused.empty() ? "" : ", ", flag);
        };
        if (f.format != "auto") add("--format " + f.format);
        if (f.skip_unknown) add("--skip-unknown");
        if (!f.traced_speed.empty()) add("--traced-speed " + f.traced_speed);
        if (!unused.empty())
            std::cerr << fmt::format("clustersim: note: {} not used: no --app is a trace: app\n",
                                     unused);
    }
    if (f.ranks.size() > builtin_apps)
        throw InputError(
            "--ranks", 0,
            fmt::format("given {} time{} for {} built-in app{}; a trace: app brings its own ranks",
                        f.ranks.size(), f.ranks.size() == 1 ? "" : "s", builtin_apps,
                        builtin_apps == 1 ? "" : "s"));
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
    options.network = network;
    options.cpu = cpu;
    options.io = io::io_factory(model.io, std::move(files));
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
        // The network model's own work, named as the summary names it.
        const std::string_view work_unit =
            model.topology.settings.model == topo::NetworkModel::Fluid      ? "rate recomputations"
            : model.topology.settings.model == topo::NetworkModel::Analytic ? ""
                                                                            : "packet hops";
        options.progress = [&, work_unit](std::uint64_t events, Time now,
                                          const net::NetworkStats& n, std::uint64_t running) {
            // Completed, not started: what the programs handed out less the operations the
            // ranks are still inside (a collective app's 256 operations were "100.0%" from
            // the first line, all of them started at once).
            const mpi::ProgramProgress p = multi.progress();
            progress.update(events, now, p.done - std::min<std::uint64_t>(p.done, running), p.total,
                            {n.messages_sent, n.messages_delivered, n.bytes_delivered,
                             n.packet_hops, work_unit});
        };
    }
    std::vector<net::Activity> link_activity, disk_activity;
    if (f.timeline_detail == "hardware") {
        if (f.out.empty())
            throw InputError("--timeline-detail", 0, "'hardware' needs --out (it is a timeline)");
        options.link_activity = &link_activity;
        options.disk_activity = &disk_activity;
    }
    // Errors of the program (a deadlock, a bad request handle) name the trace when there is one;
    // an error of one rank's operation names its trace and the record.
    auto simulate = [&] {
        try {
            return mpi::simulate(model, placement, *program, options);
        } catch (const mpi::RankError& e) {
            std::uint32_t r0 = 0;
            for (const auto& a : apps) {
                const auto rank = static_cast<std::uint32_t>(e.rank());
                if (rank >= r0 + a.ranks) {
                    r0 += a.ranks;
                    continue;
                }
                if (!a.replay) throw;
                const auto local = static_cast<std::int32_t>(rank - r0);
                const std::uint64_t record = a.replay->record_number(local);
                throw InputError(a.spec.substr(6), 0,
                                 fmt::format("{} (record {} of rank {})", e.message(),
                                             with_commas(record), local));
            }
            throw;
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
                t.settings.model == topo::NetworkModel::Fluid ? "fluid" : model.comm.model);
        auto& st = recorder->trace();
        st.name = apps.size() == 1 && apps[0].trace ? apps[0].trace->name : "simulated";
    }
    // Written after the summary so the statistics follow it on stdout.
    auto outputs = [&] {
        if (recorder)
            write_outputs(f.out, recorder->log(), recorder->trace(), !f.json, recorder->spill());
    };
    run::RunReport report;
    report.model = f.model;
    report.apps = f.apps;
    for (const auto& a : apps)
        report.app_line += (report.app_line.empty() ? "" : " + ") +
                           (a.trace ? fmt::format("{} ({} ranks, {} events)", a.spec, a.ranks,
                                                  with_commas(a.trace->total_events()))
                                    : a.spec);
    report.ranks = ranks;
    report.placement = f.placement;
    report.network = f.network;
    report.loaded = &model;
    report.result = &res;
    for (const auto& a : apps)
        if (a.app)
            for (mpi::AppResult& x : a.app->summarize(res.simulated))
                report.summary.push_back(std::move(x));
    report.model_load_s = load_s;
    report.peak_memory_bytes = peak_memory_bytes();
    if (f.json) {
        std::cout << run::render_json(report, f.per_rank).dump(2) << "\n";
        outputs();
        return 0;
    }
    run::render_text(report, std::cout);
    outputs();
    return 0;
}

}  // namespace clustersim::cli
