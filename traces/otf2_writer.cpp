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
#include "traces/otf2_writer_parts.hpp"

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

}  // namespace

namespace otf2_out {

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

void Writer::write() {
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
        if (dw == nullptr) throw InputError(path_, 0, "cannot create an OTF2 definition writer");
        check(OTF2_Archive_CloseDefWriter(a, dw));
    }
    check(OTF2_Archive_CloseDefFiles(a));
    write_definitions(a, static_cast<std::uint64_t>(hi - lo));
    check(OTF2_Archive_Close(archive.release()));
}

void Writer::write_properties(OTF2_Archive* a) {
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

void Writer::check(OTF2_ErrorCode code) const {
    if (code != OTF2_SUCCESS)
        throw InputError(path_, 0,
                         fmt::format("cannot write the OTF2 archive: {}: {}",
                                     OTF2_Error_GetName(code), OTF2_Error_GetDescription(code)));
}

std::uint32_t Writer::string(const std::string& s) {
    auto [it, added] = strings_.emplace(s, static_cast<std::uint32_t>(strings_.size()));
    if (added) string_order_.push_back(s);
    return it->second;
}

std::uint32_t Writer::region(const std::string& name) {
    auto [it, added] = regions_.emplace(name, static_cast<std::uint32_t>(regions_.size()));
    if (added) region_order_.push_back(name);
    return it->second;
}

std::uint32_t Writer::attribute(const std::string& name, OTF2_Type type) {
    const std::string full = kOtf2AttrPrefix + name;
    auto [it, added] = attributes_.emplace(full, static_cast<std::uint32_t>(attributes_.size()));
    if (added) attribute_order_.emplace_back(full, type);
    return it->second;
}

void Writer::add(const char* name, std::uint64_t v) {
    if (!ext_) return;
    check(OTF2_AttributeList_AddUint64(attrs_, attribute(name, OTF2_TYPE_UINT64), v));
}

void Writer::add_signed(const char* name, std::int64_t v) {
    if (!ext_) return;
    check(OTF2_AttributeList_AddInt64(attrs_, attribute(name, OTF2_TYPE_INT64), v));
}

void Writer::add_text(const char* name, const std::string& v) {
    if (!ext_) return;
    check(OTF2_AttributeList_AddStringRef(attrs_, attribute(name, OTF2_TYPE_STRING), string(v)));
}

std::uint32_t Writer::io_handle(std::uint32_t rank, const Record& r, std::uint32_t g) {
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

std::uint32_t Writer::open_handle(std::uint32_t rank, std::uint32_t file) {
    auto it = open_files_.find({rank, file});
    if (it != open_files_.end()) return it->second;
    Record none;
    none.file = file;
    return io_handle(rank, none, comm(rank, 0));
}

std::uint32_t Writer::comm(std::uint32_t rank, std::int32_t handle) const {
    if (handle < 0) return kOtf2Undef32;
    auto it = comms_.handle[rank].find(static_cast<std::uint32_t>(handle));
    return it == comms_.handle[rank].end() ? kOtf2Undef32 : it->second;
}

std::size_t Writer::comm_rank(std::uint32_t g, std::uint32_t rank) const {
    if (g >= comms_.members.size()) return 0;
    const auto& m = comms_.members[g];
    return static_cast<std::size_t>(std::find(m.begin(), m.end(), rank) - m.begin());
}

void Writer::write_definitions(OTF2_Archive* a, std::uint64_t length) {
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
        check(OTF2_GlobalDefWriter_WriteAttribute(d, static_cast<std::uint32_t>(i), attr_names[i],
                                                  empty, attribute_order_[i].second));
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, machine, machine_class,
                                                   OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    for (std::uint32_t r = 0; r < t_.ranks(); ++r)
        check(OTF2_GlobalDefWriter_WriteLocationGroup(
            d, r, lg_names[r], OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP));
    for (std::uint32_t r = 0; r < t_.ranks(); ++r)
        check(OTF2_GlobalDefWriter_WriteLocation(d, r, loc_names[r], OTF2_LOCATION_TYPE_CPU_THREAD,
                                                 events_[r], r));
    std::vector<std::uint64_t> locs(t_.ranks());
    for (std::uint32_t r = 0; r < t_.ranks(); ++r) locs[r] = r;
    check(OTF2_GlobalDefWriter_WriteGroup(d, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
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

}  // namespace otf2_out

void write_otf2(const Trace& t, const std::string& anchor_path, const Otf2WriteOptions& options) {
    otf2_out::Writer(t, anchor_path, options.clustersim_extensions).write();
}

}  // namespace clustersim::traces
