// Measured collective curves (issue 23, <collective-curve> in the model's <collectives>): the
// time the real MPI library takes for one collective operation on a communicator of a given
// size, against the size one rank passes, as clustersim-calibrate measures it. A call that
// matches a curve (collectives/README.md, "Measured collective curves") costs the curve's
// time from the moment its last member enters, instead of running its algorithm.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collectives/collective.hpp"
#include "models/comm_model.hpp"
#include "simulator/time.hpp"

namespace clustersim::mpi {

// Time against size through measured points (sizes strictly rising, times positive): between
// two points of positive size log-log monotone interpolation exactly as the point-to-point
// curves do (comm::FittedCurve over the points' bandwidths size / time: it passes through
// every point, and above the last point the bandwidth stays the last point's, so the time
// grows in proportion to the size); below the first point the first point's time; a point of
// size 0 (a barrier's, an empty bcast's) joins the first positive one by a straight line in
// size. A curve of one point of size 0 is that time at every size.
class CollectiveCurve {
  public:
    // Throws std::invalid_argument (naming the point) unless the points are as above.
    explicit CollectiveCurve(std::vector<std::pair<std::uint64_t, Time>> points);
    Time at(std::uint64_t bytes) const;
    const std::vector<std::pair<std::uint64_t, Time>>& points() const { return points_; }

  private:
    std::vector<std::pair<std::uint64_t, Time>> points_;
    comm::FittedCurve positive_;  // the points of positive size, as bandwidths
};

// The placement a curve was measured in: every member on one node, or every member on a node
// of its own.
enum class CurveScope : std::uint8_t { IntraNode, InterNode };
bool parse_curve_scope(const std::string& text, CurveScope& out);
const char* to_string(CurveScope s);

// One curve as the runtime uses it: blocking calls of `op` on communicators of `ranks` members
// placed as `scope`.
struct CollectiveCurveRule {
    CollOp op = CollOp::Barrier;
    std::uint32_t ranks = 0;
    CurveScope scope = CurveScope::IntraNode;
    std::shared_ptr<const CollectiveCurve> curve;
};

}  // namespace clustersim::mpi
