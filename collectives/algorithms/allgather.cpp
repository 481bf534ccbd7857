// Allgather algorithms. The same classes serve allgatherv: a.block(r) is rank r's block
// (counts[r] for allgatherv, the call's bytes otherwise). Every rank ends holding all p
// blocks; m is one block. Times are for the uniform star of tests/coll_fixtures.hpp:
// latency L and bandwidth B per link; a message crosses two links, holding each for m/B, so
// alone it takes T(m) = 2L + 2m/B. The root is ignored.
//
//  ring                p-1 steps; in step k rank r sends block (r-k) mod p to r+1 and
//                      receives block (r-k-1) mod p from r-1, concurrently (the block it
//                      forwards next). (p-1) (2L + 2m/B).
//  recursive_doubling  p = 2^k: for mask = 1, 2, 4, ... rank r exchanges with r ^ mask
//                      everything gathered so far: the blocks of the aligned group of mask
//                      ranks containing r (sent) / the partner (received).
//                      2L k + 2 (p-1) m/B.
//                      Other p, folded as MPICH's allreduce: pof2 = floor_pow2(p),
//                      rem = p - pof2. Step 0: each even rank r < 2 rem sends its block to
//                      r+1 and sits out. The pof2 survivors (r+1 for those pairs, known as
//                      survivor (r+1)/2; rank r >= 2 rem as survivor r - rem) run recursive
//                      doubling over survivor numbers, survivor s contributing the blocks of
//                      the ranks it holds: [2s, 2s+2) if s < rem, else {s + rem}, so an
//                      aligned group of survivors holds a contiguous range of ranks. Last,
//                      each odd rank r < 2 rem sends its partner r-1 every block but the
//                      partner's own (total - block(r-1)). Every rank receives exactly the
//                      p-1 blocks it lacks.
//  bruck               ceil(log2 p) steps; in step k, with d = 2^k, rank r sends the blocks
//                      of the n = min(d, p-d) ranks r, r+1, ... to (r-d) mod p and receives
//                      those of r+d, r+d+1, ... from (r+d) mod p, concurrently: before step
//                      k it holds the blocks of r .. r+d-1 (mod p). The final local rotation
//                      costs nothing. 2L ceil(log2 p) + 2 (p-1) m/B.
#include <algorithm>

#include "collectives/algorithms/common.hpp"
#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi::alg {
namespace {

std::int32_t mod(std::int64_t x, std::int32_t p) {
    return static_cast<std::int32_t>(((x % p) + p) % p);
}

// Blocks of the n ranks first, first+1, ... (absolute ranks, mod p).
std::uint64_t range_blocks(const CollArgs& a, std::int64_t first, std::int32_t n) {
    if (a.counts == nullptr) return a.bytes * static_cast<std::uint64_t>(n);
    std::uint64_t sum = 0;
    for (std::int32_t i = 0; i < n; ++i) sum += a.block(mod(first + i, a.size));
    return sum;
}

class RingAllgather final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        if (static_cast<std::int64_t>(k) >= p - 1) return false;
        s.send(mod(r + 1, p), a.block(mod(std::int64_t{r} - k, p)));
        s.recv(mod(r - 1, p), a.block(mod(std::int64_t{r} - k - 1, p)));
        return true;
    }
};

class BruckAllgather final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        if (k >= ceil_log2(p)) return false;
        const std::int64_t d = std::int64_t{1} << k;
        const auto n = static_cast<std::int32_t>(std::min<std::int64_t>(d, p - d));
        s.send(mod(r - d, p), range_blocks(a, r, n));
        s.recv(mod(r + d, p), range_blocks(a, r + d, n));
        return true;
    }
};

class RecursiveDoublingAllgather final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        const Fold fold(p);
        const std::int32_t pof2 = fold.pof2, rem = fold.rem;
        const std::uint32_t rounds = ceil_log2(pof2);
        if (fold.sits_out(r)) {  // folded: give the block, get everything else back
            if (k == 0)
                s.send(r + 1, a.block(r));
            else if (k == 1)
                s.recv(r + 1, range_blocks(a, 0, p) - a.block(r));
            else
                return false;
            return true;
        }
        const bool paired = r < 2 * rem;
        if (paired) {
            if (k == 0) {
                s.recv(r - 1, a.block(r - 1));
                return true;
            }
            --k;
        }
        if (k < rounds) {
            const std::int32_t sv = fold.survivor(r);
            const std::int32_t mask = std::int32_t{1} << k;
            const std::int32_t mine = sv & ~(mask - 1), theirs = mine ^ mask;
            auto group_blocks = [&](std::int32_t g) {
                const std::int64_t lo = fold.first(g), hi = fold.first(g + mask);
                return range_blocks(a, lo, static_cast<std::int32_t>(hi - lo));
            };
            const std::int32_t partner = fold.rank_of(sv ^ mask);
            s.send(partner, group_blocks(mine));
            s.recv(partner, group_blocks(theirs));
            return true;
        }
        if (paired && k == rounds) {
            s.send(r - 1, range_blocks(a, 0, p) - a.block(r - 1));
            return true;
        }
        return false;
    }
};

}  // namespace

void register_allgather(CollectiveRegistry& r) {
    auto ring = std::make_shared<RingAllgather>();
    auto rd = std::make_shared<RecursiveDoublingAllgather>();
    auto bruck = std::make_shared<BruckAllgather>();
    for (CollOp op : {CollOp::Allgather, CollOp::Allgatherv}) {
        r.add(op, "ring", "p-1 steps passing blocks around a ring (MPICH long messages)", ring);
        r.add(op, "recursive_doubling",
              "log2 p exchanges with r ^ 2^k, doubling the data; other p folded first (MPICH)", rd);
        r.add(op, "bruck", "ceil(log2 p) steps to r - 2^k / from r + 2^k (Bruck et al.)", bruck);
    }
}

}  // namespace clustersim::mpi::alg
