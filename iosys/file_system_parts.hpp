// The file system's parts (internal to iosys/): the messages, requests, files, handles and
// collective calls it keeps, the server, and the FileSystem component (the mpi::IoService a run
// gets from io_factory), whose members are defined by topic: set-up, messages and reports
// (file_system.cpp), independent operations and message delivery
// (file_system_requests.cpp), the MPI-IO operations, opens and syncs
// (file_system_mpiio.cpp), two-phase collective I/O (file_system_two_phase.cpp).
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "collectives/rank_error.hpp"
#include "iosys/cache.hpp"
#include "iosys/disk.hpp"
#include "iosys/file_system.hpp"
#include "iosys/layout.hpp"
#include "models/connections.hpp"
#include "simulator/error.hpp"
#include "simulator/pool.hpp"
#include "simulator/units.hpp"

namespace clustersim::io::fs_detail {

using mpi::Op;
using mpi::OpKind;
constexpr std::uint32_t kNil = UINT32_MAX;

enum EventKind : std::uint32_t { kDiskDone, kRankDone, kChunkCopied };

enum class MsgKind : std::uint8_t {
    WriteRequest,  // client -> server, header only
    WriteData,     // client -> server, one chunk
    WriteAck,      // server -> client
    ReadRequest,   // client -> server
    ReadData,      // server -> client, one chunk
    Exchange,      // two-phase: rank <-> aggregator
    WriteReady,    // server -> client: the response to a write request (handshake="yes")
    MetaRequest,   // client -> metadata server: one of an open's round trips
    MetaReply,     // metadata server -> client
    OpenTree,      // rank -> rank: ROMIO's broadcast and allreduce inside an open
    Connect,       // client <-> server, empty: a trip of a connection's set-up
                   // (connect-round-trips; sreq: the client rank, cycle: the server, agg:
                   // the trips still to go after it, local: 1 toward the server)
};

struct Msg {
    MsgKind kind;
    bool via_forwarder;  // this leg ends at a forwarder, which sends it on to `final_dst`
    topo::VertexId final_dst;
    std::uint32_t sreq;   // server request (WriteData/WriteRequest/ReadRequest/Ack/ReadData)
    std::uint32_t cycle;  // Exchange: the two-phase run
    std::uint32_t agg;    // Exchange: aggregator index in the run
    std::uint64_t local;  // WriteData: offset in the server's object
    std::uint64_t bytes;  // payload
};

// One client request's share at one server.
struct ServerRequest {
    std::uint32_t cop;     // client operation
    std::uint32_t server;  // index into servers_
    std::uint32_t file;
    bool write;
    std::uint32_t chunks_left;    // write: chunks not yet safe
    std::vector<Extent> extents;  // read: the object extents to read; write with the
                                  // handshake: the data waiting for the server's response
};

// One chunk inside a server.
struct ServerChunk {
    std::uint32_t sreq;
    std::uint64_t bytes;
};

// One independent operation of a client (a rank's own, or an aggregator's cycle).
struct ClientOp {
    std::int32_t rank;
    std::uint32_t file;
    bool write;
    std::uint64_t bytes;      // total to move
    std::uint64_t moved = 0;  // read: data arrived so far
    std::uint32_t acks_left = 0;
    std::uint64_t end = 0;       // write: highest file byte + 1
    std::uint32_t owner = kNil;  // two-phase run, kNil for a rank's own operation
    std::uint32_t agg = 0;
    std::uint32_t requests = 0;  // to servers (request-overhead each)
};

struct File {
    std::string name;
    std::uint64_t size = 0;
    SimpleStriping layout;
    std::uint64_t written = 0, read = 0;
};

// A rank's open file.
struct Handle {
    std::uint32_t file = kNil;
    std::uint32_t group = 0;  // communicator it was opened on
    View view;
    std::uint64_t pointer = 0;   // individual file pointer, in view bytes
    std::uint32_t coll_seq = 0;  // collective calls on this handle so far
    std::uint32_t epoch = 0;     // how many times the rank opened this file before
};

struct Group {
    std::vector<std::int32_t> members;  // world ranks
};

// Ranks gathering for one collective call on a file (or for an open).
struct Gathering {
    OpKind kind = OpKind::FileOpen;
    std::uint32_t file = kNil;
    std::uint32_t group = kNil;
    std::size_t expected = 0;
    struct Entry {
        std::int32_t rank;
        std::vector<Extent> extents;  // data calls: the rank's file extents
        std::uint64_t bytes = 0;
        std::uint32_t handle = 0;  // the rank's file handle
    };
    std::vector<Entry> entries;
};

// An open whose ranks have all entered, waiting for its metadata round trips
// (open-requests): `rank` (the communicator's first) talks to `server`.
struct PendingOpen {
    Gathering g;
    std::int32_t rank = 0;
    std::uint32_t server = 0;
    std::uint32_t left = 0;  // round trips still to start
    // open-collectives: phase 0 the broadcast of the handle, 1 the reduce of the result to
    // the first rank, 2 its broadcast back; binomial trees over the member indices.
    std::uint32_t phase = 0;
    std::uint32_t received = 0;           // broadcast phases: members reached so far
    std::vector<std::uint32_t> children;  // reduce: children not yet heard from, per member
};

// Which collective I/O algorithm an operation uses for a size.
struct IoRule {
    std::string op;
    bool two_phase;
    std::uint64_t min_bytes, max_bytes;
};

struct Server;

// Two-phase collective I/O of one call.
struct TwoPhase {
    std::uint32_t file;
    bool write;
    std::vector<Gathering::Entry> members;  // sorted by rank
    struct Agg {
        std::int32_t rank;
        std::uint64_t lo, hi, next;
        std::vector<std::size_t> cursor;         // per member: first extent not fully consumed
        std::vector<std::uint64_t> cycle_bytes;  // per member: bytes in the current cycle
        std::vector<Extent> cycle;               // the cycle's file extents, merged
        std::uint32_t pending = 0;
        bool done = false;
    };
    std::vector<Agg> aggs;
    std::size_t aggs_left = 0;
};

class FileSystem;

struct Server final : CacheHost {
    FileSystem* fs = nullptr;
    std::uint32_t index = 0;
    std::int32_t node = -1;
    topo::VertexId vertex = topo::kNoVertex;
    std::string cache_name, disk_name;
    std::unique_ptr<Disk> disk;
    std::unique_ptr<CacheLayer> cache;
    std::vector<std::uint64_t> slot_token;
    std::vector<std::uint64_t> slot_written;  // bytes the slot's request writes (0: a read)
    std::vector<std::uint32_t> free_slots;
    std::uint32_t busy = 0;
    std::uint64_t bytes_written = 0, bytes_read = 0;
    // Bytes of finished disk writes, that count when the programs finished
    // (FileSystem::programs_done; max: not yet), and when the disk's last request ended.
    std::uint64_t disk_written_done = 0, disk_written_at_end = UINT64_MAX;
    Time last_disk_done;
    void chunk_done(std::uint64_t id) override;
    void wake() override;
    Time now() const override;
    void chunk_done_at(std::uint64_t id, Time at) override;
};

class FileSystem final : public mpi::IoService, public Component {
  public:
    FileSystem(const mpi::IoContext& ctx, const IoSettings& io, const std::vector<FileDecl>& files);

    void start(std::int32_t rank, const Op& op, const std::vector<std::int32_t>* members) override;
    void message_delivered(std::uint64_t cookie) override;
    void write_ready(std::uint32_t m);   // message_delivered: WriteReady
    void read_request(std::uint32_t m);  // message_delivered: ReadRequest
    void message_injected(std::uint64_t) override {}
    std::string describe(std::int32_t rank) const override;
    mpi::IoReport report() const override;
    void programs_done() override {
        for (Server& sv : servers_) sv.disk_written_at_end = sv.disk_written_done;
    }
    void record_disks(std::vector<net::Activity>* out) override { disk_activity_ = out; }
    void handle(Engine& engine, const Event& event) override;
    std::string name() const override { return "file-system"; }

    void chunk_done(std::uint32_t server, std::uint64_t id);
    void chunk_done_at(std::uint32_t server, std::uint64_t id, Time at);
    Time now() const { return engine_.now(); }
    void pump(std::uint32_t server);

  private:
    [[noreturn]] void fail(std::int32_t rank, const Op& op, const std::string& what) const {
        throw mpi::RankError(
            rank, fmt::format("rank {}: MPI_{}: {}", rank, mpi::to_string(op.kind), what));
    }
    Handle& handle_of(std::int32_t rank, const Op& op);
    std::uint32_t file_id(const std::string& name);
    void finish_rank(std::int32_t rank, std::uint64_t bytes, Time delay = Time::zero());
    // Metadata costs of a file opened or closed by `ranks` ranks.
    Time open_cost(std::size_t ranks) const {
        return spec_.open + static_cast<std::int64_t>(ranks - 1) * spec_.open_per_rank;
    }
    // spec_.first_open if this is `rank`'s first MPI_File_open (counted), else zero.
    Time first_open(std::int32_t rank) {
        if (spec_.first_open == Time::zero()) return Time::zero();
        if (opened_.size() <= static_cast<std::size_t>(rank))
            opened_.resize(static_cast<std::size_t>(rank) + 1, false);
        if (opened_[static_cast<std::size_t>(rank)]) return Time::zero();
        opened_[static_cast<std::size_t>(rank)] = true;
        return spec_.first_open;
    }
    std::vector<bool> opened_;  // by rank: has opened a file (spec_.first_open only)
    Time close_cost(std::size_t ranks) const {
        return spec_.close + static_cast<std::int64_t>(ranks - 1) * spec_.close_per_rank;
    }
    // Independent data access of `rank` to `extents` of `file`.
    void start_client_op(std::int32_t rank, std::uint32_t file, bool write,
                         std::vector<Extent> extents, std::uint32_t owner, std::uint32_t agg);
    void client_op_done(std::uint32_t cop);
    void send(topo::VertexId from, topo::VertexId to, std::uint32_t msg, topo::VertexId via);
    // A message from client `rank` to server `s` (a request, its data, an open's lookup):
    // sent now, or, with connect-round-trips, once the pair's connection is set up (the
    // first such message starts the set-up; the others wait behind it, in order).
    void client_send(std::int32_t rank, std::uint32_t s, std::uint32_t msg);
    // A trip of a connection's set-up (message m) has arrived.
    void connect_trip(std::uint32_t m);
    topo::VertexId forwarder_of(std::int32_t rank) const { return forwarder_[rank]; }
    void arrive(std::int32_t rank, const Op& op, Handle& h, std::vector<Extent> extents,
                std::uint64_t bytes);
    void gathered(Gathering g);
    void check_syncs();
    // An open's metadata round trip: the request from the first rank to the server.
    void meta_request(std::uint32_t pending);
    void finish_open(const Gathering& g);
    // After the metadata round trips: ROMIO's collectives of the open (open-collectives),
    // then the open's end.
    void start_open_tree(std::uint32_t pending);
    void open_tree_send(std::uint32_t pending, std::uint32_t from, std::uint32_t to);
    void open_tree_arrived(std::uint32_t pending, std::uint32_t member);
    void complete_open(std::uint32_t pending);
    // The rank whose forwarder a client-server message passes through.
    std::int32_t client_rank(const Msg& msg) const;
    // Two-phase.
    void start_two_phase(Gathering& g);
    void next_cycle(std::uint32_t run, std::uint32_t agg);
    void cycle_io(std::uint32_t run, std::uint32_t agg);
    void cycle_done(std::uint32_t run, std::uint32_t agg);
    void exchange_arrived(std::uint32_t run, std::uint32_t agg);
    // Sends each member's bytes of the aggregator's cycle (to it, or from it for reads).
    void exchange(std::uint32_t run, std::uint32_t agg, bool to_aggregator);
    bool two_phase_for(OpKind kind, std::uint64_t bytes) const;

    Engine& engine_;
    net::Transport& network_;
    const topo::Topology& topo_;
    const std::vector<mpi::RankLocation>& ranks_;
    mpi::IoHost& host_;
    ComponentId id_;
    IoSettings io_;  // the model's, for this run
    const FileSystemSpec& spec_;
    std::vector<Server> servers_;            // in the file system's stripe order
    std::vector<topo::VertexId> forwarder_;  // per rank, kNoVertex if none
    std::vector<File> files_;
    std::unordered_map<std::string, std::uint32_t> file_index_;
    std::vector<std::vector<Handle>> handles_;  // per rank, by file handle
    std::vector<Group> groups_;
    std::map<std::vector<std::int32_t>, std::uint32_t> group_index_;
    // Gatherings by (group, file, open epoch, call number on the handle; 0 = the open).
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>, Gathering>
        gatherings_;
    std::unordered_map<std::uint64_t, std::uint32_t> opens_;  // (rank, file) -> opens so far
    std::vector<Gathering> syncs_;  // gathered syncs waiting for dirty data to reach disk
    Pool<Msg> msgs_;
    Pool<ServerRequest> sreqs_;
    Pool<ServerChunk> chunks_;
    Pool<ClientOp> cops_;
    Pool<PendingOpen> opens_pending_;
    // spec_.connect_round_trips only (empty otherwise): per (client rank << 32 | server),
    // whether the connection is up and the messages waiting for it.
    net::ConnectionTable<std::uint32_t> connections_;
    Pool<TwoPhase> runs_;
    std::vector<std::uint64_t> done_bytes_;  // per rank: bytes of the operation finishing
    std::vector<std::string> waiting_;       // per rank: what it waits for (describe)
    std::vector<IoRule> rules_;              // collective I/O choice per operation name
    std::vector<net::Activity>* disk_activity_ = nullptr;
    mpi::IoReport report_;
};

}  // namespace clustersim::io::fs_detail
