// The OTF2 reader's parts (otf2_reader.cpp reads the archive): the global definitions it
// keeps, the events of one MPI call, and Otf2RankReader, which turns one location's events into
// the rank's records through the shared CallMapper (call_mapper.hpp). Its callbacks, times and
// tables are in otf2_rank_reader.cpp, the mapping of a call by its events in otf2_call_map.cpp.
// Internal to the OTF2 reader: the types live in namespace otf2_in, not in an anonymous one,
// because three files share them.
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <otf2/otf2.h>

#include "traces/call_mapper.hpp"
#include "traces/otf2_common.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces::otf2_in {

__extension__ typedef __int128 Wide;

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

struct Shared {
    const Defs* defs = nullptr;
    std::string path;
    Trace* trace = nullptr;
    ReadReport* report = nullptr;
    std::uint32_t ranks = 0;
    std::int32_t world = -1;  // OTF2 comm id of MPI_COMM_WORLD
    // v-collectives: (comm, op, k-th call on it) -> count list index
    SharedCountLists* vlists = nullptr;
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
    // The records are kept until finish(): an Irecv's peer, tag and size and a
    // communicator creation's color are known only at a later event.
    Otf2RankReader(Shared& sh, std::uint32_t rank, std::uint64_t location)
        : sh_(sh),
          rank_(rank),
          location_(location),
          m_(*sh.trace, *sh.report, rank, *sh.vlists, /*buffered=*/true) {
        m_.comms().bind(static_cast<std::uint32_t>(sh.world), 0);
    }

    // ---- callbacks ----
    void enter(std::uint64_t time, std::uint64_t pos, OTF2_AttributeList* attrs,
               OTF2_RegionRef region);
    void leave(std::uint64_t time, std::uint64_t pos);
    void event(Otf2Event e);
    // `cut`: the location holds fewer events than the definitions announce, so a call left
    // open at its end was cut by the recording and is dropped (else: an error).
    void finish(bool cut = false);
    std::exception_ptr error;  // what stopped a callback (rethrown after the library returns)
    std::string dropped_call;  // finish(true): the call open at the cut, if any

    [[noreturn]] void fail(std::uint64_t pos, const std::string& what) const;

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

    Time ps(std::uint64_t ticks) const;

    void read_attributes(OTF2_AttributeList* list);

    std::vector<std::uint64_t> comm_members(std::uint32_t comm) const;
    bool self_comm(std::uint32_t comm) const;

    // The rank's handle of OTF2 communicator `comm`; creates it from the oldest pending
    // communicator-creating call if this is the communicator's first use. -1: unknown.
    std::int32_t handle_of(std::uint32_t comm);
    void bind_creation(std::size_t rec, std::uint32_t comm);

    void unmodeled(const Call& c);

    void push(Record r, const Call& c);

    std::uint64_t attr(const Call& c, const char* name, std::uint64_t def) const {
        auto it = c.attrs.values.find(name);
        return it == c.attrs.values.end() ? def : it->second;
    }
    std::int32_t sattr(const Call& c, const char* name, std::int32_t def) const {
        auto it = c.attrs.values.find(name);
        return it == c.attrs.values.end() ? def : static_cast<std::int32_t>(it->second);
    }
    std::uint32_t handle_attr(const Call& c);

    void finish_call();

    // Maps a call by its events; false: not a modelled operation (an unmodeled record).
    bool map_call(Call& c);

    // The call's first event of kind `k` (null: none).
    static const Otf2Event* first(const Call& c, Otf2Event::Kind k);

    // A point-to-point record's communicator, peer, tag and size from its event; false: an
    // unknown communicator.
    bool p2p(const Call& c, Record& r, const Otf2Event& e);

    bool map_comm_creation(const Call& c);

    bool map_sendrecv(const Call& c, const Otf2Event& s);

    // Sends, receives and their nonblocking forms; nullopt: not one of them.
    std::optional<bool> map_point_to_point(const Call& c);

    bool map_neighbor_collective(const Call& c, mpi::CollOp op, bool nonblocking);

    bool map_collective(const Call& c, mpi::CollOp op, bool nonblocking);

    bool map_file_io(const Call& c);

    // An MPI-IO record's file, size and seek from the call's I/O event `ev`; false: an I/O
    // handle not created in the trace and no clustersim:* attributes (`attrs`) to say more.
    bool io_from_event(const Call& c, Record& r, const Otf2Event& ev, bool attrs);

    bool map_completion(const Call& c);

    // The rank's handle of an event's communicator: the writer's attribute if there is one.
    std::int32_t comm_of(const Call& c, std::uint32_t comm);

    bool fill_collective(Record& r, const Otf2Event& e, const Call& c);

    // Completion events of a call: the handles they complete (and the Irecv/nonblocking
    // collective records they finish describing).
    std::vector<std::uint32_t> completions(const Call& c);
    void finish_request(const Otf2Event& e);
    // Completions reported inside the call that starts a request (an Irecv that matched at
    // once): applied to the record, the request stays open until its wait.
    void complete(const Call& c, std::size_t);

    Shared& sh_;
    std::uint32_t rank_;
    std::uint64_t location_;
    std::uint64_t depth_ = 0, call_depth_ = 0;
    bool in_call_ = false;
    Call call_;
    CallMapper m_;  // the records, the request and communicator tables, the compute gaps
    std::vector<std::size_t> creations_;  // communicator records awaiting their first use
    std::unordered_map<std::uint32_t, std::uint32_t> io_file_;  // OTF2 I/O handle -> file
    std::uint32_t next_file_ = 1;
    std::unordered_map<std::uint64_t, std::size_t> open_irecv_, open_nbc_;
};

}  // namespace clustersim::traces::otf2_in
