#include "report/stats.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <fstream>
#include <tuple>

#include <fmt/format.h>

#include "collectives/program.hpp"
#include "report/csv.hpp"
#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim::traces {

namespace {

using mpi::OpKind;

constexpr int kind_of(OpKind k) {
    return static_cast<int>(k);
}

bool is_comm_creation_kind(int kind) {
    return kind >= 0 && kind < mpi::kOpKinds && mpi::creates_comm(static_cast<OpKind>(kind));
}

bool is_write_kind(int kind) {
    return kind == kind_of(OpKind::FileWrite) || kind == kind_of(OpKind::FileWriteAt) ||
           kind == kind_of(OpKind::FileWriteAll) || kind == kind_of(OpKind::FileWriteAtAll);
}

bool is_read_kind(int kind) {
    return kind == kind_of(OpKind::FileRead) || kind == kind_of(OpKind::FileReadAt) ||
           kind == kind_of(OpKind::FileReadAll) || kind == kind_of(OpKind::FileReadAtAll);
}

// Kinds whose bytes are one transfer with an active time: bandwidth = bytes / (dur - wait).
bool is_blocking_transfer_kind(int kind) {
    return kind == kind_of(OpKind::Send) || kind == kind_of(OpKind::Recv) ||
           kind == kind_of(OpKind::Sendrecv);
}

Time duration(const mpi::OpEvent& e) {
    return e.end > e.start ? e.end - e.start : Time::zero();
}

// Power-of-two bin index: 0 holds 0 (or [0, 1)), k >= 1 holds [2^(k-1), 2^k).
constexpr int kBins = 65;
int bin_index(std::uint64_t v) {
    return static_cast<int>(std::bit_width(v));
}

std::string pow2_size(int k) {  // 2^k bytes, readable
    if (k < 64) return format_size(std::uint64_t{1} << k);
    return "16777216 TiB";
}

Histogram make_histogram(const std::array<std::uint64_t, kBins>& counts, bool rate) {
    Histogram h;
    int lo = kBins, hi = -1;
    for (int k = 0; k < kBins; ++k) {
        h.total += counts[static_cast<std::size_t>(k)];
        if (counts[static_cast<std::size_t>(k)] == 0) continue;
        lo = std::min(lo, k);
        hi = std::max(hi, k);
    }
    const std::string unit = rate ? "/s" : "";
    for (int k = lo; k <= hi; ++k) {
        HistogramBin b;
        if (k == 0) {
            b.lower = 0;
            b.upper = rate ? 1 : 0;
            b.label = rate ? "0 B/s–1 B/s" : "0 B";
        } else {
            b.lower = std::ldexp(1.0, k - 1);
            b.upper = std::ldexp(1.0, k);
            b.label = pow2_size(k - 1) + unit + "–" + pow2_size(k) + unit;
        }
        b.count = counts[static_cast<std::size_t>(k)];
        h.bins.push_back(std::move(b));
    }
    return h;
}

// Exact decimal seconds of an integer picosecond count ("0.000001234", "12").
std::string seconds(Time t) {
    std::int64_t ps = t.ps();
    std::string sign;
    if (ps < 0) {
        sign = "-";
        ps = -ps;
    }
    constexpr std::int64_t kPerS = 1'000'000'000'000;
    std::string s = fmt::format("{}{}.{:012}", sign, ps / kPerS, ps % kPerS);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
}

void write_stats_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw InputError(path, 0, "cannot write the statistics file");
    out << text;
    out.flush();
    if (!out) throw InputError(path, 0, "cannot write the statistics file");
}

// Display width of UTF-8 text (code points; our labels have no wide characters).
std::size_t width(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}
std::string pad_right(const std::string& s, std::size_t w) {
    const std::size_t n = width(s);
    return n >= w ? s : s + std::string(w - n, ' ');
}
std::string pad_left(const std::string& s, std::size_t w) {
    const std::size_t n = width(s);
    return n >= w ? s : std::string(w - n, ' ') + s;
}

// A table with a header row, the first `left` columns left-aligned and the others
// right-aligned.
std::string table(const std::vector<std::vector<std::string>>& rows, const std::string& indent,
                  std::size_t left = 1) {
    std::vector<std::size_t> w;
    for (const auto& r : rows) {
        if (r.size() <= 1) continue;  // separator lines ("… N more ranks") span the table
        w.resize(std::max(w.size(), r.size()), 0);
        for (std::size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], width(r[i]));
    }
    std::string out;
    for (const auto& r : rows) {
        std::string line = indent;
        for (std::size_t i = 0; i < r.size(); ++i) {
            if (r.size() == 1) {
                line += r[i];
            } else {
                if (i > 0) line += "  ";
                line += i < left ? pad_right(r[i], w[i]) : pad_left(r[i], w[i]);
            }
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

std::string percent(Time part, Time whole) {
    if (whole.ps() <= 0) return "0 %";
    return fmt::format("{:.1f} %",
                       100.0 * static_cast<double>(part.ps()) / static_cast<double>(whole.ps()));
}

std::string histogram_text(const Histogram& h, const std::string& indent) {
    if (h.bins.empty()) return indent + "(none)\n";
    std::uint64_t peak = 0;
    std::size_t label_w = 0;
    for (const auto& b : h.bins) {
        peak = std::max(peak, b.count);
        label_w = std::max(label_w, width(b.label));
    }
    constexpr std::size_t kBar = 40;
    std::string out;
    for (const auto& b : h.bins) {
        std::size_t n = peak == 0
                            ? 0
                            : static_cast<std::size_t>(std::llround(
                                  static_cast<double>(b.count) * kBar / static_cast<double>(peak)));
        if (b.count > 0 && n == 0) n = 1;
        out += indent + pad_right(b.label, label_w) + "  |" + std::string(n, '#') +
               std::string(kBar - n, ' ') + "| " + std::to_string(b.count) + "\n";
    }
    return out;
}

std::string rank_name(const RunLog& log, std::size_t r) {
    if (r >= log.ranks.size()) return "?";
    const RankInfo& info = log.ranks[r];
    return fmt::format("{} {}", info.app, info.app_rank);
}

}  // namespace

bool is_compute_kind(int kind) {
    return kind == kind_of(OpKind::Compute);
}
bool is_io_kind(int kind) {
    return kind >= 0 && kind < mpi::kOpKinds && mpi::is_file_op(static_cast<OpKind>(kind));
}
bool is_p2p_kind(int kind) {
    return kind == kind_of(OpKind::Send) || kind == kind_of(OpKind::Recv) ||
           kind == kind_of(OpKind::Isend) || kind == kind_of(OpKind::Irecv) ||
           kind == kind_of(OpKind::Sendrecv);
}
bool is_collective_kind(int kind) {
    return kind >= mpi::kOpKinds && kind < mpi::kStatKinds;
}
bool is_blocking_collective_kind(int kind) {
    return kind >= mpi::kOpKinds && kind < mpi::kOpKinds + mpi::kCollOps;
}

bool is_grouped_kind(int kind) {
    return is_blocking_collective_kind(kind) || is_comm_creation_kind(kind);
}

std::vector<Time> effective_waits(const RunLog& log) {
    const auto& ops = log.ops;
    std::vector<Time> waits(ops.size());
    std::vector<std::size_t> group_ops;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const mpi::OpEvent& e = ops[i];
        waits[i] = std::clamp(e.wait, Time::zero(), duration(e));
        if (is_grouped_kind(e.kind)) group_ops.push_back(i);
    }
    auto key = [&](std::size_t i) {
        const mpi::OpEvent& e = ops[i];
        return std::tuple(e.comm, e.seq, e.kind, e.rank);
    };
    std::sort(group_ops.begin(), group_ops.end(),
              [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    for (std::size_t first = 0; first < group_ops.size();) {
        const mpi::OpEvent& head = ops[group_ops[first]];
        std::size_t last = first;
        Time latest = head.start;
        bool numbered = true;  // every rank at most once
        while (last < group_ops.size()) {
            const mpi::OpEvent& e = ops[group_ops[last]];
            if (e.comm != head.comm || e.seq != head.seq || e.kind != head.kind) break;
            if (last > first && ops[group_ops[last - 1]].rank == e.rank) numbered = false;
            latest = max(latest, e.start);
            ++last;
        }
        if (numbered) {
            for (std::size_t j = first; j < last; ++j) {
                const std::size_t i = group_ops[j];
                const Time w = min(latest - ops[i].start, duration(ops[i]));
                waits[i] = max(waits[i], w);
            }
        }
        first = last;
    }
    return waits;
}

const HistogramBin* Histogram::find(double value) const {
    for (const auto& b : bins) {
        if (b.upper == 0 ? value == 0 : (b.lower <= value && value < b.upper)) return &b;
    }
    return nullptr;
}

void StatsAccumulator::add(const mpi::OpEvent& e, Time w) {
    if (e.rank < 0) return;
    if (st_.kinds.empty()) st_.kinds.resize(static_cast<std::size_t>(mpi::kStatKinds));
    if (static_cast<std::size_t>(e.rank) >= st_.ranks.size())
        st_.ranks.resize(static_cast<std::size_t>(e.rank) + 1);
    const Time dur = duration(e);
    RankStats& r = st_.ranks[static_cast<std::size_t>(e.rank)];
    ++r.ops;
    r.total = max(r.total, e.end);
    if (is_compute_kind(e.kind)) {
        r.compute += dur - w;
    } else if (is_io_kind(e.kind)) {
        r.io += dur - w;
    } else {
        r.comm += dur - w;
    }
    r.wait += w;
    if (is_p2p_kind(e.kind)) r.bytes_p2p += e.bytes;
    if (is_collective_kind(e.kind)) r.bytes_collective += e.bytes;
    if (is_write_kind(e.kind)) r.bytes_written += e.bytes;
    if (is_read_kind(e.kind)) r.bytes_read += e.bytes;

    if (e.kind >= 0 && e.kind < mpi::kStatKinds) {
        KindStats& k = st_.kinds[static_cast<std::size_t>(e.kind)];
        k.min = k.count == 0 ? dur : min(k.min, dur);
        k.max = k.count == 0 ? dur : max(k.max, dur);
        ++k.count;
        k.time += dur;
        k.wait += w;
        k.bytes += e.bytes;
    }
    if (is_p2p_kind(e.kind) || is_collective_kind(e.kind))
        ++sizes_[static_cast<std::size_t>(bin_index(e.bytes))];
    const Time active = dur - w;
    if (is_blocking_transfer_kind(e.kind) && e.bytes > 0 && active.ps() > 0) {
        const uint128 rate = static_cast<uint128>(e.bytes) * 1'000'000'000'000ULL /
                             static_cast<uint128>(active.ps());
        const std::uint64_t r64 = rate > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(rate);
        ++rates_[static_cast<std::size_t>(bin_index(r64))];
    }
}

Stats StatsAccumulator::finish(const RunLog& log) {
    Stats st = std::move(st_);
    st_ = Stats{};
    if (st.ranks.size() < log.ranks.size()) st.ranks.resize(log.ranks.size());
    st.kinds.resize(static_cast<std::size_t>(mpi::kStatKinds));
    st.finish = log.simulated;
    for (RankStats& r : st.ranks) {
        const Time busy = r.compute + r.comm + r.wait + r.io;
        r.idle = r.total > busy ? r.total - busy : Time::zero();
        st.finish = max(st.finish, r.total);
        st.compute += r.compute;
        st.comm += r.comm;
        st.wait += r.wait;
        st.io += r.io;
        st.idle += r.idle;
        st.ops += r.ops;
    }
    std::array<std::uint64_t, kBins> sizes{}, rates{};
    std::copy(sizes_.begin(), sizes_.end(), sizes.begin());
    std::copy(rates_.begin(), rates_.end(), rates.begin());
    std::fill(sizes_.begin(), sizes_.end(), 0);
    std::fill(rates_.begin(), rates_.end(), 0);
    st.sizes = make_histogram(sizes, false);
    st.bandwidth = make_histogram(rates, true);
    return st;
}

Stats compute_stats(const RunLog& log) {
    const std::vector<Time> waits = effective_waits(log);
    StatsAccumulator acc;
    for (std::size_t i = 0; i < log.ops.size(); ++i) acc.add(log.ops[i], waits[i]);
    return acc.finish(log);
}

void write_stats_csv(const Stats& stats, const RunLog& log, const std::string& dir) {
    const std::string base = dir.empty() || dir.back() == '/' ? dir : dir + "/";

    std::string ranks =
        "rank,app,app_rank,node,total_s,compute_s,comm_s,wait_s,io_s,idle_s,ops,bytes_p2p,"
        "bytes_collective,bytes_written,bytes_read\n";
    for (std::size_t i = 0; i < stats.ranks.size(); ++i) {
        const RankStats& r = stats.ranks[i];
        const RankInfo info = i < log.ranks.size() ? log.ranks[i] : RankInfo{};
        ranks +=
            fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", i, csv_field(info.app),
                        info.app_rank, csv_field(info.node), seconds(r.total), seconds(r.compute),
                        seconds(r.comm), seconds(r.wait), seconds(r.io), seconds(r.idle), r.ops,
                        r.bytes_p2p, r.bytes_collective, r.bytes_written, r.bytes_read);
    }
    write_stats_file(base + "ranks.csv", ranks);

    std::string ops = "operation,kind,count,total_s,wait_s,bytes,min_s,mean_s,max_s\n";
    for (std::size_t k = 0; k < stats.kinds.size(); ++k) {
        const KindStats& s = stats.kinds[k];
        if (s.count == 0) continue;
        ops += fmt::format("{},{},{},{},{},{},{},{},{}\n", mpi::stat_name(static_cast<int>(k)), k,
                           s.count, seconds(s.time), seconds(s.wait), s.bytes, seconds(s.min),
                           seconds(s.mean()), seconds(s.max));
    }
    write_stats_file(base + "operations.csv", ops);

    auto hist = [](const Histogram& h, const std::string& unit) {
        std::string out = fmt::format("bin,lower_{0},upper_{0},count\n", unit);
        for (const auto& b : h.bins)
            out +=
                fmt::format("{},{:.0f},{:.0f},{}\n", csv_field(b.label), b.lower, b.upper, b.count);
        return out;
    };
    write_stats_file(base + "histogram_sizes.csv", hist(stats.sizes, "bytes"));
    write_stats_file(base + "histogram_bandwidth.csv", hist(stats.bandwidth, "bytes_per_s"));
}

std::string format_stats(const Stats& stats, const RunLog& log, std::size_t max_rank_rows) {
    std::string out;
    out += "Statistics" + (log.title.empty() ? std::string() : ": " + log.title) + "\n";
    out += fmt::format("  {} ranks, {} operations, finished at {}\n", stats.ranks.size(), stats.ops,
                       format_time(stats.finish));
    const Time all = stats.compute + stats.comm + stats.wait + stats.io + stats.idle;
    out += fmt::format("  time of all ranks: {} = compute {} ({}), communication {} ({}),\n",
                       format_time(all), format_time(stats.compute), percent(stats.compute, all),
                       format_time(stats.comm), percent(stats.comm, all));
    out += fmt::format("    wait {} ({}), I/O {} ({}), idle {} ({})\n", format_time(stats.wait),
                       percent(stats.wait, all), format_time(stats.io), percent(stats.io, all),
                       format_time(stats.idle), percent(stats.idle, all));

    out += "\nOperations (time summed over ranks):\n";
    std::vector<std::vector<std::string>> rows{
        {"operation", "count", "total", "wait", "bytes", "min", "mean", "max"}};
    for (std::size_t k = 0; k < stats.kinds.size(); ++k) {
        const KindStats& s = stats.kinds[k];
        if (s.count == 0) continue;
        rows.push_back({mpi::stat_name(static_cast<int>(k)), std::to_string(s.count),
                        format_time(s.time), format_time(s.wait), format_size(s.bytes),
                        format_time(s.min), format_time(s.mean()), format_time(s.max)});
    }
    if (rows.size() == 1) rows.push_back({"(none)"});
    out += table(rows, "  ");

    out += "\nRanks:\n";
    rows = {{"rank", "app rank", "node", "finish", "compute", "comm", "wait", "I/O", "idle",
             "MPI bytes", "I/O bytes"}};
    const std::size_t n = stats.ranks.size();
    const std::size_t keep = std::max<std::size_t>(max_rank_rows, 2);
    auto add_rank = [&](std::size_t i) {
        const RankStats& r = stats.ranks[i];
        rows.push_back(
            {std::to_string(i), rank_name(log, i), i < log.ranks.size() ? log.ranks[i].node : "?",
             format_time(r.total), format_time(r.compute), format_time(r.comm), format_time(r.wait),
             format_time(r.io), format_time(r.idle), format_size(r.bytes_p2p + r.bytes_collective),
             format_size(r.bytes_written + r.bytes_read)});
    };
    if (n <= keep) {
        for (std::size_t i = 0; i < n; ++i) add_rank(i);
    } else {
        const std::size_t head = keep / 2, tail = keep - head;
        for (std::size_t i = 0; i < head; ++i) add_rank(i);
        rows.push_back({fmt::format("… {} more ranks", n - head - tail)});
        for (std::size_t i = n - tail; i < n; ++i) add_rank(i);
    }
    if (n == 0) rows.push_back({"(none)"});
    out += table(rows, "  ", 3);

    out += fmt::format("\nMessage sizes (point-to-point and collective calls: {}):\n",
                       stats.sizes.total);
    out += histogram_text(stats.sizes, "  ");
    out += fmt::format("\nPoint-to-point bandwidth (bytes / (duration - wait), transfers: {}):\n",
                       stats.bandwidth.total);
    out += histogram_text(stats.bandwidth, "  ");
    return out;
}

}  // namespace clustersim::traces
