#include "models/jitter.hpp"
#include "simulator/suggest.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace clustersim::jitter {

namespace {

__extension__ typedef unsigned __int128 u128;

std::uint64_t scale(std::uint64_t cycles, u128 num, u128 den) {
    return static_cast<std::uint64_t>((static_cast<u128>(cycles) * num + den / 2) / den);
}

// splitmix64: a task's random draw depends only on (seed, task), so tasks can be placed in
// any order and on any thread.
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

std::uint64_t draw(std::uint64_t seed, std::uint64_t task, std::uint64_t n) {
    const std::uint64_t h = mix(mix(seed) ^ mix(task + 0x5851f42d4c957f2dULL));
    return static_cast<std::uint64_t>((static_cast<u128>(h) * n) >> 64);
}

}  // namespace

Timeline::Timeline(const JitterTrace& trace) {
    build(trace, 1, 1);
}

Timeline Timeline::in_picoseconds(const JitterTrace& trace) {
    if (!(trace.frequency_hz > 0))
        throw std::invalid_argument(fmt::format(
            "{}: the trace has no clock frequency; one is needed to run it in time units",
            trace.source));
    Timeline t;
    t.build(trace, 1'000'000'000'000ULL,
            static_cast<std::uint64_t>(std::llround(trace.frequency_hz)));
    return t;
}

void Timeline::build(const JitterTrace& trace, std::uint64_t num, std::uint64_t den) {
    source_ = trace.source;
    frequency_hz_ = trace.frequency_hz;
    if (trace.jitter.size() != trace.compute.size())
        throw std::invalid_argument(fmt::format("{}: {} jitter durations but {} compute segments",
                                                trace.source, trace.jitter.size(),
                                                trace.compute.size()));
    if (trace.jitter.empty())
        throw std::invalid_argument(fmt::format("{}: the jitter trace is empty", trace.source));
    if (trace.jitter.size() >= UINT32_MAX)
        throw std::invalid_argument(fmt::format("{}: more than 2^32 - 2 tuples", trace.source));
    const std::size_t n = trace.size();
    starts_.resize(n + 1);
    compute_starts_.resize(n);
    compute_before_.resize(n + 1);
    u128 cycles = 0;  // cumulative cycles before tuple i
    starts_[0] = 0;
    compute_before_[0] = 0;
    for (std::size_t i = 0; i < n; ++i) {
        cycles += trace.jitter[i];
        const std::uint64_t cs = scale(static_cast<std::uint64_t>(cycles), num, den);
        cycles += trace.compute[i];
        if (cycles >> 64)
            throw std::invalid_argument(
                fmt::format("{}: the trace is longer than 2^64 cycles", trace.source));
        const std::uint64_t next = scale(static_cast<std::uint64_t>(cycles), num, den);
        compute_starts_[i] = cs;
        starts_[i + 1] = next;
        compute_before_[i + 1] = compute_before_[i] + (next - cs);
    }
    compute_total_ = compute_before_[n];
    if (compute_total_ == 0)
        throw std::invalid_argument(
            fmt::format("{}: the trace has no compute cycles (all jitter)", trace.source));
}

std::uint32_t Timeline::locate(std::uint64_t off, std::uint32_t hint) const {
    const std::size_t n = tuples();
    if (hint >= n) hint = 0;
    if (starts_[hint] <= off) {
        if (off < starts_[hint + 1]) return hint;
        // Gallop forward: tasks move forward through the trace.
        std::size_t lo = hint + 1, step = 1;
        while (lo + step < n && starts_[lo + step] <= off) {
            lo += step;
            step *= 2;
        }
        const std::size_t hi = std::min(n, lo + step) + 1;
        const auto it = std::upper_bound(starts_.begin() + static_cast<std::ptrdiff_t>(lo),
                                         starts_.begin() + static_cast<std::ptrdiff_t>(hi), off);
        return static_cast<std::uint32_t>((it - starts_.begin()) - 1);
    }
    const auto it = std::upper_bound(starts_.begin(), starts_.begin() + hint + 1, off);
    return static_cast<std::uint32_t>((it - starts_.begin()) - 1);
}

Timeline::Step Timeline::run(std::uint64_t pos, std::uint64_t work, std::uint32_t& hint) const {
    Step s;
    if (work == 0) return s;
    const std::uint64_t len = length();
    std::uint64_t off = pos % len;
    std::uint32_t i = locate(off, hint);
    if (off < compute_starts_[i]) {  // inside a jitter segment: wait it out
        s.jitter = compute_starts_[i] - off;
        off = compute_starts_[i];
    }
    const std::uint64_t avail = starts_[i + 1] - off;
    if (work <= avail) {
        s.elapsed = s.jitter + work;
        hint = i;
        return s;
    }
    // The rest starts at the next tuple boundary: find where cumulative compute reaches it.
    const std::uint64_t consumed = s.jitter + avail;
    std::uint64_t rest = work - avail;
    std::size_t next = i + 1;
    std::uint64_t base = consumed;  // elapsed up to starts_[next] (next == tuples(): wrap)
    if (next == tuples()) next = 0;
    const u128 target = static_cast<u128>(compute_before_[next]) + rest;  // >= 1
    const u128 wraps = (target - 1) / compute_total_;
    const std::uint64_t in_pass = static_cast<std::uint64_t>(target - wraps * compute_total_);
    // Smallest j with compute_before_[j + 1] >= in_pass, galloping from `next` when ahead.
    std::size_t j;
    if (wraps == 0) {
        std::size_t lo = next, step = 1;
        while (lo + step < tuples() && compute_before_[lo + step] < in_pass) {
            lo += step;
            step *= 2;
        }
        const std::size_t hi = std::min(tuples(), lo + step) + 1;
        const auto it =
            std::lower_bound(compute_before_.begin() + static_cast<std::ptrdiff_t>(lo + 1),
                             compute_before_.begin() + static_cast<std::ptrdiff_t>(hi), in_pass);
        j = static_cast<std::size_t>(it - compute_before_.begin()) - 1;
    } else {
        const auto it =
            std::lower_bound(compute_before_.begin() + 1, compute_before_.end(), in_pass);
        j = static_cast<std::size_t>(it - compute_before_.begin()) - 1;
    }
    const std::uint64_t end = compute_starts_[j] + (in_pass - compute_before_[j]);
    // Elapsed from starts_[next] to `end`, `wraps` passes later.
    const u128 span = wraps * len + end - starts_[next];
    const u128 total = static_cast<u128>(base) + span;
    if (total >> 64) throw std::overflow_error("jitter: elapsed time beyond 2^64 units");
    s.elapsed = static_cast<std::uint64_t>(total);
    s.jitter = s.elapsed - work;
    hint = static_cast<std::uint32_t>(j);
    return s;
}

std::uint64_t Timeline::available(std::uint64_t pos, std::uint64_t span,
                                  std::uint32_t& hint) const {
    if (span == 0) return 0;
    const std::uint64_t len = length();
    auto compute_upto = [&](std::uint64_t off, std::uint32_t i) {  // compute in [0, off)
        return compute_before_[i] + (off > compute_starts_[i] ? off - compute_starts_[i] : 0);
    };
    const std::uint64_t a = pos % len;
    const std::uint32_t ia = locate(a, hint);
    const u128 end = static_cast<u128>(a) + span;
    const u128 wraps = end / len;
    const auto b = static_cast<std::uint64_t>(end - wraps * len);
    const std::uint32_t ib = locate(b, ia);
    hint = ib;
    const u128 total = wraps * compute_total_ + compute_upto(b, ib) - compute_upto(a, ia);
    return static_cast<std::uint64_t>(total);
}

const std::vector<std::string>& start_policy_names() {
    static const std::vector<std::string> names{"unsynchronized", "synchronized", "coscheduled"};
    return names;
}

StartPolicy parse_start_policy(const std::string& name) {
    if (name == "unsynchronized") return StartPolicy::Unsynchronized;
    if (name == "synchronized") return StartPolicy::Synchronized;
    if (name == "coscheduled") return StartPolicy::Coscheduled;
    throw std::invalid_argument(fmt::format(
        "unknown start policy '{}'{}: expected unsynchronized, synchronized or coscheduled", name,
        did_you_mean(name, start_policy_names())));
}

const char* to_string(StartPolicy policy) {
    switch (policy) {
        case StartPolicy::Unsynchronized:
            return "unsynchronized";
        case StartPolicy::Synchronized:
            return "synchronized";
        case StartPolicy::Coscheduled:
            return "coscheduled";
        case StartPolicy::Explicit:
            return "explicit";
    }
    return "?";
}

void check_start(const Timeline& timeline, const StartSpec& spec) {
    switch (spec.policy) {
        case StartPolicy::Explicit:
            if (spec.indices.empty())
                throw std::invalid_argument("explicit start: no start indices given");
            for (std::uint64_t i : spec.indices)
                if (i >= timeline.tuples())
                    throw std::invalid_argument(fmt::format(
                        "start index {} is beyond the trace: {} has {} tuples (indices 0 to {})", i,
                        timeline.source(), timeline.tuples(), timeline.tuples() - 1));
            break;
        case StartPolicy::Coscheduled: {
            const std::uint64_t period = spec.window_high + spec.window_low;
            if (spec.window_high == 0)
                throw std::invalid_argument(
                    "coscheduled start: the high-priority window must be longer than 0");
            if (period > timeline.length())
                throw std::invalid_argument(fmt::format(
                    "coscheduled start: a high + low priority window of {} units is longer "
                    "than the trace {} ({} units)",
                    period, timeline.source(), timeline.length()));
            break;
        }
        default:
            break;
    }
}

std::uint64_t start_position(const Timeline& timeline, const StartSpec& spec, std::uint64_t task) {
    switch (spec.policy) {
        case StartPolicy::Unsynchronized:
            return timeline.compute_start(draw(spec.seed, task, timeline.tuples()));
        case StartPolicy::Synchronized:
            return timeline.compute_start(draw(spec.seed, UINT64_MAX, timeline.tuples()));
        case StartPolicy::Coscheduled: {
            const std::uint64_t period = spec.window_high + spec.window_low;
            return period * draw(spec.seed, task, timeline.length() / period);
        }
        case StartPolicy::Explicit:
            return timeline.compute_start(spec.indices[task % spec.indices.size()]);
    }
    return 0;
}

}  // namespace clustersim::jitter
