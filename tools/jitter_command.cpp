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

namespace clustersim::cli {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

constexpr std::uint64_t kMaxPerTaskTasks = 65536;
constexpr std::uint64_t kMaxTasks = std::uint64_t{1} << 32;

// ---- parsing helpers -------------------------------------------------------------------

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (true) {
        const std::size_t at = text.find(sep, pos);
        out.push_back(text.substr(pos, at == std::string::npos ? std::string::npos : at - pos));
        if (at == std::string::npos) break;
        pos = at + 1;
    }
    return out;
}

// A clock frequency: a speed with a prefix or unit (2.4GHz, 2.4G) or plain hertz.
double parse_frequency(const std::string& flag, const std::string& text) {
    try {
        return static_cast<double>(parse_speed(text));
    } catch (const UnitError&) {
    }
    std::uint64_t hz = 0;
    try {
        hz = parse_count(text);
    } catch (const UnitError&) {
        throw InputError(flag, 0,
                         fmt::format("'{}': expected a clock frequency (e.g. 2.4GHz)", text));
    }
    if (hz == 0)
        throw InputError(flag, 0, fmt::format("'{}': expected a positive frequency", text));
    return static_cast<double>(hz);
}

// A quantity of CPU time: `300us` (a time) or `100000cycles`.
struct Quantity {
    bool is_cycles = false;
    std::uint64_t cycles = 0;
    Time time;
    std::string text;
};

Quantity parse_quantity(const std::string& flag, const std::string& text) {
    Quantity q;
    q.text = text;
    for (const char* suffix : {"cycles", "cycle"}) {
        const std::string s(suffix);
        if (text.size() > s.size() && text.ends_with(s)) {
            std::string number = text.substr(0, text.size() - s.size());
            while (!number.empty() && number.back() == ' ') number.pop_back();
            try {
                q.cycles = parse_count(number);
            } catch (const UnitError&) {
                throw InputError(flag, 0,
                                 fmt::format("'{}': expected a whole number of cycles (e.g. "
                                             "100000cycles) or a time (e.g. 300us)",
                                             text));
            }
            q.is_cycles = true;
            return q;
        }
    }
    try {
        q.time = parse_time(text);
    } catch (const UnitError&) {
        throw InputError(flag, 0,
                         fmt::format("'{}': expected a time (e.g. 300us) or a cycle count (e.g. "
                                     "100000cycles)",
                                     text));
    }
    return q;
}

std::uint64_t to_cycles(const Quantity& q, double frequency_hz, const std::string& flag,
                        const std::string& trace) {
    if (q.is_cycles) return q.cycles;
    if (!(frequency_hz > 0))
        throw InputError(flag, 0,
                         fmt::format("'{}' is a time, but the trace {} has no frequency header: "
                                     "give --frequency F, or the value in cycles (e.g. "
                                     "100000cycles)",
                                     q.text, trace));
    const long double c = static_cast<long double>(q.time.ps()) * frequency_hz / 1e12L;
    if (c > 1.8e19L) throw InputError(flag, 0, fmt::format("'{}': too many cycles", q.text));
    return static_cast<std::uint64_t>(std::llround(static_cast<double>(c)));
}

// "1,2,4", "1..1048576" (A, 2A, 4A, … up to B), or a mix: sorted, without duplicates.
std::vector<std::uint64_t> parse_tasks(const std::string& flag, const std::string& text) {
    if (text.empty())
        throw InputError(flag, 0, "expected task counts, e.g. 1,16,256 or 1..1048576");
    std::vector<std::uint64_t> out;
    auto number = [&](const std::string& item) {
        std::uint64_t v = 0;
        try {
            v = parse_count(item);
        } catch (const UnitError&) {
            throw InputError(flag, 0,
                             fmt::format("'{}': expected task counts, e.g. 1,16,256 or "
                                         "1..1048576 (powers of two from 1 to 1048576)",
                                         text));
        }
        if (v == 0 || v > kMaxTasks)
            throw InputError(
                flag, 0,
                fmt::format("'{}': task counts must be between 1 and {}", item, kMaxTasks));
        return v;
    };
    for (const std::string& item : split(text, ',')) {
        const std::size_t dots = item.find("..");
        if (dots == std::string::npos) {
            out.push_back(number(item));
            continue;
        }
        const std::uint64_t a = number(item.substr(0, dots)), b = number(item.substr(dots + 2));
        if (b < a)
            throw InputError(flag, 0,
                             fmt::format("'{}': the range's end is below its start", item));
        for (std::uint64_t v = a; v <= b; v *= 2) out.push_back(v);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

jitter::StartPolicy policy_of(const std::string& name) {
    try {
        return jitter::parse_start_policy(name);
    } catch (const std::invalid_argument& e) {
        throw InputError("--policy", 0, e.what());
    }
}

// ---- output helpers --------------------------------------------------------------------

std::string format_frequency(double hz) {
    if (hz >= 1e9) return fmt::format("{:g} GHz", hz / 1e9);
    if (hz >= 1e6) return fmt::format("{:g} MHz", hz / 1e6);
    if (hz >= 1e3) return fmt::format("{:g} kHz", hz / 1e3);
    return fmt::format("{:g} Hz", hz);
}

std::string format_seconds(double s) {
    const double a = std::fabs(s);
    if (a == 0) return "0 s";
    if (a >= 1) return fmt::format("{:.4g} s", s);
    if (a >= 1e-3) return fmt::format("{:.4g} ms", s * 1e3);
    if (a >= 1e-6) return fmt::format("{:.4g} µs", s * 1e6);
    return fmt::format("{:.4g} ns", s * 1e9);
}

// A unit for a column of seconds: the one format_seconds would pick for `typical`.
std::pair<const char*, double> seconds_unit(double typical) {
    if (typical >= 1) return {"s", 1};
    if (typical >= 1e-3) return {"ms", 1e3};
    if (typical >= 1e-6) return {"µs", 1e6};
    return {"ns", 1e9};
}

std::ofstream open_out(const std::string& path, const char* flag) {
    std::ofstream f(path);
    if (!f) throw InputError(flag, 0, fmt::format("cannot write '{}'", path));
    return f;
}

void close_out(std::ofstream& f, const std::string& path, const char* flag) {
    f.close();
    if (!f) throw InputError(flag, 0, fmt::format("cannot write '{}'", path));
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

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

    // Start policies.
    std::vector<jitter::StartPolicy> policies;
    std::vector<std::uint64_t> indices;
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
    Quantity window_high, window_low;
    if (!f.window.empty()) {
        if (!coscheduled) throw InputError("--window", 0, "only used with --policy coscheduled");
        const auto parts = split(f.window, ',');
        if (parts.size() != 2)
            throw InputError("--window", 0,
                             fmt::format("'{}': expected HIGH,LOW (two times or cycle counts, "
                                         "e.g. 9ms,1ms)",
                                         f.window));
        window_high = parse_quantity("--window", parts[0]);
        window_low = parse_quantity("--window", parts[1]);
    } else if (coscheduled) {
        throw InputError("--policy", 0,
                         "coscheduled needs --window HIGH,LOW (the high- and low-priority "
                         "window lengths)");
    }

    // Barrier.
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
        for (const jitter::StartPolicy policy : policies) {
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
            cfg.start.indices = indices;
            if (policy == jitter::StartPolicy::Coscheduled) {
                cfg.start.window_high = to_cycles(window_high, hz, "--window", tl.source());
                cfg.start.window_low = to_cycles(window_low, hz, "--window", tl.source());
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

    if (!f.csv.empty()) {
        auto out = open_out(f.csv, "--csv");
        out << "curve,trace,policy,tasks,work_cycles,phases,mean_phase_cycles,mean_phase_us,"
               "noiseless_phase_cycles,slowdown_percent,coverage_mean_percent,"
               "coverage_max_percent\n";
        for (const Curve& c : curves) {
            const double hz = c.trace->timeline->frequency_hz();
            for (const auto& r : c.results)
                out << fmt::format(
                    "{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(c.name),
                    csv_field(c.trace_label), jitter::to_string(c.config.start.policy), r.tasks,
                    c.config.work, c.config.phases, r.mean_phase,
                    hz > 0 ? fmt::format("{}", r.mean_phase / hz * 1e6) : "", r.noiseless_phase,
                    r.slowdown_percent, r.coverage_percent, r.coverage_max_percent);
        }
        close_out(out, f.csv, "--csv");
    }
    if (!f.svg.empty()) {
        std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>> series;
        for (const Curve& c : curves) {
            std::vector<std::pair<double, double>> pts;
            for (const auto& r : c.results)
                pts.emplace_back(static_cast<double>(r.tasks), r.slowdown_percent);
            series.emplace_back(c.name, std::move(pts));
        }
        const Curve& first = curves.front();
        const double hz = first.trace->timeline->frequency_hz();
        const std::string work_text =
            hz > 0 ? format_seconds(static_cast<double>(first.config.work) / hz)
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
    return 0;
}

// ---- max_of_distributions --------------------------------------------------------------

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

    if (f.json) {
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
            pp.push_back(
                {{"process", dists[i].process}, {"node", dists[i].node}, {"p99_s", p99[i]}});
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
    } else {
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
            fmt::format("p99 {}", unit), fmt::format("p99.9 {}", unit),
            fmt::format("θ bound {}", unit), fmt::format("θ mean {}", unit), "method");
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
                std::cout << fmt::format("  process {:>5} on {}: {}\n", dists[i].process,
                                         dists[i].node, format_seconds(p99[i]));
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

// ---- jitter-trace ----------------------------------------------------------------------

// The output format: the flag's, or by extension (.jtb binary, .noise loggopsim, else text).
traces::JitterFormat output_format(const char* flag, const std::string& name,
                                   const std::string& path) {
    if (!name.empty() && name != "auto") {
        try {
            return traces::parse_jitter_format(name);
        } catch (const InputError& e) {
            throw InputError(flag, 0, e.message());
        }
    }
    const std::string ext = fs::path(path).extension().string();
    if (ext == ".jtb") return traces::JitterFormat::Binary;
    if (ext == ".noise") return traces::JitterFormat::LogGOPSim;
    return traces::JitterFormat::Text;
}

const char* format_name(traces::JitterFormat f) {
    switch (f) {
        case traces::JitterFormat::Binary:
            return "binary";
        case traces::JitterFormat::LogGOPSim:
            return "loggopsim";
        default:
            return "text";
    }
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

int cmd_jitter(const JitterFlags& f) {
    if (f.model == "jitsim") return cmd_jitsim(f);
    if (same_but_separators(f.model, "max_of_distributions")) return cmd_max_of_distributions(f);
    throw InputError("--model", 0,
                     fmt::format("'{}'{}: expected jitsim or max_of_distributions", f.model,
                                 did_you_mean(f.model, jitter_models())));
}

int cmd_jitter_trace_generate(const JitterTraceFlags& f) {
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
    std::cout << fmt::format("wrote {} ({} format): {}\n", f.out, format_name(format),
                             trace_summary(t));
    return 0;
}

int cmd_jitter_trace_convert(const JitterTraceFlags& f) {
    const double hz =
        f.convert_frequency.empty() ? 0 : parse_frequency("--frequency", f.convert_frequency);
    const jitter::JitterTrace t =
        traces::read_jitter_trace(f.input, traces::parse_jitter_format(f.in_format), hz);
    const traces::JitterFormat format = output_format("--to", f.to, f.output);
    traces::write_jitter_trace(t, f.output, format);
    std::cout << fmt::format("converted {} to {} ({} format): {}\n", f.input, f.output,
                             format_name(format), trace_summary(t));
    return 0;
}

int cmd_jitter_trace_info(const JitterTraceFlags& f) {
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
                    "format of the trace files: auto, text, binary, loggopsim");
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
    gen->add_option("--format", t.out_format,
                    "text, binary or loggopsim (default by extension: .jtb binary, .noise "
                    "loggopsim, else text)");
    auto* conv = tr->add_subcommand("convert", "Convert a jitter trace between formats");
    c.convert_app = conv;
    conv->add_option("IN", t.input, "trace to read")->required();
    conv->add_option("OUT", t.output, "file to write")->required();
    conv->add_option("--to", t.to,
                     "text, binary or loggopsim (default by OUT's extension: .jtb binary, "
                     ".noise loggopsim, else text)");
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
