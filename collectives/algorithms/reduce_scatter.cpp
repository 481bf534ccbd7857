// Reduce-scatter algorithms. a.bytes is the block each rank ends with; the vector every rank
// contributes is p blocks (p * bytes), block i ending, fully reduced, at rank i. Each
// received piece is combined into the local partial (reduce_bytes = what was received). m is
// one block, gamma the reduction time per byte. Times are for the uniform star of
// tests/coll_fixtures.hpp: latency L and bandwidth B per link; a message crosses two links,
// holding each for m/B, so alone it takes T(m) = 2L + 2m/B. The root is ignored.
//
//  ring               p-1 steps; in step k (k = 0 .. p-2) rank r sends its partial of
//                     block (r-k-1) mod p to r+1 and receives the partial of block
//                     (r-k-2) mod p from r-1, then adds its own contribution to it. The
//                     partial sent in step k is the one received in step k-1; block i's sum
//                     starts at i+1 (step 0) and travels i+2, ..., so the block received in
//                     the last step, (r-p) mod p = r, is complete at rank r.
//                     (p-1) (2L + 2m/B + m gamma).
//  recursive_halving  p = 2^k: for mask = p/2, p/4, ... 1 rank r exchanges with r ^ mask:
//                     of the current range of 2 mask blocks (the aligned group of ranks
//                     containing r) it sends the half holding the partner's blocks and
//                     receives, then reduces, the half holding its own (mask blocks each).
//                     2L k + (p-1) m (2/B + gamma).
//                     Other p, folded first (MPICH): pof2 = floor_pow2(p), rem = p - pof2.
//                     Step 0: each even rank r < 2 rem sends its whole vector (p blocks) to
//                     r+1, which reduces it, and then only waits for its result. The pof2
//                     survivors (r+1 of those pairs as survivor (r+1)/2, rank r >= 2 rem as
//                     survivor r - rem) halve over survivor numbers; survivor s owns the
//                     blocks of the ranks it stands for: [2s, 2s+2) if s < rem, else
//                     {s + rem}, so an aligned group of survivors owns a contiguous range of
//                     blocks and the ranges cover all p; each halving step moves the blocks
//                     owned by the half the partner keeps. Last, each odd rank r < 2 rem
//                     sends block r-1, complete, to r-1 (no reduction there).
//  pairwise           MPICH long messages (commutative operations): p-1 steps; in step i
//                     rank r sends its contribution to block r+i to r+i and receives r-i's
//                     contribution to block r, combining it. (p-1) (T(m) + R(m)).
//  reduce_scatter     SimGrid's default (equal blocks): a linear reduce of the whole vector
//                     (p blocks) to rank 0, then a linear scatter of block i to rank i.
//                     On the star: 2L + 2 (p-1) p m/B + (p-1) R(p m), then 2L + 2 (p-1) m/B.
#include "collectives/algorithms/common.hpp"
#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi::alg {
namespace {

class RingReduceScatter final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        if (static_cast<std::int64_t>(k) >= p - 1) return false;
        const std::int64_t kk = k;
        s.send(mod(r + 1, p), a.bytes, a.displ(mod(r - kk - 1, p)));  // partial of (r-k-1)
        s.recv(mod(r - 1, p), a.bytes, a.displ(mod(r - kk - 2, p)));  // partial of (r-k-2)
        s.reduce_bytes = a.bytes;
        return true;
    }
};

class RecursiveHalvingReduceScatter final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        const Fold fold(p);
        const std::int32_t pof2 = fold.pof2, rem = fold.rem;
        const std::uint32_t rounds = ceil_log2(pof2);
        const std::uint64_t m = a.bytes, vector = m * static_cast<std::uint64_t>(p);
        if (fold.sits_out(r)) {  // folded: hand over the vector, get block r back
            if (k == 0)
                s.send(r + 1, vector);
            else if (k == 1)
                s.recv(r + 1, m, a.displ(r));
            else
                return false;
            return true;
        }
        const bool paired = r < 2 * rem;
        if (paired) {
            if (k == 0) {
                s.recv(r - 1, vector);
                s.reduce_bytes = vector;
                return true;
            }
            --k;
        }
        if (k < rounds) {
            const std::int32_t sv = fold.survivor(r);
            const std::int32_t mask = pof2 >> (k + 1);
            const std::int32_t mine = sv & ~(mask - 1), theirs = mine ^ mask;
            auto half_bytes = [&](std::int32_t g) {
                return m * static_cast<std::uint64_t>(fold.first(g + mask) - fold.first(g));
            };
            auto half_displ = [&](std::int32_t g) {
                return m * static_cast<std::uint64_t>(fold.first(g));
            };
            const std::int32_t partner = fold.rank_of(sv ^ mask);
            s.send(partner, half_bytes(theirs), half_displ(theirs));
            s.recv(partner, half_bytes(mine), half_displ(mine));
            s.reduce_bytes = half_bytes(mine);
            return true;
        }
        if (paired && k == rounds) {
            s.send(r - 1, m, a.displ(r - 1));
            return true;
        }
        return false;
    }
};

class PairwiseReduceScatter final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        const std::int64_t i = std::int64_t{k} + 1;
        if (i >= p) return false;
        const std::int32_t to = mod(r + i, p), from = mod(r - i, p);
        s.send(to, a.bytes, a.displ(to));
        s.recv(from, a.bytes, a.displ(r));
        s.reduce_bytes = a.bytes;
        return true;
    }
};

class ReduceThenScatter final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        if (p < 2 || k > 1) return false;
        const std::uint64_t all = a.bytes * static_cast<std::uint64_t>(p);
        if (k == 0) {  // the linear reduce of the whole vector to rank 0
            if (r == 0) {
                for (std::int32_t q = 1; q < p; ++q) s.recv(q, all, 0);
                s.reduce_bytes = static_cast<std::uint64_t>(p - 1) * all;
            } else {
                s.send(0, all, 0);
            }
            return true;
        }
        if (r == 0) {  // the linear scatter of the reduced blocks
            for (std::int32_t q = 1; q < p; ++q) s.send(q, a.bytes, a.displ(q));
        } else {
            s.recv(0, a.bytes, a.displ(r));
        }
        return true;
    }
};

}  // namespace

void register_reduce_scatter(CollectiveRegistry& r) {
    auto ring = std::make_shared<RingReduceScatter>();
    auto halving = std::make_shared<RecursiveHalvingReduceScatter>();
    for (CollOp op : {CollOp::ReduceScatter, CollOp::ReduceScatterBlock}) {
        r.add(op, "ring", "p-1 steps passing partial blocks around a ring", ring);
        r.add(op, "recursive_halving",
              "log2 p exchanges with r ^ 2^k, halving the data; other p folded first (MPICH)",
              halving);
        r.add(op, "pairwise", "p-1 steps: own part of block r+i to r+i (MPICH long messages)",
              std::make_shared<PairwiseReduceScatter>());
        r.add(op, "reduce_scatter",
              "linear reduce of the whole vector to rank 0, then linear scatter (SimGrid default)",
              std::make_shared<ReduceThenScatter>());
    }
}

}  // namespace clustersim::mpi::alg
