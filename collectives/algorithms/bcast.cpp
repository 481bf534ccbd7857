// Broadcast algorithms (root holds `bytes`; every other rank receives them). vr is the rank
// relative to the root.
//
//  linear      the root sends to every other rank at once (one step).
//  binomial    MPICH's binomial tree: vr receives from vr - 2^j (its lowest set bit), then
//              sends to vr + 2^i for decreasing i below that bit, one send per step.
//              ceil(log2 p) * (alpha + m / beta) on a uniform network.
//  binary_tree        PIOsimHD: heap-ordered binary tree over relative ranks (parent
//                     (vr - 1) / 2, children 2 vr + 1 and 2 vr + 2): receive from the parent,
//                     then send to both children concurrently in one step.
//  pipelined_chain    chain 0 -> 1 -> ... -> p-1 over relative ranks, the message cut into
//                     segments of `segment` bytes (the last one shorter; an empty message is
//                     one empty segment). A middle rank receives segment 0, then forwards
//                     segment k-1 while receiving segment k, then forwards the last one.
//                     (p - 1) (alpha + s / beta) + (n - 1) s / beta for n equal segments s.
//  scatter_allgather  van de Geijn / MPICH long messages: the message is split into p
//                     blocks (bytes / p each, one more byte for the first bytes % p); a
//                     binomial scatter sends every rank its subtree's blocks, then a ring
//                     allgather over relative ranks runs p - 1 steps: in step k, vr sends
//                     block (vr - k) mod p to vr + 1 and receives block (vr - k - 1) mod p
//                     from vr - 1.
//  knomial            Open MPI 4.1 knomial (radix 4) / MPICH's knomial: vr's parent is vr minus
//                     its lowest non-zero base-4 digit; after receiving, vr sends to its
//                     children level by level from the highest, the up to 3 children of a
//                     level (vr + j 4^i, j = 1..3) in one step. ceil(log4 p) levels.
//  pipeline           Open MPI pipeline: the chain of relative ranks, `segment`-byte pieces,
//                     as a dependency graph (segmented_tree_step): a middle rank forwards
//                     segment k as soon as it has arrived, with two receives posted ahead.
//                     Eager: as pipelined_chain; rendezvous: the handshakes overlap.
//  chain              Open MPI chain (fanout 4): the other ranks form 4 chains of relative
//                     ranks (as equal as possible) fed by the root, each a pipeline.
//  pipelined_binary_tree  Open MPI binary_tree (segmented): the heap-ordered binary tree,
//                     each rank forwarding segment k to both children once it has arrived.
//  split_binary_tree  Open MPI split_binary_tree (unsegmented): the message is cut in halves
//                     A (the first ceil(m/2) bytes) and B; the odd relative ranks form a
//                     binary tree under the root that broadcasts A (member i = 2i+1, its
//                     children members 2i+1 and 2i+2), the even ones (i = 2i+2) one that
//                     broadcasts B, each node sending both children in one step; then each
//                     odd vr exchanges its half with vr + 1; an odd last rank without a
//                     partner gets B from the root.
//  scatter_rd_allgather  MPICH medium messages / Open MPI scatter_allgather: the binomial
//                     scatter of p blocks as scatter_allgather, then the recursive-doubling
//                     allgather of the blocks over relative ranks (rd_allgather_step).
#include <algorithm>

#include "collectives/algorithms/common.hpp"
#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi::alg {
namespace {

class LinearBcast final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (k > 0) return false;
        if (a.rank == a.root) {
            for (std::int32_t r = 0; r < a.size; ++r)
                if (r != a.root) s.send(r, a.bytes);
        } else {
            s.recv(a.root, a.bytes);
        }
        return true;
    }
};

}  // namespace

// Binomial tree over relative ranks, shared with other files: the receive step (if vr > 0)
// followed by one send per step. `bytes_for(child_vr, subtree_size)` says what moves.
bool binomial_down(const CollArgs& a, std::uint32_t k, Step& s,
                   Piece (*what)(const CollArgs&, std::int32_t, std::int32_t)) {
    const std::int32_t vr = a.relative(a.rank);
    std::int32_t mask = 1;
    while (mask < a.size && !(vr & mask)) mask <<= 1;
    // mask: vr's lowest set bit (or >= size for the root).
    std::uint32_t step = 0;
    if (vr != 0) {
        if (k == 0) {
            const Piece x = what(a, vr, std::min(mask, a.size - vr));
            s.recv(a.absolute(vr - mask), x.bytes, x.offset);
            return true;
        }
        step = 1;
    }
    // Sends to vr + m for m = mask/2, mask/4, ... 1 that exist.
    for (std::int32_t m = mask >> 1; m > 0; m >>= 1) {
        if (vr + m >= a.size) continue;
        if (step == k) {
            const Piece x = what(a, vr + m, std::min(m, a.size - vr - m));
            s.send(a.absolute(vr + m), x.bytes, x.offset);
            return true;
        }
        ++step;
    }
    return false;
}

namespace {
Piece whole_buffer(const CollArgs& a, std::int32_t, std::int32_t) {
    return Piece{0, a.bytes};
}

class BinomialBcast final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        return binomial_down(a, k, s, whole_buffer);
    }
};

class BinaryTreeBcast final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t vr = a.relative(a.rank), left = 2 * vr + 1, right = 2 * vr + 2;
        if (vr > 0) {
            if (k == 0) {
                s.recv(a.absolute((vr - 1) / 2), a.bytes);
                return true;
            }
            --k;
        }
        if (k > 0 || left >= a.size) return false;
        s.send(a.absolute(left), a.bytes);
        if (right < a.size) s.send(a.absolute(right), a.bytes);
        return true;
    }
};

class PipelinedChainBcast final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (a.size < 2) return false;
        const Segments segs(a);
        const std::uint64_t seg = segs.seg, n = segs.count();
        auto size = [&](std::uint64_t i) { return segs.size(i); };
        const std::int32_t vr = a.relative(a.rank);
        const std::int32_t next = a.absolute(vr + 1), prev = a.absolute(vr - 1 + a.size);
        if (vr == 0) {  // segment k in step k
            if (k >= n) return false;
            s.send(next, size(k), k * seg);
        } else if (vr == a.size - 1) {  // segment k in step k
            if (k >= n) return false;
            s.recv(prev, size(k), k * seg);
        } else {  // receive segment k while forwarding segment k - 1
            if (k > n) return false;
            if (k > 0) s.send(next, size(k - 1), (k - 1) * seg);
            if (k < n) s.recv(prev, size(k), k * seg);
        }
        return true;
    }
};

// Block i (relative) of the message split into p nearly equal blocks, and the sum of
// blocks [first, first + n).
std::uint64_t split_block(const CollArgs& a, std::int32_t i) {
    const auto p = static_cast<std::uint64_t>(a.size);
    return a.bytes / p + (static_cast<std::uint64_t>(i) < a.bytes % p ? 1 : 0);
}
std::uint64_t split_blocks_bytes(const CollArgs& a, std::int32_t first, std::int32_t n) {
    const auto p = static_cast<std::int64_t>(a.size);
    const auto extra = static_cast<std::int64_t>(a.bytes % static_cast<std::uint64_t>(p));
    const std::int64_t with_extra =
        std::max<std::int64_t>(0, std::min<std::int64_t>(first + n, extra) - first);
    return a.bytes / static_cast<std::uint64_t>(p) * static_cast<std::uint64_t>(n) +
           static_cast<std::uint64_t>(with_extra);
}

Piece split_blocks(const CollArgs& a, std::int32_t first, std::int32_t n) {
    return Piece{split_blocks_bytes(a, 0, first), split_blocks_bytes(a, first, n)};
}

// Steps of binomial_down for a.rank: the receive (unless the root) and one per child.
std::uint32_t binomial_down_steps(const CollArgs& a) {
    const std::int32_t vr = a.relative(a.rank);
    std::int32_t mask = 1;
    while (mask < a.size && !(vr & mask)) mask <<= 1;
    std::uint32_t steps = vr != 0 ? 1 : 0;
    for (std::int32_t m = mask >> 1; m > 0; m >>= 1)
        if (vr + m < a.size) ++steps;
    return steps;
}

class ScatterAllgatherBcast final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (binomial_down(a, k, s, split_blocks)) return true;
        const std::uint32_t j = k - binomial_down_steps(a);  // ring step
        const std::int32_t p = a.size;
        if (j + 1 >= static_cast<std::uint32_t>(p)) return false;
        const std::int32_t vr = a.relative(a.rank), jj = static_cast<std::int32_t>(j);
        const std::int32_t out = ((vr - jj) % p + p) % p, in = ((vr - jj - 1) % p + p) % p;
        s.send(a.absolute((vr + 1) % p), split_block(a, out), split_blocks_bytes(a, 0, out));
        s.recv(a.absolute((vr - 1 + p) % p), split_block(a, in), split_blocks_bytes(a, 0, in));
        return true;
    }
};
class KnomialBcast final : public Algorithm {
  public:
    static constexpr std::int32_t kRadix = 4;
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t vr = a.relative(a.rank), p = a.size;
        const std::int64_t mask = knomial_level(vr, p, kRadix);  // >= p for the root
        if (vr != 0) {
            if (k == 0) {
                s.recv(a.absolute(static_cast<std::int32_t>(vr - (vr / mask) % kRadix * mask)),
                       a.bytes);
                return true;
            }
            --k;
        }
        for (std::int64_t m = mask / kRadix; m > 0; m /= kRadix) {
            if (vr + m >= p) continue;  // no child at this level
            if (k == 0) {
                for (std::int64_t j = 1; j < kRadix && vr + j * m < p; ++j)
                    s.send(a.absolute(static_cast<std::int32_t>(vr + j * m)), a.bytes);
                return true;
            }
            --k;
        }
        return false;
    }
};

// One rank of a segmented pipeline down a tree, as a dependency graph (collective.hpp,
// Transfer::after), as Open MPI's segmented bcasts run: the root sends segment k to all its
// children in step k; a rank with a parent receives segment k in step k (waiting for
// nothing) and from step 1 on sends segment k-1 to its children as soon as its receive of
// the step before has completed, while its sends of segment k-2 may still be in flight.
// parent: the parent's relative rank (-1: the root); children: relative ranks.
bool segmented_tree_step(const CollArgs& a, std::uint32_t k, Step& s, std::int32_t parent,
                         const std::int32_t* children, std::int32_t nchildren) {
    if (a.size < 2) return false;
    const Segments segs(a);
    const std::uint64_t seg = segs.seg, n = segs.count();
    auto size = [&](std::uint64_t i) { return segs.size(i); };
    if (parent < 0) {
        if (k >= n) return false;
        for (std::int32_t c = 0; c < nchildren; ++c) {
            s.send(a.absolute(children[c]), size(k), k * seg);
            s.after(kAfterNothing);
        }
        return true;
    }
    if (k > n || (nchildren == 0 && k == n)) return false;
    if (k < n) {
        s.recv(a.absolute(parent), size(k), k * seg);
        s.after(kAfterNothing);
    }
    if (k > 0)
        for (std::int32_t c = 0; c < nchildren; ++c) {
            s.send(a.absolute(children[c]), size(k - 1), (k - 1) * seg);
            s.after(0);  // the receive of segment k-1
        }
    return true;
}

class ChainBcast final : public Algorithm {
  public:
    static constexpr std::int32_t kFanout = 4;
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, vr = a.relative(a.rank);
        if (p < 2) return false;
        const std::int32_t chains = std::min(kFanout, p - 1);
        // Chain c holds relative ranks [start(c), start(c + 1)).
        auto start = [&](std::int32_t c) { return 1 + (p - 1) * c / chains; };
        std::int32_t children[kFanout];
        if (vr == 0) {
            for (std::int32_t c = 0; c < chains; ++c) children[c] = start(c);
            return segmented_tree_step(a, k, s, -1, children, chains);
        }
        std::int32_t c = 0;
        while (start(c + 1) <= vr) ++c;
        children[0] = vr + 1;
        return segmented_tree_step(a, k, s, vr == start(c) ? 0 : vr - 1, children,
                                   vr + 1 < start(c + 1) ? 1 : 0);
    }
};

class PipelineBcast final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t vr = a.relative(a.rank), next = vr + 1;
        return segmented_tree_step(a, k, s, vr - 1, &next, next < a.size ? 1 : 0);
    }
};

class PipelinedBinaryTreeBcast final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t vr = a.relative(a.rank);
        const std::int32_t children[2] = {2 * vr + 1, 2 * vr + 2};
        const std::int32_t n = children[0] >= a.size ? 0 : children[1] >= a.size ? 1 : 2;
        return segmented_tree_step(a, k, s, vr == 0 ? -1 : (vr - 1) / 2, children, n);
    }
};

class SplitBinaryTreeBcast final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, vr = a.relative(a.rank);
        const std::uint64_t half_a = (a.bytes + 1) / 2, half_b = a.bytes - half_a;
        const bool lonely_last = p % 2 == 0;  // vr = p - 1 is odd and has no vr + 1
        if (vr == 0) {
            if (k == 0 && p > 1) {
                s.send(a.absolute(1), half_a, 0);
                if (p > 2) s.send(a.absolute(2), half_b, half_a);
                return true;
            }
            if (k == 1 && lonely_last) {
                s.send(a.absolute(p - 1), half_b, half_a);
                return true;
            }
            return false;
        }
        const bool left = vr % 2 == 1;
        const std::int32_t i = (vr - 1) / 2;  // index within its tree
        const std::uint64_t mine = left ? half_a : half_b, offset = left ? 0 : half_a;
        auto member = [&](std::int32_t j) { return left ? 2 * j + 1 : 2 * j + 2; };
        if (k == 0) {
            s.recv(a.absolute(i == 0 ? 0 : member((i - 1) / 2)), mine, offset);
            return true;
        }
        --k;
        const std::int32_t c1 = member(2 * i + 1), c2 = member(2 * i + 2);
        if (c1 < p) {
            if (k == 0) {
                s.send(a.absolute(c1), mine, offset);
                if (c2 < p) s.send(a.absolute(c2), mine, offset);
                return true;
            }
            --k;
        }
        if (k > 0) return false;
        if (left && vr + 1 < p) {  // swap halves with the partner
            s.send(a.absolute(vr + 1), half_a, 0);
            s.recv(a.absolute(vr + 1), half_b, half_a);
        } else if (!left) {
            s.send(a.absolute(vr - 1), half_b, half_a);
            s.recv(a.absolute(vr - 1), half_a, 0);
        } else {  // the odd last rank: B from the root
            s.recv(a.absolute(0), half_b, half_a);
        }
        return true;
    }
};

class ScatterRdAllgatherBcast final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (binomial_down(a, k, s, split_blocks)) return true;
        return rd_allgather_step(
            a.size, a.relative(a.rank), k - binomial_down_steps(a), s,
            [&](std::int32_t first, std::int32_t n) {
                first %= a.size;
                // Members first .. first + n - 1, wrapping past the last relative rank.
                const std::int32_t head = std::min(n, a.size - first);
                return Piece{
                    split_blocks_bytes(a, 0, first),
                    split_blocks_bytes(a, first, head) + split_blocks_bytes(a, 0, n - head)};
            },
            [&](std::int32_t i) { return a.absolute(i); });
    }
};

}  // namespace

std::shared_ptr<const Algorithm> make_knomial_bcast() {
    return std::make_shared<KnomialBcast>();
}

std::shared_ptr<const Algorithm> make_linear_bcast() {
    return std::make_shared<LinearBcast>();
}

std::shared_ptr<const Algorithm> make_binomial_bcast() {
    return std::make_shared<BinomialBcast>();
}

void register_bcast(CollectiveRegistry& r) {
    r.add(CollOp::Bcast, "linear", "root sends to all at once", std::make_shared<LinearBcast>());
    r.add(CollOp::Bcast, "binomial", "binomial tree (MPICH short messages)",
          std::make_shared<BinomialBcast>());
    r.add(CollOp::Bcast, "binary_tree",
          "heap-ordered binary tree, both children in one step (PIOsimHD)",
          std::make_shared<BinaryTreeBcast>());
    r.add(CollOp::Bcast, "pipelined_chain",
          "chain of relative ranks, message cut into `segment`-byte pieces",
          std::make_shared<PipelinedChainBcast>());
    r.add(CollOp::Bcast, "scatter_allgather",
          "binomial scatter of p blocks, then ring allgather (MPICH long messages)",
          std::make_shared<ScatterAllgatherBcast>());
    r.add(CollOp::Bcast, "knomial", "radix-4 k-nomial tree (Open MPI knomial, MPICH knomial)",
          make_knomial_bcast());
    r.add(CollOp::Bcast, "chain",
          "4 pipelined chains fed by the root, `segment`-byte pieces (Open MPI chain)",
          std::make_shared<ChainBcast>());
    r.add(CollOp::Bcast, "pipeline",
          "chain, `segment` pieces forwarded as they arrive (dependency graph; Open MPI pipeline)",
          std::make_shared<PipelineBcast>());
    r.add(CollOp::Bcast, "pipelined_binary_tree",
          "binary tree, `segment` pieces forwarded as they arrive (Open MPI binary_tree)",
          std::make_shared<PipelinedBinaryTreeBcast>());
    r.add(CollOp::Bcast, "split_binary_tree",
          "halves down two binary trees, then swapped between pairs (Open MPI)",
          std::make_shared<SplitBinaryTreeBcast>());
    r.add(CollOp::Bcast, "scatter_rd_allgather",
          "binomial scatter of p blocks, then recursive-doubling allgather (MPICH medium)",
          std::make_shared<ScatterRdAllgatherBcast>());
}

}  // namespace clustersim::mpi::alg
