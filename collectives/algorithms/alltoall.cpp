// Alltoall algorithms. The same classes serve alltoallv: a.block(i, j) is what rank i sends
// rank j (counts[i * p + j] for alltoallv, the call's bytes otherwise). m is one block;
// times are for the uniform star of tests/coll_fixtures.hpp: latency L and bandwidth B per
// link; a message crosses two links, holding each for m/B, so alone it takes
// T(m) = 2L + 2m/B. The root is ignored.
//
//  pairwise  p-1 steps; in step k (k = 1 .. p-1) rank r sends block(r, r+k) to r+k and
//            receives block(r-k, r) from r-k (mod p), concurrently.
//            (p-1) (2L + 2m/B).
//  linear    one step: all p-1 sends and p-1 receives posted at once. Sends are posted in
//            the pairwise order (to r+1, r+2, ...) so that at any moment the ranks' links
//            feed distinct receivers: p m/B + 2L.
#include "collectives/algorithms/common.hpp"
#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi::alg {
namespace {

std::int32_t mod(std::int64_t x, std::int32_t p) {
    return static_cast<std::int32_t>(((x % p) + p) % p);
}

class PairwiseAlltoall final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        const std::int64_t d = std::int64_t{k} + 1;
        if (d >= p) return false;
        const std::int32_t to = mod(r + d, p), from = mod(r - d, p);
        s.send(to, a.block(r, to));
        s.recv(from, a.block(from, r));
        return true;
    }
};

class LinearAlltoall final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (k > 0) return false;
        const std::int32_t p = a.size, r = a.rank;
        for (std::int32_t d = 1; d < p; ++d) s.send(mod(r + d, p), a.block(r, mod(r + d, p)));
        for (std::int32_t d = 1; d < p; ++d) s.recv(mod(r - d, p), a.block(mod(r - d, p), r));
        return true;
    }
};

}  // namespace

void register_alltoall(CollectiveRegistry& r) {
    auto pairwise = std::make_shared<PairwiseAlltoall>();
    auto linear = std::make_shared<LinearAlltoall>();
    for (CollOp op : {CollOp::Alltoall, CollOp::Alltoallv}) {
        r.add(op, "pairwise", "p-1 steps: send to r+k, receive from r-k (MPICH long messages)",
              pairwise);
        r.add(op, "linear", "every send and receive posted at once (MPICH short messages)", linear);
    }
}

}  // namespace clustersim::mpi::alg
