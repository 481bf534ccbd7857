// A CLI11 check for the flags whose value is a 64-bit whole number (--seed, --task). CLI11
// converts such a value with strtoull/strtoll and keeps what they return: "-1" became
// 18446744073709551615 and a number past the type's range its largest value, both silently.
// The check runs on the text before that conversion.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

namespace clustersim::cli {

// Decimal digits only (no sign, no spaces, no 0x), at most `max`.
inline CLI::Validator whole_number(std::uint64_t max) {
    return CLI::Validator(
        [max](std::string& text) -> std::string {
            const std::string expected = fmt::format("expected a whole number from 0 to {}", max);
            if (text.empty()) return expected + ", got nothing";
            std::uint64_t v = 0;
            for (const char c : text) {
                if (c < '0' || c > '9') return fmt::format("'{}': {}", text, expected);
                const auto digit = static_cast<std::uint64_t>(c - '0');
                if (v > (max - digit) / 10) return fmt::format("'{}': {}", text, expected);
                v = v * 10 + digit;
            }
            return {};
        },
        fmt::format("0..{}", max));
}

}  // namespace clustersim::cli
