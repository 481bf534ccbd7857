#include "models/maxmin.hpp"

#include <algorithm>
#include <limits>

namespace clustersim::net {

void Incidence::transpose(std::size_t resources) {
    resource_first.assign(resources + 1, 0);
    for (const std::uint32_t r : flow_resources) ++resource_first[r + 1];
    for (std::size_t r = 0; r < resources; ++r) resource_first[r + 1] += resource_first[r];
    resource_flows.resize(flow_resources.size());
    // Filled in increasing flow order: each resource's flows in increasing index.
    std::vector<std::uint32_t>& next = resource_first;  // advanced, then shifted back
    const std::size_t nf = flows();
    for (std::size_t f = 0; f < nf; ++f)
        for (std::uint32_t i = flow_first[f]; i < flow_first[f + 1]; ++i)
            resource_flows[next[flow_resources[i]]++] = static_cast<std::uint32_t>(f);
    for (std::size_t r = resources; r > 0; --r) next[r] = next[r - 1];
    next[0] = 0;
}

void MaxMinSolver::solve(const std::vector<double>& capacity,
                         const std::vector<std::vector<std::uint32_t>>& flow_resources,
                         std::vector<double>& rates) {
    scratch_.flow_first.assign(1, 0);
    scratch_.flow_resources.clear();
    for (const auto& list : flow_resources) {
        scratch_.flow_resources.insert(scratch_.flow_resources.end(), list.begin(), list.end());
        scratch_.flow_first.push_back(static_cast<std::uint32_t>(scratch_.flow_resources.size()));
    }
    scratch_.transpose(capacity.size());
    solve(std::span<const double>(capacity), scratch_, rates);
}

void MaxMinSolver::solve(std::span<const double> capacity, const Incidence& incidence,
                         std::vector<double>& rates, std::span<const std::uint32_t> order) {
    const std::size_t nr = capacity.size(), nf = incidence.flows();
    rates.assign(nf, 0.0);
    remaining_.assign(capacity.begin(), capacity.end());
    unfixed_.assign(nr, 0);
    version_.assign(nr, 0);
    fixed_.assign(nf, false);
    heap_.clear();
    // Min-heap on share; ties broken by the resource's key, so the result never depends on
    // the heap's internal order.
    auto later = [](const Entry& a, const Entry& b) {
        return a.share != b.share ? a.share > b.share : a.key > b.key;
    };
    auto key = [&](std::uint32_t r) { return order.empty() ? r : order[r]; };
    for (std::uint32_t r = 0; r < nr; ++r) {
        unfixed_[r] = static_cast<std::uint32_t>(incidence.of_resource(r).size());
        if (unfixed_[r] > 0) heap_.push_back(Entry{remaining_[r] / unfixed_[r], key(r), r, 0});
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
        for (std::uint32_t f : incidence.of_resource(top.resource)) {
            if (fixed_[f]) continue;
            fixed_[f] = true;
            rates[f] = share;
            --left;
            for (std::uint32_t r : incidence.of_flow(f)) {
                remaining_[r] -= share;
                --unfixed_[r];
                ++version_[r];
                if (unfixed_[r] > 0 && r != top.resource) {
                    heap_.push_back(Entry{remaining_[r] / unfixed_[r], key(r), r, version_[r]});
                    std::push_heap(heap_.begin(), heap_.end(), later);
                }
            }
        }
    }
}

}  // namespace clustersim::net
