// The real library's collective curves (issue 23): what the model, the CSV and the report
// make of CollCurveMeasured (measure_collectives.cpp measures them).
#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tools/mpi/calibrate/calibrate.hpp"
#include "topologies/model_writer.hpp"

namespace clustersim::calibrate {

std::string coll_curve_scope(const Measured& m) {
    if (m.hosts.size() == 1) return "intra_node";
    if (std::all_of(m.hosts.begin(), m.hosts.end(),
                    [](const Host& h) { return h.ranks.size() == 1; }))
        return "inter_node";
    return "";
}

std::vector<std::uint64_t> coll_curve_sizes(const char* operation,
                                            const std::vector<std::uint64_t>& grid) {
    const std::string op = operation;
    if (op == "barrier") return {0};
    std::set<std::uint64_t> sizes;
    for (const std::uint64_t b : grid) sizes.insert(op == "bcast" ? b : b / 8 * 8);
    // One point at twice the grid's largest size, so that a call between the two is
    // interpolated: past the last-level cache the time per byte keeps growing (Open MPI 4.1,
    // 2 ranks on this machine: a bcast of 64 MiB 9.5-10.6 ms, of 100 MiB 17.2-20.0 ms), which
    // the curve's rule above its largest point (the last point's bandwidth) would miss.
    if (!grid.empty() && grid.back() > 0) {
        const std::uint64_t beyond = grid.back() * 2;
        sizes.insert(op == "bcast" ? beyond : beyond / 8 * 8);
    }
    return {sizes.begin(), sizes.end()};
}

void add_collective_curves(const Measured& m, topo::XmlElement& collectives) {
    const std::string scope = coll_curve_scope(m);
    if (scope.empty()) return;
    for (const CollCurveMeasured& c : m.coll_curves) {
        if (c.points.empty()) continue;
        topo::XmlElement& e = collectives.add("collective-curve")
                                  .text("operation", c.operation)
                                  .count("ranks", static_cast<std::uint64_t>(m.world))
                                  .text("scope", scope);
        for (const auto& [bytes, st] : c.points) {
            // The model's times are positive: a call measured below the model's precision
            // (0.1 ns) keeps that.
            const Time t = model_time_of(st.value);
            e.add_point(bytes, t > Time::zero() ? t : Time::ps(100));
        }
    }
}

std::string coll_curves_csv(const Measured& m) {
    std::ostringstream c;
    const std::string scope = coll_curve_scope(m);
    for (const CollCurveMeasured& cc : m.coll_curves)
        for (const auto& [bytes, s] : cc.points)
            c << "collective_" << cc.operation << "," << (scope.empty() ? "mixed" : scope)
              << ",-1,-1," << static_cast<unsigned long long>(bytes) << ","
              << strf(",%.0f,%.0f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f", s.passes, s.samples,
                      s.value * 1e6, s.median_all * 1e6, s.min * 1e6, s.p10 * 1e6, s.p90 * 1e6,
                      s.max * 1e6)
              << ",,\n";
    return c.str();
}

std::vector<std::string> coll_curves_report(const Measured& m) {
    std::vector<std::string> out;
    if (m.coll_curves.empty()) return out;
    const std::string scope = coll_curve_scope(m);
    out.push_back(
        strf("collective curves on MPI_COMM_WORLD (%d ranks, %s; per call, the slowest "
             "rank's; median over the passes, min-max of the runs):",
             m.world, scope.empty() ? "mixed placement: not in the model" : scope.c_str()));
    for (const CollCurveMeasured& c : m.coll_curves) {
        std::string line = "  " + c.operation + ":";
        for (std::size_t i = 0; i < c.points.size(); ++i) {
            const auto& [bytes, s] = c.points[i];
            line += strf("%s %s %s (%s-%s)", i == 0 ? "" : ";", size_text(bytes).c_str(),
                         time_text(s.value).c_str(), time_text(s.min).c_str(),
                         time_text(s.max).c_str());
        }
        out.push_back(line);
    }
    return out;
}

}  // namespace clustersim::calibrate
