#include "report/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "mpi/runtime.hpp"
#include "simulator/units.hpp"

namespace clustersim::traces {

namespace {

constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
constexpr std::size_t kColors = sizeof(kPalette) / sizeof(kPalette[0]);
constexpr double kCharWidth = 7.0;  // estimated width of one character at font-size 12
constexpr double kPlotHeight = 300;
constexpr double kLeft = 72, kRight = 24;

const char* color(std::size_t i) {
    return kPalette[i % kColors];
}

std::size_t chars(const std::string& s) {  // UTF-8 code points
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

std::string num(double v) {  // a coordinate
    if (std::fabs(v) < 0.005) v = 0;
    return fmt::format("{:.2f}", v);
}

// Ticks at "nice" steps (1, 2, 5 x 10^k) covering [lo, hi]; widens lo/hi to the outer ticks.
struct Axis {
    double lo = 0, hi = 1;
    std::vector<double> ticks;
    std::vector<std::string> labels;
};

std::string tick_label(double v, double step) {
    if (std::fabs(v) < step * 1e-9) v = 0;
    const double a = std::fabs(v);
    if (a != 0 && (a >= 1e7 || a < 1e-4)) return fmt::format("{:g}", v);
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    return fmt::format("{:.{}f}", v, decimals);
}

Axis linear_axis(double lo, double hi, int target = 5) {
    if (!(hi > lo)) {
        const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
        lo -= pad;
        hi += pad;
    }
    const double raw = (hi - lo) / target;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        step = m * mag;
        if (step >= raw * (1 - 1e-9)) break;
    }
    Axis a;
    a.lo = std::floor(lo / step + 1e-9) * step;
    a.hi = std::ceil(hi / step - 1e-9) * step;
    for (double k = std::round(a.lo / step); k <= std::round(a.hi / step) + 0.5; k += 1) {
        a.ticks.push_back(k * step);
        a.labels.push_back(tick_label(k * step, step));
    }
    return a;
}

// Logarithmic axis in log10 units: ticks at powers of 10, or of 2 when the data spans less
// than two decades.
Axis log_axis(double min_x, double max_x) {
    Axis a;
    // Powers of two at both ends (task counts, sizes in bytes) keep base 2 at any range.
    auto power_of_two = [](double v) {
        const double k = std::round(std::log2(v));
        return std::abs(std::exp2(k) - v) < 1e-9 * v;
    };
    const bool base2 = max_x / min_x < 100 || (power_of_two(min_x) && power_of_two(max_x));
    const double base = base2 ? 2.0 : 10.0;
    const double lb = std::log10(base);
    double k_lo = std::floor(std::log10(min_x) / lb + 1e-9);
    double k_hi = std::ceil(std::log10(max_x) / lb - 1e-9);
    if (k_hi <= k_lo) k_hi = k_lo + 1;
    const double every = std::max(1.0, std::ceil((k_hi - k_lo) / 10));
    k_lo = std::floor(k_lo / every) * every;
    k_hi = std::ceil(k_hi / every) * every;
    a.lo = k_lo * lb;
    a.hi = k_hi * lb;
    for (double k = k_lo; k <= k_hi + 0.5; k += every) {
        a.ticks.push_back(k * lb);
        const double v = std::pow(base, k);
        // Whole numbers in full up to 10^7 (1048576, not 1.04858e+06).
        a.labels.push_back(v < 1e7 && v == std::floor(v) ? fmt::format("{:.0f}", v)
                                                         : fmt::format("{:g}", v));
    }
    return a;
}

struct Frame {
    double width = 0, height = 0;
    double top = 0, left = kLeft, plot_w = 0, plot_h = kPlotHeight;
};

// Title, legend (wrapped into rows) and the plot's top edge.
std::string header(const std::string& title, const std::vector<std::string>& names, bool lines,
                   Frame& f) {
    std::string out;
    out += fmt::format(
        R"(<text x="{}" y="24" text-anchor="middle" font-size="16" font-weight="bold">{}</text>)"
        "\n",
        num(f.width / 2), svg_escape(title));
    double x = f.left, y = 46;
    out += "<g class=\"legend\">\n";
    for (std::size_t i = 0; i < names.size(); ++i) {
        const double w = 22 + kCharWidth * static_cast<double>(chars(names[i])) + 16;
        if (x + w > f.width - kRight && x > f.left) {
            x = f.left;
            y += 18;
        }
        if (lines) {
            out += fmt::format(
                R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"/>)"
                R"(<circle cx="{}" cy="{}" r="3" fill="{}"/>)",
                num(x), num(y - 4), num(x + 16), num(y - 4), color(i), num(x + 8), num(y - 4),
                color(i));
        } else {
            out += fmt::format(R"(<rect x="{}" y="{}" width="12" height="12" fill="{}"/>)",
                               num(x + 2), num(y - 10), color(i));
        }
        out += fmt::format(R"(<text x="{}" y="{}">{}</text>)"
                           "\n",
                           num(x + 22), num(y), svg_escape(names[i]));
        x += w;
    }
    out += "</g>\n";
    f.top = y + 24;
    return out;
}

std::string open_svg(double width, double height) {
    return fmt::format(
        R"(<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{0}" height="{1}" )"
        R"(viewBox="0 0 {0} {1}" font-family="sans-serif" font-size="12">)"
        "\n"
        R"(<rect x="0" y="0" width="{0}" height="{1}" fill="white"/>)"
        "\n",
        num(width), num(height));
}

// Horizontal grid lines, y tick labels and the rotated y axis label.
std::string y_axis(const Axis& a, const Frame& f, const std::string& label) {
    std::string out = "<g class=\"y-axis\">\n";
    for (std::size_t i = 0; i < a.ticks.size(); ++i) {
        const double y = f.top + f.plot_h * (a.hi - a.ticks[i]) / (a.hi - a.lo);
        out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#dddddd"/>)"
                           R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="black"/>)"
                           R"(<text x="{}" y="{}" text-anchor="end">{}</text>)"
                           "\n",
                           num(f.left), num(y), num(f.left + f.plot_w), num(y), num(f.left - 5),
                           num(y), num(f.left), num(y), num(f.left - 8), num(y + 4),
                           svg_escape(a.labels[i]));
    }
    const double cy = f.top + f.plot_h / 2;
    out += fmt::format(
        R"svg(<text x="16" y="{0}" text-anchor="middle" transform="rotate(-90 16 {0})">{1}</text>)svg"
        "\n",
        num(cy), svg_escape(label));
    out += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="black"/>)"
                       "\n",
                       num(f.left), num(f.top), num(f.top + f.plot_h));
    out += "</g>\n";
    return out;
}

}  // namespace

// ---- Timelines (svg_timelines) ----

namespace {

// Fixed colours per statistics kind: point-to-point blues/oranges/reds, communicator creation
// browns, file writes greens, file reads pinks, collectives their own set (nonblocking ones
// lighter). Indexed by mpi::OpKind, then by mpi::CollOp.
constexpr const char* kOpColors[] = {
    "#c8c8c8",  // Compute: neutral grey
    "#1f77b4",  // Send
    "#ff7f0e",  // Recv
    "#aec7e8",  // Isend
    "#ffbb78",  // Irecv
    "#d62728",  // Wait
    "#ff9896",  // Waitall
    "#9467bd",  // Sendrecv
    "#5f5f5f",  // Collective (never a statistics kind of its own)
    "#8c564b",  // CommDup
    "#6f4e37",  // CommSplit
    "#17becf",  // FileOpen
    "#9edae5",  // FileClose
    "#bcbd22",  // FileSetView
    "#dbdb8d",  // FileSeek
    "#2ca02c",  // FileWrite
    "#e377c2",  // FileRead
    "#006d2c",  // FileWriteAt
    "#c51b7d",  // FileReadAt
    "#74c476",  // FileWriteAll
    "#f1b6da",  // FileReadAll
    "#41ab5d",  // FileWriteAtAll
    "#de77ae",  // FileReadAtAll
    "#637939",  // FileSync
    "#8a8a8a",  // Unmodeled: runs like Compute, a darker grey
    "#a0522d",  // CartCreate
    "#b87333",  // DistGraphCreateAdjacent
    "#cd853f",  // DistGraphCreate
    "#e6550d",  // Cancel
    "#8c6d31",  // CommFree
    "#9e9ac8",  // WinCreate
    "#bcbddc",  // WinFree
    "#6a51a3",  // Put
    "#807dba",  // Get
    "#54278f",  // Accumulate
    "#3f007d",  // GetAccumulate
    "#dadaeb",  // WinFence
    "#fdae6b",  // WinLock
    "#fd8d3c",  // WinUnlock
    "#d94801",  // WinFlush
};
static_assert(sizeof(kOpColors) / sizeof(kOpColors[0]) == mpi::kOpKinds);
constexpr const char* kCollColors[] = {
    "#843c39",  // Barrier
    "#e7ba52",  // Bcast
    "#5254a3",  // Reduce
    "#6b6ecf",  // Allreduce
    "#ad494a",  // Gather
    "#e7969c",  // Scatter
    "#7b4173",  // Allgather
    "#a55194",  // Alltoall
    "#ce6dbd",  // ReduceScatter
    "#8ca252",  // Gatherv
    "#b5cf6b",  // Scatterv
    "#bd9e39",  // Allgatherv
    "#393b79",  // Alltoallv
    "#1b9e77",  // Scan
    "#d95f02",  // Exscan
    "#7570b3",  // ReduceScatterBlock
    "#e7298a",  // Alltoallw
    "#66a61e",  // NeighborAllgather
    "#a6d854",  // NeighborAllgatherv
    "#e6ab02",  // NeighborAlltoall
    "#a6761d",  // NeighborAlltoallv
    "#666666",  // NeighborAlltoallw
};
static_assert(sizeof(kCollColors) / sizeof(kCollColors[0]) == mpi::kCollOps);

std::string lighter(const char* hex, double f) {  // blend toward white by f
    const unsigned long v = std::strtoul(hex + 1, nullptr, 16);
    auto ch = [&](int shift) {
        const double c = static_cast<double>((v >> shift) & 0xFF);
        return static_cast<unsigned>(std::lround(c + (255 - c) * f));
    };
    return fmt::format("#{:02x}{:02x}{:02x}", ch(16), ch(8), ch(0));
}

constexpr double kTimelineRight = 24;

std::string time_text(Time t) {  // "0 s", not "0 ps"
    return t == Time::zero() ? std::string("0 s") : format_time(t);
}

struct TimeUnit {
    double ps;
    const char* name;
};

// The unit whose numbers read best over a window of `span` picoseconds.
TimeUnit time_unit(std::int64_t span) {
    if (span >= 2'000'000'000'000) return {1e12, "s"};
    if (span >= 2'000'000'000) return {1e9, "ms"};
    if (span >= 2'000'000) return {1e6, "\u00b5s"};
    return {1e3, "ns"};
}

double nice_step(double range, int target) {
    const double raw = range / target;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (m * mag >= raw * (1 - 1e-9)) return m * mag;
    return 10 * mag;
}

struct Panel {
    std::string label, title;
    std::size_t ranks = 0;  // of the run (rows drawn: min(ranks, kTimelineMaxRows))
    std::vector<std::vector<const mpi::OpEvent*>> rows;
    std::size_t events = 0;  // in the window
};

// Draws one row's operations (sorted by start) at merge width `bin` pixels.
struct RowDrawer {
    Time from;
    double scale = 0;  // pixels per picosecond
    double bin = 1;
    bool titles = true;
    double y = 0, h = 0;
    std::string* out = nullptr;
    long max_col = 0;

    // The column being merged and the kinds' weights in it (pixels covered), including the
    // parts of wide operations that reach into it.
    long col = -1;
    std::vector<std::pair<int, double>> weights;
    // The column the last wide operation ended in, and how much of it that operation covers.
    long tail_col = -1;
    int tail_kind = 0;
    double tail_px = 0;
    // A run of marks of one kind over columns [c0, c1] not yet written.
    int open_kind = -1;
    long c0 = 0, c1 = 0;

    double x(Time t) const { return kTimelineLeft + static_cast<double>((t - from).ps()) * scale; }
    long column(double px) const {
        return std::clamp(static_cast<long>(std::floor((px - kTimelineLeft) / bin)), 0L, max_col);
    }
    double column_x(long c) const { return kTimelineLeft + static_cast<double>(c) * bin; }

    void rect(double x0, double w, int kind) {
        *out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>)"
                            "\n",
                            num(x0), num(y), num(w), num(h), timeline_color(kind));
    }
    void weigh(int kind, double w) {
        auto it = std::find_if(weights.begin(), weights.end(),
                               [&](const auto& p) { return p.first == kind; });
        if (it == weights.end())
            weights.emplace_back(kind, w);
        else
            it->second += w;
    }
    void close_marks() {
        if (open_kind < 0) return;
        const double x1 = std::min(column_x(c1 + 1), kTimelineLeft + kTimelinePlotWidth);
        rect(column_x(c0), x1 - column_x(c0), open_kind);
        open_kind = -1;
    }
    void close_column() {
        if (col < 0) return;
        const auto best =
            std::max_element(weights.begin(), weights.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        const int kind = best->first;
        if (open_kind == kind && c1 + 1 == col) {
            c1 = col;
        } else {
            close_marks();
            open_kind = kind;
            c0 = c1 = col;
        }
        weights.clear();
        col = -1;
    }
    void add(const mpi::OpEvent& e, Time to) {
        const Time s = max(e.start, from), t = min(e.end, to);
        const double x0 = x(s), x1 = x(t);
        if (x1 - x0 >= bin) {
            if (col >= 0 && column(x0) == col) weigh(e.kind, column_x(col + 1) - x0);
            close_column();
            close_marks();
            tail_col = column(x1);
            tail_kind = e.kind;
            tail_px = x1 - column_x(tail_col);
            if (!titles) {
                rect(x0, x1 - x0, e.kind);
                return;
            }
            std::string tip = fmt::format("rank {} {}: {} at {}", e.rank, mpi::stat_name(e.kind),
                                          time_text(e.end - e.start), time_text(e.start));
            if (e.bytes > 0) tip += ", " + format_size(e.bytes);
            if (e.peer >= 0) tip += fmt::format(", peer {}", e.peer);
            *out += fmt::format(
                R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}</title></rect>)"
                "\n",
                num(x0), num(y), num(x1 - x0), num(h), timeline_color(e.kind), svg_escape(tip));
            return;
        }
        const long c = column(x0);
        if (c != col) {
            close_column();
            col = c;
            if (c == tail_col) weigh(tail_kind, tail_px);
        }
        // Zero-length operations weigh next to nothing: they decide a column only when nothing
        // longer is in it.
        weigh(e.kind, std::max(x1 - x0, 1e-9));
    }
    void finish() {
        close_column();
        close_marks();
    }
};

}  // namespace

std::string timeline_color(int kind) {
    if (kind < 0 || kind >= mpi::kStatKinds) return "#5f5f5f";
    if (kind < mpi::kOpKinds) return kOpColors[kind];
    const int c = (kind - mpi::kOpKinds) % mpi::kCollOps;
    if (kind < mpi::kOpKinds + mpi::kCollOps) return kCollColors[c];
    return lighter(kCollColors[c], 0.45);
}

std::string svg_timelines(const std::string& title,
                          const std::vector<std::pair<std::string, const RunLog*>>& runs, Time from,
                          Time to, std::size_t max_bytes) {
    if (!(from < to)) throw std::invalid_argument("svg_timelines: the window must not be empty");
    const std::int64_t span = (to - from).ps();
    const double scale = kTimelinePlotWidth / static_cast<double>(span);

    // The operations of each rank in the window, by start.
    std::vector<Panel> panels;
    std::vector<bool> present(mpi::kStatKinds + 1, false);
    for (const auto& [label, log] : runs) {
        Panel p;
        p.label = label;
        p.title = log != nullptr ? log->title : "";
        if (log != nullptr) {
            p.ranks = log->ranks.size();
            for (const auto& e : log->ops)
                if (e.rank >= 0) p.ranks = std::max(p.ranks, static_cast<std::size_t>(e.rank) + 1);
        }
        p.rows.resize(std::min(p.ranks, kTimelineMaxRows));
        if (log != nullptr)
            for (const auto& e : log->ops) {
                const bool inside = e.start == e.end ? e.start >= from && e.start < to
                                                     : e.end > from && e.start < to;
                if (!inside || e.rank < 0 || static_cast<std::size_t>(e.rank) >= p.rows.size())
                    continue;
                p.rows[static_cast<std::size_t>(e.rank)].push_back(&e);
                present[static_cast<std::size_t>(
                    std::clamp(e.kind, 0, static_cast<int>(mpi::kStatKinds)))] = true;
                ++p.events;
            }
        for (auto& row : p.rows)
            std::stable_sort(row.begin(), row.end(), [](const auto* a, const auto* b) {
                return a->start < b->start || (a->start == b->start && a->end < b->end);
            });
        panels.push_back(std::move(p));
    }

    // Geometry: rows of one height in every panel, labels every `label_every` rows.
    std::size_t most_rows = 1;
    for (const auto& p : panels) most_rows = std::max(most_rows, p.rows.size());
    const double row_h = std::clamp(std::floor(320.0 / static_cast<double>(most_rows)), 1.0, 18.0);
    const double bar_h = row_h >= 10 ? row_h - 4 : row_h >= 4 ? row_h - 1 : row_h;
    std::size_t label_every = 1;
    for (std::size_t k : {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000})
        if ((label_every = k) * row_h >= 12) break;
    const double width = kTimelineLeft + kTimelinePlotWidth + kTimelineRight;

    const TimeUnit unit = time_unit(span);
    const double lo = static_cast<double>(from.ps()) / unit.ps;
    const double hi = static_cast<double>(to.ps()) / unit.ps;
    const double step = nice_step(hi - lo, 8);
    std::vector<std::pair<double, std::string>> ticks;  // x, label
    for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1)
        ticks.emplace_back(kTimelineLeft + (k * step - lo) * unit.ps * scale,
                           tick_label(k * step, step));

    // Legend (kinds in the window), wrapped like header().
    std::string legend = "<g class=\"legend\">\n";
    double lx = kTimelineLeft, ly = 64;
    for (int kind = 0; kind < mpi::kStatKinds; ++kind) {
        if (!present[static_cast<std::size_t>(kind)]) continue;
        const std::string name = mpi::stat_name(kind);
        const double w = 22 + kCharWidth * static_cast<double>(chars(name)) + 12;
        if (lx + w > width - kTimelineRight && lx > kTimelineLeft) {
            lx = kTimelineLeft;
            ly += 18;
        }
        legend += fmt::format(R"(<rect x="{}" y="{}" width="12" height="12" fill="{}"/>)"
                              R"(<text x="{}" y="{}">{}</text>)"
                              "\n",
                              num(lx + 2), num(ly - 10), timeline_color(kind), num(lx + 20),
                              num(ly), svg_escape(name));
        lx += w;
    }
    legend += "</g>\n";
    const double first_top = ly + 16;

    // Writes the panels into `out` at merge width `bin`; false (out unfinished) once `out`
    // exceeds `limit`.
    auto attempt = [&](double bin, bool titles, std::size_t limit, std::string& out) {
        out.clear();
        double top = first_top;
        for (std::size_t pi = 0; pi < panels.size(); ++pi) {
            const Panel& p = panels[pi];
            const double y0 = top + 22;
            const double bottom = y0 + static_cast<double>(p.rows.size()) * row_h;
            out += "<g class=\"panel\">\n";
            std::string head =
                fmt::format(R"(<tspan font-weight="bold">{}</tspan>)", svg_escape(p.label));
            if (!p.title.empty()) head += "  " + svg_escape(p.title);
            if (p.rows.size() < p.ranks)
                head += fmt::format("  (ranks 0\u2013{} of {} shown)", p.rows.size() - 1, p.ranks);
            out += fmt::format(R"(<text x="{}" y="{}" font-size="13">{}</text>)"
                               "\n",
                               num(kTimelineLeft), num(top + 14), head);
            for (const auto& [x, label] : ticks)
                out += fmt::format(
                    R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#e4e4e4"/>)"
                    R"(<line x1="{0}" y1="{2}" x2="{0}" y2="{3}" stroke="black"/>)"
                    R"(<text x="{0}" y="{4}" text-anchor="middle" font-size="11">{5}</text>)"
                    "\n",
                    num(x), num(y0), num(bottom), num(bottom + 4), num(bottom + 15),
                    svg_escape(label));
            for (std::size_t r = 0; r < p.rows.size(); r += label_every)
                out += fmt::format(
                    R"(<text x="{}" y="{}" text-anchor="end" font-size="{}">rank {}</text>)"
                    "\n",
                    num(kTimelineLeft - 6),
                    num(y0 + static_cast<double>(r) * row_h + row_h / 2 + 4), row_h >= 12 ? 12 : 10,
                    r);
            if (p.events == 0)
                out += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle" fill="#777777">)"
                                   R"(no operations in this window</text>)"
                                   "\n",
                                   num(kTimelineLeft + kTimelinePlotWidth / 2),
                                   num((y0 + bottom) / 2 + 4));
            out += "<g class=\"events\">\n";
            for (std::size_t r = 0; r < p.rows.size(); ++r) {
                RowDrawer d;
                d.from = from;
                d.scale = scale;
                d.bin = bin;
                d.titles = titles;
                d.y = y0 + static_cast<double>(r) * row_h + (row_h - bar_h) / 2;
                d.h = bar_h;
                d.out = &out;
                d.max_col = static_cast<long>(std::ceil(kTimelinePlotWidth / bin - 1e-9)) - 1;
                for (const auto* e : p.rows[r]) d.add(*e, to);
                d.finish();
                if (out.size() > limit) return false;
            }
            out += "</g>\n";
            out += fmt::format(R"(<path d="M{0} {1}H{2}V{3}H{0}Z" fill="none" stroke="#888888"/>)"
                               "\n",
                               num(kTimelineLeft), num(y0), num(kTimelineLeft + kTimelinePlotWidth),
                               num(bottom));
            out += "</g>\n";
            top = bottom + 24;
        }
        out += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">time ({})</text>)"
                           "\n",
                           num(kTimelineLeft + kTimelinePlotWidth / 2), num(top + 12), unit.name);
        return true;
    };

    std::string body;
    double bin = 1;
    bool titles = true;
    while (!attempt(bin, titles, max_bytes, body)) {
        if (titles) {
            titles = false;
        } else if (bin < kTimelinePlotWidth) {
            bin *= 2;
        } else {  // one mark per row still does not fit: draw it anyway
            attempt(bin, titles, std::numeric_limits<std::size_t>::max(), body);
            break;
        }
    }
    double bottom = first_top;
    for (const auto& p : panels) bottom += 22 + static_cast<double>(p.rows.size()) * row_h + 24;
    const double height = bottom + 24;

    const Time pixel = Time::ps(
        std::max<std::int64_t>(1, std::llround(static_cast<double>(span) / kTimelinePlotWidth)));
    const std::string px = fmt::format("{:g} px", bin);
    std::string note = fmt::format(
        "{} \u2013 {}, 1 px = {}; operations under {} merged into {} marks of the dominant kind",
        time_text(from), time_text(to), format_time(pixel), px, px);
    if (bin > 1 || !titles)
        note += fmt::format(" ({}to stay under {})", titles ? "" : "no tooltips, ",
                            format_size(max_bytes));
    std::string head = fmt::format(
        R"(<text x="{}" y="24" text-anchor="middle" font-size="16" font-weight="bold">{}</text>)"
        "\n"
        R"(<text x="{}" y="42" text-anchor="middle" font-size="11" fill="#555555">{}</text>)"
        "\n",
        num(width / 2), svg_escape(title), num(width / 2), svg_escape(note));
    return open_svg(width, height) + head + legend + body + "</svg>\n";
}

std::string svg_bar_chart(const std::string& title, const std::vector<std::string>& categories,
                          const std::vector<std::pair<std::string, std::vector<double>>>& series,
                          const std::string& y_label) {
    const std::size_t n = std::max<std::size_t>(categories.size(), 1);
    const std::size_t m = std::max<std::size_t>(series.size(), 1);
    Frame f;
    f.plot_w =
        std::clamp(static_cast<double>(n) * (static_cast<double>(m) * 14 + 14), 400.0, 1400.0);
    f.width = f.left + f.plot_w + kRight;
    const double group_w = f.plot_w / static_cast<double>(n);

    double lo = 0, hi = 0;
    for (const auto& [name, values] : series)
        for (std::size_t c = 0; c < values.size() && c < categories.size(); ++c)
            if (std::isfinite(values[c])) {
                lo = std::min(lo, values[c]);
                hi = std::max(hi, values[c]);
            }
    if (hi == lo) hi = lo + 1;
    const Axis axis = linear_axis(lo, hi);

    std::size_t longest = 0;
    for (const auto& c : categories) longest = std::max(longest, chars(c));
    const bool rotate =
        categories.size() > 1 && static_cast<double>(longest) * kCharWidth > group_w - 4;
    const std::size_t label_every =
        rotate && group_w < 14 ? static_cast<std::size_t>(std::ceil(14 / group_w)) : 1;
    const double bottom =
        rotate ? 24 + static_cast<double>(std::min<std::size_t>(longest, 40)) * 5.2 : 36;

    std::vector<std::string> names;
    for (const auto& s : series) names.push_back(s.first);
    std::string body = header(title, names, false, f);
    f.height = f.top + f.plot_h + bottom;

    auto ymap = [&](double v) { return f.top + f.plot_h * (axis.hi - v) / (axis.hi - axis.lo); };
    body += y_axis(axis, f, y_label);

    body += "<g class=\"bars\">\n";
    const double bar_w = group_w * 0.8 / static_cast<double>(m);
    for (std::size_t s = 0; s < series.size(); ++s) {
        const auto& [name, values] = series[s];
        for (std::size_t c = 0; c < values.size() && c < categories.size(); ++c) {
            const double v = values[c];
            if (!std::isfinite(v)) continue;
            const double x = f.left + static_cast<double>(c) * group_w + group_w * 0.1 +
                             static_cast<double>(s) * bar_w;
            const double y0 = ymap(0), y1 = ymap(v);
            body += fmt::format(
                R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}: {} = {:g}</title></rect>)"
                "\n",
                num(x), num(std::min(y0, y1)), num(bar_w), num(std::fabs(y1 - y0)), color(s),
                svg_escape(name), svg_escape(categories[c]), v);
        }
    }
    body += "</g>\n";

    // x axis at the bottom and the zero line, category labels under their groups.
    const double base = f.top + f.plot_h;
    body += "<g class=\"x-axis\">\n";
    body += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="black"/>)"
                        "\n",
                        num(f.left), num(base), num(f.left + f.plot_w), num(base));
    if (axis.lo < 0)
        body += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="black"/>)"
                            "\n",
                            num(f.left), num(ymap(0)), num(f.left + f.plot_w), num(ymap(0)));
    for (std::size_t c = 0; c < categories.size(); ++c) {
        const double x = f.left + (static_cast<double>(c) + 0.5) * group_w;
        body += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="black"/>)", num(x),
                            num(base), num(base + 4));
        if (c % label_every != 0) {
            body += "\n";
            continue;
        }
        if (rotate) {
            body += fmt::format(
                R"svg(<text x="{0}" y="{1}" text-anchor="end" transform="rotate(-45 {0} {1})">{2}</text>)svg"
                "\n",
                num(x), num(base + 14), svg_escape(categories[c]));
        } else {
            body += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)"
                                "\n",
                                num(x), num(base + 18), svg_escape(categories[c]));
        }
    }
    body += "</g>\n";
    return open_svg(f.width, f.height) + body + "</svg>\n";
}

std::string svg_line_chart(
    const std::string& title, const std::string& x_label, const std::string& y_label,
    const std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>>& series,
    bool log_x) {
    auto usable = [&](const std::pair<double, double>& p) {
        return std::isfinite(p.first) && std::isfinite(p.second) && (!log_x || p.first > 0);
    };
    double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min;
    double y_min = x_min, y_max = -x_min;
    for (const auto& [name, points] : series)
        for (const auto& p : points)
            if (usable(p)) {
                x_min = std::min(x_min, p.first);
                x_max = std::max(x_max, p.first);
                y_min = std::min(y_min, p.second);
                y_max = std::max(y_max, p.second);
            }
    if (!std::isfinite(x_min)) {  // no points
        x_min = 1;
        x_max = log_x ? 10 : 2;
        y_min = 0;
        y_max = 1;
    }
    if (log_x && x_max == x_min) x_max = x_min * 2;
    const Axis xa = log_x ? log_axis(x_min, x_max) : linear_axis(x_min, x_max);
    const Axis ya = linear_axis(y_min, y_max);

    Frame f;
    f.plot_w = 600;
    // The last x label is centred on the plot's right edge: room for its right half (about
    // 7 px a character at the charts' font size), so "1048576" is not cut off.
    const double last_label_half =
        xa.labels.empty() ? 0.0 : 3.5 * static_cast<double>(xa.labels.back().size());
    f.width = f.left + f.plot_w + std::max(kRight, last_label_half + 6);
    std::vector<std::string> names;
    for (const auto& s : series) names.push_back(s.first);
    std::string body = header(title, names, true, f);
    f.height = f.top + f.plot_h + 52;

    auto xmap = [&](double x) {
        const double v = log_x ? std::log10(x) : x;
        return f.left + f.plot_w * (v - xa.lo) / (xa.hi - xa.lo);
    };
    auto ymap = [&](double y) { return f.top + f.plot_h * (ya.hi - y) / (ya.hi - ya.lo); };
    body += y_axis(ya, f, y_label);

    const double base = f.top + f.plot_h;
    body += "<g class=\"x-axis\">\n";
    for (std::size_t i = 0; i < xa.ticks.size(); ++i) {
        const double x = f.left + f.plot_w * (xa.ticks[i] - xa.lo) / (xa.hi - xa.lo);
        body += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#dddddd"/>)"
                            R"(<line x1="{0}" y1="{2}" x2="{0}" y2="{3}" stroke="black"/>)"
                            R"(<text x="{0}" y="{4}" text-anchor="middle">{5}</text>)"
                            "\n",
                            num(x), num(f.top), num(base), num(base + 5), num(base + 18),
                            svg_escape(xa.labels[i]));
    }
    body += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="black"/>)"
                        "\n",
                        num(f.left), num(base), num(f.left + f.plot_w), num(base));
    body += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)"
                        "\n",
                        num(f.left + f.plot_w / 2), num(base + 40), svg_escape(x_label));
    body += "</g>\n";

    body += "<g class=\"series\">\n";
    for (std::size_t s = 0; s < series.size(); ++s) {
        std::vector<std::pair<double, double>> pts;
        for (const auto& p : series[s].second)
            if (usable(p)) pts.push_back(p);
        std::stable_sort(pts.begin(), pts.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::string coords;
        for (const auto& [x, y] : pts) coords += num(xmap(x)) + "," + num(ymap(y)) + " ";
        if (!coords.empty()) coords.pop_back();
        body += fmt::format(R"(<polyline fill="none" stroke="{}" stroke-width="2" points="{}"/>)"
                            "\n",
                            color(s), coords);
        for (const auto& [x, y] : pts)
            body += fmt::format(
                R"(<circle cx="{}" cy="{}" r="3" fill="{}"><title>{}: ({:g}, {:g})</title></circle>)"
                "\n",
                num(xmap(x)), num(ymap(y)), color(s), svg_escape(series[s].first), x, y);
    }
    body += "</g>\n";
    return open_svg(f.width, f.height) + body + "</svg>\n";
}

}  // namespace clustersim::traces
