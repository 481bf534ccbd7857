// The nbody motif (collectives/motifs.hpp): the particle exchange of a spatially decomposed
// particle code (LAMMPS, CoMD, the short-range part of HACC; SST Ember has no such motif,
// CODES' LAMMPS skeleton is the nearest). The domain is a periodic 3-D grid of boxes, one a
// rank, `particles` a box. Every iteration each rank computes the forces on its particles
// (`work` instructions a particle: the neighbour-list loop), then sends the particles that
// left its box to the 26 neighbouring boxes and receives those that entered it: to
// neighbour d it sends nbody_count(seed, iteration, rank, d, m) particles of `value` bytes,
// a count drawn uniformly from 0 .. 2m by a hash of (seed, iteration, rank, d), m =
// particles x migrate / 100 / 26 (rounded down): the sizes vary between ranks, directions
// and iterations as a seeded alltoallv's would, and the receiver computes what it receives
// from the same hash. A count of 0 still sends an empty message (the codes send the count
// first). The compute stays `particles` a rank (as many enter a box as leave it on average).
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "collectives/motif_common.hpp"

namespace clustersim::mpi {

std::uint64_t nbody_count(std::uint64_t seed, std::uint64_t iteration, std::uint32_t rank,
                          std::uint32_t direction, std::uint64_t mean) {
    // splitmix64 (Steele, Lea and Flood 2014) over the four inputs, one round each.
    std::uint64_t x = seed;
    for (const std::uint64_t v : {iteration, std::uint64_t{rank}, std::uint64_t{direction}}) {
        x += 0x9e3779b97f4a7c15ULL + v;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        x ^= x >> 31;
    }
    return x % (2 * mean + 1);
}

namespace motif {

class NbodyMotif final : public Motif {
  public:
    struct Spec {
        std::vector<std::uint32_t> grid;
        std::uint64_t particles = 0, value = 0, work = 0, mean = 0, seed = 0, iterations = 0;
    };
    NbodyMotif(const Spec& spec, std::uint32_t ranks)
        : Motif(spec.iterations),
          grid_(spec.grid),
          value_(spec.value),
          work_(spec.particles * spec.work),
          mean_(spec.mean),
          seed_(spec.seed),
          state_(ranks) {
        std::array<std::int64_t, 3> o{-1, -1, -1};
        for (;;) {  // the 26 offsets in {-1, 0, 1}^3 but 0, lexicographically
            if (o[0] != 0 || o[1] != 0 || o[2] != 0) offsets_.push_back(o);
            std::size_t i = 3;
            while (i > 0 && o[i - 1] == 1) o[--i] = -1;
            if (i == 0) break;
            ++o[i - 1];
        }
        for (const auto& off : offsets_)
            opposite_.push_back(static_cast<std::uint32_t>(
                std::find(offsets_.begin(), offsets_.end(),
                          std::array<std::int64_t, 3>{-off[0], -off[1], -off[2]}) -
                offsets_.begin()));
    }

    bool next(std::int32_t rank, Op& op) override {
        State& s = state_[static_cast<std::size_t>(rank)];
        op = Op{};
        if (s.it == iterations_) return false;
        const auto n = static_cast<std::uint32_t>(offsets_.size());
        switch (s.phase) {
            case 0:  // the forces
                compute(op, work_);
                s.phase = 1, s.j = 0;
                return true;
            case 1: {  // from each neighbour: what it sent in the opposite direction
                const std::uint32_t j = s.j++;
                const std::uint32_t from_dir = opposite_[j];
                const std::int32_t peer = neighbour(rank, j);
                irecv(op, peer, static_cast<std::int32_t>(from_dir),
                      value_ * nbody_count(seed_, s.it, static_cast<std::uint32_t>(peer), from_dir,
                                           mean_),
                      j);
                if (s.j == n) s.phase = 2, s.j = 0;
                return true;
            }
            case 2: {
                const std::uint32_t j = s.j++;
                isend(op, neighbour(rank, j), static_cast<std::int32_t>(j),
                      value_ * nbody_count(seed_, s.it, static_cast<std::uint32_t>(rank), j, mean_),
                      n + j);
                if (s.j == n) s.phase = 3;
                return true;
            }
            default:
                waitall(op, 2 * n);
                s.phase = 0;
                ++s.it;
                return true;
        }
    }
    ProgramProgress progress() const override { return iterations_done(state_); }

  private:
    struct State {
        std::uint32_t it = 0;
        std::uint8_t phase = 0, j = 0;
    };
    // The rank at offset j from `rank` on the periodic grid.
    std::int32_t neighbour(std::int32_t rank, std::uint32_t j) const {
        const auto c = coords_of<3>(rank, grid_);
        std::int64_t r = 0;
        for (std::size_t i = 0; i < 3; ++i) {
            const std::int64_t g = grid_[i];
            r = r * g + (c[i] + offsets_[j][i] + g) % g;
        }
        return static_cast<std::int32_t>(r);
    }

    std::vector<std::uint32_t> grid_;
    std::uint64_t value_, work_, mean_, seed_;
    std::vector<std::array<std::int64_t, 3>> offsets_;
    std::vector<std::uint32_t> opposite_;
    std::vector<State> state_;
};

void add_nbody(AppRegistry& registry) {
    registry.add(AppInfo{
        "nbody",
        "particle exchange: forces on `particles` a rank, then a seeded, varying number of "
        "them to each of the 26 neighbours of a periodic 3-D grid",
        {app_param("particles", "count", "4000", "particles per rank (box)"),
         app_param(
             "grid", "auto|AxBxC", "auto",
             "process grid (auto: balanced, as MPI_Dims_create); its product is the rank count"),
         app_param("migrate", "count", "10",
                   "percent of a rank's particles leaving its box an iteration"),
         app_param("value", "size", "48B", "bytes per particle (position and velocity: 6 doubles)"),
         app_param("work", "count", "2000", "instructions per particle and iteration (the forces)"),
         app_param("seed", "count", "1", "seed of the counts sent to each neighbour"),
         app_param("iterations", "count", "1", "number of iterations")},
        1,
        [](const AppArgs& a, std::uint32_t ranks) -> std::unique_ptr<App> {
            NbodyMotif::Spec spec;
            spec.grid = process_grid(a, ranks, 3);
            spec.particles = a.count("particles");
            const std::uint64_t migrate = a.count("migrate");
            if (migrate > 100)
                bad(a, fmt::format("migrate={}: expected a percentage, 0 to 100", migrate));
            checked_product(a, {spec.particles, migrate}, "the particles leaving a rank");
            spec.value = a.size("value");
            spec.work = a.count("work");
            checked_product(a, {spec.particles, spec.work}, "the compute per iteration");
            checked_product(a, {spec.particles, spec.value}, "a rank's particles");
            spec.mean = spec.particles * migrate / 100 / 26;
            spec.seed = a.count("seed");
            spec.iterations = a.count("iterations");
            return std::make_unique<NbodyMotif>(spec, ranks);
        }});
}

}  // namespace motif
}  // namespace clustersim::mpi
