// The OTF2 writer's events (otf2_writer_parts.hpp): each record of a rank as a region with its
// ENTER attributes (clustersim:* fields the standard events lack) and its standard MPI and I/O
// events, requests followed from their start to their completion.
#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "traces/otf2_common.hpp"
#include "traces/otf2_writer_parts.hpp"

namespace clustersim::traces::otf2_out {

void Writer::coll_sizes(const Record& r, std::uint32_t rank, std::uint32_t g, std::uint64_t& sent,
                        std::uint64_t& received) const {
    const std::uint64_t n = comm_size(g);
    const bool root = static_cast<std::size_t>(r.root) == comm_rank(g, rank);
    const std::uint64_t b = r.bytes;
    using mpi::CollOp;
    sent = received = 0;
    const std::vector<std::uint64_t>* counts =
        r.counts >= 0 && static_cast<std::size_t>(r.counts) < t_.count_lists.size()
            ? &t_.count_lists[static_cast<std::size_t>(r.counts)]
            : nullptr;
    auto entry = [&](std::size_t i) { return counts && i < counts->size() ? (*counts)[i] : 0; };
    auto sum = [&] {
        std::uint64_t s = 0;
        if (counts)
            for (auto x : *counts) s += x;
        return s;
    };
    const std::size_t me = comm_rank(g, rank);
    switch (r.coll) {
        case CollOp::Barrier:
            break;
        case CollOp::Bcast:
            sent = root ? n * b : 0;
            received = b;
            break;
        case CollOp::Gather:
        case CollOp::Reduce:
            sent = b;
            received = root ? n * b : 0;
            break;
        case CollOp::Scatter:
            sent = root ? n * b : 0;
            received = b;
            break;
        case CollOp::Allreduce:
        case CollOp::Allgather:
        case CollOp::Alltoall:
            sent = received = n * b;
            break;
        case CollOp::ReduceScatter:
            sent = n * b;
            received = b;
            break;
        case CollOp::Gatherv:
            sent = entry(me);
            received = root ? sum() : 0;
            break;
        case CollOp::Scatterv:
            sent = root ? sum() : 0;
            received = entry(me);
            break;
        case CollOp::Allgatherv:
            sent = n * entry(me);
            received = sum();
            break;
        case CollOp::Scan:
        case CollOp::Exscan:
            sent = received = b;
            break;
        case CollOp::ReduceScatterBlock:
            sent = n * b;
            received = b;
            break;
        case CollOp::Alltoallv:
        case CollOp::Alltoallw: {
            for (std::size_t j = 0; j < n; ++j) {
                sent += entry(me * n + j);
                received += entry(j * n + me);
            }
            break;
        }
        case CollOp::NeighborAllgather:  // no OTF2 collective event (write_events)
        case CollOp::NeighborAllgatherv:
        case CollOp::NeighborAlltoall:
        case CollOp::NeighborAlltoallv:
        case CollOp::NeighborAlltoallw:
            break;
    }
}

void Writer::coll_attributes(const Record& r, std::uint32_t rank, std::uint32_t g) {
    if (r.comm != 0) add_signed("comm", r.comm);
    if (r.counts >= 0 && static_cast<std::size_t>(r.counts) < t_.count_lists.size())
        add_text("counts", format_counts_attr(t_.count_lists[static_cast<std::size_t>(r.counts)]));
    std::uint64_t sent = 0, received = 0;
    coll_sizes(r, rank, g, sent, received);
    const std::uint64_t n = std::max<std::uint64_t>(comm_size(g), 1);
    std::uint64_t back = 0;
    using mpi::CollOp;
    switch (r.coll) {
        case CollOp::Bcast:
        case CollOp::Scatter:
        case CollOp::ReduceScatter:
        case CollOp::ReduceScatterBlock:
            back = received;
            break;
        case CollOp::Gather:
        case CollOp::Reduce:
        case CollOp::Scan:
        case CollOp::Exscan:
            back = sent;
            break;
        case CollOp::Allreduce:
        case CollOp::Allgather:
        case CollOp::Alltoall:
            back = sent / n;
            break;
        default:
            back = 0;
    }
    if (r.nonblocking) {
        // the sizes come with the completion, which a wait may never report: all here
        add("handle", r.handle);
        add_signed("root", r.root);
        add("bytes", r.bytes);
    } else if (back != r.bytes) {
        add("bytes", r.bytes);
    }
}

std::vector<bool> Writer::irecvs_completed_later(std::uint32_t rank) const {
    std::vector<bool> completed_later(static_cast<std::size_t>(t_.events(rank)), false);
    std::unordered_map<std::uint32_t, std::size_t> open;
    Trace::Cursor cur = t_.cursor(rank);
    Record r;
    for (std::size_t i = 0; cur.next(r); ++i) {
        if (r.kind == mpi::OpKind::Irecv) open[r.handle] = i;
        auto done = [&](std::uint32_t h) {
            auto it = open.find(h);
            if (it != open.end()) {
                completed_later[it->second] = true;
                open.erase(it);
            }
        };
        if (r.kind == mpi::OpKind::Wait) done(r.handle);
        if (r.kind == mpi::OpKind::Waitall)
            for (std::uint32_t k = 0; k < r.count; ++k) done(r.handle + k);
        if (r.kind == mpi::OpKind::Isend || (r.kind == mpi::OpKind::Collective && r.nonblocking))
            open.erase(r.handle);
    }
    return completed_later;
}

void Writer::write_rank(OTF2_EvtWriter* w, std::uint32_t rank) {
    // Two passes over the rank's records (never all of them in memory at once).
    RankRequests reqs;
    reqs.completed_later = irecvs_completed_later(rank);
    std::int64_t now = 0;
    std::int64_t written = std::numeric_limits<std::int64_t>::min();
    Trace::Cursor cur = t_.cursor(rank);
    Record r;
    for (std::size_t i = 0; cur.next(r); ++i) {
        std::int64_t s = now, e = now;
        if (r.timed) {
            s = r.start.ps();
            e = r.end.ps();
        }
        // OTF2 needs non-decreasing timestamps on a location: a record that starts
        // before the previous one ended (or ends before it starts) is written clamped,
        // its own times in attributes
        check(OTF2_AttributeList_RemoveAllAttributes(attrs_));
        std::int64_t ws = std::max(s, written), we = std::max(e, ws);
        if (ws != s) add_signed("start", s);
        if (we != e) add_signed("end", e);
        written = we;
        const OTF2_TimeStamp ts = static_cast<std::uint64_t>(ws) + shift_;
        const OTF2_TimeStamp te = static_cast<std::uint64_t>(we) + shift_;
        now = std::max(now, e);
        if (!r.timed) add("untimed", 1);
        if (!ext_ && r.kind == mpi::OpKind::Compute) continue;  // a gap between regions
        const std::uint32_t g = comm(rank, r.comm);
        const std::uint32_t reg = region(enter_attributes(r, rank, g, e - s));
        check(OTF2_EvtWriter_Enter(w, attrs_, ts, reg));
        write_events(w, r, i, rank, g, ts, te, reqs);
        check(OTF2_EvtWriter_Leave(w, nullptr, te, reg));
    }
}

// The ENTER attributes of a collective or a communicator creation; returns its region name.
std::string Writer::group_attributes(const Record& r, std::uint32_t rank, std::uint32_t g) {
    std::string name;
    switch (r.kind) {
        case mpi::OpKind::Collective:
            name = mpi_name_of_coll(r.coll, r.nonblocking);
            if (mpi::is_neighbor(r.coll)) {
                // OTF2 has no neighbourhood collective operation: the call is a region
                // with every field in clustersim's attributes, and no MPI event.
                add_signed("comm", r.comm);
                add("bytes", r.bytes);
                if (r.nonblocking) add("handle", r.handle);
                if (r.counts >= 0 && static_cast<std::size_t>(r.counts) < t_.count_lists.size())
                    add_text("counts", format_counts_attr(
                                           t_.count_lists[static_cast<std::size_t>(r.counts)]));
                break;
            }
            coll_attributes(r, rank, g);
            break;
        case mpi::OpKind::CartCreate:
        case mpi::OpKind::DistGraphCreateAdjacent:
        case mpi::OpKind::DistGraphCreate: {
            // The communicator as a split (Cartesian: the grid's ranks) with the
            // topology's arguments in the `counts` attribute.
            name = r.kind == mpi::OpKind::CartCreate        ? "MPI_Cart_create"
                   : r.kind == mpi::OpKind::DistGraphCreate ? "MPI_Dist_graph_create"
                                                            : "MPI_Dist_graph_create_adjacent";
            const auto me = static_cast<std::int64_t>(comm_rank(g, rank));
            std::int64_t grid = r.kind == mpi::OpKind::CartCreate ? cart_grid(t_, r) : 0;
            if (grid <= 0) grid = static_cast<std::int64_t>(comm_size(g));  // all in
            add_signed("comm", r.comm);
            add_signed("color", me < grid ? 0 : mpi::kUndefined);
            add_signed("key", static_cast<std::int32_t>(me));
            add("newcomm", r.newcomm);
            if (r.counts >= 0 && static_cast<std::size_t>(r.counts) < t_.count_lists.size())
                add_text("counts",
                         format_counts_attr(t_.count_lists[static_cast<std::size_t>(r.counts)]));
            break;
        }
        case mpi::OpKind::CommDup:
        case mpi::OpKind::CommSplit:
            name = r.kind == mpi::OpKind::CommDup ? "MPI_Comm_dup" : "MPI_Comm_split";
            add_signed("comm", r.comm);
            add_signed("color", r.color);
            add_signed("key", r.key);
            add("newcomm", r.newcomm);
            break;
        default:
            break;
    }
    return name;
}

std::string Writer::enter_attributes(const Record& r, std::uint32_t rank, std::uint32_t g,
                                     std::int64_t duration) {
    std::string name;
    switch (r.kind) {
        case mpi::OpKind::Compute:
            name = kOtf2ComputeRegion;
            if (r.instructions != 0) add("instructions", r.instructions);
            if (r.compute_time.ps() != duration) add_signed("compute_time", r.compute_time.ps());
            break;
        case mpi::OpKind::Unmodeled:
            name = r.path >= 0 && static_cast<std::size_t>(r.path) < t_.strings.size()
                       ? t_.strings[static_cast<std::size_t>(r.path)]
                       : "unmodeled";
            add("unmodeled", 1);
            if (r.path < 0) add("nopath", 1);
            if (r.instructions != 0) add("instructions", r.instructions);
            if (r.compute_time.ps() != duration) add_signed("compute_time", r.compute_time.ps());
            break;
        case mpi::OpKind::Send:
            name = "MPI_Send";
            break;
        case mpi::OpKind::Recv:
            name = "MPI_Recv";
            break;
        case mpi::OpKind::Isend:
            name = "MPI_Isend";
            add("handle", r.handle);
            break;
        case mpi::OpKind::Irecv:
            name = "MPI_Irecv";
            add("handle", r.handle);
            break;
        case mpi::OpKind::Wait:
            name = "MPI_Wait";
            add("handle", r.handle);
            break;
        case mpi::OpKind::Waitall:
            name = "MPI_Waitall";
            add("handle", r.handle);
            add("count", r.count);
            break;
        case mpi::OpKind::Cancel:
            name = "MPI_Cancel";
            add("handle", r.handle);
            break;
        case mpi::OpKind::CommFree:
            name = "MPI_Comm_free";
            add_signed("comm", r.comm);
            break;
        case mpi::OpKind::WinCreate:
        case mpi::OpKind::WinFree:
        case mpi::OpKind::Put:
        case mpi::OpKind::Get:
        case mpi::OpKind::Accumulate:
        case mpi::OpKind::GetAccumulate:
        case mpi::OpKind::WinFence:
        case mpi::OpKind::WinLock:
        case mpi::OpKind::WinUnlock:
        case mpi::OpKind::WinFlush:
            // One-sided: a region named after the call, its fields in clustersim's
            // attributes (OTF2's RMA events are not written yet).
            name = std::string("MPI_") + mpi::to_string(r.kind);
            add("win", r.win);
            add_signed("peer", r.peer);
            if (r.bytes != 0) add("bytes", r.bytes);
            if (r.bytes2 != 0) add("bytes2", r.bytes2);
            if (r.count != 0) add("count", r.count);
            if (r.comm != 0) add_signed("comm", r.comm);
            break;
        case mpi::OpKind::Sendrecv:
            name = "MPI_Sendrecv";
            break;
        case mpi::OpKind::Collective:
        case mpi::OpKind::CartCreate:
        case mpi::OpKind::DistGraphCreateAdjacent:
        case mpi::OpKind::DistGraphCreate:
        case mpi::OpKind::CommDup:
        case mpi::OpKind::CommSplit:
            name = group_attributes(r, rank, g);
            break;
        default:  // MPI-IO
            name = io_attributes(r);
            break;
    }
    if (r.kind == mpi::OpKind::Send || r.kind == mpi::OpKind::Recv ||
        r.kind == mpi::OpKind::Isend || r.kind == mpi::OpKind::Irecv ||
        r.kind == mpi::OpKind::Sendrecv) {
        if (r.comm != 0) add_signed("comm", r.comm);
    }
    return name;
}

std::string Writer::io_attributes(const Record& r) {
    static const std::map<mpi::OpKind, const char*> io = {
        {mpi::OpKind::FileOpen, "MPI_File_open"},
        {mpi::OpKind::FileClose, "MPI_File_close"},
        {mpi::OpKind::FileSetView, "MPI_File_set_view"},
        {mpi::OpKind::FileSeek, "MPI_File_seek"},
        {mpi::OpKind::FileWrite, "MPI_File_write"},
        {mpi::OpKind::FileRead, "MPI_File_read"},
        {mpi::OpKind::FileWriteAt, "MPI_File_write_at"},
        {mpi::OpKind::FileReadAt, "MPI_File_read_at"},
        {mpi::OpKind::FileWriteAll, "MPI_File_write_all"},
        {mpi::OpKind::FileReadAll, "MPI_File_read_all"},
        {mpi::OpKind::FileWriteAtAll, "MPI_File_write_at_all"},
        {mpi::OpKind::FileReadAtAll, "MPI_File_read_at_all"},
        {mpi::OpKind::FileSync, "MPI_File_sync"}};
    auto it = io.find(r.kind);
    const std::string name = it != io.end() ? it->second : "MPI_Unknown";
    add("file", r.file);
    if (r.kind == mpi::OpKind::FileOpen) {
        add_signed("comm", r.comm);
        if (r.path >= 0 && static_cast<std::size_t>(r.path) < t_.strings.size())
            add_text("path", t_.strings[static_cast<std::size_t>(r.path)]);
    }
    if (r.bytes != 0) add("bytes", r.bytes);
    if (r.offset != 0) add("offset", r.offset);
    if (r.view_block != 0) add("view_block", r.view_block);
    if (r.view_stride != 0) add("view_stride", r.view_stride);
    if (r.whence != mpi::kSeekSet) add("whence", r.whence);
    return name;
}

void Writer::write_events(OTF2_EvtWriter* w, const Record& r, std::size_t i, std::uint32_t rank,
                          std::uint32_t g, OTF2_TimeStamp ts, OTF2_TimeStamp te,
                          RankRequests& reqs) {
    const auto peer = static_cast<std::uint32_t>(r.peer);
    const auto tag = static_cast<std::uint32_t>(r.tag);
    switch (r.kind) {
        case mpi::OpKind::Send:
            check(OTF2_EvtWriter_MpiSend(w, nullptr, ts, peer, g, tag, r.bytes));
            break;
        case mpi::OpKind::Recv:
            check(OTF2_EvtWriter_MpiRecv(w, nullptr, te, peer, g, tag, r.bytes));
            break;
        case mpi::OpKind::Sendrecv:
            check(OTF2_EvtWriter_MpiSend(w, nullptr, ts, peer, g, tag, r.bytes));
            check(OTF2_EvtWriter_MpiRecv(w, nullptr, te, static_cast<std::uint32_t>(r.peer2), g,
                                         static_cast<std::uint32_t>(r.tag2), r.bytes2));
            break;
        case mpi::OpKind::Isend: {
            const std::uint64_t q = reqs.next_request++;
            check(OTF2_EvtWriter_MpiIsend(w, nullptr, ts, peer, g, tag, r.bytes, q));
            reqs.requests[r.handle] = Pending{r, q};
            break;
        }
        case mpi::OpKind::Irecv: {
            const std::uint64_t q = reqs.next_request++;
            check(OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, ts, q));
            if (reqs.completed_later[i])
                reqs.requests[r.handle] = Pending{r, q};
            else
                check(OTF2_EvtWriter_MpiIrecv(w, nullptr, te, peer, g, tag, r.bytes, q));
            break;
        }
        case mpi::OpKind::Wait:
            write_completion(w, rank, reqs, r.handle, te);
            break;
        case mpi::OpKind::Waitall:
            for (std::uint32_t k = 0; k < r.count; ++k)
                write_completion(w, rank, reqs, r.handle + k, te);
            break;
        case mpi::OpKind::Collective:
            if (mpi::is_neighbor(r.coll)) break;  // no OTF2 event for these
            if (r.nonblocking) {
                const std::uint64_t q = reqs.next_request++;
                check(OTF2_EvtWriter_NonBlockingCollectiveRequest(w, nullptr, ts, q));
                reqs.requests[r.handle] = Pending{r, q};
            } else {
                std::uint64_t sent = 0, received = 0;
                coll_sizes(r, rank, g, sent, received);
                check(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, ts));
                check(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, te, otf2_op(r.coll), g,
                                                      rooted(r.coll) || r.root != 0
                                                          ? static_cast<std::uint32_t>(r.root)
                                                          : kOtf2Undef32,
                                                      sent, received));
            }
            break;
        case mpi::OpKind::CartCreate:
        case mpi::OpKind::DistGraphCreateAdjacent:
        case mpi::OpKind::DistGraphCreate: {
            const std::uint32_t created = comm(rank, static_cast<std::int32_t>(r.newcomm));
            const std::int64_t grid = cart_grid(t_, r);
            const bool in = r.kind != mpi::OpKind::CartCreate || grid <= 0 ||
                            static_cast<std::int64_t>(comm_rank(g, rank)) < grid;
            if (created != kOtf2Undef32 && in)
                check(OTF2_EvtWriter_CommCreate(w, nullptr, te, created));
            break;
        }
        case mpi::OpKind::CommDup:
        case mpi::OpKind::CommSplit: {
            const std::uint32_t created = comm(rank, static_cast<std::int32_t>(r.newcomm));
            if (created != kOtf2Undef32 && r.color != mpi::kUndefined)
                check(OTF2_EvtWriter_CommCreate(w, nullptr, te, created));
            break;
        }
        default:  // MPI-IO (the other records have no event)
            write_io_events(w, r, rank, g, ts, te, reqs);
            break;
    }
}

void Writer::write_io_events(OTF2_EvtWriter* w, const Record& r, std::uint32_t rank,
                             std::uint32_t g, OTF2_TimeStamp ts, OTF2_TimeStamp te,
                             RankRequests& reqs) {
    switch (r.kind) {
        case mpi::OpKind::FileOpen: {
            const std::uint32_t h = io_handle(rank, r, g);
            check(OTF2_EvtWriter_IoCreateHandle(w, nullptr, te, h, OTF2_IO_ACCESS_MODE_READ_WRITE,
                                                OTF2_IO_CREATION_FLAG_NONE,
                                                OTF2_IO_STATUS_FLAG_NONE));
            break;
        }
        case mpi::OpKind::FileClose:
            check(OTF2_EvtWriter_IoDestroyHandle(w, nullptr, ts, open_handle(rank, r.file)));
            break;
        case mpi::OpKind::FileSeek:
            check(OTF2_EvtWriter_IoSeek(w, nullptr, ts, open_handle(rank, r.file),
                                        static_cast<std::int64_t>(r.offset),
                                        r.whence == mpi::kSeekCur   ? OTF2_IO_SEEK_FROM_CURRENT
                                        : r.whence == mpi::kSeekEnd ? OTF2_IO_SEEK_FROM_END
                                                                    : OTF2_IO_SEEK_FROM_START,
                                        r.offset));
            break;
        case mpi::OpKind::FileSetView:
            break;
        case mpi::OpKind::FileWrite:
        case mpi::OpKind::FileRead:
        case mpi::OpKind::FileWriteAt:
        case mpi::OpKind::FileReadAt:
        case mpi::OpKind::FileWriteAll:
        case mpi::OpKind::FileReadAll:
        case mpi::OpKind::FileWriteAtAll:
        case mpi::OpKind::FileReadAtAll:
        case mpi::OpKind::FileSync: {
            using K = mpi::OpKind;
            const bool write = r.kind == K::FileWrite || r.kind == K::FileWriteAt ||
                               r.kind == K::FileWriteAll || r.kind == K::FileWriteAtAll;
            const bool all = r.kind == K::FileWriteAll || r.kind == K::FileReadAll ||
                             r.kind == K::FileWriteAtAll || r.kind == K::FileReadAtAll;
            const std::uint32_t h = open_handle(rank, r.file);
            const std::uint64_t id = reqs.next_request++;
            check(OTF2_EvtWriter_IoOperationBegin(
                w, nullptr, ts, h,
                r.kind == K::FileSync ? OTF2_IO_OPERATION_MODE_FLUSH
                : write               ? OTF2_IO_OPERATION_MODE_WRITE
                                      : OTF2_IO_OPERATION_MODE_READ,
                all ? OTF2_IO_OPERATION_FLAG_COLLECTIVE : OTF2_IO_OPERATION_FLAG_NONE, r.bytes,
                id));
            check(OTF2_EvtWriter_IoOperationComplete(w, nullptr, te, h, r.bytes, id));
            break;
        }
        default:
            break;
    }
}

void Writer::write_completion(OTF2_EvtWriter* w, std::uint32_t rank, RankRequests& reqs,
                              std::uint32_t h, OTF2_TimeStamp te) {
    auto it = reqs.requests.find(h);
    if (it == reqs.requests.end()) return;
    const Pending p = it->second;
    reqs.requests.erase(it);
    const Record& q = p.rec;
    if (q.kind == mpi::OpKind::Isend) {
        check(OTF2_EvtWriter_MpiIsendComplete(w, nullptr, te, p.request));
    } else if (q.kind == mpi::OpKind::Irecv) {
        check(OTF2_EvtWriter_MpiIrecv(w, nullptr, te, static_cast<std::uint32_t>(q.peer),
                                      comm(rank, q.comm), static_cast<std::uint32_t>(q.tag),
                                      q.bytes, p.request));
    } else {
        std::uint64_t sent = 0, received = 0;
        const std::uint32_t qg = comm(rank, q.comm);
        coll_sizes(q, rank, qg, sent, received);
        check(OTF2_EvtWriter_NonBlockingCollectiveComplete(
            w, nullptr, te, otf2_op(q.coll), qg,
            rooted(q.coll) || q.root != 0 ? static_cast<std::uint32_t>(q.root) : kOtf2Undef32, sent,
            received, p.request));
    }
}

}  // namespace clustersim::traces::otf2_out
