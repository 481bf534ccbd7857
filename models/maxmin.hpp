// Max-min fair sharing (progressive filling, "water-filling").
//
// Resources have capacities (bytes/s); each flow uses a set of resources. The rates are
// raised together until a resource saturates; its flows are then fixed at that share and
// the rest go on. The result: no flow can get more without taking from a flow that has
// no more than it (each flow is limited by its bottleneck). A lazy min-heap over the
// resources' current share keeps a solve at O((links of the flows) log resources).
#pragma once

#include <cstdint>
#include <vector>

namespace clustersim::net {

class MaxMinSolver {
  public:
    // flow_resources[f] lists the resources of flow f (indices into capacity); every flow
    // must use at least one resource. Writes rates[f].
    void solve(const std::vector<double>& capacity,
               const std::vector<std::vector<std::uint32_t>>& flow_resources,
               std::vector<double>& rates);

    // The same over a subset, with resources and flows given by the caller's own indices:
    // `resource_flows[r]` the flows (local indices) on local resource r.
    void solve_local(const std::vector<double>& capacity,
                     const std::vector<std::vector<std::uint32_t>>& resource_flows,
                     const std::vector<std::vector<std::uint32_t>>& flow_resources,
                     std::vector<double>& rates);

  private:
    std::vector<double> remaining_;
    std::vector<std::uint32_t> unfixed_;
    std::vector<bool> fixed_;
    struct Entry {
        double share;
        std::uint32_t resource;
        std::uint32_t version;
    };
    std::vector<Entry> heap_;
    std::vector<std::uint32_t> version_;
    std::vector<std::vector<std::uint32_t>> resource_flows_;  // for solve()
};

}  // namespace clustersim::net
