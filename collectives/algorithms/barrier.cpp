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

}  // namespace

void register_barrier(CollectiveRegistry& r) {
    r.add(CollOp::Barrier, "virtual", "global view, no messages (PIOsimHD)",
          std::make_shared<VirtualBarrier>());
    r.add(CollOp::Barrier, "binary_tree",
          "pre-barrier up a binary tree, post-barrier down (Garg-De)",
          std::make_shared<BinaryTreeBarrier>());
    r.add(CollOp::Barrier, "dissemination", "ceil(log2 p) rounds of r -> r + 2^i",
          std::make_shared<DisseminationBarrier>());
}

}  // namespace clustersim::mpi::alg
