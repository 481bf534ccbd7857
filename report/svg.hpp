// A small SVG writer for the plots of comparisons and scaling studies: standalone SVG 1.1
// documents (xmlns, no scripts, no external fonts or styles), text escaped.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "report/run_log.hpp"
#include "simulator/text.hpp"
#include "simulator/time.hpp"

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

// Gantt chart of runs over one time window [from, to) (from < to), like PIOsimHD's observed vs
// simulated trace excerpts: one panel per run in the order given (its label in bold, then the
// log's title), all on one time axis (ticks and grid; unit s, ms, µs or ns by the window's
// length) across kTimelinePlotWidth pixels from x = kTimelineLeft; one row per rank labelled
// "rank N"; each operation a rectangle from x(start) to x(end), clipped to the window, with
// x(t) = kTimelineLeft + (t - from) * kTimelinePlotWidth / (to - from), coloured by its
// statistics kind (Compute a neutral grey, every MPI and MPI-IO kind a fixed colour of its
// own: timeline_color), with a <title> tooltip; a legend with one swatch per kind drawn.
//
// Stays small for any number of events: on each row, operations narrower than one pixel are
// merged into a 1-px mark per pixel column, coloured by the kind covering most of that
// column (runs of equal marks become one rectangle). If the document would still exceed
// max_bytes, tooltips are dropped, then the merge column is widened (2, 4, ... px) until it
// fits (a note under the title says so). Ranks beyond kTimelineMaxRows per run are left out
// (noted in the panel's header). The only <rect> elements are the background, the legend
// swatches and the operations/marks.
inline constexpr double kTimelineLeft = 84;
inline constexpr double kTimelinePlotWidth = 1000;
inline constexpr std::size_t kTimelineMaxRows = 1024;
inline constexpr std::size_t kTimelineMaxBytes = 2u << 20;  // 2 MiB
std::string svg_timelines(const std::string& title,
                          const std::vector<std::pair<std::string, const RunLog*>>& runs, Time from,
                          Time to, std::size_t max_bytes = kTimelineMaxBytes);

// The fill colour of a statistics kind in svg_timelines ("#rrggbb"; Compute "#c8c8c8").
std::string timeline_color(int kind);

// XML text escaping (& < > " '): simulator/text.hpp's.
inline std::string svg_escape(const std::string& text) {
    return xml_escape(text);
}

}  // namespace clustersim::traces
