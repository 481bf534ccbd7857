// The fluid model's completions (models/fluid.hpp): a run of completions in time order behind
// a binary heap for the others, stale entries dropped lazily, one engine event armed at the
// earliest. Apart from fluid.cpp, which keeps the flows, routes and the max-min solve.
#include <algorithm>

#include "models/fluid.hpp"

namespace clustersim::net {

void FluidNetwork::push_completion(Time at, std::uint64_t order, std::uint32_t flow,
                                   std::uint32_t version) {
    const Completion c{at, order, flow, version};
    // In time order behind the run's last entry (flows started one after another with the
    // same duration, the usual case): appended to the run. Otherwise into the heap.
    if (run_head_ == run_.size()) {
        run_.clear();
        run_head_ = 0;
    } else if (run_head_ >= 4096 && 2 * run_head_ >= run_.size()) {  // drop the consumed half
        run_.erase(run_.begin(), run_.begin() + static_cast<std::ptrdiff_t>(run_head_));
        run_head_ = 0;
    }
    // Made in place from the fields (emplace_back), not copied from `c`: a copy's wide loads
    // of the fields just stored stall on store forwarding.
    if (run_.empty() || !Later{}(run_.back(), c)) {
        run_.emplace_back(at, order, flow, version);
        return;
    }
    heap_.emplace_back(at, order, flow, version);
    std::push_heap(heap_.begin(), heap_.end(), Later{});
}

bool FluidNetwork::top_in_run() const {
    if (run_head_ == run_.size()) return false;
    return heap_.empty() || !Later{}(run_[run_head_], heap_.front());
}

const FluidNetwork::Completion* FluidNetwork::first_completion() const {
    if (top_in_run()) return &run_[run_head_];
    return heap_.empty() ? nullptr : &heap_.front();
}

void FluidNetwork::pop_completion() {
    if (top_in_run()) {
        ++run_head_;
        return;
    }
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
}

void FluidNetwork::drop_stale() {
    for (const Completion* c = first_completion(); c != nullptr && !current(*c);
         c = first_completion())
        pop_completion();
    const std::size_t queued = heap_.size() + (run_.size() - run_head_);
    if (queued > 1024 && queued > 2 * flows_.live()) {
        std::erase_if(heap_, [&](const Completion& c) { return !current(c); });
        std::make_heap(heap_.begin(), heap_.end(), Later{});
        run_.erase(run_.begin(), run_.begin() + static_cast<std::ptrdiff_t>(run_head_));
        run_head_ = 0;
        std::erase_if(run_, [&](const Completion& c) { return !current(c); });
    }
}

void FluidNetwork::arm() {
    drop_stale();
    const Completion* first = first_completion();
    if (first == nullptr) return;
    const Time at = first->at;
    if (at == armed_at_) return;
    armed_at_ = at;  // an earlier-armed event that no longer matches is skipped when it fires
    engine_.schedule(at, id_, kNextDone, static_cast<std::uint64_t>(at.ps()));
}

}  // namespace clustersim::net
