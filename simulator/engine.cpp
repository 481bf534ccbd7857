#include "simulator/engine.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim {

Time EventQueue::next_time() const {
    if (head_ < buckets_[0].size()) return buckets_[0][head_].time;
    return Time::ps(static_cast<std::int64_t>(least_[std::countr_zero(used_ & ~std::uint64_t{1})]));
}

void EventQueue::refill() {
    std::vector<Event>& run = buckets_[0];
    run.clear();
    head_ = 0;
    const auto b = static_cast<unsigned>(std::countr_zero(used_ & ~std::uint64_t{1}));
    std::vector<Event>& from = buckets_[b];
    const std::uint64_t least = least_[b];
    least_[b] = UINT64_MAX;
    used_ &= ~(std::uint64_t{1} << b);
    if (from.size() <= kSortedRun) {
        // A small bucket becomes a sorted run in bucket 0 (the class comment): insertion
        // sort, stable, so events of one time stay in insertion order.
        for (const Event& e : from) {
            std::size_t i = run.size();
            run.push_back(e);
            for (; i > 0 && e.time < run[i - 1].time; --i) run[i] = run[i - 1];
            run[i] = e;
        }
        from.clear();
        last_ = static_cast<std::uint64_t>(run.back().time.ps());
        return;
    }
    last_ = least;
    // Every event of `from` shares its bits from b - 1 up with the new last_, so it lands in
    // a lower bucket: `from` is not appended to while it is read.
    for (const Event& e : from) place(e);
    from.clear();
}

void EventQueue::insert_in_run(const Event& e) {
    // After every event of the run at or before e's time (first in, first out), at or after
    // the head (e is not before the time last popped).
    std::vector<Event>& run = buckets_[0];
    const auto at = std::upper_bound(run.begin() + static_cast<std::ptrdiff_t>(head_), run.end(),
                                     e.time, [](Time t, const Event& x) { return t < x.time; });
    run.insert(at, e);
}

void Engine::beyond_horizon(ComponentId target) const {
    const std::string who = target < components_.size() ? components_[target]->name()
                                                        : fmt::format("component {}", target);
    throw HorizonError(fmt::format(
        "simulated time passes the horizon: {} scheduled an event beyond 2^63-1 ps (about "
        "{:.2f} days, the largest time int64 picoseconds hold) at simulated time {}",
        who, Time::horizon_days(), format_time(now_)));
}

std::uint64_t Engine::run(Time until, std::uint64_t max_events) {
    stopped_ = false;
    const std::uint64_t start = processed_;
    const std::uint64_t last = max_events > UINT64_MAX - start ? UINT64_MAX : start + max_events;
    while (!queue_.empty() && !stopped_ && processed_ < last) {
        if (until != Time::max() && queue_.next_time() > until) break;
        const Event ev = queue_.pop();
        assert(ev.time >= now_ && "time went backwards");
        now_ = ev.time;
        ++processed_;
        if (any_prefetching_) {
            if (const Event* far = queue_.peek(kPrefetchAhead - 1);
                far != nullptr && prefetching_[far->component] != 0)
                components_[far->component]->prefetch(*far, true);
            if (const Event* near = queue_.peek(0);
                near != nullptr && prefetching_[near->component] != 0)
                components_[near->component]->prefetch(*near, false);
        }
        components_[ev.component]->handle(*this, ev);
    }
    return processed_ - start;
}

}  // namespace clustersim
