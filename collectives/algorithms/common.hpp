// Small helpers shared by the algorithm files. Each algorithm is a stateless class whose
// step(args, k, step) describes step k of one rank's schedule.
#pragma once

#include <cstdint>

#include "collectives/collective.hpp"

namespace clustersim::mpi::alg {

inline bool power_of_two(std::int32_t p) {
    return p > 0 && (p & (p - 1)) == 0;
}
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

// MPICH's fold of p ranks onto pof2 = floor_pow2(p) survivors: with rem = p - pof2, the
// even ranks below 2 rem hand their data to the next odd rank and sit out; survivor s is
// rank 2s + 1 if s < rem, else s + rem, and stands for the ranks [first(s), first(s + 1)).
struct Fold {
    std::int32_t p, pof2, rem;
    explicit Fold(std::int32_t size)
        : p(size), pof2(floor_pow2(size)), rem(size - floor_pow2(size)) {}
    // First rank a survivor stands for; first(pof2) = p.
    std::int64_t first(std::int64_t s) const { return s < rem ? 2 * s : s + rem; }
    std::int32_t rank_of(std::int32_t s) const { return s < rem ? 2 * s + 1 : s + rem; }
    bool sits_out(std::int32_t r) const { return r < 2 * rem && r % 2 == 0; }
    std::int32_t survivor(std::int32_t r) const { return r < 2 * rem ? r / 2 : r - rem; }
};

}  // namespace clustersim::mpi::alg
