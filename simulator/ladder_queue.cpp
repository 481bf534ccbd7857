#include "simulator/ladder_queue.hpp"

namespace clustersim {

void LadderQueue::push(const Event& e) {
    ++size_;
    const std::uint64_t t = ps(e);
    if (t >= top_start_) {
        top_.push_back(e);
        top_min_ = std::min(top_min_, t);
        top_max_ = std::max(top_max_, t);
        return;
    }
    // The coarsest rung whose unused range holds t: each finer rung covers a bucket of the
    // one above that is used up, below the coarser one's unused range.
    for (std::size_t i = 0; i < active_; ++i) {
        Rung& r = rungs_[i];
        if (t >= r.unused_start()) {
            r.buckets[(t - r.start) / r.width].push_back(e);
            return;
        }
    }
    // Below every rung: into the bottom, after the events of its own time.
    const auto at =
        std::upper_bound(bottom_.begin() + static_cast<std::ptrdiff_t>(head_), bottom_.end(), t,
                         [](std::uint64_t time, const Event& b) { return time < ps(b); });
    bottom_.insert(at, e);
    if (bottom_.size() - head_ > kBottomMax && active_ < kMaxRungs &&
        bottom_[head_].time != bottom_.back().time) {
        // Too many insertions: the bottom becomes the finest rung (it is sorted, so its events
        // keep their order), covering every later push below the next rung up (or the top);
        // the next refill takes its first bucket back. A bottom of one time stays: its pushes
        // are appends.
        const std::uint64_t limit = active_ > 0 ? rungs_[active_ - 1].unused_start() : top_start_;
        scratch_.assign(bottom_.begin() + static_cast<std::ptrdiff_t>(head_), bottom_.end());
        bottom_.clear();
        head_ = 0;
        add_rung(scratch_, ps(scratch_.front()), limit - 1);
        scratch_.clear();
    }
}

void LadderQueue::add_rung(const std::vector<Event>& events, std::uint64_t lo, std::uint64_t hi) {
    if (rungs_.size() == active_) rungs_.emplace_back();
    Rung& r = rungs_[active_++];
    const std::uint64_t span = hi - lo;  // the events lie in [lo, lo + span]
    const std::uint64_t n = events.size();
    r.start = lo;
    r.width = span / n + 1;  // n buckets of this width cover the span
    r.used = 0;
    r.buckets_in_use = static_cast<std::size_t>(span / r.width + 1);
    if (r.buckets.size() < r.buckets_in_use) r.buckets.resize(r.buckets_in_use);
    for (const Event& e : events) r.buckets[(ps(e) - r.start) / r.width].push_back(e);
}

void LadderQueue::refill() {
    bottom_.clear();
    head_ = 0;
    for (;;) {
        if (active_ == 0) {
            // Everything below the top is used up: the top becomes rung 0, and what is
            // pushed from now on at or after its last time goes to a new top.
            add_rung(top_, top_min_, top_max_);
            top_start_ = rungs_[0].start + rungs_[0].buckets_in_use * rungs_[0].width;
            top_.clear();
            top_min_ = UINT64_MAX;
            top_max_ = 0;
        }
        Rung& r = rungs_[active_ - 1];
        while (r.used < r.buckets_in_use && r.buckets[r.used].empty()) ++r.used;
        if (r.used == r.buckets_in_use) {  // used up
            --active_;
            continue;
        }
        std::vector<Event>& b = r.buckets[r.used++];
        std::uint64_t lo = UINT64_MAX, hi = 0;
        for (const Event& e : b) {
            lo = std::min(lo, ps(e));
            hi = std::max(hi, ps(e));
        }
        if (b.size() > kSpawn && lo != hi && active_ < kMaxRungs) {
            // The finer rung takes every later push into what is left of this bucket.
            const std::uint64_t end = r.unused_start();
            scratch_.swap(b);
            b.clear();
            add_rung(scratch_, lo, end - 1);
            scratch_.clear();
            continue;
        }
        bottom_.swap(b);
        b.clear();
        if (lo != hi) sort_bottom();
        return;
    }
}

void LadderQueue::sort_bottom() {
    if (bottom_.size() > 4 * kSpawn) {  // kMaxRungs reached: a large bucket, rarely
        std::stable_sort(bottom_.begin(), bottom_.end(),
                         [](const Event& a, const Event& b) { return ps(a) < ps(b); });
        return;
    }
    for (std::size_t i = 1; i < bottom_.size(); ++i) {
        const Event e = bottom_[i];
        std::size_t j = i;
        for (; j > 0 && ps(bottom_[j - 1]) > ps(e); --j) bottom_[j] = bottom_[j - 1];
        bottom_[j] = e;
    }
}

}  // namespace clustersim
