#include "tools/jitter_command.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "models/jitsim.hpp"
#include "models/jitter.hpp"
#include "models/noise_gen.hpp"
#include "models/noise_max.hpp"
#include "report/svg.hpp"
#include "simulator/error.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"
#include "tools/cli_util.hpp"
#include "tools/flag_values.hpp"
#include "tools/whole_number.hpp"
#include "traces/distributions.hpp"
#include "traces/jitter_io.hpp"

#include "tools/jitter_util.hpp"

namespace clustersim::cli {

namespace jitter_cli {

// ---- max_of_distributions --------------------------------------------------------------

namespace {

// What max_of_distributions prints: the distributions, the sampled maxima per task count,
// each process's 99th percentile (and sorted, with their median) and the anomalous nodes.
struct MaxOutcome {
    const std::vector<jitter::ProcessDistribution>& dists;
    const std::vector<jitter::MaxResult>& results;
    const std::vector<double>& p99;
    const std::vector<jitter::NodeAnomaly>& anomalies;
    const std::vector<double>& sorted;
    double median, tau;
};

// --json.
void print_max_json(const JitterFlags& f, const MaxOutcome& o) {
    const auto& [dists, results, p99, anomalies, sorted, median, tau] = o;
    json j;
    j["model"] = "max_of_distributions";
    j["distributions"] = f.distributions;
    j["processes"] = dists.size();
    j["latency_s"] = tau;
    j["iterations"] = f.iterations;
    j["seed"] = f.seed;
    json rs = json::array();
    for (const auto& r : results)
        rs.push_back({{"tasks", r.tasks},
                      {"mean_s", r.mean},
                      {"p50_s", r.p50},
                      {"p90_s", r.p90},
                      {"p99_s", r.p99},
                      {"p999_s", r.p999},
                      {"min_s", r.min},
                      {"max_s", r.max},
                      {"slack_s", r.slack},
                      {"bound_lower_s", r.mean},
                      {"bound_upper_s", r.mean_upper},
                      {"theta_mean_s", r.exact ? json(nullptr) : json(r.theta_mean)},
                      {"exact", r.exact}});
    j["results"] = std::move(rs);
    json pp = json::array();
    for (std::size_t i = 0; i < dists.size(); ++i)
        pp.push_back({{"process", dists[i].process}, {"node", dists[i].node}, {"p99_s", p99[i]}});
    j["p99_per_process"] = std::move(pp);
    j["median_p99_s"] = median;
    json an = json::array();
    for (const auto& a : anomalies)
        an.push_back({{"node", a.node},
                      {"processes", a.processes},
                      {"node_processes", a.node_processes},
                      {"p99_mean_s", a.p99_mean},
                      {"median_p99_s", a.median_p99}});
    j["anomalous_nodes"] = std::move(an);
    std::cout << j.dump(2) << "\n";
}

// The table, the per-process percentiles and the anomalous nodes.
void print_max_table(const JitterFlags& f, const MaxOutcome& o) {
    const auto& [dists, results, p99, anomalies, sorted, median, tau] = o;
    double typical = 0;
    for (const auto& r : results) typical = std::max(typical, r.mean);
    const auto [unit, k] = seconds_unit(typical);
    std::cout << fmt::format(
        "Garg–De max of distributions: {} ({} processes), τ = {}, {} iterations, "
        "{}-ary tree\n",
        f.distributions, dists.size(), format_seconds(tau), f.iterations,
        f.arity == 0 ? 2 : f.arity);
    std::cout << fmt::format(
        "  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {:>23}  {:>10}  {}\n", "tasks",
        fmt::format("mean {}", unit), fmt::format("p50 {}", unit), fmt::format("p90 {}", unit),
        fmt::format("p99 {}", unit), fmt::format("p99.9 {}", unit), fmt::format("θ bound {}", unit),
        fmt::format("θ mean {}", unit), "method");
    for (const auto& r : results)
        std::cout << fmt::format(
            "  {:>10}  {:>10.3f}  {:>10.3f}  {:>10.3f}  {:>10.3f}  {:>10.3f}  {:>23}  {:>10}  "
            "{}\n",
            with_commas(r.tasks), r.mean * k, r.p50 * k, r.p90 * k, r.p99 * k, r.p999 * k,
            fmt::format("[{:.3f}, {:.3f}]", r.mean * k, r.mean_upper * k),
            r.exact ? std::string("—") : fmt::format("{:.3f}", r.theta_mean * k),
            r.exact ? "exact (product of CDFs)" : "sampled");
    std::cout << "  max = max over the N processes of w + δ per iteration; θ bound = [E max, "
                 "E max + 2τ·depth] (depth = log2((N+1)/2) for N = 2^k − 1)\n";
    std::cout << fmt::format("\nper-process 99th percentiles: median {}, min {}, max {}\n",
                             format_seconds(median), format_seconds(sorted.front()),
                             format_seconds(sorted.back()));
    if (dists.size() <= 64)
        for (std::size_t i = 0; i < dists.size(); ++i)
            std::cout << fmt::format("  process {:>5} on {}: {}\n", dists[i].process, dists[i].node,
                                     format_seconds(p99[i]));
    if (anomalies.empty()) {
        std::cout << "anomalous nodes: none (no process's p99 is above median + 5 MAD)\n";
    } else {
        std::cout << "anomalous nodes (processes whose p99 is above median + 5 MAD):\n";
        for (const auto& a : anomalies) {
            std::string procs;
            for (const auto p : a.processes)
                procs += (procs.empty() ? "" : ",") + std::to_string(p);
            std::cout << fmt::format(
                "  {}: {} of its {} processes (p99 mean {} vs median {}): {}\n", a.node,
                a.processes.size(), a.node_processes, format_seconds(a.p99_mean),
                format_seconds(a.median_p99), procs);
        }
    }
}

}  // namespace

int cmd_max_of_distributions(const JitterFlags& f) {
    if (!f.traces.empty())
        throw InputError("--trace", 0, "not used by --model max_of_distributions");
    for (const auto& [flag, given] :
         {std::pair{"--work", !f.work.empty()}, std::pair{"--policy", !f.policy.empty()},
          std::pair{"--start-indices", !f.start_indices.empty()},
          std::pair{"--window", !f.window.empty()}, std::pair{"--svg", !f.svg.empty()},
          std::pair{"--per-task", f.per_task}, std::pair{"--phases", f.phases != 0},
          std::pair{"--frequency", !f.frequency.empty()},
          std::pair{"--barrier", f.barrier != "none"},
          std::pair{"--network-latency", !f.network_latency.empty()},
          std::pair{"--mpi-latency", !f.mpi_latency.empty()},
          std::pair{"--shm-latency", !f.shm_latency.empty()}})
        if (given) throw InputError(flag, 0, "not used by --model max_of_distributions");
    if (f.distributions.empty())
        throw InputError("--distributions", 0,
                         "expected the per-process distribution file (CSV: process,node,value or "
                         "process,node,lower,upper,count)");
    if (f.latency.empty())
        throw InputError("--latency", 0, "expected the one-way message latency τ (e.g. 2us)");
    const double tau = flag_value("--latency", f.latency, parse_time).seconds();
    if (f.iterations == 0) throw InputError("--iterations", 0, "expected at least 1");
    const std::vector<std::uint64_t> tasks = parse_tasks("--tasks", f.tasks);
    const auto dists = traces::read_distributions(f.distributions);

    std::vector<jitter::MaxResult> results;
    for (const std::uint64_t n : tasks) {
        jitter::MaxConfig cfg;
        cfg.tasks = n;
        cfg.iterations = f.iterations;
        cfg.tau = tau;
        cfg.arity = f.arity == 0 ? 2 : f.arity;
        cfg.seed = f.seed;
        try {
            results.push_back(jitter::sample_max(dists, cfg));
        } catch (const std::invalid_argument& e) {
            throw InputError("jitter", 0, e.what());
        }
    }
    const std::vector<double> p99 = jitter::p99_per_process(dists);
    const std::vector<jitter::NodeAnomaly> anomalies = jitter::anomalous_nodes(dists, 5.0);
    std::vector<double> sorted = p99;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.empty() ? 0 : sorted[sorted.size() / 2];

    const MaxOutcome o{dists, results, p99, anomalies, sorted, median, tau};
    if (f.json)
        print_max_json(f, o);
    else
        print_max_table(f, o);
    if (!f.csv.empty()) {
        auto out = open_out(f.csv, "--csv");
        out << "tasks,mean_s,p50_s,p90_s,p99_s,p999_s,min_s,max_s,slack_s,bound_lower_s,"
               "bound_upper_s,theta_mean_s,exact\n";
        for (const auto& r : results)
            out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.tasks, r.mean, r.p50,
                               r.p90, r.p99, r.p999, r.min, r.max, r.slack, r.mean, r.mean_upper,
                               r.exact ? std::string() : fmt::format("{}", r.theta_mean),
                               r.exact ? "true" : "false");
        close_out(out, f.csv, "--csv");
    }
    return 0;
}

namespace {

// ---- jitter-trace ----------------------------------------------------------------------

// The output format: the flag's, else by OUTPUT's extension (traces::jitter_formats()), else
// text; an unknown name is an error naming the flag.
traces::JitterFormat output_format(const char* flag, const std::string& name,
                                   const std::string& path) {
    try {
        return traces::output_jitter_format(name, path);
    } catch (const InputError& e) {
        throw InputError(flag, 0, e.message());
    }
}

// "text, binary or loggopsim (default by extension: .jtb binary, .noise loggopsim, else
// text)", from traces::jitter_formats().
std::string output_format_help(const std::string& by) {
    std::string exts;
    for (const traces::JitterFormatEntry& e : traces::jitter_formats().entries())
        for (const std::string& x : e.extensions) exts += fmt::format("{} {}, ", x, e.name);
    return fmt::format("{} (default by {}: {}else text)", traces::jitter_formats().names(), by,
                       exts);
}

std::string trace_summary(const jitter::JitterTrace& t) {
    __extension__ unsigned __int128 jit = 0, total = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        jit += t.jitter[i];
        total += t.jitter[i] + t.compute[i];
    }
    std::string s = fmt::format("{} tuples, {} cycles", with_commas(t.size()),
                                with_commas(static_cast<std::uint64_t>(total)));
    if (t.frequency_hz > 0)
        s += fmt::format(" ({} at {})", format_seconds(static_cast<double>(total) / t.frequency_hz),
                         format_frequency(t.frequency_hz));
    if (total > 0)
        s += fmt::format(", jitter {:.3f} %",
                         100.0 * static_cast<double>(jit) / static_cast<double>(total));
    return s;
}

}  // namespace

}  // namespace jitter_cli

int cmd_jitter(const JitterFlags& f) {
    using namespace jitter_cli;
    if (f.model == "jitsim") return cmd_jitsim(f);
    if (same_but_separators(f.model, "max_of_distributions")) return cmd_max_of_distributions(f);
    throw InputError("--model", 0,
                     fmt::format("'{}'{}: expected jitsim or max_of_distributions", f.model,
                                 did_you_mean(f.model, jitter_models())));
}

int cmd_jitter_trace_generate(const JitterTraceFlags& f) {
    using namespace jitter_cli;
    const std::string text = f.spec.starts_with("gen:") ? f.spec.substr(4) : f.spec;
    const double hz = parse_frequency("--frequency", f.frequency);
    const Time length = flag_value("--length", f.length, parse_time);
    if (length <= Time::zero()) throw InputError("--length", 0, "expected a length above 0");
    const traces::JitterFormat format = output_format("--format", f.out_format, f.out);
    jitter::JitterTrace t;
    try {
        t = jitter::generate_trace(jitter::parse_generator(text), length.seconds(), hz, f.seed);
    } catch (const std::invalid_argument& e) {
        throw InputError("--spec", 0, e.what());
    }
    traces::write_jitter_trace(t, f.out, format);
    std::cout << fmt::format("wrote {} ({} format): {}\n", f.out, format.name, trace_summary(t));
    return 0;
}

int cmd_jitter_trace_convert(const JitterTraceFlags& f) {
    using namespace jitter_cli;
    const double hz =
        f.convert_frequency.empty() ? 0 : parse_frequency("--frequency", f.convert_frequency);
    const jitter::JitterTrace t =
        traces::read_jitter_trace(f.input, traces::parse_jitter_format(f.in_format), hz);
    const traces::JitterFormat format = output_format("--to", f.to, f.output);
    traces::write_jitter_trace(t, f.output, format);
    std::cout << fmt::format("converted {} to {} ({} format): {}\n", f.input, f.output, format.name,
                             trace_summary(t));
    return 0;
}

int cmd_jitter_trace_info(const JitterTraceFlags& f) {
    using namespace jitter_cli;
    const double hz =
        f.info_frequency.empty() ? 0 : parse_frequency("--frequency", f.info_frequency);
    const jitter::JitterTrace t =
        traces::read_jitter_trace(f.info_file, traces::parse_jitter_format(f.info_format), hz);
    std::cout << fmt::format("{}: {}\n", f.info_file, trace_summary(t));
    std::uint64_t largest = 0, events = 0, zero = 0;
    std::size_t largest_at = 0;
    std::map<int, std::pair<std::uint64_t, double>> buckets;  // log2 -> (events, cycles)
    double jitter_cycles = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const std::uint64_t d = t.jitter[i];
        if (d == 0) {
            ++zero;
            continue;
        }
        ++events;
        jitter_cycles += static_cast<double>(d);
        if (d > largest) {
            largest = d;
            largest_at = i;
        }
        auto& b = buckets[static_cast<int>(std::bit_width(d)) - 1];
        ++b.first;
        b.second += static_cast<double>(d);
    }
    auto cycles_text = [&](double c) {
        std::string s = fmt::format("{} cycles", with_commas(static_cast<std::uint64_t>(c)));
        if (t.frequency_hz > 0) s += fmt::format(" ({})", format_seconds(c / t.frequency_hz));
        return s;
    };
    if (events == 0) {
        std::cout << "no jitter events\n";
        return 0;
    }
    std::cout << fmt::format("{} jitter events ({} tuple{} without jitter), mean {}\n",
                             with_commas(events), with_commas(zero), zero == 1 ? "" : "s",
                             cycles_text(jitter_cycles / static_cast<double>(events)));
    std::cout << fmt::format("largest event: {} at tuple {}\n",
                             cycles_text(static_cast<double>(largest)), largest_at);
    std::cout << "jitter durations (log2 buckets):\n";
    std::cout << fmt::format("  {:>42}  {:>12}  {:>9}  {:>15}\n", "duration", "events", "events %",
                             "jitter cycles %");
    for (const auto& [k, b] : buckets) {
        const double lo = std::ldexp(1.0, k), hi = std::ldexp(1.0, k + 1);
        std::string range =
            fmt::format("[{}, {}) cycles", with_commas(static_cast<std::uint64_t>(lo)),
                        with_commas(static_cast<std::uint64_t>(hi)));
        if (t.frequency_hz > 0)
            range += fmt::format(", from {}", format_seconds(lo / t.frequency_hz));
        std::cout << fmt::format("  {:>42}  {:>12}  {:>9.3f}  {:>15.3f}\n", range,
                                 with_commas(b.first),
                                 100.0 * static_cast<double>(b.first) / static_cast<double>(events),
                                 100.0 * b.second / jitter_cycles);
    }
    return 0;
}

void add_jitter_commands(CLI::App& app, JitterCommands& c) {
    JitterFlags& j = c.jitter;
    auto* jit = app.add_subcommand(
        "jitter",
        "Predict the slowdown OS jitter causes at any task count (jitSim), or the Garg-De max "
        "of per-process distributions (--model max_of_distributions)");
    c.jitter_app = jit;
    jit->add_option("--model", j.model,
                    "jitsim (default: tasks run through jitter traces) or max_of_distributions "
                    "(Garg-De: sample max(w + delta) from per-process distributions)");
    jit->add_option("--trace", j.traces,
                    "jitter trace file (.jtr text, .jtb binary, .noise LogGOPSim), or gen:SPEC "
                    "for a generated one (e.g. gen:periodic:period=10ms,duration=50us); "
                    "repeatable: one curve per trace. A file without a frequency header is in "
                    "cycles only");
    jit->add_option("--format", j.format,
                    "format of the trace files: " +
                        fmt::format("{}", fmt::join(traces::jitter_format_names(), ", ")));
    jit->add_option("--frequency", j.frequency,
                    "clock of the trace cycles, e.g. 2.4GHz (overrides a header; needed by gen: "
                    "traces and to give times for a trace without a header)");
    jit->add_option("--gen-length", j.gen_length, "length of gen: traces (default 1s)");
    jit->add_option("--work", j.work,
                    "work quantum per phase: a time (300us, needs a frequency) or cycles "
                    "(100000cycles); more than the trace's compute cycles is an error");
    jit->add_option("--phases", j.phases, "compute phases, each ended by the barrier");
    jit->add_option("--tasks", j.tasks,
                    "task counts: 1,16,256 or A..B for A, 2A, 4A, ... up to B (e.g. 1..1048576)");
    jit->add_option("--policy", j.policy,
                    "start policies, comma-separated, one curve each: unsynchronized (default), "
                    "synchronized, coscheduled");
    jit->add_option("--window", j.window,
                    "coscheduled: HIGH,LOW lengths of the high- and low-priority windows (times "
                    "or cycles), repeating from the trace's start");
    jit->add_option("--start-indices", j.start_indices,
                    "explicit start: 0-based trace tuple indices A,B,...; task k starts at the "
                    "compute segment of tuple index k mod count (replaces --policy)");
    jit->add_option("--barrier", j.barrier,
                    "none (default: ideal barrier, no cost), binary_tree or kary_tree");
    jit->add_option("--arity", j.arity,
                    "kary_tree: children per task (Garg-De mode: tree of theta)");
    jit->add_option("--network-latency", j.network_latency,
                    "tree barrier: one-hop time in flight between nodes (time or cycles)");
    jit->add_option("--mpi-latency", j.mpi_latency,
                    "tree barrier: MPI stack latency; a send and a receive each cost half of it "
                    "in CPU cycles, stretched by jitter (time or cycles)");
    jit->add_option("--shm-latency", j.shm_latency,
                    "tree barrier: time in flight within a node (time or cycles)");
    jit->add_option("--cores-per-node", j.cores_per_node,
                    "tasks per node: tasks fill a node's cores, then the next node (default 1)");
    jit->add_option("--seed", j.seed, "seed of the random start positions / samples (default 1)")
        ->check(whole_number(UINT64_MAX));
    jit->add_option("--threads", j.threads, "worker threads (default: all cores)");
    jit->add_flag("--per-task", j.per_task,
                  "also print each task's compute, jitter, wait and total cycles (at most "
                  "65536 tasks)");
    jit->add_flag("--json", j.json, "print one JSON document instead of the table");
    jit->add_option("--csv", j.csv, "also write one CSV row per curve and task count here");
    jit->add_option("--svg", j.svg, "also write a plot of slowdown (%) vs task count here");
    jit->add_option("--distributions", j.distributions,
                    "max_of_distributions: per-process CSV (process,node,value or "
                    "process,node,lower,upper,count; values with a time unit or in seconds)");
    jit->add_option("--latency", j.latency, "max_of_distributions: one-way message latency tau");
    jit->add_option("--iterations", j.iterations,
                    "max_of_distributions: sampled iterations per task count (default 10000)");

    JitterTraceFlags& t = c.trace;
    auto* tr = app.add_subcommand("jitter-trace", "Generate, convert or summarize jitter traces");
    tr->require_subcommand(1);
    c.trace_app = tr;
    auto* gen = tr->add_subcommand("generate", "Write a synthetic jitter trace");
    c.generate_app = gen;
    gen->add_option("--spec", t.spec,
                    "generator: periodic:period=10ms,duration=50us, "
                    "exponential:mean_interval=1ms,duration=20us, "
                    "pareto:mean_interval=1ms,scale=5us,shape=1.5, "
                    "bernoulli:quantum=1ms,probability=0.01,duration=100us, or a+b")
        ->required();
    gen->add_option("--length", t.length, "trace length (default 1s)");
    gen->add_option("--frequency", t.frequency, "clock of the trace cycles, e.g. 2.4GHz")
        ->required();
    gen->add_option("--seed", t.seed, "seed (default 1)")->check(whole_number(UINT64_MAX));
    gen->add_option("--out", t.out, "file to write")->required();
    gen->add_option("--format", t.out_format, jitter_cli::output_format_help("extension"));
    auto* conv = tr->add_subcommand("convert", "Convert a jitter trace between formats");
    c.convert_app = conv;
    conv->add_option("IN", t.input, "trace to read")->required();
    conv->add_option("OUT", t.output, "file to write")->required();
    conv->add_option("--to", t.to, jitter_cli::output_format_help("OUT's extension"));
    conv->add_option("--format", t.in_format, "format of IN (default auto)");
    conv->add_option("--frequency", t.convert_frequency,
                     "clock of IN's cycles (overrides its header; LogGOPSim input: ns to cycles)");
    auto* info = tr->add_subcommand(
        "info", "Summarize a jitter trace: length, jitter fraction, a histogram of durations");
    c.info_app = info;
    info->add_option("FILE", t.info_file, "trace to read")->required();
    info->add_option("--format", t.info_format, "format of FILE (default auto)");
    info->add_option("--frequency", t.info_frequency, "clock of FILE's cycles");
}

bool run_jitter_commands(const JitterCommands& c, int& code) {
    if (c.jitter_app && *c.jitter_app) {
        code = cmd_jitter(c.jitter);
        return true;
    }
    if (c.trace_app && *c.trace_app) {
        if (*c.generate_app)
            code = cmd_jitter_trace_generate(c.trace);
        else if (*c.convert_app)
            code = cmd_jitter_trace_convert(c.trace);
        else
            code = cmd_jitter_trace_info(c.trace);
        return true;
    }
    return false;
}

}  // namespace clustersim::cli
