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
//  pipeline     Open MPI pipeline: a chain of relative ranks toward the root, the vector cut
//               into `segment`-byte pieces. The last rank sends segment k in step k; a middle
//               rank receives segment k from vr + 1 and combines it while forwarding segment
//               k - 1 to vr - 1; the root receives and combines segment k in step k.
//               (p - 1) (T(s) + R(s)) + (n - 1) max(S(s), R(s)) for n equal segments s.
//  knomial      mirror of the radix-4 knomial bcast (MPICH's knomial tree): receive and
//               combine the up to 3 children of each level, lowest level first, in one step
//               per level, then send to the parent.
//  chain        Open MPI chain (fan-out 4): the mirror of bcast/chain; 4 chains of relative
//               ranks each run the pipeline toward their head, the root receives and
//               combines segment k from every head in step k.
#include <algorithm>

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

class PipelineReduce final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (a.size < 2) return false;
        const Segments segs(a);
        const std::uint64_t seg = segs.seg, n = segs.count();
        auto size = [&](std::uint64_t i) { return segs.size(i); };
        const std::int32_t vr = a.relative(a.rank);
        const std::int32_t next = a.absolute((vr + 1) % a.size);
        const std::int32_t prev = a.absolute(vr - 1 + (vr == 0 ? a.size : 0));
        if (vr == a.size - 1) {  // the chain's end: segment k in step k
            if (k >= n) return false;
            s.send(prev, size(k), k * seg);
            return true;
        }
        if (k > n || (vr == 0 && k == n)) return false;
        if (k < n) {
            s.recv(next, size(k), k * seg);
            s.reduce_bytes = size(k);
        }
        if (vr > 0 && k > 0) s.send(prev, size(k - 1), (k - 1) * seg);
        return true;
    }
};

class KnomialReduce final : public Algorithm {
  public:
    static constexpr std::int32_t kRadix = 4;
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t vr = a.relative(a.rank), p = a.size;
        const std::int64_t mask = knomial_level(vr, p, kRadix);  // >= p for the root
        for (std::int64_t m = 1; m < mask; m *= kRadix) {
            if (vr + m >= p) break;  // no child at this level or above
            if (k == 0) {
                for (std::int64_t j = 1; j < kRadix && vr + j * m < p; ++j) {
                    s.recv(a.absolute(static_cast<std::int32_t>(vr + j * m)), a.bytes);
                    s.reduce_bytes += a.bytes;
                }
                return true;
            }
            --k;
        }
        if (k > 0 || vr == 0) return false;
        s.send(a.absolute(static_cast<std::int32_t>(vr - (vr / mask) % kRadix * mask)), a.bytes);
        return true;
    }
};

class ChainReduce final : public Algorithm {
  public:
    static constexpr std::int32_t kFanout = 4;
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, vr = a.relative(a.rank);
        if (p < 2) return false;
        const Segments segs(a);
        const std::uint64_t seg = segs.seg, n = segs.count();
        auto size = [&](std::uint64_t i) { return segs.size(i); };
        const std::int32_t chains = std::min(kFanout, p - 1);
        auto start = [&](std::int32_t c) { return 1 + (p - 1) * c / chains; };
        if (vr == 0) {  // segment k from every head
            if (k >= n) return false;
            for (std::int32_t c = 0; c < chains; ++c) {
                s.recv(a.absolute(start(c)), size(k), k * seg);
                s.reduce_bytes += size(k);
            }
            return true;
        }
        std::int32_t c = 0;
        while (start(c + 1) <= vr) ++c;
        const std::int32_t prev = vr == start(c) ? 0 : vr - 1;
        if (vr + 1 == start(c + 1)) {  // the chain's tail
            if (k >= n) return false;
            s.send(a.absolute(prev), size(k), k * seg);
            return true;
        }
        if (k > n) return false;
        if (k < n) {
            s.recv(a.absolute(vr + 1), size(k), k * seg);
            s.reduce_bytes = size(k);
        }
        if (k > 0) s.send(a.absolute(prev), size(k - 1), (k - 1) * seg);
        return true;
    }
};

}  // namespace

std::shared_ptr<const Algorithm> make_knomial_reduce() {
    return std::make_shared<KnomialReduce>();
}

std::shared_ptr<const Algorithm> make_linear_reduce() {
    return std::make_shared<LinearReduce>();
}

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
    r.add(CollOp::Reduce, "pipeline",
          "chain toward the root, `segment`-byte pieces overlapping (Open MPI pipeline)",
          std::make_shared<PipelineReduce>());
    r.add(CollOp::Reduce, "knomial", "radix-4 k-nomial tree, mirror of bcast/knomial (MPICH)",
          make_knomial_reduce());
    r.add(CollOp::Reduce, "chain", "4 pipelined chains toward the root (Open MPI chain)",
          std::make_shared<ChainReduce>());
}

}  // namespace clustersim::mpi::alg
