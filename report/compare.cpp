#include "report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "report/csv.hpp"
#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim::traces {

double CompareRow::error() const {
    if (recorded.ps() == 0) return simulated.ps() == 0 ? 0.0 : INFINITY;
    return (simulated.seconds() - recorded.seconds()) / recorded.seconds();
}

namespace {

struct Totals {
    std::vector<Time> rank_end;
    std::vector<Time> rank_comm;
    std::vector<Time> rank_modelled;  // per rank: its modelled (MPI, MPI-IO) calls' time
    std::map<int, std::pair<std::uint64_t, Time>> ops;  // kind -> (count, summed duration)
    // (kind, size class) -> (count, summed duration), every kind but compute
    std::map<std::pair<int, int>, std::pair<std::uint64_t, Time>> by_size;
    Time end;
    // Summed over ranks: replayed (compute, unmodeled calls: their recorded durations) and
    // modelled (every other call) time.
    Time replayed, modelled;
};

bool is_replayed(int kind) {
    return kind == static_cast<int>(mpi::OpKind::Compute) ||
           kind == static_cast<int>(mpi::OpKind::Unmodeled);
}

Totals totals(const RunLog& log) {
    Totals t;
    t.rank_end.resize(log.ranks.size());
    t.rank_comm.resize(log.ranks.size());
    t.rank_modelled.resize(log.ranks.size());
    for (const auto& e : log.ops) {
        const auto r = static_cast<std::size_t>(e.rank);
        if (r >= t.rank_end.size())
            t.rank_end.resize(r + 1), t.rank_comm.resize(r + 1), t.rank_modelled.resize(r + 1);
        if (!is_replayed(e.kind)) t.rank_modelled[r] += e.end - e.start;
        t.rank_end[r] = max(t.rank_end[r], e.end);
        if (e.kind != static_cast<int>(mpi::OpKind::Compute)) t.rank_comm[r] += e.end - e.start;
        t.end = max(t.end, e.end);
        (is_replayed(e.kind) ? t.replayed : t.modelled) += e.end - e.start;
        auto& o = t.ops[e.kind];
        ++o.first;
        o.second += e.end - e.start;
        if (e.kind != static_cast<int>(mpi::OpKind::Compute)) {
            auto& z = t.by_size[{e.kind, size_class_of(e.bytes)}];
            ++z.first;
            z.second += e.end - e.start;
        }
    }
    return t;
}

std::string percent(double e) {
    if (std::isinf(e)) return "n/a";
    return fmt::format("{:+.1f}%", 100.0 * e);
}

// The per-call time of a row's side ("-" without calls).
std::string per_call(Time total, std::uint64_t calls) {
    if (calls == 0) return "-";
    return format_time(Time::ps(total.ps() / static_cast<std::int64_t>(calls)));
}

}  // namespace

int size_class_of(std::uint64_t bytes) {
    if (bytes == 0) return 0;
    int c = 1;
    for (std::uint64_t limit = 64; c < kSizeClasses - 1 && bytes > limit; limit *= 16) ++c;
    return c;
}

std::string size_class_name(int size_class) {
    if (size_class <= 0) return "0 B";
    std::uint64_t upper = 64;
    for (int c = 1; c < size_class; ++c) upper *= 16;
    if (size_class >= kSizeClasses - 1) return "> " + format_size(upper / 16);
    return fmt::format("({}, {}]", format_size(size_class == 1 ? 0 : upper / 16),
                       format_size(upper));
}

std::string program_mismatch(const RunLog& recorded, const RunLog& simulated) {
    auto ranks_of = [](const RunLog& log) {
        std::size_t n = log.ranks.size();
        for (const auto& e : log.ops) n = std::max(n, static_cast<std::size_t>(e.rank) + 1);
        return n;
    };
    const std::size_t na = ranks_of(recorded), nb = ranks_of(simulated);
    if (na != nb) return fmt::format("the recorded run has {} ranks, the simulated one {}", na, nb);
    // (rank, kind) -> calls recorded and simulated, for every kind but compute; the first
    // (rank, kind) in order where they differ.
    std::map<std::pair<std::int32_t, int>, std::pair<std::uint64_t, std::uint64_t>> calls;
    for (const auto& e : recorded.ops)
        if (e.kind != static_cast<int>(mpi::OpKind::Compute)) ++calls[{e.rank, e.kind}].first;
    for (const auto& e : simulated.ops)
        if (e.kind != static_cast<int>(mpi::OpKind::Compute)) ++calls[{e.rank, e.kind}].second;
    for (const auto& [key, n] : calls)
        if (n.first != n.second)
            return fmt::format(
                "rank {} made {} {} call{} in the recorded run, {} in the simulated "
                "one",
                key.first, n.first, mpi::stat_name(key.second), n.first == 1 ? "" : "s", n.second);
    return {};
}

Comparison compare_runs(const RunLog& recorded, const RunLog& simulated) {
    const Totals a = totals(recorded), b = totals(simulated);
    Comparison c;
    c.total = CompareRow{"total runtime", recorded.ops.size(), simulated.ops.size(), a.end, b.end};
    // Where the ranks' time went, summed over ranks: the parts add up to the ranks' runtimes.
    Time sum_a, sum_b;
    for (const Time t : a.rank_end) sum_a += t;
    for (const Time t : b.rank_end) sum_b += t;
    c.split = {CompareRow{"replayed (compute and unmodeled calls)", 0, 0, a.replayed, b.replayed},
               CompareRow{"modelled (MPI and MPI-IO calls)", 0, 0, a.modelled, b.modelled},
               CompareRow{"not in any record (gaps)", 0, 0, sum_a - a.replayed - a.modelled,
                          sum_b - b.replayed - b.modelled},
               CompareRow{"rank runtimes summed", 0, 0, sum_a, sum_b}};
    if (a.rank_end.size() != b.rank_end.size())
        c.notes.push_back(fmt::format("the recorded run has {} ranks, the simulated one {}",
                                      a.rank_end.size(), b.rank_end.size()));
    const std::size_t n = std::max(a.rank_end.size(), b.rank_end.size());
    for (std::size_t r = 0; r < n; ++r) {
        CompareRow row;
        row.name = fmt::format("rank {}", r);
        if (r < a.rank_end.size()) row.recorded = a.rank_end[r];
        if (r < b.rank_end.size()) row.simulated = b.rank_end[r];
        c.ranks.push_back(row);
        CompareRow comm;
        comm.name = row.name;
        if (r < a.rank_comm.size()) comm.recorded = a.rank_comm[r];
        if (r < b.rank_comm.size()) comm.simulated = b.rank_comm[r];
        c.rank_comm.push_back(comm);
        CompareRow modelled;
        modelled.name = row.name;
        if (r < a.rank_modelled.size()) modelled.recorded = a.rank_modelled[r];
        if (r < b.rank_modelled.size()) modelled.simulated = b.rank_modelled[r];
        c.rank_modelled.push_back(modelled);
    }
    std::map<int, CompareRow> ops;
    for (const auto& [k, v] : a.ops) {
        auto& row = ops[k];
        row.name = mpi::stat_name(k);
        row.count_recorded = v.first;
        row.recorded = v.second;
    }
    for (const auto& [k, v] : b.ops) {
        auto& row = ops[k];
        row.name = mpi::stat_name(k);
        row.count_simulated = v.first;
        row.simulated = v.second;
    }
    for (auto& [k, row] : ops) {
        if (row.count_recorded != row.count_simulated)
            c.notes.push_back(fmt::format("{}: {} calls recorded, {} simulated", row.name,
                                          row.count_recorded, row.count_simulated));
        c.ops.push_back(row);
    }
    std::map<std::pair<int, int>, CompareRow> sized;
    for (const auto& [key, v] : a.by_size) {
        auto& row = sized[key];
        row.count_recorded = v.first;
        row.recorded = v.second;
    }
    for (const auto& [key, v] : b.by_size) {
        auto& row = sized[key];
        row.count_simulated = v.first;
        row.simulated = v.second;
    }
    for (auto& [key, row] : sized) {
        row.name = fmt::format("{} {}", mpi::stat_name(key.first), size_class_name(key.second));
        c.by_size.push_back(row);
    }
    return c;
}

std::string format_comparison(const Comparison& c, std::size_t max_rank_rows, bool by_size) {
    std::string out;
    out += fmt::format("  total runtime: recorded {}, simulated {}, error {}\n",
                       format_time(c.total.recorded), format_time(c.total.simulated),
                       percent(c.total.error()));
    if (!c.split.empty()) {
        out += "\n  where the time went (summed over ranks)   recorded   simulated     error\n";
        for (const auto& r : c.split)
            out += fmt::format("  {:<38} {:>11}   {:>9}   {:>7}\n", r.name, format_time(r.recorded),
                               format_time(r.simulated), percent(r.error()));
    }
    out +=
        "\n  rank         runtime: recorded  simulated    error   MPI + I/O: recorded  simulated   "
        " error\n";
    for (std::size_t i = 0; i < c.ranks.size(); ++i) {
        if (c.ranks.size() > max_rank_rows && i == max_rank_rows / 2) {
            out += fmt::format("  ... {} more ranks\n", c.ranks.size() - max_rank_rows);
            i = c.ranks.size() - max_rank_rows / 2;
        }
        const auto& r = c.ranks[i];
        const auto& m = c.rank_comm[i];
        out += fmt::format("  {:<10} {:>19}  {:>9}  {:>7}   {:>19}  {:>9}  {:>7}\n", r.name,
                           format_time(r.recorded), format_time(r.simulated), percent(r.error()),
                           format_time(m.recorded), format_time(m.simulated), percent(m.error()));
    }
    out += "\n  operation (time summed over ranks)   calls   recorded    simulated     error\n";
    for (const auto& r : c.ops)
        out += fmt::format("  {:<34} {:>7}   {:>10}   {:>10}   {:>7}\n", r.name,
                           r.count_recorded == r.count_simulated
                               ? std::to_string(r.count_recorded)
                               : fmt::format("{}/{}", r.count_recorded, r.count_simulated),
                           format_time(r.recorded), format_time(r.simulated), percent(r.error()));
    if (by_size) {
        out +=
            "\n  operation (size class), summed over ranks       calls   recorded   simulated  "
            "   error   per call: recorded  simulated\n";
        for (const auto& r : c.by_size)
            out += fmt::format("  {:<44} {:>7}   {:>9}   {:>9}   {:>7}   {:>18}  {:>9}\n", r.name,
                               r.count_recorded == r.count_simulated
                                   ? std::to_string(r.count_recorded)
                                   : fmt::format("{}/{}", r.count_recorded, r.count_simulated),
                               format_time(r.recorded), format_time(r.simulated),
                               percent(r.error()), per_call(r.recorded, r.count_recorded),
                               per_call(r.simulated, r.count_simulated));
    }
    if (c.overhead_bursts > 0)
        out += fmt::format(
            "  tracer overhead: {} (buffer writes in {} compute bursts, summed over ranks) "
            "subtracted from the recorded side\n",
            format_time(c.overhead_subtracted), c.overhead_bursts);
    else
        out += "  tracer overhead: none recorded, nothing subtracted\n";
    for (const auto& n : c.notes) out += "  note: " + n + "\n";
    return out;
}

nlohmann::json comparison_json(const Comparison& c, bool by_size) {
    auto row = [](const CompareRow& r) {
        const double e = r.error();
        return nlohmann::json{{"name", r.name},
                              {"calls_recorded", r.count_recorded},
                              {"calls_simulated", r.count_simulated},
                              {"recorded_s", r.recorded.seconds()},
                              {"simulated_s", r.simulated.seconds()},
                              {"error", std::isfinite(e) ? nlohmann::json(e) : nlohmann::json()}};
    };
    auto rows = [&](const std::vector<CompareRow>& v) {
        nlohmann::json a = nlohmann::json::array();
        for (const CompareRow& r : v) a.push_back(row(r));
        return a;
    };
    nlohmann::json j;
    j["runtime"] = row(c.total);
    j["split"] = rows(c.split);
    nlohmann::json ranks = nlohmann::json::array();
    for (std::size_t i = 0; i < c.ranks.size(); ++i) {
        nlohmann::json r = row(c.ranks[i]);
        if (i < c.rank_modelled.size()) r["modelled"] = row(c.rank_modelled[i]);
        if (i < c.rank_comm.size()) r["not_compute"] = row(c.rank_comm[i]);
        ranks.push_back(std::move(r));
    }
    j["ranks"] = std::move(ranks);
    j["operations"] = rows(c.ops);
    if (by_size) j["by_size"] = rows(c.by_size);
    j["notes"] = c.notes;
    j["tracer_overhead_subtracted_s"] = c.overhead_subtracted.seconds();
    j["tracer_overhead_bursts"] = c.overhead_bursts;
    return j;
}

void write_comparison_csv(const Comparison& c, const std::string& path, bool by_size) {
    std::ofstream f(path);
    if (!f) throw InputError(path, 0, "cannot write the comparison CSV");
    f << "what,name,calls_recorded,calls_simulated,recorded_s,simulated_s,relative_error\n";
    auto row = [&](const char* what, const CompareRow& r) {
        f << fmt::format(
            "{},{},{},{},{:.12g},{:.12g},{}\n", what, csv_field(r.name), r.count_recorded,
            r.count_simulated, r.recorded.seconds(), r.simulated.seconds(),
            std::isinf(r.error()) ? std::string("") : fmt::format("{:.6g}", r.error()));
    };
    row("total", c.total);
    for (const auto& r : c.split) row("split", r);
    for (const auto& r : c.ranks) row("rank", r);
    for (const auto& r : c.rank_comm) row("rank_mpi_io", r);
    for (const auto& r : c.ops) row("operation", r);
    if (by_size)
        for (const auto& r : c.by_size) row("operation_size", r);
}

}  // namespace clustersim::traces
