// Otf2RankReader's mapping of one MPI call by its OTF2 events (and, in clustersim's own
// archives, its clustersim:* attributes) to records: point-to-point, collectives, MPI-IO,
// communicator creation, waits and tests (otf2_rank_reader.hpp).
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "traces/otf2_rank_reader.hpp"

namespace clustersim::traces::otf2_in {

bool Otf2RankReader::map_call(Call& c) {
    const std::string& n = *c.short_name;
    // communicator creation
    if (n == "comm_split" || n == "comm_dup" || n == "comm_create" || n == "comm_split_type" ||
        n == "comm_dup_with_info" || n == "comm_create_group" || n == "comm_idup" ||
        n == "cart_create" || n == "cart_sub" || n == "graph_create" || n == "dist_graph_create" ||
        n == "dist_graph_create_adjacent")
        return map_comm_creation(c);
    // point-to-point
    if (const Otf2Event* s = first(c, Otf2Event::Send);
        s && (n == "sendrecv" || n == "sendrecv_replace"))
        return map_sendrecv(c, *s);
    if (n == "comm_free" && c.attrs.values.count("comm")) {  // written by clustersim
        Record r;
        r.kind = mpi::OpKind::CommFree;
        r.comm = sattr(c, "comm", 0);
        push(r, c);
        return true;
    }
    // One-sided, written by clustersim (its attributes), under the trace's own names.
    if (Record r;
        c.attrs.values.count("win") && parse_record_name(n, r) && mpi::is_onesided(r.kind)) {
        r.win = static_cast<std::uint32_t>(attr(c, "win", 0));
        r.peer = static_cast<std::int32_t>(sattr(c, "peer", 0));
        r.bytes = attr(c, "bytes", 0);
        r.bytes2 = attr(c, "bytes2", 0);
        r.count = static_cast<std::uint32_t>(attr(c, "count", 0));
        r.comm = sattr(c, "comm", 0);
        push(r, c);
        return true;
    }
    if (n == "cancel" && c.attrs.values.count("handle")) {  // written by clustersim
        Record r;
        r.kind = mpi::OpKind::Cancel;
        r.handle = static_cast<std::uint32_t>(attr(c, "handle", 0));
        push(r, c);
        return true;
    }
    if (std::optional<bool> mapped = map_point_to_point(c)) return *mapped;
    // collectives
    mpi::CollOp op{};
    bool nonblocking = false;
    if (coll_from_mpi_name(c.name, op, nonblocking) && mpi::is_neighbor(op))
        return map_neighbor_collective(c, op, nonblocking);
    if (coll_from_mpi_name(c.name, op, nonblocking)) return map_collective(c, op, nonblocking);
    // MPI-IO: the OTF2 I/O events of the call (Score-P's I/O recording, clustersim's
    // writer), then the clustersim:* attributes where there are some
    if (n.rfind("file_", 0) == 0) return map_file_io(c);
    // waits and tests
    if (n == "wait" || n == "waitall" || n == "waitany" || n == "waitsome" || n == "test" ||
        n == "testall" || n == "testany" || n == "testsome")
        return map_completion(c);
    return false;
}

const Otf2Event* Otf2RankReader::first(const Call& c, Otf2Event::Kind k) {
    for (const Otf2Event& e : c.events)
        if (e.kind == k) return &e;
    return nullptr;
}

bool Otf2RankReader::p2p(const Call& c, Record& r, const Otf2Event& e) {
    const std::int32_t h = comm_of(c, e.comm);
    if (h < 0) {
        ++sh_.unknown_comm_calls;
        return false;
    }
    r.comm = h;
    r.peer = e.peer == kOtf2Undef32 ? mpi::kAnySource : static_cast<std::int32_t>(e.peer);
    r.tag = static_cast<std::int32_t>(e.tag);
    r.bytes = e.bytes;
    return true;
}

bool Otf2RankReader::map_comm_creation(const Call& c) {
    const std::string& n = *c.short_name;
    Record r;
    const bool dup = n == "comm_dup" || n == "comm_dup_with_info" || n == "comm_idup";
    r.kind = dup ? mpi::OpKind::CommDup : mpi::OpKind::CommSplit;
    if (!dup) r.color = mpi::kUndefined;  // until its communicator is known
    r.newcomm = m_.comms().create();
    push(r, c);
    const std::size_t idx = m_.buffered() - 1;
    const Otf2Event* created = first(c, Otf2Event::CommCreate);
    if (c.attrs.values.count("color") || c.attrs.values.count("newcomm")) {
        Record& w = m_.record(idx);
        // written by clustersim: a topology's arguments
        if (auto t = c.attrs.texts.find("counts"); t != c.attrs.texts.end()) {
            w.kind = n == "cart_create"                  ? mpi::OpKind::CartCreate
                     : n == "dist_graph_create_adjacent" ? mpi::OpKind::DistGraphCreateAdjacent
                     : n == "dist_graph_create"          ? mpi::OpKind::DistGraphCreate
                                                         : w.kind;
            if (mpi::creates_topology(w.kind))
                w.counts = sh_.trace->add_counts(parse_counts_attr(t->second));
        }
        w.comm = sattr(c, "comm", 0);
        const bool topology = mpi::creates_topology(w.kind);  // split by its arguments
        w.color = topology ? 0 : sattr(c, "color", 0);
        w.key = topology ? 0 : sattr(c, "key", 0);
        w.newcomm = static_cast<std::uint32_t>(attr(c, "newcomm", w.newcomm));
        m_.comms().reserve(w.newcomm);
        if (created != nullptr)
            m_.comms().bind(created->comm, static_cast<std::int32_t>(w.newcomm));
    } else if (created != nullptr) {
        bind_creation(idx, created->comm);
    } else {
        creations_.push_back(idx);
    }
    return true;
}

bool Otf2RankReader::map_sendrecv(const Call& c, const Otf2Event& s) {
    const Otf2Event* rv = first(c, Otf2Event::Recv);
    if (rv == nullptr) return false;
    Record r, q;
    r.kind = mpi::OpKind::Sendrecv;
    if (!p2p(c, r, s) || !p2p(c, q, *rv)) return false;
    r.peer2 = q.peer;
    r.tag2 = q.tag;
    r.bytes2 = q.bytes;
    push(r, c);
    return true;
}

std::optional<bool> Otf2RankReader::map_point_to_point(const Call& c) {
    const std::string& n = *c.short_name;
    if (n == "send" || n == "bsend" || n == "ssend" || n == "rsend") {
        const Otf2Event* e = first(c, Otf2Event::Send);
        Record r;
        r.kind = mpi::OpKind::Send;
        if (e == nullptr || !p2p(c, r, *e)) return false;
        push(r, c);
        return true;
    }
    if (n == "recv") {
        const Otf2Event* e = first(c, Otf2Event::Recv);
        Record r;
        r.kind = mpi::OpKind::Recv;
        if (e == nullptr || !p2p(c, r, *e)) return false;
        push(r, c);
        return true;
    }
    if (n == "isend" || n == "ibsend" || n == "issend" || n == "irsend") {
        const Otf2Event* e = first(c, Otf2Event::Isend);
        Record r;
        r.kind = mpi::OpKind::Isend;
        if (e == nullptr || !p2p(c, r, *e)) return false;
        r.handle = handle_attr(c);
        m_.requests().bind(static_cast<std::int64_t>(e->request), r.handle);
        push(r, c);
        complete(c, m_.buffered() - 1);
        return true;
    }
    if (n == "irecv") {
        const Otf2Event* e = first(c, Otf2Event::IrecvRequest);
        if (e == nullptr) return false;
        Record r;
        r.kind = mpi::OpKind::Irecv;
        r.peer = mpi::kAnySource;
        r.tag = mpi::kAnyTag;
        r.handle = handle_attr(c);
        m_.requests().bind(static_cast<std::int64_t>(e->request), r.handle);
        push(r, c);
        open_irecv_[e->request] = m_.buffered() - 1;
        complete(c, m_.buffered() - 1);
        return true;
    }
    return std::nullopt;
}

bool Otf2RankReader::map_neighbor_collective(const Call& c, mpi::CollOp op, bool nonblocking) {
    // OTF2 has no neighbourhood collective event: only clustersim's attributes say
    // what the call moved (another tracer's call is unmodeled)
    if (!c.attrs.values.count("bytes")) return false;
    Record r;
    r.kind = mpi::OpKind::Collective;
    r.coll = op;
    r.nonblocking = nonblocking;
    r.comm = sattr(c, "comm", 0);
    r.bytes = attr(c, "bytes", 0);
    if (nonblocking) r.handle = handle_attr(c);
    if (auto t = c.attrs.texts.find("counts"); t != c.attrs.texts.end())
        r.counts = sh_.trace->add_counts(parse_counts_attr(t->second));
    push(r, c);
    return true;
}

bool Otf2RankReader::map_collective(const Call& c, mpi::CollOp op, bool nonblocking) {
    const Otf2Event* e = first(c, nonblocking ? Otf2Event::NbcRequest : Otf2Event::CollEnd);
    if (e == nullptr) {
        if (nonblocking) ++sh_.nonblocking_without_events;
        return false;
    }
    Record r;
    r.kind = mpi::OpKind::Collective;
    r.coll = op;
    r.nonblocking = nonblocking;
    if (nonblocking && c.attrs.values.count("handle")) {
        // written by clustersim: every field is in the attributes
        r.handle = handle_attr(c);
        r.root = sattr(c, "root", 0);
        r.comm = sattr(c, "comm", 0);
        r.bytes = attr(c, "bytes", 0);
        if (auto t = c.attrs.texts.find("counts"); t != c.attrs.texts.end())
            r.counts = sh_.trace->add_counts(parse_counts_attr(t->second));
        m_.requests().bind(static_cast<std::int64_t>(e->request), r.handle);
        push(r, c);
        return true;
    }
    if (nonblocking) {
        r.handle = handle_attr(c);
        m_.requests().bind(static_cast<std::int64_t>(e->request), r.handle);
        push(r, c);
        open_nbc_[e->request] = m_.buffered() - 1;
        complete(c, m_.buffered() - 1);
        return true;
    }
    if (!fill_collective(r, *e, c)) return false;
    push(r, c);
    return true;
}

bool Otf2RankReader::map_file_io(const Call& c) {
    static const std::map<std::string, mpi::OpKind> io = {
        {"file_open", mpi::OpKind::FileOpen},
        {"file_close", mpi::OpKind::FileClose},
        {"file_set_view", mpi::OpKind::FileSetView},
        {"file_seek", mpi::OpKind::FileSeek},
        {"file_write", mpi::OpKind::FileWrite},
        {"file_read", mpi::OpKind::FileRead},
        {"file_write_at", mpi::OpKind::FileWriteAt},
        {"file_read_at", mpi::OpKind::FileReadAt},
        {"file_write_all", mpi::OpKind::FileWriteAll},
        {"file_read_all", mpi::OpKind::FileReadAll},
        {"file_write_at_all", mpi::OpKind::FileWriteAtAll},
        {"file_read_at_all", mpi::OpKind::FileReadAtAll},
        {"file_sync", mpi::OpKind::FileSync}};
    auto k = io.find(*c.short_name);
    if (k == io.end()) return false;
    const bool attrs = c.attrs.values.count("file") != 0;
    Record r;
    r.kind = k->second;
    const Otf2Event* ev = nullptr;
    switch (r.kind) {
        case mpi::OpKind::FileOpen:
            ev = first(c, Otf2Event::IoCreate);
            break;
        case mpi::OpKind::FileClose:
            ev = first(c, Otf2Event::IoDestroy);
            break;
        case mpi::OpKind::FileSeek:
            ev = first(c, Otf2Event::IoSeek);
            break;
        case mpi::OpKind::FileSetView:
            break;
        default:
            ev = first(c, Otf2Event::IoBegin);
            break;
    }
    if (ev == nullptr && !attrs) return false;
    if (ev != nullptr && !io_from_event(c, r, *ev, attrs)) return false;
    if (attrs) {
        r.file = static_cast<std::uint32_t>(attr(c, "file", r.file));
        r.comm = sattr(c, "comm", r.comm);
        if (auto t = c.attrs.texts.find("path"); t != c.attrs.texts.end())
            r.path = sh_.trace->intern(t->second);
        r.bytes = attr(c, "bytes", r.bytes);
        r.offset = attr(c, "offset", r.offset);
        r.view_block = attr(c, "view_block", 0);
        r.view_stride = attr(c, "view_stride", 0);
        r.whence = static_cast<std::uint8_t>(attr(c, "whence", r.whence));
    }
    push(r, c);
    return true;
}

bool Otf2RankReader::io_from_event(const Call& c, Record& r, const Otf2Event& ev, bool attrs) {
    const auto h = static_cast<std::uint32_t>(ev.request);
    if (r.kind == mpi::OpKind::FileOpen) {
        io_file_[h] = next_file_++;
        auto d = sh_.defs->io_handles.find(h);
        if (d != sh_.defs->io_handles.end()) {
            auto f = sh_.defs->io_files.find(d->second.file);
            if (f != sh_.defs->io_files.end()) r.path = sh_.trace->intern(f->second);
            if (d->second.comm != kOtf2Undef32) r.comm = std::max(handle_of(d->second.comm), 0);
        }
    }
    auto f = io_file_.find(h);
    if (f == io_file_.end() && !attrs) {
        ++sh_.io_without_open;
        return false;
    }
    if (f != io_file_.end()) r.file = f->second;
    if (ev.kind == Otf2Event::IoBegin) {
        const Otf2Event* done = first(c, Otf2Event::IoComplete);
        r.bytes = done != nullptr ? done->bytes : ev.bytes;
    }
    if (ev.kind == Otf2Event::IoSeek) {
        r.offset = ev.bytes;
        r.whence = ev.root == OTF2_IO_SEEK_FROM_CURRENT ? mpi::kSeekCur
                   : ev.root == OTF2_IO_SEEK_FROM_END   ? mpi::kSeekEnd
                                                        : mpi::kSeekSet;
    }
    if (!attrs && (r.kind == mpi::OpKind::FileWriteAt || r.kind == mpi::OpKind::FileReadAt ||
                   r.kind == mpi::OpKind::FileWriteAtAll || r.kind == mpi::OpKind::FileReadAtAll))
        ++sh_.io_offsets_unknown;
    return true;
}

bool Otf2RankReader::map_completion(const Call& c) {
    const std::string& n = *c.short_name;
    std::vector<std::uint32_t> handles = completions(c);
    if (c.attrs.values.count("handle")) {  // written by clustersim
        Record r;
        r.kind = n == "waitall" ? mpi::OpKind::Waitall : mpi::OpKind::Wait;
        r.handle = static_cast<std::uint32_t>(attr(c, "handle", 0));
        r.count = static_cast<std::uint32_t>(attr(c, "count", 0));
        push(r, c);
        return true;
    }
    if (handles.empty()) return false;
    const bool all = n == "waitall" || n == "testall";
    push_waits(handles, all, [&](const Record& r, bool last) {
        push(r, c);
        Record& pushed = m_.record(m_.buffered() - 1);
        if (!last && pushed.timed) pushed.end = c.start;
    });
    for (std::uint32_t h : handles) m_.requests().release(h);
    return true;
}

std::int32_t Otf2RankReader::comm_of(const Call& c, std::uint32_t comm) {
    if (auto it = c.attrs.values.find("comm"); it != c.attrs.values.end())
        return static_cast<std::int32_t>(it->second);
    return handle_of(comm);
}

bool Otf2RankReader::fill_collective(Record& r, const Otf2Event& e, const Call& c) {
    const std::int32_t h = comm_of(c, e.comm);
    if (h < 0) {
        ++sh_.unknown_comm_calls;
        return false;
    }
    r.comm = h;
    r.root = e.root == kOtf2Undef32 ? 0 : static_cast<std::int32_t>(e.root);
    const auto n =
        static_cast<std::uint64_t>(std::max<std::size_t>(comm_members(e.comm).size(), 1));
    using mpi::CollOp;
    switch (r.coll) {
        case CollOp::Barrier:
            r.bytes = 0;
            break;
        case CollOp::Bcast:
        case CollOp::Scatter:
        case CollOp::ReduceScatter:
        case CollOp::ReduceScatterBlock:
            r.bytes = e.received;
            break;
        case CollOp::Gather:
        case CollOp::Reduce:
        case CollOp::Scan:
        case CollOp::Exscan:
            r.bytes = e.bytes;
            break;
        case CollOp::Allreduce:
        case CollOp::Allgather:
        case CollOp::Alltoall:
            r.bytes = e.bytes / n;
            break;
        default: {  // v-collectives: one count list per call, shared by the members
            if (auto text = c.attrs.texts.find("counts"); text != c.attrs.texts.end()) {
                r.counts = sh_.trace->add_counts(parse_counts_attr(text->second));
                r.bytes = 0;
                break;
            }
            const auto members = comm_members(e.comm);
            const auto me = static_cast<std::size_t>(
                std::find(members.begin(), members.end(), rank_) - members.begin());
            const bool a2a = mpi::is_pairwise_v(r.coll);
            const std::int32_t index = m_.count_list(e.comm, r.coll, a2a ? n * n : n);
            auto& list = m_.counts(index);
            if (me < n) {
                if (r.coll == CollOp::Gatherv) list[me] = e.bytes;
                if (r.coll == CollOp::Allgatherv) list[me] = e.bytes / n;
                if (r.coll == CollOp::Scatterv) list[me] = e.received;
                if (a2a)
                    for (std::uint64_t j = 0; j < n; ++j) list[me * n + j] = e.bytes / n;
            }
            r.counts = index;
            r.bytes = 0;
        }
    }
    auto b = c.attrs.values.find("bytes");
    if (b != c.attrs.values.end()) r.bytes = b->second;
    return true;
}

std::vector<std::uint32_t> Otf2RankReader::completions(const Call& c) {
    std::vector<std::uint32_t> out;
    for (const Otf2Event& e : c.events) {
        if (e.kind == Otf2Event::Cancelled) {
            ++sh_.cancelled;
            continue;
        }
        if (e.kind != Otf2Event::IsendComplete && e.kind != Otf2Event::Irecv &&
            e.kind != Otf2Event::NbcComplete)
            continue;
        const auto h = m_.requests().find(static_cast<std::int64_t>(e.request));
        if (!h) {
            ++sh_.untracked_completions;
            continue;
        }
        // completions inside the call that started the request were applied there
        out.push_back(*h);
        finish_request(e);
    }
    return out;
}

void Otf2RankReader::finish_request(const Otf2Event& e) {
    if (e.kind == Otf2Event::Irecv) {
        auto o = open_irecv_.find(e.request);
        if (o != open_irecv_.end()) {
            Record& r = m_.record(o->second);
            const std::int32_t h = handle_of(e.comm);
            if (h >= 0) {
                r.comm = h;
                r.peer = static_cast<std::int32_t>(e.peer);
                r.tag = static_cast<std::int32_t>(e.tag);
                r.bytes = e.bytes;
            } else {
                ++sh_.unknown_comm_calls;
            }
            open_irecv_.erase(o);
        }
    } else if (e.kind == Otf2Event::NbcComplete) {
        auto o = open_nbc_.find(e.request);
        if (o != open_nbc_.end()) {
            Record& r = m_.record(o->second);
            Call none;
            fill_collective(r, e, none);
            open_nbc_.erase(o);
        }
    }
    m_.requests().close(static_cast<std::int64_t>(e.request));
}

void Otf2RankReader::complete(const Call& c, std::size_t) {
    for (const Otf2Event& e : c.events)
        if (e.kind == Otf2Event::Irecv) {
            auto o = open_irecv_.find(e.request);
            if (o != open_irecv_.end()) {
                Record& r = m_.record(o->second);
                const std::int32_t h = handle_of(e.comm);
                if (h >= 0) {
                    r.comm = h;
                    r.peer = static_cast<std::int32_t>(e.peer);
                    r.tag = static_cast<std::int32_t>(e.tag);
                    r.bytes = e.bytes;
                }
                open_irecv_.erase(o);
            }
        }
}

}  // namespace clustersim::traces::otf2_in
