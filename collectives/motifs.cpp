#include "collectives/motifs.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <string>

#include <fmt/format.h>

#include "collectives/motif_common.hpp"
#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim::mpi {
namespace {

using namespace motif;

// ---------------------------------------------------------------------------------------
// halo2d, halo3d, lqcd, cg, mg: every iteration computes `work` instructions per cell of the
// rank's `cells`, posts a receive from each neighbour, sends each neighbour its halo (one
// layer of cells: a face, edge or corner of `value` bytes per cell), waits for all, then
// (cg) computes and allreduces 8 bytes `allreduces` times. Neighbours are the grid offsets
// in {-1, 0, 1}^D but 0 (full stencil: 8, 26, 80) or the faces only (4, 6, 8); a border rank
// of a non-periodic grid has fewer. A message to the neighbour at offset o has tag index(o);
// its receiver, which sees the sender at -o, receives tag index(o).
//
// mg (`levels` > 1) is a V-cycle: the compute and halo above on levels 0, 1, ..., L-1 and
// back up to 0 (2L - 1 visits), level l with every dimension's cells halved l times (at
// least 1), and an 8-byte allreduce at the coarsest level (the coarse solve).
//
// Checkpoints (`checkpoint` = N > 0): after every N-th iteration each rank writes
// `checkpoint_bytes` at offset rank x that size of one shared file, collectively
// (MPI_File_write_at_all; opened before the first, closed after the last iteration).
struct HaloSpec {
    std::vector<std::uint32_t> grid, cells;
    bool full = false, periodic = true;
    std::uint64_t value = 8, work = 100, iterations = 1;
    std::uint32_t allreduces = 0, levels = 1;
    std::uint64_t checkpoint = 0, checkpoint_bytes = 0;
    std::uint64_t allreduce_every = 0;  // an 8-byte allreduce after every N-th iteration
};

template <std::size_t D>
class HaloMotif final : public Motif {
  public:
    HaloMotif(HaloSpec spec, std::uint32_t ranks)
        : Motif(spec.iterations),
          grid_(spec.grid),
          periodic_(spec.periodic),
          allreduces_(spec.allreduces),
          allreduce_every_(spec.allreduce_every),
          levels_(spec.levels),
          checkpoint_(spec.checkpoint),
          checkpoint_bytes_(spec.checkpoint_bytes),
          state_(ranks) {
        std::array<std::int64_t, D> o{};
        std::fill(o.begin(), o.end(), -1);
        for (;;) {  // every offset in {-1, 0, 1}^D, lexicographically
            int nonzero = 0;
            for (const std::int64_t x : o) nonzero += x != 0 ? 1 : 0;
            if (nonzero > 0 && (spec.full || nonzero == 1)) offsets_.push_back(o);
            std::size_t i = D;
            while (i > 0 && o[i - 1] == 1) o[--i] = -1;
            if (i == 0) break;
            ++o[i - 1];
        }
        for (const auto& off : offsets_) {
            std::array<std::int64_t, D> neg{};
            for (std::size_t i = 0; i < D; ++i) neg[i] = -off[i];
            opposite_.push_back(static_cast<std::int32_t>(
                std::find(offsets_.begin(), offsets_.end(), neg) - offsets_.begin()));
        }
        for (std::uint32_t l = 0; l < levels_; ++l) {  // level l: every extent halved l times
            std::uint64_t n = 1;
            for (const std::uint32_t c : spec.cells) n *= std::max<std::uint32_t>(1, c >> l);
            work_.push_back(n * spec.work);
            for (const auto& off : offsets_) {
                std::uint64_t bytes = spec.value;
                for (std::size_t i = 0; i < D; ++i)
                    if (off[i] == 0) bytes *= std::max<std::uint32_t>(1, spec.cells[i] >> l);
                bytes_.push_back(bytes);
            }
        }
    }

    bool next(std::int32_t rank, Op& op) override {
        State& s = state_[static_cast<std::size_t>(rank)];
        op = Op{};
        for (;;) {
            if (s.it == iterations_) {
                if (!s.opened) return false;
                s.opened = false;  // the checkpoint file is closed after the last iteration
                op.kind = OpKind::FileClose;
                op.file = 1;
                return true;
            }
            const std::uint32_t level = s.visit < levels_ ? s.visit : 2 * levels_ - 2 - s.visit;
            const std::uint64_t* bytes = &bytes_[level * offsets_.size()];
            switch (s.phase) {
                case 0:  // compute
                    s.phase = 1, s.j = 0, s.v = 0;
                    compute(op, work_[level]);
                    return true;
                case 1:    // receive from each neighbour
                case 2: {  // send to each
                    for (; s.j < offsets_.size(); ++s.j) {
                        const std::int32_t peer = neighbour(rank, s.j);
                        if (peer < 0) continue;
                        const std::uint32_t j = s.j++;
                        if (s.phase == 1)
                            irecv(op, peer, opposite_[j], bytes[opposite_[j]], s.v++);
                        else
                            isend(op, peer, static_cast<std::int32_t>(j), bytes[j], s.nv + s.v++);
                        return true;
                    }
                    if (s.phase == 1) s.nv = s.v;
                    s.phase = s.phase == 1 ? 2 : 3;
                    s.j = 0, s.v = 0;
                    continue;
                }
                case 3:
                    s.phase = 4;
                    if (s.nv == 0) continue;
                    waitall(op, 2 * s.nv);
                    return true;
                case 4:  // mg: the coarse solve at the coarsest level; then the next visit
                    s.phase = 0;
                    if (levels_ > 1 && s.visit == levels_ - 1 && !s.coarse_done) {
                        s.coarse_done = true;
                        s.phase = 4;
                        allreduce8(op);
                        return true;
                    }
                    s.coarse_done = false;
                    if (++s.visit < 2 * levels_ - 1) continue;
                    s.visit = 0;
                    s.phase = 5, s.j = 0;
                    continue;
                case 5:  // cg's dot products: a little compute, then an 8-byte allreduce
                    if (s.j < 2 * allreduces_) {
                        if (s.j++ % 2 == 0)
                            compute(op, work_[0] / 8);
                        else
                            allreduce8(op);
                        return true;
                    }
                    // allreduce=N: an 8-byte allreduce after every N-th iteration (a residual)
                    if (s.j == 2 * allreduces_ && allreduce_every_ > 0 &&
                        (s.it + 1) % allreduce_every_ == 0) {
                        ++s.j;
                        allreduce8(op);
                        return true;
                    }
                    s.phase = 6;
                    continue;
                default:  // a checkpoint after every checkpoint_-th iteration
                    if (checkpoint_ > 0 && (s.it + 1) % checkpoint_ == 0 && !s.written) {
                        op.file = 1;
                        if (!s.opened) {
                            s.opened = true;
                            op.kind = OpKind::FileOpen;
                            op.path = &path_;
                            return true;
                        }
                        s.written = true;
                        op.kind = OpKind::FileWriteAtAll;
                        op.bytes = checkpoint_bytes_;
                        op.offset = static_cast<std::uint64_t>(rank) * checkpoint_bytes_;
                        return true;
                    }
                    s.written = false;
                    s.phase = 0;
                    ++s.it;
                    continue;
            }
        }
    }
    ProgramProgress progress() const override { return iterations_done(state_); }

  private:
    struct State {
        std::uint32_t it = 0;
        std::uint8_t phase = 0, j = 0, v = 0, nv = 0, visit = 0;
        bool coarse_done = false, opened = false, written = false;
    };
    static void allreduce8(Op& op) {
        op.kind = OpKind::Collective;
        op.coll = CollOp::Allreduce;
        op.bytes = 8;
    }
    // The rank at offset j from `rank`, or -1 (past a non-periodic border).
    std::int32_t neighbour(std::int32_t rank, std::uint32_t j) const {
        auto c = coords_of<D>(rank, grid_);
        std::int64_t r = 0;
        for (std::size_t i = 0; i < D; ++i) {
            std::int64_t x = c[i] + offsets_[j][i];
            const std::int64_t n = grid_[i];
            if (x < 0 || x >= n) {
                if (!periodic_) return -1;
                x = (x + n) % n;
            }
            r = r * n + x;
        }
        return static_cast<std::int32_t>(r);
    }
    std::vector<std::uint32_t> grid_;
    bool periodic_;
    std::uint32_t allreduces_;
    std::uint64_t allreduce_every_;
    std::uint32_t levels_;
    std::uint64_t checkpoint_, checkpoint_bytes_;
    const std::string path_ = "motif.checkpoint";
    std::vector<std::uint64_t> work_;  // per level
    std::vector<std::array<std::int64_t, D>> offsets_;
    std::vector<std::uint64_t> bytes_;  // per level and offset
    std::vector<std::int32_t> opposite_;
    std::vector<State> state_;
};

// ---------------------------------------------------------------------------------------
// fft3d: an n^3 complex grid (16 bytes a point) in pencils over a pr x pc grid (blocks of
// ceil(n / pr) x ceil(n / pc) pencils, as FFTW pads uneven ones): communicators
// of the rows (newcomm 1) and columns (2) first, then per iteration a 1-D FFT pass of `work`
// instructions per local point, the transpose in the row (an alltoall of the local points /
// pc per pair), a pass, the transpose in the column (/ pr per pair), and a last pass.
class Fft3dMotif final : public Motif {
  public:
    Fft3dMotif(std::uint32_t pr, std::uint32_t pc, std::uint64_t points, std::uint64_t work,
               std::uint64_t iterations, std::uint32_t ranks)
        : Motif(iterations), pr_(pr), pc_(pc), points_(points), work_(work), step_(ranks, 0) {}
    bool next(std::int32_t rank, Op& op) override {
        std::uint64_t& k = step_[static_cast<std::size_t>(rank)];
        if (k == 2 + 5 * iterations_) return false;
        op = Op{};
        if (k < 2) {
            op.kind = OpKind::CommSplit;
            op.color = k == 0 ? rank / static_cast<std::int32_t>(pc_)
                              : rank % static_cast<std::int32_t>(pc_);
            op.key = rank;
            op.newcomm = static_cast<std::uint32_t>(k + 1);
        } else {
            const std::uint64_t phase = (k - 2) % 5;
            if (phase % 2 == 0) {
                compute(op, points_ * work_);
            } else {
                op.kind = OpKind::Collective;
                op.coll = CollOp::Alltoall;
                op.comm = phase == 1 ? 1 : 2;
                op.bytes = points_ * 16 / (phase == 1 ? pc_ : pr_);
            }
        }
        ++k;
        return true;
    }
    ProgramProgress progress() const override {
        ProgramProgress p;
        for (const std::uint64_t k : step_) p.done += k;
        p.total = step_.size() * (2 + 5 * iterations_);
        return p;
    }

  private:
    std::uint32_t pr_, pc_;
    std::uint64_t points_, work_;
    std::vector<std::uint64_t> step_;
};

// ---------------------------------------------------------------------------------------
// sweep3d: the KBA wavefront on a px x py grid, each rank nx x ny x nz cells. Per iteration,
// for each of the 8 octants (x, y and z directions) and each block of `kb` planes of z: a
// blocking receive from the upstream x and y neighbours (none at the border the sweep starts
// from), `work` instructions per cell and angle of the block, and a blocking send to the
// downstream ones: ny x kb x angles (x direction) or nx x kb x angles (y) values of 8 bytes.
class Sweep3dMotif final : public Motif {
  public:
    Sweep3dMotif(std::uint32_t px, std::uint32_t py, std::vector<std::uint32_t> cells,
                 std::uint32_t kb, std::uint32_t angles, std::uint64_t work,
                 std::uint64_t iterations, std::uint32_t ranks)
        : Motif(iterations), px_(px), py_(py), state_(ranks) {
        blocks_ = (cells[2] + kb - 1) / kb;
        x_bytes_ = std::uint64_t{cells[1]} * kb * angles * 8;
        y_bytes_ = std::uint64_t{cells[0]} * kb * angles * 8;
        block_work_ = std::uint64_t{cells[0]} * cells[1] * kb * angles * work;
    }
    bool next(std::int32_t rank, Op& op) override {
        State& s = state_[static_cast<std::size_t>(rank)];
        op = Op{};
        const std::int64_t x = rank / py_, y = rank % py_;
        for (;;) {
            if (s.it == iterations_) return false;
            const std::int64_t sx = (s.octant & 1) != 0 ? -1 : 1;
            const std::int64_t sy = (s.octant & 2) != 0 ? -1 : 1;
            const std::int32_t tag = static_cast<std::int32_t>(s.octant) * 2;
            auto at = [&](std::int64_t cx, std::int64_t cy) -> std::int32_t {
                if (cx < 0 || cx >= px_ || cy < 0 || cy >= py_) return -1;
                return static_cast<std::int32_t>(cx * py_ + cy);
            };
            const std::uint8_t phase = s.phase++;
            std::int32_t peer = -1;
            switch (phase) {
                case 0:  // from upstream in x
                    if ((peer = at(x - sx, y)) < 0) continue;
                    op.kind = OpKind::Recv, op.peer = peer, op.tag = tag, op.bytes = x_bytes_;
                    return true;
                case 1:  // from upstream in y
                    if ((peer = at(x, y - sy)) < 0) continue;
                    op.kind = OpKind::Recv, op.peer = peer, op.tag = tag + 1, op.bytes = y_bytes_;
                    return true;
                case 2:
                    compute(op, block_work_);
                    return true;
                case 3:  // downstream in x
                    if ((peer = at(x + sx, y)) < 0) continue;
                    op.kind = OpKind::Send, op.peer = peer, op.tag = tag, op.bytes = x_bytes_;
                    return true;
                case 4:  // downstream in y
                    if ((peer = at(x, y + sy)) < 0) continue;
                    op.kind = OpKind::Send, op.peer = peer, op.tag = tag + 1, op.bytes = y_bytes_;
                    return true;
                default:
                    s.phase = 0;
                    if (++s.block == blocks_) {
                        s.block = 0;
                        if (++s.octant == 8) {
                            s.octant = 0;
                            ++s.it;
                        }
                    }
                    continue;
            }
        }
    }
    ProgramProgress progress() const override { return iterations_done(state_); }

  private:
    struct State {
        std::uint32_t it = 0, block = 0;
        std::uint8_t octant = 0, phase = 0;
    };
    std::int64_t px_, py_;
    std::uint32_t blocks_ = 0;
    std::uint64_t x_bytes_ = 0, y_bytes_ = 0, block_work_ = 0;
    std::vector<State> state_;
};

// ---------------------------------------------------------------------------------------
// Synthetic traffic, `iterations` rounds of `size` bytes:
//   incast       every rank but `root` sends to the root, which receives from all
//   bisection    rank r exchanges (sendrecv) with r + p/2 (the first half with the second)
//   permutation  each rank sends to pi(r) and receives from pi^-1(r), pi a random permutation
//                drawn once from `seed` (the same seed, the same permutation)
enum class Traffic { Incast, Bisection, Permutation };

class TrafficMotif final : public Motif {
  public:
    TrafficMotif(Traffic kind, std::uint64_t size, std::uint64_t iterations, std::int32_t root,
                 std::uint64_t seed, std::uint32_t ranks)
        : Motif(iterations), kind_(kind), size_(size), root_(root), step_(ranks, 0) {
        if (kind != Traffic::Permutation) return;
        to_.resize(ranks);
        std::iota(to_.begin(), to_.end(), 0);
        std::mt19937_64 gen(seed);
        for (std::uint32_t i = ranks; i > 1; --i) {  // Fisher-Yates
            const auto j = static_cast<std::uint32_t>(gen() % i);
            std::swap(to_[i - 1], to_[j]);
        }
        from_.resize(ranks);
        for (std::uint32_t r = 0; r < ranks; ++r)
            from_[static_cast<std::size_t>(to_[r])] = static_cast<std::int32_t>(r);
    }
    bool next(std::int32_t rank, Op& op) override {
        std::uint64_t& k = step_[static_cast<std::size_t>(rank)];
        const auto p = static_cast<std::int32_t>(step_.size());
        op = Op{};
        switch (kind_) {
            case Traffic::Incast: {
                if (rank != root_) {
                    if (k == iterations_) return false;
                    op.kind = OpKind::Send, op.peer = root_, op.bytes = size_;
                    ++k;
                    return true;
                }
                // The root: p - 1 receives and a waitall per round.
                const std::uint64_t per = static_cast<std::uint64_t>(p);
                if (k == iterations_ * per) return false;
                const std::uint64_t i = k++ % per;
                if (i == per - 1) {
                    waitall(op, static_cast<std::uint32_t>(per - 1));
                } else {
                    const auto from = static_cast<std::int32_t>(i) < root_
                                          ? static_cast<std::int32_t>(i)
                                          : static_cast<std::int32_t>(i) + 1;
                    irecv(op, from, 0, size_, static_cast<std::uint32_t>(i));
                }
                return true;
            }
            case Traffic::Bisection: {
                // With an odd count the last rank sits out (its half has no partner).
                const std::int32_t h = p / 2;
                if (k == iterations_ || rank == 2 * h) return false;
                const std::int32_t partner = rank < h ? rank + h : rank - h;
                op.kind = OpKind::Sendrecv;
                op.peer = op.peer2 = partner;
                op.bytes = op.bytes2 = size_;
                ++k;
                return true;
            }
            case Traffic::Permutation: {
                if (k == 3 * iterations_) return false;
                const std::uint64_t i = k++ % 3;
                const auto r = static_cast<std::size_t>(rank);
                if (i == 0) irecv(op, from_[r], 0, size_, 0);
                if (i == 1) isend(op, to_[r], 0, size_, 1);
                if (i == 2) waitall(op, 2);
                return true;
            }
        }
        return false;
    }
    ProgramProgress progress() const override {
        ProgramProgress p;
        for (const std::uint64_t k : step_) p.done += k;
        return p;
    }

  private:
    Traffic kind_;
    std::uint64_t size_;
    std::int32_t root_;
    std::vector<std::uint64_t> step_;
    std::vector<std::int32_t> to_, from_;
};

// ---------------------------------------------------------------------------------------
// Registration.

const ParamInfo kIterations = app_param("iterations", "count", "1", "number of iterations");
const ParamInfo kWork = app_param("work", "count", "100",
                                  "compute per cell (grid point) and iteration, in instructions");
const ParamInfo kValue = app_param("value", "size", "8B", "bytes per cell in a halo message");
const ParamInfo kPeriodic =
    app_param("periodic", "0|1", "1", "1: every dimension of the grid wraps around");

bool periodic(const AppArgs& a) {
    const std::string& v = a.values().at("periodic");
    if (v != "0" && v != "1")
        bad(a, fmt::format("parameter 'periodic' is '{}'; expected 0 or 1", v));
    return v == "1";
}

const ParamInfo kCheckpoint =
    app_param("checkpoint", "count", "0",
              "write a checkpoint after every N-th iteration (0: none; needs a "
              "model with a file system)");
const ParamInfo kCheckpointSize =
    app_param("checkpoint-size", "size", "0B",
              "bytes each rank writes per checkpoint (0: its cells x value)");

// halo2d, halo3d, lqcd (allreduces 0, levels 1), cg (allreduces 2), mg (levels given).
template <std::size_t D>
void add_halo(AppRegistry& registry, const std::string& name, const std::string& help,
              const std::string& cells_default, std::uint32_t allreduces, bool multigrid) {
    const std::string small = D == 2 ? "5" : D == 3 ? "7" : "9";
    const std::string large = D == 2 ? "9" : D == 3 ? "27" : "81";
    std::vector<ParamInfo> params{
        app_param("cells", "AxB...", cells_default,
                  fmt::format("cells per rank in each of the {} dimensions", D)),
        app_param(
            "grid", "auto|AxB...", "auto",
            "process grid (auto: balanced, as MPI_Dims_create); its product is the rank count"),
        kPeriodic,
        kValue,
        kWork,
        kIterations,
        kCheckpoint,
        kCheckpointSize};
    if (allreduces == 0 && !multigrid) {
        params.insert(params.begin() + 2,
                      app_param("stencil", small + "|" + large, small,
                                small + ": the faces' neighbours; " + large + ": every neighbour"));
        params.insert(params.begin() + 3,
                      app_param("allreduce", "count", "0",
                                "an 8-byte MPI_Allreduce after every N-th iteration (a residual; "
                                "0: none)"));
    }
    if (multigrid)
        params.insert(params.begin() + 2,
                      app_param("levels", "count", "4",
                                "levels of the V-cycle (each halves every dimension's cells)"));
    registry.add(
        AppInfo{name, help, params, 1,
                [small, large, allreduces, multigrid](const AppArgs& a,
                                                      std::uint32_t ranks) -> std::unique_ptr<App> {
                    HaloSpec spec;
                    spec.cells = parse_extent(a, "cells", D);
                    if (allreduces == 0 && !multigrid) {
                        const std::string& st = a.values().at("stencil");
                        if (st != small && st != large)
                            bad(a, fmt::format("parameter 'stencil' is '{}'; expected {} or {}", st,
                                               small, large));
                        spec.full = st == large;
                        spec.allreduce_every = a.count("allreduce");
                    }
                    if (multigrid) {
                        const std::uint64_t levels = a.count("levels");
                        if (levels == 0 || levels > 16)
                            bad(a, fmt::format("levels={}: expected 1 to 16", levels));
                        spec.levels = static_cast<std::uint32_t>(levels);
                    }
                    std::uint64_t n = 1;
                    for (const std::uint32_t c : spec.cells)
                        n = checked_product(a, {n, c}, "the cells per rank");
                    spec.work = a.count("work");
                    spec.value = a.size("value");
                    checked_product(a, {n, spec.work}, "the compute per iteration");
                    checked_product(a, {n, spec.value}, "a halo message");
                    spec.checkpoint = a.count("checkpoint");
                    spec.checkpoint_bytes = a.size("checkpoint-size");
                    if (spec.checkpoint_bytes == 0) spec.checkpoint_bytes = n * spec.value;
                    checked_product(a, {spec.checkpoint_bytes, ranks}, "the checkpoint file");
                    spec.grid = process_grid(a, ranks, D);
                    spec.periodic = periodic(a);
                    spec.iterations = a.count("iterations");
                    spec.allreduces = allreduces;
                    return std::make_unique<HaloMotif<D>>(std::move(spec), ranks);
                }});
}

}  // namespace

std::vector<std::uint32_t> balanced_grid(std::uint32_t ranks, std::size_t d) {
    std::vector<std::uint32_t> primes;
    std::uint32_t n = ranks;
    for (std::uint32_t f = 2; f * f <= n; ++f)
        while (n % f == 0) primes.push_back(f), n /= f;
    if (n > 1) primes.push_back(n);
    std::vector<std::uint32_t> grid(d, 1);
    // The largest factors first, each to the dimension with the smallest product so far.
    for (auto it = primes.rbegin(); it != primes.rend(); ++it)
        *std::min_element(grid.begin(), grid.end()) *= *it;
    std::sort(grid.rbegin(), grid.rend());
    return grid;
}

void register_motif_apps(AppRegistry& registry) {
    add_halo<2>(registry, "halo2d", "nearest-neighbour halo exchange on a 2-D grid (5 or 9 points)",
                "256x256", 0, false);
    add_halo<3>(registry, "halo3d",
                "nearest-neighbour halo exchange on a 3-D grid (7 or 27 points)", "32x32x32", 0,
                false);
    add_halo<4>(registry, "lqcd",
                "lattice QCD: halo exchange of a 4-D lattice's faces (value: bytes per site)",
                "8x8x8x8", 0, false);
    add_halo<3>(registry, "cg",
                "conjugate gradient: a 7-point 3-D halo and two 8-byte allreduces per iteration",
                "32x32x32", 2, false);
    add_halo<3>(registry, "mg",
                "multigrid V-cycle: 7-point halos on `levels` levels down and up, an 8-byte "
                "allreduce at the coarsest",
                "64x64x64", 0, true);

    registry.add(AppInfo{
        "fft3d",
        "3-D FFT on a 2-D pencil grid: two transposes (alltoalls in rows and columns) per "
        "iteration",
        {app_param("n", "count", "256", "global grid points per dimension (n^3 complex values)"),
         app_param("grid", "auto|AxB", "auto", "process grid rows x columns (auto: balanced)"),
         app_param("work", "count", "50", "instructions per local point and FFT pass"),
         kIterations},
        1,
        [](const AppArgs& a, std::uint32_t ranks) -> std::unique_ptr<App> {
            const std::vector<std::uint32_t> g = process_grid(a, ranks, 2);
            const std::uint64_t n = a.count("n");
            if (n < g[0] || n < g[1])
                bad(a, fmt::format("n={} has fewer rows than the grid {}x{} has ranks in a "
                                   "dimension: some ranks would hold no pencil",
                                   n, g[0], g[1]));
            // Blocks of ceil(n / ranks) rows, as FFTW's MPI transposes pad them: exact when
            // the grid divides n.
            const std::uint64_t points = checked_product(
                a, {n, (n + g[0] - 1) / g[0], (n + g[1] - 1) / g[1]}, "the points per rank");
            checked_product(a, {points, 16}, "a rank's data");
            checked_product(a, {points, a.count("work")}, "the compute per pass");
            return std::make_unique<Fft3dMotif>(g[0], g[1], points, a.count("work"),
                                                a.count("iterations"), ranks);
        }});

    registry.add(AppInfo{
        "sweep3d",
        "KBA wavefront sweep (discrete ordinates): 8 octants of pipelined blocks on a 2-D grid",
        {app_param("cells", "AxBxC", "16x16x64", "cells per rank (x, y, z)"),
         app_param("grid", "auto|AxB", "auto", "process grid in x and y (auto: balanced)"),
         app_param("kb", "count", "8", "planes of z per block"),
         app_param("angles", "count", "6", "angles per group"),
         app_param("work", "count", "20", "instructions per cell and angle"), kIterations},
        1,
        [](const AppArgs& a, std::uint32_t ranks) -> std::unique_ptr<App> {
            const std::vector<std::uint32_t> g = process_grid(a, ranks, 2);
            std::vector<std::uint32_t> cells = parse_extent(a, "cells", 3);
            const std::uint64_t kb = a.count("kb"), angles = a.count("angles");
            if (kb == 0 || kb > cells[2])
                bad(a, fmt::format("kb={}: expected 1 to the {} planes of z", kb, cells[2]));
            if (angles == 0 || angles > 4096)
                bad(a, fmt::format("angles={}: expected 1 to 4096", angles));
            checked_product(a, {cells[0], cells[1], kb, angles, a.count("work")},
                            "the compute per block");
            return std::make_unique<Sweep3dMotif>(
                g[0], g[1], std::move(cells), static_cast<std::uint32_t>(kb),
                static_cast<std::uint32_t>(angles), a.count("work"), a.count("iterations"), ranks);
        }});

    add_nbody(registry);
    registry.add(AppInfo{
        "incast",
        "every rank but the root sends `size` to the root, `iterations` rounds",
        {app_param("size", "size", "", "message size"), kIterations,
         app_param("root", "count", "0", "the receiving rank")},
        2,
        [](const AppArgs& a, std::uint32_t ranks) -> std::unique_ptr<App> {
            const std::uint64_t root = a.count("root");
            if (root >= ranks)
                bad(a, fmt::format("root {} is out of range for {} ranks", root, ranks));
            return std::make_unique<TrafficMotif>(Traffic::Incast, a.size("size"),
                                                  a.count("iterations"),
                                                  static_cast<std::int32_t>(root), 0, ranks);
        }});
    registry.add(
        AppInfo{"bisection",
                "rank r < p/2 exchanges `size` with r + p/2 (sendrecv; an odd count's last rank "
                "sits out), `iterations` rounds",
                {app_param("size", "size", "", "message size"), kIterations},
                2,
                [](const AppArgs& a, std::uint32_t ranks) -> std::unique_ptr<App> {
                    return std::make_unique<TrafficMotif>(Traffic::Bisection, a.size("size"),
                                                          a.count("iterations"), 0, 0, ranks);
                }});
    registry.add(AppInfo{"permutation",
                         "each rank sends `size` to its image under a seeded random permutation",
                         {app_param("size", "size", "", "message size"), kIterations,
                          app_param("seed", "count", "1", "the permutation's seed")},
                         2,
                         [](const AppArgs& a, std::uint32_t ranks) -> std::unique_ptr<App> {
                             return std::make_unique<TrafficMotif>(
                                 Traffic::Permutation, a.size("size"), a.count("iterations"), 0,
                                 a.count("seed"), ranks);
                         }});
}

}  // namespace clustersim::mpi
