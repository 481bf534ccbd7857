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
                   std::uint64_t (*bytes_for)(const CollArgs&, std::int32_t, std::int32_t)) {
    const std::int32_t vr = a.relative(a.rank);
    std::int32_t mask = 1;
    while (mask < a.size && !(vr & mask)) mask <<= 1;
    // mask: vr's lowest set bit (or >= size for the root).
    std::uint32_t step = 0;
    if (vr != 0) {
        if (k == 0) {
            s.recv(a.absolute(vr - mask), bytes_for(a, vr, std::min(mask, a.size - vr)));
            return true;
        }
        step = 1;
    }
    // Sends to vr + m for m = mask/2, mask/4, ... 1 that exist.
    for (std::int32_t m = mask >> 1; m > 0; m >>= 1) {
        if (vr + m >= a.size) continue;
        if (step == k) {
            s.send(a.absolute(vr + m), bytes_for(a, vr + m, std::min(m, a.size - vr - m)));
            return true;
        }
        ++step;
    }
    return false;
}

namespace {
std::uint64_t whole_buffer(const CollArgs& a, std::int32_t, std::int32_t) {
    return a.bytes;
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
        const std::uint64_t seg = std::max<std::uint64_t>(a.segment, 1);
        const std::uint64_t n = a.bytes == 0 ? 1 : (a.bytes + seg - 1) / seg;  // segments
        auto size = [&](std::uint64_t i) { return std::min(seg, a.bytes - i * seg); };
        const std::int32_t vr = a.relative(a.rank);
        const std::int32_t next = a.absolute(vr + 1), prev = a.absolute(vr - 1 + a.size);
        if (vr == 0) {  // segment k in step k
            if (k >= n) return false;
            s.send(next, size(k));
        } else if (vr == a.size - 1) {  // segment k in step k
            if (k >= n) return false;
            s.recv(prev, size(k));
        } else {  // receive segment k while forwarding segment k - 1
            if (k > n) return false;
            if (k > 0) s.send(next, size(k - 1));
            if (k < n) s.recv(prev, size(k));
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
std::uint64_t split_blocks(const CollArgs& a, std::int32_t first, std::int32_t n) {
    const auto p = static_cast<std::int64_t>(a.size);
    const auto extra = static_cast<std::int64_t>(a.bytes % static_cast<std::uint64_t>(p));
    const std::int64_t with_extra =
        std::max<std::int64_t>(0, std::min<std::int64_t>(first + n, extra) - first);
    return a.bytes / static_cast<std::uint64_t>(p) * static_cast<std::uint64_t>(n) +
           static_cast<std::uint64_t>(with_extra);
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
        s.send(a.absolute((vr + 1) % p), split_block(a, ((vr - jj) % p + p) % p));
        s.recv(a.absolute((vr - 1 + p) % p), split_block(a, ((vr - jj - 1) % p + p) % p));
        return true;
    }
};
}  // namespace

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
}

}  // namespace clustersim::mpi::alg
