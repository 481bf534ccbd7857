// What a rank runs: a Program hands the runtime one MPI operation at a time.
// Built-in apps, trace replay and (later) collectives all speak this interface.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectives/collective.hpp"

namespace clustersim::mpi {

inline constexpr std::int32_t kAnySource = -1;
inline constexpr std::int32_t kAnyTag = -1;
inline constexpr std::int32_t kCommWorld = 0;

enum class OpKind : std::uint8_t {
    Compute,     // `instructions` on the rank's core (processor-shared with its other ranks)
    Send,        // blocking send of `bytes` to `peer`
    Recv,        // blocking receive from `peer` (or kAnySource), `tag` (or kAnyTag)
    Isend,       // nonblocking send; completes request `handle`
    Irecv,       // nonblocking receive; completes request `handle`
    Wait,        // waits for request `handle`
    Waitall,     // waits for requests [handle, handle + count)
    Sendrecv,    // send (peer, tag, bytes) and receive (peer2, tag2, bytes2) concurrently
    Collective,  // `coll` on communicator `comm` (blocking, or nonblocking with `handle`)
    CommDup,     // duplicate `comm` into handle `newcomm`
    CommSplit,   // split `comm` by `color` (kUndefined: none), ordered by `key`, into `newcomm`
    // MPI-IO (run by the I/O system, iosys/). `file` is the rank's file handle.
    FileOpen,        // collective over `comm`: open `path` as handle `file`
    FileClose,       // collective over the file's communicator
    FileSetView,     // view: displacement `offset`, then `view_block` bytes every
                     // `view_stride` bytes (0, 0: contiguous); resets the file pointer
    FileSeek,        // individual file pointer = `offset` (whence: kSeekSet/Cur/End)
    FileWrite,       // `bytes` at the individual file pointer (advances it)
    FileRead,        // `bytes` at the individual file pointer (short at end of file)
    FileWriteAt,     // `bytes` at view offset `offset`
    FileReadAt,      // `bytes` at view offset `offset`
    FileWriteAll,    // collective FileWrite over the file's communicator
    FileReadAll,     // collective FileRead
    FileWriteAtAll,  // collective FileWriteAt
    FileReadAtAll,   // collective FileReadAt
    FileSync,        // collective: waits until the file's written data is on disk
    // An MPI call the simulator does not model (a recorded trace's MPI_Probe, MPI_Comm_rank,
    // ...): runs like Compute (`instructions` on the rank's core, the traced duration
    // projected) but is counted under its own kind; `path` names the call.
    Unmodeled,
    // Communicators with a process topology (collective over `comm`, into `newcomm`, with
    // the call's arguments in `topo`; they synchronise like CommSplit):
    CartCreate,               // MPI_Cart_create: dims, periods, reorder (ranks >= prod(dims)
                              // get no communicator, MPI_COMM_NULL)
    DistGraphCreateAdjacent,  // MPI_Dist_graph_create_adjacent: this rank's sources and
                              // destinations
    DistGraphCreate,          // MPI_Dist_graph_create: the edges sources[i] -> destinations[i]
                              // this rank names (any rank may name any edge)
    // Request cancellation (new kinds go after this one).
    Cancel,  // cancels request `handle`: an unmatched receive is withdrawn and matches
             // nothing, an unmatched send is withdrawn; a matched one completes as usual
    // MPI_Comm_free of communicator `comm`: local (no agreement, no message); it costs
    // <collectives comm-free> on the rank's core, nothing without it.
    CommFree,
    // One-sided communication (issue 54). `file` is the rank's window handle (program-chosen,
    // like request handles; a trace record names it `win`, and Op has no field of its own for
    // it: a 128-byte Op without padding to fill is copied with vector moves where a
    // zero-filled one became a `rep stos` that cost the replay 10 % of its decode); `peer` a rank
    // of the window's communicator (-1: every rank, for lock, unlock and flush). Puts, gets and
    // accumulates are nonblocking at the origin and complete remotely at the next synchronisation
    // that covers them.
    WinCreate,      // collective over `comm`: window handle `file` (`bytes`: its size)
    WinFree,        // collective over the window's communicator
    Put,            // `bytes` from the origin into `peer`'s window
    Get,            // `bytes` from `peer`'s window to the origin
    Accumulate,     // `bytes` into `peer`'s window, combined there (a reduction of `bytes`)
    GetAccumulate,  // `bytes` combined at `peer`, whose old `bytes2` come back (also
                    // fetch-and-op, compare-and-swap)
    WinFence,       // completes the rank's operations on the window, then synchronises its
                    // members
    WinLock,        // passive target: a lock on `peer` (`count` 1: exclusive, 0: shared)
    WinUnlock,      // completes the rank's operations on `peer` and releases its lock
    WinFlush,       // completes the rank's operations on `peer`
};
inline constexpr int kOpKinds = 40;
constexpr bool is_onesided(OpKind k) {
    return k >= OpKind::WinCreate && k <= OpKind::WinFlush;
}
constexpr bool creates_comm(OpKind k) {
    return k == OpKind::CommDup || k == OpKind::CommSplit || k == OpKind::CartCreate ||
           k == OpKind::DistGraphCreateAdjacent || k == OpKind::DistGraphCreate;
}
constexpr bool creates_topology(OpKind k) {
    return k == OpKind::CartCreate || k == OpKind::DistGraphCreateAdjacent ||
           k == OpKind::DistGraphCreate;
}
inline constexpr std::uint8_t kSeekSet = 0, kSeekCur = 1, kSeekEnd = 2;
constexpr bool is_file_op(OpKind k) {
    return k >= OpKind::FileOpen && k <= OpKind::FileSync;
}
inline constexpr std::int32_t kUndefined = -32766;  // MPI_UNDEFINED color
const char* to_string(OpKind kind);

// The arguments of a topology constructor (CartCreate, DistGraphCreate(Adjacent)); ranks are
// ranks of the parent communicator. `reorder` is recorded; ranks are never reordered (MPI
// allows it; Open MPI's default topo component does not either). An Op carries them encoded
// in `counts` (encode_topo_spec), as traces store them:
//   CartCreate:              ndims, dims[ndims], periods[ndims], reorder
//   DistGraphCreateAdjacent: indegree, sources[indegree], destinations[...], reorder
//   DistGraphCreate:         edges, sources[edges], destinations[edges], reorder
struct TopoSpec {
    std::vector<std::int32_t> dims;     // CartCreate
    std::vector<std::uint8_t> periods;  // CartCreate: one per dimension, 0 or 1
    bool reorder = false;
    std::vector<std::int32_t> sources, destinations;  // see OpKind
};
std::vector<std::uint64_t> encode_topo_spec(OpKind kind, const TopoSpec& spec);
// "" or what is malformed (the counts do not follow the layout, a value out of range).
std::string decode_topo_spec(OpKind kind, const std::vector<std::uint64_t>& counts, TopoSpec& spec);

// `comm` and `newcomm` are communicator handles of the rank: 0 is MPI_COMM_WORLD; a
// CommDup/CommSplit names the handle its new communicator gets. Ranks in `peer`, `peer2`
// and `root` are ranks within `comm`.
struct Op {
    OpKind kind = OpKind::Compute;
    std::int32_t peer = 0;
    std::int32_t tag = 0;
    std::int32_t comm = kCommWorld;
    std::uint64_t bytes = 0;
    std::int32_t peer2 = 0;  // Sendrecv: the receive side
    std::int32_t tag2 = 0;
    std::uint64_t bytes2 = 0;
    std::uint64_t instructions = 0;  // Compute
    std::uint32_t handle = 0;        // Isend, Irecv, Wait, Waitall: request handle (program-chosen)
                                     // (a Wait with `counts`: MPI_Waitany over the handles listed
                                     // there; Program::request_done names the one it took)
    std::uint32_t count = 0;         // Waitall
    // Collective
    CollOp coll = CollOp::Barrier;
    bool nonblocking = false;  // ibarrier, ibcast, ...: completes request `handle`
    std::int32_t root = 0;
    // v-variants (see CollArgs); CartCreate, DistGraphCreate(Adjacent): encode_topo_spec
    const std::vector<std::uint64_t>* counts = nullptr;
    // CommDup / CommSplit
    std::int32_t color = 0;
    std::int32_t key = 0;
    std::uint32_t newcomm = 0;
    // MPI-IO
    std::uint32_t file = 0;             // file handle (program-chosen, like request handles)
    const std::string* path = nullptr;  // FileOpen: the file's name
    std::uint64_t offset = 0;           // *At: view offset; FileSeek: offset; FileSetView: disp
    std::uint64_t view_block = 0;       // FileSetView: vector view, bytes per block
    std::uint64_t view_stride = 0;      // FileSetView: bytes from one block to the next
    std::uint8_t whence = kSeekSet;     // FileSeek
};

// The most ranks a run may have (2^24 = 16,777,216, the most nodes a model may have);
// trace readers refuse a trace naming more (traces::kMaxRanks, docs/limits.md).
inline constexpr std::uint32_t kMaxRanks = 1u << 24;
// The largest handle a program may choose for a request, communicator, window or file: the
// runtime keeps a table per rank indexed by them, so a trace naming handle 4,000,000,000 would
// ask for gigabytes; such a handle is refused with one line naming the rank and the record
// (docs/limits.md). Tracers and readers number handles from 0 or 1 and reuse freed ones.
inline constexpr std::uint32_t kMaxHandle = (1u << 24) - 1;
// "" if `handle` is within kMaxHandle, else the reason, for the rank's error line.
std::string handle_beyond_limit(const char* what, std::uint32_t handle);

// How far a program has got, for progress lines: `done` of `total` units (operations, trace
// records); total 0 = unknown.
struct ProgramProgress {
    std::uint64_t done = 0, total = 0;
};

class Program {
  public:
    virtual ~Program() = default;
    // Fills `op` with rank's next operation; false when the rank has finished.
    virtual bool next(std::int32_t rank, Op& op) = 0;
    // Operations handed out so far of all there will be (an estimate, read about once a
    // second by the progress line; never on the simulation's path).
    virtual ProgramProgress progress() const { return {}; }
    // A Wait for any of several requests (`counts` set) of `rank` has completed request
    // `handle` (the first of its list that was done); called before the Wait is recorded,
    // and before the next call of next(rank). A program that waits only for given requests
    // has nothing to do.
    virtual void request_done(std::int32_t rank, std::uint32_t handle) {
        (void)rank;
        (void)handle;
    }
    // The bytes its ranks will send in all, at least, when the program knows before the run
    // (a built-in collective or pattern app); 0: unknown (a trace). Read once, before the run,
    // to name a packet-level run that would cost too many events (run/execute.cpp).
    virtual std::uint64_t traffic_hint() const { return 0; }
    // Where rank's current operation came from, as a number only the program reads back (a
    // trace: the record's position); 0: unknown. Taken when the runtime may have to name the
    // operation after the rank has moved on (the first rank to enter a collective call).
    virtual std::uint64_t mark(std::int32_t rank) const {
        (void)rank;
        return 0;
    }
};

// Runs several programs side by side: program i owns world ranks [offset_i, offset_i + n_i)
// and sees them as its ranks 0 .. n_i - 1.
class MultiProgram final : public Program {
  public:
    void add(Program& program, std::uint32_t ranks);
    bool next(std::int32_t rank, Op& op) override;
    void request_done(std::int32_t rank, std::uint32_t handle) override;
    std::uint64_t mark(std::int32_t rank) const override;
    // The sum over the programs; unknown (total 0) if any program's total is unknown.
    ProgramProgress progress() const override;
    // The sum of the programs' hints (those that know theirs).
    std::uint64_t traffic_hint() const override;
    std::uint32_t ranks() const { return static_cast<std::uint32_t>(owner_.size()); }
    std::vector<std::uint32_t> sizes() const { return sizes_; }

  private:
    std::vector<Program*> programs_;
    std::vector<std::uint32_t> sizes_;
    std::vector<std::uint32_t> owner_;  // world rank -> program
    std::vector<std::int32_t> local_;   // world rank -> its rank in the program
};

}  // namespace clustersim::mpi
