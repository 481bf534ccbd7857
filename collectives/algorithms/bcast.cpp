// Broadcast algorithms (root holds `bytes`; every other rank receives them). vr is the rank
// relative to the root.
//
//  linear      the root sends to every other rank at once (one step).
//  binomial    MPICH's binomial tree: vr receives from vr - 2^j (its lowest set bit), then
//              sends to vr + 2^i for decreasing i below that bit, one send per step.
//              ceil(log2 p) * (alpha + m / beta) on a uniform network.
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
bool binomial_down(const CollArgs& a, std::uint32_t k, Step& s, std::uint64_t (*bytes_for)(const CollArgs&, std::int32_t, std::int32_t)) {
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
std::uint64_t whole_buffer(const CollArgs& a, std::int32_t, std::int32_t) { return a.bytes; }

class BinomialBcast final : public Algorithm {
public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override { return binomial_down(a, k, s, whole_buffer); }
};
}  // namespace

void register_bcast(CollectiveRegistry& r) {
    r.add(CollOp::Bcast, "linear", "root sends to all at once", std::make_shared<LinearBcast>());
    r.add(CollOp::Bcast, "binomial", "binomial tree (MPICH short messages)", std::make_shared<BinomialBcast>());
}

}  // namespace clustersim::mpi::alg
