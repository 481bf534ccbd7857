// The event engine: (time, insertion) order, determinism, no event in the past; the time
// type's exact arithmetic.
#include <gtest/gtest.h>

#include <vector>

#include "simulator/engine.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

struct Recorder final : Component {
    std::vector<std::pair<std::int64_t, std::uint64_t>> seen;
    Time last;
    void handle(Engine& engine, const Event& ev) override {
        EXPECT_GE(engine.now(), last) << "an event ran in the past";
        last = engine.now();
        seen.emplace_back(ev.time.ps(), ev.data);
    }
    std::string name() const override { return "recorder"; }
};

TEST(Engine, PopsByTimeThenInsertionOrder) {
    Engine engine;
    Recorder rec;
    const ComponentId id = engine.add(rec);
    engine.schedule(Time::ns(5), id, 0, 1);
    engine.schedule(Time::ns(1), id, 0, 2);
    engine.schedule(Time::ns(5), id, 0, 3);
    engine.schedule(Time::ns(1), id, 0, 4);
    engine.schedule(Time::ns(3), id, 0, 5);
    EXPECT_EQ(engine.run(), 5u);
    const std::vector<std::pair<std::int64_t, std::uint64_t>> want{
        {1000, 2}, {1000, 4}, {3000, 5}, {5000, 1}, {5000, 3}};
    EXPECT_EQ(rec.seen, want);
    EXPECT_EQ(engine.now(), Time::ns(5));
}

// Events that schedule more events, with many ties, in a pseudo-random pattern: two runs
// give the same trajectory, and time never goes backwards.
struct Chain final : Component {
    ComponentId id = 0;
    std::uint64_t state = 12345;
    std::vector<std::uint64_t> trajectory;
    void handle(Engine& engine, const Event& ev) override {
        trajectory.push_back(ev.data ^ static_cast<std::uint64_t>(engine.now().ps()));
        if (trajectory.size() > 20000) return;
        for (int k = 0; k < 2; ++k) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            engine.schedule_in(Time::ns(static_cast<std::int64_t>((state >> 33) % 4)), id, 0,
                               state >> 40);
        }
    }
    std::string name() const override { return "chain"; }
};

TEST(Engine, DeterministicTrajectory) {
    auto run = [] {
        Engine engine;
        Chain c;
        c.id = engine.add(c);
        engine.schedule(Time::zero(), c.id, 0, 0);
        engine.run();
        return c.trajectory;
    };
    const auto a = run();
    EXPECT_GT(a.size(), 20000u);
    EXPECT_EQ(a, run());
}

// The queue against the definition: events that schedule more events at delays from zero
// (ties) to hours (spread over many bits of the time), some stops with run(until) in
// between, and every event must come out in (time, insertion) order.
struct Spreader final : Component {
    ComponentId id = 0;
    std::uint64_t state = 777;
    std::uint64_t next_label = 1;
    std::uint64_t scheduled = 0;
    std::vector<std::pair<std::int64_t, std::uint64_t>> seen;  // (time, label)
    void add(Engine& engine) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const unsigned shift = static_cast<unsigned>((state >> 20) % 52);
        const auto delay = static_cast<std::int64_t>(((state >> 33) % 3) << shift);
        engine.schedule_in(Time::ps(delay), id, 0, next_label++);
        ++scheduled;
    }
    void handle(Engine& engine, const Event& ev) override {
        seen.emplace_back(ev.time.ps(), ev.data);
        if (scheduled < 30000)
            for (std::uint64_t k = 0; k < (state >> 61) % 3 + 1; ++k) add(engine);
    }
    std::string name() const override { return "spreader"; }
};

TEST(Engine, PopsInTimeThenInsertionOrderUnderLoad) {
    Engine engine;
    Spreader s;
    s.id = engine.add(s);
    for (int i = 0; i < 50; ++i) s.add(engine);
    std::int64_t until = 1;
    for (int round = 0; round < 30 && engine.pending() > 0; ++round, until *= 5) {
        engine.run(Time::ps(until));
        if (engine.pending() > 0) s.add(engine);  // at now(), before the next pending event
    }
    engine.run();
    ASSERT_EQ(s.seen.size(), s.scheduled);
    for (std::size_t i = 1; i < s.seen.size(); ++i) {
        ASSERT_LE(s.seen[i - 1].first, s.seen[i].first) << "event " << i;
        if (s.seen[i - 1].first == s.seen[i].first) {
            ASSERT_LT(s.seen[i - 1].second, s.seen[i].second) << "event " << i;
        }
    }
}

// Prefetching (Engine::add_prefetching): a component is told about an event 4 pops ahead
// (far) and 1 pop ahead (near), only among the events of the current time, each event at
// most once each way and always before it is handled; the order of handling is the one
// without prefetching.
struct Prefetcher final : Component {
    std::vector<std::uint64_t> handled, far, near;
    void handle(Engine&, const Event& ev) override { handled.push_back(ev.data); }
    void prefetch(const Event& ev, bool is_far) const override {
        auto* self = const_cast<Prefetcher*>(this);
        (is_far ? self->far : self->near).push_back(ev.data);
        // never an event already handled
        for (const std::uint64_t h : handled) EXPECT_NE(h, ev.data);
    }
    std::string name() const override { return "prefetcher"; }
};

TEST(Engine, PrefetchSeesCurrentTimeEventsAheadAndChangesNoOrder) {
    Engine with, without;
    Prefetcher p;
    Recorder r;
    const ComponentId a = with.add_prefetching(p), b = without.add(r);
    // 10 events at 1 ns, 3 at 2 ns, 1 at 5 ns (data: their number in pop order).
    for (std::uint64_t i = 0; i < 10; ++i) {
        with.schedule(Time::ns(1), a, 0, i);
        without.schedule(Time::ns(1), b, 0, i);
    }
    for (std::uint64_t i = 10; i < 14; ++i) {
        with.schedule(Time::ns(i < 13 ? 2 : 5), a, 0, i);
        without.schedule(Time::ns(i < 13 ? 2 : 5), b, 0, i);
    }
    with.run();
    without.run();
    ASSERT_EQ(p.handled.size(), 14u);
    for (std::uint64_t i = 0; i < 14; ++i) {
        EXPECT_EQ(p.handled[i], i);
        EXPECT_EQ(r.seen[i].second, i);
    }
    // The first pop refills bucket 0 with the 10 events at 1 ns: events 4..9 are seen 4
    // ahead (popping 1..6), 1..9 one ahead; the 2 ns bucket: event 11 and 12 one ahead; the
    // single 5 ns event is never ahead of anything of its time.
    EXPECT_EQ(p.far, (std::vector<std::uint64_t>{4, 5, 6, 7, 8, 9}));
    EXPECT_EQ(p.near, (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12}));
}

TEST(Engine, RunUntilStopsBeforeLaterEvents) {
    Engine engine;
    Recorder rec;
    const ComponentId id = engine.add(rec);
    engine.schedule(Time::us(1), id, 0, 1);
    engine.schedule(Time::us(3), id, 0, 2);
    EXPECT_EQ(engine.run(Time::us(2)), 1u);
    EXPECT_EQ(engine.pending(), 1u);
    EXPECT_EQ(engine.run(), 1u);
}

#ifndef NDEBUG
TEST(EngineDeathTest, SchedulingInThePastAsserts) {
    Engine engine;
    Recorder rec;
    const ComponentId id = engine.add(rec);
    engine.schedule(Time::us(2), id, 0, 1);
    engine.run();
    EXPECT_DEATH(engine.schedule(Time::us(1), id, 0, 2), "past");
}
#endif

TEST(Time, ExactTransferTimes) {
    EXPECT_EQ(transfer_time(1, Bandwidth{1'000'000'000}), Time::ps(1000));
    EXPECT_EQ(transfer_time(1ULL << 30, Bandwidth{1ULL << 30}), Time::s(1));
    EXPECT_EQ(transfer_time(100ULL << 30, Bandwidth{1'250'000'000}).ps(), 85'899'345'920'000);
    EXPECT_EQ(transfer_time(3, Bandwidth{2'000'000'000'000}), Time::ps(2));  // 1.5 ps rounds to 2
    EXPECT_EQ(transfer_time(12345, kInfiniteBandwidth), Time::zero());
    EXPECT_EQ(compute_time(2'800'000'000, 2'800'000'000), Time::s(1));
    // A million additions of 1 ns stay exact.
    Time t;
    for (int i = 0; i < 1'000'000; ++i) t += Time::ns(1);
    EXPECT_EQ(t, Time::ms(1));
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
