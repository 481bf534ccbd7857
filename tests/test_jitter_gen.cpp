// Synthetic jitter generators (issue 6): periodic placement and exact jitter fraction, the
// statistics of the exponential, Pareto and Bernoulli families against their parameters,
// merging of overlapping parts, determinism for a seed, and every spec error.
#include <cmath>
#include <numeric>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "models/jitter.hpp"
#include "models/noise_gen.hpp"

namespace clustersim::jitter {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::HasSubstr;

std::string spec_error(const std::string& text) {
    try {
        parse_generator(text);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    ADD_FAILURE() << "no error for '" << text << "'";
    return "";
}

TEST(JitterGen, PeriodicPlacesEventsAndGivesExactFraction) {
    const auto spec = parse_generator("periodic:period=10ms,duration=1ms,phase=2ms");
    ASSERT_EQ(spec.parts.size(), 1u);
    EXPECT_EQ(spec.parts[0].family, "periodic");
    EXPECT_DOUBLE_EQ(spec.parts[0].period, 0.01);
    const auto events = generate_events(spec, 0.1, 1);
    ASSERT_EQ(events.size(), 10u);
    for (std::size_t k = 0; k < events.size(); ++k) {
        EXPECT_NEAR(events[k].start_s, 0.002 + 0.01 * static_cast<double>(k), 1e-12) << k;
        EXPECT_NEAR(events[k].duration_s, 0.001, 1e-12) << k;
    }
    const auto t = generate_trace(spec, 0.1, 1e9, 1);
    EXPECT_EQ(t.source, "gen:periodic:period=10ms,duration=1ms,phase=2ms");
    EXPECT_EQ(t.frequency_hz, 1e9);
    // First tuple: 2 ms of compute before the first event; then 10 × (1 ms, 9 ms), the last
    // one's compute running to 100 ms (92 + 1 + 7).
    ASSERT_EQ(t.size(), 11u);
    EXPECT_EQ(t.jitter[0], 0u);
    EXPECT_EQ(t.compute[0], 2'000'000u);
    for (std::size_t i = 1; i < 10; ++i) {
        EXPECT_EQ(t.jitter[i], 1'000'000u) << i;
        EXPECT_EQ(t.compute[i], 9'000'000u) << i;
    }
    EXPECT_EQ(t.jitter[10], 1'000'000u);
    EXPECT_EQ(t.compute[10], 7'000'000u);
    const Timeline timeline(t);
    EXPECT_EQ(timeline.length(), 100'000'000u);
    EXPECT_EQ(timeline.jitter_total() * 10, timeline.length());  // exactly 10 %
}

TEST(JitterGen, ExponentialMeanInterArrival) {
    // 20,000 arrivals: the sample mean of exponential gaps has a relative standard deviation of
    // 1/sqrt(20000) = 0.7 %, so 5 % is a 7-sigma band. Durations (1 us) are 1/1000 of the
    // interval, so merged overlaps are rare and cannot move the mean by 5 %.
    const auto spec = parse_generator("exponential:mean_interval=1ms,duration=1us");
    const auto events = generate_events(spec, 20.0, 42);
    ASSERT_GT(events.size(), 18'000u);
    const double mean =
        (events.back().start_s - events.front().start_s) / static_cast<double>(events.size() - 1);
    EXPECT_NEAR(mean, 1e-3, 0.05e-3);
    // Fixed durations, except where two arrivals less than 1 us apart merged (about 0.1 %).
    std::size_t exact = 0;
    for (const auto& e : events) {
        EXPECT_GE(e.duration_s, 1e-6 - 1e-12);
        if (std::fabs(e.duration_s - 1e-6) < 1e-12) ++exact;
    }
    EXPECT_GT(exact, events.size() * 99 / 100);
    // Exponential durations: their mean is the parameter (5 % again, 20,000 samples).
    const auto spec2 = parse_generator("exponential:mean_interval=1ms,mean_duration=2us");
    const auto ev2 = generate_events(spec2, 20.0, 43);
    double sum = 0;
    for (const auto& e : ev2) sum += e.duration_s;
    EXPECT_NEAR(sum / static_cast<double>(ev2.size()), 2e-6, 0.1e-6);
}

TEST(JitterGen, ParetoDurationsAtLeastScaleWithTheRightMean) {
    // shape 2.5: mean = scale·2.5/1.5 = 1.667·scale, variance = scale²·α/((α-1)²(α-2)) =
    // 2.22·scale², finite, so the sample mean of n = 100,000 durations has a standard
    // deviation of sqrt(2.22/1e5)·scale = 0.0047·scale, 0.28 % of the mean. A 3 % tolerance is
    // about 10 sigma: ample room for the heavy tail's slower approach to normality, yet a
    // wrong shape (2.0 gives mean 2·scale, +20 %) or scale fails it. Arrivals every 100 ms on
    // average and 1 us durations make overlaps (which would merge) negligible.
    const auto spec = parse_generator("pareto:mean_interval=100ms,scale=1us,shape=2.5");
    EXPECT_DOUBLE_EQ(spec.parts[0].shape, 2.5);
    const auto events = generate_events(spec, 10'000.0, 7);
    ASSERT_GT(events.size(), 95'000u);
    double sum = 0;
    for (const auto& e : events) {
        EXPECT_GE(e.duration_s, 1e-6 * (1 - 1e-12));
        sum += e.duration_s;
    }
    const double mean = sum / static_cast<double>(events.size());
    EXPECT_NEAR(mean, 1e-6 * 2.5 / 1.5, 0.03 * 1e-6 * 2.5 / 1.5);
}

TEST(JitterGen, BernoulliEventsAtQuantumStartsWithinFourSigma) {
    const auto spec = parse_generator("bernoulli:quantum=1ms,probability=0.1,duration=100us");
    const double quanta = 100'000;  // 100 s
    const auto events = generate_events(spec, 100.0, 5);
    for (const auto& e : events) {
        const double k = e.start_s / 1e-3;
        EXPECT_NEAR(k, std::round(k), 1e-6) << e.start_s;
        EXPECT_NEAR(e.duration_s, 1e-4, 1e-12);  // (start + d) - start rounding
    }
    const double p = 0.1, mean = quanta * p, sigma = std::sqrt(quanta * p * (1 - p));
    EXPECT_GT(static_cast<double>(events.size()), mean - 4 * sigma);
    EXPECT_LT(static_cast<double>(events.size()), mean + 4 * sigma);
    // Probability 0 and 1 are exact.
    EXPECT_TRUE(
        generate_events(parse_generator("bernoulli:quantum=1ms,probability=0,duration=1us"), 1.0, 1)
            .empty());
    EXPECT_EQ(
        generate_events(parse_generator("bernoulli:quantum=1ms,probability=1,duration=1us"), 1.0, 1)
            .size(),
        1000u);
}

TEST(JitterGen, MixMergesOverlappingEvents) {
    // [0,2) and [1,3) ms every 10 ms merge into [0,3) ms; the third part's [5,6) stays apart.
    const auto spec = parse_generator(
        "periodic:period=10ms,duration=2ms + periodic:period=10ms,duration=2ms,phase=1ms"
        "+periodic:period=10ms,duration=1ms,phase=5ms");
    ASSERT_EQ(spec.parts.size(), 3u);
    const auto events = generate_events(spec, 0.05, 1);
    ASSERT_EQ(events.size(), 10u);
    for (std::size_t k = 0; k < 5; ++k) {
        EXPECT_NEAR(events[2 * k].start_s, 0.01 * static_cast<double>(k), 1e-12);
        EXPECT_NEAR(events[2 * k].duration_s, 0.003, 1e-12);
        EXPECT_NEAR(events[2 * k + 1].start_s, 0.01 * static_cast<double>(k) + 0.005, 1e-12);
        EXPECT_NEAR(events[2 * k + 1].duration_s, 0.001, 1e-12);
    }
    const auto t = generate_trace(spec, 0.05, 1e9, 1);
    const Timeline timeline(t);
    EXPECT_EQ(timeline.jitter_total(), 5u * 4'000'000u);  // 40 % of 50 ms
    EXPECT_EQ(t.jitter[0], 3'000'000u);                   // the first event starts at 0
}

TEST(JitterGen, DeterministicForASeedAndDifferentAcrossSeeds) {
    const auto spec = parse_generator(
        "exponential:mean_interval=1ms,mean_duration=10us+pareto:mean_interval=5ms,scale=2us,"
        "shape=1.5+bernoulli:quantum=1ms,probability=0.05,duration=20us");
    const auto a = generate_trace(spec, 1.0, 2.4e9, 99);
    const auto b = generate_trace(spec, 1.0, 2.4e9, 99);
    const auto c = generate_trace(spec, 1.0, 2.4e9, 100);
    EXPECT_EQ(a.jitter, b.jitter);
    EXPECT_EQ(a.compute, b.compute);
    EXPECT_NE(a.jitter, c.jitter);
    // Every trace covers exactly the requested length.
    const Timeline ta(a), tc(c);
    EXPECT_EQ(ta.length(), 2'400'000'000u);
    EXPECT_EQ(tc.length(), 2'400'000'000u);
}

TEST(JitterGen, EventsToTraceHandlesNoEventsAndRounding) {
    const auto t = events_to_trace({}, 0.001, 1e9, "none");
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t.jitter[0], 0u);
    EXPECT_EQ(t.compute[0], 1'000'000u);
    EXPECT_EQ(t.source, "none");
    // A 0.2 ns event at 1 GHz rounds to no cycles: no jitter.
    const auto u = events_to_trace({{1e-6, 0.2e-9}}, 1e-5, 1e9, "tiny");
    EXPECT_EQ(std::accumulate(u.jitter.begin(), u.jitter.end(), 0ull), 0u);
    EXPECT_THROW(events_to_trace({{0, 1}}, 1, 1e9, "all"), std::invalid_argument);
    EXPECT_THROW(events_to_trace({}, 1, 0, "nofreq"), std::invalid_argument);
    EXPECT_THROW(events_to_trace({}, 0, 1e9, "nolength"), std::invalid_argument);
}

TEST(JitterGen, SpecErrorsNameThePartKeyOrValue) {
    EXPECT_THAT(spec_error(""), HasSubstr("empty generator spec"));
    EXPECT_THAT(spec_error("periodic"), HasSubstr("expected FAMILY:key=value"));
    EXPECT_THAT(spec_error("daemon:period=1ms"), HasSubstr("unknown family 'daemon'"));
    EXPECT_THAT(spec_error("periodic:period=10ms,duration=1ms,color=red"),
                HasSubstr("unknown key 'color' for periodic; expected period, duration, phase"));
    EXPECT_THAT(spec_error("periodic:period=10ms"), HasSubstr("missing key 'duration'"));
    EXPECT_THAT(spec_error("periodic:period=10ms,duration"), HasSubstr("expected key=value"));
    EXPECT_THAT(spec_error("periodic:period=10,duration=1ms"),
                HasSubstr("period=10: '10': missing unit"));
    EXPECT_THAT(spec_error("periodic:period=10parsecs,duration=1ms"),
                HasSubstr("unknown unit 'parsecs'"));
    EXPECT_THAT(spec_error("periodic:period=10ms,duration=1ms,period=5ms"),
                HasSubstr("key 'period' given twice"));
    EXPECT_THAT(spec_error("periodic:period=1ms,duration=1ms"),
                HasSubstr("duration must be less than period"));
    EXPECT_THAT(spec_error("periodic:period=1ms,duration=0ms"),
                HasSubstr("duration must be greater than 0"));
    EXPECT_THAT(spec_error("periodic:period=1ms,duration=10us,phase=2ms"),
                HasSubstr("phase must be less than period"));
    EXPECT_THAT(spec_error("exponential:mean_interval=1ms"), HasSubstr("exactly one of"));
    EXPECT_THAT(spec_error("exponential:mean_interval=1ms,duration=1us,mean_duration=1us"),
                HasSubstr("exactly one of"));
    EXPECT_THAT(spec_error("pareto:mean_interval=1ms,scale=1us,shape=1"),
                HasSubstr("shape=1 must be greater than 1"));
    EXPECT_THAT(spec_error("pareto:mean_interval=1ms,scale=1us,shape=abc"),
                HasSubstr("shape=abc: expected a plain number"));
    EXPECT_THAT(spec_error("pareto:mean_interval=1ms,scale=1us"), HasSubstr("missing key 'shape'"));
    EXPECT_THAT(spec_error("bernoulli:quantum=1ms,probability=1.5,duration=1us"),
                HasSubstr("probability=1.5 must be within [0, 1]"));
    EXPECT_THAT(spec_error("bernoulli:quantum=1ms,probability=-0.1,duration=1us"),
                HasSubstr("must be within [0, 1]"));
    EXPECT_THAT(spec_error("bernoulli:quantum=1ms,probability=0.5,duration=1ms"),
                HasSubstr("duration must be less than quantum"));
    EXPECT_THAT(spec_error("periodic:period=10ms,duration=1ms+"), HasSubstr("empty part"));
    // The message names the part that is wrong, not the whole spec.
    EXPECT_THAT(spec_error("periodic:period=10ms,duration=1ms+pareto:scale=1us"),
                HasSubstr("generator part 'pareto:scale=1us'"));
    EXPECT_THROW(generate_events(parse_generator("periodic:period=10ms,duration=1ms"), 0, 1),
                 std::invalid_argument);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::jitter
