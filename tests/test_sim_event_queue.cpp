// The event queues' one contract, run on every implementation (as ns-3 runs one suite over
// its schedulers): the radix heap (EventQueue) and the ladder queue (LadderQueue) pop in
// (time, insertion) order whatever the mix of pushes and pops, as long as no push is before
// the last time popped; next_time() is the time pop() returns; peek(k), when not null, is the
// event popped k + 1 pops later and of the time last popped.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "simulator/engine.hpp"
#include "simulator/ladder_queue.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

// An event whose data numbers its push: the order of equal times is checkable.
Event numbered(std::int64_t ps, std::uint64_t n) {
    return Event{Time::ps(ps), 0, 0, n};
}

template <typename Queue>
class EventQueueContract : public ::testing::Test {
  public:
    Queue q;
    std::uint64_t pushed = 0;
    std::vector<Event> popped;
    void push(std::int64_t ps) { q.push(numbered(ps, pushed++)); }
    void pop_checked() {
        ASSERT_FALSE(q.empty());
        const Time next = q.next_time();
        const std::size_t before = q.size();
        const Event e = q.pop();
        ASSERT_EQ(e.time, next);
        ASSERT_EQ(q.size(), before - 1);
        popped.push_back(e);
    }
    // Every event popped once, in (time, push number) order.
    void expect_order() const {
        ASSERT_EQ(popped.size(), pushed);
        for (std::size_t i = 1; i < popped.size(); ++i) {
            ASSERT_LE(popped[i - 1].time, popped[i].time) << "pop " << i;
            if (popped[i - 1].time == popped[i].time) {
                ASSERT_LT(popped[i - 1].data, popped[i].data) << "pop " << i;
            }
        }
    }
};

using Queues = ::testing::Types<EventQueue, LadderQueue>;
TYPED_TEST_SUITE(EventQueueContract, Queues);

TYPED_TEST(EventQueueContract, EmptyAtFirstAndAfterEveryEventLeft) {
    EXPECT_TRUE(this->q.empty());
    EXPECT_EQ(this->q.size(), 0u);
    this->push(5);
    this->push(5);
    EXPECT_EQ(this->q.size(), 2u);
    this->pop_checked();
    this->pop_checked();
    EXPECT_TRUE(this->q.empty());
    this->expect_order();
}

// Thousands of events of one time leave in the order they came (a bucket that cannot be
// split by time: the ladder queue must not spawn rungs for it forever).
TYPED_TEST(EventQueueContract, OneTimeIsFirstInFirstOut) {
    for (int i = 0; i < 5000; ++i) this->push(42);
    while (!this->q.empty()) this->pop_checked();
    this->expect_order();
}

// A hold model (pop one, push one later) with ties: exponential, uniform and batched
// increments, and a few far-future events, from 1 to 20,000 pending events.
TYPED_TEST(EventQueueContract, HoldModelWithTiesPopsInTimeThenInsertionOrder) {
    for (const std::size_t pending : {1u, 7u, 300u, 20000u}) {
        this->q = TypeParam{};
        this->pushed = 0;
        this->popped.clear();
        std::mt19937_64 rng(pending);
        std::exponential_distribution<double> exp(1.0 / 1000);
        for (std::size_t i = 0; i < pending; ++i)
            this->push(static_cast<std::int64_t>(rng() % 5000));
        std::int64_t now = 0;
        for (std::size_t k = 0; k < 10 * pending + 200; ++k) {
            this->pop_checked();
            now = this->popped.back().time.ps();
            // The same time, exponential, uniform, a batch 1 ns later, near ties, far away.
            const std::uint64_t kind = rng() % 6;
            const std::int64_t dt = kind == 0   ? 0
                                    : kind == 1 ? static_cast<std::int64_t>(exp(rng))
                                    : kind == 2 ? static_cast<std::int64_t>(rng() % 2000)
                                    : kind == 3 ? 1000
                                    : kind == 4 ? static_cast<std::int64_t>(rng() % 3)
                                                : static_cast<std::int64_t>(rng() % (1ULL << 40));
            this->push(now + dt);
        }
        while (!this->q.empty()) this->pop_checked();
        this->expect_order();
    }
}

// Pushes land everywhere a queue keeps events: at the time last popped, just after it,
// among events already ordered, far away, and the largest time a run may schedule.
TYPED_TEST(EventQueueContract, PushesBetweenPopsKeepTheOrder) {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 2000; ++i) this->push(static_cast<std::int64_t>(rng() % 100000));
    this->push(Time::max().ps() - 1);
    while (!this->q.empty()) {
        this->pop_checked();
        const std::int64_t now = this->popped.back().time.ps();
        if (this->pushed < 60000 && now < Time::max().ps() - 1) {
            const std::int64_t far = static_cast<std::int64_t>(rng() % 200000);
            for (const std::int64_t t : {now, now + 1, now + far, now + far / 100}) this->push(t);
        }
    }
    this->expect_order();
}

// Few events of distinct times, close together (ranks out of step): pushes land before,
// between and at the times of the events still pending, at the time last popped, and past
// all of them; ties leave in the order they came whatever the queue made of them (the radix
// heap sorts such a bucket into a run and inserts later pushes into it).
TYPED_TEST(EventQueueContract, PushesAmongFewCloseDistinctTimesKeepTheOrder) {
    for (const std::int64_t t : {100, 110, 120, 130, 140, 150, 160, 170, 180, 190}) this->push(t);
    this->pop_checked();  // 100
    for (const std::int64_t t : {105, 110, 100, 190, 191, 1000, 150, 150}) this->push(t);
    std::mt19937_64 rng(11);
    while (!this->q.empty()) {
        this->pop_checked();
        const std::int64_t now = this->popped.back().time.ps();
        if (this->pushed < 5000) {
            this->push(now);
            this->push(now + static_cast<std::int64_t>(rng() % 40));
            if (rng() % 3 == 0) this->push(now + 10'000 + static_cast<std::int64_t>(rng() % 40));
        }
    }
    this->expect_order();
}

// peek(k), when it names an event, names the one the (k + 1)-th pop from now returns, of the
// time last popped (0 ps, the engine's start, before the first pop).
TYPED_TEST(EventQueueContract, PeekNamesTheComingEventsOfTheCurrentTime) {
    for (int i = 0; i < 40; ++i) this->push(10 + 10 * (i % 4));  // ten each of 10 ... 40 ps
    EXPECT_EQ(this->q.peek(0), nullptr);                         // none is of 0 ps
    std::size_t named = 0;
    while (!this->q.empty()) {
        std::vector<std::pair<std::size_t, Event>> ahead;
        for (std::size_t k = 0; k < 4; ++k)
            if (const Event* e = this->q.peek(k)) {
                EXPECT_EQ(e->time, this->popped.empty() ? Time::zero() : this->popped.back().time);
                ahead.emplace_back(k, *e);
            }
        named += ahead.size();
        const std::size_t base = this->popped.size();
        const std::size_t pops = ahead.empty() ? 1 : ahead.back().first + 1;
        for (std::size_t i = 0; i < pops; ++i) this->pop_checked();
        for (const auto& [k, e] : ahead) EXPECT_EQ(this->popped[base + k].data, e.data) << k;
    }
    EXPECT_GT(named, 20u);  // the events of one time are named ahead
    this->expect_order();
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
