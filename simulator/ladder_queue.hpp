// A ladder queue (Tang, Goh and Thng, "Ladder queue: an O(1) priority queue structure for
// large-scale discrete event simulation", ACM TOMACS 15(3), 2005): the engine's second event
// queue, with EventQueue's interface and contract (pops in (time, insertion) order, `peek`
// names events it already holds in order), kept to measure the choice against the radix heap
// (simulator/README.md, "The event queue"; bench/bench_queue.cpp).
//
// Three tiers. Top: an unsorted list of the events at or after `top_start_`. Rungs: bucket
// arrays, rung 0 made from the whole top when everything below is used up, each finer rung
// from one bucket of the rung above that held more than kSpawn events; a push below
// `top_start_` appends to the bucket of the coarsest rung whose unused range holds its time.
// Bottom: the events of the earliest bucket, sorted; a push below every rung's unused range
// is inserted there in order (after the events of its own time), and a bottom that grows past
// kBottomMax becomes a rung of its own. Every move keeps the events of one time in the order
// they came, and a bucket is sorted stably into the bottom, so events of equal time leave in
// insertion order without a sequence number.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "simulator/event.hpp"

namespace clustersim {

class LadderQueue {
  public:
    LadderQueue() { rungs_.reserve(kMaxRungs); }
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    void push(const Event& e);
    // The earliest event's time (not empty). May move events into the bottom.
    Time next_time() {
        if (head_ == bottom_.size()) refill();
        return bottom_[head_].time;
    }
    // The event pop() returns `ahead` pops after the next one, when it is of the time last
    // popped (0 ps before any) and already in the bottom (EventQueue's contract: a push
    // cannot come before it); otherwise null. For prefetching only: the pointer is valid until the
    // next push or pop.
    const Event* peek(std::size_t ahead) const {
        const std::size_t i = head_ + ahead;
        return i < bottom_.size() && bottom_[i].time == last_ ? &bottom_[i] : nullptr;
    }
    // Removes and returns the earliest event (not empty).
    Event pop() {
        if (head_ == bottom_.size()) refill();
        --size_;
        last_ = bottom_[head_].time;
        return bottom_[head_++];
    }

    // A bucket of more events than this is spread over a finer rung rather than sorted.
    static constexpr std::size_t kSpawn = 50;
    // A bottom of more events than this (pushed into it one by one, each an insertion)
    // becomes a rung.
    static constexpr std::size_t kBottomMax = 2 * kSpawn;
    static constexpr std::size_t kMaxRungs = 8;

  private:
    struct Rung {
        std::uint64_t start = 0;  // time (ps) of bucket 0
        std::uint64_t width = 1;  // ps per bucket
        std::size_t used = 0;     // buckets before this one are used up
        std::vector<std::vector<Event>> buckets;
        std::size_t buckets_in_use = 0;  // buckets[0, buckets_in_use) belong to this rung
        // The earliest time the rung's unused buckets may hold.
        std::uint64_t unused_start() const { return start + used * width; }
    };

    // Spreads `events` (in insertion order for equal times) over a new finest rung of at
    // most events.size() buckets covering [lo, hi]: lo at most their least time, hi at least
    // the greatest time a later push may bring it.
    void add_rung(const std::vector<Event>& events, std::uint64_t lo, std::uint64_t hi);
    // Moves the next events into the bottom (the bottom is used up, the queue not empty).
    void refill();
    // Sorts bottom_ by time, stably (insertion sort: a bucket is small).
    void sort_bottom();
    static std::uint64_t ps(const Event& e) { return static_cast<std::uint64_t>(e.time.ps()); }

    std::vector<Event> top_;
    std::uint64_t top_start_ = 0;  // events at or after it go to the top
    std::uint64_t top_min_ = UINT64_MAX, top_max_ = 0;
    std::vector<Rung> rungs_;  // rungs_[0, active_): coarsest first
    std::size_t active_ = 0;
    std::vector<Event> bottom_;  // sorted from head_ on
    std::size_t head_ = 0;
    std::vector<Event> scratch_;  // a bucket being spread or sorted
    std::size_t size_ = 0;
    Time last_ = Time::zero();  // of the last event popped (0 ps, the start, before any)
};

}  // namespace clustersim
