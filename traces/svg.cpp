#include "traces/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include <fmt/format.h>

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

std::string svg_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                // Control characters are not allowed in XML 1.0 (tab and newline are).
                if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
                    out += ' ';
                } else {
                    out += c;
                }
        }
    }
    return out;
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
    f.width = f.left + f.plot_w + kRight;
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
