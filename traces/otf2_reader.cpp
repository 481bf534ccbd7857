// The OTF2 reader (Score-P and any other OTF2 writer), through Debian's OTF2 library
// (libotf2-trace-dev). What is mapped, counted and skipped: traces/README.md, "OTF2".
//
//  - Ranks: the MPI COMM_LOCATIONS group (member i = the location of world rank i); without
//    one, the first location of each PROCESS location group. Other locations (threads) are
//    counted and ignored.
//  - Each outermost MPI region (ENTER/LEAVE of a region named MPI_*) is one call: its MPI
//    events (MpiSend, MpiIsend, MpiRecv, MpiIrecvRequest, MpiIrecv, MpiIsendComplete,
//    MpiCollectiveEnd, NonBlockingCollective*, MpiRequestCancelled, CommCreate) decide its
//    record. A call whose events do not describe a modelled operation becomes an
//    `unmodeled` record of its recorded duration, counted per name in ReadReport::unmodeled.
//  - The time between two calls is a timed compute record; non-MPI regions are part of it.
//  - Timestamps: ticks since the clock's global offset, converted to picoseconds (nearest).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>
#include <otf2/otf2.h>

#include "simulator/error.hpp"
#include "traces/otf2_common.hpp"
#include "traces/reader.hpp"
#include "traces/text.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {
namespace {

namespace fs = std::filesystem;
__extension__ typedef __int128 Wide;
static_assert(kOtf2Undef32 == OTF2_UNDEFINED_UINT32);

// ---- definitions ----------------------------------------------------------------------------

struct Defs {
    std::uint64_t ticks_per_s = 1;
    std::uint64_t offset = 0;
    std::unordered_map<std::uint32_t, std::string> strings;
    std::unordered_map<std::uint32_t, std::string> regions;  // region -> name
    struct Location {
        std::uint32_t name = 0;
        std::uint8_t type = 0;
        std::uint64_t events = 0;
        std::uint32_t group = 0;
    };
    std::map<std::uint64_t, Location> locations;
    std::map<std::uint32_t, std::uint8_t> location_groups;  // id -> type
    struct Group {
        std::uint8_t type = 0;
        std::uint8_t paradigm = 0;
        std::vector<std::uint64_t> members;
    };
    std::unordered_map<std::uint32_t, Group> groups;
    struct Comm {
        std::string name;
        std::uint32_t group = 0;
        std::uint32_t parent = kOtf2Undef32;
    };
    std::map<std::uint32_t, Comm> comms;
    std::map<std::string, std::uint32_t> attributes;          // name -> attribute id
    std::unordered_map<std::uint32_t, std::string> io_files;  // IoRegularFile -> its name
    struct IoHandle {
        std::uint32_t file = kOtf2Undef32;
        std::uint32_t comm = kOtf2Undef32;
    };
    std::unordered_map<std::uint32_t, IoHandle> io_handles;
    // clustersim:* attributes: id -> the name without the prefix
    std::unordered_map<std::uint32_t, std::string> clustersim_attributes;

    std::string str(std::uint32_t id) const {
        auto it = strings.find(id);
        return it == strings.end() ? std::string() : it->second;
    }
};

OTF2_CallbackCode def_clock(void* u, std::uint64_t res, std::uint64_t off, std::uint64_t,
                            std::uint64_t) {
    auto* d = static_cast<Defs*>(u);
    d->ticks_per_s = res;
    d->offset = off;
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_string(void* u, OTF2_StringRef self, const char* s) {
    static_cast<Defs*>(u)->strings[self] = s != nullptr ? s : "";
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_region(void* u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef,
                             OTF2_StringRef, OTF2_RegionRole, OTF2_Paradigm, OTF2_RegionFlag,
                             OTF2_StringRef, std::uint32_t, std::uint32_t) {
    auto* d = static_cast<Defs*>(u);
    d->regions[self] = d->str(name);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_location(void* u, OTF2_LocationRef self, OTF2_StringRef name,
                               OTF2_LocationType type, std::uint64_t events,
                               OTF2_LocationGroupRef group) {
    static_cast<Defs*>(u)->locations[self] = Defs::Location{name, type, events, group};
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_location_group(void* u, OTF2_LocationGroupRef self, OTF2_StringRef,
                                     OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef,
                                     OTF2_LocationGroupRef) {
    static_cast<Defs*>(u)->location_groups[self] = type;
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_group(void* u, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type,
                            OTF2_Paradigm paradigm, OTF2_GroupFlag, std::uint32_t n,
                            const std::uint64_t* members) {
    Defs::Group g;
    g.type = type;
    g.paradigm = paradigm;
    g.members.assign(members, members + n);
    static_cast<Defs*>(u)->groups[self] = std::move(g);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_comm(void* u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                           OTF2_CommRef parent, OTF2_CommFlag) {
    auto* d = static_cast<Defs*>(u);
    d->comms[self] = Defs::Comm{d->str(name), group, parent};
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_io_file(void* u, OTF2_IoFileRef self, OTF2_StringRef name,
                              OTF2_SystemTreeNodeRef) {
    auto* d = static_cast<Defs*>(u);
    d->io_files[self] = d->str(name);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_io_handle(void* u, OTF2_IoHandleRef self, OTF2_StringRef, OTF2_IoFileRef file,
                                OTF2_IoParadigmRef, OTF2_IoHandleFlag, OTF2_CommRef comm,
                                OTF2_IoHandleRef) {
    static_cast<Defs*>(u)->io_handles[self] = Defs::IoHandle{file, comm};
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_attribute(void* u, OTF2_AttributeRef self, OTF2_StringRef name,
                                OTF2_StringRef, OTF2_Type) {
    auto* d = static_cast<Defs*>(u);
    const std::string n = d->str(name);
    d->attributes[n] = self;
    const std::string prefix = kOtf2AttrPrefix;
    if (n.rfind(prefix, 0) == 0) d->clustersim_attributes[self] = n.substr(prefix.size());
    return OTF2_CALLBACK_SUCCESS;
}

// ---- events of one rank -------------------------------------------------------------------

struct Otf2Event {
    enum Kind : std::uint8_t {
        Send,
        Isend,
        IsendComplete,
        IrecvRequest,
        Recv,
        Irecv,
        CollEnd,
        NbcRequest,
        NbcComplete,
        Cancelled,
        CommCreate,
        IoCreate,  // request = the I/O handle
        IoDestroy,
        IoBegin,     // op = mode, tag = flags, bytes = requested
        IoComplete,  // bytes = done
        IoSeek,      // bytes = the requested offset (int64), root = whence
    } kind;
    std::uint32_t peer = 0, comm = 0, tag = 0, root = 0;
    std::uint8_t op = 0;
    std::uint64_t bytes = 0, received = 0, request = 0;
    std::uint64_t index = 0;  // event position on the location (errors)
};

// A few (name, value) pairs: find/count/end like a map, no allocation once warm (the keys
// point at the attribute names of the definitions).
template <typename V>
class FlatMap {
  public:
    using Item = std::pair<std::string_view, V>;
    using const_iterator = typename std::vector<Item>::const_iterator;
    const_iterator find(std::string_view k) const {
        for (auto it = items_.begin(); it != items_.end(); ++it)
            if (it->first == k) return it;
        return items_.end();
    }
    std::size_t count(std::string_view k) const { return find(k) != items_.end() ? 1 : 0; }
    const_iterator end() const { return items_.end(); }
    void set(std::string_view k, V v) {
        for (auto& it : items_)
            if (it.first == k) {
                it.second = std::move(v);
                return;
            }
        items_.emplace_back(k, std::move(v));
    }
    void clear() { items_.clear(); }

  private:
    std::vector<Item> items_;
};

// Per-call attributes the clustersim OTF2 writer adds (fields OTF2 events do not carry).
struct CallAttrs {
    FlatMap<std::uint64_t> values;
    FlatMap<std::string> texts;
};

class Otf2RankReader;

struct Shared {
    const Defs* defs = nullptr;
    std::string path;
    Trace* trace = nullptr;
    ReadReport* report = nullptr;
    std::uint32_t ranks = 0;
    std::int32_t world = -1;  // OTF2 comm id of MPI_COMM_WORLD
    // v-collectives: (comm, op, k-th call on it) -> count list index
    std::map<std::tuple<std::uint32_t, std::uint8_t, std::uint64_t>, std::int32_t> vlists;
    std::uint64_t unknown_comm_calls = 0, unmatched_creations = 0, parentless = 0;
    std::uint64_t nonblocking_without_events = 0, cancelled = 0, untracked_completions = 0;
    std::uint64_t open_irecvs = 0;
    std::uint64_t io_without_open = 0, io_offsets_unknown = 0, events_outside_calls = 0;
    // Locations whose event file holds another number of events than the definitions
    // announce (APEX writes such archives): "location L (rank R): N of E events[, its last
    // call (MPI_X) cut]", one per location.
    std::vector<std::string> short_locations;
    // Written by clustersim's OTF2 writer: every record is a region (compute included) with
    // clustersim:* attributes; no compute is synthesized between regions.
    bool clustersim = false;
    // region -> its name without "MPI_", lower case
    std::unordered_map<std::uint32_t, std::string> short_names;
};

class Otf2RankReader {
  public:
    Otf2RankReader(Shared& sh, std::uint32_t rank, std::uint64_t location)
        : sh_(sh), rank_(rank), location_(location) {
        comm_handle_[static_cast<std::uint32_t>(sh.world)] = 0;
    }

    // ---- callbacks ----
    void enter(std::uint64_t time, std::uint64_t pos, OTF2_AttributeList* attrs,
               OTF2_RegionRef region) {
        ++depth_;
        if (in_call_) return;  // nested inside an MPI call: part of it
        auto it = sh_.defs->regions.find(region);
        if (it == sh_.defs->regions.end())
            fail(pos, fmt::format("ENTER of region {}, which is not defined", region));
        const std::string& name = it->second;
        const bool mpi = name.rfind("MPI_", 0) == 0;
        const bool compute = name == kOtf2ComputeRegion;
        if (!mpi && !compute && !sh_.clustersim) return;  // user code: part of the compute
        in_call_ = true;
        call_depth_ = depth_;
        call_.name = name;
        call_.short_name = &sh_.short_names[region];
        call_.compute = compute;
        call_.events.clear();
        call_.attrs.values.clear();
        call_.attrs.texts.clear();
        call_.start = ps(time);
        call_.index = pos;
        read_attributes(attrs);
    }
    void leave(std::uint64_t time, std::uint64_t pos) {
        if (depth_ == 0) fail(pos, "LEAVE without a matching ENTER");
        if (in_call_ && depth_ == call_depth_) {
            in_call_ = false;
            call_.end = ps(time);
            if (call_.end < call_.start)
                fail(pos, fmt::format("LEAVE of {} at {} ps, before its ENTER at {} ps", call_.name,
                                      call_.end.ps(), call_.start.ps()));
            finish_call();
        }
        --depth_;
    }
    void event(Otf2Event e) {
        if (!in_call_) {  // outside any MPI region (e.g. from a progress thread): ignored
            ++sh_.events_outside_calls;
            return;
        }
        call_.events.push_back(e);
    }
    // `cut`: the location holds fewer events than the definitions announce, so a call left
    // open at its end was cut by the recording and is dropped (else: an error).
    void finish(bool cut = false) {
        if (depth_ != 0 && in_call_) {
            if (!cut) fail(call_.index, fmt::format("the location ends inside {}", call_.name));
            dropped_call = call_.name;
        }
        sh_.unmatched_creations += creations_.size();
        creations_.clear();
        // Irecvs never completed keep any-source/any-tag and 0 bytes.
        sh_.open_irecvs += open_irecv_.size();
        Trace& t = *sh_.trace;
        for (const Record& r : records_) t.append(rank_, r);
    }
    std::exception_ptr error;  // what stopped a callback (rethrown after the library returns)
    std::string dropped_call;  // finish(true): the call open at the cut, if any

    [[noreturn]] void fail(std::uint64_t pos, const std::string& what) const {
        throw InputError(
            sh_.path, 0,
            fmt::format("location {} (rank {}) event {}: {}", location_, rank_, pos, what));
    }

  private:
    struct Call {
        std::string name;
        const std::string* short_name = nullptr;  // "isend" for MPI_Isend
        bool compute = false;
        Time start, end;
        std::uint64_t index = 0;
        std::vector<Otf2Event> events;
        CallAttrs attrs;
    };

    Time ps(std::uint64_t ticks) const {
        const Wide d = static_cast<Wide>(ticks) - static_cast<Wide>(sh_.defs->offset);
        const Wide tps = static_cast<Wide>(sh_.defs->ticks_per_s);
        const Wide num = d * 1'000'000'000'000;
        Wide q = num / tps;
        const Wide r = num % tps;
        if (2 * (r < 0 ? -r : r) >= tps) q += num < 0 ? -1 : 1;
        return Time::ps(static_cast<std::int64_t>(q));
    }

    void read_attributes(OTF2_AttributeList* list) {
        if (list == nullptr || sh_.defs->clustersim_attributes.empty()) return;
        const std::uint32_t n = OTF2_AttributeList_GetNumberOfElements(list);
        for (std::uint32_t i = 0; i < n; ++i) {
            OTF2_AttributeRef id;
            OTF2_Type type;
            OTF2_AttributeValue v;
            if (OTF2_AttributeList_GetAttributeByIndex(list, i, &id, &type, &v) != OTF2_SUCCESS)
                continue;
            auto it = sh_.defs->clustersim_attributes.find(id);
            if (it == sh_.defs->clustersim_attributes.end()) continue;
            const std::string_view name = it->second;
            if (type == OTF2_TYPE_STRING)
                call_.attrs.texts.set(name, sh_.defs->str(v.stringRef));
            else if (type == OTF2_TYPE_UINT64)
                call_.attrs.values.set(name, v.uint64);
            else if (type == OTF2_TYPE_INT64)
                call_.attrs.values.set(name, static_cast<std::uint64_t>(v.int64));
        }
    }

    std::uint32_t new_handle() {
        if (!free_handles_.empty()) {
            const std::uint32_t h = *free_handles_.begin();
            free_handles_.erase(free_handles_.begin());
            return h;
        }
        return next_handle_++;
    }
    void release(std::uint32_t h) { free_handles_.insert(h); }

    std::vector<std::uint64_t> comm_members(std::uint32_t comm) const {
        auto it = sh_.defs->comms.find(comm);
        if (it == sh_.defs->comms.end()) return {};
        auto g = sh_.defs->groups.find(it->second.group);
        if (g == sh_.defs->groups.end()) return {};
        if (g->second.type == OTF2_GROUP_TYPE_COMM_SELF) return {rank_};
        return g->second.members;
    }
    bool self_comm(std::uint32_t comm) const {
        auto it = sh_.defs->comms.find(comm);
        if (it == sh_.defs->comms.end()) return false;
        auto g = sh_.defs->groups.find(it->second.group);
        return g != sh_.defs->groups.end() && g->second.type == OTF2_GROUP_TYPE_COMM_SELF;
    }

    // The rank's handle of OTF2 communicator `comm`; creates it from the oldest pending
    // communicator-creating call if this is the communicator's first use. -1: unknown.
    std::int32_t handle_of(std::uint32_t comm) {
        auto it = comm_handle_.find(comm);
        if (it != comm_handle_.end()) return it->second;
        if (creations_.empty() || sh_.defs->comms.count(comm) == 0) return -1;
        const std::size_t rec = creations_.front();
        creations_.erase(creations_.begin());
        bind_creation(rec, comm);
        return comm_handle_.at(comm);
    }
    void bind_creation(std::size_t rec, std::uint32_t comm) {
        if (sh_.defs->comms.count(comm) == 0) {  // a CommCreate of an undefined communicator
            ++sh_.unmatched_creations;
            return;
        }
        Record& r = records_[rec];
        comm_handle_[comm] = static_cast<std::int32_t>(r.newcomm);
        const auto& c = sh_.defs->comms.at(comm);
        std::int32_t parent = 0;
        if (c.parent != kOtf2Undef32) {
            auto p = comm_handle_.find(c.parent);
            if (p != comm_handle_.end())
                parent = p->second;
            else
                ++sh_.parentless;
        } else {
            ++sh_.parentless;
        }
        r.comm = parent;
        if (r.kind == mpi::OpKind::CommSplit) {
            const auto members = comm_members(comm);
            if (self_comm(comm)) {
                r.color = static_cast<std::int32_t>(sh_.defs->comms.size() + rank_);
                r.key = 0;
            } else {
                r.color = static_cast<std::int32_t>(comm);
                auto pos = std::find(members.begin(), members.end(), rank_);
                r.key = static_cast<std::int32_t>(pos - members.begin());
            }
        }
    }

    void unmodeled(const Call& c) {
        Record r;
        r.kind = mpi::OpKind::Unmodeled;
        r.path = c.attrs.values.count("nopath") ? kNone : sh_.trace->intern(c.name);
        r.instructions = attr(c, "instructions", 0);
        r.compute_time = Time::ps(static_cast<std::int64_t>(
            attr(c, "compute_time", static_cast<std::uint64_t>((c.end - c.start).ps()))));
        push(r, c);
        ++sh_.report->unmodeled[c.name];
        if (c.name == "MPI_Finalize") sh_.report->finalized.insert(rank_);
    }

    void push(Record r, const Call& c) {
        // untimed, written by clustersim from an untimed record
        auto u = c.attrs.values.find("untimed");
        if (u != c.attrs.values.end() && u->second != 0) {
            r.timed = false;
        } else {
            r.timed = true;
            r.start = c.start;
            r.end = c.end;
            // clamped by the writer (OTF2 timestamps never decrease): the record's own times
            if (auto s = c.attrs.values.find("start"); s != c.attrs.values.end())
                r.start = Time::ps(static_cast<std::int64_t>(s->second));
            if (auto e = c.attrs.values.find("end"); e != c.attrs.values.end())
                r.end = Time::ps(static_cast<std::int64_t>(e->second));
        }
        records_.push_back(r);
    }

    void gap_before(Time start) {
        if (start > last_end_ && have_last_) {
            Record r;
            r.kind = mpi::OpKind::Compute;
            r.compute_time = start - last_end_;
            r.timed = true;
            r.start = last_end_;
            r.end = start;
            records_.push_back(r);
        } else if (!have_last_ && start > Time::zero()) {
            Record r;
            r.kind = mpi::OpKind::Compute;
            r.compute_time = start;
            r.timed = true;
            r.start = Time::zero();
            r.end = start;
            records_.push_back(r);
        }
    }

    std::uint64_t attr(const Call& c, const char* name, std::uint64_t def) const {
        auto it = c.attrs.values.find(name);
        return it == c.attrs.values.end() ? def : it->second;
    }
    std::int32_t sattr(const Call& c, const char* name, std::int32_t def) const {
        auto it = c.attrs.values.find(name);
        return it == c.attrs.values.end() ? def : static_cast<std::int32_t>(it->second);
    }
    std::uint32_t handle_attr(const Call& c) {
        auto it = c.attrs.values.find("handle");
        return it != c.attrs.values.end() ? static_cast<std::uint32_t>(it->second) : new_handle();
    }

    void finish_call() {
        Call& c = call_;
        if (!sh_.clustersim) gap_before(c.start);
        if (c.start > last_end_ || !have_last_) last_end_ = c.end;
        last_end_ = std::max(last_end_, c.end);
        have_last_ = true;
        if (c.compute) {
            Record r;
            r.kind = mpi::OpKind::Compute;
            r.instructions = attr(c, "instructions", 0);
            r.compute_time = Time::ps(static_cast<std::int64_t>(
                attr(c, "compute_time", static_cast<std::uint64_t>((c.end - c.start).ps()))));
            push(r, c);
            return;
        }
        if (c.attrs.values.count("unmodeled") || !map_call(c)) unmodeled(c);
    }

    // Maps a call by its events; false: not a modelled operation (an unmodeled record).
    bool map_call(Call& c) {
        const std::string& n = *c.short_name;
        // communicator creation
        if (n == "comm_split" || n == "comm_dup" || n == "comm_create" || n == "comm_split_type" ||
            n == "comm_dup_with_info" || n == "comm_create_group" || n == "comm_idup" ||
            n == "cart_create" || n == "cart_sub" || n == "graph_create" ||
            n == "dist_graph_create" || n == "dist_graph_create_adjacent")
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

    // The call's first event of kind `k` (null: none).
    static const Otf2Event* first(const Call& c, Otf2Event::Kind k) {
        for (const Otf2Event& e : c.events)
            if (e.kind == k) return &e;
        return nullptr;
    }

    // A point-to-point record's communicator, peer, tag and size from its event; false: an
    // unknown communicator.
    bool p2p(const Call& c, Record& r, const Otf2Event& e) {
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

    bool map_comm_creation(const Call& c) {
        const std::string& n = *c.short_name;
        Record r;
        const bool dup = n == "comm_dup" || n == "comm_dup_with_info" || n == "comm_idup";
        r.kind = dup ? mpi::OpKind::CommDup : mpi::OpKind::CommSplit;
        if (!dup) r.color = mpi::kUndefined;  // until its communicator is known
        r.newcomm = next_comm_++;
        push(r, c);
        const std::size_t idx = records_.size() - 1;
        const Otf2Event* created = first(c, Otf2Event::CommCreate);
        if (c.attrs.values.count("color") || c.attrs.values.count("newcomm")) {
            Record& w = records_[idx];
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
            next_comm_ = std::max(next_comm_, w.newcomm + 1);
            if (created != nullptr)
                comm_handle_[created->comm] = static_cast<std::int32_t>(w.newcomm);
        } else if (created != nullptr) {
            bind_creation(idx, created->comm);
        } else {
            creations_.push_back(idx);
        }
        return true;
    }

    bool map_sendrecv(const Call& c, const Otf2Event& s) {
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

    // Sends, receives and their nonblocking forms; nullopt: not one of them.
    std::optional<bool> map_point_to_point(const Call& c) {
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
            requests_[e->request] = r.handle;
            push(r, c);
            complete(c, records_.size() - 1);
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
            requests_[e->request] = r.handle;
            push(r, c);
            open_irecv_[e->request] = records_.size() - 1;
            complete(c, records_.size() - 1);
            return true;
        }
        return std::nullopt;
    }

    bool map_neighbor_collective(const Call& c, mpi::CollOp op, bool nonblocking) {
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

    bool map_collective(const Call& c, mpi::CollOp op, bool nonblocking) {
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
            requests_[e->request] = r.handle;
            push(r, c);
            return true;
        }
        if (nonblocking) {
            r.handle = handle_attr(c);
            requests_[e->request] = r.handle;
            push(r, c);
            open_nbc_[e->request] = records_.size() - 1;
            complete(c, records_.size() - 1);
            return true;
        }
        if (!fill_collective(r, *e, c)) return false;
        push(r, c);
        return true;
    }

    bool map_file_io(const Call& c) {
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

    // An MPI-IO record's file, size and seek from the call's I/O event `ev`; false: an I/O
    // handle not created in the trace and no clustersim:* attributes (`attrs`) to say more.
    bool io_from_event(const Call& c, Record& r, const Otf2Event& ev, bool attrs) {
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
        if (!attrs &&
            (r.kind == mpi::OpKind::FileWriteAt || r.kind == mpi::OpKind::FileReadAt ||
             r.kind == mpi::OpKind::FileWriteAtAll || r.kind == mpi::OpKind::FileReadAtAll))
            ++sh_.io_offsets_unknown;
        return true;
    }

    bool map_completion(const Call& c) {
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
        std::vector<std::uint32_t> sorted = handles;
        std::sort(sorted.begin(), sorted.end());
        const bool contiguous = sorted.back() - sorted.front() + 1 == sorted.size();
        if (all && contiguous && sorted.size() > 1) {
            Record r;
            r.kind = mpi::OpKind::Waitall;
            r.handle = sorted.front();
            r.count = static_cast<std::uint32_t>(sorted.size());
            push(r, c);
        } else {
            // one Wait per request, the last one ends with the call
            for (std::size_t i = 0; i < handles.size(); ++i) {
                Record r;
                r.kind = mpi::OpKind::Wait;
                r.handle = handles[i];
                push(r, c);
                if (i + 1 < handles.size() && records_.back().timed) records_.back().end = c.start;
            }
        }
        for (std::uint32_t h : handles) release(h);
        return true;
    }

    // The rank's handle of an event's communicator: the writer's attribute if there is one.
    std::int32_t comm_of(const Call& c, std::uint32_t comm) {
        if (auto it = c.attrs.values.find("comm"); it != c.attrs.values.end())
            return static_cast<std::int32_t>(it->second);
        return handle_of(comm);
    }

    bool fill_collective(Record& r, const Otf2Event& e, const Call& c) {
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
                const std::uint64_t k = vcalls_[{e.comm, static_cast<std::uint8_t>(r.coll)}]++;
                const auto key = std::make_tuple(e.comm, static_cast<std::uint8_t>(r.coll), k);
                auto it = sh_.vlists.find(key);
                const bool a2a = mpi::is_pairwise_v(r.coll);
                if (it == sh_.vlists.end()) {
                    sh_.trace->count_lists.emplace_back(a2a ? n * n : n, 0);
                    it = sh_.vlists
                             .emplace(key,
                                      static_cast<std::int32_t>(sh_.trace->count_lists.size() - 1))
                             .first;
                }
                auto& list = sh_.trace->count_lists[static_cast<std::size_t>(it->second)];
                if (me < n) {
                    if (r.coll == CollOp::Gatherv) list[me] = e.bytes;
                    if (r.coll == CollOp::Allgatherv) list[me] = e.bytes / n;
                    if (r.coll == CollOp::Scatterv) list[me] = e.received;
                    if (a2a)
                        for (std::uint64_t j = 0; j < n; ++j) list[me * n + j] = e.bytes / n;
                }
                r.counts = it->second;
                r.bytes = 0;
            }
        }
        auto b = c.attrs.values.find("bytes");
        if (b != c.attrs.values.end()) r.bytes = b->second;
        return true;
    }

    // Completion events of a call: the handles they complete (and the Irecv/nonblocking
    // collective records they finish describing).
    std::vector<std::uint32_t> completions(const Call& c) {
        std::vector<std::uint32_t> out;
        for (const Otf2Event& e : c.events) {
            if (e.kind == Otf2Event::Cancelled) {
                ++sh_.cancelled;
                continue;
            }
            if (e.kind != Otf2Event::IsendComplete && e.kind != Otf2Event::Irecv &&
                e.kind != Otf2Event::NbcComplete)
                continue;
            auto it = requests_.find(e.request);
            if (it == requests_.end()) {
                ++sh_.untracked_completions;
                continue;
            }
            // completions inside the call that started the request were applied there
            out.push_back(it->second);
            finish_request(e);
        }
        return out;
    }
    void finish_request(const Otf2Event& e) {
        if (e.kind == Otf2Event::Irecv) {
            auto o = open_irecv_.find(e.request);
            if (o != open_irecv_.end()) {
                Record& r = records_[o->second];
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
                Record& r = records_[o->second];
                Call none;
                fill_collective(r, e, none);
                open_nbc_.erase(o);
            }
        }
        requests_.erase(e.request);
    }
    // Completions reported inside the call that starts a request (an Irecv that matched at
    // once): applied to the record, the request stays open until its wait.
    void complete(const Call& c, std::size_t) {
        for (const Otf2Event& e : c.events)
            if (e.kind == Otf2Event::Irecv) {
                auto o = open_irecv_.find(e.request);
                if (o != open_irecv_.end()) {
                    Record& r = records_[o->second];
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

    Shared& sh_;
    std::uint32_t rank_;
    std::uint64_t location_;
    std::uint64_t depth_ = 0, call_depth_ = 0;
    bool in_call_ = false;
    Call call_;
    std::vector<Record> records_;
    Time last_end_;
    bool have_last_ = false;
    std::unordered_map<std::uint32_t, std::int32_t> comm_handle_;
    std::uint32_t next_comm_ = 1;
    std::vector<std::size_t> creations_;  // communicator records awaiting their first use
    std::unordered_map<std::uint32_t, std::uint32_t> io_file_;  // OTF2 I/O handle -> file
    std::uint32_t next_file_ = 1;
    std::unordered_map<std::uint64_t, std::uint32_t> requests_;  // OTF2 request -> handle
    std::unordered_map<std::uint64_t, std::size_t> open_irecv_, open_nbc_;
    std::set<std::uint32_t> free_handles_;
    std::uint32_t next_handle_ = 0;
    std::map<std::pair<std::uint32_t, std::uint8_t>, std::uint64_t> vcalls_;
};

// ---- event callbacks: forward to the Otf2RankReader -------------------------------------------

Otf2RankReader* rr(void* u) {
    return static_cast<Otf2RankReader*>(u);
}

// No exception may cross the C library: a callback that fails stops the reading
// (OTF2_CALLBACK_INTERRUPT) and its exception is rethrown once the library returned.
template <typename F>
OTF2_CallbackCode guarded(void* u, F f) {
    try {
        f();
        return OTF2_CALLBACK_SUCCESS;
    } catch (...) {
        rr(u)->error = std::current_exception();
        return OTF2_CALLBACK_INTERRUPT;
    }
}

OTF2_CallbackCode ev_enter(OTF2_LocationRef, OTF2_TimeStamp t, std::uint64_t pos, void* u,
                           OTF2_AttributeList* a, OTF2_RegionRef region) {
    return guarded(u, [&] { rr(u)->enter(t, pos, a, region); });
}
OTF2_CallbackCode ev_leave(OTF2_LocationRef, OTF2_TimeStamp t, std::uint64_t pos, void* u,
                           OTF2_AttributeList*, OTF2_RegionRef) {
    return guarded(u, [&] { rr(u)->leave(t, pos); });
}
OTF2_CallbackCode ev_send(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                          OTF2_AttributeList*, std::uint32_t peer, OTF2_CommRef comm,
                          std::uint32_t tag, std::uint64_t len) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::Send, peer, comm, tag, 0, 0, len, 0, 0, pos});
    });
}
OTF2_CallbackCode ev_isend(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                           OTF2_AttributeList*, std::uint32_t peer, OTF2_CommRef comm,
                           std::uint32_t tag, std::uint64_t len, std::uint64_t req) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::Isend, peer, comm, tag, 0, 0, len, 0, req, pos});
    });
}
OTF2_CallbackCode ev_isend_complete(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                                    OTF2_AttributeList*, std::uint64_t req) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::IsendComplete, 0, 0, 0, 0, 0, 0, 0, req, pos});
    });
}
OTF2_CallbackCode ev_irecv_request(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                                   OTF2_AttributeList*, std::uint64_t req) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::IrecvRequest, 0, 0, 0, 0, 0, 0, 0, req, pos});
    });
}
OTF2_CallbackCode ev_recv(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                          OTF2_AttributeList*, std::uint32_t peer, OTF2_CommRef comm,
                          std::uint32_t tag, std::uint64_t len) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::Recv, peer, comm, tag, 0, 0, len, 0, 0, pos});
    });
}
OTF2_CallbackCode ev_irecv(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                           OTF2_AttributeList*, std::uint32_t peer, OTF2_CommRef comm,
                           std::uint32_t tag, std::uint64_t len, std::uint64_t req) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::Irecv, peer, comm, tag, 0, 0, len, 0, req, pos});
    });
}
OTF2_CallbackCode ev_cancelled(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                               OTF2_AttributeList*, std::uint64_t req) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::Cancelled, 0, 0, 0, 0, 0, 0, 0, req, pos});
    });
}
OTF2_CallbackCode ev_coll_end(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                              OTF2_AttributeList*, OTF2_CollectiveOp op, OTF2_CommRef comm,
                              std::uint32_t root, std::uint64_t sent, std::uint64_t received) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::CollEnd, 0, comm, 0, root, op, sent, received, 0, pos});
    });
}
OTF2_CallbackCode ev_nbc_request(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                                 OTF2_AttributeList*, std::uint64_t req) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::NbcRequest, 0, 0, 0, 0, 0, 0, 0, req, pos});
    });
}
OTF2_CallbackCode ev_nbc_complete(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                                  OTF2_AttributeList*, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                  std::uint32_t root, std::uint64_t sent, std::uint64_t received,
                                  std::uint64_t req) {
    return guarded(u, [&] {
        rr(u)->event(
            Otf2Event{Otf2Event::NbcComplete, 0, comm, 0, root, op, sent, received, req, pos});
    });
}
OTF2_CallbackCode ev_comm_create(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                                 OTF2_AttributeList*, OTF2_CommRef comm) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::CommCreate, 0, comm, 0, 0, 0, 0, 0, 0, pos});
    });
}

OTF2_CallbackCode ev_io_create(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                               OTF2_AttributeList*, OTF2_IoHandleRef h, OTF2_IoAccessMode,
                               OTF2_IoCreationFlag, OTF2_IoStatusFlag) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::IoCreate, 0, 0, 0, 0, 0, 0, 0, h, pos});
    });
}
OTF2_CallbackCode ev_io_destroy(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                                OTF2_AttributeList*, OTF2_IoHandleRef h) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::IoDestroy, 0, 0, 0, 0, 0, 0, 0, h, pos});
    });
}
OTF2_CallbackCode ev_io_begin(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                              OTF2_AttributeList*, OTF2_IoHandleRef h, OTF2_IoOperationMode mode,
                              OTF2_IoOperationFlag flags, std::uint64_t bytes, std::uint64_t) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::IoBegin, 0, 0, flags, 0, mode, bytes, 0, h, pos});
    });
}
OTF2_CallbackCode ev_io_complete(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                                 OTF2_AttributeList*, OTF2_IoHandleRef h, std::uint64_t bytes,
                                 std::uint64_t) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::IoComplete, 0, 0, 0, 0, 0, bytes, 0, h, pos});
    });
}
OTF2_CallbackCode ev_io_seek(OTF2_LocationRef, OTF2_TimeStamp, std::uint64_t pos, void* u,
                             OTF2_AttributeList*, OTF2_IoHandleRef h, std::int64_t offset,
                             OTF2_IoSeekOption whence, std::uint64_t) {
    return guarded(u, [&] {
        rr(u)->event(Otf2Event{Otf2Event::IoSeek, 0, 0, 0, whence, 0,
                               static_cast<std::uint64_t>(offset), 0, h, pos});
    });
}

// OTF2 reports errors through a callback (by default to stderr); keep the last message.
thread_local std::string g_otf2_error;
OTF2_ErrorCode on_otf2_error(void*, const char*, std::uint64_t, const char*, OTF2_ErrorCode code,
                             const char* msg, va_list args) {
    char buf[512];
    std::vsnprintf(buf, sizeof buf, msg, args);
    g_otf2_error = buf;
    return code;
}

struct ReaderCloser {
    void operator()(OTF2_Reader* r) const { OTF2_Reader_Close(r); }
};

std::string otf2_error(OTF2_ErrorCode code) {
    if (!g_otf2_error.empty()) return g_otf2_error;
    return fmt::format("{}: {}", OTF2_Error_GetName(code), OTF2_Error_GetDescription(code));
}

void check(OTF2_ErrorCode code, const std::string& path, const std::string& what) {
    if (code != OTF2_SUCCESS)
        throw InputError(path, 0, fmt::format("{}: {}", what, otf2_error(code)));
}

// The anchor file of `path` (a .otf2 file, or a folder holding exactly one).
std::string anchor_of(const std::string& path) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) return path;
    std::string found;
    for (const auto& e : fs::directory_iterator(path, ec)) {
        if (e.path().extension() != ".otf2" || !e.is_regular_file()) continue;
        if (e.path().filename().string().rfind('.', 0) == 0) continue;  // hidden ("._x.otf2")
        if (!found.empty())
            throw InputError(path, 0, "the folder holds more than one OTF2 anchor file (.otf2)");
        found = e.path().string();
    }
    if (found.empty()) throw InputError(path, 0, "the folder holds no OTF2 anchor file (.otf2)");
    return found;
}

// An archive property's value, if set.
std::optional<std::string> property(OTF2_Reader* r, const char* name) {
    char* v = nullptr;
    if (OTF2_Reader_GetProperty(r, name, &v) != OTF2_SUCCESS || v == nullptr) return std::nullopt;
    std::string out(v);
    std::free(v);
    return out;
}

// The metadata and tables clustersim's writer stores as archive properties.
void read_properties(OTF2_Reader* r, const std::string& path, Trace& t) {
    if (auto v = property(r, kOtf2PropName)) t.name = *v;
    if (auto v = property(r, kOtf2PropSpeed)) {
        auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), t.traced_speed);
        if (ec != std::errc() || p != v->data() + v->size())
            throw InputError(
                path, 0,
                fmt::format("property {}: expected an integer, got '{}'", kOtf2PropSpeed, *v));
    }
    if (auto v = property(r, kOtf2PropStrings)) t.strings = split_property_lines(*v);
    if (auto v = property(r, kOtf2PropCounts))
        for (const std::string& line : split_property_lines(*v))
            t.count_lists.push_back(parse_counts_attr(line));
    if (auto v = property(r, kOtf2PropFiles))
        for (const std::string& line : split_property_lines(*v)) {
            io::FileDecl f;
            std::istringstream in(line);
            in >> f.size >> f.stripe;
            in.get();
            std::getline(in, f.name);
            if (!in && !in.eof())
                throw InputError(path, 0,
                                 fmt::format("property {}: bad line '{}'", kOtf2PropFiles, line));
            t.files.push_back(f);
        }
}

// The archive's files besides the anchor (for `convert`'s size figures): the global
// definitions and the per-location files in the folder of the anchor's name.
void list_otf2_inputs(const std::string& path, ReadReport& report) {
    const fs::path anchor(path);
    const fs::path stem = anchor.parent_path() / anchor.stem();
    std::error_code ec;
    if (fs::is_regular_file(stem.string() + ".def", ec))
        report.inputs.push_back(stem.string() + ".def");
    if (fs::is_directory(stem, ec))
        for (const auto& e : fs::recursive_directory_iterator(stem, ec))
            if (e.is_regular_file(ec)) report.inputs.push_back(e.path().string());
}

Defs read_otf2_global_defs(OTF2_Reader* r, const std::string& path) {
    Defs defs;
    OTF2_GlobalDefReader* gdr = OTF2_Reader_GetGlobalDefReader(r);
    if (gdr == nullptr) throw InputError(path, 0, "cannot read the global definitions");
    OTF2_GlobalDefReaderCallbacks* cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, def_location_group);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, def_attribute);
    OTF2_GlobalDefReaderCallbacks_SetIoRegularFileCallback(cb, def_io_file);
    OTF2_GlobalDefReaderCallbacks_SetIoHandleCallback(cb, def_io_handle);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, cb, &defs);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    std::uint64_t n = 0;
    check(OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &n), path, "global definitions");
    OTF2_Reader_CloseGlobalDefReader(r, gdr);
    return defs;
}

// The location of each rank: the MPI COMM_LOCATIONS group, else the first location of each
// process.
std::vector<std::uint64_t> otf2_rank_locations(const Defs& defs, const std::string& path,
                                               ReadReport& report) {
    std::vector<std::uint64_t> rank_location;
    for (const auto& [id, g] : defs.groups)
        if (g.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && g.paradigm == OTF2_PARADIGM_MPI) {
            rank_location = g.members;
            break;
        }
    if (rank_location.empty()) {
        std::set<std::uint32_t> seen;
        for (const auto& [id, l] : defs.locations) {
            auto lg = defs.location_groups.find(l.group);
            if (lg == defs.location_groups.end() || lg->second != OTF2_LOCATION_GROUP_TYPE_PROCESS)
                continue;
            if (seen.insert(l.group).second) rank_location.push_back(id);
        }
        report.notes.push_back("no MPI location group: one rank per process (its first location)");
    }
    if (rank_location.empty()) throw InputError(path, 0, "the archive defines no locations");
    for (std::uint64_t loc : rank_location)
        if (defs.locations.count(loc) == 0)
            throw InputError(path, 0,
                             fmt::format("the MPI locations name location {}, which is not "
                                         "defined",
                                         loc));
    return rank_location;
}

// MPI_COMM_WORLD: a parentless communicator over every rank
void find_otf2_world(const Defs& defs, Shared& sh, ReadReport& report) {
    for (const auto& [id, c] : defs.comms) {
        auto g = defs.groups.find(c.group);
        if (c.parent != kOtf2Undef32 || g == defs.groups.end()) continue;
        if (g->second.type != OTF2_GROUP_TYPE_COMM_GROUP || g->second.members.size() != sh.ranks)
            continue;
        if (sh.world < 0 || c.name == "MPI_COMM_WORLD") sh.world = static_cast<std::int32_t>(id);
    }
    if (sh.world < 0) {
        sh.world = std::numeric_limits<std::int32_t>::max();
        report.notes.push_back("no communicator over every rank: MPI_COMM_WORLD not defined");
    }
}

OTF2_EvtReaderCallbacks* new_otf2_event_callbacks() {
    OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, ev_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, ev_nbc_request);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, ev_nbc_complete);
    OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, ev_comm_create);
    OTF2_EvtReaderCallbacks_SetIoCreateHandleCallback(cb, ev_io_create);
    OTF2_EvtReaderCallbacks_SetIoDestroyHandleCallback(cb, ev_io_destroy);
    OTF2_EvtReaderCallbacks_SetIoOperationBeginCallback(cb, ev_io_begin);
    OTF2_EvtReaderCallbacks_SetIoOperationCompleteCallback(cb, ev_io_complete);
    OTF2_EvtReaderCallbacks_SetIoSeekCallback(cb, ev_io_seek);
    return cb;
}

// Selects the ranks' locations, reads their local definitions (where there are some) and
// opens the event files.
void open_otf2_locations(OTF2_Reader* r, const std::vector<std::uint64_t>& rank_location,
                         const std::string& path) {
    for (std::uint64_t loc : rank_location)
        check(OTF2_Reader_SelectLocation(r, loc), path, "select location");
    const bool defs_open = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    check(OTF2_Reader_OpenEvtFiles(r), path, "open the event files");
    for (std::uint64_t loc : rank_location) {
        if (defs_open) {
            OTF2_DefReader* dr = OTF2_Reader_GetDefReader(r, loc);
            if (dr != nullptr) {
                std::uint64_t n = 0;
                check(OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n), path,
                      fmt::format("local definitions of location {}", loc));
                OTF2_Reader_CloseDefReader(r, dr);
            }
        }
    }
    if (defs_open) OTF2_Reader_CloseDefFiles(r);
}

// Reads the events of `rank` (at location `loc`) into the trace.
void read_otf2_rank(OTF2_Reader* r, OTF2_EvtReaderCallbacks* cb, Shared& sh, std::uint32_t rank,
                    std::uint64_t loc) {
    const std::string& path = sh.path;
    OTF2_EvtReader* er = OTF2_Reader_GetEvtReader(r, loc);
    if (er == nullptr) {
        const fs::path evt =
            fs::path(path).parent_path() / fs::path(path).stem() / fmt::format("{}.evt", loc);
        std::error_code ec;
        throw InputError(
            path, 0,
            fmt::format("location {} (rank {}): cannot open its events ({})", loc, rank,
                        fs::exists(evt, ec) ? otf2_error(OTF2_ERROR_INVALID)
                                            : "'" + evt.string() + "' is missing"));
    }
    Otf2RankReader rank_reader(sh, rank, loc);
    check(OTF2_Reader_RegisterEvtCallbacks(r, er, cb, &rank_reader), path, "callbacks");
    std::uint64_t n = 0;
    g_otf2_error.clear();
    const OTF2_ErrorCode code = OTF2_Reader_ReadAllLocalEvents(r, er, &n);
    if (rank_reader.error) std::rethrow_exception(rank_reader.error);
    if (code != OTF2_SUCCESS)
        throw InputError(
            path, 0,
            fmt::format("location {} (rank {}) event {}: {}", loc, rank, n + 1, otf2_error(code)));
    // Definitions that announce more events than the event file holds (APEX writes them;
    // otf2-print reads what is there): read as far as the library reads, with a warning.
    // A file the library cannot read returned its error code above.
    const std::uint64_t expected = sh.defs->locations.at(loc).events;
    const bool cut = expected != 0 && n != expected;
    rank_reader.finish(cut);
    if (cut)
        sh.short_locations.push_back(
            fmt::format("location {} (rank {}): {} of {} events{}", loc, rank, n, expected,
                        rank_reader.dropped_call.empty()
                            ? ""
                            : fmt::format(", its last call ({}) cut", rank_reader.dropped_call)));
    OTF2_Reader_CloseEvtReader(r, er);
}

// The notes of what was read approximately or skipped.
void add_otf2_notes(const Shared& sh, std::uint64_t other_locations, std::uint64_t other_events,
                    ReadReport& report) {
    if (!sh.short_locations.empty()) {
        std::string list;
        for (std::size_t i = 0; i < sh.short_locations.size() && i < 4; ++i)
            list += fmt::format("{}{}", i == 0 ? "" : "; ", sh.short_locations[i]);
        if (sh.short_locations.size() > 4)
            list += fmt::format("; and {} more", sh.short_locations.size() - 4);
        report.warnings.push_back(fmt::format(
            "{} of {} location{}: the event file holds another number of events than the "
            "definitions announce ({}): read as far as the OTF2 library reads; the run replays "
            "what was read",
            sh.short_locations.size(), sh.ranks, sh.ranks == 1 ? "" : "s", list));
    }
    if (other_locations > 0)
        report.notes.push_back(
            fmt::format("{} location(s) that are not MPI ranks (threads) ignored, {} events",
                        other_locations, other_events));
    if (sh.nonblocking_without_events > 0)
        report.notes.push_back(fmt::format(
            "{} nonblocking collective call(s) without NonBlockingCollective events (Score-P "
            "before 7 records none): kept as unmodeled calls, their completing waits too",
            sh.nonblocking_without_events));
    if (sh.parentless > 0)
        report.notes.push_back(
            fmt::format("{} communicator creation(s) whose communicator has no parent in the "
                        "definitions: split from MPI_COMM_WORLD",
                        sh.parentless));
    if (sh.unmatched_creations > 0)
        report.notes.push_back(
            fmt::format("{} communicator creation(s) whose communicator is never used: color "
                        "MPI_UNDEFINED",
                        sh.unmatched_creations));
    if (sh.unknown_comm_calls > 0)
        report.notes.push_back(fmt::format(
            "{} call(s) on a communicator with no creating call on that rank: unmodeled",
            sh.unknown_comm_calls));
    if (sh.untracked_completions > 0)
        report.notes.push_back(
            fmt::format("{} completion event(s) of requests not started in the trace: ignored",
                        sh.untracked_completions));
    if (sh.cancelled > 0)
        report.notes.push_back(
            fmt::format("{} cancelled request(s): their Wait is kept", sh.cancelled));
    if (sh.events_outside_calls > 0)
        report.notes.push_back(fmt::format("{} MPI or I/O event(s) outside any MPI region: ignored",
                                           sh.events_outside_calls));
    if (sh.io_without_open > 0)
        report.notes.push_back(
            fmt::format("{} MPI-IO call(s) on an I/O handle not created in the trace: unmodeled",
                        sh.io_without_open));
    if (sh.io_offsets_unknown > 0)
        report.notes.push_back(fmt::format(
            "{} explicit-offset MPI-IO call(s): OTF2's I/O events carry no offset, 0 is used",
            sh.io_offsets_unknown));
    if (sh.open_irecvs > 0)
        report.notes.push_back(fmt::format(
            "{} Irecv(s) never completed in the trace: any source, any tag, 0 B", sh.open_irecvs));
}

class Otf2Reader final : public TraceReader {
  public:
    std::string name() const override { return "otf2"; }
    std::string description() const override {
        return "OTF2 archive (Score-P): the anchor file NAME.otf2 with NAME.def and NAME/";
    }
    bool sniff(const std::string& path, const std::string& head) const override {
        // A folder holding one archive is read through its anchor (anchor_of): it is the
        // anchor's sniff, so found without --format.
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            try {
                const std::string anchor = anchor_of(path);
                return sniff(anchor, read_head(anchor));
            } catch (const InputError&) {
                return false;
            }
        }
        // The anchor file: a small binary header holding "OTF2" near its start.
        return fs::path(path).extension() == ".otf2" &&
               head.substr(0, 16).find("OTF2") != std::string::npos;
    }
    Trace read(const std::string& given, const ReadOptions&, ReadReport& report) const override {
        const std::string path = anchor_of(given);
        list_otf2_inputs(path, report);
        refuse_non_file(path);
        g_otf2_error.clear();
        OTF2_Error_RegisterCallback(on_otf2_error, nullptr);
        std::unique_ptr<OTF2_Reader, ReaderCloser> reader(OTF2_Reader_Open(path.c_str()));
        if (!reader)
            throw InputError(path, 0,
                             fmt::format("not a readable OTF2 archive: {}",
                                         g_otf2_error.empty() ? "cannot open" : g_otf2_error));
        OTF2_Reader* r = reader.get();
        check(OTF2_Reader_SetSerialCollectiveCallbacks(r), path, "OTF2 reader");

        const Defs defs = read_otf2_global_defs(r, path);
        bool sh_clustersim = false;
        for (const auto& [id, name] : defs.regions)
            if (name == kOtf2ComputeRegion) sh_clustersim = true;
        if (defs.ticks_per_s == 0)
            throw InputError(path, 0, "the clock properties give 0 ticks per second");

        // ranks
        const std::vector<std::uint64_t> rank_location = otf2_rank_locations(defs, path, report);

        Shared sh;
        sh.clustersim = sh_clustersim;
        sh.defs = &defs;
        for (const auto& [id, name] : defs.regions)
            sh.short_names[id] = name.rfind("MPI_", 0) == 0 ? ascii_lower(name.substr(4)) : name;
        sh.path = path;
        sh.report = &report;
        sh.ranks = static_cast<std::uint32_t>(rank_location.size());
        find_otf2_world(defs, sh, report);

        Trace trace;
        trace.resize(sh.ranks);
        trace.source = given;
        trace.name = fs::path(path).stem().string();
        read_properties(r, path, trace);
        sh.trace = &trace;

        std::uint64_t other_locations = 0, other_events = 0;
        {
            std::set<std::uint64_t> ranks(rank_location.begin(), rank_location.end());
            for (const auto& [id, l] : defs.locations)
                if (!ranks.count(id)) {
                    ++other_locations;
                    other_events += l.events;
                }
        }

        std::unique_ptr<OTF2_EvtReaderCallbacks, void (*)(OTF2_EvtReaderCallbacks*)> cb_owner(
            new_otf2_event_callbacks(), OTF2_EvtReaderCallbacks_Delete);
        open_otf2_locations(r, rank_location, path);
        for (std::uint32_t rank = 0; rank < sh.ranks; ++rank)
            read_otf2_rank(r, cb_owner.get(), sh, rank, rank_location[rank]);
        OTF2_Reader_CloseEvtFiles(r);

        add_otf2_notes(sh, other_locations, other_events, report);
        return trace;
    }
};

}  // namespace

std::unique_ptr<TraceReader> make_otf2_reader() {
    return std::make_unique<Otf2Reader>();
}

}  // namespace clustersim::traces
