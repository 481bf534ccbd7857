// Allreduce algorithms (every rank holds a `bytes`-sized vector and ends with the
// combination of all of them). Every receive of a partial vector is followed by reducing
// it: reduce_bytes = the bytes received (none for receives of finished results).
//
//  reduce_bcast        the binomial reduce to rank 0, then the binomial bcast from rank 0:
//                      the reduce/binomial schedule up to its end, then bcast/binomial's.
//  recursive_doubling  MPICH: with pof2 the largest power of two <= p and rem = p - pof2,
//                      the even ranks below 2 rem send their vector to rank + 1 and sit out;
//                      the pof2 others (newrank r / 2 below 2 rem, r - rem above) exchange
//                      the full vector with newrank ^ mask for mask = 1, 2, ... < pof2 (send
//                      and receive in one step, then reduce); finally the odd ranks below
//                      2 rem send the result to the even rank that sat out.
//                      log2(p) (alpha + m / beta + reduction) for a power of two p.
//  ring                reduce-scatter ring, then allgather ring, over the vector split into p
//                      blocks (bytes / p each, one more byte for the first bytes % p): 2 (p-1)
//                      steps. Reduce-scatter step k: rank r sends block (r - k) mod p to r + 1,
//                      receives block (r - k - 1) mod p from r - 1 and reduces it; allgather
//                      step k: sends block (r + 1 - k) mod p, receives block (r - k) mod p.
//                      2 (p - 1) (alpha + m / (p beta)) + (p - 1) reduction(m / p).
//  linear              Open MPI basic_linear: the linear reduce to rank 0, then the linear
//                      bcast from rank 0.
//  linear_reduce_bcast SimGrid's default: the linear reduce to rank 0 (every rank sends its
//                      vector at once, rank 0 receives and reduces them), then the binomial
//                      bcast from rank 0. On the star: 2L + 2 (p-1) m/B + (p-1) R(m), then
//                      ceil(log2 p) (2L + 2m/B).
//  rabenseifner        Open MPI redscat_allgather / MPICH long messages: folded to pof2 as
//                      recursive_doubling; the survivors reduce-scatter the vector, split
//                      into pof2 chunks, by recursive halving (mask pof2/2, pof2/4, ... 1:
//                      keep the half of the current chunk range holding its own chunk,
//                      send the other half to survivor ^ mask, combine what comes back), then
//                      allgather the chunks by recursive doubling; the odd ranks below 2 rem
//                      send the result to the even rank that sat out.
//                      2 log2(p) alpha + 2 (p-1)/p m/beta + (p-1)/p R(m) for p = 2^k.
//  knomial             MPICH's tree allreduce (knomial): the radix-4 knomial reduce to rank 0,
//                      then the radix-4 knomial bcast.
//  segmented_ring      Open MPI ring_segmented: the ring's p blocks are cut into phases of
//                      `segment` bytes; each phase runs the p-1 reduce-scatter steps on its
//                      piece of every block, then p-1 allgather steps move whole blocks.
//
// Buffer copies (Algorithm::buffer_copies, charged with <collectives buffer-copies="yes">),
// as Open MPI 4.1's coll/base runs these algorithms (coll_base_allreduce.c, read, not
// copied), send and receive buffers distinct (traces do not record MPI_IN_PLACE):
//  recursive_doubling  every rank copies its vector into a temporary first (m bytes); the
//                      exchanges alternate between the temporary and the receive buffer
//                      (a rank lower than its partner combines into the buffer it received
//                      in and swaps), so a surviving rank that swapped an even number of
//                      times ends with the result in the temporary and copies it back (m);
//                      the ranks that sat out receive the result in place.
//  ring, segmented_ring, rabenseifner: the send buffer is copied into the receive buffer
//                      first (m), the algorithm works there; nothing after.
//  the others: no copy of their own (their reduce and bcast move the data).
#include <algorithm>
#include <string>
#include <utility>

#include "collectives/algorithms/common.hpp"
#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi::alg {
namespace {

class ReduceBcastAllreduce final : public Algorithm {
  public:
    ReduceBcastAllreduce(std::shared_ptr<const Algorithm> reduce,
                         std::shared_ptr<const Algorithm> bcast)
        : reduce_(std::move(reduce)), bcast_(std::move(bcast)) {}
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        CollArgs b = a;
        b.root = 0;
        b.op = CollOp::Reduce;
        const std::uint32_t reduce_steps = count_steps(*reduce_, b);
        if (k < reduce_steps) return reduce_->step(b, k, s);
        b.op = CollOp::Bcast;
        return bcast_->step(b, k - reduce_steps, s);
    }

  private:
    std::shared_ptr<const Algorithm> reduce_, bcast_;
};

class RecursiveDoublingAllreduce final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const Fold fold(a.size);
        const std::int32_t r = a.rank, pof2 = fold.pof2, rem = fold.rem;
        if (fold.sits_out(r)) {  // sits out: hands its vector over, gets the result
            if (k == 0)
                s.send(r + 1, a.bytes);
            else if (k == 1)
                s.recv(r + 1, a.bytes);
            else
                return false;
            return true;
        }
        if (r < 2 * rem) {  // odd: first combines with the even neighbour
            if (k == 0) {
                s.recv(r - 1, a.bytes);
                s.reduce_bytes = a.bytes;
                return true;
            }
            --k;
        }
        const std::int32_t newrank = fold.survivor(r);
        const std::uint32_t rounds = ceil_log2(pof2);
        if (k < rounds) {
            const std::int32_t partner_new = newrank ^ (std::int32_t{1} << k);
            const std::int32_t partner = fold.rank_of(partner_new);
            s.send(partner, a.bytes);
            s.recv(partner, a.bytes);
            s.reduce_bytes = a.bytes;
            return true;
        }
        if (k == rounds && r < 2 * rem) {  // the result back to the even neighbour
            s.send(r - 1, a.bytes);
            return true;
        }
        return false;
    }
    Copies buffer_copies(const CollArgs& a) const override {
        if (a.size < 2) return {a.bytes, 0};
        const Fold fold(a.size);
        const std::int32_t r = a.rank;
        if (fold.sits_out(r)) return {a.bytes, 0};  // the result arrives in place
        const std::int32_t newrank = fold.survivor(r);
        std::uint32_t swaps = 0;
        for (std::int32_t mask = 1; mask < fold.pof2; mask <<= 1)
            if (r < fold.rank_of(newrank ^ mask)) ++swaps;
        return {a.bytes, swaps % 2 == 0 ? a.bytes : 0};
    }
};

class RingAllreduce final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        const auto steps = static_cast<std::uint32_t>(p - 1);
        if (k >= 2 * steps) return false;
        const auto up = static_cast<std::uint64_t>(p);
        const auto block = [&](std::int32_t i) {
            i = ((i % p) + p) % p;
            return a.bytes / up + (static_cast<std::uint64_t>(i) < a.bytes % up ? 1 : 0);
        };
        const auto offset = [&](std::int32_t i) {
            const auto u = static_cast<std::uint64_t>(((i % p) + p) % p);
            return a.bytes / up * u + std::min(u, a.bytes % up);
        };
        const std::int32_t next = (r + 1) % p, prev = (r - 1 + p) % p;
        if (k < steps) {  // reduce-scatter
            const auto kk = static_cast<std::int32_t>(k);
            s.send(next, block(r - kk), offset(r - kk));
            s.recv(prev, block(r - kk - 1), offset(r - kk - 1));
            s.reduce_bytes = block(r - kk - 1);
        } else {  // allgather
            const auto kk = static_cast<std::int32_t>(k - steps);
            s.send(next, block(r + 1 - kk), offset(r + 1 - kk));
            s.recv(prev, block(r - kk), offset(r - kk));
        }
        return true;
    }
    Copies buffer_copies(const CollArgs& a) const override { return {a.bytes, 0}; }
};

// Offset and size of piece i of `bytes` split into n nearly equal pieces (the first
// bytes % n one byte longer).
Piece split_piece(std::uint64_t bytes, std::int64_t n, std::int64_t i) {
    const auto un = static_cast<std::uint64_t>(n), ui = static_cast<std::uint64_t>(i);
    return Piece{bytes / un * ui + std::min(ui, bytes % un), bytes / un + (ui < bytes % un)};
}

class RabenseifnerAllreduce final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const Fold fold(a.size);
        const std::int32_t r = a.rank, pof2 = fold.pof2, rem = fold.rem;
        const std::uint64_t m = a.bytes;
        if (fold.sits_out(r)) {  // hands its vector over, gets the result
            if (k == 0)
                s.send(r + 1, m);
            else if (k == 1)
                s.recv(r + 1, m);
            else
                return false;
            return true;
        }
        if (r < 2 * rem) {
            if (k == 0) {
                s.recv(r - 1, m);
                s.reduce_bytes = m;
                return true;
            }
            --k;
        }
        const std::int32_t sv = fold.survivor(r);
        const std::uint32_t rounds = ceil_log2(pof2);
        // The chunks [g, g + n) as one piece of the vector.
        auto chunks = [&](std::int32_t g, std::int32_t n) {
            const Piece lo = split_piece(m, pof2, g), hi = split_piece(m, pof2, g + n - 1);
            return Piece{lo.offset, hi.offset + hi.bytes - lo.offset};
        };
        if (k < rounds) {  // recursive halving
            const std::int32_t mask = pof2 >> (k + 1);
            const std::int32_t mine = sv & ~(mask - 1), theirs = mine ^ mask;
            const std::int32_t partner = fold.rank_of(sv ^ mask);
            const Piece out = chunks(theirs, mask), in = chunks(mine, mask);
            s.send(partner, out.bytes, out.offset);
            s.recv(partner, in.bytes, in.offset);
            s.reduce_bytes = in.bytes;
            return true;
        }
        k -= rounds;
        if (k < rounds) {  // recursive doubling of the reduced chunks
            const std::int32_t mask = std::int32_t{1} << k;
            const std::int32_t mine = sv & ~(mask - 1), theirs = mine ^ mask;
            const std::int32_t partner = fold.rank_of(sv ^ mask);
            const Piece out = chunks(mine, mask), in = chunks(theirs, mask);
            s.send(partner, out.bytes, out.offset);
            s.recv(partner, in.bytes, in.offset);
            return true;
        }
        if (k == rounds && r < 2 * rem) {
            s.send(r - 1, m);
            return true;
        }
        return false;
    }
    Copies buffer_copies(const CollArgs& a) const override { return {a.bytes, 0}; }
};

class SegmentedRingAllreduce final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        if (p < 2) return false;
        const auto steps = static_cast<std::uint32_t>(p - 1);
        const std::uint64_t seg = std::max<std::uint64_t>(a.segment, 1);
        const std::uint64_t largest = split_piece(a.bytes, p, 0).bytes;
        const std::uint64_t phases = largest == 0 ? 1 : (largest + seg - 1) / seg;
        const auto mod = [&](std::int64_t i) { return ((i % p) + p) % p; };
        // Phase ph's piece of block i.
        const auto piece = [&](std::int64_t i, std::uint64_t ph) {
            const Piece b = split_piece(a.bytes, p, mod(i));
            const std::uint64_t lo = std::min(b.bytes, ph * seg);
            const std::uint64_t hi = std::min(b.bytes, lo + seg);
            return Piece{b.offset + lo, hi - lo};
        };
        const std::int32_t next = (r + 1) % p, prev = (r - 1 + p) % p;
        if (k < phases * steps) {  // reduce-scatter, phase by phase
            const std::uint64_t ph = k / steps;
            const std::int64_t kk = k % steps;
            const Piece out = piece(r - kk, ph), in = piece(r - kk - 1, ph);
            s.send(next, out.bytes, out.offset);
            s.recv(prev, in.bytes, in.offset);
            s.reduce_bytes = in.bytes;
            return true;
        }
        const std::uint64_t j = k - phases * steps;
        if (j >= steps) return false;
        const auto kk = static_cast<std::int64_t>(j);
        const Piece out = split_piece(a.bytes, p, mod(r + 1 - kk));
        const Piece in = split_piece(a.bytes, p, mod(r - kk));
        s.send(next, out.bytes, out.offset);
        s.recv(prev, in.bytes, in.offset);
        return true;
    }
    Copies buffer_copies(const CollArgs& a) const override { return {a.bytes, 0}; }
};

}  // namespace

void register_allreduce(CollectiveRegistry& r) {
    r.add(CollOp::Allreduce, "reduce_bcast", "binomial reduce to rank 0, then binomial bcast",
          std::make_shared<ReduceBcastAllreduce>(make_binomial_reduce(), make_binomial_bcast()));
    r.add(CollOp::Allreduce, "recursive_doubling",
          "pairwise exchanges of the whole vector (MPICH short messages)",
          std::make_shared<RecursiveDoublingAllreduce>());
    r.add(CollOp::Allreduce, "ring", "reduce-scatter ring then allgather ring (long messages)",
          std::make_shared<RingAllreduce>());
    r.add(CollOp::Allreduce, "linear", "linear reduce to rank 0, linear bcast (Open MPI basic)",
          std::make_shared<ReduceBcastAllreduce>(make_linear_reduce(), make_linear_bcast()));
    r.add(CollOp::Allreduce, "linear_reduce_bcast",
          "linear reduce to rank 0, then binomial bcast (SimGrid default)",
          std::make_shared<ReduceBcastAllreduce>(make_linear_reduce(), make_binomial_bcast()));
    r.add(CollOp::Allreduce, "knomial", "radix-4 knomial reduce to rank 0, knomial bcast (MPICH)",
          std::make_shared<ReduceBcastAllreduce>(make_knomial_reduce(), make_knomial_bcast()));
    r.add(CollOp::Allreduce, "rabenseifner",
          "recursive-halving reduce-scatter, recursive-doubling allgather (MPICH long messages)",
          std::make_shared<RabenseifnerAllreduce>());
    r.add(CollOp::Allreduce, "segmented_ring",
          "ring reduce-scatter in `segment`-byte phases, then ring allgather (Open MPI)",
          std::make_shared<SegmentedRingAllreduce>());
}

}  // namespace clustersim::mpi::alg
