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
};

class RingAllreduce final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        const auto steps = static_cast<std::uint32_t>(p - 1);
        if (k >= 2 * steps) return false;
        const auto block = [&](std::int32_t i) {
            i = ((i % p) + p) % p;
            const auto up = static_cast<std::uint64_t>(p);
            return a.bytes / up + (static_cast<std::uint64_t>(i) < a.bytes % up ? 1 : 0);
        };
        const std::int32_t next = (r + 1) % p, prev = (r - 1 + p) % p;
        if (k < steps) {  // reduce-scatter
            const auto kk = static_cast<std::int32_t>(k);
            s.send(next, block(r - kk));
            s.recv(prev, block(r - kk - 1));
            s.reduce_bytes = block(r - kk - 1);
        } else {  // allgather
            const auto kk = static_cast<std::int32_t>(k - steps);
            s.send(next, block(r + 1 - kk));
            s.recv(prev, block(r - kk));
        }
        return true;
    }
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
}

}  // namespace clustersim::mpi::alg
