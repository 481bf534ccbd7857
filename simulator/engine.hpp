// The sequential discrete-event engine.
//
// Events are small values (24 bytes) kept by value in a radix heap (EventQueue below) and
// popped in (time, insertion) order: two runs with the same input pop events in the same
// order. The insertion order is the queue's own (first in, first out among equal times), so
// an event carries no sequence number. An event names its target component by a dense id and
// carries a kind and one 64-bit payload; the engine dispatches with one virtual call, so the hot
// path allocates nothing (the queue's storage grows to the peak number of pending events and is
// then reused).
#pragma once

#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "simulator/event.hpp"
#include "simulator/time.hpp"
#ifdef CLUSTERSIM_LADDER_QUEUE
#include "simulator/ladder_queue.hpp"
#endif

namespace clustersim {

class Engine;

// The pending events: a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan), which relies on the
// engine's times never decreasing: every event is at or after the last one popped (`last_`).
// Bucket b holds the events whose time first differs from last_ in bit b - 1 (bucket 0:
// time == last_), so a push is one bit scan and an append. A pop takes bucket 0's events
// first in, first out; when it is empty, the lowest non-empty bucket is scanned for its
// earliest time, which becomes last_, and its events are spread over the buckets below.
// An event moves down at most 63 times; in bench_replay 1024 10000 packet, about once (24.9 M
// moves for 24.4 M events, before one-time buckets, below, took most of them). Against the
// Boost.Heap 4-ary heap this replaced, which sifts 32-byte events through log4(n) levels
// with a two-key comparison at each: a quarter fewer instructions per event on
// bench_replay, about as fast with 1,000 pending events and a quarter to a third faster
// with 3,000 to 20,000 (a hold-model microbenchmark). Base-16 digits (fewer moves, more
// buckets) measured no better than bits.
//
// Ties pop in insertion order, as a (time, sequence) heap would: events of equal time are
// always in the same bucket (for the buckets above the one spread, the bucket relative to
// the new last_ is the same as relative to the old one), and every bucket keeps its
// events of one time in insertion order (appends come later than everything present;
// spreading keeps order and only fills buckets that were empty).
//
// Sorted runs: where ranks run out of step, events rarely share a time, and the radix heap
// spread a bucket at nearly every pop (bench_replay's pmac: 755,000 spreads for 764,932
// events, 13 % of the replay's instructions). A bucket of at most kSortedRun events is
// instead sorted into bucket 0 (stable: ties keep their order) and popped from the front;
// last_ is then the run's latest time, so a push before it (never before the time last
// popped) goes into the run after the events of its time or earlier, and a push at or
// after it is placed as before. The buckets above stay valid: the run's latest time
// shares its bits from b - 1 up with the old last_ as the earliest does.
//
// One-time buckets: where ranks run in step, the bucket spread is nearly always all of one
// time (bench_replay 1024 10000 packet: 22,730 of 23,500 spreads, 23.3 M of the 24.9 M
// events they moved; fluid: all of them). Such a bucket (its least and latest times equal,
// both kept on every place) is, in insertion order, what bucket 0 would become event by
// event, so the two trade arrays instead (when the bucket holds more than kSortedRun events
// and bucket 0's array is as large). Each bucket is its own array (Bucket), grown by
// doubling and kept, and push is inlined where events are scheduled.
class EventQueue {
  public:
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    // Inlined where events are scheduled: a bit scan, a capacity test and a store (the
    // growth and the push into a sorted run are out of line).
    [[gnu::always_inline]] void push(const Event& e) {
        const auto t = static_cast<std::uint64_t>(e.time.ps());
        // Before last_: inside a sorted run not yet used up (refill), whose last time last_ is.
        if (t < last_) [[unlikely]]
            insert_in_run(e);
        else
            place(e, t);
        ++size_;
    }
    // The earliest event's time (not empty).
    Time next_time() const;
    // The event that pop() returns `ahead` pops after the next one, when the queue already
    // knows it without work: it is among the events of the current time (bucket 0, of the
    // time last popped); otherwise null. For prefetching only: the pointer is valid until the
    // next push or pop.
    const Event* peek(std::size_t ahead) const {
        const std::size_t i = head_ + ahead;
        const Bucket& run = buckets_[0];
        // head_ 0: nothing popped yet, and bucket 0 holds only events of 0 ps.
        return i < run.size && (head_ == 0 || run.data[i].time == run.data[head_ - 1].time)
                   ? &run.data[i]
                   : nullptr;
    }
    // Removes and returns the earliest event (not empty).
    Event pop() {
        if (head_ == buckets_[0].size) [[unlikely]]
            refill();
        --size_;
        return buckets_[0].data[head_++];
    }

  private:
    // A bucket's events: its own array, grown by doubling and kept (a bucket is emptied and
    // filled again many times). Not a std::vector, whose push_back the compiler kept out of
    // line with the whole of push() around it (issue 25: in bench_replay 1024 1000 packet,
    // 40 M of push's 71 M instructions saved and restored registers).
    // A bucket's array is raw storage that events are copied into (grow): only right while
    // an Event is an implicit-lifetime type with nothing to construct or destroy.
    static_assert(std::is_trivially_copyable_v<Event> && std::is_trivially_destructible_v<Event>,
                  "bucket arrays hold events in raw storage");
    struct FreeEvents {
        void operator()(Event* p) const noexcept { ::operator delete(p); }
    };
    struct Bucket {
        // Raw storage (grow): an array made with new[] would first write every slot of the
        // new capacity, twice the events it moves (in bench_queue's hold model at 100,000
        // pending, growth then made 47.3 M of its 112.5 M data writes).
        std::unique_ptr<Event[], FreeEvents> data;
        std::size_t size = 0;
        std::size_t capacity = 0;
    };
    // Times are never negative, so they differ from last_ in bits 0..62 at most: 64 buckets.
    [[gnu::always_inline]] void place(const Event& e, std::uint64_t t) {
        const auto b = static_cast<unsigned>(std::bit_width(t ^ last_));
        Bucket& k = buckets_[b];
        if (k.size == k.capacity) [[unlikely]]
            grow(k, k.size + 1);
        k.data[k.size++] = e;
        used_ |= std::uint64_t{1} << b;
        if (t < least_[b]) least_[b] = t;
        if (t > most_[b]) most_[b] = t;
    }
    [[gnu::noinline]] static void grow(Bucket& k, std::size_t at_least);
    [[gnu::noinline]] void refill();  // bucket 0 is used up and the queue is not empty
    [[gnu::noinline]] void insert_in_run(const Event& e);
    // A bucket of at most this many events is sorted into bucket 0 at once (refill).
    static constexpr std::size_t kSortedRun = 16;

    std::array<Bucket, 64> buckets_;
    // Per bucket, the earliest time (ps) of its events (UINT64_MAX when empty; bucket 0's is
    // not used): kept on every place(), so refill() reads the bucket it spreads once, not
    // twice (issue 25: a third fewer passes over the events a refill moves).
    std::array<std::uint64_t, 64> least_ = filled_least();
    // Per bucket, the latest time (ps) of its events (0 when empty): a bucket whose least and
    // latest times are one is all of one time, and becomes bucket 0 as it is (refill).
    std::array<std::uint64_t, 64> most_{};
    static constexpr std::array<std::uint64_t, 64> filled_least() {
        std::array<std::uint64_t, 64> a{};
        a.fill(UINT64_MAX);
        return a;
    }
    std::size_t head_ = 0;    // events of bucket 0 already popped
    std::uint64_t last_ = 0;  // time (ps) of the last event popped, or of a sorted run's last
    std::uint64_t used_ = 0;  // bit b set: bucket b is not empty (bit 0 is not kept up)
    std::size_t size_ = 0;
};

// Anything that receives events. One job, one name.
class Component {
  public:
    virtual ~Component() = default;
    virtual void handle(Engine& engine, const Event& event) = 0;
    virtual std::string name() const = 0;
    // Told about an event before handle() gets it (Engine::add_prefetching): `far` true
    // kPrefetchAhead events before, false one event before. May start loading the state the
    // event will touch into the cache (far: what the event itself names; near: what that
    // state names, by then loaded); must change nothing.
    virtual void prefetch(const Event& /*event*/, bool /*far*/) const {}
};

// The queue the engine runs on, chosen by measurement (simulator/README.md, "The event
// queue"): both implement the same contract, pinned by tests/test_sim_event_queue.cpp.
#ifdef CLUSTERSIM_LADDER_QUEUE
using EngineQueue = LadderQueue;
#else
using EngineQueue = EventQueue;
#endif

class Engine {
  public:
    Engine() = default;
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    ComponentId add(Component& component) {
        components_.push_back(&component);
        prefetching_.push_back(0);
        return static_cast<ComponentId>(components_.size() - 1);
    }
    // The same, for a component whose prefetch() is worth calling: when a large model's
    // state does not fit the cache, each event is a few cache misses, and the events of one
    // simulated time are known in advance (EventQueue::peek), so their state can be loaded
    // while earlier events run. Results do not change.
    ComponentId add_prefetching(Component& component) {
        const ComponentId id = add(component);
        prefetching_[id] = 1;
        any_prefetching_ = true;
        return id;
    }
    // How many events ahead prefetch(event, far = true) is called.
    static constexpr std::size_t kPrefetchAhead = 4;

    Time now() const { return now_; }

    // Scheduling in the past is a programming error (assertion in debug builds). An event at
    // Time::max(), where saturated times land (simulator/time.hpp), is past the horizon: the
    // run stops with a HorizonError naming `target`.
    [[gnu::always_inline]] void schedule(Time at, ComponentId target, std::uint32_t kind,
                                         std::uint64_t data = 0) {
        if (at == Time::max()) [[unlikely]]
            beyond_horizon(target);
        assert(at >= now_ && "event scheduled in the past");
        assert(target < components_.size() && "unknown component");
        queue_.push(Event{at, target, kind, data});
    }
    void schedule_in(Time delay, ComponentId target, std::uint32_t kind, std::uint64_t data = 0) {
        schedule(now_ + delay, target, kind, data);
    }

    // Runs until no event is left, stop() is called, the next event is after `until`, or
    // `max_events` events have been processed. Returns the number processed by this call.
    std::uint64_t run(Time until = Time::max(), std::uint64_t max_events = UINT64_MAX);
    void stop() { stopped_ = true; }

    std::uint64_t events_processed() const { return processed_; }
    std::size_t pending() const { return queue_.size(); }
    std::size_t components() const { return components_.size(); }
    const Component& component(ComponentId id) const { return *components_[id]; }

  private:
    [[noreturn]] void beyond_horizon(ComponentId target) const;

    EngineQueue queue_;
    std::vector<Component*> components_;
    std::vector<std::uint8_t> prefetching_;  // per component: 1 if added with add_prefetching
    bool any_prefetching_ = false;           // run() looks ahead only then (two peeks per event)
    Time now_ = Time::zero();
    std::uint64_t processed_ = 0;
    bool stopped_ = false;
};

}  // namespace clustersim
