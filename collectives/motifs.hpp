// Motif applications (issue 58): the communication skeletons of HPC codes as built-in apps,
// parameterised by rank count, process grid, problem size and compute per cell, so a study
// runs at any rank count (SST Ember's motifs and CODES' synthetic workloads are the models):
//
//   halo2d, halo3d, lqcd   nearest-neighbour exchange on a 2-, 3- or 4-D process grid (5/9,
//                          7/27 and 9-point stencils), optionally periodic
//   cg                     conjugate gradient: a 7-point halo (the SpMV) and two 8-byte
//                          allreduces (the dot products) per iteration
//   mg                     a multigrid V-cycle: halos shrinking level by level, down and up,
//                          and an allreduce at the coarsest level
//   fft3d                  a 3-D FFT on a 2-D pencil decomposition: two transposes per
//                          iteration as alltoalls on the row and column communicators
//   sweep3d                the KBA wavefront of discrete-ordinates transport: 8 octants,
//                          blocks of planes, angle groups, on a 2-D grid
//   nbody                  particle exchange: a seeded, varying number of particles to each of
//                          the 26 neighbours of a periodic 3-D grid (motif_nbody.cpp)
//   incast, bisection, permutation   synthetic traffic: every rank to one, each rank with
//                          its partner across the bisection, a seeded random permutation
//
// Compute is given per cell (or grid point) in instructions, so the core's speed, the CPU
// model and OS jitter act on it; message sizes follow from the problem. The grid motifs can
// write a checkpoint every N iterations through the model's file system (MPI-IO). Each is one class
// and one registration in register_motif_apps; collectives/README.md ("Motifs") gives every
// parameter, the closed forms the tests check and where each motif comes from. The state
// kept per rank is a few words, so a motif runs at a million ranks.
#pragma once

#include "collectives/apps.hpp"

namespace clustersim::mpi {

void register_motif_apps(AppRegistry& registry);

// MPI_Dims_create's balanced grid: `ranks` as `d` factors as close to each other as possible,
// in non-increasing order (12, 2 -> 4 x 3; 16, 3 -> 4 x 2 x 2).
std::vector<std::uint32_t> balanced_grid(std::uint32_t ranks, std::size_t d);

// nbody: the particles rank `rank` sends in `direction` (0-25, the offsets in {-1, 0, 1}^3
// but 0 in lexicographic order) in `iteration`: uniform in 0 .. 2 x mean, from a hash of the
// four (splitmix64), so every receiver knows what it receives.
std::uint64_t nbody_count(std::uint64_t seed, std::uint64_t iteration, std::uint32_t rank,
                          std::uint32_t direction, std::uint64_t mean);

}  // namespace clustersim::mpi
