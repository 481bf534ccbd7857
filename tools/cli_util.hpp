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
    std::string s = std::to_string(v);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3)
        s.insert(static_cast<std::size_t>(i), ",");
    return s;
}

}  // namespace clustersim::cli
