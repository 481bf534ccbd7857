#include "models/maxmin.hpp"

#include <algorithm>
#include <limits>

namespace clustersim::net {

void MaxMinSolver::solve(const std::vector<double>& capacity,
                         const std::vector<std::vector<std::uint32_t>>& flow_resources,
                         std::vector<double>& rates) {
    resource_flows_.assign(capacity.size(), {});
    for (std::uint32_t f = 0; f < flow_resources.size(); ++f)
        for (std::uint32_t r : flow_resources[f]) resource_flows_[r].push_back(f);
    solve_local(capacity, resource_flows_, flow_resources, rates);
}

void MaxMinSolver::solve_local(const std::vector<double>& capacity,
                               const std::vector<std::vector<std::uint32_t>>& resource_flows,
                               const std::vector<std::vector<std::uint32_t>>& flow_resources,
                               std::vector<double>& rates) {
    const std::size_t nr = capacity.size(), nf = flow_resources.size();
    rates.assign(nf, 0.0);
    remaining_.assign(capacity.begin(), capacity.end());
    unfixed_.assign(nr, 0);
    version_.assign(nr, 0);
    fixed_.assign(nf, false);
    heap_.clear();
    // Min-heap on share; ties broken by resource index, so the result never depends on
    // the heap's internal order.
    auto later = [](const Entry& a, const Entry& b) {
        return a.share != b.share ? a.share > b.share : a.resource > b.resource;
    };
    for (std::uint32_t r = 0; r < nr; ++r) {
        unfixed_[r] = static_cast<std::uint32_t>(resource_flows[r].size());
        if (unfixed_[r] > 0) heap_.push_back(Entry{remaining_[r] / unfixed_[r], r, 0});
    }
    std::make_heap(heap_.begin(), heap_.end(), later);
    std::size_t left = nf;
    while (left > 0 && !heap_.empty()) {
        std::pop_heap(heap_.begin(), heap_.end(), later);
        const Entry top = heap_.back();
        heap_.pop_back();
        if (top.version != version_[top.resource] || unfixed_[top.resource] == 0)
            continue;  // stale
        const double share = std::max(0.0, top.share);
        for (std::uint32_t f : resource_flows[top.resource]) {
            if (fixed_[f]) continue;
            fixed_[f] = true;
            rates[f] = share;
            --left;
            for (std::uint32_t r : flow_resources[f]) {
                remaining_[r] -= share;
                --unfixed_[r];
                ++version_[r];
                if (unfixed_[r] > 0 && r != top.resource) {
                    heap_.push_back(Entry{remaining_[r] / unfixed_[r], r, version_[r]});
                    std::push_heap(heap_.begin(), heap_.end(), later);
                }
            }
        }
    }
}

}  // namespace clustersim::net
