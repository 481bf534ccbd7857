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
//  pairwise_xor MPICH's pairwise: for a power of two p, step k (k = 1 .. p-1) exchanges
//            with r ^ k; other p as pairwise. (p-1) (2L + 2m/B).
//  bruck        Open MPI modified Bruck (alltoall only): ceil(log2 p) steps; rank r keeps
//            its blocks in slots t = (destination - r) mod p; in step k (d = 2^k) it sends
//            the slots with bit k set to r + d and receives the same slots from r - d.
//            Slot t then holds the block of source r - (t mod 2d). ceil(log2 p) 2L +
//            (sum over k of the slots with bit k set) 2m/B.
//  linear_sync  Open MPI linear_sync: the linear exchange with at most 4 sends and 4
//            receives outstanding; modelled as batches: step b posts the exchanges with
//            r + 4b + 1 .. r + 4b + 4 (and from r - ...), the next batch when it has ended.
#include <algorithm>

#include "collectives/algorithms/common.hpp"
#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi::alg {
namespace {

class PairwiseAlltoall final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        const std::int64_t d = std::int64_t{k} + 1;
        if (d >= p) return false;
        const std::int32_t to = mod(r + d, p), from = mod(r - d, p);
        s.send(to, a.block(r, to), a.displ(r, to));
        s.recv(from, a.block(from, r), a.displ(from, r));
        return true;
    }
};

class LinearAlltoall final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (k > 0) return false;
        const std::int32_t p = a.size, r = a.rank;
        for (std::int32_t d = 1; d < p; ++d) {
            const std::int32_t to = mod(r + d, p);
            s.send(to, a.block(r, to), a.displ(r, to));
        }
        for (std::int32_t d = 1; d < p; ++d) {
            const std::int32_t from = mod(r - d, p);
            s.recv(from, a.block(from, r), a.displ(from, r));
        }
        return true;
    }
};

class PairwiseXorAlltoall final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (!power_of_two(a.size)) return shift_.step(a, k, s);
        const std::int32_t p = a.size, r = a.rank;
        const std::int64_t d = std::int64_t{k} + 1;
        if (d >= p) return false;
        const auto peer = static_cast<std::int32_t>(r ^ d);
        s.send(peer, a.block(r, peer), a.displ(r, peer));
        s.recv(peer, a.block(peer, r), a.displ(peer, r));
        return true;
    }

  private:
    PairwiseAlltoall shift_;
};

class BruckAlltoall final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        if (k >= ceil_log2(p)) return false;
        const std::int64_t d = std::int64_t{1} << k;
        std::uint64_t slots = 0;
        for (std::int64_t t = 1; t < p; ++t) slots += (t & d) != 0;
        s.send(mod(r + d, p), slots * a.bytes);
        if (s.describe && a.bytes > 0)
            for (std::int64_t t = d; t < p; ++t)
                if ((t & d) != 0) {  // slot t holds the block of source r - (t mod d)
                    const std::int32_t src = mod(r - (t & (d - 1)), p);
                    s.piece(a.displ(src, mod(src + t, p)), a.bytes);
                }
        s.recv(mod(r - d, p), slots * a.bytes);
        if (s.describe && a.bytes > 0)
            for (std::int64_t t = d; t < p; ++t)
                if ((t & d) != 0) {  // after the step: source r - (t mod 2d)
                    const std::int32_t src = mod(r - (t & (2 * d - 1)), p);
                    s.piece(a.displ(src, mod(src + t, p)), a.bytes);
                }
        return true;
    }
};

class LinearSyncAlltoall final : public Algorithm {
  public:
    static constexpr std::int32_t kWindow = 4;
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t p = a.size, r = a.rank;
        const std::int64_t first = std::int64_t{k} * kWindow + 1;
        if (first >= p) return false;
        const std::int64_t last = std::min<std::int64_t>(first + kWindow, p);
        for (std::int64_t d = first; d < last; ++d) {
            const std::int32_t to = mod(r + d, p);
            s.send(to, a.block(r, to), a.displ(r, to));
        }
        for (std::int64_t d = first; d < last; ++d) {
            const std::int32_t from = mod(r - d, p);
            s.recv(from, a.block(from, r), a.displ(from, r));
        }
        return true;
    }
};

}  // namespace

void register_alltoall(CollectiveRegistry& r) {
    auto pairwise = std::make_shared<PairwiseAlltoall>();
    auto linear = std::make_shared<LinearAlltoall>();
    for (CollOp op : {CollOp::Alltoall, CollOp::Alltoallv, CollOp::Alltoallw}) {
        r.add(op, "pairwise", "p-1 steps: send to r+k, receive from r-k (MPICH long messages)",
              pairwise);
        r.add(op, "linear", "every send and receive posted at once (MPICH short messages)", linear);
        r.add(op, "pairwise_xor", "p-1 exchanges with r ^ k for 2^k ranks (MPICH pairwise)",
              std::make_shared<PairwiseXorAlltoall>());
        r.add(op, "linear_sync", "linear, at most 4 exchanges in flight (Open MPI linear_sync)",
              std::make_shared<LinearSyncAlltoall>());
    }
    r.add(CollOp::Alltoall, "bruck", "ceil(log2 p) steps of the slots with bit k set (Open MPI)",
          std::make_shared<BruckAlltoall>());
}

}  // namespace clustersim::mpi::alg
