// Barrier algorithms.
//
//  virtual        PIOsimHD's global-view barrier: completes when every rank has entered,
//                 without any message. Costs nothing but the wait for the last rank.
//  binary_tree    Garg-De's barrier on a complete binary tree (rank r's children are 2r+1
//                 and 2r+2): pre-barrier, each rank waits for its children then notifies
//                 its parent; post-barrier, the root's release travels back down. With a
//                 one-way latency tau and N = 2^k - 1 ranks: 2 tau log2((N+1)/2).
//  dissemination  Hensgen et al.: ceil(log2 p) rounds; in round i rank r signals
//                 r + 2^i and waits for r - 2^i (mod p). ceil(log2 p) * tau.
//  linear         Open MPI basic_linear: every rank signals rank 0, which then releases each.
//                 2 T(0) + (p - 2) S(0) on the uniform star (S(0) = 0: 2 T(0)).
//  double_ring    Open MPI double_ring: a token goes around the ring 0 -> 1 -> ... -> 0
//                 twice; a rank leaves when it has passed it on the second time.
//                 2 p T(0).
//  recursive_doubling  Open MPI recursive_doubling: ranks >= pof2 signal rank - pof2 and
//                 wait for its release; the pof2 others exchange with r ^ 2^i, i = 0, 1, ...
//                 log2(p) T(0) for p = 2^k.
// All messages are zero bytes.
#include "collectives/algorithms/common.hpp"
#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi::alg {
namespace {

class VirtualBarrier final : public Algorithm {
  public:
    bool step(const CollArgs&, std::uint32_t, Step&) const override { return false; }
    bool global_view() const override { return true; }
};

class BinaryTreeBarrier final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t r = a.rank, left = 2 * r + 1, right = 2 * r + 2, parent = (r - 1) / 2;
        switch (k) {
            case 0:  // pre-barrier: children report
                if (left < a.size) s.recv(left, 0);
                if (right < a.size) s.recv(right, 0);
                return true;
            case 1:
                if (r > 0) s.send(parent, 0);
                return true;
            case 2:  // post-barrier: release from the parent
                if (r > 0) s.recv(parent, 0);
                return true;
            case 3:
                if (left < a.size) s.send(left, 0);
                if (right < a.size) s.send(right, 0);
                return true;
            default:
                return false;
        }
    }
};

class DisseminationBarrier final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (k >= ceil_log2(a.size)) return false;
        const std::int32_t d = std::int32_t{1} << k;
        s.send((a.rank + d) % a.size, 0);
        s.recv((a.rank - d % a.size + a.size) % a.size, 0);
        return true;
    }
};

class LinearBarrier final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (a.size < 2 || k > 1) return false;
        if (a.rank == 0) {  // step 0: hear from all, step 1: release all
            for (std::int32_t r = 1; r < a.size; ++r) {
                if (k == 0)
                    s.recv(r, 0);
                else
                    s.send(r, 0);
            }
        } else if (k == 0) {
            s.send(0, 0);
        } else {
            s.recv(0, 0);
        }
        return true;
    }
};

class DoubleRingBarrier final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        if (p < 2 || k > 3) return false;
        const std::int32_t next = (r + 1) % p, prev = (r - 1 + p) % p;
        // Rank 0 sends first (steps 0, 2) and receives after (1, 3); the others the reverse.
        const bool sends = (k % 2 == 0) == (r == 0);
        if (sends)
            s.send(next, 0);
        else
            s.recv(prev, 0);
        return true;
    }
};

class RecursiveDoublingBarrier final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank, pof2 = floor_pow2(p);
        if (r >= pof2) {  // signal rank - pof2, then wait for its release
            if (k == 0)
                s.send(r - pof2, 0);
            else if (k == 1)
                s.recv(r - pof2, 0);
            else
                return false;
            return true;
        }
        const bool extra = r + pof2 < p;
        if (extra) {
            if (k == 0) {
                s.recv(r + pof2, 0);
                return true;
            }
            --k;
        }
        const std::uint32_t rounds = ceil_log2(pof2);
        if (k < rounds) {
            const std::int32_t partner = r ^ (std::int32_t{1} << k);
            s.send(partner, 0);
            s.recv(partner, 0);
            return true;
        }
        if (extra && k == rounds) {
            s.send(r + pof2, 0);
            return true;
        }
        return false;
    }
};

}  // namespace

void register_barrier(CollectiveRegistry& r) {
    r.add(CollOp::Barrier, "virtual", "global view, no messages (PIOsimHD)",
          std::make_shared<VirtualBarrier>());
    r.add(CollOp::Barrier, "binary_tree",
          "pre-barrier up a binary tree, post-barrier down (Garg-De)",
          std::make_shared<BinaryTreeBarrier>());
    r.add(CollOp::Barrier, "dissemination", "ceil(log2 p) rounds of r -> r + 2^i",
          std::make_shared<DisseminationBarrier>());
    r.add(CollOp::Barrier, "linear", "all signal rank 0, which releases all (Open MPI basic)",
          std::make_shared<LinearBarrier>());
    r.add(CollOp::Barrier, "double_ring", "a token twice around the ring (Open MPI)",
          std::make_shared<DoubleRingBarrier>());
    r.add(CollOp::Barrier, "recursive_doubling",
          "exchanges with r ^ 2^i, the ranks above pof2 folded in (Open MPI)",
          std::make_shared<RecursiveDoublingBarrier>());
}

}  // namespace clustersim::mpi::alg
