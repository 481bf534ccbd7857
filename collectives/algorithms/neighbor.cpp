// Neighbourhood collectives (MPI-3): every rank exchanges blocks with its in- and
// out-neighbours of the communicator's topology (CollArgs::topo, collective.hpp).
//
//  linear  Open MPI 4.1 coll/basic `mca_coll_basic_neighbor_*` (the only neighbourhood
//          algorithm Open MPI 4.1 has) and MPICH 4's default (`MPIR_Neighbor_*_allcomm_nb`
//          over the `linear` schedule of MPIR_Ineighbor_*): one step, a receive from every
//          in-neighbour, in neighbour order, then a send to every out-neighbour, all in
//          flight at once. MPI_PROC_NULL neighbours are skipped; an edge to the rank itself
//          (a periodic dimension of size 1, a graph's self-loop) is a local copy, no
//          message. Open MPI tags a Cartesian exchange per direction (so that what a rank
//          sends its -1 neighbour lands in that neighbour's +1 block even when both of its
//          neighbours are the same rank, a periodic dimension of size 2); our runtime has one
//          tag per call, so sends to one destination are posted in the order of that
//          destination's receive blocks, which matches them the same way.
//          On the uniform star (tests/test_coll_neighbor.cpp): a rank with d out-neighbours
//          sends d blocks of m bytes back to back on its up-link, the last leaves it at d m/B
//          and arrives L + m/B + L later: 2L + (d + 1) m/B on a torus (d = 2 x dimensions),
//          whose blocks into one rank never queue on its down-link.
#include <algorithm>
#include <numeric>

#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi::alg {
namespace {

class LinearNeighbor final : public Algorithm {
  public:
    bool step(const CollArgs& a, std::uint32_t k, Step& s) const override {
        if (k > 0 || a.topo == nullptr) return false;
        const Topology& t = *a.topo;
        const auto r = static_cast<std::size_t>(a.rank);
        const auto& in = t.in[r];
        const auto& out = t.out[r];
        const bool gather = a.op == CollOp::NeighborAllgather || a.op == CollOp::NeighborAllgatherv;
        const std::size_t recv_base = gather ? 1 : out.size();  // index of the receive counts
        for (std::size_t i = 0; i < in.size(); ++i) {
            const Neighbor& e = in[i];
            if (e.rank == kProcNull || e.rank == a.rank) continue;
            const std::uint64_t bytes = a.counts != nullptr ? (*a.counts)[recv_base + i] : a.bytes;
            s.recv(e.rank, bytes,
                   gather ? neighbor_displ(a, e.rank) : neighbor_displ(a, e.rank, e.slot));
        }
        // Sends in out-edge order, except that the sends to one destination go in the order of
        // its receive blocks (Neighbor::slot).
        // (O(d log d): the edges sorted by (destination, slot), then each position takes the
        // next of its destination's.)
        std::vector<std::uint32_t> sorted(out.size()), order(out.size());
        std::iota(sorted.begin(), sorted.end(), 0u);
        std::sort(sorted.begin(), sorted.end(), [&](std::uint32_t x, std::uint32_t y) {
            return out[x].rank != out[y].rank ? out[x].rank < out[y].rank
                                              : out[x].slot < out[y].slot;
        });
        std::vector<std::size_t> group(out.size());  // per edge: its destination's first in sorted
        for (std::size_t i = 0; i < sorted.size(); ++i)
            group[sorted[i]] =
                i > 0 && out[sorted[i - 1]].rank == out[sorted[i]].rank ? group[sorted[i - 1]] : i;
        std::vector<std::size_t> cursor(out.size());  // per group start: its next in sorted
        std::iota(cursor.begin(), cursor.end(), std::size_t{0});
        for (std::size_t i = 0; i < out.size(); ++i) order[i] = sorted[cursor[group[i]]++];
        for (const std::uint32_t o : order) {
            const Neighbor& e = out[o];
            if (e.rank == kProcNull || e.rank == a.rank) continue;
            const std::uint64_t bytes = a.counts != nullptr ? (*a.counts)[gather ? 0 : o] : a.bytes;
            s.send(e.rank, bytes,
                   gather ? neighbor_displ(a, a.rank) : neighbor_displ(a, a.rank, o));
        }
        return true;
    }
};

}  // namespace

void register_neighbor(CollectiveRegistry& r) {
    auto linear = std::make_shared<LinearNeighbor>();
    const char* help =
        "a receive from every in-neighbour and a send to every out-neighbour, all at once "
        "(Open MPI coll/basic, MPICH)";
    for (CollOp op :
         {CollOp::NeighborAllgather, CollOp::NeighborAllgatherv, CollOp::NeighborAlltoall,
          CollOp::NeighborAlltoallv, CollOp::NeighborAlltoallw})
        r.add(op, "linear", help, linear);
}

}  // namespace clustersim::mpi::alg
