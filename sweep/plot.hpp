// Figures and tables from a sweep's results.jsonl: y against x, one line per series, one
// panel per facet (SVG, hand-written: axes with units, legend, title), and the table of the
// best series at each (facet, x).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace clustersim::sweep {

struct PlotOptions {
    std::string results;  // results.jsonl (or the sweep's output folder)
    std::string x, y, series, facet;
    bool log_x = false, log_y = false;
    bool speedup = false;   // y becomes (y at the series' smallest x) / y
    bool maximize = false;  // the table's best is the largest y (default: smallest)
    std::string title;
    std::string svg;    // write the figure here ("" : no figure)
    std::string table;  // also write the table here (.md or .csv)
};

// A field of a record by name: an axis, a result field ("simulated_time" finds
// result.simulated_time_s), an app_summary entry, or a JSON pointer ("/result/network/packets").
// Returns null when absent.
nlohmann::json field_of(const nlohmann::json& record, const std::string& name,
                        std::string* key_found = nullptr);

// Writes the figure (when o.svg is set) and returns the best-configuration table (Markdown).
std::string plot(const PlotOptions& o);

}  // namespace clustersim::sweep
