// Scan and exscan algorithms. The data space (collective.hpp) is 2 m units: [0, m) the
// result, [m, 2m) the rank's running partial; both start as the rank's own contribution
// (exscan: the result starts empty). Rank r ends with the combination of ranks 0..r (scan)
// or 0..r-1 (exscan; rank 0's result is undefined, as in MPI).
//
//  linear              Open MPI basic_linear: a chain. Scan: rank r receives the prefix of
//                      0..r-1 from r-1, combines it into its own, sends the result to r+1.
//                      Exscan: rank r receives its result from r-1, combines it with its
//                      own contribution and sends that to r+1. (p - 1) (T(m) + R(m)) on the
//                      uniform star.
//  recursive_doubling  MPICH: for mask = 1, 2, 4, ... < p rank r exchanges its partial with
//                      r ^ mask (if it exists), combines what it receives into its partial
//                      and, when the partner is lower, into its result.
//                      ceil(log2 p) (T(m) + R(2m)) for a power of two p.
//  direct              SimGrid (its scan and exscan): one step in which rank r sends its
//                      own contribution (its partial, never changed) to every higher rank
//                      and receives every lower rank's, combining each into its result.
//                      On the star rank p-1 receives p-1 vectors through its link:
//                      2L + 2 (p-1) m/B + (p-1) R(m).
#include "collectives/algorithms/common.hpp"
#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi::alg {
namespace {

class LinearScan final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t r = a.rank, p = a.size;
        const std::uint64_t m = a.bytes;
        const bool ex = a.op == CollOp::Exscan;
        if (r > 0) {
            if (k == 0) {  // the prefix of 0..r-1
                s.recv(r - 1, m, 0);
                if (!ex) s.reduce_bytes = m;
                return true;
            }
            --k;
            if (ex && r < p - 1) {  // the prefix 0..r for the next rank
                if (k == 0) {
                    s.reduce_bytes = m;
                    return true;
                }
                --k;
            }
        }
        if (k > 0 || r == p - 1) return false;
        if (ex && r > 0) {
            s.send(r + 1, m);
            if (s.describe && m > 0) {
                s.piece(0, m);
                s.piece(m, m);
            }
        } else {
            s.send(r + 1, m, ex ? m : 0);
        }
        return true;
    }
};

class RecursiveDoublingScan final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t r = a.rank, p = a.size;
        if (k >= ceil_log2(p)) return false;
        const std::int32_t partner = r ^ (std::int32_t{1} << k);
        if (partner >= p) return true;  // nothing this round
        const std::uint64_t m = a.bytes;
        s.send(partner, m, m);
        s.recv(partner, m, m);
        s.reduce_bytes = m;
        if (partner < r) {  // also into the result
            s.reduce_bytes = 2 * m;
            if (s.describe && m > 0) {
                s.piece(m, m);
                s.piece(0, m);
            }
        }
        return true;
    }
};

class DirectScan final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        const std::int32_t r = a.rank, p = a.size;
        if (k > 0 || p < 2) return false;
        const std::uint64_t m = a.bytes;
        for (std::int32_t q = 0; q < r; ++q) s.recv(q, m, 0);
        for (std::int32_t q = r + 1; q < p; ++q) s.send(q, m, m);
        s.reduce_bytes = static_cast<std::uint64_t>(r) * m;
        return true;
    }
};

}  // namespace

void register_scan(CollectiveRegistry& r) {
    auto linear = std::make_shared<LinearScan>();
    auto rd = std::make_shared<RecursiveDoublingScan>();
    for (CollOp op : {CollOp::Scan, CollOp::Exscan}) {
        r.add(op, "linear", "chain: receive the prefix from r-1, pass it on (Open MPI basic)",
              linear);
        r.add(op, "recursive_doubling", "exchange partials with r ^ 2^k (MPICH)", rd);
        r.add(op, "direct", "one step: every rank sends its vector to every higher rank (SimGrid)",
              std::make_shared<DirectScan>());
    }
}

}  // namespace clustersim::mpi::alg
