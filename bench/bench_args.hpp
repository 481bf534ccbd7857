// The bench programs' positional arguments. A bad argument (not a whole number, out of range,
// an unknown app spec, size or model) is one line on stderr naming the program and the
// argument, and exit code 2: never a signal (std::atoi read "abc" as 0 ranks, and an
// InputError thrown from a spec went uncaught: abort, signal 6).
#pragma once

#include <cstdint>
#include <exception>
#include <string>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim::bench {

// argv[i] as a whole number in [lo, hi]; `fallback` when the argument is absent.
inline std::uint64_t count_arg(int argc, char** argv, int i, const char* name,
                               std::uint64_t fallback, std::uint64_t lo, std::uint64_t hi) {
    if (argc <= i) return fallback;
    std::uint64_t v = 0;
    try {
        v = parse_count(argv[i]);
    } catch (const std::exception& e) {
        throw InputError("", 0, fmt::format("{} (argument {}): {}", name, i, e.what()));
    }
    if (v < lo || v > hi)
        throw InputError(
            "", 0, fmt::format("{} (argument {}): must be {} to {}, got {}", name, i, lo, hi, v));
    return v;
}

// argv[i], or `fallback` when absent.
inline std::string text_arg(int argc, char** argv, int i, const char* fallback) {
    return argc > i ? std::string(argv[i]) : std::string(fallback);
}

// Runs `body` (returns the exit code); any exception it lets out is one line
// "PROGRAM: message" and exit code 2.
template <class Body>
int guarded_main(const char* program, Body&& body) {
    try {
        return body();
    } catch (const std::exception& e) {
        fmt::print(stderr, "{}: {}\n", program, e.what());
        return 2;
    }
}

// The largest rank count the bench programs take: the 1,048,576 and some headroom.
inline constexpr std::uint64_t kMaxRanks = std::uint64_t{1} << 24;

}  // namespace clustersim::bench
