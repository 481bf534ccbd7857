#include "simulator/units.hpp"

#include "simulator/quantity.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace clustersim {
namespace {

using quantity::Decimal;
using quantity::u128;

// Splits "1.25GB/s" into the number and the unit (simulator/quantity.hpp); throws on a sign
// or no digits.
std::pair<Decimal, std::string_view> split_number(std::string_view text, const char* expected) {
    Decimal d;
    std::string_view unit;
    switch (quantity::split_number(text, d, unit)) {
        case quantity::Split::Ok:
            return {d, unit};
        case quantity::Split::Sign:
            throw UnitError(fmt::format("'{}': expected {} without a sign", text, expected));
        case quantity::Split::TooLarge:
            throw UnitError(fmt::format("'{}': number too large", text));
        case quantity::Split::NoDigits:
            break;
    }
    throw UnitError(fmt::format("'{}': expected {}", text, expected));
}

// value * num / den, rounded to nearest, checked against 64 bits.
std::uint64_t scale(const Decimal& d, u128 num, u128 den, std::string_view text) {
    std::uint64_t v = 0;
    if (!quantity::scale_rounded(d, num, den, v))
        throw UnitError(fmt::format("'{}': value too large", text));
    return v;
}

}  // namespace

Time parse_time(std::string_view text) {
    constexpr const char* kExpected = "a time with a unit (ps, ns, us, ms, s; e.g. 5us)";
    auto [d, unit] = split_number(text, kExpected);
    const u128 ps_per_unit = quantity::ps_per_unit(unit);
    if (ps_per_unit == 0 && unit.empty())
        throw UnitError(fmt::format("'{}': missing unit, expected {}", text, kExpected));
    if (ps_per_unit == 0)
        throw UnitError(fmt::format("'{}': unknown unit '{}', expected {}", text, unit, kExpected));
    const std::uint64_t v = scale(d, ps_per_unit, 1, text);
    if (v > static_cast<std::uint64_t>(INT64_MAX))
        throw UnitError(fmt::format("'{}': time too large", text));
    return Time::ps(static_cast<std::int64_t>(v));
}

std::uint64_t parse_size(std::string_view text) {
    constexpr const char* kExpected =
        "a size with a unit (B, KB, KiB, MB, MiB, GB, GiB; e.g. 100KiB)";
    auto [d, unit] = split_number(text, kExpected);
    if (unit.empty())
        throw UnitError(fmt::format("'{}': missing unit, expected {}", text, kExpected));
    const u128 f = quantity::bytes_per_unit(unit);
    if (f == 0)
        throw UnitError(fmt::format("'{}': unknown unit '{}', expected {}", text, unit, kExpected));
    return scale(d, f, 1, text);
}

Bandwidth parse_bandwidth(std::string_view text) {
    constexpr const char* kExpected =
        "a bandwidth with a unit (B/s, KB/s, MiB/s, GB/s, Mbit/s, Gbit/s; e.g. 10Gbit/s)";
    auto [d, unit] = split_number(text, kExpected);
    if (unit.empty())
        throw UnitError(fmt::format("'{}': missing unit, expected {}", text, kExpected));
    std::string_view rest = unit;
    const u128 f = quantity::take_size_prefix(rest);
    std::uint64_t v = 0;
    if (rest == "B/s" || rest == "Bps")
        v = scale(d, f, 1, text);
    else if (rest == "bit/s" || rest == "bps" || rest == "b/s")
        v = scale(d, f, 8, text);
    else
        throw UnitError(fmt::format("'{}': unknown unit '{}', expected {}", text, unit, kExpected));
    if (v == 0) throw UnitError(fmt::format("'{}': expected a positive bandwidth", text));
    return Bandwidth{v};
}

std::uint64_t parse_speed(std::string_view text) {
    constexpr const char* kExpected =
        "a speed in instructions per second with an SI prefix or unit (e.g. 2.8G, 2.8GIPS, "
        "2800Minstr/s)";
    auto [d, unit] = split_number(text, kExpected);
    if (unit.empty())
        throw UnitError(fmt::format("'{}': missing unit, expected {}", text, kExpected));
    std::string_view rest = unit;
    u128 f = 1;
    if (!rest.empty()) {
        switch (rest.front()) {
            case 'k':
            case 'K':
                f = 1'000;
                rest.remove_prefix(1);
                break;
            case 'M':
                f = 1'000'000;
                rest.remove_prefix(1);
                break;
            case 'G':
                f = 1'000'000'000;
                rest.remove_prefix(1);
                break;
            case 'T':
                f = 1'000'000'000'000;
                rest.remove_prefix(1);
                break;
            default:
                break;
        }
    }
    if (!(rest.empty() || rest == "IPS" || rest == "instr/s" || rest == "Hz") ||
        (f == 1 && rest.empty()))
        throw UnitError(fmt::format("'{}': unknown unit '{}', expected {}", text, unit, kExpected));
    const std::uint64_t v = scale(d, f, 1, text);
    if (v == 0) throw UnitError(fmt::format("'{}': expected a positive speed", text));
    return v;
}

std::uint64_t parse_count(std::string_view text) {
    auto [d, unit] = split_number(text, "a whole number");
    if (!unit.empty() || d.scale != 0)
        throw UnitError(fmt::format("'{}': expected a whole number", text));
    if (d.mantissa > quantity::kMax64) throw UnitError(fmt::format("'{}': number too large", text));
    return static_cast<std::uint64_t>(d.mantissa);
}

namespace {
// Four significant digits ("10.12", "202.4", "1024"); from 10,000 on a whole number with
// thousands separators ("34,360"), never an exponent ("3.436e+04").
std::string trim_number(double v) {
    if (std::fabs(v) < 1e4) return fmt::format("{:.4g}", v);
    const std::string digits = fmt::format("{:.0f}", std::fabs(v));
    std::string s(v < 0 ? "-" : "");
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) s.push_back(',');
        s.push_back(digits[i]);
    }
    return s;
}
}  // namespace

std::string format_time(Time t) {
    const double ps = static_cast<double>(t.ps());
    const double a = std::fabs(ps);
    if (a >= 1e12) return trim_number(ps / 1e12) + " s";
    if (a >= 1e9) return trim_number(ps / 1e9) + " ms";
    if (a >= 1e6) return trim_number(ps / 1e6) + " us";
    if (a >= 1e3) return trim_number(ps / 1e3) + " ns";
    return trim_number(ps) + " ps";
}

std::string format_size(std::uint64_t bytes) {
    const double b = static_cast<double>(bytes);
    if (bytes >= (1ULL << 40)) return trim_number(b / double(1ULL << 40)) + " TiB";
    if (bytes >= (1ULL << 30)) return trim_number(b / double(1ULL << 30)) + " GiB";
    if (bytes >= (1ULL << 20)) return trim_number(b / double(1ULL << 20)) + " MiB";
    if (bytes >= (1ULL << 10)) return trim_number(b / double(1ULL << 10)) + " KiB";
    return fmt::format("{} B", bytes);
}

std::string format_bandwidth(Bandwidth bw) {
    if (bw.infinite()) return "unlimited";
    const double b = static_cast<double>(bw.bytes_per_s);
    if (b >= 1e9) return trim_number(b / 1e9) + " GB/s";
    if (b >= 1e6) return trim_number(b / 1e6) + " MB/s";
    if (b >= 1e3) return trim_number(b / 1e3) + " KB/s";
    return trim_number(b) + " B/s";
}

std::string format_speed(std::uint64_t per_second) {
    const double v = static_cast<double>(per_second);
    if (v >= 1e9) return trim_number(v / 1e9) + " G instr/s";
    if (v >= 1e6) return trim_number(v / 1e6) + " M instr/s";
    return trim_number(v) + " instr/s";
}

std::string canonical_time(Time t) {
    const std::int64_t ps = t.ps();
    if (ps % 1'000'000'000'000 == 0) return fmt::format("{}s", ps / 1'000'000'000'000);
    if (ps % 1'000'000'000 == 0) return fmt::format("{}ms", ps / 1'000'000'000);
    if (ps % 1'000'000 == 0) return fmt::format("{}us", ps / 1'000'000);
    if (ps % 1'000 == 0) return fmt::format("{}ns", ps / 1'000);
    return fmt::format("{}ps", ps);
}

std::string canonical_size(std::uint64_t bytes) {
    if (bytes != 0 && bytes % (1ULL << 30) == 0) return fmt::format("{}GiB", bytes >> 30);
    if (bytes != 0 && bytes % (1ULL << 20) == 0) return fmt::format("{}MiB", bytes >> 20);
    if (bytes != 0 && bytes % (1ULL << 10) == 0) return fmt::format("{}KiB", bytes >> 10);
    return fmt::format("{}B", bytes);
}

std::string canonical_bandwidth(Bandwidth bw) {
    const std::uint64_t b = bw.bytes_per_s;
    if (b % 1'000'000'000 == 0) return fmt::format("{}GB/s", b / 1'000'000'000);
    if (b % 1'000'000 == 0) return fmt::format("{}MB/s", b / 1'000'000);
    if (b % (1ULL << 30) == 0) return fmt::format("{}GiB/s", b >> 30);
    return fmt::format("{}B/s", b);
}

std::string canonical_speed(std::uint64_t v) {
    if (v % 1'000'000'000 == 0) return fmt::format("{}G", v / 1'000'000'000);
    if (v % 1'000'000 == 0) return fmt::format("{}M", v / 1'000'000);
    if (v % 1'000 == 0) return fmt::format("{}k", v / 1'000);
    return fmt::format("{}IPS", v);
}

Time Time::from_seconds(double seconds) {
    return rounded_ps(seconds * 1e12);
}

}  // namespace clustersim
