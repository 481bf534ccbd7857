// Small helpers shared by the algorithm files. Each algorithm is a stateless class whose
// step(args, k, step) describes step k of one rank's schedule.
#pragma once

#include <cstdint>

#include "collectives/collective.hpp"

namespace clustersim::mpi::alg {

inline bool power_of_two(std::int32_t p) { return p > 0 && (p & (p - 1)) == 0; }
// Largest power of two <= p (p >= 1).
inline std::int32_t floor_pow2(std::int32_t p) {
    std::int32_t x = 1;
    while (x * 2 <= p) x *= 2;
    return x;
}
// ceil(log2 p) for p >= 1.
inline std::uint32_t ceil_log2(std::int32_t p) {
    std::uint32_t k = 0;
    while ((std::int64_t{1} << k) < p) ++k;
    return k;
}

}  // namespace clustersim::mpi::alg
