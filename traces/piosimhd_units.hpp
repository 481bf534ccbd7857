// PIOsimHD's way of writing sizes and rates ("64K", "100M", "5235848"): a whole number with
// an optional binary suffix (its Numbers class: K = 2^10, M = 2^20, G = 2^30, T or P =
// 2^40). Shared by the HDTrace project reader and the PIOsimHD model import.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace clustersim::traces {

inline std::optional<std::uint64_t> parse_piosim_size(std::string_view s) {
    while (!s.empty() &&
           (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
        s.remove_suffix(1);
    while (!s.empty() &&
           (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
        s.remove_prefix(1);
    std::uint64_t mult = 1;
    if (!s.empty()) {
        switch (s.back()) {
            case 'K':
                mult = 1ULL << 10;
                break;
            case 'M':
                mult = 1ULL << 20;
                break;
            case 'G':
                mult = 1ULL << 30;
                break;
            case 'T':
            case 'P':
                mult = 1ULL << 40;
                break;
            default:
                break;
        }
        if (mult != 1) s.remove_suffix(1);
    }
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    if (v > UINT64_MAX / mult) return std::nullopt;
    return v * mult;
}

}  // namespace clustersim::traces
