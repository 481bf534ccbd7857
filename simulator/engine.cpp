#include "simulator/engine.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim {

Time EventQueue::next_time() const {
    if (head_ < buckets_[0].size) return buckets_[0].data[head_].time;
    return Time::ps(static_cast<std::int64_t>(least_[std::countr_zero(used_ & ~std::uint64_t{1})]));
}

void EventQueue::grow(Bucket& k, std::size_t at_least) {
    const std::size_t capacity = std::max<std::size_t>({16, 2 * k.capacity, at_least});
    // Event is an implicit-lifetime aggregate: operator new's storage holds Events once
    // they are assigned.
    std::unique_ptr<Event[], FreeEvents> data(
        static_cast<Event*>(::operator new(capacity * sizeof(Event))));
    std::copy(k.data.get(), k.data.get() + k.size, data.get());
    k.data = std::move(data);
    k.capacity = capacity;
}

void EventQueue::refill() {
    Bucket& run = buckets_[0];
    run.size = 0;
    head_ = 0;
    const auto b = static_cast<unsigned>(std::countr_zero(used_ & ~std::uint64_t{1}));
    Bucket& from = buckets_[b];
    const std::uint64_t least = least_[b];
    const std::uint64_t most = most_[b];
    least_[b] = UINT64_MAX;
    most_[b] = 0;
    used_ &= ~(std::uint64_t{1} << b);
    if (least == most && from.size > kSortedRun && run.capacity >= from.size) {
        // All of one time (the events of a step that ranks in step take together: nearly
        // every spread of a replay): in insertion order, they are bucket 0 as they are, so
        // the two buckets trade arrays instead of moving each event (issue 25). Only where
        // bucket 0's array holds as many as `from` held, so bucket b keeps room for as many
        // as it had (no array is outgrown again and again as arrays pass between buckets),
        // and only for more events than a sorted run (below), which copies as few.
        std::swap(run, from);
        last_ = least;
        return;
    }
    const Event* const first = from.data.get();
    const Event* const end = first + from.size;
    from.size = 0;
    if (end - first <= static_cast<std::ptrdiff_t>(kSortedRun)) {
        // A small bucket becomes a sorted run in bucket 0 (the class comment): insertion
        // sort, stable, so events of one time stay in insertion order.
        if (run.capacity < kSortedRun) grow(run, kSortedRun);
        Event* const out = run.data.get();
        std::size_t n = 0;
        for (const Event* e = first; e != end; ++e, ++n) {
            std::size_t i = n;
            for (; i > 0 && e->time < out[i - 1].time; --i) out[i] = out[i - 1];
            out[i] = *e;
        }
        run.size = n;
        last_ = static_cast<std::uint64_t>(out[n - 1].time.ps());
        return;
    }
    last_ = least;
    // Every event of `from` shares its bits from b - 1 up with the new last_, so it lands in
    // a lower bucket: `from` is not written while it is read.
    for (const Event* e = first; e != end; ++e) place(*e, static_cast<std::uint64_t>(e->time.ps()));
}

void EventQueue::insert_in_run(const Event& e) {
    // After every event of the run at or before e's time (first in, first out), at or after
    // the head (e is not before the time last popped).
    Bucket& run = buckets_[0];
    if (run.size == run.capacity) grow(run, run.size + 1);
    Event* const begin = run.data.get();
    Event* const at = std::upper_bound(begin + head_, begin + run.size, e.time,
                                       [](Time t, const Event& x) { return t < x.time; });
    std::copy_backward(at, begin + run.size, begin + run.size + 1);
    *at = e;
    ++run.size;
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
    if (until == Time::max() && last == UINT64_MAX && !any_prefetching_) {
        // The usual run, to the end: no horizon, count or lookahead to test at each event.
        while (!stopped_ && !queue_.empty()) {
            const Event ev = queue_.pop();
            assert(ev.time >= now_ && "time went backwards");
            now_ = ev.time;
            ++processed_;
            components_[ev.component]->handle(*this, ev);
        }
        return processed_ - start;
    }
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
