// The per-rank files the MPI tracer (tools/mpi/tracer.cpp, libclustersim-trace.so) writes
// while an application runs, and `clustersim trace merge` (traces/merge.hpp) turns into one
// native trace. Header-only and free of the simulator's types, so the tracer library links
// nothing but MPI. Layout (host byte order; `endian` tells a reader on another host):
//
//   RawHeader                                   one, at offset 0
//   { RawRecord, then record.extra u64 words }  one per recorded call, in call order
//   RawRecord with kind == kEnd                 the trailer: written by MPI_Finalize
//
// A file without the trailer is truncated (the run died, or the file was cut). Times are
// nanoseconds since the rank's t0: its clock (CLOCK_MONOTONIC) read right after the
// PMPI_Barrier that ends MPI_Init, so the ranks' origins agree to a barrier's skew.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace clustersim::traces::rankfile {

inline constexpr std::array<char, 8> kMagic{'C', 'S', 'R', 'A', 'N', 'K', '0', '1'};
inline constexpr std::uint32_t kVersion = 1;
inline constexpr std::uint32_t kEndianMark = 0x01020304;
inline constexpr const char* kExtension = ".csrank";

struct RawHeader {
    std::array<char, 8> magic = kMagic;
    std::uint32_t version = kVersion;
    std::uint32_t endian = kEndianMark;
    std::uint64_t run_id = 0;     // rank 0's random id, broadcast in MPI_Init: same in every file
    std::int32_t rank = 0;        // MPI_COMM_WORLD rank
    std::int32_t size = 0;        // MPI_COMM_WORLD size
    std::int64_t t0_unix_ns = 0;  // wall-clock time of t0 (for people; not used to align)
    std::array<char, 64> host{};  // MPI_Get_processor_name, NUL-terminated
    std::array<char, 64> program{};  // the executable's name, NUL-terminated
};
static_assert(sizeof(RawHeader) == 168);

// Record kinds: the values of mpi::OpKind (collectives/program.hpp) for the calls the
// simulator models (traces/merge.cpp checks they agree), then the tracer's own kinds.
enum RawKind : std::uint8_t {
    kSend = 1,
    kRecv = 2,
    kIsend = 3,
    kIrecv = 4,
    kWait = 5,
    kWaitall = 6,  // extra: the completed requests' handles (`count` of them)
    kSendrecv = 7,
    kCollective = 8,  // `coll` = mpi::CollOp; v-variants: extra = the counts (bytes)
    kCommDup = 9,
    kCommSplit = 10,
    kFileOpen = 11,  // extra: the path, `count` bytes packed into words
    kFileClose = 12,
    kFileSetView = 13,
    kFileSeek = 14,
    kFileWrite = 15,
    kFileRead = 16,
    kFileWriteAt = 17,
    kFileReadAt = 18,
    kFileWriteAll = 19,
    kFileReadAll = 20,
    kFileWriteAtAll = 21,
    kFileReadAtAll = 22,
    kFileSync = 23,
    kUnmodeled = 24,  // a wrapped call the simulator does not model; `call` names it
    // Communicators with a process topology: extra = the arguments as mpi::encode_topo_spec
    // lays them out (collectives/program.hpp), e.g. ndims, dims, periods, reorder.
    kCartCreate = 25,
    kDistGraphCreateAdjacent = 26,
    kDistGraphCreate = 27,  // its edges expanded: count, sources, destinations, reorder
    kCancel = 28,           // MPI_Cancel of request `handle`
    kCommFree = 29,         // MPI_Comm_free of `comm`
    // One-sided (mpi::OpKind's values): `file` is the window handle; `peer` the target (-1:
    // all, for lock, unlock and flush); `count` 1 for an exclusive lock.
    kWinCreate = 30,  // over `comm`; `bytes` the window's size
    kWinFree = 31,
    kPut = 32,
    kGet = 33,
    kAccumulate = 34,
    kGetAccumulate = 35,  // `bytes` sent, `bytes2` fetched
    kWinFence = 36,
    kWinLock = 37,
    kWinUnlock = 38,
    kWinFlush = 39,
    kFlush = 100,           // the tracer writing its buffer: not the application's time
    kEnd = 101,             // trailer: `bytes` = records before it, start = MPI_Finalize's start
    // Failed polls of one MPI function (`call`: MPI_Test, MPI_Testany, MPI_Testsome,
    // MPI_Testall, MPI_Iprobe, MPI_Improbe, MPI_Win_test) that completed or found nothing, or
    // the calls of one local query (is_local_query: MPI_Comm_rank, ...): not recorded one
    // by one but folded into the compute around them (their time stays in the gaps between
    // records); `bytes` = how many, `bytes2` = their summed duration in ns. Written by
    // MPI_Finalize just before the trailer, one per function that had any.
    kPolls = 102,
};

inline constexpr std::uint8_t kFlagNonblocking = 1;  // collectives: ibarrier, ibcast, ...
// kWait / kWaitall: the completion of a request the application cancelled (MPI_Cancel) and
// whose status reports it cancelled (MPI_Test_cancelled; assumed when the status is not at
// hand, in Waitany/Waitsome/Testany/... called with MPI_STATUS(ES)_IGNORE).
inline constexpr std::uint8_t kFlagCancelled = 2;

struct RawRecord {
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    std::uint8_t kind = 0;    // RawKind
    std::uint8_t coll = 0;    // kCollective: mpi::CollOp value (neighbourhood v/w-forms: extra =
                              // the rank's own send counts, then its receive counts, bytes)
    std::uint8_t flags = 0;   // kFlagNonblocking
    std::uint8_t whence = 0;  // kFileSeek: 0 set, 1 cur, 2 end
    std::uint16_t call = 0;   // index into kCallNames: the MPI function that was called
    std::uint16_t reserved = 0;
    std::uint32_t extra = 0;                              // u64 words that follow the record
    std::int32_t peer = 0, tag = 0, peer2 = 0, tag2 = 0;  // ranks within `comm`; -1 = any
    std::int32_t comm = 0, root = 0, color = 0, key = 0;  // comm: the rank's handle, 0 = world
    std::uint32_t handle = 0, count = 0, newcomm = 0, file = 0;
    std::uint64_t bytes = 0, bytes2 = 0, offset = 0, view_block = 0, view_stride = 0;
};
static_assert(sizeof(RawRecord) == 120);

// The MPI functions the tracer wraps. Modeled ones become native records; the others are
// kept as `unmodeled` records named by their entry here. Append only: files store indices.
inline constexpr std::array<std::string_view, 173> kCallNames{
    // point to point
    "MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Recv", "MPI_Isend", "MPI_Issend",
    "MPI_Ibsend", "MPI_Irsend", "MPI_Irecv", "MPI_Sendrecv", "MPI_Sendrecv_replace",
    // completion
    "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Test", "MPI_Testall",
    "MPI_Testany", "MPI_Testsome",
    // collectives
    "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather", "MPI_Scatter",
    "MPI_Allgather", "MPI_Alltoall", "MPI_Reduce_scatter_block", "MPI_Reduce_scatter",
    "MPI_Gatherv", "MPI_Scatterv", "MPI_Allgatherv", "MPI_Alltoallv", "MPI_Ibarrier", "MPI_Ibcast",
    "MPI_Ireduce", "MPI_Iallreduce", "MPI_Igather", "MPI_Iscatter", "MPI_Iallgather",
    "MPI_Ialltoall",
    // communicators
    "MPI_Comm_dup", "MPI_Comm_split",
    // MPI-IO
    "MPI_File_open", "MPI_File_close", "MPI_File_set_view", "MPI_File_seek", "MPI_File_write",
    "MPI_File_read", "MPI_File_write_at", "MPI_File_read_at", "MPI_File_write_all",
    "MPI_File_read_all", "MPI_File_write_at_all", "MPI_File_read_at_all", "MPI_File_sync",
    // wrapped but not modeled
    "MPI_Probe", "MPI_Iprobe", "MPI_Get_count", "MPI_Scan", "MPI_Exscan", "MPI_Alltoallw",
    "MPI_Comm_create", "MPI_Comm_free", "MPI_Comm_split_type", "MPI_Cart_create", "MPI_Send_init",
    "MPI_Recv_init", "MPI_Start", "MPI_Startall", "MPI_Request_free", "MPI_Cancel",
    "MPI_File_iwrite_at", "MPI_File_iread_at", "MPI_Abort", "MPI_Comm_rank", "MPI_Comm_size",
    // modeled since: scan, exscan (above, among the unmodeled, for older files) and these
    "MPI_Iscan", "MPI_Iexscan", "MPI_Ireduce_scatter_block", "MPI_Igatherv", "MPI_Iscatterv",
    "MPI_Iallgatherv", "MPI_Ialltoallv",
    // and these (MPI_Cart_create and MPI_Alltoallw above)
    "MPI_Dist_graph_create_adjacent", "MPI_Dist_graph_create", "MPI_Neighbor_allgather",
    "MPI_Neighbor_allgatherv", "MPI_Neighbor_alltoall", "MPI_Neighbor_alltoallv",
    "MPI_Neighbor_alltoallw", "MPI_Ineighbor_allgather", "MPI_Ineighbor_allgatherv",
    "MPI_Ineighbor_alltoall", "MPI_Ineighbor_alltoallv", "MPI_Ineighbor_alltoallw",
    "MPI_Ialltoallw",
    // issue 19: matched probes (kept as unmodeled when they find a message)
    "MPI_Improbe",
    // issue 54: recorded as the MPI_Comm_split it equals (MPI_Comm_split_type above too)
    "MPI_Cart_sub",
    // issue 54: one-sided communication and communicator constructors, recorded unmodeled
    "MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate", "MPI_Fetch_and_op",
    "MPI_Compare_and_swap", "MPI_Rput", "MPI_Rget", "MPI_Raccumulate", "MPI_Rget_accumulate",
    "MPI_Win_create", "MPI_Win_allocate", "MPI_Win_allocate_shared", "MPI_Win_create_dynamic",
    "MPI_Win_attach", "MPI_Win_detach", "MPI_Win_free", "MPI_Win_fence", "MPI_Win_post",
    "MPI_Win_start", "MPI_Win_complete", "MPI_Win_wait", "MPI_Win_lock", "MPI_Win_unlock",
    "MPI_Win_lock_all", "MPI_Win_unlock_all", "MPI_Win_flush", "MPI_Win_flush_all",
    "MPI_Win_flush_local", "MPI_Win_flush_local_all", "MPI_Win_sync", "MPI_Win_test",
    "MPI_Comm_create_group", "MPI_Comm_idup", "MPI_Intercomm_create", "MPI_Intercomm_merge",
    "MPI_Graph_create",
    // issue 54's census: matched receives, Comm_dup_with_info and Ireduce_scatter (modeled as
    // Mrecv/Imrecv = recv/irecv, comm_dup, reduce_scatter), persistent sends and MPI-IO unmodeled
    "MPI_Mprobe", "MPI_Mrecv", "MPI_Imrecv", "MPI_Comm_dup_with_info", "MPI_Ireduce_scatter",
    "MPI_Bsend_init", "MPI_Ssend_init", "MPI_Rsend_init", "MPI_File_iread", "MPI_File_iwrite",
    "MPI_File_iread_all", "MPI_File_iwrite_all", "MPI_File_iread_at_all",
    "MPI_File_iwrite_at_all", "MPI_File_read_shared", "MPI_File_write_shared",
    "MPI_File_iread_shared", "MPI_File_iwrite_shared", "MPI_File_read_ordered",
    "MPI_File_write_ordered", "MPI_File_seek_shared", "MPI_File_read_all_begin",
    "MPI_File_read_all_end", "MPI_File_write_all_begin", "MPI_File_write_all_end",
    "MPI_File_read_at_all_begin", "MPI_File_read_at_all_end", "MPI_File_write_at_all_begin",
    "MPI_File_write_at_all_end", "MPI_File_read_ordered_begin", "MPI_File_read_ordered_end",
    "MPI_File_write_ordered_begin", "MPI_File_write_ordered_end", "MPI_File_delete",
    "MPI_File_set_size", "MPI_File_preallocate"};

// Local queries (MPI_Comm_rank, MPI_Comm_size, MPI_Get_count): no communication, by the
// standard's definition local; the tracer folds them (counted, their time left in the compute
// around them) as it folds failed polls, and merge reports them apart from the polls.
inline constexpr bool is_local_query(std::string_view name) {
    return name == "MPI_Comm_rank" || name == "MPI_Comm_size" || name == "MPI_Get_count";
}

inline constexpr std::uint16_t call_index(std::string_view name) {
    for (std::size_t i = 0; i < kCallNames.size(); ++i)
        if (kCallNames[i] == name) return static_cast<std::uint16_t>(i);
    return 0xffff;
}

}  // namespace clustersim::traces::rankfile
