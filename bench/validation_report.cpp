// Accuracy figures for docs/validation.md (issue 7): the time per call of one
// clustersim-bench phase in a recorded trace and in the simulated trace of its replay, and
// the report over all phases. Driven by bench/validate.sh; see docs/validation.md.
//
//   validation_report phase RECORDED SIMULATED BENCHMARK REPEATS
//       prints "recorded_seconds simulated_seconds" per call
//   validation_report table RESULTS.csv
//       prints the Markdown table (recorded, simulated, error per benchmark and payload)
//       and the median absolute error
//   validation_report overhead PLAIN.csv,... TRACED.csv,...
//       the tracer's overhead per phase: clustersim-bench --csv files of runs without and
//       with the tracer; per phase the median of each side, then the median, mean and worst
//       overhead in percent
//
// A phase of clustersim-bench is, on every rank: warm-up calls, MPI_Barrier, REPEATS calls
// (t0 at the barrier's end, t1 at the last call's end), then the MPI_Reduce that reports the
// time. Its time per call is max over ranks of (t1 - t0) / REPEATS, as the benchmark itself
// measures it; here both are read from the traces' records, so the recorded and the simulated
// figure are measured the same way.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

using namespace clustersim;

namespace {

bool is_call(const traces::Record& r) {
    return r.kind != mpi::OpKind::Compute && r.kind != mpi::OpKind::Unmodeled;
}
bool is_coll(const traces::Record& r, mpi::CollOp op) {
    return r.kind == mpi::OpKind::Collective && r.coll == op && !r.nonblocking;
}

// Seconds per call of the phase in `path`.
double phase_seconds(const std::string& path, const std::string& benchmark, int repeats) {
    traces::ReadReport rep;
    const traces::Trace t = traces::load_trace(path, "auto", {}, rep);
    double worst = 0;
    for (std::uint32_t rank = 0; rank < t.ranks(); ++rank) {
        std::vector<traces::Record> calls;
        auto c = t.cursor(rank);
        traces::Record r;
        while (c.next(r))
            if (is_call(r)) calls.push_back(r);
        // The report: the last MPI_Reduce.
        auto report = std::find_if(calls.rbegin(), calls.rend(), [](const traces::Record& x) {
            return is_coll(x, mpi::CollOp::Reduce);
        });
        if (report == calls.rend())
            throw InputError(path, 0, fmt::format("rank {}: no closing MPI_Reduce", rank));
        auto last = std::next(report);  // the last measured call
        auto sync = last;
        if (benchmark == "barrier") {
            sync = std::next(last, repeats);
            if (sync >= calls.rend() || !is_coll(*sync, mpi::CollOp::Barrier))
                throw InputError(path, 0,
                                 fmt::format("rank {}: expected {} barriers after the sync "
                                             "barrier",
                                             rank, repeats));
        } else {
            while (sync != calls.rend() && !is_coll(*sync, mpi::CollOp::Barrier)) ++sync;
            if (sync == calls.rend() || sync == last)
                throw InputError(path, 0, fmt::format("rank {}: no measured calls", rank));
        }
        if (!last->timed || !sync->timed) throw InputError(path, 0, "the trace has no times");
        worst = std::max(worst, (last->end - sync->end).seconds());
    }
    return worst / repeats;
}

double median_of(std::vector<double> v);

std::string human_time(double s) {
    return format_time(Time::from_seconds(s));
}

int table(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw InputError(path, 0, "cannot open");
    std::string line;
    std::getline(in, line);  // header
    struct Row {
        std::string benchmark;
        std::uint64_t payload = 0;
        int ranks = 0;
        double recorded = 0, simulated = 0, fastest = 0, slowest = 0;
    };
    std::vector<Row> rows;
    int n = 1;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty()) continue;
        std::stringstream ss(line);
        Row r;
        std::string f[7];
        for (auto& x : f) std::getline(ss, x, ',');
        try {
            r.benchmark = f[0];
            r.payload = std::stoull(f[1]);
            r.ranks = std::stoi(f[2]);
            r.recorded = std::stod(f[3]);
            r.simulated = std::stod(f[4]);
            r.fastest = std::stod(f[5]);
            r.slowest = std::stod(f[6]);
        } catch (const std::exception&) {
            throw InputError(path, n,
                             "expected benchmark,payload_bytes,ranks,recorded_s,simulated_s,"
                             "recorded_min_s,recorded_max_s");
        }
        if (r.recorded <= 0 || r.fastest <= 0)
            throw InputError(path, n, "expected positive recorded times");
        rows.push_back(r);
    }
    if (rows.empty()) throw InputError(path, 0, "no results");
    std::cout << "| benchmark | payload | recorded: median of runs (fastest – slowest) | "
                 "simulated | error vs median | error vs fastest |\n"
                 "| --- | ---: | ---: | ---: | ---: | ---: |\n";
    std::vector<double> err_median, err_fastest;
    std::size_t inside = 0;
    for (const Row& r : rows) {
        const double em = (r.simulated - r.recorded) / r.recorded;
        const double ef = (r.simulated - r.fastest) / r.fastest;
        const bool in_spread = r.simulated >= r.fastest && r.simulated <= r.slowest;
        inside += in_spread ? 1 : 0;
        std::cout << fmt::format(
            "| {} | {} | {} ({} – {}) | {}{} | {:+.1f} % | {:+.1f} % |\n", r.benchmark,
            r.payload == 0 ? std::string("–") : format_size(r.payload), human_time(r.recorded),
            human_time(r.fastest), human_time(r.slowest), human_time(r.simulated),
            in_spread ? " (within)" : "", 100 * em, 100 * ef);
        err_median.push_back(std::abs(em));
        err_fastest.push_back(std::abs(ef));
    }
    const auto within = [](const std::vector<double>& e, double bound) {
        return std::count_if(e.begin(), e.end(), [&](double x) { return x <= bound; });
    };
    double mean = 0;
    for (double e : err_median) mean += e;
    mean /= static_cast<double>(err_median.size());
    std::cout << fmt::format(
        "\n{} phases, {} ranks. Against the median run: median absolute error {:.1f} %, mean "
        "{:.1f} %, largest {:.1f} %; {} within 15 %, {} within 30 %. Against the fastest run: "
        "median absolute error {:.1f} %; {} within 15 %. Simulated time inside the recorded "
        "runs' spread: {} of {}.\n",
        rows.size(), rows.front().ranks, 100 * median_of(err_median), 100 * mean,
        100 * *std::max_element(err_median.begin(), err_median.end()), within(err_median, 0.15),
        within(err_median, 0.30), 100 * median_of(err_fastest), within(err_fastest, 0.15), inside,
        rows.size());
    return 0;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string x;
    while (std::getline(ss, x, sep))
        if (!x.empty()) out.push_back(x);
    return out;
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size();
    return m % 2 == 1 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

// clustersim-bench CSV: benchmark,payload_bytes,ranks,repeats,seconds_per_call.
void read_bench_csv(const std::string& path,
                    std::vector<std::pair<std::string, std::vector<double>>>& phases) {
    std::ifstream in(path);
    if (!in) throw InputError(path, 0, "cannot open");
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line[0] == '#' || line.rfind("benchmark,", 0) == 0) continue;
        const auto f = split(line, ',');
        if (f.size() != 5)
            throw InputError(path, n,
                             "expected benchmark,payload_bytes,ranks,repeats,seconds_per_call");
        const std::string key = f[0] + ":" + f[1];
        double v = 0;
        try {
            v = std::stod(f[4]);
        } catch (const std::exception&) {
            throw InputError(path, n, fmt::format("'{}': expected seconds", f[4]));
        }
        auto it = std::find_if(phases.begin(), phases.end(),
                               [&](const auto& p) { return p.first == key; });
        if (it == phases.end()) {
            phases.push_back({key, {}});
            it = std::prev(phases.end());
        }
        it->second.push_back(v);
    }
}

int overhead(const std::string& plain_list, const std::string& traced_list) {
    std::vector<std::pair<std::string, std::vector<double>>> plain, traced;
    for (const auto& p : split(plain_list, ',')) read_bench_csv(p, plain);
    for (const auto& p : split(traced_list, ',')) read_bench_csv(p, traced);
    std::vector<double> over;
    std::cout
        << "| phase | without tracer | with tracer | overhead |\n| --- | ---: | ---: | ---: |\n";
    for (const auto& [key, values] : plain) {
        auto it = std::find_if(traced.begin(), traced.end(),
                               [&](const auto& p) { return p.first == key; });
        if (it == traced.end())
            throw InputError(traced_list, 0, fmt::format("no traced run of phase {}", key));
        const double a = median_of(values), b = median_of(it->second);
        const double o = (b - a) / a;
        over.push_back(o);
        std::cout << fmt::format("| {} | {} | {} | {:+.1f} % |\n", key, human_time(a),
                                 human_time(b), 100 * o);
    }
    if (over.empty()) throw InputError(plain_list, 0, "no phases");
    double mean = 0;
    for (double o : over) mean += o;
    mean /= static_cast<double>(over.size());
    std::cout << fmt::format(
        "\n{} phases: overhead median {:+.1f} %, mean {:+.1f} %, worst "
        "{:+.1f} %\n",
        over.size(), 100 * median_of(over), 100 * mean,
        100 * *std::max_element(over.begin(), over.end()));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::vector<std::string> a(argv + 1, argv + argc);
        if (a.size() == 5 && a[0] == "phase") {
            int repeats = 0;
            try {
                repeats = std::stoi(a[4]);
            } catch (const std::exception&) {
            }
            if (repeats <= 0)
                throw InputError("REPEATS", 0, fmt::format("'{}': expected a count >= 1", a[4]));
            std::cout << fmt::format("{:.9e} {:.9e}\n", phase_seconds(a[1], a[3], repeats),
                                     phase_seconds(a[2], a[3], repeats));
            return 0;
        }
        if (a.size() == 2 && a[0] == "table") return table(a[1]);
        if (a.size() == 3 && a[0] == "overhead") return overhead(a[1], a[2]);
        std::cerr << "usage: validation_report phase RECORDED SIMULATED BENCHMARK REPEATS\n"
                     "       validation_report table RESULTS.csv\n"
                     "       validation_report overhead PLAIN.csv,... TRACED.csv,...\n";
        return 2;
    } catch (const InputError& e) {
        std::cerr << "validation_report: error: " << e.what() << "\n";
        return 2;
    }
}
