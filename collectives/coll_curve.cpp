#include "collectives/coll_curve.hpp"
#include "simulator/spelling.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace clustersim::mpi {

namespace {
comm::FittedCurve positive_part(const std::vector<std::pair<std::uint64_t, Time>>& points) {
    std::vector<std::pair<std::uint64_t, double>> bw;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto [size, t] = points[i];
        if (t <= Time::zero())
            throw std::invalid_argument(
                fmt::format("point {}: time {} ps; expected a positive time", i + 1, t.ps()));
        if (i > 0 && size <= points[i - 1].first)
            throw std::invalid_argument(
                fmt::format("point {}: size {} B does not rise above the previous point's {} B",
                            i + 1, size, points[i - 1].first));
        if (size > 0)
            bw.emplace_back(size, static_cast<double>(size) * 1e12 / static_cast<double>(t.ps()));
    }
    if (bw.empty()) return comm::FittedCurve{};
    return comm::FittedCurve(std::move(bw));
}
}  // namespace

CollectiveCurve::CollectiveCurve(std::vector<std::pair<std::uint64_t, Time>> points)
    : points_(std::move(points)), positive_(positive_part(points_)) {
    if (points_.empty()) throw std::invalid_argument("a collective curve needs at least one point");
}

Time CollectiveCurve::at(std::uint64_t bytes) const {
    const auto& [first_size, first_time] = points_.front();
    if (bytes <= first_size || positive_.empty()) return first_time;
    if (first_size == 0 && bytes < points_[1].first) {
        // Between the size-0 point and the first positive one: a straight line, in integers.
        __extension__ typedef __int128 int128;
        const auto [size, t] = points_[1];
        const auto rise = static_cast<int128>(t.ps()) - first_time.ps();
        return Time::ps(first_time.ps() + static_cast<std::int64_t>(rise * bytes / size));
    }
    return positive_.time(bytes);
}

bool parse_curve_scope(const std::string& text, CurveScope& out) {
    if (same_but_separators(text, "intra_node")) {
        out = CurveScope::IntraNode;
        return true;
    }
    if (same_but_separators(text, "inter_node")) {
        out = CurveScope::InterNode;
        return true;
    }
    return false;
}

const char* to_string(CurveScope s) {
    return s == CurveScope::IntraNode ? "intra_node" : "inter_node";
}

}  // namespace clustersim::mpi
