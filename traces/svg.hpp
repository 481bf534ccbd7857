// A small SVG writer for the plots of comparisons and scaling studies: standalone SVG 1.1
// documents (xmlns, no scripts, no external fonts or styles), text escaped.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace clustersim::traces {

// Grouped bars: one group per category, one bar per series (series[i].second[c] is the value
// of category c; missing or non-finite values draw no bar). The y axis starts at 0 (or below
// for negative values) with "nice" ticks; a legend names the series.
std::string svg_bar_chart(const std::string& title, const std::vector<std::string>& categories,
                          const std::vector<std::pair<std::string, std::vector<double>>>& series,
                          const std::string& y_label);

// One polyline with markers per series, points (x, y) drawn in x order. log_x: logarithmic x
// axis (ticks at powers of 10, or of 2 for narrow ranges; points with x <= 0 are left out).
std::string svg_line_chart(
    const std::string& title, const std::string& x_label, const std::string& y_label,
    const std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>>& series,
    bool log_x);

// XML text escaping (& < > " ').
std::string svg_escape(const std::string& text);

}  // namespace clustersim::traces
