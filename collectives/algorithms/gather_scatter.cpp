// Gather and scatter algorithms. The same classes serve gatherv and scatterv: a.block(r) is
// rank r's block (counts[r] for the v-variants, the call's bytes otherwise). vr is the rank
// relative to the root; m is one block. Times are for the uniform star of
// tests/coll_fixtures.hpp: latency L and bandwidth B per link; a message crosses two links,
// holding each for m/B, so alone it takes T(m) = 2L + 2m/B.
//
//  linear    gather: one step; the root receives every other rank's block at once, and the
//            blocks queue on the root's link: (p-1) m/B + 2L + m/B.
//            scatter: one step; the root sends every block at once, in relative rank
//            order (vr = 1, 2, ...), so they leave its link one after the other: p m/B + 2L.
//  binomial  gather: the mirror of binomial bcast. For mask = 1, 2, 4, ... (step k has mask
//            2^k): if vr & mask, vr sends everything it has gathered, the blocks of relative
//            ranks [vr, vr + min(mask, p - vr)), to vr - mask and is done; otherwise, if
//            vr + mask < p, it receives that rank's subtree, the blocks of
//            [vr + mask, vr + mask + min(mask, p - vr - mask)); else the step is empty.
//            One transfer per step. scatter: binomial bcast's tree (binomial_down) where
//            each child receives the blocks of its whole subtree. For p = 2^k both take
//            sum_{j<k} T(2^j m) = 2L k + 2 (p-1) m/B.
//  linear_sync  Open MPI linear_sync gather: the root takes the ranks one at a time (relative
//            order): it sends a zero-byte go-ahead, then receives the block's first
//            min(block, 1 KiB) bytes and the rest; a non-root waits for the go-ahead, then
//            sends its first segment and the rest (Open MPI's first-segment size is 1 KiB).
#include <algorithm>

#include "collectives/algorithms/common.hpp"
#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi::alg {
namespace {

class LinearGather final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (k > 0) return false;
        if (a.rank == a.root) {
            for (std::int32_t vr = 1; vr < a.size; ++vr)
                s.recv(a.absolute(vr), a.block(a.absolute(vr)), a.displ(a.absolute(vr)));
        } else {
            s.send(a.root, a.block(a.rank), a.displ(a.rank));
        }
        return true;
    }
};

class LinearScatter final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (k > 0) return false;
        if (a.rank == a.root) {
            for (std::int32_t vr = 1; vr < a.size; ++vr)
                s.send(a.absolute(vr), a.block(a.absolute(vr)), a.displ(a.absolute(vr)));
        } else {
            s.recv(a.root, a.block(a.rank), a.displ(a.rank));
        }
        return true;
    }
};

class BinomialGather final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (k >= 31) return false;
        const std::int64_t mask = std::int64_t{1} << k;
        const std::int64_t p = a.size;
        const std::int64_t vr = a.relative(a.rank);
        if (mask >= p) return false;
        if ((vr & (mask - 1)) != 0) return false;  // already sent at a lower bit
        if ((vr & mask) != 0) {
            const auto n = static_cast<std::int32_t>(std::min(mask, p - vr));
            s.send(a.absolute(static_cast<std::int32_t>(vr - mask)),
                   a.blocks(static_cast<std::int32_t>(vr), n), a.displ(a.rank));
            return true;
        }
        if (vr + mask < p) {
            const auto child = static_cast<std::int32_t>(vr + mask);
            const auto n = static_cast<std::int32_t>(std::min(mask, p - vr - mask));
            s.recv(a.absolute(child), a.blocks(child, n), a.displ(a.absolute(child)));
        }
        return true;
    }
};

Piece subtree_blocks(const CollArgs& a, std::int32_t child, std::int32_t n) {
    return Piece{a.displ(a.absolute(child)), a.blocks(child, n)};
}

class BinomialScatter final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        return binomial_down(a, k, s, subtree_blocks);
    }
};

class LinearSyncGather final : public Algorithm {
  public:
    static constexpr std::uint64_t kFirst = 1024;
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size;
        auto parts = [&](std::int32_t r, bool send) {
            const std::uint64_t b = a.block(r), first = std::min(b, kFirst);
            if (send) {
                s.send(a.root, first, a.displ(r));
                if (b > first) s.send(a.root, b - first, a.displ(r) + first);
            } else {
                s.recv(r, first, a.displ(r));
                if (b > first) s.recv(r, b - first, a.displ(r) + first);
            }
        };
        if (a.rank == a.root) {
            if (k + 1 >= static_cast<std::uint32_t>(p)) return false;
            const std::int32_t r = a.absolute(static_cast<std::int32_t>(k) + 1);
            s.send(r, 0);
            parts(r, false);
            return true;
        }
        if (k == 0)
            s.recv(a.root, 0);
        else if (k == 1)
            parts(a.rank, true);
        else
            return false;
        return true;
    }
};

}  // namespace

void register_gather_scatter(CollectiveRegistry& r) {
    auto linear_gather = std::make_shared<LinearGather>();
    auto binomial_gather = std::make_shared<BinomialGather>();
    auto linear_scatter = std::make_shared<LinearScatter>();
    auto binomial_scatter = std::make_shared<BinomialScatter>();
    for (CollOp op : {CollOp::Gather, CollOp::Gatherv}) {
        r.add(op, "linear", "root receives every block at once (one step)", linear_gather);
        r.add(op, "binomial", "binomial tree, each rank forwards its gathered subtree (MPICH)",
              binomial_gather);
        r.add(op, "linear_sync", "root takes one rank at a time after a go-ahead (Open MPI)",
              std::make_shared<LinearSyncGather>());
    }
    for (CollOp op : {CollOp::Scatter, CollOp::Scatterv}) {
        r.add(op, "linear", "root sends every block at once (one step)", linear_scatter);
        r.add(op, "binomial", "binomial tree, each child receives its subtree's blocks (MPICH)",
              binomial_scatter);
    }
}

}  // namespace clustersim::mpi::alg
