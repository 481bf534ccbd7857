// Small text formatting shared by every report (the run report, the command lines).
#pragma once

#include <cstdint>
#include <string>

namespace clustersim {

// 1234567 -> "1,234,567".
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

}  // namespace clustersim
