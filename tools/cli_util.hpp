// Small helpers shared by the command implementations.
#pragma once

#include <cstdint>
#include <string>

#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim::cli {

// Parses a unit-bearing flag value, turning a UnitError into an InputError naming the flag.
template <typename F>
auto flag_value(const std::string& flag, const std::string& text, F parse) {
    try {
        return parse(text);
    } catch (const UnitError& e) {
        throw InputError(flag, 0, e.what());
    }
}

inline std::string with_commas(std::uint64_t v) {
    const std::string digits = std::to_string(v);
    std::string s;
    s.reserve(digits.size() + digits.size() / 3);
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) s.push_back(',');
        s.push_back(digits[i]);
    }
    return s;
}

}  // namespace clustersim::cli
