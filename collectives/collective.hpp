// Collective operations as schedules.
//
// An algorithm describes, for one rank of a communicator, a sequence of steps. A step is a
// set of transfers (sends and receives to other ranks of the communicator) that proceed
// concurrently, optionally followed by local reduction work on `reduce_bytes` bytes (run
// on the rank's CPU model). By default step k+1 starts when step k is complete. A transfer
// may instead depend on one transfer of the previous step only, or on nothing
// (Transfer::after): the schedule is then a dependency graph and pipelined algorithms
// overlap as in the real libraries (a middle rank of a chain forwards segment k as soon as
// it has arrived, while its send of segment k-1 is still in flight). The executor keeps two
// steps in flight: step k+1 is generated when step k is, its transfers are posted in order
// as their dependencies complete, and step k+2 waits for step k to be complete. The runtime
// executes these schedules as state machines, one per rank per call; an algorithm only describes
// its schedule, so it can be tested without the engine (see tests/test_coll_schedules.cpp).
//
// Steps are generated on demand (step(args, k)), so a ring over 65,536 ranks never holds
// more than one step per rank in memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "simulator/registry.hpp"

namespace clustersim::mpi {

enum class CollOp : std::uint8_t {
    Barrier,
    Bcast,
    Reduce,
    Allreduce,
    Gather,
    Scatter,
    Allgather,
    Alltoall,
    ReduceScatter,
    Gatherv,
    Scatterv,
    Allgatherv,
    Alltoallv,
    Scan,
    Exscan,
    ReduceScatterBlock,
    Alltoallw,  // alltoallv whose blocks are given in bytes (each pair its own datatype)
    // MPI-3 neighbourhood collectives over the communicator's topology (CollArgs::topo).
    NeighborAllgather,
    NeighborAllgatherv,
    NeighborAlltoall,
    NeighborAlltoallv,
    NeighborAlltoallw,
};
inline constexpr int kCollOps = 22;
constexpr bool is_neighbor(CollOp op) {
    return op >= CollOp::NeighborAllgather && op <= CollOp::NeighborAlltoallw;
}
// The v/w-variants: per-rank (or per-pair) block sizes in CollArgs::counts.
constexpr bool is_v(CollOp op) {
    return op == CollOp::Gatherv || op == CollOp::Scatterv || op == CollOp::Allgatherv ||
           op == CollOp::Alltoallv || op == CollOp::Alltoallw || op == CollOp::NeighborAllgatherv ||
           op == CollOp::NeighborAlltoallv || op == CollOp::NeighborAlltoallw;
}
// The collectives with a root (its rank in CollArgs::root).
constexpr bool is_rooted(CollOp op) {
    return op == CollOp::Bcast || op == CollOp::Reduce || op == CollOp::Gather ||
           op == CollOp::Scatter || op == CollOp::Gatherv || op == CollOp::Scatterv;
}
// Counts has size * size entries (alltoallv, alltoallw) rather than size.
constexpr bool is_pairwise_v(CollOp op) {
    return op == CollOp::Alltoallv || op == CollOp::Alltoallw;
}
const char* to_string(CollOp op);  // "bcast", "reduce_scatter", "allgatherv", ...
bool parse_coll_op(const std::string& name, CollOp& op);

// MPI_PROC_NULL as a neighbour: a non-periodic border of a Cartesian topology (no message).
inline constexpr std::int32_t kProcNull = -2;

// One edge of a process topology as one of its ends sees it: the rank at the other end
// (rank in the communicator, or kProcNull) and the edge's index in that rank's list of the
// other direction (its in-list for an out-edge, its out-list for an in-edge).
struct Neighbor {
    std::int32_t rank = kProcNull;
    std::uint32_t slot = 0;
};

// A communicator's process topology (MPI_Cart_create, MPI_Dist_graph_create(_adjacent)):
// per rank its in-neighbours (sources) and out-neighbours (destinations) in the order MPI
// defines for the neighbourhood collectives. The k-th in-edge's receive buffer block gets
// what its source sends on the out-edge `in[r][k].slot`. Cartesian: per dimension the -1
// neighbour then the +1 one (kProcNull at a non-periodic border); what a rank sends its -1
// neighbour lands in that neighbour's +1 block and conversely, also when both are the same
// rank (a periodic dimension of size 2, or of size 1: the rank itself). Graphs: the k-th
// edge from i among j's sources pairs with the k-th edge to j among i's destinations.
struct Topology {
    bool cartesian = false;
    std::vector<std::int32_t> dims;              // Cartesian
    std::vector<std::uint8_t> periods;           // Cartesian
    std::vector<std::vector<Neighbor>> in, out;  // per rank of the communicator
    std::vector<std::uint64_t> out_base;  // prefix sums of the out-degrees (size + 1 entries)
    std::int32_t size() const { return static_cast<std::int32_t>(in.size()); }
    std::size_t edges() const { return out_base.empty() ? 0 : out_base.back(); }
    std::uint32_t max_degree() const;  // the largest in- or out-degree
};
// MPI_Cart_create's topology on prod(dims) ranks (row-major ranks, as MPI_Cart_rank).
Topology cart_topology(const std::vector<std::int32_t>& dims,
                       const std::vector<std::uint8_t>& periods);
// A distributed graph from each rank's sources and destinations (ranks in [0, size));
// returns "" or what is inconsistent (rank i names j as a destination a different number
// of times than j names i as a source).
std::string graph_topology(const std::vector<std::vector<std::int32_t>>& sources,
                           const std::vector<std::vector<std::int32_t>>& destinations,
                           Topology& out);

// What one rank passes to the MPI call (all sizes in bytes).
struct CollArgs {
    CollOp op = CollOp::Barrier;
    std::int32_t rank = 0;  // rank in the communicator
    std::int32_t size = 1;  // communicator size
    std::int32_t root = 0;
    // The size the rank passes: bcast/reduce/allreduce: the whole buffer; gather/scatter/
    // allgather: one rank's block; alltoall: the block for one peer; reduce_scatter: the
    // block each rank receives (the reduced vector is size * bytes).
    std::uint64_t bytes = 0;
    // v-variants: gatherv/scatterv/allgatherv: block of each rank (size entries);
    // alltoallv: block from rank i to rank j at [i * size + j] (size * size entries).
    const std::vector<std::uint64_t>* counts = nullptr;
    std::uint64_t segment = 64 * 1024;  // pipelined algorithms: segment size
    // v-variants, for the data-movement description only: prefix sums of `counts` (one
    // more entry than counts; set by the data-movement check, null in the runtime).
    const std::vector<std::uint64_t>* displs = nullptr;
    // Neighbourhood collectives: the communicator's topology. Their counts are the rank's
    // own (MPI's local view): neighbor_allgatherv: [send bytes, receive bytes per
    // in-neighbour]; neighbor_alltoallv/w: [send bytes per out-neighbour, receive bytes per
    // in-neighbour]. Their `displs` (data-movement check only) are global: allgatherv: rank
    // r's send block at displs[r]; alltoallv/w: out-edge (r, s)'s block at
    // displs[topo->out_base[r] + s].
    const Topology* topo = nullptr;

    std::uint64_t block(std::int32_t r) const {
        return counts != nullptr ? (*counts)[static_cast<std::size_t>(r)] : bytes;
    }
    std::uint64_t block(std::int32_t from, std::int32_t to) const {
        return counts != nullptr
                   ? (*counts)[static_cast<std::size_t>(from) * static_cast<std::size_t>(size) +
                               static_cast<std::size_t>(to)]
                   : bytes;
    }
    // Sum of block(r) for r in [first, first + n) of relative ranks rooted at `root`.
    std::uint64_t blocks(std::int32_t first_relative, std::int32_t n) const;
    // Relative rank <-> rank, rooted at root.
    std::int32_t relative(std::int32_t r) const { return (r - root + size) % size; }
    std::int32_t absolute(std::int32_t vr) const { return (vr + root) % size; }
    // Offset of rank r's block in the data space (gather, scatter, allgather and their
    // v-forms; reduce_scatter and reduce_scatter_block: the block rank r ends with).
    std::uint64_t displ(std::int32_t r) const {
        if (counts == nullptr) return bytes * static_cast<std::uint64_t>(r);
        return displs != nullptr ? (*displs)[static_cast<std::size_t>(r)] : 0;
    }
    // Offset of the block rank `from` sends rank `to` (alltoall, alltoallv).
    std::uint64_t displ(std::int32_t from, std::int32_t to) const {
        return displ(from * size + to);
    }
};

// Size D of an operation's data space (see Piece) and who holds what:
//   barrier: D = 0 (only who has heard from whom matters).
//   bcast: D = bytes, the root's buffer.
//   reduce, allreduce: D = bytes; every rank starts with its own contribution everywhere.
//   scan, exscan: D = 2 bytes; units [0, bytes) are the result, [bytes, 2 bytes) the
//     rank's running partial; both start as the rank's contribution (exscan: the result
//     starts empty).
//   gather(v), scatter(v), allgather(v): D = the sum of the blocks, rank r's at displ(r).
//   alltoall(v): D = the sum of the p^2 blocks, block (i, j) at displ(i, j).
//   reduce_scatter, reduce_scatter_block: D = size * bytes; every rank contributes all of
//     it, block r at displ(r) ends at rank r.
//   neighbor_allgather(v): D = the sum of the ranks' send blocks, rank r's at
//     neighbor_displ(r); it ends at each of r's out-neighbours.
//   neighbor_alltoall(v, w): D = the sum of the out-edges' blocks, out-edge s of rank r at
//     neighbor_displ(r, s); it ends at that edge's destination.
std::uint64_t data_space(const CollArgs& args);
// Offsets in a neighbourhood collective's data space (see data_space; v-forms: from
// args.displs, 0 without them, as in the runtime).
std::uint64_t neighbor_displ(const CollArgs& args, std::int32_t r);
std::uint64_t neighbor_displ(const CollArgs& args, std::int32_t r, std::uint32_t s);

// What a transfer moves, for the data-movement check (tests/test_coll_schedules.cpp; the
// runtime only uses `bytes`). Every operation has a data space of D units (bytes), see
// data_space(): a send's data are units [offset, offset + bytes) of its sender's copy of
// that space, a receive's land at [offset, offset + bytes) of its receiver's, both taken
// modulo D. A transfer with `pieces` > 0 names the step's pieces [piece, piece + pieces)
// instead (only filled when Step::describe is set): the message is their concatenation; if
// their total is k times `bytes` (k > 1), a send's message is the combination of the k
// slices and a receive's is combined into each of the k slices (MPICH's scan adds what it
// receives to its result and its running partial).
struct Piece {
    std::uint64_t offset = 0;
    std::uint64_t bytes = 0;
};

// Transfer::after: wait for the whole previous step (its transfers and its reduction), the
// default; or for nothing; or (a value >= 0) for that transfer of the previous step only.
inline constexpr std::int32_t kAfterStep = -1;
inline constexpr std::int32_t kAfterNothing = -2;

struct Transfer {
    bool send = false;
    std::int32_t peer = 0;  // rank in the communicator
    std::uint64_t bytes = 0;
    std::uint64_t offset = 0;  // see Piece
    std::uint32_t piece = 0, pieces = 0;
    // See kAfterStep. The transfers of a step are posted in their order: one waiting for its
    // dependency holds back those after it (so messages to one peer keep their order).
    std::int32_t after = kAfterStep;
};

struct Step {
    std::vector<Transfer> transfers;
    std::uint64_t reduce_bytes = 0;  // combined locally after the transfers
    // The data-movement description of non-contiguous transfers (Transfer::pieces).
    std::vector<Piece> piece_list;
    // Set by the data-movement check: algorithms fill piece_list only then, so the runtime
    // never pays for the description.
    bool describe = false;
    void clear() {
        transfers.clear();
        piece_list.clear();
        reduce_bytes = 0;
    }
    void send(std::int32_t peer, std::uint64_t bytes, std::uint64_t offset = 0) {
        transfers.push_back(Transfer{true, peer, bytes, offset, 0, 0, kAfterStep});
    }
    void recv(std::int32_t peer, std::uint64_t bytes, std::uint64_t offset = 0) {
        transfers.push_back(Transfer{false, peer, bytes, offset, 0, 0, kAfterStep});
    }
    // The last transfer waits only for transfer `on` of the previous step (or kAfterNothing).
    void after(std::int32_t on) { transfers.back().after = on; }
    // The last transfer's data is (also) units [offset, offset + bytes): call once per piece,
    // only when `describe` is set.
    void piece(std::uint64_t offset, std::uint64_t bytes) {
        Transfer& t = transfers.back();
        if (t.pieces == 0) t.piece = static_cast<std::uint32_t>(piece_list.size());
        ++t.pieces;
        piece_list.push_back(Piece{offset, bytes});
    }
};

class Algorithm {
  public:
    virtual ~Algorithm() = default;
    // Fills `step` (already cleared) with step k of args.rank's schedule; false when the
    // schedule has ended. An empty step is allowed (nothing to do at that point).
    virtual bool step(const CollArgs& args, std::uint32_t k, Step& step) const = 0;
    // Global-view operations complete when every rank of the communicator has entered,
    // without any message (PIOsimHD's virtual barrier).
    virtual bool global_view() const { return false; }
    // The buffer copies the library makes on its own in this algorithm, outside its messages
    // and reductions (Open MPI 4.1's coll/base: an allreduce copies its send buffer into its
    // receive buffer or a temporary first, and recursive doubling copies the result back
    // when it ends in the temporary): bytes copied by args.rank before the first step and
    // after the last. Charged at the model's copy rate only with <collectives
    // buffer-copies="yes"> (RuntimeConfig::buffer_copies); none by default.
    struct Copies {
        std::uint64_t before = 0, after = 0;
    };
    virtual Copies buffer_copies(const CollArgs&) const { return {}; }
};

struct AlgorithmInfo {
    CollOp op;
    std::string name;  // "binomial"
    std::string help;
    std::shared_ptr<const Algorithm> impl;
};

// The key of an algorithm in collective_algorithms(): "bcast=binomial", as `--coll` and
// `clustersim list algorithms` spell it.
struct AlgorithmKey {
    std::string operator()(const AlgorithmInfo& a) const {
        return std::string(to_string(a.op)) + "=" + a.name;
    }
};
using AlgorithmRegistry = NamedRegistry<AlgorithmInfo, AlgorithmKey>;

// Every collective algorithm: the built-ins (register_builtin_collectives) on first use, then
// whatever any translation unit adds, e.g. from a test file:
//     mpi::collective_algorithms().add({CollOp::Bcast, "mine", "one line", impl});
// A run takes a copy at set-up (registered_collectives()), so the hot path reads its own.
AlgorithmRegistry& collective_algorithms();

// A run's view of the algorithms: by operation, looked up while the run executes.
class CollectiveRegistry {
  public:
    void add(CollOp op, std::string name, std::string help, std::shared_ptr<const Algorithm> impl);
    void add(AlgorithmInfo info) { algorithms_.push_back(std::move(info)); }
    // nullptr if unknown; `name` with '-' for '_' finds the registered one (simulator/spelling.hpp)
    const Algorithm* find(CollOp op, const std::string& name) const;
    // `name` as registered for `op` (the given spelling if no algorithm is called so).
    std::string registered_name(CollOp op, const std::string& name) const;
    std::vector<std::string> names(CollOp op) const;
    std::string names_list(CollOp op) const;  // "binomial, linear, ..."
    const std::vector<AlgorithmInfo>& all() const { return algorithms_; }

  private:
    // `op`'s algorithm called `name`, else the one equal up to '-'/'_' (noted); null if none.
    const AlgorithmInfo* info(CollOp op, const std::string& name) const;
    std::vector<AlgorithmInfo> algorithms_;
};

// Every built-in algorithm, one file each under collectives/algorithms/.
void register_builtin_collectives(CollectiveRegistry& registry);
// Every algorithm of collective_algorithms() (built-in and added), as a run reads them.
CollectiveRegistry registered_collectives();

// The least data one member must send or receive in a call, whatever the algorithm: the
// largest, over members, of the bytes it must take in or give out (its own block excluded).
// bcast, reduce, allreduce: the buffer (the root gives it out or takes it in at least once;
// bandwidth-optimal allreduce moves 2(P-1)/P of it, never less than once for P >= 2);
// gather, scatter: the root's P - 1 blocks; allgather, alltoall, reduce_scatter: P - 1
// blocks; v-variants from the counts; barrier: 0. `args.rank` is ignored. The analytic
// communication models divide it by the bandwidth (models/comm_model.hpp).
std::uint64_t collective_volume(const CollArgs& args);

// Number of steps of a schedule (walks it): for composing algorithms and for tests.
std::uint32_t count_steps(const Algorithm& alg, const CollArgs& args);

}  // namespace clustersim::mpi
