#include "tools/trace_commands.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "import/import.hpp"
#include "models/comm_model.hpp"
#include "report/compare.hpp"
#include "report/outputs.hpp"
#include "report/recorder.hpp"
#include "report/stats.hpp"
#include "report/svg.hpp"
#include "report/timeline.hpp"
#include "run/model.hpp"
#include "simulator/error.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"
#include "tools/cli_util.hpp"
#include "tools/flag_values.hpp"
#include "tools/run_command.hpp"
#include "traces/goal.hpp"
#include "traces/merge.hpp"
#include "traces/otf2.hpp"
#include "traces/reader.hpp"
#include "traces/writer.hpp"

namespace clustersim::cli {

namespace fs = std::filesystem;

namespace {

void make_dir(const std::string& dir, const char* flag) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        throw InputError(flag, 0,
                         fmt::format("cannot create the directory '{}': {}", dir,
                                     ec ? ec.message() : "not a directory"));
}

std::uint64_t file_size(const std::string& path) {
    std::error_code ec;
    const auto n = fs::file_size(path, ec);
    return ec ? 0 : n;
}

// A trace given as a file, or as the folder a `run --out` wrote (its simulated.cstrace).
traces::Trace load(const std::string& path, const std::string& format, bool skip_unknown,
                   traces::ReadReport* out_report = nullptr) {
    std::string p = path;
    if (fs::is_directory(p) && fs::exists(fs::path(p) / "simulated.cstrace"))
        p = (fs::path(p) / "simulated.cstrace").string();
    traces::ReadOptions o;
    o.skip_unknown = skip_unknown;
    traces::ReadReport local;
    traces::ReadReport& report = out_report != nullptr ? *out_report : local;
    traces::Trace t = traces::load_trace(p, format, o, report);
    for (const auto& [kind, n] : report.skipped)
        std::cerr << fmt::format("clustersim: skipped {} '{}' record(s) of {}\n", n, kind, p);
    print_unmodeled(report, p);
    return t;
}

}  // namespace

std::string prepare_out_dir(const std::string& dir) {
    make_dir(dir, "--out");
    return (fs::path(dir) / ".operations.spill").string();
}

void write_outputs(const std::string& dir, const traces::RunLog& log,
                   const traces::Trace& simulated, bool print, traces::OpSpill* spill) {
    make_dir(dir, "--out");
    const fs::path d(dir);
    traces::Stats stats;
    if (spill != nullptr) {
        spill->finish();
        traces::write_timeline_sorted(
            log, spill->ranks(),
            [spill](mpi::OpEvent& e, Time& wait) { return spill->next(e, wait); },
            (d / "timeline.json").string());
        stats = spill->stats().finish(log);
    } else {
        traces::write_timeline(log, (d / "timeline.json").string());
        stats = traces::compute_stats(log);
    }
    const std::string summary = traces::format_stats(stats, log);
    std::string files;  // what the registered outputs write, in their order
    const traces::OutputContext context{d, log, simulated, stats, summary};
    for (const traces::RunOutputEntry& o : traces::run_outputs().entries()) {
        o.write(context);
        files += ", " + o.files;
    }
    if (!print) return;
    std::cout << "\n" << summary;
    std::cout << fmt::format(
        "\n  wrote {}: timeline.json (open in https://ui.perfetto.dev or chrome://tracing){}\n",
        dir, files);
}

namespace {

// --to goal: the collectives' expansion as a run with the same model and flags would run
// them (traces::GoalCollectives).
struct GoalExpansion {
    run::Model model;
    mpi::CollectiveRegistry registry;
    std::unique_ptr<mpi::Selection> selection;
    traces::GoalCollectives collectives;
};

void goal_expansion(const ConvertFlags& f, GoalExpansion& g) {
    if (!f.model.empty()) g.model = run::load_model(f.model);
    mpi::register_builtin_collectives(g.registry);
    const mpi::MpiSettings& s = g.model.mpi;
    g.selection = std::make_unique<mpi::Selection>(g.registry, s, f.model, f.algorithms, f.mpi);
    traces::GoalCollectives& c = g.collectives;
    c.selection = g.selection.get();
    c.notes.push_back(
        "collectives expanded into their algorithms' schedules (clustersim's own), one tag per "
        "call above the trace's tags; MPI_Comm_dup and MPI_Comm_split resolved into their "
        "members and not written (their synchronisation is not kept)");
    const mpi::ProfileProtocol protocol = mpi::profile_protocol(f.mpi.empty() ? s.profile : f.mpi);
    if (!protocol.reduction_work) {
        c.reduce = [](std::uint64_t) { return Time::zero(); };
        c.notes.push_back("reductions: calc 0 (the profile does no reduction work)");
    } else if (!s.reduce_curve.empty()) {
        c.reduce = [curve = comm::FittedCurve::from(s.reduce_curve)](std::uint64_t b) {
            return curve.time(b);
        };
        c.notes.push_back("reductions: calc from the model's <reduce-rate> curve");
    } else if (!s.reduce_bandwidth.infinite()) {
        c.reduce = [bw = s.reduce_bandwidth](std::uint64_t b) { return transfer_time(b, bw); };
        c.notes.push_back(fmt::format("reductions: calc at the model's reduce rate, {}",
                                      format_bandwidth(s.reduce_bandwidth)));
    } else if (!f.model.empty()) {
        // Instructions per byte on the core: one speed for every core, or the reduction's time
        // depends on where the rank runs (refused at the first reduction, if any).
        std::uint64_t speed = 0;
        bool mixed = false;
        for (const auto& node : g.model.topology.nodes)
            for (const auto& socket : node.sockets) {
                mixed = mixed || (speed != 0 && socket.speed != speed);
                speed = socket.speed;
            }
        const std::uint64_t ipb = s.reduce_instructions_per_byte;
        c.reduce = [speed, ipb, mixed, model = f.model](std::uint64_t b) {
            if (mixed)
                throw InputError(model, 0,
                                 "its cores differ in speed, so a reduction's time depends on "
                                 "the rank's core: give <collectives reduce-rate> to write the "
                                 "trace's reductions as calcs");
            return speed == 0 ? Time::zero() : compute_time(b * ipb, speed);
        };
        if (!mixed)
            c.notes.push_back(fmt::format(
                "reductions: calc of {} instruction(s) per byte at the model's {} cores", ipb,
                canonical_speed(speed)));
    } else {
        c.notes.push_back(
            "reductions: no calc (no --model to price them; a run charges them on the core)");
    }
    if (!s.copy_curve.empty()) {
        c.copy = [curve = comm::FittedCurve::from(s.copy_curve)](std::uint64_t b) {
            return curve.time(b);
        };
    } else if (!s.copy_bandwidth.infinite()) {
        c.copy = [bw = s.copy_bandwidth](std::uint64_t b) { return transfer_time(b, bw); };
    }
    c.buffer_copies = s.buffer_copies;
    c.barrier_cost = s.barrier_cost;
    if (s.buffer_footprint && !s.copy_curve.empty())
        c.notes.push_back(
            "own-block copies priced at their own size (a run with buffer-footprint prices them "
            "within the receive buffer)");
}

}  // namespace

int cmd_convert(const ConvertFlags& flags) {
    ConvertFlags f = flags;
    const std::string to = f.to.empty() ? traces::writer_for_output(f.output) : f.to;
    const traces::WriterEntry* writer = traces::trace_writers().find(to);
    if (writer == nullptr)  // before reading
        throw InputError("--to", 0,
                         fmt::format("'{}'{}: expected {}", to, did_you_mean(to, convert_formats()),
                                     traces::trace_writers().names()));
    // The model and flags, before reading: their values are checked (named with a
    // suggestion) whatever the output, then refused if it is not GOAL.
    const bool expansion_flags = !f.model.empty() || !f.mpi.empty() || !f.algorithms.empty();
    GoalExpansion goal;
    if (to == "goal" || expansion_flags) goal_expansion(f, goal);
    if (to != "goal" && expansion_flags)
        throw InputError(!f.model.empty() ? "--model"
                         : !f.mpi.empty() ? "--mpi"
                                          : "--algorithm",
                         0,
                         fmt::format("chooses how collectives are expanded into GOAL; the output "
                                     "is {}, which keeps them as they are",
                                     to));
    // An OTF2 archive is OUT.otf2 (its anchor), OUT.def and OUT/: `--to otf2 OUT` names them.
    if (!writer->required_extension.empty() &&
        fs::path(f.output).extension() != writer->required_extension)
        f.output += writer->required_extension;
    check_output_file("OUTPUT", f.output);
    traces::ReadReport report;
    const traces::Trace t = load(f.input, f.format, f.skip_unknown, &report);
    // GOAL's writer takes the collectives' expansion (the model and flags); every other
    // writer is the registry's.
    traces::GoalWriteReport goal_report;
    if (to == "goal")
        goal_report = traces::write_goal(t, f.output, goal.collectives);
    else
        writer->write(t, f.output);
    // The input's size: the file named, and every file it led the reader to (an index's or a
    // project's rank files), or all files of a folder.
    std::uint64_t in = 0;
    std::size_t in_files = 0;
    std::error_code ec;
    if (fs::is_directory(f.input, ec)) {
        for (const auto& e : fs::recursive_directory_iterator(f.input, ec))
            if (e.is_regular_file(ec)) in += file_size(e.path().string()), ++in_files;
    } else {
        in = file_size(f.input);
        in_files = 1;
        for (const std::string& p : report.inputs)
            if (!fs::equivalent(p, f.input, ec)) in += file_size(p), ++in_files;
    }
    const std::uint64_t out =
        writer->bytes_written ? writer->bytes_written(f.output) : file_size(f.output);
    std::cout << fmt::format(
        "converted {} ({}, {} ranks, {} records, {} in {} file{}) to {} ({} format, {})", f.input,
        t.format, t.ranks(), t.total_events(), format_size(in), in_files, in_files == 1 ? "" : "s",
        f.output, writer->name, format_size(out));
    if (in > 0 && out > 0)
        std::cout << fmt::format(": {:.2f}x the input's size",
                                 static_cast<double>(out) / static_cast<double>(in));
    std::cout << "\n";
    if (!goal_report.collectives.empty()) {
        std::string calls;
        for (const auto& [name, count] : goal_report.collectives)
            calls += fmt::format("{}{} x {}", calls.empty() ? "" : ", ", name, count);
        std::cout << fmt::format("  collectives expanded (calls per rank 0): {}\n", calls);
        for (const std::string& note : goal.collectives.notes) std::cout << "  " << note << "\n";
    }
    return 0;
}

std::string merged_trace_format(const std::string& output, const std::string& to) {
    if (to.empty()) {
        const std::string ext = fs::path(output).extension().string();
        return ext == ".txt" || ext == ".cstrace-text" ? "text" : "binary";
    }
    if (to != "text" && to != "binary")
        throw InputError(
            "--to", 0,
            fmt::format("'{}'{}: expected text or binary", to, did_you_mean(to, merged_formats())));
    return to;
}

int cmd_trace_merge(const MergeFlags& f) {
    check_output_file("--out", f.output);
    traces::MergeOptions o;
    o.name = f.name;
    if (!f.traced_speed.empty())
        o.traced_speed = flag_value("--traced-speed", f.traced_speed, parse_speed);
    const std::string to = merged_trace_format(f.output, f.to);
    traces::MergeReport rep;
    std::uint64_t records = 0;
    if (to == "text") {
        const traces::Trace t = traces::merge_rank_files(f.inputs, o, rep);
        traces::write_text(t, f.output);
        records = t.total_events();
    } else {  // streamed: memory bounded whatever the trace's length
        traces::merge_rank_files_to_binary(f.inputs, o, f.output, rep);
        records = rep.records;
    }
    const std::uint64_t out = file_size(f.output);
    std::uint64_t calls = 0;
    for (const auto& [name, n] : rep.calls) calls += n;
    std::uint64_t unmodeled = 0;
    for (const auto& [name, n] : rep.unmodeled) unmodeled += n;
    std::cout << fmt::format(
        "merged run {:016x} of {} ({} ranks on {}): {} MPI calls, {} "
        "records\n",
        rep.run_id, rep.program, rep.ranks,
        rep.hosts.empty() ? std::string("?") : rep.hosts.front(), with_commas(calls),
        with_commas(records));
    // Every recorded call by the name the program called it by (a Cart_sub is replayed as the
    // Comm_split it equals, and the trace names the record by what it replays as).
    std::cout << "  calls       ";
    for (const auto& [name, n] : rep.calls)
        std::cout << fmt::format(" {} x{}", name, with_commas(n));
    std::cout << (rep.calls.empty() ? " none\n" : "\n");
    std::cout << fmt::format("  rank files   {} in {} files\n", format_size(rep.raw_bytes),
                             rep.ranks);
    std::cout << fmt::format(
        "  trace        {} ({} format, {:.1f}x smaller)\n", f.output, to,
        out > 0 ? static_cast<double>(rep.raw_bytes) / static_cast<double>(out) : 0.0);
    std::cout << fmt::format(
        "  tracer       {} buffer writes, {} in all (kept out of the "
        "compute bursts)\n",
        rep.flushes, format_time(Time::ns(static_cast<std::int64_t>(rep.flush_ns))));
    if (rep.failed_polls.empty()) {
        std::cout << "  polls        no failed MPI_Test*/MPI_Iprobe/MPI_Improbe calls\n";
    } else {
        std::uint64_t polls = 0, poll_ns = 0;
        for (const auto& [name, p] : rep.failed_polls) polls += p.calls, poll_ns += p.ns;
        std::cout << fmt::format(
            "  polls        {} failed, {} (folded into the compute bursts):", with_commas(polls),
            format_time(Time::ns(static_cast<std::int64_t>(poll_ns))));
        for (const auto& [name, p] : rep.failed_polls)
            std::cout << fmt::format(" {} x{} {}", name, with_commas(p.calls),
                                     format_time(Time::ns(static_cast<std::int64_t>(p.ns))));
        std::cout << "\n";
    }
    if (!rep.local_queries.empty()) {
        std::uint64_t n = 0, ns = 0;
        for (const auto& [name, p] : rep.local_queries) n += p.calls, ns += p.ns;
        std::cout << fmt::format(
            "  local        {} queries, {} (folded into the compute bursts):", with_commas(n),
            format_time(Time::ns(static_cast<std::int64_t>(ns))));
        for (const auto& [name, p] : rep.local_queries)
            std::cout << fmt::format(" {} x{}", name, with_commas(p.calls));
        std::cout << "\n";
    }
    if (rep.cancelled_completions > 0)
        std::cout << fmt::format("  cancel       {} cancelled requests completed\n",
                                 rep.cancelled_completions);
    if (rep.waitalls_split > 0)
        std::cout << fmt::format(
            "  waitall      {} over non-contiguous requests written as "
            "waits\n",
            rep.waitalls_split);
    if (unmodeled == 0) {
        std::cout << "  unmodeled    none: every recorded call is simulated\n";
    } else {
        std::cout << fmt::format(
            "  unmodeled    {} calls, {} (replayed as CPU time):", with_commas(unmodeled),
            format_time(Time::ns(static_cast<std::int64_t>(rep.unmodeled_ns))));
        for (const auto& [name, n] : rep.unmodeled)
            std::cout << fmt::format(" {} x{}", name, with_commas(n));
        std::cout << "\n";
    }
    return 0;
}

int cmd_import(const ImportFlags& f) {
    traces::ImportResult r;
    if (!f.file_system.empty() && (f.kind != "piosimhd" || f.file_system != "pvfs2"))
        throw InputError("--file-system", 0,
                         fmt::format("'{}'{}: only 'import piosimhd' takes it, and only 'pvfs2'",
                                     f.file_system, did_you_mean(f.file_system, {"pvfs2"})));
    if (!f.mpi_channel.empty() && (f.kind != "piosimhd" || f.mpi_channel != "sock"))
        throw InputError("--mpi-channel", 0,
                         fmt::format("'{}'{}: only 'import piosimhd' takes it, and only 'sock'",
                                     f.mpi_channel, did_you_mean(f.mpi_channel, {"sock"})));
    const traces::ImporterEntry* importer = traces::importers().find(f.kind);
    if (importer == nullptr)
        throw InputError(
            "import", 0,
            fmt::format("'{}'{}: expected {}", f.kind, did_you_mean(f.kind, import_kinds()),
                        traces::importers().names()));
    r = importer->import(f.input, traces::ImportOptions{f.file_system, f.mpi_channel});
    check_written_model(r.xml, f.input);
    std::cout << r.xml;
    for (const auto& u : r.unmapped) std::cerr << "clustersim: import: " << u << "\n";
    if (!f.placement_out.empty()) {
        std::ofstream out(f.placement_out);
        if (!out) throw InputError(f.placement_out, 0, "cannot write the placement map");
        out << r.placement_map;
    }
    return 0;
}

namespace {
// A bar chart of comparison rows, recorded against simulated, in seconds.
void write_compare_bars(const fs::path& path, const std::string& title,
                        const std::vector<traces::CompareRow>& rows) {
    std::vector<std::string> names;
    std::vector<double> rec_s, sim_s;
    for (const auto& r : rows) {
        names.push_back(r.name);
        rec_s.push_back(r.recorded.seconds());
        sim_s.push_back(r.simulated.seconds());
    }
    std::ofstream svg(path);
    if (!svg) throw InputError(path.string(), 0, "cannot write the plot");
    svg << traces::svg_bar_chart(title, names, {{"recorded", rec_s}, {"simulated", sim_s}},
                                 "time (s)");
}
}  // namespace

int cmd_compare(const CompareFlags& f) {
    if (!f.out.empty()) prepare_output_dir("--out", f.out);
    // --timeline-window FROM,TO: checked before the traces are read.
    const char* window_flag = "--timeline-window";
    Time from, to;
    const bool windowed = !f.timeline_window.empty();
    if (windowed) {
        if (f.out.empty())
            throw InputError(window_flag, 0,
                             "needs --out (it sets the excerpt of "
                             "compare_timeline.svg)");
        const std::string& w = f.timeline_window;
        const std::size_t comma = w.find(',');
        if (comma == std::string::npos || w.find(',', comma + 1) != std::string::npos)
            throw InputError(
                window_flag, 0,
                fmt::format("'{}': expected FROM,TO (times with units, e.g. 0s,50ms)", w));
        from = flag_value(window_flag, w.substr(0, comma), parse_time);
        to = flag_value(window_flag, w.substr(comma + 1), parse_time);
        if (!(from < to))
            throw InputError(window_flag, 0, fmt::format("'{}': TO must be later than FROM", w));
    }
    const traces::Trace rec = load(f.recorded, f.format, f.skip_unknown);
    const traces::Trace sim = load(f.simulated, "auto", false);
    traces::TracerOverhead overhead;
    const traces::RunLog a = traces::run_log_from_trace(rec, rec.name + " (recorded)", &overhead);
    const traces::RunLog b = traces::run_log_from_trace(sim, sim.name + " (simulated)");
    if (a.ops.empty())
        throw InputError(f.recorded, 0, "the recorded trace has no times to compare with");
    if (b.ops.empty())
        throw InputError(f.simulated, 0, "the simulated trace has no times to compare with");
    Time last;  // the later run's end
    for (const traces::RunLog* log : {&a, &b}) {
        last = max(last, log->simulated);
        for (const auto& e : log->ops) last = max(last, e.end);
    }
    if (windowed && from >= last)
        throw InputError(window_flag, 0,
                         fmt::format("'{}' starts after both runs ended (at {})", f.timeline_window,
                                     format_time(last)));
    if (!windowed) {
        from = Time::zero();
        to = max(last, Time::ps(1));
    }
    // Two different programs (other rank counts, other calls) compare to nonsense errors
    // ("+3140193.0 %"): refused with the first difference.
    if (const std::string why = traces::program_mismatch(a, b); !why.empty())
        throw InputError(f.simulated, 0,
                         fmt::format("not a simulation of {}: {}; compare a recording with a "
                                     "replay of it (clustersim run MODEL --app trace:RECORDED "
                                     "--out DIR)",
                                     f.recorded, why));
    traces::Comparison c = traces::compare_runs(a, b);
    c.overhead_subtracted = overhead.total;
    c.overhead_bursts = overhead.bursts;
    nlohmann::json j = traces::comparison_json(c, f.by_size);
    j["recorded"] = {{"path", f.recorded}, {"format", rec.format}};
    j["simulated"] = {{"path", f.simulated}};
    if (f.json) {
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << fmt::format("clustersim compare: {} (recorded, {}) vs {} (simulated)\n",
                                 f.recorded, rec.format, f.simulated);
        std::cout << traces::format_comparison(c, 32, f.by_size);
    }
    if (!f.out.empty()) {
        make_dir(f.out, "--out");
        const fs::path d(f.out);
        traces::write_timelines({{"recorded", &a}, {"simulated", &b}},
                                (d / "compare_timeline.json").string());
        traces::write_comparison_csv(c, (d / "compare.csv").string(), f.by_size);
        std::ofstream(d / "compare.json") << j.dump(2) << "\n";
        // Where the ranks' time went (replayed, modelled, no record), and each rank's runtime,
        // recorded against simulated.
        write_compare_bars(
            d / "compare_split.svg",
            fmt::format("{}: where the ranks' time went, summed over ranks", rec.name), c.split);
        write_compare_bars(d / "compare_ranks.svg",
                           fmt::format("{}: recorded vs simulated time per rank", rec.name),
                           c.ranks);
        std::ofstream gantt(d / "compare_timeline.svg");
        if (!gantt)
            throw InputError((d / "compare_timeline.svg").string(), 0,
                             "cannot write the timeline picture");
        gantt << traces::svg_timelines(fmt::format("{}: recorded vs simulated timeline", rec.name),
                                       {{"recorded", &a}, {"simulated", &b}}, from, to);
        (f.json ? std::cerr : std::cout) << fmt::format(
            "\n  wrote {}: compare_timeline.json (both runs side by side), compare.json, "
            "compare.csv, compare_split.svg, compare_ranks.svg, compare_timeline.svg ({} "
            "\u2013 {})\n",
            f.out, from == Time::zero() ? std::string("0 s") : format_time(from), format_time(to));
    }
    return 0;
}

}  // namespace clustersim::cli
