// Reduce algorithms (every rank holds a `bytes`-sized vector; the root ends with their
// combination). Every receive of a partial vector is followed by reducing it into the
// rank's own: reduce_bytes = the bytes received. vr is the rank relative to the root.
//
//  linear       the root receives from every other rank in one step and reduces all
//               (p - 1) vectors; the others send theirs.
//  binomial     mirror of the binomial bcast (MPICH): for mask = 1, 2, 4, ...: if vr has
//               the bit, send the partial vector to vr - mask and stop; otherwise receive
//               from vr + mask (if it exists) and reduce. One transfer per step;
//               ceil(log2 p) (alpha + m / beta + reduction) on a uniform network.
//  binary_tree  heap-ordered binary tree over relative ranks (children 2 vr + 1, 2 vr + 2):
//               receive from both children in one step and reduce both, then send to the
//               parent (vr - 1) / 2.
#include "collectives/algorithms/common.hpp"
#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi::alg {
namespace {

class LinearReduce final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (k > 0 || a.size < 2) return false;
        if (a.rank == a.root) {
            for (std::int32_t r = 0; r < a.size; ++r)
                if (r != a.root) s.recv(r, a.bytes);
            s.reduce_bytes = static_cast<std::uint64_t>(a.size - 1) * a.bytes;
        } else {
            s.send(a.root, a.bytes);
        }
        return true;
    }
};

class BinomialReduce final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t vr = a.relative(a.rank);
        std::uint32_t step = 0;  // steps with a transfer so far
        for (std::int32_t mask = 1; mask < a.size; mask <<= 1) {
            if (vr & mask) {
                if (step != k) return false;
                s.send(a.absolute(vr - mask), a.bytes);
                return true;
            }
            if (vr + mask >= a.size) continue;
            if (step == k) {
                s.recv(a.absolute(vr + mask), a.bytes);
                s.reduce_bytes = a.bytes;
                return true;
            }
            ++step;
        }
        return false;
    }
};

class BinaryTreeReduce final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t vr = a.relative(a.rank), left = 2 * vr + 1, right = 2 * vr + 2;
        if (left < a.size) {
            if (k == 0) {
                s.recv(a.absolute(left), a.bytes);
                s.reduce_bytes = a.bytes;
                if (right < a.size) {
                    s.recv(a.absolute(right), a.bytes);
                    s.reduce_bytes += a.bytes;
                }
                return true;
            }
            --k;
        }
        if (k > 0 || vr == 0) return false;
        s.send(a.absolute((vr - 1) / 2), a.bytes);
        return true;
    }
};

}  // namespace

std::shared_ptr<const Algorithm> make_binomial_reduce() {
    return std::make_shared<BinomialReduce>();
}

void register_reduce(CollectiveRegistry& r) {
    r.add(CollOp::Reduce, "linear", "root receives and reduces every vector in one step",
          std::make_shared<LinearReduce>());
    r.add(CollOp::Reduce, "binomial", "binomial tree, mirror of the binomial bcast (MPICH)",
          std::make_shared<BinomialReduce>());
    r.add(CollOp::Reduce, "binary_tree", "heap-ordered binary tree, both children in one step",
          std::make_shared<BinaryTreeReduce>());
}

}  // namespace clustersim::mpi::alg
