// `clustersim jitter --model jitsim`: jitSim's slowdown against task count from jitter traces
// (models/jitsim.hpp), as a table, JSON, CSV and an SVG chart.
#include "tools/jitter_util.hpp"

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

namespace clustersim::cli::jitter_cli {

namespace {

// ---- jitsim ----------------------------------------------------------------------------

struct LoadedTrace {
    std::string label;
    jitter::JitterTrace trace;
    std::unique_ptr<jitter::Timeline> timeline;
};

LoadedTrace load_trace(const JitterFlags& f, const std::string& item, double frequency_flag) {
    LoadedTrace t;
    if (item.starts_with("gen:")) {
        if (!(frequency_flag > 0))
            throw InputError("--frequency", 0,
                             fmt::format("the generated trace '{}' needs a clock frequency "
                                         "(e.g. --frequency 2.4GHz)",
                                         item));
        const Time length = flag_value("--gen-length", f.gen_length, parse_time);
        if (length <= Time::zero())
            throw InputError("--gen-length", 0, "expected a length above 0");
        jitter::GeneratorSpec spec;
        try {
            spec = jitter::parse_generator(item.substr(4));
            t.trace = jitter::generate_trace(spec, length.seconds(), frequency_flag, f.seed);
        } catch (const std::invalid_argument& e) {
            throw InputError("--trace", 0, fmt::format("{}: {}", item, e.what()));
        }
        t.label = item;
    } else {
        t.trace =
            traces::read_jitter_trace(item, traces::parse_jitter_format(f.format), frequency_flag);
        t.label = fs::path(item).filename().string();
    }
    try {
        t.timeline = std::make_unique<jitter::Timeline>(t.trace);
    } catch (const std::invalid_argument& e) {
        throw InputError("", 0, e.what());  // the message starts with the trace's name
    }
    return t;
}

struct Curve {
    std::string name, trace_label;
    const LoadedTrace* trace = nullptr;
    jitter::PredictConfig config;
    std::vector<jitter::Prediction> results;
};

void write_jitsim_table(const std::vector<Curve>& curves, const JitterFlags& f) {
    for (const Curve& c : curves) {
        const jitter::Timeline& tl = *c.trace->timeline;
        const double hz = tl.frequency_hz();
        std::cout << fmt::format("{} — {} start, {} tuples, {} cycles", c.trace_label,
                                 jitter::to_string(c.config.start.policy), with_commas(tl.tuples()),
                                 with_commas(tl.length()));
        if (hz > 0)
            std::cout << fmt::format(" ({} at {})",
                                     format_seconds(static_cast<double>(tl.length()) / hz),
                                     format_frequency(hz));
        std::cout << fmt::format(
            ", jitter {:.3f} %\n",
            100.0 * static_cast<double>(tl.jitter_total()) / static_cast<double>(tl.length()));
        std::cout << fmt::format("  work {} cycles per phase", with_commas(c.config.work));
        if (hz > 0)
            std::cout << fmt::format(" ({})",
                                     format_seconds(static_cast<double>(c.config.work) / hz));
        std::cout << fmt::format(", {} phase{}, barrier ", c.config.phases,
                                 c.config.phases == 1 ? "" : "s");
        const auto& b = c.config.barrier;
        if (b.kind == jitter::BarrierSpec::Kind::None)
            std::cout << "none (ideal, no cost)\n";
        else
            std::cout << fmt::format(
                "{}-ary tree (send {} + receive {} cycles of CPU, in flight {} cycles between "
                "nodes / {} within a node of {} cores)\n",
                b.arity, b.send, b.recv, b.network_latency, b.shm_latency, b.cores_per_node);
        // The µs column only when the frequency is known.
        const std::string us_head = hz > 0 ? fmt::format("  {:>14}", "mean phase µs") : "";
        std::cout << fmt::format("  {:>10}  {:>18}{}  {:>18}  {:>12}  {:>11}  {:>11}\n", "tasks",
                                 "mean phase cycles", us_head, "noiseless cycles", "slowdown %",
                                 "coverage %", "max cov. %");
        for (const auto& r : c.results) {
            const std::string us =
                hz > 0 ? fmt::format("  {:>14.3f}", r.mean_phase / hz * 1e6) : std::string();
            std::cout << fmt::format(
                "  {:>10}  {:>18.1f}{}  {:>18}  {:>12.3f}  {:>11.3f}  {:>11.3f}\n",
                with_commas(r.tasks), r.mean_phase, us, with_commas(r.noiseless_phase),
                r.slowdown_percent, r.coverage_percent, r.coverage_max_percent);
            if (f.per_task) {
                std::cout << fmt::format("      {:>8}  {:>14}  {:>14}  {:>14}  {:>14}\n", "task",
                                         "compute cyc.", "jitter cyc.", "wait cyc.", "total cyc.");
                for (std::size_t k = 0; k < r.per_task.size(); ++k) {
                    const auto& t = r.per_task[k];
                    std::cout << fmt::format("      {:>8}  {:>14}  {:>14}  {:>14}  {:>14}\n", k,
                                             t.compute, t.jitter, t.wait, t.total);
                }
            }
        }
        std::cout << "\n";
    }
    std::cout << "slowdown = mean phase time / noiseless phase time − 1; coverage = trace "
                 "cycles a task passed through / trace length\n";
}

json jitsim_json(const std::vector<Curve>& curves) {
    json j;
    j["model"] = "jitsim";
    json arr = json::array();
    for (const Curve& c : curves) {
        const jitter::Timeline& tl = *c.trace->timeline;
        const double hz = tl.frequency_hz();
        json cj;
        cj["name"] = c.name;
        cj["trace"] = c.trace_label;
        cj["policy"] = jitter::to_string(c.config.start.policy);
        cj["frequency_hz"] = hz;
        cj["trace_tuples"] = tl.tuples();
        cj["trace_length_cycles"] = tl.length();
        cj["trace_jitter_cycles"] = tl.jitter_total();
        cj["work_cycles"] = c.config.work;
        cj["phases"] = c.config.phases;
        const auto& b = c.config.barrier;
        cj["barrier"] = b.kind == jitter::BarrierSpec::Kind::None ? "none" : "tree";
        cj["arity"] = b.arity;
        cj["send_cycles"] = b.send;
        cj["recv_cycles"] = b.recv;
        cj["network_latency_cycles"] = b.network_latency;
        cj["shm_latency_cycles"] = b.shm_latency;
        cj["cores_per_node"] = b.cores_per_node;
        cj["seed"] = c.config.start.seed;
        json rs = json::array();
        for (const auto& r : c.results) {
            json rj;
            rj["tasks"] = r.tasks;
            rj["mean_phase_cycles"] = r.mean_phase;
            if (hz > 0) rj["mean_phase_s"] = r.mean_phase / hz;
            rj["noiseless_phase_cycles"] = r.noiseless_phase;
            if (hz > 0) rj["noiseless_phase_s"] = static_cast<double>(r.noiseless_phase) / hz;
            rj["slowdown_percent"] = r.slowdown_percent;
            rj["coverage_mean_percent"] = r.coverage_percent;
            rj["coverage_max_percent"] = r.coverage_max_percent;
            rj["phase_cycles"] = r.phase_cycles;
            if (c.config.per_task) {
                json pt = json::array();
                for (std::size_t k = 0; k < r.per_task.size(); ++k) {
                    const auto& t = r.per_task[k];
                    pt.push_back({{"task", k},
                                  {"compute_cycles", t.compute},
                                  {"jitter_cycles", t.jitter},
                                  {"wait_cycles", t.wait},
                                  {"total_cycles", t.total}});
                }
                rj["per_task"] = std::move(pt);
            }
            rs.push_back(std::move(rj));
        }
        cj["results"] = std::move(rs);
        arr.push_back(std::move(cj));
    }
    j["curves"] = std::move(arr);
    return j;
}

// --csv: one row per curve and task count.
void write_jitsim_csv(const std::vector<Curve>& curves, const std::string& path) {
    auto out = open_out(path, "--csv");
    out << "curve,trace,policy,tasks,work_cycles,phases,mean_phase_cycles,mean_phase_us,"
           "noiseless_phase_cycles,slowdown_percent,coverage_mean_percent,"
           "coverage_max_percent\n";
    for (const Curve& c : curves) {
        const double hz = c.trace->timeline->frequency_hz();
        for (const auto& r : c.results)
            out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(c.name),
                               csv_field(c.trace_label), jitter::to_string(c.config.start.policy),
                               r.tasks, c.config.work, c.config.phases, r.mean_phase,
                               hz > 0 ? fmt::format("{}", r.mean_phase / hz * 1e6) : "",
                               r.noiseless_phase, r.slowdown_percent, r.coverage_percent,
                               r.coverage_max_percent);
    }
    close_out(out, path, "--csv");
}

// --svg: slowdown against task count, one line per curve.
void write_jitsim_svg(const std::vector<Curve>& curves, const JitterFlags& f,
                      const jitter::BarrierSpec& barrier) {
    std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>> series;
    for (const Curve& c : curves) {
        std::vector<std::pair<double, double>> pts;
        for (const auto& r : c.results)
            pts.emplace_back(static_cast<double>(r.tasks), r.slowdown_percent);
        series.emplace_back(c.name, std::move(pts));
    }
    const Curve& first = curves.front();
    const double hz = first.trace->timeline->frequency_hz();
    const std::string work_text = hz > 0
                                      ? format_seconds(static_cast<double>(first.config.work) / hz)
                                      : fmt::format("{} cycles", first.config.work);
    const std::string barrier_text = barrier.kind == jitter::BarrierSpec::Kind::None
                                         ? "ideal barrier"
                                         : fmt::format("{}-ary tree barrier", barrier.arity);
    auto out = open_out(f.svg, "--svg");
    out << traces::svg_line_chart(
        fmt::format("OS jitter slowdown vs task count ({} work, {} phases, {})", work_text,
                    f.phases, barrier_text),
        "tasks", "slowdown (%)", series, true);
    close_out(out, f.svg, "--svg");
}

// Where each task starts in its trace.
struct StartSpec {
    std::vector<jitter::StartPolicy> policies;
    std::vector<std::uint64_t> indices;  // --start-indices
    Quantity window_high, window_low;    // --window (coscheduled)
};

// The start policies (--policy, --start-indices) and the co-scheduled window (--window).
StartSpec read_start(const JitterFlags& f) {
    StartSpec s;
    std::vector<jitter::StartPolicy>& policies = s.policies;
    std::vector<std::uint64_t>& indices = s.indices;
    if (!f.start_indices.empty()) {
        if (!f.policy.empty())
            throw InputError("--start-indices", 0,
                             "sets every task's start (the explicit policy): leave out --policy");
        for (const std::string& item : split(f.start_indices, ','))
            indices.push_back(flag_value("--start-indices", item, parse_count));
        policies.push_back(jitter::StartPolicy::Explicit);
    } else {
        for (const std::string& name : split(f.policy.empty() ? "unsynchronized" : f.policy, ','))
            if (std::find(policies.begin(), policies.end(), policy_of(name)) == policies.end())
                policies.push_back(policy_of(name));
    }
    const bool coscheduled = std::find(policies.begin(), policies.end(),
                                       jitter::StartPolicy::Coscheduled) != policies.end();
    if (!f.window.empty()) {
        if (!coscheduled) throw InputError("--window", 0, "only used with --policy coscheduled");
        const auto parts = split(f.window, ',');
        if (parts.size() != 2)
            throw InputError("--window", 0,
                             fmt::format("'{}': expected HIGH,LOW (two times or cycle counts, "
                                         "e.g. 9ms,1ms)",
                                         f.window));
        s.window_high = parse_quantity("--window", parts[0]);
        s.window_low = parse_quantity("--window", parts[1]);
    } else if (coscheduled) {
        throw InputError("--policy", 0,
                         "coscheduled needs --window HIGH,LOW (the high- and low-priority "
                         "window lengths)");
    }
    return s;
}

// The barrier between phases (--barrier, --arity; the latencies are read per trace).
jitter::BarrierSpec read_barrier(const JitterFlags& f) {
    jitter::BarrierSpec barrier;
    barrier.cores_per_node = f.cores_per_node;
    if (f.barrier == "none") {
        barrier.kind = jitter::BarrierSpec::Kind::None;
        if (f.arity != 0) throw InputError("--arity", 0, "only used with --barrier kary_tree");
        for (const auto& [flag, v] : {std::pair{"--network-latency", &f.network_latency},
                                      std::pair{"--mpi-latency", &f.mpi_latency},
                                      std::pair{"--shm-latency", &f.shm_latency}})
            if (!v->empty())
                throw InputError(flag, 0,
                                 "only used with a tree barrier (--barrier binary_tree or "
                                 "kary_tree); --barrier none is an ideal barrier of zero cost");
    } else if (same_but_separators(f.barrier, "binary_tree")) {
        barrier.kind = jitter::BarrierSpec::Kind::Tree;
        if (f.arity != 0 && f.arity != 2)
            throw InputError("--arity", 0, "a binary tree has arity 2; use --barrier kary_tree");
        barrier.arity = 2;
    } else if (same_but_separators(f.barrier, "kary_tree")) {
        barrier.kind = jitter::BarrierSpec::Kind::Tree;
        if (f.arity == 0) throw InputError("--arity", 0, "kary_tree needs --arity K (K >= 1)");
        barrier.arity = f.arity;
    } else {
        throw InputError("--barrier", 0,
                         fmt::format("'{}'{}: expected none, binary_tree or kary_tree", f.barrier,
                                     did_you_mean(f.barrier, jitter_barriers())));
    }
    return barrier;
}

}  // namespace

int cmd_jitsim(const JitterFlags& f) {
    if (f.traces.empty())
        throw InputError("--trace", 0, "expected at least one jitter trace (a file or gen:SPEC)");
    if (!f.distributions.empty() || !f.latency.empty())
        throw InputError(f.distributions.empty() ? "--latency" : "--distributions", 0,
                         "only used with --model max_of_distributions");
    if (f.work.empty())
        throw InputError("--work", 0,
                         "expected the work quantum per phase "
                         "(e.g. 300us or 100000cycles)");
    if (f.phases == 0)
        throw InputError("--phases", 0, "expected the number of phases (at least 1)");
    if (f.cores_per_node == 0) throw InputError("--cores-per-node", 0, "expected at least 1");
    const std::vector<std::uint64_t> tasks = parse_tasks("--tasks", f.tasks);
    if (f.per_task && tasks.back() > kMaxPerTaskTasks)
        throw InputError("--per-task", 0,
                         fmt::format("per-task results are limited to {} tasks (asked for {}); "
                                     "use smaller --tasks",
                                     with_commas(kMaxPerTaskTasks), with_commas(tasks.back())));

    const StartSpec start = read_start(f);
    const jitter::BarrierSpec barrier = read_barrier(f);
    const Quantity work = parse_quantity("--work", f.work);
    const Quantity zero = parse_quantity("--mpi-latency", "0cycles");
    auto latency = [&](const char* flag, const std::string& v) {
        return v.empty() ? zero : parse_quantity(flag, v);
    };
    const Quantity network = latency("--network-latency", f.network_latency),
                   mpi = latency("--mpi-latency", f.mpi_latency),
                   shm = latency("--shm-latency", f.shm_latency);

    const double frequency_flag =
        f.frequency.empty() ? 0 : parse_frequency("--frequency", f.frequency);
    std::vector<LoadedTrace> loaded;
    loaded.reserve(f.traces.size());
    for (const std::string& item : f.traces) loaded.push_back(load_trace(f, item, frequency_flag));

    std::vector<Curve> curves;
    for (const LoadedTrace& t : loaded) {
        const jitter::Timeline& tl = *t.timeline;
        const double hz = tl.frequency_hz();
        for (const jitter::StartPolicy policy : start.policies) {
            Curve c;
            c.trace = &t;
            c.trace_label = t.label;
            c.name = fmt::format("{} ({})", t.label, jitter::to_string(policy));
            jitter::PredictConfig& cfg = c.config;
            cfg.work = to_cycles(work, hz, "--work", tl.source());
            if (cfg.work == 0) throw InputError("--work", 0, "expected more than 0 cycles of work");
            if (cfg.work > tl.compute_total())
                throw InputError(
                    "--work", 0,
                    fmt::format("{} cycles of work per phase are more than all the compute "
                                "cycles of the trace {} ({}): a phase would see the whole trace; "
                                "use a longer trace or a smaller --work",
                                with_commas(cfg.work), tl.source(),
                                with_commas(tl.compute_total())));
            cfg.phases = f.phases;
            cfg.barrier = barrier;
            if (barrier.kind == jitter::BarrierSpec::Kind::Tree) {
                const std::uint64_t m = to_cycles(mpi, hz, "--mpi-latency", tl.source());
                cfg.barrier.send = m / 2;
                cfg.barrier.recv = m - m / 2;
                cfg.barrier.network_latency =
                    to_cycles(network, hz, "--network-latency", tl.source());
                cfg.barrier.shm_latency = to_cycles(shm, hz, "--shm-latency", tl.source());
            }
            cfg.start.policy = policy;
            cfg.start.seed = f.seed;
            cfg.start.indices = start.indices;
            if (policy == jitter::StartPolicy::Coscheduled) {
                cfg.start.window_high = to_cycles(start.window_high, hz, "--window", tl.source());
                cfg.start.window_low = to_cycles(start.window_low, hz, "--window", tl.source());
            }
            try {
                jitter::check_start(tl, cfg.start);
            } catch (const std::invalid_argument& e) {
                throw InputError(
                    policy == jitter::StartPolicy::Explicit ? "--start-indices" : "--window", 0,
                    e.what());
            }
            cfg.threads = f.threads;
            cfg.per_task = f.per_task;
            curves.push_back(std::move(c));
        }
    }
    for (Curve& c : curves) {
        const std::vector<const jitter::Timeline*> timelines{c.trace->timeline.get()};
        for (const std::uint64_t n : tasks) {
            try {
                c.results.push_back(jitter::predict(timelines, n, c.config));
            } catch (const std::invalid_argument& e) {
                throw InputError("jitter", 0, e.what());
            }
        }
    }

    if (f.json)
        std::cout << jitsim_json(curves).dump(2) << "\n";
    else
        write_jitsim_table(curves, f);

    if (!f.csv.empty()) write_jitsim_csv(curves, f.csv);
    if (!f.svg.empty()) write_jitsim_svg(curves, f, barrier);
    return 0;
}

}  // namespace clustersim::cli::jitter_cli
