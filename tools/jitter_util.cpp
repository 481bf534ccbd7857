#include "tools/jitter_util.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "models/jitsim.hpp"
#include "models/jitter.hpp"
#include "models/noise_gen.hpp"
#include "models/noise_max.hpp"
#include "report/svg.hpp"
#include "simulator/error.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"
#include "tools/cli_util.hpp"
#include "tools/flag_values.hpp"
#include "tools/whole_number.hpp"
#include "traces/distributions.hpp"
#include "traces/jitter_io.hpp"

namespace clustersim::cli::jitter_cli {

// ---- parsing helpers -------------------------------------------------------------------

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (true) {
        const std::size_t at = text.find(sep, pos);
        out.push_back(text.substr(pos, at == std::string::npos ? std::string::npos : at - pos));
        if (at == std::string::npos) break;
        pos = at + 1;
    }
    return out;
}

// A clock frequency: a speed with a prefix or unit (2.4GHz, 2.4G) or plain hertz.
double parse_frequency(const std::string& flag, const std::string& text) {
    try {
        return static_cast<double>(parse_speed(text));
    } catch (const UnitError&) {
    }
    std::uint64_t hz = 0;
    try {
        hz = parse_count(text);
    } catch (const UnitError&) {
        throw InputError(flag, 0,
                         fmt::format("'{}': expected a clock frequency (e.g. 2.4GHz)", text));
    }
    if (hz == 0)
        throw InputError(flag, 0, fmt::format("'{}': expected a positive frequency", text));
    return static_cast<double>(hz);
}

Quantity parse_quantity(const std::string& flag, const std::string& text) {
    Quantity q;
    q.text = text;
    for (const char* suffix : {"cycles", "cycle"}) {
        const std::string s(suffix);
        if (text.size() > s.size() && text.ends_with(s)) {
            std::string number = text.substr(0, text.size() - s.size());
            while (!number.empty() && number.back() == ' ') number.pop_back();
            try {
                q.cycles = parse_count(number);
            } catch (const UnitError&) {
                throw InputError(flag, 0,
                                 fmt::format("'{}': expected a whole number of cycles (e.g. "
                                             "100000cycles) or a time (e.g. 300us)",
                                             text));
            }
            q.is_cycles = true;
            return q;
        }
    }
    try {
        q.time = parse_time(text);
    } catch (const UnitError&) {
        throw InputError(flag, 0,
                         fmt::format("'{}': expected a time (e.g. 300us) or a cycle count (e.g. "
                                     "100000cycles)",
                                     text));
    }
    return q;
}

std::uint64_t to_cycles(const Quantity& q, double frequency_hz, const std::string& flag,
                        const std::string& trace) {
    if (q.is_cycles) return q.cycles;
    if (!(frequency_hz > 0))
        throw InputError(flag, 0,
                         fmt::format("'{}' is a time, but the trace {} has no frequency header: "
                                     "give --frequency F, or the value in cycles (e.g. "
                                     "100000cycles)",
                                     q.text, trace));
    const long double c = static_cast<long double>(q.time.ps()) * frequency_hz / 1e12L;
    if (c > 1.8e19L) throw InputError(flag, 0, fmt::format("'{}': too many cycles", q.text));
    return static_cast<std::uint64_t>(std::llround(static_cast<double>(c)));
}

// "1,2,4", "1..1048576" (A, 2A, 4A, … up to B), or a mix: sorted, without duplicates.
std::vector<std::uint64_t> parse_tasks(const std::string& flag, const std::string& text) {
    if (text.empty())
        throw InputError(flag, 0, "expected task counts, e.g. 1,16,256 or 1..1048576");
    std::vector<std::uint64_t> out;
    auto number = [&](const std::string& item) {
        std::uint64_t v = 0;
        try {
            v = parse_count(item);
        } catch (const UnitError&) {
            throw InputError(flag, 0,
                             fmt::format("'{}': expected task counts, e.g. 1,16,256 or "
                                         "1..1048576 (powers of two from 1 to 1048576)",
                                         text));
        }
        if (v == 0 || v > kMaxTasks)
            throw InputError(
                flag, 0,
                fmt::format("'{}': task counts must be between 1 and {}", item, kMaxTasks));
        return v;
    };
    for (const std::string& item : split(text, ',')) {
        const std::size_t dots = item.find("..");
        if (dots == std::string::npos) {
            out.push_back(number(item));
            continue;
        }
        const std::uint64_t a = number(item.substr(0, dots)), b = number(item.substr(dots + 2));
        if (b < a)
            throw InputError(flag, 0,
                             fmt::format("'{}': the range's end is below its start", item));
        for (std::uint64_t v = a; v <= b; v *= 2) out.push_back(v);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

jitter::StartPolicy policy_of(const std::string& name) {
    try {
        return jitter::parse_start_policy(name);
    } catch (const std::invalid_argument& e) {
        throw InputError("--policy", 0, e.what());
    }
}

// ---- output helpers --------------------------------------------------------------------

std::string format_frequency(double hz) {
    if (hz >= 1e9) return fmt::format("{:g} GHz", hz / 1e9);
    if (hz >= 1e6) return fmt::format("{:g} MHz", hz / 1e6);
    if (hz >= 1e3) return fmt::format("{:g} kHz", hz / 1e3);
    return fmt::format("{:g} Hz", hz);
}

std::string format_seconds(double s) {
    const double a = std::fabs(s);
    if (a == 0) return "0 s";
    if (a >= 1) return fmt::format("{:.4g} s", s);
    if (a >= 1e-3) return fmt::format("{:.4g} ms", s * 1e3);
    if (a >= 1e-6) return fmt::format("{:.4g} µs", s * 1e6);
    return fmt::format("{:.4g} ns", s * 1e9);
}

// A unit for a column of seconds: the one format_seconds would pick for `typical`.
std::pair<const char*, double> seconds_unit(double typical) {
    if (typical >= 1) return {"s", 1};
    if (typical >= 1e-3) return {"ms", 1e3};
    if (typical >= 1e-6) return {"µs", 1e6};
    return {"ns", 1e9};
}

std::ofstream open_out(const std::string& path, const char* flag) {
    std::ofstream f(path);
    if (!f) throw InputError(flag, 0, fmt::format("cannot write '{}'", path));
    return f;
}

void close_out(std::ofstream& f, const std::string& path, const char* flag) {
    f.close();
    if (!f) throw InputError(flag, 0, fmt::format("cannot write '{}'", path));
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

}  // namespace clustersim::cli::jitter_cli
