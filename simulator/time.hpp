// Simulated time: an integer count of picoseconds in a strong type.
//
// int64 picoseconds cover +-106.75 days of simulated time, far beyond any MPI run we model,
// and repeated additions never drift the way double seconds do.
//
// The horizon (docs/limits.md): Time::max() (2^63 - 1 ps, about 106.75 days) stands for
// "at or beyond the representable horizon". Arithmetic saturates there instead of wrapping
// (+, -, * and the unit constructors clamp to Time::max() / Time::min()), every conversion
// into Time (transfer_time, compute_time, from_seconds, time_from_ps) clamps to Time::max(),
// and Engine::schedule refuses an event at Time::max() with a HorizonError naming the
// component that scheduled it. So a run that would pass the horizon stops with one line;
// it never wraps into the past or into a wrong small number.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <ostream>

namespace clustersim {

// 128-bit intermediates keep bytes * 10^12 / rate exact (__extension__: GCC/Clang builtin).
__extension__ typedef unsigned __int128 uint128;

class Time {
  public:
    constexpr Time() = default;
    static constexpr Time ps(std::int64_t v) { return Time(v); }
    static constexpr Time ns(std::int64_t v) { return Time(mul(v, 1'000)); }
    static constexpr Time us(std::int64_t v) { return Time(mul(v, 1'000'000)); }
    static constexpr Time ms(std::int64_t v) { return Time(mul(v, 1'000'000'000)); }
    static constexpr Time s(std::int64_t v) { return Time(mul(v, 1'000'000'000'000)); }
    static constexpr Time zero() { return Time(0); }
    // The horizon: "at or beyond 2^63 - 1 ps". Saturated results land here.
    static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }
    static constexpr Time min() { return Time(std::numeric_limits<std::int64_t>::min()); }
    // Rounds to the nearest picosecond, clamped to [min(), max()] (NaN: max()); for
    // reporting and parsing, not for the hot path.
    static Time from_seconds(double seconds);
    // The horizon in days, for messages (106.75).
    static constexpr double horizon_days() {
        return static_cast<double>(std::numeric_limits<std::int64_t>::max()) * 1e-12 / 86400.0;
    }

    constexpr std::int64_t ps() const { return v_; }
    constexpr double seconds() const { return static_cast<double>(v_) * 1e-12; }

    constexpr Time& operator+=(Time o) { return *this = *this + o; }
    constexpr Time& operator-=(Time o) { return *this = *this - o; }
    // Saturating: one predictable overflow branch each.
    friend constexpr Time operator+(Time a, Time b) {
        std::int64_t r = 0;
        if (__builtin_add_overflow(a.v_, b.v_, &r)) [[unlikely]]
            return b.v_ > 0 ? max() : min();
        return Time(r);
    }
    friend constexpr Time operator-(Time a, Time b) {
        std::int64_t r = 0;
        if (__builtin_sub_overflow(a.v_, b.v_, &r)) [[unlikely]]
            return b.v_ < 0 ? max() : min();
        return Time(r);
    }
    friend constexpr Time operator*(Time a, std::int64_t k) { return Time(mul(a.v_, k)); }
    friend constexpr Time operator*(std::int64_t k, Time a) { return Time(mul(a.v_, k)); }
    friend constexpr auto operator<=>(Time, Time) = default;

  private:
    constexpr explicit Time(std::int64_t v) : v_(v) {}
    static constexpr std::int64_t mul(std::int64_t a, std::int64_t b) {
        std::int64_t r = 0;
        if (__builtin_mul_overflow(a, b, &r)) [[unlikely]]
            return (a < 0) != (b < 0) ? std::numeric_limits<std::int64_t>::min()
                                      : std::numeric_limits<std::int64_t>::max();
        return r;
    }
    std::int64_t v_ = 0;
};

constexpr Time max(Time a, Time b) {
    return a < b ? b : a;
}
constexpr Time min(Time a, Time b) {
    return a < b ? a : b;
}

// A data rate in bytes per second (integer: sub-byte/s rates are never meaningful here).
struct Bandwidth {
    std::uint64_t bytes_per_s = 0;
    constexpr bool infinite() const { return bytes_per_s == 0; }
    friend constexpr auto operator<=>(Bandwidth, Bandwidth) = default;
};
inline constexpr Bandwidth kInfiniteBandwidth{0};

// (num + d / 2) / d, the rounded quotient. A 128-bit division is a library call many times
// slower than a 64-bit one, so the 64-bit one is used when the sum fits (the usual case:
// up to 1.8 * 10^7 s of bytes or instructions at 1/s, in picoseconds); same result.
// A quotient that does not fit 64 bits saturates at UINT64_MAX (checked only on the slow path).
constexpr std::uint64_t rounded_quotient(uint128 num, std::uint64_t d) {
    const uint128 x = num + d / 2;
    const auto high = static_cast<std::uint64_t>(x >> 64);
    if (high == 0) return static_cast<std::uint64_t>(x) / d;
    if (high >= d) return UINT64_MAX;
    return static_cast<std::uint64_t>(x / d);
}

// An unsigned count of picoseconds as a Time: Time::max() if it passes the horizon.
constexpr Time time_from_ps(std::uint64_t ps) {
    return ps > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
               ? Time::max()
               : Time::ps(static_cast<std::int64_t>(ps));
}

// Time to move `bytes` at `bw`, rounded to the nearest picosecond. Exact integer arithmetic;
// Time::max() if it passes the horizon.
constexpr Time transfer_time(std::uint64_t bytes, Bandwidth bw) {
    if (bw.infinite() || bytes == 0) return Time::zero();
    const uint128 num = static_cast<uint128>(bytes) * 1'000'000'000'000ULL;
    return time_from_ps(rounded_quotient(num, bw.bytes_per_s));
}

// Time to execute `instructions` at `per_second` instructions per second (Time::max() past
// the horizon).
constexpr Time compute_time(std::uint64_t instructions, std::uint64_t per_second) {
    const uint128 num = static_cast<uint128>(instructions) * 1'000'000'000'000ULL;
    return time_from_ps(rounded_quotient(num, per_second));
}

// A picosecond count held in a double (a model's formula), rounded to the nearest
// picosecond: Time::max() at or past the horizon and for NaN, Time::min() far below zero.
inline Time rounded_ps(double ps) {
    const double r = std::round(ps);
    if (!(r < 9223372036854775808.0)) return Time::max();  // 2^63 or more, or NaN
    if (r < -9223372036854775808.0) return Time::min();
    return Time::ps(static_cast<std::int64_t>(r));
}

// Exact picoseconds, for test failure messages and debugging (format_time is for users).
inline std::ostream& operator<<(std::ostream& os, Time t) {
    return os << t.ps() << " ps";
}

}  // namespace clustersim
