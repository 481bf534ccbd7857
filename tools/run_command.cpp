#include "tools/run_command.hpp"

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report/recorder.hpp"
#include "run/execute.hpp"
#include "run/network_models.hpp"
#include "run/report.hpp"
#include "simulator/error.hpp"
#include "simulator/memory.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"
#include "tools/cli.hpp"
#include "tools/cli_util.hpp"
#include "tools/flag_values.hpp"
#include "tools/progress.hpp"
#include "tools/trace_commands.hpp"
#include "traces/trace_source.hpp"

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

namespace {

// `run --out`: the recorded run's log named after its programs and placement, with the
// hardware tracks of --timeline-detail hardware.
void label_recording(traces::Recorder& recorder, const run::RunOutcome& o, const RunFlags& f) {
    const topo::Topology& t = o.model.topology;
    const auto& programs = o.setup.programs;
    auto& log = recorder.log();
    log.title =
        fmt::format("{} on {} (simulated)", programs.size() == 1 ? f.apps[0] : "apps", t.name);
    std::uint32_t r0 = 0;
    for (const auto& p : programs) {
        const std::string name = p->name();
        for (std::uint32_t r = 0; r < p->ranks(); ++r) {
            log.ranks[r0 + r].app = name;
            log.ranks[r0 + r].app_rank = static_cast<std::int32_t>(r);
            log.ranks[r0 + r].node = t.nodes[o.setup.placement[r0 + r].node].name;
        }
        r0 += p->ranks();
    }
    for (const auto& a : o.link_activity)
        log.hardware.push_back(
            traces::HardwareSpan{fmt::format("link {}->{}", t.vertex(t.source_of(a.track)).name,
                                             t.vertex(t.target_of(a.track)).name),
                                 a.start, a.end, format_size(a.bytes)});
    const auto& servers = o.result.io.servers;
    for (const auto& a : o.disk_activity)
        log.hardware.push_back(traces::HardwareSpan{
            fmt::format("disk {}",
                        a.track < servers.size() ? servers[a.track].node : std::to_string(a.track)),
            a.start, a.end, format_size(a.bytes)});
    if (f.timeline_detail == "hardware" &&
        !run::capabilities_of(t.settings, o.model.comm, f.network).link_activity)
        std::cerr << fmt::format(
            "clustersim: note: the {} network model keeps no per-link "
            "intervals; the timeline has disk tracks only\n",
            f.network.empty() ? run::network_model_of(t.settings, o.model.comm)
                              : f.network.substr(0, f.network.find(':')));
    // One program read from an input (a trace) lends the simulated trace its name.
    recorder.trace().name =
        programs.size() == 1 && !programs[0]->input().empty() ? programs[0]->name() : "simulated";
}

}  // namespace

namespace {

// When the process started, near enough: this library's static initialisation, before main().
const std::chrono::steady_clock::time_point g_process_start = std::chrono::steady_clock::now();
bool g_exit_without_teardown = false;

double seconds_from(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

void set_exit_without_teardown(bool on) {
    g_exit_without_teardown = on;
}

int cmd_run(const RunFlags& f) {
    const double start_s = seconds_from(g_process_start);
    // Outputs first: a bad --out must not cost the run.
    if (!f.out.empty()) prepare_output_dir("--out", f.out);
    if (f.progress && f.quiet)
        throw InputError("--progress", 0, "--progress and --quiet contradict each other");
    const double progress_interval =
        flag_value("--progress-interval", f.progress_interval, parse_time).seconds();
    if (f.timeline_detail != "ranks" && f.timeline_detail != "hardware")
        throw InputError("--timeline-detail", 0,
                         fmt::format("'{}'{}: expected ranks or hardware", f.timeline_detail,
                                     did_you_mean(f.timeline_detail, timeline_details())));
    if (f.timeline_detail == "hardware" && f.out.empty())
        throw InputError("--timeline-detail", 0, "'hardware' needs --out (it is a timeline)");
    run::RunSpec spec;
    spec.model_path = f.model;
    spec.apps = f.apps;
    spec.ranks = f.ranks;
    spec.placement = f.placement;
    spec.oversubscribe = f.oversubscribe;
    spec.network = f.network;
    spec.cpu = f.cpu;
    spec.cache = f.cache;
    spec.algorithms = f.algorithms;
    spec.mpi = f.mpi;
    spec.seed = f.seed;
    spec.source.format = f.format;
    spec.source.skip_unknown = f.skip_unknown;
    spec.source.traced_speed_text = f.traced_speed;
    if (!f.traced_speed.empty())
        spec.source.traced_speed = flag_value("--traced-speed", f.traced_speed, parse_speed);
    spec.hardware_activity = f.timeline_detail == "hardware";
    spec.leave_state_to_exit = g_exit_without_teardown;
    run::canonicalize_names(spec);

    run::Sources sources;
    run::add_app_source(sources);
    traces::add_trace_sources(sources);
    run::RunHooks hooks;
    hooks.notes = &std::cerr;
    std::unique_ptr<traces::Recorder> recorder;
    if (!f.out.empty())
        hooks.wrap = [&](mpi::Program& program, const run::RunSetup& setup,
                         mpi::OpObserver*& observer) -> mpi::Program* {
            recorder = std::make_unique<traces::Recorder>(program, setup.ranks, true,
                                                          prepare_out_dir(f.out));
            observer = recorder.get();
            return recorder.get();
        };
    // The progress line (tools/progress.hpp): records of traces, operations of built-in apps.
    std::optional<ProgressLine> progress;
    const ProgressMode mode = f.quiet      ? ProgressMode::Quiet
                              : f.progress ? ProgressMode::Periodic
                                           : ProgressMode::Auto;
    if (mode != ProgressMode::Quiet) {
        hooks.placed = [&](const run::RunSetup& setup, const run::Model& model) {
            progress.emplace(mode, progress_interval, ::isatty(2) != 0, std::cerr, setup.unit);
            // What the run simulates, before its first progress line.
            std::ostringstream header;
            run::render_header(f.model, model, run::describe_programs(setup), setup.ranks,
                               spec.placement, setup.placement, header);
            progress->set_header(header.str());
        };
        hooks.progress = [&](const run::RunProgress& p) {
            progress->update(p.events, p.simulated, p.done, p.total,
                             {p.network->messages_sent, p.network->messages_delivered,
                              p.network->bytes_delivered, p.network->packet_hops, p.work_unit});
        };
    }
    auto outcome = std::make_unique<const run::RunOutcome>(run::execute(spec, sources, hooks));
    if (progress) progress->finish();
    const auto t_report = std::chrono::steady_clock::now();
    if (recorder) label_recording(*recorder, *outcome, f);
    run::RunReport report = run::make_report(spec, *outcome);
    report.phases.start_s = start_s;
    for (const std::string& w : report.warnings) std::cerr << "clustersim: warning: " << w << "\n";
    report.phases.report_s = seconds_from(t_report);
    if (f.json) {
        // The outputs before the JSON, so that it times them too (nothing of them goes to
        // stdout with --json).
        const auto t_outputs = std::chrono::steady_clock::now();
        if (recorder)
            write_outputs(f.out, recorder->log(), recorder->trace(), false, recorder->spill());
        report.phases.outputs_s = seconds_from(t_outputs);
        const auto t_json = std::chrono::steady_clock::now();
        report.peak_memory_bytes = peak_memory_bytes();
        nlohmann::json j = run::render_json(report, f.per_rank);
        report.phases.report_s += seconds_from(t_json);
        j["phases_s"]["report"] = report.phases.report_s;
        j["phases_s"]["total"] = report.phases.total_s();
        std::cout << j.dump(2) << "\n";
    } else {
        report.peak_memory_bytes = peak_memory_bytes();
        run::render_text(report, std::cout);
        // Written after the summary so the statistics follow it on stdout.
        if (recorder)
            write_outputs(f.out, recorder->log(), recorder->trace(), true, recorder->spill());
    }
    if (g_exit_without_teardown) {
        // The process ends next: the kernel takes its memory back at once, where freeing a
        // million ranks' state piece by piece took seconds.
        std::cout.flush();
        // The recorder is freed: its destructor removes --out's scratch file.
        (void)outcome.release();
    }
    return 0;
}

}  // namespace clustersim::cli
