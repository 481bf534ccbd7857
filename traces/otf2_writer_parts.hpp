// The OTF2 writer's parts (internal; namespace otf2_out): the communicators reconstructed
// from a trace's creation records, MPI collectives as OTF2 operations, and the Writer, whose
// archive, definitions and tables are in otf2_writer.cpp and whose events per record are in
// otf2_writer_events.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <otf2/otf2.h>

#include "traces/otf2.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces::otf2_out {

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

// Which ranks each (rank, communicator handle) of `t` names, from its creation records.
Comms reconstruct(const Trace& t);

// The ranks of an MPI_Cart_create record's grid (0 if its arguments do not decode).
std::int64_t cart_grid(const Trace& t, const Record& r);
OTF2_CollectiveOp otf2_op(mpi::CollOp op);
bool rooted(mpi::CollOp op);

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

    void write();

  private:
    // An empty value would remove the property: only non-empty ones are set.
    void write_properties(OTF2_Archive* a);

    void check(OTF2_ErrorCode code) const;

    std::uint32_t string(const std::string& s);
    std::uint32_t region(const std::string& name);
    std::uint32_t attribute(const std::string& name, OTF2_Type type);
    void add(const char* name, std::uint64_t v);
    void add_signed(const char* name, std::int64_t v);
    void add_text(const char* name, const std::string& v);

    // A new OTF2 I/O handle for a file_open record of `rank` (its file by path, its comm).
    std::uint32_t io_handle(std::uint32_t rank, const Record& r, std::uint32_t g);
    // The I/O handle of `rank`'s open file (a file used without an open gets one of its own).
    std::uint32_t open_handle(std::uint32_t rank, std::uint32_t file);

    // The OTF2 communicator of `rank`'s handle.
    std::uint32_t comm(std::uint32_t rank, std::int32_t handle) const;
    std::uint64_t comm_size(std::uint32_t g) const {
        return g < comms_.members.size() ? comms_.members[g].size() : 1;
    }
    std::size_t comm_rank(std::uint32_t g, std::uint32_t rank) const;

    // Score-P's sizeSent/sizeReceived of one rank's collective (the reader inverts them).
    void coll_sizes(const Record& r, std::uint32_t rank, std::uint32_t g, std::uint64_t& sent,
                    std::uint64_t& received) const;

    // A collective's fields for the reader: what the sizes do not give back exactly.
    void coll_attributes(const Record& r, std::uint32_t rank, std::uint32_t g);

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
    std::vector<bool> irecvs_completed_later(std::uint32_t rank) const;

    void write_rank(OTF2_EvtWriter* w, std::uint32_t rank);

    // A record's ENTER attributes, set before its ENTER event (they go with it); `duration`:
    // the record's end minus its start. Returns its region name.
    std::string group_attributes(const Record& r, std::uint32_t rank, std::uint32_t g);
    std::string enter_attributes(const Record& r, std::uint32_t rank, std::uint32_t g,
                                 std::int64_t duration);

    // An MPI-IO record's ENTER attributes; returns its region name.
    std::string io_attributes(const Record& r);

    // The MPI events of record `i` between its ENTER (at `ts`) and its LEAVE (at `te`).
    void write_events(OTF2_EvtWriter* w, const Record& r, std::size_t i, std::uint32_t rank,
                      std::uint32_t g, OTF2_TimeStamp ts, OTF2_TimeStamp te, RankRequests& reqs);

    // The I/O events of an MPI-IO record.
    void write_io_events(OTF2_EvtWriter* w, const Record& r, std::uint32_t rank, std::uint32_t g,
                         OTF2_TimeStamp ts, OTF2_TimeStamp te, RankRequests& reqs);

    // The completion event of the request of handle `h` (none if it is not open), at `te`.
    void write_completion(OTF2_EvtWriter* w, std::uint32_t rank, RankRequests& reqs,
                          std::uint32_t h, OTF2_TimeStamp te);

    void write_definitions(OTF2_Archive* a, std::uint64_t length);

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

}  // namespace clustersim::traces::otf2_out
