// The simulated-time horizon (issue 18): Time arithmetic saturates at Time::max() instead of
// wrapping, every conversion into Time clamps there, and the engine refuses an event at the
// horizon with one line naming the component, the simulated time and the horizon.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "simulator/engine.hpp"
#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(Horizon, ArithmeticSaturatesInsteadOfWrapping) {
    const Time near = Time::ps(kMax - 10);
    EXPECT_EQ(near + Time::ps(10), Time::max());  // exactly the horizon: representable
    EXPECT_EQ(near + Time::ps(11), Time::max());
    EXPECT_EQ(near + Time::s(1'000'000), Time::max());
    Time t = near;
    t += Time::ns(1);
    EXPECT_EQ(t, Time::max());
    EXPECT_EQ(Time::max() + Time::max(), Time::max());
    EXPECT_EQ(Time::zero() - Time::max() - Time::s(1), Time::min());
    EXPECT_EQ(Time::ps(5) - Time::min(), Time::max());
    EXPECT_EQ(Time::s(1'000'000) * 1'000'000, Time::max());  // 10^24 ps
    EXPECT_EQ(Time::s(1) * -20'000'000, Time::min());
    EXPECT_EQ(Time::s(10'000'000), Time::max());  // 10^19 ps > 2^63
    EXPECT_EQ(Time::ms(-10'000'000'000'000), Time::min());
    // Below the horizon nothing changes: exact.
    EXPECT_EQ((Time::s(86'400) * 100 + Time::ps(7)).ps(), 8'640'000'000'000'000'007);
    EXPECT_EQ((Time::ps(3) - Time::ps(5)).ps(), -2);
    EXPECT_NEAR(Time::horizon_days(), 106.75, 0.01);
}

TEST(Horizon, ConversionsClampAtTheHorizon) {
    // 100 MB at 1 B/s is 10^20 ps: past the horizon, not a wrapped 9,216,000 s.
    EXPECT_EQ(transfer_time(100'000'000, Bandwidth{1}), Time::max());
    EXPECT_EQ(transfer_time(UINT64_MAX, Bandwidth{1}), Time::max());
    EXPECT_EQ(transfer_time(UINT64_MAX, Bandwidth{UINT64_MAX}), Time::s(1));
    EXPECT_EQ(compute_time(UINT64_MAX, 1), Time::max());
    EXPECT_EQ(compute_time(UINT64_MAX, 1'000'000'000), Time::max());  // 1.8e10 s
    EXPECT_EQ(compute_time(9'223'372, 1), Time::s(9'223'372));        // just below
    EXPECT_EQ(rounded_quotient(static_cast<uint128>(UINT64_MAX) << 10, 2), UINT64_MAX);
    EXPECT_EQ(Time::from_seconds(1e300), Time::max());
    EXPECT_EQ(Time::from_seconds(1e7), Time::max());  // 10^19 ps
    EXPECT_EQ(Time::from_seconds(-1e300), Time::min());
    EXPECT_EQ(Time::from_seconds(std::nan("")), Time::max());
    EXPECT_EQ(Time::from_seconds(1e6), Time::s(1'000'000));
    EXPECT_EQ(Time::from_seconds(1.5e-12), Time::ps(2));
    EXPECT_EQ(rounded_ps(9.3e18), Time::max());
    EXPECT_EQ(rounded_ps(std::numeric_limits<double>::infinity()), Time::max());
    EXPECT_EQ(rounded_ps(-2.5), Time::ps(-3));
    EXPECT_EQ(time_from_ps(UINT64_MAX), Time::max());
    EXPECT_EQ(time_from_ps(std::uint64_t{42}), Time::ps(42));
}

struct Named final : Component {
    void handle(Engine& engine, const Event&) override {
        // Reschedule a long way ahead: the second time passes the horizon.
        engine.schedule_in(Time::ps(kMax / 2 + 1), id, 0);
    }
    std::string name() const override { return "rank 3's CPU"; }
    ComponentId id = 0;
};

TEST(Horizon, EngineRefusesAnEventAtTheHorizonNamingTheComponent) {
    Engine engine;
    Named c;
    c.id = engine.add(c);
    engine.schedule(Time::ps(kMax / 2), c.id, 0);
    try {
        engine.run();
        FAIL() << "no HorizonError";
    } catch (const HorizonError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("rank 3's CPU"), std::string::npos) << what;
        EXPECT_NE(what.find("106.75 days"), std::string::npos) << what;
        EXPECT_NE(what.find(format_time(Time::ps(kMax / 2))), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
    // A HorizonError is an InputError: the command prints it as one line and exits 2.
    Engine e2;
    Named c2;
    c2.id = e2.add(c2);
    EXPECT_THROW(e2.schedule(Time::max(), c2.id, 0), InputError);
    EXPECT_EQ(e2.pending(), 0u);
    // The last representable picosecond before the horizon is still a valid time.
    e2.schedule(Time::ps(kMax - 1), c2.id, 0);
    EXPECT_EQ(e2.pending(), 1u);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
