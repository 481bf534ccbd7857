// Trace extrapolation (ScalaExtrap's idea, Wu & Mueller, PPoPP 2011): from traces of one
// SPMD program at a few rank counts, a trace of it at another rank count.
//
// Each rank is placed on a process grid (MPI_Dims_create's grid of d dimensions, d = 1, 2
// or 3), and the ranks fall into classes: all ranks alike, or one class per position in the
// grid (per dimension: first, interior, last). The ranks of a class must have the same
// record sequence in every input: the same length, the same kinds; then every record
// position is fitted field by field:
//
//   peers (peer, peer2, root)      a relation: the same rank everywhere (rank 0, a root), a
//                                  grid offset (+1, (0,-1), ... with wrap-around: a ring's
//                                  rank + 1 mod p) or a distance from the last rank (p - k)
//   counts and sizes               a law of p, exact on every input: constant, c g(p), or
//                                  (three or more scales) a + b g(p), g one of p, 1/p,
//                                  log2 p, p^(1/d), p^(-1/d), or a grid dimension n_i(p) or
//                                  1/n_i(p) (a block's edge under strong scaling); a value
//                                  that also depends on the rank (a file offset) is
//                                  a(p) + b(p) rank, both laws
//   compute (time, instructions)   the class's mean at each p, fitted as constant (weak
//                                  scaling) or c/p (strong scaling), the smaller relative
//                                  residual chosen
//
// and the trace at the target rank count is written from the fits. Anything that does not
// fit is refused with one line naming the input, the rank and the record (traces/README.md,
// "Extrapolation").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traces/trace.hpp"

namespace clustersim::traces {

struct ExtrapolationInput {
    Trace trace;
    std::string label;  // how errors name it: "jacobi-4.cstrace@4"
};

struct ExtrapolateOptions {
    std::uint32_t ranks = 0;  // the target rank count
    int dims = 0;             // the process grid's dimensions (0: try 1, 2, 3)
};

// How well one class of parameters fitted (counts, sizes, peers, compute).
struct ParamFit {
    std::uint64_t fitted = 0;    // record fields fitted (positions x fields x classes)
    std::uint64_t constant = 0;  // of which the same on every rank of every input
    std::vector<std::pair<std::string, std::uint64_t>> laws;  // law -> how many, in first use
    // Counts and sizes: the largest |law - value| over the inputs, in the field's unit (bytes
    // for sizes); always 0, as a law that misses a value is refused. Compute: the relative
    // residual (fitted / measured - 1) over the classes' means, root mean square and largest.
    double rms = 0, worst = 0;
    std::string worst_where;  // "rank class interior, record 12 (compute)"
};

struct Extrapolation {
    Trace trace;
    int dims = 1;
    bool by_position = false;         // classes: grid positions, else one
    std::vector<std::uint32_t> grid;  // the target's
    std::vector<std::vector<std::uint32_t>> input_grids;
    std::vector<std::pair<std::string, std::uint32_t>> classes;  // name, target ranks
    ParamFit counts, sizes, peers, compute;
    std::vector<std::string> notes;
};

// Throws InputError naming the input (its label), rank and record where the structure does
// not follow a fitted law, and naming "--ranks" for a target it cannot place.
Extrapolation extrapolate(const std::vector<ExtrapolationInput>& inputs,
                          const ExtrapolateOptions& options);

// The refusals that come before any fit: fewer than two inputs, two at one rank count, a
// target of 0 or more than kMaxRanks ranks, and records that make or use communicators other
// than MPI_COMM_WORLD or carry count lists (v-collectives): InputError naming the input, the
// rank and the record.
void check_extrapolation_inputs(const std::vector<ExtrapolationInput>& inputs,
                                const ExtrapolateOptions& options);

// MPI_Dims_create(p, d) with no dimension fixed: d factors of p, as close to each other as
// possible, in non-increasing order (16, 2 -> 4x4; 8, 2 -> 4x2; 12, 3 -> 3x2x2).
std::vector<std::uint32_t> dims_create(std::uint32_t p, int d);
// A rank's coordinates on such a grid and back (MPI_Cart_create's numbering: the last
// dimension fastest), and the grid as text ("4x2").
std::vector<std::uint32_t> grid_coords(std::uint32_t rank, const std::vector<std::uint32_t>& dims);
std::uint32_t grid_rank(const std::vector<std::uint32_t>& coords,
                        const std::vector<std::uint32_t>& dims);
std::string grid_text(const std::vector<std::uint32_t>& dims);

// The laws (public for tests). A law is value(p) = a + b g(p); `pure`: a = 0.
// Dim, InvDim: n_i(p) and 1 / n_i(p), n_i the i-th size of dims_create(p, d).
enum class Growth { None, P, InvP, Log2, Root, InvRoot, Dim, InvDim };
struct Law {
    Growth g = Growth::None;
    bool pure = false;
    double a = 0, b = 0;
    int d = 1;     // for Root, InvRoot, Dim, InvDim
    int axis = 0;  // for Dim, InvDim
    double at(double p) const;
    std::string name() const;  // "constant", "c/p", "a + b log2 p", ...
};
// The first law of the ladder (constant; c g(p); with three or more points a + b g(p)) that
// goes through every point (to 1e-9 of its value: rounding error); false if none does.
bool fit_exact(const std::vector<std::pair<double, double>>& points, int d, Law& out);
// Compute: constant or c/p, whichever has the smaller root-mean-square relative residual
// (written to `rms`; the largest to `worst`).
Law fit_compute(const std::vector<std::pair<double, double>>& points, double& rms, double& worst);

}  // namespace clustersim::traces
