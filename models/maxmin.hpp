// Max-min fair sharing (progressive filling, "water-filling").
//
// Resources have capacities (bytes/s); each flow uses a set of resources. The rates are
// raised together until a resource saturates; its flows are then fixed at that share and
// the rest go on. The result: no flow can get more without taking from a flow that has
// no more than it (each flow is limited by its bottleneck). A lazy min-heap over the
// resources' current share keeps a solve at O((links of the flows) log resources).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace clustersim::net {

// A bipartite flow/resource incidence in compressed rows (CSR): the resources of flow f are
// flow_resources[flow_first[f] .. flow_first[f + 1]), the flows of resource r are
// resource_flows[resource_first[r] .. resource_first[r + 1]). One allocation per table,
// reused between solves (the fluid model solves components of up to hundreds of thousands
// of flows; a vector per flow and per resource cost an allocation each).
struct Incidence {
    std::vector<std::uint32_t> flow_first, flow_resources;
    std::vector<std::uint32_t> resource_first, resource_flows;
    std::size_t flows() const { return flow_first.empty() ? 0 : flow_first.size() - 1; }
    std::size_t resources() const { return resource_first.empty() ? 0 : resource_first.size() - 1; }
    std::span<const std::uint32_t> of_flow(std::size_t f) const {
        return {flow_resources.data() + flow_first[f], flow_first[f + 1] - flow_first[f]};
    }
    std::span<const std::uint32_t> of_resource(std::size_t r) const {
        return {resource_flows.data() + resource_first[r],
                resource_first[r + 1] - resource_first[r]};
    }
    // resource_first/resource_flows from flow_first/flow_resources (flows of a resource in
    // increasing flow index), for `resources` resources.
    void transpose(std::size_t resources);
};

class MaxMinSolver {
  public:
    // flow_resources[f] lists the resources of flow f (indices into capacity); every flow
    // must use at least one resource. Writes rates[f].
    void solve(const std::vector<double>& capacity,
               const std::vector<std::vector<std::uint32_t>>& flow_resources,
               std::vector<double>& rates);

    // The same on an incidence in compressed rows (both directions filled). Resources at an
    // equal share are fixed in the order of `order` (one distinct key per resource; empty:
    // by index), so a caller whose resources come in any order gets the same rates, to the
    // bit, as one that sorted them by that key.
    void solve(std::span<const double> capacity, const Incidence& incidence,
               std::vector<double>& rates, std::span<const std::uint32_t> order = {});

  private:
    std::vector<double> remaining_;
    std::vector<std::uint32_t> unfixed_;
    std::vector<bool> fixed_;
    struct Entry {
        double share;
        std::uint32_t key;  // the tie-break: order[resource], or resource
        std::uint32_t resource;
        std::uint32_t version;
    };
    std::vector<Entry> heap_;
    std::vector<std::uint32_t> version_;
    Incidence scratch_;  // for the vector-of-vectors form
};

}  // namespace clustersim::net
