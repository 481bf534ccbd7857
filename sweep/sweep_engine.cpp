#include "sweep/sweep_engine.hpp"
#include "sweep/json_depth.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "sweep/plot.hpp"

namespace clustersim::sweep {
namespace {

namespace fs = std::filesystem;

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::string shell_quote(const std::string& s) {
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-./=:,+@%") == std::string::npos)
        return s;
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string command_of(const std::vector<std::string>& args) {
    std::string out = "clustersim";
    for (const auto& a : args) out += " " + shell_quote(a);
    return out;
}

void write_atomic(const std::string& path, const std::string& text) {
    // Unique across the nodes of a cluster sharing the folder (Slurm tasks, MPI ranks).
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    const std::string tmp = path + ".tmp." + host + "." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        if (!out) throw InputError(path, 0, "cannot write the file");
    }
    fs::rename(tmp, path);
}

// Records of a JSON Lines file, by hash. A truncated last line (a run killed while writing)
// is ignored; a bad line elsewhere is an error naming it.
void load_records(const std::string& path, std::map<std::string, nlohmann::json>& into) {
    refuse_non_file(path);
    std::ifstream in(path);
    if (!in) return;
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(in, line)) lines.push_back(line);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].empty()) continue;
        nlohmann::json r;
        try {
            r = clustersim::sweep::parse_json_input(lines[i], path, static_cast<int>(i + 1));
        } catch (const nlohmann::json::exception&) {  // syntax, or a number out of range
            if (i + 1 == lines.size()) break;
            throw InputError(path, static_cast<int>(i + 1), "not a JSON record of a sweep point");
        }
        if (!r.is_object() || !r.contains("hash") || !r["hash"].is_string() ||
            !r.contains("status"))
            throw InputError(path, static_cast<int>(i + 1),
                             "not a sweep record (no \"hash\" or \"status\")");
        const std::string hash = r["hash"].get<std::string>();
        into[hash] = std::move(r);
    }
}

void load_all_records(const std::string& dir, std::map<std::string, nlohmann::json>& into) {
    load_records(dir + "/results.jsonl", into);
    load_records(dir + "/journal.jsonl", into);
    if (fs::is_directory(dir + "/parts")) {
        std::vector<std::string> parts;
        for (const auto& e : fs::directory_iterator(dir + "/parts"))
            if (e.path().extension() == ".jsonl") parts.push_back(e.path().string());
        std::sort(parts.begin(), parts.end());
        for (const auto& p : parts) load_records(p, into);
    }
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string json_cell(const nlohmann::json& v) {
    if (v.is_null()) return "";
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_float()) return fmt::format("{}", v.get<double>());
    return value_text(v);
}

Limits limits_of(const SweepSpec& s, const SweepOptions& o) {
    Limits l = s.limits;
    try {
        if (!o.time_limit.empty()) l.wall_s = parse_time(o.time_limit).seconds();
    } catch (const UnitError& e) {
        throw InputError("--time-limit", 0, e.what());
    }
    try {
        if (!o.memory_limit.empty()) l.memory_bytes = parse_size(o.memory_limit);
    } catch (const UnitError& e) {
        throw InputError("--memory-limit", 0, e.what());
    }
    return l;
}

bool skip_on_resume(const nlohmann::json& r, bool retry_failed) {
    if (r.value("status", "") == "ok") return true;
    // Bad input (exit 2) fails the same way again; crashes and kills may not.
    return !retry_failed && r.value("exit_code", -1) == 2;
}

}  // namespace

std::string self_exe() {
    std::error_code ec;
    const auto p = fs::read_symlink("/proc/self/exe", ec);
    if (ec) throw std::runtime_error("cannot read /proc/self/exe");
    return p.string();
}

int mpi_launch_size() {
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"})
        if (const char* v = std::getenv(var); v != nullptr && *v != '\0') {
            const int n = std::atoi(v);
            if (n > 0) return n;
        }
    return 0;
}

const std::vector<std::string>& measured_fields() {
    static const std::vector<std::string> f = {"/wall_time_s",         "/peak_memory_bytes",
                                               "/result/wall_time_s",  "/result/cpu_time_s",
                                               "/result/model_load_s", "/result/phases_s",
                                               "/result/events_per_s", "/result/peak_memory_bytes"};
    return f;
}

nlohmann::json without_measured(nlohmann::json record) {
    for (const auto& ptr : measured_fields()) {
        const nlohmann::json::json_pointer p(ptr);
        if (record.contains(p)) record[p.parent_pointer()].erase(p.back());
    }
    return record;
}

bool record_failed(const nlohmann::json& r) {
    return r.value("status", "") != "ok";
}

Journal::Journal(const std::string& path) : path_(path) {
    f_ = std::fopen(path.c_str(), "a");
    if (f_ == nullptr) throw InputError(path, 0, "cannot open the journal for appending");
}

Journal::~Journal() {
    if (f_ != nullptr) std::fclose(f_);
}

void Journal::append(const nlohmann::json& record) {
    const std::string line = record.dump() + "\n";
    if (std::fwrite(line.data(), 1, line.size(), f_) != line.size() || std::fflush(f_) != 0)
        throw InputError(path_, 0, "cannot append to the journal");
}

Progress::Progress(std::size_t total, bool enabled, bool lines)
    : total_(total), enabled_(enabled && total > 0), lines_(lines), start_(now_s()) {}

void Progress::point_done(bool failed) {
    ++done_;
    if (failed) ++failed_;
    if (!enabled_) return;
    const double t = now_s();
    const double interval = lines_ ? 10.0 : 0.1;
    if (done_ != total_ && last_ >= 0 && t - last_ < interval) return;
    last_ = t;
    const double elapsed = t - start_;
    const double eta =
        done_ > 0 ? elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_) : 0;
    const std::string text = fmt::format("  sweep: {}/{} points, {} failed, {:.1f} s, ETA {:.0f} s",
                                         done_, total_, failed_, elapsed, eta);
    if (lines_)
        std::cerr << text << "\n" << std::flush;
    else
        std::cerr << "\r" << text << "   " << std::flush;
    shown_ = true;
}

void Progress::finish() {
    if (shown_ && !lines_) std::cerr << "\n" << std::flush;
}

// Why a child (a run, or the generate step of a model) failed, in one line.
std::string failure_of(const Outcome& o, const Limits& limits) {
    if (!o.spawn_error.empty()) return o.spawn_error;
    if (o.timed_out) return fmt::format("killed at the wall-time limit of {:g} s", limits.wall_s);
    if (o.signal != 0)
        return fmt::format("killed by signal {} ({}){}", o.signal, strsignal(o.signal),
                           last_line(o.err).empty() ? "" : ": " + last_line(o.err));
    std::string error = last_line(o.err);
    // "clustersim: error: X" -> "X"; "clustersim: internal error: Y" -> "internal error: Y".
    if (error.rfind("clustersim: error: ", 0) == 0)
        error = error.substr(19);
    else if (error.rfind("clustersim: ", 0) == 0)
        error = error.substr(12);
    if (error.empty()) error = fmt::format("exit code {} and no message", o.exit_code);
    if ((error.find("bad_alloc") != std::string::npos || error.rfind("out of memory", 0) == 0) &&
        limits.memory_bytes > 0)
        error += fmt::format(" (memory limit {})", format_size(limits.memory_bytes));
    return error;
}

Prepared prepare(const SweepOptions& o, bool generate_models) {
    Prepared p;
    p.spec = load_sweep(o.file);
    p.points = expand(p.spec);
    const std::string out = o.out.empty() ? p.spec.name + ".sweep" : o.out;
    std::error_code ec;
    fs::create_directories(out + "/models", ec);
    if (ec)
        throw InputError(out, 0, fmt::format("cannot create the output folder: {}", ec.message()));
    p.out = fs::canonical(out).string();
    p.out_shown = out;
    p.limits = limits_of(p.spec, o);
    // Where `collect` finds the sweep file again.
    write_atomic(p.out + "/sweep.json",
                 nlohmann::json({{"file", fs::absolute(o.file).lexically_normal().string()},
                                 {"points", p.points.size()}})
                         .dump(2) +
                     "\n");
    load_all_records(p.out, p.done);
    for (const auto& pt : p.points) {
        auto it = p.done.find(pt.hash);
        if (it != p.done.end() && skip_on_resume(it->second, o.retry_failed))
            ++p.skipped;
        else
            p.todo.push_back(pt.index);
    }
    // Longest first (stable: equal estimates keep index order).
    std::stable_sort(p.todo.begin(), p.todo.end(), [&](std::size_t a, std::size_t b) {
        return p.points[a].cost > p.points[b].cost;
    });
    if (generate_models) {
        std::set<std::string> made;
        const Limits& limits = p.limits;
        for (std::size_t i : p.todo) {
            const Point& pt = p.points[i];
            if (pt.model_key.empty() || !made.insert(pt.model_key).second) continue;
            const std::string path = p.out + "/models/" + pt.model_key + ".xml";
            if (fs::exists(path)) continue;
            const Outcome g = run_process(o.clustersim, pt.generate_args, p.out, limits);
            if (g.exit_code == 0 && !g.out.empty()) {
                write_atomic(path, g.out);
            } else {
                p.model_errors[pt.model_key] = "generate: " + failure_of(g, limits);
            }
        }
    }
    return p;
}

nlohmann::json model_failure_record(const Point& point, const std::string& error) {
    nlohmann::json r;
    r["index"] = point.index;
    r["hash"] = point.hash;
    nlohmann::json axes = nlohmann::json::object();
    for (const auto& [k, v] : point.axes) axes[k] = v;
    r["axes"] = axes;
    r["command"] = command_of(point.generate_args);
    r["status"] = "failed";
    r["exit_code"] = 2;
    r["error"] = error;
    r["wall_time_s"] = 0.0;
    r["peak_memory_bytes"] = 0;
    return r;
}

nlohmann::json make_record(const Prepared& p, const Point& point, const Outcome& o) {
    nlohmann::json r;
    r["index"] = point.index;
    r["hash"] = point.hash;
    nlohmann::json axes = nlohmann::json::object();
    for (const auto& [k, v] : point.axes) axes[k] = v;
    r["axes"] = axes;
    r["command"] = command_of(point.run_args);
    r["exit_code"] = o.exit_code;
    r["wall_time_s"] = o.wall_s;
    r["peak_memory_bytes"] = o.peak_memory_bytes;
    std::string error;
    nlohmann::json result;
    if (!o.spawn_error.empty() || o.timed_out || o.signal != 0 || o.exit_code != 0) {
        error = failure_of(o, p.limits);
    } else {
        try {
            result = clustersim::sweep::parse_json_input(o.out, "the point's output");
        } catch (const nlohmann::json::exception&) {
            error = "the run printed no JSON";
        } catch (const InputError& e) {  // nested too deep
            error = e.what();
        }
    }
    if (o.signal != 0) r["signal"] = o.signal;
    if (error.empty()) {
        r["status"] = "ok";
        r["result"] = result;
    } else {
        r["status"] = "failed";
        r["error"] = error;
    }
    return r;
}

int finish(const Prepared& p, const std::map<std::string, nlohmann::json>& fresh, std::size_t ran,
           double wall_s, const std::string& engine) {
    std::string jsonl;
    std::vector<std::string> summary_keys;
    std::set<std::string> seen_keys;
    std::vector<const nlohmann::json*> records(p.points.size(), nullptr);
    std::size_t ok = 0, failed = 0, missing = 0;
    std::vector<std::string> failures;
    for (const auto& pt : p.points) {
        const nlohmann::json* r = nullptr;
        if (auto it = fresh.find(pt.hash); it != fresh.end())
            r = &it->second;
        else if (auto jt = p.done.find(pt.hash); jt != p.done.end())
            r = &jt->second;
        if (r == nullptr) {
            ++missing;
            continue;
        }
        records[pt.index] = r;
        if (record_failed(*r)) {
            ++failed;
            std::string axes;
            for (const auto& [k, v] : pt.axes)
                axes += (axes.empty() ? "" : " ") + k + "=" + value_text(v);
            failures.push_back(fmt::format("point {} ({}): {}", pt.index, axes,
                                           r->value("error", std::string("?"))));
        } else {
            ++ok;
        }
        if (r->contains("/result/app_summary"_json_pointer))
            for (const auto& [k, v] : (*r)["result"]["app_summary"].items())
                if (seen_keys.insert(k).second) summary_keys.push_back(k);
    }
    // JSON Lines in point order; the index is this sweep's (an earlier run's record may come
    // from a sweep with other axes).
    std::string csv = "index,hash";
    for (const auto& a : p.spec.axes) csv += "," + csv_field(a.name);
    // The run's fields; one named like an axis gets a "result_" prefix.
    auto column = [&](const std::string& name) {
        for (const auto& a : p.spec.axes)
            if (a.name == name) return "result_" + name;
        return name;
    };
    csv += ",status";
    for (const char* k : {"simulated_time_s", "simulated_time_ps", "events", "ranks", "messages",
                          "bytes_delivered"})
        csv += "," + csv_field(column(k));
    for (const auto& k : summary_keys) csv += "," + csv_field(column(k));
    csv += ",wall_time_s,peak_memory_bytes,error\n";
    for (const auto& pt : p.points) {
        if (records[pt.index] == nullptr) continue;
        nlohmann::json r = *records[pt.index];
        r["index"] = pt.index;
        jsonl += r.dump() + "\n";
        csv += fmt::format("{},{}", pt.index, pt.hash);
        for (const auto& [k, v] : pt.axes) csv += "," + csv_field(value_text(v));
        const nlohmann::json res = r.value("result", nlohmann::json::object());
        auto cell = [&](const char* key) {
            return csv_field(json_cell(res.value(key, nlohmann::json())));
        };
        csv += "," + r.value("status", std::string()) + "," + cell("simulated_time_s") + "," +
               cell("simulated_time_ps") + "," + cell("events") + "," + cell("ranks");
        const nlohmann::json net = res.value("network", nlohmann::json::object());
        csv += "," + csv_field(json_cell(net.value("messages", nlohmann::json()))) + "," +
               csv_field(json_cell(net.value("bytes_delivered", nlohmann::json())));
        const nlohmann::json sum = res.value("app_summary", nlohmann::json::object());
        for (const auto& k : summary_keys)
            csv += "," + csv_field(json_cell(sum.value(k, nlohmann::json())));
        csv += "," + csv_field(json_cell(r.value("wall_time_s", nlohmann::json()))) + "," +
               csv_field(json_cell(r.value("peak_memory_bytes", nlohmann::json()))) + "," +
               csv_field(r.value("error", std::string())) + "\n";
    }
    write_atomic(p.out + "/results.jsonl", jsonl);
    write_atomic(p.out + "/results.csv", csv);
    std::cout << fmt::format("sweep {}: {} points, {} run now ({}), {} done before\n", p.spec.file,
                             p.points.size(), ran, engine, p.skipped);
    std::cout << fmt::format("  {} ok, {} failed{} in {:.2f} s wall\n", ok, failed,
                             missing > 0 ? fmt::format(", {} missing", missing) : "", wall_s);
    const std::size_t show = std::min<std::size_t>(failures.size(), 10);
    for (std::size_t i = 0; i < show; ++i) std::cout << "  failed: " << failures[i] << "\n";
    if (failures.size() > show)
        std::cout << fmt::format("  ... and {} more failed points (see results.csv)\n",
                                 failures.size() - show);
    std::cout << fmt::format("  results: {}/results.jsonl, {}/results.csv\n", p.out_shown,
                             p.out_shown);
    // The sweep file's figures, when there is something to draw.
    if (ok > 0)
        for (const auto& pl : p.spec.plots) {
            PlotOptions po;
            po.results = p.out + "/results.jsonl";
            po.x = pl.value("x", "");
            po.y = pl.value("y", "");
            po.series = pl.value("series", "");
            po.facet = pl.value("facet", "");
            po.log_x = pl.value("log_x", false);
            po.log_y = pl.value("log_y", false);
            po.speedup = pl.value("speedup", false);
            po.maximize = pl.value("maximize", false);
            po.title = pl.value("title", "");
            po.svg = (fs::path(p.out) / pl.value("output", "")).string();
            if (pl.contains("table")) po.table = (fs::path(p.out) / pl.value("table", "")).string();
            try {
                plot(po);
                const std::string shown = (fs::path(p.out_shown) / pl.value("output", "")).string();
                std::cout << fmt::format(
                    "  figure: {}{}\n", shown,
                    po.table.empty()
                        ? ""
                        : ", table: " + (fs::path(p.out_shown) / pl.value("table", "")).string());
            } catch (const InputError& e) {
                // "--y: no field ..." -> "plots: y: no field ..." (the file's key, not a flag).
                std::string key = e.file();
                if (key.rfind("--", 0) == 0) key = key.substr(2);
                std::replace(key.begin(), key.end(), '-', '_');
                throw InputError(p.spec.file, 0, fmt::format("plots: {}: {}", key, e.message()));
            }
        }
    return failed > 0 || missing > 0 ? 1 : 0;
}

int run_local(const SweepOptions& o) {
    const double t0 = now_s();
    Prepared p = prepare(o, true);
    const Limits& limits = p.limits;
    Journal journal(p.out + "/journal.jsonl");
    std::map<std::string, nlohmann::json> fresh;
    Progress progress(p.todo.size(), o.progress, o.progress_lines);
    Pool pool(std::max<std::size_t>(1, o.jobs));
    // One core per job when there are enough, as mpirun binds ranks.
    if (const auto cpus = usable_cpus(); o.jobs > 1 && cpus.size() >= o.jobs) pool.pin(cpus);
    std::size_t next = 0, ran = 0;
    auto record = [&](nlohmann::json r) {
        const bool failed = record_failed(r);
        journal.append(r);
        const std::string hash = r["hash"].get<std::string>();
        fresh[hash] = std::move(r);
        ++ran;
        progress.point_done(failed);
    };
    while (next < p.todo.size() || pool.running() > 0) {
        while (pool.free_slots() > 0 && next < p.todo.size()) {
            const Point& pt = p.points[p.todo[next++]];
            if (auto e = p.model_errors.find(pt.model_key);
                !pt.model_key.empty() && e != p.model_errors.end()) {
                record(model_failure_record(pt, e->second));
                continue;
            }
            pool.start(pt.index, o.clustersim, pt.run_args, p.out, limits);
        }
        for (auto& [index, outcome] : pool.wait(-1))
            record(make_record(p, p.points[index], outcome));
    }
    progress.finish();
    return finish(p, fresh, ran, now_s() - t0,
                  fmt::format("{} local job{}", o.jobs, o.jobs == 1 ? "" : "s"));
}

int list_points(const SweepOptions& o) {
    const SweepSpec s = load_sweep(o.file);
    const auto points = expand(s);
    for (const auto& pt : points) {
        std::string axes;
        for (const auto& [k, v] : pt.axes)
            axes += (axes.empty() ? "" : " ") + k + "=" + value_text(v);
        std::cout << fmt::format("{} {} {}\n  {}\n", pt.index, pt.hash, axes,
                                 command_of(pt.run_args));
        if (!pt.generate_args.empty())
            std::cout << fmt::format("  model: {} > models/{}.xml\n", command_of(pt.generate_args),
                                     pt.model_key);
    }
    std::cout << fmt::format("{} points\n", points.size());
    return 0;
}

int emit_array(const SweepOptions& o, std::size_t chunk) {
    if (chunk == 0) throw InputError("--chunk", 0, "expected at least 1 point per task");
    Prepared p = prepare(o, true);
    const std::size_t tasks = (p.points.size() + chunk - 1) / chunk;
    fs::create_directories(p.out + "/logs");
    fs::create_directories(p.out + "/parts");
    const Limits& limits = p.limits;
    // The task's time: its points at their wall limit, plus a minute.
    const auto secs = static_cast<std::uint64_t>(
        (limits.wall_s > 0 ? limits.wall_s : 3600.0) * static_cast<double>(chunk) + 60);
    std::string script = "#!/bin/bash\n";
    script += fmt::format("# clustersim sweep {}: {} points in {} tasks of up to {} points.\n",
                          p.spec.file, p.points.size(), tasks, chunk);
    script += fmt::format("# Submit: sbatch {}/sweep.sbatch   Then: clustersim sweep collect {}\n",
                          shell_quote(p.out), shell_quote(p.out));
    script += fmt::format("#SBATCH --job-name=sweep-{}\n", p.spec.name);
    script += fmt::format("#SBATCH --array=0-{}\n", tasks == 0 ? 0 : tasks - 1);
    script += fmt::format("#SBATCH --ntasks=1\n#SBATCH --cpus-per-task={}\n", o.jobs);
    script += fmt::format("#SBATCH --time={}-{:02}:{:02}:{:02}\n", secs / 86400, secs / 3600 % 24,
                          secs / 60 % 60, secs % 60);
    if (limits.memory_bytes > 0)
        script += fmt::format("#SBATCH --mem={}M\n",
                              (limits.memory_bytes >> 20) * std::max<std::size_t>(1, o.jobs) + 256);
    script += fmt::format("#SBATCH --output={}/logs/task-%a.log\n", p.out);
    std::string cmd = fmt::format(
        "exec {} sweep {} --out {} --task \"$SLURM_ARRAY_TASK_ID\" --chunk {} --jobs {}",
        shell_quote(o.clustersim), shell_quote(fs::absolute(o.file).lexically_normal().string()),
        shell_quote(p.out), chunk, o.jobs);
    if (!o.time_limit.empty()) cmd += " --time-limit " + shell_quote(o.time_limit);
    if (!o.memory_limit.empty()) cmd += " --memory-limit " + shell_quote(o.memory_limit);
    if (o.retry_failed) cmd += " --retry-failed";
    script += cmd + "\n";
    write_atomic(p.out + "/sweep.sbatch", script);
    fs::permissions(p.out + "/sweep.sbatch", fs::perms::owner_exec, fs::perm_options::add);
    std::cout << fmt::format(
        "sweep {}: {} points ({} done before) in {} array tasks of up to {} "
        "points\n  script: {}/sweep.sbatch\n  submit: sbatch {}/sweep.sbatch\n"
        "  then:   clustersim sweep collect {}\n",
        p.spec.file, p.points.size(), p.skipped, tasks, chunk, p.out, p.out, p.out);
    return 0;
}

int run_task(const SweepOptions& o, std::size_t task, std::size_t chunk) {
    if (chunk == 0) throw InputError("--chunk", 0, "expected at least 1 point per task");
    Prepared p = prepare(o, true);
    const std::size_t first = task * chunk;
    if (first >= p.points.size())
        throw InputError("--task", 0,
                         fmt::format("task {} starts at point {} but the sweep has {} points", task,
                                     first, p.points.size()));
    const std::size_t last = std::min(p.points.size(), first + chunk);
    const Limits& limits = p.limits;
    fs::create_directories(p.out + "/parts");
    Journal journal(fmt::format("{}/parts/task-{}.jsonl", p.out, task));
    std::set<std::size_t> todo(p.todo.begin(), p.todo.end());
    std::size_t ran = 0, failed = 0;
    Pool pool(std::max<std::size_t>(1, o.jobs));
    if (const auto cpus = usable_cpus(); o.jobs > 1 && cpus.size() >= o.jobs) pool.pin(cpus);
    std::size_t next = first;
    while (next < last || pool.running() > 0) {
        while (pool.free_slots() > 0 && next < last) {
            const Point& pt = p.points[next++];
            if (!todo.count(pt.index)) continue;
            if (auto e = p.model_errors.find(pt.model_key);
                !pt.model_key.empty() && e != p.model_errors.end()) {
                journal.append(model_failure_record(pt, e->second));
                ++ran, ++failed;
                continue;
            }
            pool.start(pt.index, o.clustersim, pt.run_args, p.out, limits);
        }
        for (auto& [index, outcome] : pool.wait(-1)) {
            const auto r = make_record(p, p.points[index], outcome);
            failed += record_failed(r) ? 1 : 0;
            ++ran;
            journal.append(r);
        }
    }
    std::cout << fmt::format("sweep task {}: points {}..{}, {} run, {} failed\n", task, first,
                             last - 1, ran, failed);
    return failed > 0 ? 1 : 0;
}

int collect(const std::string& dir) {
    const std::string info_path = dir + "/sweep.json";
    refuse_non_file(info_path);
    std::ifstream in(info_path);
    if (!in) throw InputError(info_path, 0, "not a sweep output folder (no sweep.json)");
    nlohmann::json info;
    const std::string info_text(std::istreambuf_iterator<char>(in), {});
    try {
        info = clustersim::sweep::parse_json_input(info_text, info_path);
    } catch (const nlohmann::json::exception&) {  // syntax, or a number out of range
        throw InputError(info_path, 0, "not valid JSON");
    }
    if (!info.contains("file") || !info["file"].is_string())
        throw InputError(info_path, 0, "no \"file\" naming the sweep file");
    SweepOptions o;
    o.file = info["file"].get<std::string>();
    o.out = dir;
    const double t0 = now_s();
    Prepared p = prepare(o, false);
    return finish(p, {}, 0, now_s() - t0, "collect");
}

}  // namespace clustersim::sweep
