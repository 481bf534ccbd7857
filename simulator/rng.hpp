// Deterministic random numbers: the same seed gives the same sequence on every platform.
// (std::mt19937_64 is specified bit-exactly by the standard; std:: distributions are not,
// so the helpers below derive values from the raw 64-bit output themselves.)
#pragma once

#include <cstdint>
#include <random>

#include "simulator/time.hpp"

namespace clustersim {

class Rng {
  public:
    explicit Rng(std::uint64_t seed) : gen_(seed) {}
    std::uint64_t next() { return gen_(); }
    // Uniform in [0, n), n > 0, without modulo bias (Lemire's method).
    std::uint64_t below(std::uint64_t n) {
        uint128 m = static_cast<uint128>(gen_()) * n;
        std::uint64_t low = static_cast<std::uint64_t>(m);
        if (low < n) {
            const std::uint64_t threshold = (0 - n) % n;
            while (low < threshold) {
                m = static_cast<uint128>(gen_()) * n;
                low = static_cast<std::uint64_t>(m);
            }
        }
        return static_cast<std::uint64_t>(m >> 64);
    }
    // Uniform in [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }

  private:
    std::mt19937_64 gen_;
};

}  // namespace clustersim
