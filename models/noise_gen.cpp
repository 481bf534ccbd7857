// Synthetic OS-jitter generators (see noise_gen.hpp for the spec grammar).
#include "models/noise_gen.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "simulator/rng.hpp"
#include "simulator/units.hpp"

namespace clustersim::jitter {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    std::size_t pos = 0;
    while (true) {
        const std::size_t at = s.find(sep, pos);
        out.push_back(
            s.substr(pos, at == std::string_view::npos ? std::string_view::npos : at - pos));
        if (at == std::string_view::npos) break;
        pos = at + 1;
    }
    return out;
}

[[noreturn]] void fail(std::string_view part, const std::string& what) {
    throw std::invalid_argument(fmt::format("generator part '{}': {}", part, what));
}

double time_value(std::string_view part, std::string_view key, std::string_view value) {
    try {
        return static_cast<double>(parse_time(value).ps()) * 1e-12;
    } catch (const UnitError& e) {
        fail(part, fmt::format("{}={}: {}", key, value, e.what()));
    }
}

double number_value(std::string_view part, std::string_view key, std::string_view value) {
    double v = 0;
    const auto* end = value.data() + value.size();
    const auto r = std::from_chars(value.data(), end, v);
    if (value.empty() || r.ec != std::errc() || r.ptr != end || !std::isfinite(v))
        fail(part, fmt::format("{}={}: expected a plain number", key, value));
    return v;
}

struct Family {
    const char* name;
    std::vector<const char*> required;
    std::vector<const char*> optional;
};

const std::vector<Family>& families() {
    static const std::vector<Family> f = {
        {"periodic", {"period", "duration"}, {"phase"}},
        {"exponential", {"mean_interval"}, {"duration", "mean_duration"}},
        {"pareto", {"mean_interval", "scale", "shape"}, {}},
        {"bernoulli", {"quantum", "probability", "duration"}, {}},
    };
    return f;
}

bool contains(const std::vector<const char*>& v, std::string_view key) {
    return std::any_of(v.begin(), v.end(), [&](const char* k) { return key == k; });
}

GeneratorPart parse_part(std::string_view part) {
    const std::size_t colon = part.find(':');
    if (colon == std::string_view::npos)
        fail(part, "expected FAMILY:key=value,… (e.g. periodic:period=10ms,duration=50us)");
    const std::string_view name = trim(part.substr(0, colon));
    const Family* family = nullptr;
    for (const Family& f : families())
        if (name == f.name) family = &f;
    if (family == nullptr)
        fail(part, fmt::format("unknown family '{}'; expected periodic, exponential, pareto or "
                               "bernoulli",
                               name));
    GeneratorPart g;
    g.family = std::string(name);
    std::vector<std::string> seen;
    for (const std::string_view raw : split(part.substr(colon + 1), ',')) {
        const std::string_view param = trim(raw);
        const std::size_t eq = param.find('=');
        if (eq == std::string_view::npos)
            fail(part, fmt::format("expected key=value, got '{}'", param));
        const std::string_view key = trim(param.substr(0, eq));
        const std::string_view value = trim(param.substr(eq + 1));
        if (!contains(family->required, key) && !contains(family->optional, key)) {
            std::string valid;
            for (const auto* list : {&family->required, &family->optional})
                for (const char* k : *list) valid += (valid.empty() ? "" : ", ") + std::string(k);
            fail(part,
                 fmt::format("unknown key '{}' for {}; expected {}", key, family->name, valid));
        }
        if (std::find(seen.begin(), seen.end(), key) != seen.end())
            fail(part, fmt::format("key '{}' given twice", key));
        seen.emplace_back(key);
        if (key == "period") g.period = time_value(part, key, value);
        if (key == "duration") g.duration = time_value(part, key, value);
        if (key == "phase") g.phase = time_value(part, key, value);
        if (key == "mean_interval") g.mean_interval = time_value(part, key, value);
        if (key == "mean_duration") g.mean_duration = time_value(part, key, value);
        if (key == "scale") g.scale = time_value(part, key, value);
        if (key == "quantum") g.quantum = time_value(part, key, value);
        if (key == "shape") g.shape = number_value(part, key, value);
        if (key == "probability") g.probability = number_value(part, key, value);
    }
    for (const char* key : family->required)
        if (std::find(seen.begin(), seen.end(), key) == seen.end())
            fail(part, fmt::format("missing key '{}' for {}", key, family->name));
    const auto positive = [&](const char* key, double v) {
        if (!(v > 0)) fail(part, fmt::format("{} must be greater than 0", key));
    };
    if (g.family == "periodic") {
        positive("period", g.period);
        positive("duration", g.duration);
        if (g.duration >= g.period)
            fail(part, "duration must be less than period (else the core never computes)");
        if (g.phase >= g.period) fail(part, "phase must be less than period");
    } else if (g.family == "exponential") {
        positive("mean_interval", g.mean_interval);
        const bool fixed = std::find(seen.begin(), seen.end(), "duration") != seen.end();
        const bool mean = std::find(seen.begin(), seen.end(), "mean_duration") != seen.end();
        if (fixed == mean)
            fail(part, "expected exactly one of duration (fixed) or mean_duration (exponential)");
        positive(fixed ? "duration" : "mean_duration", fixed ? g.duration : g.mean_duration);
    } else if (g.family == "pareto") {
        positive("mean_interval", g.mean_interval);
        positive("scale", g.scale);
        if (!(g.shape > 1))
            fail(part, fmt::format("shape={} must be greater than 1 (the mean of a Pareto "
                                   "distribution exists only for shape > 1)",
                                   g.shape));
    } else if (g.family == "bernoulli") {
        positive("quantum", g.quantum);
        positive("duration", g.duration);
        if (!(g.probability >= 0 && g.probability <= 1))
            fail(part, fmt::format("probability={} must be within [0, 1]", g.probability));
        if (g.duration >= g.quantum) fail(part, "duration must be less than quantum");
    }
    return g;
}

// Exponential variate with the given mean (u in [0, 1), so 1 - u in (0, 1]).
double exponential(Rng& rng, double mean) {
    return -mean * std::log1p(-rng.uniform());
}

void part_events(const GeneratorPart& g, double length_s, Rng& rng, std::vector<NoiseEvent>& out) {
    if (g.family == "periodic") {
        // start_k = phase + k·period, computed from k (no accumulated rounding).
        for (std::uint64_t k = 0;; ++k) {
            const double start = g.phase + static_cast<double>(k) * g.period;
            if (start >= length_s) break;
            out.push_back({start, g.duration});
        }
    } else if (g.family == "exponential" || g.family == "pareto") {
        double t = exponential(rng, g.mean_interval);
        while (t < length_s) {
            double d = g.duration;
            if (g.family == "pareto")
                d = g.scale * std::pow(1.0 - rng.uniform(), -1.0 / g.shape);
            else if (g.mean_duration > 0)
                d = exponential(rng, g.mean_duration);
            out.push_back({t, d});
            t += exponential(rng, g.mean_interval);
        }
    } else if (g.family == "bernoulli") {
        for (std::uint64_t k = 0;; ++k) {
            const double start = static_cast<double>(k) * g.quantum;
            if (start >= length_s) break;
            if (rng.uniform() < g.probability) out.push_back({start, g.duration});
        }
    }
}

std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

}  // namespace

GeneratorSpec parse_generator(const std::string& text) {
    GeneratorSpec spec;
    spec.text = text;
    if (trim(text).empty())
        throw std::invalid_argument(
            "empty generator spec; expected FAMILY:key=value,… (e.g. "
            "periodic:period=10ms,duration=50us)");
    for (const std::string_view part : split(text, '+')) {
        const std::string_view p = trim(part);
        if (p.empty())
            throw std::invalid_argument(fmt::format("generator '{}': empty part around '+'", text));
        spec.parts.push_back(parse_part(p));
    }
    return spec;
}

std::vector<NoiseEvent> generate_events(const GeneratorSpec& spec, double length_s,
                                        std::uint64_t seed) {
    if (!(length_s > 0) || !std::isfinite(length_s))
        throw std::invalid_argument(
            fmt::format("generator '{}': the trace length must be positive", spec.text));
    std::vector<NoiseEvent> all;
    for (std::size_t i = 0; i < spec.parts.size(); ++i) {
        // Each part draws from its own stream: adding a part does not change the others.
        Rng rng(mix(seed ^ mix(i + 1)));
        part_events(spec.parts[i], length_s, rng, all);
    }
    std::stable_sort(all.begin(), all.end(), [](const NoiseEvent& a, const NoiseEvent& b) {
        return a.start_s < b.start_s;
    });
    std::vector<NoiseEvent> merged;
    for (const NoiseEvent& e : all) {
        if (!(e.duration_s > 0)) continue;
        const double end = std::min(e.start_s + e.duration_s, length_s);
        if (!merged.empty()) {
            NoiseEvent& last = merged.back();
            const double last_end = last.start_s + last.duration_s;
            if (e.start_s <= last_end) {  // overlapping or touching: one event
                if (end > last_end) last.duration_s = end - last.start_s;
                continue;
            }
        }
        merged.push_back({e.start_s, end - e.start_s});
    }
    return merged;
}

JitterTrace events_to_trace(const std::vector<NoiseEvent>& events, double length_s,
                            double frequency_hz, const std::string& source) {
    if (!(frequency_hz > 0) || !std::isfinite(frequency_hz))
        throw std::invalid_argument(
            fmt::format("{}: the frequency must be positive to turn seconds into cycles", source));
    if (!(length_s > 0) || !std::isfinite(length_s))
        throw std::invalid_argument(fmt::format("{}: the trace length must be positive", source));
    const auto cycles = [frequency_hz](double s) {
        return static_cast<std::uint64_t>(std::llround(std::max(0.0, s) * frequency_hz));
    };
    const std::uint64_t total = cycles(length_s);
    JitterTrace t;
    t.frequency_hz = frequency_hz;
    t.source = source;
    std::uint64_t pos = 0;  // cycles accounted for so far
    for (const NoiseEvent& e : events) {
        const std::uint64_t s = std::clamp(cycles(e.start_s), pos, total);
        const std::uint64_t end = std::clamp(cycles(e.start_s + e.duration_s), s, total);
        if (end == s) continue;  // shorter than half a cycle: no jitter
        if (t.size() == 0) {
            if (s > 0) {
                t.jitter.push_back(0);
                t.compute.push_back(s);
            }
        } else {
            t.compute.back() += s - pos;
        }
        t.jitter.push_back(end - s);
        t.compute.push_back(0);
        pos = end;
    }
    if (t.size() == 0) {
        t.jitter.push_back(0);
        t.compute.push_back(total);
    } else {
        t.compute.back() += total - pos;
    }
    std::uint64_t compute = 0;
    for (const std::uint64_t c : t.compute) compute += c;
    if (compute == 0)
        throw std::invalid_argument(
            fmt::format("{}: the events cover the whole trace, leaving no compute cycles", source));
    return t;
}

JitterTrace generate_trace(const GeneratorSpec& spec, double length_s, double frequency_hz,
                           std::uint64_t seed) {
    return events_to_trace(generate_events(spec, length_s, seed), length_s, frequency_hz,
                           "gen:" + spec.text);
}

}  // namespace clustersim::jitter
