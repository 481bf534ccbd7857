#include "sweep/plot.hpp"
#include "sweep/json_depth.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/suggest.hpp"
#include "simulator/text.hpp"
#include "simulator/units.hpp"
#include "sweep/sweep.hpp"

namespace clustersim::sweep {
namespace {

namespace fs = std::filesystem;
using clustersim::xml_escape;

enum class Kind { Number, Time, Size, Bandwidth, Category };

struct Quantity {
    double v = 0;
    Kind kind = Kind::Category;
    std::string text;
};

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Quantity quantity(const nlohmann::json& v, const std::string& key) {
    Quantity q;
    q.text = value_text(v);
    if (v.is_number()) {
        q.v = v.get<double>();
        q.kind = ends_with(key, "_bytes_per_s") ? Kind::Bandwidth
                 : ends_with(key, "_ps")        ? (q.v *= 1e-12, Kind::Time)
                 : ends_with(key, "_s")         ? Kind::Time
                 : ends_with(key, "_bytes")     ? Kind::Size
                                                : Kind::Number;
        return q;
    }
    if (!v.is_string()) return q;
    std::string t;
    for (char c : v.get<std::string>())
        if (c != ' ') t += c;
    try {
        q.v = parse_time(t).seconds();
        q.kind = Kind::Time;
        return q;
    } catch (const UnitError&) {
    }
    try {
        q.v = static_cast<double>(parse_size(t));
        q.kind = Kind::Size;
        return q;
    } catch (const UnitError&) {
    }
    try {
        q.v = static_cast<double>(parse_bandwidth(t).bytes_per_s);
        q.kind = Kind::Bandwidth;
        return q;
    } catch (const UnitError&) {
    }
    try {
        std::size_t used = 0;
        q.v = std::stod(t, &used);
        if (used == t.size() && std::isfinite(q.v)) {
            q.kind = Kind::Number;
            return q;
        }
    } catch (const std::exception&) {
    }
    q.kind = Kind::Category;
    return q;
}

struct Scale {
    double factor = 1;  // shown = value / factor
    std::string unit;
};

Scale scale_for(Kind k, double max_abs) {
    switch (k) {
        case Kind::Time:
            if (max_abs >= 1) return {1, "s"};
            if (max_abs >= 1e-3) return {1e-3, "ms"};
            if (max_abs >= 1e-6) return {1e-6, "µs"};
            return {1e-9, "ns"};
        case Kind::Size:
            if (max_abs >= 1073741824.0) return {1073741824.0, "GiB"};
            if (max_abs >= 1048576.0) return {1048576.0, "MiB"};
            if (max_abs >= 1024.0) return {1024.0, "KiB"};
            return {1, "B"};
        case Kind::Bandwidth:
            if (max_abs >= 1e9) return {1e9, "GB/s"};
            if (max_abs >= 1e6) return {1e6, "MB/s"};
            if (max_abs >= 1e3) return {1e3, "KB/s"};
            return {1, "B/s"};
        default:
            return {1, ""};
    }
}

std::string pretty(const std::string& name) {
    std::string s = name;
    if (!s.empty() && s[0] == '/') s = s.substr(s.rfind('/') + 1);
    for (auto& c : s)
        if (c == '_' || c == '-') c = ' ';
    return s;
}

std::string label_of(const std::string& name, const Scale& s) {
    return s.unit.empty() ? pretty(name) : fmt::format("{} ({})", pretty(name), s.unit);
}

std::string num(double v) {
    return fmt::format("{:.2f}", v);
}

std::string tick_text(double v) {
    if (v == 0) return "0";
    const double a = std::fabs(v);
    if (a >= 1e6 || a < 1e-3) return fmt::format("{:.3g}", v);
    return fmt::format("{:.6g}", v);
}

// A value with its unit, as the rest of clustersim prints it ("64 KiB", "1.875 ms").
std::string human(double raw, Kind k) {
    if (!std::isfinite(raw)) return "–";
    switch (k) {
        case Kind::Time:
            if (raw >= 0 && raw < 9e6) return format_time(Time::ps(std::llround(raw * 1e12)));
            break;
        case Kind::Size:
            if (raw >= 0 && raw < 1.8e19)
                return format_size(static_cast<std::uint64_t>(std::llround(raw)));
            break;
        case Kind::Bandwidth:
            if (raw > 0 && raw < 1.8e19)
                return format_bandwidth(Bandwidth{static_cast<std::uint64_t>(std::llround(raw))});
            break;
        default:
            break;
    }
    return tick_text(raw);
}

struct PlotAxis {
    bool log = false;
    double lo = 0, hi = 1;  // in shown units (log: the values, not their logs)
    std::vector<double> ticks;
    std::vector<std::string> labels;  // categorical axes
    double pos(double v) const {      // 0..1
        if (log) return (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo));
        return (v - lo) / (hi - lo);
    }
};

PlotAxis linear_axis(double lo, double hi, bool from_zero) {
    if (from_zero && lo > 0) lo = 0;
    if (hi <= lo) hi = lo + (lo == 0 ? 1 : std::fabs(lo));
    const double raw = (hi - lo) / 5;
    const double mag = std::pow(10, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (raw <= m * mag) {
            step = m * mag;
            break;
        }
    PlotAxis a;
    a.lo = std::floor(lo / step) * step;
    a.hi = std::ceil(hi / step) * step;
    for (double t = a.lo; t <= a.hi + step * 1e-9; t += step)
        a.ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
    return a;
}

PlotAxis log_axis(double lo, double hi, bool base2) {
    PlotAxis a;
    a.log = true;
    if (hi <= lo) hi = lo * 2;
    const double base = base2 ? 2 : 10;
    double e0 = std::floor(std::log(lo) / std::log(base) + 1e-9);
    double e1 = std::ceil(std::log(hi) / std::log(base) - 1e-9);
    if (e1 <= e0) e1 = e0 + 1;
    a.lo = std::pow(base, e0);
    a.hi = std::pow(base, e1);
    int every = 1;
    while ((e1 - e0) / every > 8) every *= 2;
    for (double e = e0; e <= e1 + 1e-9; e += every) a.ticks.push_back(std::pow(base, e));
    if (!base2 && e1 - e0 <= 1) {  // one decade: 2 and 5 too
        std::vector<double> more;
        for (double t : a.ticks)
            for (double m : {1.0, 2.0, 5.0})
                if (t * m <= a.hi * (1 + 1e-9)) more.push_back(t * m);
        std::sort(more.begin(), more.end());
        more.erase(std::unique(more.begin(), more.end()), more.end());
        a.ticks = more;
    }
    return a;
}

const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                         "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

struct Cell {
    std::vector<double> ys;
    double mean() const {
        double s = 0;
        for (double y : ys) s += y;
        return s / static_cast<double>(ys.size());
    }
};

}  // namespace

nlohmann::json field_of(const nlohmann::json& r, const std::string& name, std::string* key_found) {
    auto found = [&](const nlohmann::json& v, const std::string& key) {
        if (key_found) *key_found = key;
        return v;
    };
    if (!name.empty() && name[0] == '/') {
        const nlohmann::json::json_pointer p(name);
        return r.contains(p) ? found(r[p], name) : nlohmann::json();
    }
    if (r.contains("axes") && r["axes"].contains(name)) return found(r["axes"][name], name);
    if (r.contains("result")) {
        const auto& res = r["result"];
        for (const std::string& k : {name, name + "_s", name + "_bytes"})
            if (res.contains(k) && !res[k].is_object()) return found(res[k], k);
        if (res.contains("app_summary") && res["app_summary"].contains(name))
            return found(res["app_summary"][name], name);
        if (res.contains("network") && res["network"].contains(name))
            return found(res["network"][name], name);
    }
    for (const std::string& k : {name, name + "_s"})
        if (r.contains(k) && !r[k].is_object()) return found(r[k], k);
    return nlohmann::json();
}

namespace {

// The names field_of finds in a record: its axes, the result's numbers (also without their
// _s or _bytes suffix), app_summary and network keys, the record's own numbers.
std::vector<std::string> field_names(const nlohmann::json& r) {
    std::vector<std::string> out;
    auto keys = [&](const nlohmann::json& o, bool strip) {
        if (!o.is_object()) return;
        for (const auto& [k, v] : o.items()) {
            if (v.is_object()) continue;
            out.push_back(k);
            for (const std::string suffix : {"_s", "_bytes"})
                if (strip && k.ends_with(suffix))
                    out.push_back(k.substr(0, k.size() - suffix.size()));
        }
    };
    if (r.contains("axes")) keys(r["axes"], false);
    if (r.contains("result")) {
        keys(r["result"], true);
        if (r["result"].contains("app_summary")) keys(r["result"]["app_summary"], false);
        if (r["result"].contains("network")) keys(r["result"]["network"], false);
    }
    keys(r, true);
    return out;
}

// The successful records of a results file (`failed`: how many points failed).
std::vector<nlohmann::json> read_ok_records(const std::string& path, std::size_t& failed) {
    std::ifstream in(path);
    if (!in) throw InputError(path, 0, "cannot read the results file");
    std::vector<nlohmann::json> records;
    std::string line;
    int n = 0;
    failed = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty()) continue;
        nlohmann::json r;
        try {
            r = clustersim::sweep::parse_json_input(line, path, n);
        } catch (const nlohmann::json::exception&) {  // syntax, or a number out of range
            throw InputError(path, n, "not a JSON record");
        }
        if (!r.is_object() || !r.contains("status"))
            throw InputError(path, n, "not a sweep record (no \"status\")");
        if (r["status"] != "ok") {
            ++failed;
            continue;
        }
        records.push_back(std::move(r));
    }
    if (records.empty()) throw InputError(path, 0, "no successful points to plot");
    return records;
}

// (facet, series, x) -> y values, with the first-appearance order of facets and series.
struct Grid {
    std::vector<std::string> facets, series_names;
    std::map<std::string, std::map<std::string, std::map<double, Cell>>> cells;
    std::map<double, std::string> x_text;  // the value as first written (axes: "64KiB")
    std::vector<std::string> x_categories;
    Kind x_kind = Kind::Number, y_kind = Kind::Number;
    // The text of x as the table and the tooltips show it.
    std::string x_shown(double x) const {
        return x_kind == Kind::Category ? x_categories[static_cast<std::size_t>(x)] : x_text.at(x);
    }
};

// A field of the record that --series or --facet names, as text ("" when the flag is unset).
std::string group_of(const nlohmann::json& r, const std::string& flag, const std::string& name) {
    if (name.empty()) return {};
    const nlohmann::json v = field_of(r, name);
    if (v.is_null()) throw InputError(flag, 0, fmt::format("no field '{}' in the results", name));
    return value_text(v);
}

Grid collect(const std::vector<nlohmann::json>& records, const PlotOptions& o) {
    Grid g;
    // x is a category when any record's x is one ("8KiB" and "auto"): decided before any cell
    // is filled, so that every x is then an index into x_categories (a number placed before
    // the first category once indexed past its end).
    bool x_category = false;
    for (const auto& r : records) {
        std::string xk;
        const nlohmann::json xv = field_of(r, o.x, &xk);
        if (!xv.is_null() && quantity(xv, xk).kind == Kind::Category) x_category = true;
    }
    bool first = true;
    for (const auto& r : records) {
        std::string xk, yk;
        const nlohmann::json xv = field_of(r, o.x, &xk), yv = field_of(r, o.y, &yk);
        if (xv.is_null())
            throw InputError("--x", 0,
                             fmt::format("no field '{}' in the results (point {}){}", o.x,
                                         r.value("index", 0), did_you_mean(o.x, field_names(r))));
        if (yv.is_null())
            throw InputError("--y", 0,
                             fmt::format("no field '{}' in the results (point {}){}", o.y,
                                         r.value("index", 0), did_you_mean(o.y, field_names(r))));
        Quantity xq = quantity(xv, xk), yq = quantity(yv, yk);
        if (yq.kind == Kind::Category)
            throw InputError("--y", 0, fmt::format("'{}' is not a number ('{}')", o.y, yq.text));
        if (first) {
            g.x_kind = xq.kind;
            g.y_kind = yq.kind;
            first = false;
        }
        if (x_category) {
            g.x_kind = Kind::Category;
            auto it = std::find(g.x_categories.begin(), g.x_categories.end(), xq.text);
            if (it == g.x_categories.end()) {
                g.x_categories.push_back(xq.text);
                it = g.x_categories.end() - 1;
            }
            xq.v = static_cast<double>(it - g.x_categories.begin());
        }
        const std::string s = o.series.empty() ? o.y : group_of(r, "--series", o.series);
        const std::string f = group_of(r, "--facet", o.facet);
        if (std::find(g.facets.begin(), g.facets.end(), f) == g.facets.end()) g.facets.push_back(f);
        if (std::find(g.series_names.begin(), g.series_names.end(), s) == g.series_names.end())
            g.series_names.push_back(s);
        g.cells[f][s][xq.v].ys.push_back(yq.v);
        g.x_text.emplace(xq.v, xq.text);
    }
    return g;
}

// --speedup turns each series into speed-ups over its smallest x; the log axes need positive
// values.
void transform_and_check(Grid& g, const PlotOptions& o) {
    if (g.x_kind == Kind::Category && (o.log_x))
        throw InputError("--log-x", 0, fmt::format("'{}' has values that are not numbers", o.x));
    if (o.speedup) {
        for (auto& [f, by_series] : g.cells)
            for (auto& [s, by_x] : by_series) {
                const double base = by_x.begin()->second.mean();
                for (auto& [x, c] : by_x)
                    for (double& y : c.ys)
                        y = y > 0 ? base / y : std::numeric_limits<double>::quiet_NaN();
            }
        g.y_kind = Kind::Number;
    }
    if (o.log_y)
        for (auto& [f, by_series] : g.cells)
            for (auto& [s, by_x] : by_series)
                for (auto& [x, c] : by_x)
                    for (double y : c.ys)
                        if (!(y > 0))
                            throw InputError("--log-y", 0,
                                             fmt::format("'{}' has a value {:g} <= 0", o.y, y));
    if (o.log_x)
        for (auto& [f, by_series] : g.cells)
            for (auto& [s, by_x] : by_series)
                for (auto& [x, c] : by_x)
                    if (!(x > 0))
                        throw InputError("--log-x", 0,
                                         fmt::format("'{}' has a value {:g} <= 0", o.x, x));
}

// The axes' scales and the texts around the panels.
struct Labels {
    Scale xs, ys;
    bool x_human = false, y_human = false;  // ticks labelled with their unit
    std::string x_label, y_label, title;
};

Labels labels_of(const Grid& g, const PlotOptions& o) {
    double x_max = 0, y_max = 0;
    for (auto& [f, by_series] : g.cells)
        for (auto& [s, by_x] : by_series)
            for (auto& [x, c] : by_x) {
                x_max = std::max(x_max, std::fabs(x));
                for (double y : c.ys) y_max = std::max(y_max, std::fabs(y));
            }
    Labels l;
    l.xs = g.x_kind == Kind::Category ? Scale{} : scale_for(g.x_kind, x_max);
    l.ys = scale_for(g.y_kind, y_max);
    // Log axes of quantities label each tick with its unit ("1 KiB", "64 KiB", "1 MiB");
    // linear ones put the unit in the axis label.
    l.x_human = o.log_x && g.x_kind != Kind::Number && g.x_kind != Kind::Category;
    l.y_human = o.log_y && !o.speedup && g.y_kind != Kind::Number;
    l.x_label = l.x_human ? pretty(o.x) : label_of(o.x, l.xs);
    l.y_label = o.speedup
                    ? fmt::format("speed-up of {} (over the smallest {})", pretty(o.y), pretty(o.x))
                : l.y_human ? pretty(o.y)
                            : label_of(o.y, l.ys);
    l.title = !o.title.empty()
                  ? o.title
                  : fmt::format("{} vs {}{}{}", pretty(o.speedup ? "speed-up" : o.y), pretty(o.x),
                                o.series.empty() ? "" : " by " + pretty(o.series),
                                o.facet.empty() ? "" : ", per " + pretty(o.facet));
    return l;
}

// The table: the best series at each (facet, x).
std::string best_table(const Grid& g, const PlotOptions& o, std::size_t failed) {
    std::string table;
    const std::string yh = o.speedup ? "speed-up" : pretty(o.y);
    table += fmt::format("| {}{} | best {} | {} | runner-up | its {} | margin |\n",
                         o.facet.empty() ? "" : pretty(o.facet) + " | ", pretty(o.x),
                         o.series.empty() ? "series" : pretty(o.series), yh, yh);
    table += o.facet.empty() ? "| ---: | --- | ---: | --- | ---: | ---: |\n"
                             : "| ---: | ---: | --- | ---: | --- | ---: | ---: |\n";
    auto yt = [&](double y) { return o.speedup ? fmt::format("{:.3g}x", y) : human(y, g.y_kind); };
    for (const auto& f : g.facets) {
        const auto& by_series = g.cells.at(f);
        std::set<double> xs_here;
        for (const auto& [s, by_x] : by_series)
            for (const auto& [x, c] : by_x) xs_here.insert(x);
        for (double x : xs_here) {
            std::vector<std::pair<double, std::string>> ranked;
            for (const auto& s : g.series_names) {
                auto it = by_series.find(s);
                if (it == by_series.end()) continue;
                auto jt = it->second.find(x);
                if (jt == it->second.end() || !std::isfinite(jt->second.mean())) continue;
                ranked.emplace_back(jt->second.mean(), s);
            }
            if (ranked.empty()) continue;
            std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
                return o.maximize ? a.first > b.first : a.first < b.first;
            });
            std::string row = "| " + (o.facet.empty() ? "" : f + " | ") + g.x_shown(x) + " | " +
                              ranked[0].second + " | " + yt(ranked[0].first) + " | ";
            if (ranked.size() > 1) {
                const double margin = o.maximize ? ranked[0].first / ranked[1].first - 1
                                                 : ranked[1].first / ranked[0].first - 1;
                row += fmt::format("{} | {} | {:.1f} % |", ranked[1].second, yt(ranked[1].first),
                                   100 * margin);
            } else {
                row += "– | – | – |";
            }
            table += row + "\n";
        }
    }
    if (failed > 0) table += fmt::format("\n({} failed points left out)\n", failed);
    return table;
}

// The figure's geometry: panels of pw x ph with margins left, right, top and bottom.
constexpr double pw = 380, ph = 260, ml = 78, mr = 20, mt = 34, mb = 56;

// One panel's axes, from the values of its facet.
std::pair<PlotAxis, PlotAxis> axes_of(const Grid& g, const Labels& l, const PlotOptions& o,
                                      const std::string& f) {
    double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
    for (const auto& [s, by_x] : g.cells.at(f))
        for (const auto& [x, c] : by_x) {
            xlo = std::min(xlo, x / l.xs.factor);
            xhi = std::max(xhi, x / l.xs.factor);
            for (double y : c.ys)
                if (std::isfinite(y)) {
                    ylo = std::min(ylo, y / l.ys.factor);
                    yhi = std::max(yhi, y / l.ys.factor);
                }
        }
    if (!std::isfinite(ylo)) ylo = 0, yhi = 1;
    PlotAxis xa, ya;
    if (g.x_kind == Kind::Category) {
        xa.lo = -0.5;
        xa.hi = static_cast<double>(g.x_categories.size()) - 0.5;
        for (std::size_t i = 0; i < g.x_categories.size(); ++i)
            xa.ticks.push_back(static_cast<double>(i));
    } else {
        xa = o.log_x ? log_axis(xlo, xhi,
                                g.x_kind == Kind::Size ||
                                    (g.x_kind == Kind::Number && xhi / xlo <= 1024))
                     : linear_axis(xlo, xhi, false);
    }
    ya = o.log_y ? log_axis(ylo, yhi, false) : linear_axis(ylo, yhi, true);
    return {xa, ya};
}

// The panel of facet `f` with its top-left corner of the plot area at (ox, oy).
std::string panel(const Grid& g, const Labels& l, const PlotOptions& o, const std::string& f,
                  double ox, double oy) {
    // Named references, not a structured binding: lambdas below capture them (C++20 lets a
    // lambda capture a binding only from clang 16).
    const std::pair<PlotAxis, PlotAxis> axes = axes_of(g, l, o, f);
    const PlotAxis& xa = axes.first;
    const PlotAxis& ya = axes.second;
    auto X = [&](double v) { return ox + pw * xa.pos(v); };
    auto Y = [&](double v) { return oy + ph * (1 - ya.pos(v)); };
    std::string svg = fmt::format("<g class=\"panel\">\n");
    if (!o.facet.empty())
        svg += fmt::format(
            R"(<text x="{}" y="{}" text-anchor="middle" font-weight="bold">{} = {}</text>)"
            "\n",
            num(ox + pw / 2), num(oy - 10), xml_escape(pretty(o.facet)), xml_escape(f));
    svg += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="black"/>)"
                       "\n",
                       num(ox), num(oy), num(pw), num(ph));
    for (std::size_t i = 0; i < xa.ticks.size(); ++i) {
        const double t = xa.ticks[i];
        const std::string lab = g.x_kind == Kind::Category ? g.x_categories[i]
                                : l.x_human                ? human(t * l.xs.factor, g.x_kind)
                                                           : tick_text(t);
        svg += fmt::format(
            R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#dddddd"/><line x1="{0}" y1="{2}" x2="{0}" y2="{3}" stroke="black"/><text x="{0}" y="{4}" text-anchor="middle">{5}</text>)"
            "\n",
            num(X(t)), num(oy), num(oy + ph), num(oy + ph + 5), num(oy + ph + 18), xml_escape(lab));
    }
    for (double t : ya.ticks)
        svg += fmt::format(
            R"(<line x1="{1}" y1="{0}" x2="{2}" y2="{0}" stroke="#dddddd"/><line x1="{3}" y1="{0}" x2="{1}" y2="{0}" stroke="black"/><text x="{4}" y="{5}" text-anchor="end">{6}</text>)"
            "\n",
            num(Y(t)), num(ox), num(ox + pw), num(ox - 5), num(ox - 8), num(Y(t) + 4),
            xml_escape(l.y_human ? human(t * l.ys.factor, g.y_kind) : tick_text(t)));
    svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)"
                       "\n",
                       num(ox + pw / 2), num(oy + ph + 40), xml_escape(l.x_label));
    svg += fmt::format(
        R"svg(<text x="{0}" y="{1}" text-anchor="middle" transform="rotate(-90 {0} {1})">{2}</text>)svg"
        "\n",
        num(ox - 58), num(oy + ph / 2), xml_escape(l.y_label));
    const auto& by_series = g.cells.at(f);
    for (std::size_t si = 0; si < g.series_names.size(); ++si) {
        auto it = by_series.find(g.series_names[si]);
        if (it == by_series.end()) continue;
        std::string pts;
        std::string marks;
        for (const auto& [x, c] : it->second) {
            const double m = c.mean() / l.ys.factor;
            if (!std::isfinite(m)) continue;
            const double px = X(x / l.xs.factor), py = Y(m);
            pts += num(px) + "," + num(py) + " ";
            const auto [lo, hi] = std::minmax_element(c.ys.begin(), c.ys.end());
            if (*hi > *lo)  // repetitions (seeds): their range
                marks += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}"/>)"
                                     "\n",
                                     num(px), num(Y(*lo / l.ys.factor)), num(Y(*hi / l.ys.factor)),
                                     kColors[si % 10]);
            marks += fmt::format(
                R"(<circle cx="{}" cy="{}" r="3.5" fill="{}"><title>{}: {} = {}, {} = {}</title></circle>)"
                "\n",
                num(px), num(py), kColors[si % 10], xml_escape(g.series_names[si]),
                xml_escape(pretty(o.x)), xml_escape(g.x_shown(x)),
                xml_escape(o.speedup ? "speed-up" : pretty(o.y)),
                xml_escape(o.speedup ? fmt::format("{:.3g}", m)
                                     : human(m * l.ys.factor, g.y_kind)));
        }
        if (!pts.empty()) pts.pop_back();
        svg += fmt::format(R"(<polyline fill="none" stroke="{}" stroke-width="2" points="{}"/>)"
                           "\n",
                           kColors[si % 10], pts);
        svg += marks;
    }
    svg += "</g>\n";
    return svg;
}

// The figure: the title, the legend, and the panels in a grid of up to 3 columns.
std::string figure(const Grid& g, const Labels& l, const PlotOptions& o) {
    const std::size_t cols = std::min<std::size_t>(3, g.facets.size());
    const std::size_t rows = (g.facets.size() + cols - 1) / cols;
    const double width0 = static_cast<double>(cols) * (ml + pw + mr) + 10;
    // Legend entries flow left to right and wrap (about 7 px per character).
    std::vector<std::pair<double, double>> legend_at;
    {
        double lx = 20, ly = 44;
        const std::string prefix = o.series.empty() ? "" : pretty(o.series) + ": ";
        for (std::size_t i = 0; i < g.series_names.size(); ++i) {
            const double w = 48 + 7.0 * static_cast<double>((i == 0 ? prefix : "").size() +
                                                            g.series_names[i].size());
            if (lx + w > width0 - 10 && lx > 20) lx = 20, ly += 22;
            legend_at.emplace_back(lx, ly);
            lx += w;
        }
    }
    const double legend_h = legend_at.empty() ? 8 : legend_at.back().second - 44 + 30;
    const double top = 40 + legend_h;
    const double width = width0;
    const double height = top + static_cast<double>(rows) * (mt + ph + mb) + 10;
    std::string svg = fmt::format(
        R"(<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{0}" height="{1}" viewBox="0 0 {0} {1}" font-family="sans-serif" font-size="12">)"
        "\n<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n",
        num(width), num(height));
    svg += fmt::format(
        R"(<text x="{}" y="24" text-anchor="middle" font-size="16" font-weight="bold">{}</text>)"
        "\n",
        num(width / 2), xml_escape(l.title));
    svg += "<g class=\"legend\">\n";
    for (std::size_t i = 0; i < g.series_names.size(); ++i) {
        const auto [lx, ly] = legend_at[i];
        svg += fmt::format(
            R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"/><circle cx="{}" cy="{}" r="3.5" fill="{}"/><text x="{}" y="{}">{}</text>)"
            "\n",
            num(lx), num(ly), num(lx + 28), num(ly), kColors[i % 10], num(lx + 14), num(ly),
            kColors[i % 10], num(lx + 34), num(ly + 4),
            xml_escape((i == 0 && !o.series.empty() ? pretty(o.series) + ": " : "") +
                       g.series_names[i]));
    }
    svg += "</g>\n";
    for (std::size_t fi = 0; fi < g.facets.size(); ++fi)
        svg +=
            panel(g, l, o, g.facets[fi], 10 + static_cast<double>(fi % cols) * (ml + pw + mr) + ml,
                  top + static_cast<double>(fi / cols) * (mt + ph + mb) + mt);
    svg += "</svg>\n";
    return svg;
}

}  // namespace

std::string plot(const PlotOptions& o) {
    std::string path = o.results;
    if (std::error_code ec; fs::is_directory(path, ec)) path += "/results.jsonl";
    refuse_non_file(path);
    {
        std::ifstream in(path);
        if (!in) throw InputError(path, 0, "cannot read the results file");
    }
    if (o.x.empty()) throw InputError("--x", 0, "expected a field name");
    if (o.y.empty()) throw InputError("--y", 0, "expected a field name");
    std::size_t failed = 0;
    const std::vector<nlohmann::json> records = read_ok_records(path, failed);
    Grid grid = collect(records, o);
    transform_and_check(grid, o);
    const Labels labels = labels_of(grid, o);
    const std::string table = best_table(grid, o, failed);
    if (!o.table.empty()) {
        std::ofstream t(o.table);
        if (!t) throw InputError(o.table, 0, "cannot write the table");
        t << table;
    }
    if (o.svg.empty()) return table;
    const std::string svg = figure(grid, labels, o);
    std::ofstream out(o.svg);
    out << svg;
    if (!out) throw InputError(o.svg, 0, "cannot write the figure");
    return table;
}

}  // namespace clustersim::sweep
