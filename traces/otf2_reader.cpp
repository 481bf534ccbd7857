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
#include "traces/call_mapper.hpp"
#include "traces/otf2_common.hpp"
#include "traces/otf2_rank_reader.hpp"
#include "traces/reader.hpp"
#include "traces/text.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {
namespace {

namespace fs = std::filesystem;
using otf2_in::Defs;
using otf2_in::Otf2Event;
using otf2_in::Otf2RankReader;
using otf2_in::Shared;
static_assert(kOtf2Undef32 == OTF2_UNDEFINED_UINT32);

// ---- definitions ----------------------------------------------------------------------------

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
        SharedCountLists vlists(trace);
        sh.vlists = &vlists;

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
