// The one reader of numbers with units, shared by the simulator (simulator/units.cpp) and the
// MPI programs (tools/mpi/program_common.hpp), which link nothing of the simulator: header
// only, the standard library only, no exceptions. Each caller words its own errors (the
// simulator's UnitError, the programs' "--FLAG: ..." usage errors) from the status returned
// here.
//
// A number is an exact decimal (1.25 is 125 / 10^2, never a double). Units:
//   sizes  B with k/K/M/G/T (powers of 1000) or Ki/Mi/Gi/Ti (powers of 1024)
//   times  ps, ns, us (µs, μs), ms, s, min
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace clustersim::quantity {

__extension__ typedef unsigned __int128 u128;
inline constexpr u128 kMax64 = static_cast<u128>(UINT64_MAX);
// Fraction digits kept: 10^24 times the largest unit factor (2^40) stays far below 2^128.
// Later digits change no rounded result; they are read and dropped.
inline constexpr int kMaxFractionDigits = 24;

// An exact decimal: value = mantissa / 10^scale.
struct Decimal {
    u128 mantissa = 0;
    int scale = 0;
};

enum class Split {
    Ok,
    Sign,      // a leading + or -
    NoDigits,  // no digit before the unit
    TooLarge,  // more digits than 128 bits hold
};

inline bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Splits "1.25GB/s" into 1.25 and "GB/s" (blanks around the unit dropped). Leading blanks are
// skipped; the number is digits with at most one '.'.
inline Split split_number(std::string_view text, Decimal& d, std::string_view& unit) {
    std::size_t i = 0;
    while (i < text.size() && is_space(text[i])) ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) return Split::Sign;
    d = Decimal{};
    bool digits = false, dot = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            digits = true;
            // Past what any unit can resolve (a picosecond of a minute needs 14 fraction
            // digits), digits are dropped, never scaled by 10^128 (= 0 in 128 bits).
            if (dot && (d.scale >= kMaxFractionDigits || d.mantissa > kMax64 * 1000)) continue;
            if (d.mantissa > kMax64 * 1000) return Split::TooLarge;
            d.mantissa = d.mantissa * 10 + static_cast<unsigned>(c - '0');
            if (dot) ++d.scale;
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
    }
    if (!digits) return Split::NoDigits;
    unit = text.substr(i);
    while (!unit.empty() && is_space(unit.front())) unit.remove_prefix(1);
    while (!unit.empty() && is_space(unit.back())) unit.remove_suffix(1);
    return Split::Ok;
}

inline u128 pow10(int n) {
    u128 p = 1;
    for (int k = 0; k < n; ++k) p *= 10;
    return p;
}

// d * num / den rounded to nearest; false if it does not fit 64 bits.
inline bool scale_rounded(const Decimal& d, u128 num, u128 den, std::uint64_t& out) {
    den *= pow10(d.scale);
    if (num != 0 && d.mantissa > (~static_cast<u128>(0)) / num) return false;
    const u128 v = (d.mantissa * num + den / 2) / den;
    if (v > kMax64) return false;
    out = static_cast<std::uint64_t>(v);
    return true;
}

enum class Exact { Ok, NotWhole, TooLarge };

// d * num exactly (a whole number of the base unit), else why not.
inline Exact scale_exact(const Decimal& d, u128 num, std::uint64_t& out) {
    if (num != 0 && d.mantissa > (~static_cast<u128>(0)) / num) return Exact::TooLarge;
    const u128 product = d.mantissa * num, den = pow10(d.scale);
    if (product % den != 0) return Exact::NotWhole;
    const u128 v = product / den;
    if (v > kMax64) return Exact::TooLarge;
    out = static_cast<std::uint64_t>(v);
    return Exact::Ok;
}

struct Prefix {
    std::string_view name;
    u128 factor;
};

// Binary prefixes first, so "Ki" is not read as "K" followed by "i".
inline constexpr std::array<Prefix, 9> kSizePrefixes{{{"Ki", u128(1) << 10},
                                                      {"Mi", u128(1) << 20},
                                                      {"Gi", u128(1) << 30},
                                                      {"Ti", u128(1) << 40},
                                                      {"k", 1'000},
                                                      {"K", 1'000},
                                                      {"M", 1'000'000},
                                                      {"G", 1'000'000'000},
                                                      {"T", 1'000'000'000'000}}};

// Strips a size prefix from the front of `unit`; returns its factor (1 if none).
inline u128 take_size_prefix(std::string_view& unit) {
    for (const auto& p : kSizePrefixes) {
        if (unit.substr(0, p.name.size()) == p.name) {
            unit.remove_prefix(p.name.size());
            return p.factor;
        }
    }
    return 1;
}

// Bytes per unit of a size ("KiB" -> 1024, "B" -> 1); 0 if `unit` is not a size unit.
inline u128 bytes_per_unit(std::string_view unit) {
    const u128 f = take_size_prefix(unit);
    return unit == "B" ? f : 0;
}

// Picoseconds per unit of a time ("us" -> 10^6); 0 if `unit` is not a time unit.
inline u128 ps_per_unit(std::string_view unit) {
    if (unit == "ps") return 1;
    if (unit == "ns") return 1'000;
    if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1'000'000;
    if (unit == "ms") return 1'000'000'000;
    if (unit == "s") return 1'000'000'000'000;
    if (unit == "min") return 60 * static_cast<u128>(1'000'000'000'000);
    return 0;
}

}  // namespace clustersim::quantity
