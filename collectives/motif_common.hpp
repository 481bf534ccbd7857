// What the motif apps share (collectives/motifs.cpp and one file per motif beside it): the
// error of a bad parameter, checked products, grid parameters (`cells`, `grid`), row-major
// coordinates, and the Motif base class (iteration time, progress, the operations a motif
// hands out). Internal to the motif files; the apps are registered by register_motif_apps.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "collectives/apps.hpp"
#include "collectives/motifs.hpp"
#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim::mpi::motif {

[[noreturn]] inline void bad(const AppArgs& a, const std::string& what) {
    throw InputError("--app", 0, fmt::format("'{}': {}", a.spec(), what));
}

// Products the input asks for are checked: anything past 2^62 (bytes, instructions) is
// refused, never wrapped.
constexpr std::uint64_t kMaxProduct = std::uint64_t{1} << 62;

inline std::uint64_t checked_product(const AppArgs& a, std::initializer_list<std::uint64_t> factors,
                                     const char* what) {
    std::uint64_t p = 1;
    for (const std::uint64_t f : factors) {
        if (f != 0 && p > kMaxProduct / f) bad(a, fmt::format("{} is beyond 2^62", what));
        p *= f;
    }
    return p;
}

// "AxBxC" with exactly `d` parts, each 1 .. 2^20.
inline std::vector<std::uint32_t> parse_extent(const AppArgs& a, const std::string& key,
                                               std::size_t d) {
    const std::string& text = a.values().at(key);
    std::vector<std::uint32_t> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t end = std::min(text.find('x', pos), text.size());
        const std::string part = text.substr(pos, end - pos);
        if (part.empty() || part.size() > 7 ||
            part.find_first_not_of("0123456789") != std::string::npos || std::stoul(part) == 0 ||
            std::stoul(part) > (1u << 20))
            bad(a, fmt::format("parameter '{}' is '{}'; expected {} sizes from 1 to 1048576 "
                               "joined by 'x', e.g. {}",
                               key, text, d,
                               d == 2   ? "64x64"
                               : d == 3 ? "32x32x32"
                                        : "8x8x8x8"));
        out.push_back(static_cast<std::uint32_t>(std::stoul(part)));
        pos = end + 1;
    }
    if (out.size() != d)
        bad(a,
            fmt::format("parameter '{}' is '{}': {} sizes, expected {}", key, text, out.size(), d));
    return out;
}

// The process grid: `grid` (auto, or AxB...) over `ranks`.
inline std::vector<std::uint32_t> process_grid(const AppArgs& a, std::uint32_t ranks,
                                               std::size_t d) {
    if (a.values().at("grid") == "auto") return balanced_grid(ranks, d);
    std::vector<std::uint32_t> g = parse_extent(a, "grid", d);
    std::uint64_t p = 1;
    for (const std::uint32_t x : g) p *= x;
    if (p != ranks)
        bad(a, fmt::format("grid={} has {} positions for {} ranks; give a grid of exactly the "
                           "ranks (or grid=auto)",
                           a.values().at("grid"), p, ranks));
    return g;
}

// Row-major coordinates of `rank` on `grid` (the last dimension fastest, as MPI_Cart_create).
template <std::size_t D>
std::array<std::int64_t, D> coords_of(std::int64_t rank, const std::vector<std::uint32_t>& grid) {
    std::array<std::int64_t, D> c{};
    for (std::size_t i = D; i-- > 0;) {
        c[i] = rank % grid[i];
        rank /= grid[i];
    }
    return c;
}

class Motif : public App {
  public:
    explicit Motif(std::uint64_t iterations) : iterations_(iterations) {}
    std::vector<AppResult> summarize(Time t) const override {
        if (iterations_ == 0) return {};
        const Time per = Time::ps(t.ps() / static_cast<std::int64_t>(iterations_));
        return {{"iteration time", format_time(per) + " (simulated time / iterations)",
                 "iteration_time_s", per.seconds()}};
    }

  protected:
    // Progress in iterations: each rank's state's `it` of `iterations_` each.
    template <class State>
    ProgramProgress iterations_done(const std::vector<State>& states) const {
        ProgramProgress p;
        for (const State& s : states) p.done += s.it;
        p.total = states.size() * iterations_;
        return p;
    }
    static void compute(Op& op, std::uint64_t instructions) {
        op.kind = OpKind::Compute;
        op.instructions = instructions;
    }
    static void irecv(Op& op, std::int32_t peer, std::int32_t tag, std::uint64_t bytes,
                      std::uint32_t handle) {
        op.kind = OpKind::Irecv;
        op.peer = peer, op.tag = tag, op.bytes = bytes, op.handle = handle;
    }
    static void isend(Op& op, std::int32_t peer, std::int32_t tag, std::uint64_t bytes,
                      std::uint32_t handle) {
        op.kind = OpKind::Isend;
        op.peer = peer, op.tag = tag, op.bytes = bytes, op.handle = handle;
    }
    static void waitall(Op& op, std::uint32_t count) {
        op.kind = OpKind::Waitall;
        op.handle = 0, op.count = count;
    }
    std::uint64_t iterations_;
};

// The motifs registered from files of their own (one line each in register_motif_apps).
void add_nbody(AppRegistry& registry);  // motif_nbody.cpp

}  // namespace clustersim::mpi::motif
