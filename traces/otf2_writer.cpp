// The OTF2 writer: a Trace as an OTF2 archive (NAME.otf2, NAME.def, NAME/*.evt), one location
// per rank, each record one region (ENTER/LEAVE) with the standard MPI events, communicators
// reconstructed from the trace's comm_dup/comm_split records, picoseconds as ticks.
// Fields the standard events do not carry go into `clustersim:*` attributes, so that the
// otf2 reader gives back every record (traces/README.md, "OTF2").
#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <otf2/otf2.h>

#include "simulator/error.hpp"
#include "traces/otf2.hpp"
#include "traces/otf2_common.hpp"

namespace clustersim::traces {
namespace {

namespace fs = std::filesystem;

// The library prints its errors by default; they become InputErrors instead.
OTF2_ErrorCode quiet(void*, const char*, std::uint64_t, const char*, OTF2_ErrorCode code,
                     const char*, va_list) {
    return code;
}

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
    return OTF2_FLUSH;
}
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) {
    return 0;
}

OTF2_CollectiveOp otf2_op(mpi::CollOp op) {
    using mpi::CollOp;
    switch (op) {
        case CollOp::Barrier:
            return OTF2_COLLECTIVE_OP_BARRIER;
        case CollOp::Bcast:
            return OTF2_COLLECTIVE_OP_BCAST;
        case CollOp::Reduce:
            return OTF2_COLLECTIVE_OP_REDUCE;
        case CollOp::Allreduce:
            return OTF2_COLLECTIVE_OP_ALLREDUCE;
        case CollOp::Gather:
            return OTF2_COLLECTIVE_OP_GATHER;
        case CollOp::Scatter:
            return OTF2_COLLECTIVE_OP_SCATTER;
        case CollOp::Allgather:
            return OTF2_COLLECTIVE_OP_ALLGATHER;
        case CollOp::Alltoall:
            return OTF2_COLLECTIVE_OP_ALLTOALL;
        case CollOp::ReduceScatter:
            return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
        case CollOp::Gatherv:
            return OTF2_COLLECTIVE_OP_GATHERV;
        case CollOp::Scatterv:
            return OTF2_COLLECTIVE_OP_SCATTERV;
        case CollOp::Allgatherv:
            return OTF2_COLLECTIVE_OP_ALLGATHERV;
        case CollOp::Alltoallv:
            return OTF2_COLLECTIVE_OP_ALLTOALLV;
        case CollOp::Scan:
            return OTF2_COLLECTIVE_OP_SCAN;
        case CollOp::Exscan:
            return OTF2_COLLECTIVE_OP_EXSCAN;
        case CollOp::ReduceScatterBlock:
            return OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK;
        case CollOp::Alltoallw:
            return OTF2_COLLECTIVE_OP_ALLTOALLW;
        case CollOp::NeighborAllgather:   // OTF2 has no neighbourhood collectives: these are
        case CollOp::NeighborAllgatherv:  // written as unmodeled regions (never reaches here)
        case CollOp::NeighborAlltoall:
        case CollOp::NeighborAlltoallv:
        case CollOp::NeighborAlltoallw:
            break;
    }
    return OTF2_COLLECTIVE_OP_BARRIER;
}

bool rooted(mpi::CollOp op) {
    using mpi::CollOp;
    return op == CollOp::Bcast || op == CollOp::Reduce || op == CollOp::Gather ||
           op == CollOp::Scatter || op == CollOp::Gatherv || op == CollOp::Scatterv;
}

// ---- communicators: which ranks each (rank, handle) names -----------------------------------

struct Comms {
    std::vector<std::vector<std::uint32_t>> members;  // global comm -> world ranks (in order)
    std::vector<std::int64_t> parent;                 // global comm -> parent (-1: none)
    std::vector<std::map<std::uint32_t, std::uint32_t>> handle;  // rank: handle -> global
};

struct Creation {
    std::uint32_t handle = 0, newcomm = 0;
    bool dup = false;
    std::int32_t color = 0, key = 0;
    std::int64_t grid = 0;  // MPI_Cart_create: the grid's ranks (the others get no communicator)
};

// The ranks of an MPI_Cart_create record's grid (0 if its arguments do not decode).
std::int64_t cart_grid(const Trace& t, const Record& r) {
    mpi::TopoSpec spec;
    if (r.counts < 0 || static_cast<std::size_t>(r.counts) >= t.count_lists.size() ||
        !mpi::decode_topo_spec(r.kind, t.count_lists[static_cast<std::size_t>(r.counts)], spec)
             .empty())
        return 0;
    std::int64_t n = 1;
    for (const std::int32_t d : spec.dims) n *= std::max<std::int64_t>(d, 1);
    return n;
}

Comms reconstruct(const Trace& t) {
    const std::uint32_t n = t.ranks();
    Comms c;
    c.members.emplace_back();
    for (std::uint32_t r = 0; r < n; ++r) c.members[0].push_back(r);
    c.parent.push_back(-1);
    c.handle.resize(n);
    std::vector<std::vector<Creation>> creations(n);
    for (std::uint32_t r = 0; r < n; ++r) {
        c.handle[r][0] = 0;
        Trace::Cursor cur = t.cursor(r);
        for (Record rec; cur.next(rec);)
            if (mpi::creates_comm(rec.kind))
                // A topology is a communicator like a split (Cartesian: the grid's ranks, in
                // order) or a dup (graphs); OTF2 keeps the communicator, not the topology.
                creations[r].push_back(Creation{
                    static_cast<std::uint32_t>(rec.comm), rec.newcomm,
                    rec.kind == mpi::OpKind::CommDup || rec.kind == mpi::OpKind::DistGraphCreate ||
                        rec.kind == mpi::OpKind::DistGraphCreateAdjacent,
                    rec.kind == mpi::OpKind::CartCreate ? 0 : rec.color,
                    rec.kind == mpi::OpKind::CartCreate ? 0 : rec.key,
                    rec.kind == mpi::OpKind::CartCreate ? cart_grid(t, rec) : 0});
    }
    std::vector<std::size_t> next(n, 0);
    for (bool progress = true; progress;) {
        progress = false;
        for (std::uint32_t r = 0; r < n; ++r) {
            if (next[r] >= creations[r].size()) continue;
            auto h = c.handle[r].find(creations[r][next[r]].handle);
            if (h == c.handle[r].end()) continue;
            const std::uint32_t g = h->second;
            // every member's next creation must be on g too
            bool ready = true;
            for (std::uint32_t m : c.members[g]) {
                if (next[m] >= creations[m].size()) {
                    ready = false;
                    break;
                }
                auto mh = c.handle[m].find(creations[m][next[m]].handle);
                if (mh == c.handle[m].end() || mh->second != g) {
                    ready = false;
                    break;
                }
            }
            if (!ready) continue;
            const auto members = c.members[g];
            if (creations[r][next[r]].dup) {
                const auto id = static_cast<std::uint32_t>(c.members.size());
                c.members.push_back(members);
                c.parent.push_back(g);
                for (std::uint32_t m : members) c.handle[m][creations[m][next[m]].newcomm] = id;
            } else {
                std::map<std::int32_t,
                         std::vector<std::tuple<std::int32_t, std::size_t, std::uint32_t>>>
                    by_color;
                for (std::size_t i = 0; i < members.size(); ++i) {
                    const Creation& cr = creations[members[i]][next[members[i]]];
                    if (cr.color == mpi::kUndefined) continue;
                    if (cr.grid > 0 && static_cast<std::int64_t>(i) >= cr.grid) continue;
                    by_color[cr.color].emplace_back(cr.key, i, members[i]);
                }
                for (auto& [color, list] : by_color) {
                    std::sort(list.begin(), list.end());
                    const auto id = static_cast<std::uint32_t>(c.members.size());
                    c.members.emplace_back();
                    c.parent.push_back(g);
                    for (const auto& [key, i, m] : list) {
                        c.members[id].push_back(m);
                        c.handle[m][creations[m][next[m]].newcomm] = id;
                    }
                }
            }
            for (std::uint32_t m : members) ++next[m];
            progress = true;
        }
    }
    // creations that never matched, and handles used without a creation: a communicator of
    // that rank alone, so the archive stays consistent
    for (std::uint32_t r = 0; r < n; ++r) {
        for (; next[r] < creations[r].size(); ++next[r]) {
            const Creation& cr = creations[r][next[r]];
            if (c.handle[r].count(cr.newcomm)) continue;
            c.handle[r][cr.newcomm] = static_cast<std::uint32_t>(c.members.size());
            c.members.push_back({r});
            c.parent.push_back(-1);
        }
        Trace::Cursor cur = t.cursor(r);
        for (Record rec; cur.next(rec);) {
            if (rec.comm < 0) continue;
            const auto h = static_cast<std::uint32_t>(rec.comm);
            if (c.handle[r].count(h)) continue;
            c.handle[r][h] = static_cast<std::uint32_t>(c.members.size());
            c.members.push_back({r});
            c.parent.push_back(-1);
        }
    }
    return c;
}

// ---- the archive ------------------------------------------------------------------------------

struct ArchiveCloser {
    void operator()(OTF2_Archive* a) const { OTF2_Archive_Close(a); }
};
struct ListDeleter {
    void operator()(OTF2_AttributeList* l) const { OTF2_AttributeList_Delete(l); }
};

class Writer {
  public:
    Writer(const Trace& t, std::string path, bool extensions)
        : t_(t), path_(std::move(path)), ext_(extensions) {}

    void write() {
        const fs::path anchor(path_);
        if (anchor.extension() != ".otf2")
            throw InputError(path_, 0, "an OTF2 archive's anchor file must end in .otf2");
        const fs::path dir = anchor.has_parent_path() ? anchor.parent_path() : fs::path(".");
        const std::string name = anchor.stem().string();
        std::error_code ec;
        fs::create_directories(dir, ec);
        // OTF2 refuses to overwrite an archive: remove a previous one of this name, but never a
        // folder that holds anything else than an archive's event and definition files
        const fs::path folder = dir / name;
        if (fs::exists(folder, ec)) {
            bool archive = fs::is_directory(folder, ec);
            for (const auto& e : fs::directory_iterator(folder, ec)) {
                const auto ext = e.path().extension();
                if (!e.is_regular_file() || (ext != ".evt" && ext != ".def")) archive = false;
            }
            if (!archive)
                throw InputError(path_, 0,
                                 fmt::format("'{}' exists and is not the event folder of an OTF2 "
                                             "archive: not replacing it",
                                             folder.string()));
            fs::remove_all(folder, ec);
        }
        fs::remove(dir / (name + ".otf2"), ec);
        fs::remove(dir / (name + ".def"), ec);
        comms_ = reconstruct(t_);
        OTF2_Error_RegisterCallback(quiet, nullptr);
        std::unique_ptr<OTF2_Archive, ArchiveCloser> archive(OTF2_Archive_Open(
            dir.string().c_str(), name.c_str(), OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
            OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE));
        if (!archive) throw InputError(path_, 0, "cannot create the OTF2 archive");
        OTF2_Archive* a = archive.get();
        OTF2_FlushCallbacks flush{pre_flush, post_flush};
        check(OTF2_Archive_SetFlushCallbacks(a, &flush, nullptr));
        check(OTF2_Archive_SetSerialCollectiveCallbacks(a));
        check(OTF2_Archive_SetCreator(a, "clustersim"));
        if (ext_) write_properties(a);
        check(OTF2_Archive_OpenEvtFiles(a));
        // time origin: ticks are picoseconds shifted so that none is negative
        std::int64_t lo = 0, hi = 0;
        for (std::uint32_t r = 0; r < t_.ranks(); ++r) {
            Trace::Cursor cur = t_.cursor(r);
            for (Record rec; cur.next(rec);)
                if (rec.timed) {
                    lo = std::min({lo, rec.start.ps(), rec.end.ps()});
                    hi = std::max({hi, rec.start.ps(), rec.end.ps()});
                }
        }
        shift_ = static_cast<std::uint64_t>(-lo);
        if (ext_) region(kOtf2ComputeRegion);  // marks the archive as clustersim's (the reader)
        std::unique_ptr<OTF2_AttributeList, ListDeleter> attrs(OTF2_AttributeList_New());
        attrs_ = attrs.get();
        for (std::uint32_t r = 0; r < t_.ranks(); ++r) {
            OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, r);
            if (w == nullptr) throw InputError(path_, 0, "cannot create an OTF2 event writer");
            write_rank(w, r);
            std::uint64_t n = 0;
            check(OTF2_EvtWriter_GetNumberOfEvents(w, &n));
            events_.push_back(n);
            check(OTF2_Archive_CloseEvtWriter(a, w));
        }
        check(OTF2_Archive_CloseEvtFiles(a));
        check(OTF2_Archive_OpenDefFiles(a));
        for (std::uint32_t r = 0; r < t_.ranks(); ++r) {
            OTF2_DefWriter* dw = OTF2_Archive_GetDefWriter(a, r);
            if (dw == nullptr)
                throw InputError(path_, 0, "cannot create an OTF2 definition writer");
            check(OTF2_Archive_CloseDefWriter(a, dw));
        }
        check(OTF2_Archive_CloseDefFiles(a));
        write_definitions(a, static_cast<std::uint64_t>(hi - lo));
        check(OTF2_Archive_Close(archive.release()));
    }

  private:
    // An empty value would remove the property: only non-empty ones are set.
    void write_properties(OTF2_Archive* a) {
        auto set = [&](const char* name, const std::string& value) {
            if (!value.empty()) check(OTF2_Archive_SetProperty(a, name, value.c_str(), true));
        };
        set(kOtf2PropName, t_.name);
        if (t_.traced_speed != 0) set(kOtf2PropSpeed, std::to_string(t_.traced_speed));
        set(kOtf2PropStrings, join_property_lines(t_.strings));
        std::vector<std::string> counts, files;
        for (const auto& l : t_.count_lists) counts.push_back(format_counts_attr(l));
        for (const auto& f : t_.files)
            files.push_back(fmt::format("{} {} {}", f.size, f.stripe, f.name));
        set(kOtf2PropCounts, join_property_lines(counts));
        set(kOtf2PropFiles, join_property_lines(files));
    }

    void check(OTF2_ErrorCode code) const {
        if (code != OTF2_SUCCESS)
            throw InputError(
                path_, 0,
                fmt::format("cannot write the OTF2 archive: {}: {}", OTF2_Error_GetName(code),
                            OTF2_Error_GetDescription(code)));
    }

    std::uint32_t string(const std::string& s) {
        auto [it, added] = strings_.emplace(s, static_cast<std::uint32_t>(strings_.size()));
        if (added) string_order_.push_back(s);
        return it->second;
    }
    std::uint32_t region(const std::string& name) {
        auto [it, added] = regions_.emplace(name, static_cast<std::uint32_t>(regions_.size()));
        if (added) region_order_.push_back(name);
        return it->second;
    }
    std::uint32_t attribute(const std::string& name, OTF2_Type type) {
        const std::string full = kOtf2AttrPrefix + name;
        auto [it, added] =
            attributes_.emplace(full, static_cast<std::uint32_t>(attributes_.size()));
        if (added) attribute_order_.emplace_back(full, type);
        return it->second;
    }
    void add(const char* name, std::uint64_t v) {
        if (!ext_) return;
        check(OTF2_AttributeList_AddUint64(attrs_, attribute(name, OTF2_TYPE_UINT64), v));
    }
    void add_signed(const char* name, std::int64_t v) {
        if (!ext_) return;
        check(OTF2_AttributeList_AddInt64(attrs_, attribute(name, OTF2_TYPE_INT64), v));
    }
    void add_text(const char* name, const std::string& v) {
        if (!ext_) return;
        check(
            OTF2_AttributeList_AddStringRef(attrs_, attribute(name, OTF2_TYPE_STRING), string(v)));
    }

    // A new OTF2 I/O handle for a file_open record of `rank` (its file by path, its comm).
    std::uint32_t io_handle(std::uint32_t rank, const Record& r, std::uint32_t g) {
        const std::string path = r.path >= 0 && static_cast<std::size_t>(r.path) < t_.strings.size()
                                     ? t_.strings[static_cast<std::size_t>(r.path)]
                                     : std::string();
        auto [f, added] = io_files_.emplace(path, static_cast<std::uint32_t>(io_files_.size()));
        if (added) io_file_order_.push_back(path);
        const auto h = static_cast<std::uint32_t>(io_handles_.size());
        io_handles_.push_back(IoHandleDef{f->second, g});
        open_files_[{rank, r.file}] = h;
        return h;
    }
    // The I/O handle of `rank`'s open file (a file used without an open gets one of its own).
    std::uint32_t open_handle(std::uint32_t rank, std::uint32_t file) {
        auto it = open_files_.find({rank, file});
        if (it != open_files_.end()) return it->second;
        Record none;
        none.file = file;
        return io_handle(rank, none, comm(rank, 0));
    }

    // The OTF2 communicator of `rank`'s handle.
    std::uint32_t comm(std::uint32_t rank, std::int32_t handle) const {
        if (handle < 0) return kOtf2Undef32;
        auto it = comms_.handle[rank].find(static_cast<std::uint32_t>(handle));
        return it == comms_.handle[rank].end() ? kOtf2Undef32 : it->second;
    }
    std::uint64_t comm_size(std::uint32_t g) const {
        return g < comms_.members.size() ? comms_.members[g].size() : 1;
    }
    std::size_t comm_rank(std::uint32_t g, std::uint32_t rank) const {
        if (g >= comms_.members.size()) return 0;
        const auto& m = comms_.members[g];
        return static_cast<std::size_t>(std::find(m.begin(), m.end(), rank) - m.begin());
    }

    // Score-P's sizeSent/sizeReceived of one rank's collective (the reader inverts them).
    void coll_sizes(const Record& r, std::uint32_t rank, std::uint32_t g, std::uint64_t& sent,
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

    // A collective's fields for the reader: what the sizes do not give back exactly.
    void coll_attributes(const Record& r, std::uint32_t rank, std::uint32_t g) {
        if (r.comm != 0) add_signed("comm", r.comm);
        if (r.counts >= 0 && static_cast<std::size_t>(r.counts) < t_.count_lists.size())
            add_text("counts",
                     format_counts_attr(t_.count_lists[static_cast<std::size_t>(r.counts)]));
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

    // One rank's requests while its records are written.
    struct Pending {
        Record rec;
        std::uint64_t request;
    };
    struct RankRequests {
        std::vector<bool> completed_later;                    // irecvs_completed_later
        std::unordered_map<std::uint32_t, Pending> requests;  // handle -> request
        std::uint64_t next_request = 1;
    };

    // Irecvs completed by a later wait get their MpiIrecv there; the others in the Irecv
    // (true: the record at that position is such an Irecv).
    std::vector<bool> irecvs_completed_later(std::uint32_t rank) const {
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
            if (r.kind == mpi::OpKind::Isend ||
                (r.kind == mpi::OpKind::Collective && r.nonblocking))
                open.erase(r.handle);
        }
        return completed_later;
    }

    void write_rank(OTF2_EvtWriter* w, std::uint32_t rank) {
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

    // A record's ENTER attributes, set before its ENTER event (they go with it); `duration`:
    // the record's end minus its start. Returns its region name.
    std::string enter_attributes(const Record& r, std::uint32_t rank, std::uint32_t g,
                                 std::int64_t duration) {
        std::string name;
        switch (r.kind) {
            case mpi::OpKind::Compute:
                name = kOtf2ComputeRegion;
                if (r.instructions != 0) add("instructions", r.instructions);
                if (r.compute_time.ps() != duration)
                    add_signed("compute_time", r.compute_time.ps());
                break;
            case mpi::OpKind::Unmodeled:
                name = r.path >= 0 && static_cast<std::size_t>(r.path) < t_.strings.size()
                           ? t_.strings[static_cast<std::size_t>(r.path)]
                           : "unmodeled";
                add("unmodeled", 1);
                if (r.path < 0) add("nopath", 1);
                if (r.instructions != 0) add("instructions", r.instructions);
                if (r.compute_time.ps() != duration)
                    add_signed("compute_time", r.compute_time.ps());
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
                    add_text("counts", format_counts_attr(
                                           t_.count_lists[static_cast<std::size_t>(r.counts)]));
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

    // An MPI-IO record's ENTER attributes; returns its region name.
    std::string io_attributes(const Record& r) {
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

    // The MPI events of record `i` between its ENTER (at `ts`) and its LEAVE (at `te`).
    void write_events(OTF2_EvtWriter* w, const Record& r, std::size_t i, std::uint32_t rank,
                      std::uint32_t g, OTF2_TimeStamp ts, OTF2_TimeStamp te, RankRequests& reqs) {
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

    // The I/O events of an MPI-IO record.
    void write_io_events(OTF2_EvtWriter* w, const Record& r, std::uint32_t rank, std::uint32_t g,
                         OTF2_TimeStamp ts, OTF2_TimeStamp te, RankRequests& reqs) {
        switch (r.kind) {
            case mpi::OpKind::FileOpen: {
                const std::uint32_t h = io_handle(rank, r, g);
                check(OTF2_EvtWriter_IoCreateHandle(
                    w, nullptr, te, h, OTF2_IO_ACCESS_MODE_READ_WRITE, OTF2_IO_CREATION_FLAG_NONE,
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

    // The completion event of the request of handle `h` (none if it is not open), at `te`.
    void write_completion(OTF2_EvtWriter* w, std::uint32_t rank, RankRequests& reqs,
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
                rooted(q.coll) || q.root != 0 ? static_cast<std::uint32_t>(q.root) : kOtf2Undef32,
                sent, received, p.request));
        }
    }

    void write_definitions(OTF2_Archive* a, std::uint64_t length) {
        OTF2_GlobalDefWriter* d = OTF2_Archive_GetGlobalDefWriter(a);
        if (d == nullptr) throw InputError(path_, 0, "cannot create the OTF2 definitions");
        const std::uint32_t empty = string("");
        const std::uint32_t machine = string("clustersim");
        const std::uint32_t machine_class = string("machine");
        const std::uint32_t world_name = string("MPI_COMM_WORLD");
        const std::uint32_t mpi_name = string("MPI");
        std::vector<std::uint32_t> lg_names, loc_names;
        for (std::uint32_t r = 0; r < t_.ranks(); ++r) {
            lg_names.push_back(string(fmt::format("MPI Rank {}", r)));
            loc_names.push_back(string(fmt::format("rank {}", r)));
        }
        std::vector<std::uint32_t> region_names;
        for (const auto& n : region_order_) region_names.push_back(string(n));
        std::vector<std::uint32_t> attr_names;
        for (const auto& [n, type] : attribute_order_) attr_names.push_back(string(n));
        // every string is interned before the string definitions are written
        const std::uint32_t mpiio = string("MPI-IO");
        std::vector<std::uint32_t> io_names;
        for (const auto& f : io_file_order_) io_names.push_back(string(f));
        check(OTF2_GlobalDefWriter_WriteClockProperties(d, 1'000'000'000'000ULL, shift_, length,
                                                        OTF2_UNDEFINED_TIMESTAMP));
        for (std::size_t i = 0; i < string_order_.size(); ++i)
            check(OTF2_GlobalDefWriter_WriteString(d, static_cast<std::uint32_t>(i),
                                                   string_order_[i].c_str()));
        check(OTF2_GlobalDefWriter_WriteParadigm(d, OTF2_PARADIGM_MPI, mpi_name,
                                                 OTF2_PARADIGM_CLASS_PROCESS));
        for (std::size_t i = 0; i < region_order_.size(); ++i) {
            const bool mpi = region_order_[i].rfind("MPI_", 0) == 0;
            check(OTF2_GlobalDefWriter_WriteRegion(
                d, static_cast<std::uint32_t>(i), region_names[i], region_names[i], empty,
                mpi ? OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_CODE,
                mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, empty, 0, 0));
        }
        for (std::size_t i = 0; i < attribute_order_.size(); ++i)
            check(OTF2_GlobalDefWriter_WriteAttribute(d, static_cast<std::uint32_t>(i),
                                                      attr_names[i], empty,
                                                      attribute_order_[i].second));
        check(OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, machine, machine_class,
                                                       OTF2_UNDEFINED_SYSTEM_TREE_NODE));
        for (std::uint32_t r = 0; r < t_.ranks(); ++r)
            check(OTF2_GlobalDefWriter_WriteLocationGroup(d, r, lg_names[r],
                                                          OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                          OTF2_UNDEFINED_LOCATION_GROUP));
        for (std::uint32_t r = 0; r < t_.ranks(); ++r)
            check(OTF2_GlobalDefWriter_WriteLocation(d, r, loc_names[r],
                                                     OTF2_LOCATION_TYPE_CPU_THREAD, events_[r], r));
        std::vector<std::uint64_t> locs(t_.ranks());
        for (std::uint32_t r = 0; r < t_.ranks(); ++r) locs[r] = r;
        check(OTF2_GlobalDefWriter_WriteGroup(
            d, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
            static_cast<std::uint32_t>(locs.size()), locs.data()));
        for (std::size_t c = 0; c < comms_.members.size(); ++c) {
            std::vector<std::uint64_t> m(comms_.members[c].begin(), comms_.members[c].end());
            const auto group = static_cast<std::uint32_t>(c + 1);
            check(OTF2_GlobalDefWriter_WriteGroup(d, group, empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                                  OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                                  static_cast<std::uint32_t>(m.size()), m.data()));
            check(OTF2_GlobalDefWriter_WriteComm(
                d, static_cast<std::uint32_t>(c), c == 0 ? world_name : empty, group,
                comms_.parent[c] < 0 ? OTF2_UNDEFINED_COMM
                                     : static_cast<std::uint32_t>(comms_.parent[c]),
                OTF2_COMM_FLAG_NONE));
        }
        if (!io_handles_.empty()) {
            check(OTF2_GlobalDefWriter_WriteIoParadigm(
                d, 0, mpiio, mpiio, OTF2_IO_PARADIGM_CLASS_PARALLEL, OTF2_IO_PARADIGM_FLAG_NONE, 0,
                nullptr, nullptr, nullptr));
            for (std::size_t i = 0; i < io_file_order_.size(); ++i)
                check(OTF2_GlobalDefWriter_WriteIoRegularFile(d, static_cast<std::uint32_t>(i),
                                                              io_names[i], 0));
            for (std::size_t i = 0; i < io_handles_.size(); ++i)
                check(OTF2_GlobalDefWriter_WriteIoHandle(
                    d, static_cast<std::uint32_t>(i), io_names[io_handles_[i].file],
                    io_handles_[i].file, 0, OTF2_IO_HANDLE_FLAG_NONE, io_handles_[i].comm,
                    OTF2_UNDEFINED_IO_HANDLE));
        }
        check(OTF2_Archive_CloseGlobalDefWriter(a, d));
    }

    struct IoHandleDef {
        std::uint32_t file;
        std::uint32_t comm;
    };

    const Trace& t_;
    std::string path_;
    bool ext_ = true;
    Comms comms_;
    std::map<std::string, std::uint32_t> io_files_;
    std::vector<std::string> io_file_order_;
    std::vector<IoHandleDef> io_handles_;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> open_files_;
    std::uint64_t shift_ = 0;
    OTF2_AttributeList* attrs_ = nullptr;
    std::vector<std::uint64_t> events_;
    std::map<std::string, std::uint32_t> strings_, regions_, attributes_;
    std::vector<std::string> string_order_, region_order_;
    std::vector<std::pair<std::string, OTF2_Type>> attribute_order_;
};

}  // namespace

void write_otf2(const Trace& t, const std::string& anchor_path, const Otf2WriteOptions& options) {
    Writer(t, anchor_path, options.clustersim_extensions).write();
}

}  // namespace clustersim::traces
