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
//  neighbor_exchange   Open MPI (Chen et al.), even p: step 0 exchanges the own block with
//                      neighbour 0 (r+1 for even r, r-1 for odd); then p/2 - 1 steps
//                      exchange two blocks (an even-aligned pair) alternately with neighbour
//                      1 and neighbour 0, each step sending the pair received in the step
//                      before. p/2 (2L) + 2 (p-1) m/B. Odd p runs the ring, as Open MPI does.
//  linear              Open MPI basic_linear: a linear gather to rank 0, then a linear bcast
//                      of all the blocks.
//  direct              SimGrid's default (its iallgather / iallgatherv): one step in which
//                      every rank sends its block to every other rank and receives theirs.
//                      On the star the p-1 sends share the sender's link and the p-1
//                      receives the receiver's: 2L + 2 (p-1) m/B.
#include <algorithm>

#include "collectives/algorithms/common.hpp"
#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi::alg {
namespace {

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
        // 0 <= r < p and 0 <= k < p - 1, so r - k and r - k - 1 lie in (-p, p): one
        // conditional add replaces the modulo (no division per step; same values as mod()).
        const auto wrap = [p](std::int32_t x) { return x < 0 ? x + p : x; };
        const auto kk = static_cast<std::int32_t>(k);
        const std::int32_t out = wrap(r - kk), in = wrap(r - kk - 1);
        s.send(r + 1 == p ? 0 : r + 1, a.block(out), a.displ(out));
        s.recv(r == 0 ? p - 1 : r - 1, a.block(in), a.displ(in));
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
        s.send(mod(r - d, p), range_blocks(a, r, n), a.displ(r));
        s.recv(mod(r + d, p), range_blocks(a, r + d, n), a.displ(mod(r + d, p)));
        return true;
    }
};

class RecursiveDoublingAllgather final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        return rd_allgather_step(
            a.size, a.rank, k, s,
            [&](std::int32_t first, std::int32_t n) {
                return Piece{a.displ(mod(first, a.size)), range_blocks(a, first, n)};
            },
            [](std::int32_t i) { return i; });
    }
};

class NeighborExchangeAllgather final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        if (p % 2 != 0) return ring_.step(a, k, s);
        if (static_cast<std::int64_t>(k) >= p / 2) return false;
        const bool even = r % 2 == 0;
        const std::int32_t n0 = mod(even ? r + 1 : r - 1, p), n1 = mod(even ? r - 1 : r + 1, p);
        if (k == 0) {
            s.send(n0, a.block(r), a.displ(r));
            s.recv(n0, a.block(n0), a.displ(n0));
            return true;
        }
        // recv_from[i] after step j: even ranks move by +2 (parity 0) / -2 (parity 1), odd
        // ranks the reverse, starting at r (even) or n0 (odd); the pair sent is the one
        // received in the step before (step 1: the rank's own pair).
        const std::int32_t start = even ? r : n0;
        auto recv_from = [&](std::uint32_t j) {  // the pair received in step j >= 1
            // Steps of parity 1 (j odd) use offset +2 for even ranks, -2 for odd: parity 0
            // is neighbour 0's direction.
            const std::int64_t odd_steps = (j + 1) / 2, even_steps = j / 2;
            const std::int64_t d0 = even ? 2 : -2, d1 = -d0;
            return j % 2 == 1 ? mod(start + d1 * odd_steps, p) : mod(start + d0 * even_steps, p);
        };
        const std::int32_t from = recv_from(k);
        const std::int32_t sent = k == 1 ? (even ? r : n0) : recv_from(k - 1);
        const std::int32_t peer = k % 2 == 1 ? n1 : n0;
        s.send(peer, range_blocks(a, sent, 2), a.displ(sent));
        s.recv(peer, range_blocks(a, from, 2), a.displ(from));
        return true;
    }

  private:
    RingAllgather ring_;
};

class LinearAllgather final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        if (p < 2 || k > 1) return false;
        if (k == 0) {
            if (r == 0) {
                for (std::int32_t q = 1; q < p; ++q) s.recv(q, a.block(q), a.displ(q));
            } else {
                s.send(0, a.block(r), a.displ(r));
            }
            return true;
        }
        const std::uint64_t all = range_blocks(a, 0, p);
        if (r == 0) {
            for (std::int32_t q = 1; q < p; ++q) s.send(q, all, 0);
        } else {
            s.recv(0, all, 0);
        }
        return true;
    }
};

class DirectAllgather final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        if (p < 2 || k > 0) return false;
        for (std::int32_t q = 0; q < p; ++q) {
            if (q == r) continue;
            s.send(q, a.block(r), a.displ(r));
            s.recv(q, a.block(q), a.displ(q));
        }
        return true;
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
        r.add(op, "neighbor_exchange",
              "p/2 steps exchanging block pairs with alternate neighbours (Open MPI)",
              std::make_shared<NeighborExchangeAllgather>());
        r.add(op, "linear", "linear gather to rank 0, linear bcast of all (Open MPI basic)",
              std::make_shared<LinearAllgather>());
        r.add(op, "direct", "one step: every rank sends its block to every other (SimGrid default)",
              std::make_shared<DirectAllgather>());
    }
}

}  // namespace clustersim::mpi::alg
