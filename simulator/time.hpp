// Simulated time: an integer count of picoseconds in a strong type.
//
// int64 picoseconds cover +-106 days of simulated time, far beyond any MPI run we model,
// and repeated additions never drift the way double seconds do.
#pragma once

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
    static constexpr Time ns(std::int64_t v) { return Time(v * 1'000); }
    static constexpr Time us(std::int64_t v) { return Time(v * 1'000'000); }
    static constexpr Time ms(std::int64_t v) { return Time(v * 1'000'000'000); }
    static constexpr Time s(std::int64_t v) { return Time(v * 1'000'000'000'000); }
    static constexpr Time zero() { return Time(0); }
    static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }
    // Rounds to the nearest picosecond; for reporting and parsing, not for the hot path.
    static Time from_seconds(double seconds);

    constexpr std::int64_t ps() const { return v_; }
    constexpr double seconds() const { return static_cast<double>(v_) * 1e-12; }

    constexpr Time& operator+=(Time o) {
        v_ += o.v_;
        return *this;
    }
    constexpr Time& operator-=(Time o) {
        v_ -= o.v_;
        return *this;
    }
    friend constexpr Time operator+(Time a, Time b) { return Time(a.v_ + b.v_); }
    friend constexpr Time operator-(Time a, Time b) { return Time(a.v_ - b.v_); }
    friend constexpr Time operator*(Time a, std::int64_t k) { return Time(a.v_ * k); }
    friend constexpr Time operator*(std::int64_t k, Time a) { return Time(a.v_ * k); }
    friend constexpr auto operator<=>(Time, Time) = default;

  private:
    constexpr explicit Time(std::int64_t v) : v_(v) {}
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
constexpr std::uint64_t rounded_quotient(uint128 num, std::uint64_t d) {
    const uint128 x = num + d / 2;
    if (static_cast<std::uint64_t>(x >> 64) == 0) return static_cast<std::uint64_t>(x) / d;
    return static_cast<std::uint64_t>(x / d);
}

// Time to move `bytes` at `bw`, rounded to the nearest picosecond. Exact integer arithmetic.
constexpr Time transfer_time(std::uint64_t bytes, Bandwidth bw) {
    if (bw.infinite() || bytes == 0) return Time::zero();
    const uint128 num = static_cast<uint128>(bytes) * 1'000'000'000'000ULL;
    return Time::ps(static_cast<std::int64_t>(rounded_quotient(num, bw.bytes_per_s)));
}

// Time to execute `instructions` at `per_second` instructions per second.
constexpr Time compute_time(std::uint64_t instructions, std::uint64_t per_second) {
    const uint128 num = static_cast<uint128>(instructions) * 1'000'000'000'000ULL;
    return Time::ps(static_cast<std::int64_t>(rounded_quotient(num, per_second)));
}

// Exact picoseconds, for test failure messages and debugging (format_time is for users).
inline std::ostream& operator<<(std::ostream& os, Time t) {
    return os << t.ps() << " ps";
}

}  // namespace clustersim
