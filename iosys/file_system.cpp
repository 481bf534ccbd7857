#include "iosys/file_system.hpp"

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
#include "iosys/layout.hpp"
#include "models/connections.hpp"
#include "simulator/error.hpp"
#include "simulator/pool.hpp"
#include "simulator/units.hpp"

namespace clustersim::io {
namespace {

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

void check_distribution(const topo::Topology& t, const IoSettings& io) {
    const auto& fs = io.fs;
    if (fs.distribution != "simple-striping")
        throw InputError(t.source, fs.line,
                         fmt::format("<file-system> distribution '{}' is unknown; valid: {}",
                                     fs.distribution, distribution_names()));
    if (fs.stripe == 0)
        throw InputError(t.source, fs.line, "<file-system> stripe (chunk) size must be > 0");
}

// The servers in stripe order: the <file-system> list, or every server in document order.
std::vector<std::int32_t> server_order(const IoSettings& io) {
    std::vector<std::int32_t> order = io.fs.servers;
    if (order.empty())
        for (std::size_t i = 0; i < io.servers.size(); ++i)
            order.push_back(static_cast<std::int32_t>(i));
    return order;
}

// Collective I/O algorithm rules: --algorithm overrides first (they win), then the model's.
std::vector<IoRule> io_rules(const topo::Topology& t, const mpi::MpiSettings& mpi,
                             const std::vector<std::string>& overrides) {
    std::vector<IoRule> rules;
    auto parse_alg = [&](const std::string& name, bool& two_phase) {
        if (name == "two_phase") return two_phase = true, true;
        if (name == "independent") return two_phase = false, true;
        return false;
    };
    for (const auto& o : overrides) {
        const auto eq = o.find('=');
        if (eq == std::string::npos || !mpi::is_io_collective_name(o.substr(0, eq))) continue;
        bool tp = false;
        if (!parse_alg(o.substr(eq + 1), tp))
            throw InputError(
                "--algorithm", 0,
                fmt::format("'{}': collective I/O '{}' has no algorithm '{}'; valid: {}", o,
                            o.substr(0, eq), o.substr(eq + 1), collective_io_names()));
        rules.push_back(IoRule{o.substr(0, eq), tp, 0, UINT64_MAX});
    }
    for (const auto& r : mpi.collectives) {
        if (!mpi::is_io_collective_name(r.operation)) continue;
        bool tp = false;
        if (!parse_alg(r.algorithm, tp))
            throw InputError(t.source, r.line,
                             fmt::format("collective I/O '{}' has no algorithm '{}'; valid: {}",
                                         r.operation, r.algorithm, collective_io_names()));
        rules.push_back(IoRule{r.operation, tp, r.min_bytes, r.max_bytes});
    }
    return rules;
}

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

void Server::chunk_done(std::uint64_t id) {
    fs->chunk_done(index, id);
}
void Server::wake() {
    fs->pump(index);
}
Time Server::now() const {
    return fs->now();
}
void Server::chunk_done_at(std::uint64_t id, Time at) {
    fs->chunk_done_at(index, id, at);
}

FileSystem::FileSystem(const mpi::IoContext& ctx, const IoSettings& io_settings,
                       const std::vector<FileDecl>& files)
    : engine_(ctx.engine),
      network_(ctx.network),
      topo_(ctx.topology),
      ranks_(ctx.ranks),
      host_(ctx.host),
      id_(ctx.engine.add(*this)),
      io_(io_settings),
      spec_(io_.fs) {
    const auto& io = io_;
    check_distribution(topo_, io);
    DiskRegistry disks("disk");
    register_builtin_disks(disks);
    CacheRegistry caches("cache");
    register_builtin_caches(caches);
    const std::vector<std::int32_t> order = server_order(io);
    servers_.resize(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        const IoServerSpec& s = io.servers[static_cast<std::size_t>(order[i])];
        const topo::NodeInfo& node = topo_.nodes[static_cast<std::size_t>(s.node)];
        Server& sv = servers_[i];
        sv.fs = this;
        sv.index = static_cast<std::uint32_t>(i);
        sv.node = s.node;
        sv.vertex = node.sockets.at(0).vertex;
        // As registered ("write-behind" given reads as write_behind: simulator/spelling.hpp).
        const auto* cache_entry = caches.find(s.cache.model);
        const auto* disk_entry = disks.find(s.disk.model);
        sv.cache_name = cache_entry != nullptr ? cache_entry->name : s.cache.model;
        sv.disk_name = disk_entry != nullptr ? disk_entry->name : s.disk.model;
        sv.disk = disks.make(s.disk, topo_.source, node.memory);
        sv.cache = caches.make(s.cache, topo_.source, node.memory);
        sv.cache->attach(sv);
    }
    // Forwarders: ranks on a client node talk to the servers through the forwarder node.
    std::vector<topo::VertexId> node_forwarder(topo_.nodes.size(), topo::kNoVertex);
    for (const auto& f : io.forwarders)
        for (std::int32_t c : f.clients)
            node_forwarder[static_cast<std::size_t>(c)] =
                topo_.nodes[static_cast<std::size_t>(f.node)].sockets.at(0).vertex;
    forwarder_.resize(ranks_.size());
    for (std::size_t r = 0; r < ranks_.size(); ++r) forwarder_[r] = node_forwarder[ranks_[r].node];
    handles_.resize(ranks_.size());
    done_bytes_.resize(ranks_.size());
    waiting_.resize(ranks_.size());
    for (const auto& d : files) {
        const std::uint32_t f = file_id(d.name);
        files_[f].size = d.size;
        if (d.stripe != 0)
            files_[f].layout =
                SimpleStriping(d.stripe, static_cast<std::uint32_t>(servers_.size()));
    }
    rules_ = io_rules(topo_, ctx.mpi, ctx.algorithm_overrides);
}

bool FileSystem::two_phase_for(OpKind kind, std::uint64_t bytes) const {
    const char* name = kind == OpKind::FileWriteAtAll  ? "write_at_all"
                       : kind == OpKind::FileReadAtAll ? "read_at_all"
                       : kind == OpKind::FileWriteAll  ? "write_all"
                                                       : "read_all";
    for (const auto& r : rules_)
        if (r.op == name && bytes >= r.min_bytes && bytes < r.max_bytes) return r.two_phase;
    return true;  // ROMIO's default for interleaved access on PVFS: collective buffering
}

std::uint32_t FileSystem::file_id(const std::string& name) {
    auto it = file_index_.find(name);
    if (it != file_index_.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(files_.size());
    files_.push_back(File{
        name, 0, SimpleStriping(spec_.stripe, static_cast<std::uint32_t>(servers_.size())), 0, 0});
    file_index_.emplace(name, id);
    return id;
}

Handle& FileSystem::handle_of(std::int32_t rank, const Op& op) {
    auto& hs = handles_[static_cast<std::size_t>(rank)];
    if (op.file >= hs.size() || hs[op.file].file == kNil)
        fail(rank, op, fmt::format("file handle {} is not open", op.file));
    return hs[op.file];
}

void FileSystem::finish_rank(std::int32_t rank, std::uint64_t bytes, Time delay) {
    done_bytes_[static_cast<std::size_t>(rank)] = bytes;
    waiting_[static_cast<std::size_t>(rank)].clear();
    engine_.schedule_in(delay, id_, kRankDone, static_cast<std::uint64_t>(rank));
}

void FileSystem::handle(Engine&, const Event& e) {
    if (e.kind == kRankDone) {
        const auto rank = static_cast<std::int32_t>(e.data);
        host_.io_done(rank, done_bytes_[static_cast<std::size_t>(rank)]);
        return;
    }
    if (e.kind == kChunkCopied) {  // server << 32 | chunk
        chunk_done(static_cast<std::uint32_t>(e.data >> 32), static_cast<std::uint32_t>(e.data));
        return;
    }
    // kDiskDone: server << 32 | slot
    const auto s = static_cast<std::uint32_t>(e.data >> 32);
    const auto slot = static_cast<std::uint32_t>(e.data);
    Server& sv = servers_[s];
    const std::uint64_t token = sv.slot_token[slot];
    sv.free_slots.push_back(slot);
    sv.disk_written_done += sv.slot_written[slot];
    sv.last_disk_done = engine_.now();
    --sv.busy;
    sv.cache->disk_done(token);
    pump(s);
    if (!syncs_.empty()) check_syncs();
}

void FileSystem::pump(std::uint32_t s) {
    Server& sv = servers_[s];
    DiskRequest req;
    std::uint64_t token = 0;
    while (sv.busy < sv.disk->channels() && sv.cache->next(req, token)) {
        const Time t = sv.disk->service(req);
        if (disk_activity_ != nullptr)
            disk_activity_->push_back(
                net::Activity{s, engine_.now(), engine_.now() + t, req.bytes});
        std::uint32_t slot;
        if (!sv.free_slots.empty()) {
            slot = sv.free_slots.back();
            sv.free_slots.pop_back();
            sv.slot_token[slot] = token;
            sv.slot_written[slot] = req.write ? req.bytes : 0;
        } else {
            slot = static_cast<std::uint32_t>(sv.slot_token.size());
            sv.slot_token.push_back(token);
            sv.slot_written.push_back(req.write ? req.bytes : 0);
        }
        ++sv.busy;
        engine_.schedule_in(t, id_, kDiskDone, (static_cast<std::uint64_t>(s) << 32) | slot);
    }
}

void FileSystem::send(topo::VertexId from, topo::VertexId to, std::uint32_t m, topo::VertexId via) {
    Msg& msg = msgs_[m];
    if (via != topo::kNoVertex && via != from && via != to) {
        msg.via_forwarder = true;
        msg.final_dst = to;
        network_.send(from, via, msg.bytes, mpi::kIoCookie | m, false);
        return;
    }
    msg.via_forwarder = false;
    network_.send(from, to, msg.bytes, mpi::kIoCookie | m, false);
}

void FileSystem::client_send(std::int32_t rank, std::uint32_t s, std::uint32_t m) {
    const topo::VertexId client = ranks_[static_cast<std::size_t>(rank)].vertex;
    if (spec_.connect_round_trips == 0) {
        send(client, servers_[s].vertex, m, forwarder_of(rank));
        return;
    }
    using State = net::ConnectionTable<std::uint32_t>::State;
    const State state = connections_.send(
        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(rank)) << 32) | s, m);
    if (state == State::Ready) {
        send(client, servers_[s].vertex, m, forwarder_of(rank));
        return;
    }
    if (state == State::Queued) return;  // the set-up is under way
    const std::uint32_t h = msgs_.acquire(Msg{MsgKind::Connect, false, topo::kNoVertex,
                                              static_cast<std::uint32_t>(rank), s,
                                              2 * spec_.connect_round_trips - 1, 1, 0});
    send(client, servers_[s].vertex, h, forwarder_of(rank));
}

void FileSystem::connect_trip(std::uint32_t m) {
    Msg& msg = msgs_[m];
    const auto rank = static_cast<std::int32_t>(msg.sreq);
    const std::uint32_t s = msg.cycle;
    const topo::VertexId client = ranks_[static_cast<std::size_t>(rank)].vertex;
    if (msg.agg > 0) {  // the other end answers
        --msg.agg;
        msg.local ^= 1;
        if (msg.local == 1)
            send(client, servers_[s].vertex, m, forwarder_of(rank));
        else
            send(servers_[s].vertex, client, m, forwarder_of(rank));
        return;
    }
    msgs_.release(m);
    const std::vector<std::uint32_t> waiting = connections_.connected(
        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(rank)) << 32) | s);
    for (const std::uint32_t w : waiting) send(client, servers_[s].vertex, w, forwarder_of(rank));
}

// ---- independent operations ------------------------------------------------------------

void FileSystem::start_client_op(std::int32_t rank, std::uint32_t file, bool write,
                                 std::vector<Extent> extents, std::uint32_t owner,
                                 std::uint32_t agg) {
    File& f = files_[file];
    std::uint64_t bytes = 0, end = 0;
    for (const Extent& e : extents) {
        bytes += e.bytes;
        end = std::max(end, e.end());
    }
    const std::uint32_t cop =
        cops_.acquire(ClientOp{rank, file, write, bytes, 0, 0, end, owner, agg});
    if (report_.first_start == Time::max()) report_.first_start = engine_.now();
    // Object extents per server, merged.
    std::vector<Piece> pieces;
    for (const Extent& e : extents) f.layout.map(e, pieces);
    std::vector<std::vector<Extent>> per_server(servers_.size());
    for (const Piece& p : pieces) {
        auto& v = per_server[p.server];
        if (!v.empty() && v.back().end() == p.local)
            v.back().bytes += p.bytes;
        else
            v.push_back(Extent{p.local, p.bytes});
    }
    std::uint32_t servers_used = 0;
    for (std::uint32_t s = 0; s < servers_.size(); ++s) {
        auto& ext = per_server[s];
        if (ext.empty()) continue;
        merge_extents(ext);
        ++servers_used;
        std::uint32_t chunks = 0;
        if (write)
            for (const Extent& e : ext)
                chunks += static_cast<std::uint32_t>((e.bytes + spec_.granularity - 1) /
                                                     spec_.granularity);
        // PVFS2's handshake: a share above the small-I/O size waits for the server's
        // response before its data flows (the server keeps it in the request meanwhile).
        std::uint64_t share = 0;
        for (const Extent& e : ext) share += e.bytes;
        const bool wait = write && spec_.handshake && share > spec_.small_io;
        const std::uint32_t sq = sreqs_.acquire(ServerRequest{
            cop, s, file, write, chunks, write && !wait ? std::vector<Extent>{} : ext});
        const std::uint32_t req =
            msgs_.acquire(Msg{write ? MsgKind::WriteRequest : MsgKind::ReadRequest, false,
                              topo::kNoVertex, sq, 0, 0, 0, spec_.request_bytes});
        client_send(rank, s, req);
        if (!write || wait) continue;
        for (const Extent& e : ext)
            for (std::uint64_t off = 0; off < e.bytes; off += spec_.granularity) {
                const std::uint64_t n = std::min(spec_.granularity, e.bytes - off);
                const std::uint32_t m = msgs_.acquire(
                    Msg{MsgKind::WriteData, false, topo::kNoVertex, sq, 0, 0, e.offset + off, n});
                client_send(rank, s, m);
            }
    }
    cops_[cop].acks_left = servers_used;
    cops_[cop].requests = servers_used;
    if (servers_used == 0) {  // nothing to move (zero bytes, or a read past the end)
        client_op_done(cop);
    }
}

void FileSystem::client_op_done(std::uint32_t cop) {
    const ClientOp op = cops_[cop];
    cops_.release(cop);
    File& f = files_[op.file];
    if (op.write) {
        f.size = std::max(f.size, op.end);  // the file grows when the write has finished
        f.written += op.bytes;
        report_.bytes_written += op.bytes;
    } else {
        f.read += op.bytes;
        report_.bytes_read += op.bytes;
    }
    report_.last_end = max(report_.last_end, engine_.now());
    if (op.owner == kNil)  // the client's cost of its requests (request-overhead)
        finish_rank(op.rank, op.bytes,
                    static_cast<std::int64_t>(op.requests) * spec_.request_overhead);
    else
        cycle_done(op.owner, op.agg);
}

void FileSystem::message_delivered(std::uint64_t cookie) {
    const auto m = static_cast<std::uint32_t>(cookie);
    Msg& msg = msgs_[m];
    if (msg.via_forwarder) {  // at the forwarder: on to the destination
        msg.via_forwarder = false;
        // Only client-server messages (never two-phase exchanges) use forwarders: the leg
        // ended at the forwarder of the request's client.
        const topo::VertexId at = forwarder_of(client_rank(msg));
        network_.send(at, msg.final_dst, msg.bytes, mpi::kIoCookie | m, false);
        return;
    }
    switch (msg.kind) {
        case MsgKind::WriteRequest: {
            const ServerRequest& q = sreqs_[msg.sreq];
            if (q.extents.empty()) {
                msgs_.release(m);  // the data follows on its own
                return;
            }
            // handshake: respond; the client sends the data when the response arrives
            const std::int32_t rank = cops_[q.cop].rank;
            msg.kind = MsgKind::WriteReady;
            msg.bytes = spec_.request_bytes;
            send(servers_[q.server].vertex, ranks_[static_cast<std::size_t>(rank)].vertex, m,
                 forwarder_of(rank));
            return;
        }
        case MsgKind::WriteReady: {
            const std::uint32_t sq = msg.sreq;
            msgs_.release(m);
            const std::vector<Extent> ext = std::move(sreqs_[sq].extents);
            sreqs_[sq].extents.clear();
            const std::int32_t rank = cops_[sreqs_[sq].cop].rank;
            const topo::VertexId client = ranks_[static_cast<std::size_t>(rank)].vertex;
            const topo::VertexId server = servers_[sreqs_[sq].server].vertex;
            for (const Extent& e : ext)
                for (std::uint64_t off = 0; off < e.bytes; off += spec_.granularity) {
                    const std::uint64_t n = std::min(spec_.granularity, e.bytes - off);
                    const std::uint32_t d = msgs_.acquire(Msg{
                        MsgKind::WriteData, false, topo::kNoVertex, sq, 0, 0, e.offset + off, n});
                    send(client, server, d, forwarder_of(rank));
                }
            return;
        }
        case MsgKind::Connect:
            connect_trip(m);
            return;
        case MsgKind::MetaRequest: {
            const PendingOpen& o = opens_pending_[msg.cycle];
            msg.kind = MsgKind::MetaReply;
            send(servers_[o.server].vertex, ranks_[static_cast<std::size_t>(o.rank)].vertex, m,
                 forwarder_of(o.rank));
            return;
        }
        case MsgKind::MetaReply: {
            const std::uint32_t pending = msg.cycle;
            msgs_.release(m);
            if (opens_pending_[pending].left > 0) {
                meta_request(pending);
                return;
            }
            start_open_tree(pending);
            return;
        }
        case MsgKind::OpenTree: {
            const std::uint32_t pending = msg.cycle, member = msg.agg;
            msgs_.release(m);
            open_tree_arrived(pending, member);
            return;
        }
        case MsgKind::WriteData: {
            const ServerRequest& q = sreqs_[msg.sreq];
            Server& sv = servers_[q.server];
            sv.bytes_written += msg.bytes;
            const std::uint32_t c = chunks_.acquire(ServerChunk{msg.sreq, msg.bytes});
            const Chunk chunk{c, q.file, msg.local, msg.bytes, true};
            msgs_.release(m);
            const std::uint32_t server = q.server;
            sv.cache->submit(chunk);
            pump(server);
            return;
        }
        case MsgKind::ReadRequest: {
            msgs_.release(m);
            ServerRequest& q = sreqs_[msg.sreq];
            const std::uint32_t sq = msg.sreq;
            std::vector<Extent> ext = std::move(q.extents);
            std::uint32_t chunks = 0;
            for (const Extent& e : ext)
                chunks += static_cast<std::uint32_t>((e.bytes + spec_.granularity - 1) /
                                                     spec_.granularity);
            q.chunks_left = chunks;
            const std::uint32_t s = q.server;
            const std::uint32_t file = q.file;
            const std::uint64_t object_end = files_[file].layout.object_size(s, files_[file].size);
            for (const Extent& e : ext)
                for (std::uint64_t off = 0; off < e.bytes; off += spec_.granularity) {
                    const std::uint64_t n = std::min(spec_.granularity, e.bytes - off);
                    const std::uint32_t c = chunks_.acquire(ServerChunk{sq, n});
                    servers_[s].cache->submit(Chunk{c, file, e.offset + off, n, false, object_end});
                }
            pump(s);
            return;
        }
        case MsgKind::WriteAck: {
            const std::uint32_t sq = msg.sreq;
            msgs_.release(m);
            const std::uint32_t cop = sreqs_[sq].cop;
            sreqs_.release(sq);
            if (--cops_[cop].acks_left == 0) client_op_done(cop);
            return;
        }
        case MsgKind::ReadData: {
            const std::uint32_t sq = msg.sreq;
            const std::uint64_t n = msg.bytes;
            msgs_.release(m);
            const std::uint32_t cop = sreqs_[sq].cop;
            if (--sreqs_[sq].chunks_left == 0) {
                sreqs_.release(sq);
                --cops_[cop].acks_left;
            }
            ClientOp& op = cops_[cop];
            op.moved += n;
            if (op.acks_left == 0 && op.moved == op.bytes) client_op_done(cop);
            return;
        }
        case MsgKind::Exchange: {
            const std::uint32_t run = msg.cycle, agg = msg.agg;
            msgs_.release(m);
            exchange_arrived(run, agg);
            return;
        }
    }
}

void FileSystem::chunk_done_at(std::uint32_t s, std::uint64_t id, Time at) {
    engine_.schedule(at, id_, kChunkCopied, (static_cast<std::uint64_t>(s) << 32) | id);
}

void FileSystem::chunk_done(std::uint32_t s, std::uint64_t id) {
    const auto c = static_cast<std::uint32_t>(id);
    const ServerChunk chunk = chunks_[c];
    chunks_.release(c);
    ServerRequest& q = sreqs_[chunk.sreq];
    Server& sv = servers_[s];
    const ClientOp& op = cops_[q.cop];
    const topo::VertexId client = ranks_[static_cast<std::size_t>(op.rank)].vertex;
    if (q.write) {
        if (--q.chunks_left > 0) return;
        const std::uint32_t m = msgs_.acquire(Msg{MsgKind::WriteAck, false, topo::kNoVertex,
                                                  chunk.sreq, 0, 0, 0, spec_.request_bytes});
        send(sv.vertex, client, m, forwarder_of(op.rank));
        return;
    }
    sv.bytes_read += chunk.bytes;
    const std::uint32_t m = msgs_.acquire(
        Msg{MsgKind::ReadData, false, topo::kNoVertex, chunk.sreq, 0, 0, 0, chunk.bytes});
    send(sv.vertex, client, m, forwarder_of(op.rank));
}

// ---- the MPI-IO operations -------------------------------------------------------------

void FileSystem::start(std::int32_t rank, const Op& op, const std::vector<std::int32_t>* members) {
    auto& hs = handles_[static_cast<std::size_t>(rank)];
    switch (op.kind) {
        case OpKind::FileOpen: {
            if (op.path == nullptr || op.path->empty()) fail(rank, op, "no file name");
            if (op.file > mpi::kMaxHandle) fail(rank, op, mpi::handle_beyond_limit("file", op.file));
            if (op.file < hs.size() && hs[op.file].file != kNil)
                fail(rank, op, fmt::format("file handle {} is already open", op.file));
            auto [it, fresh] = group_index_.emplace(*members, 0);
            if (fresh) {
                it->second = static_cast<std::uint32_t>(groups_.size());
                groups_.push_back(Group{*members});
            }
            if (op.file >= hs.size()) hs.resize(op.file + 1);
            Handle& h = hs[op.file];
            h = Handle{};
            h.file = file_id(*op.path);
            h.group = it->second;
            h.epoch = opens_[(static_cast<std::uint64_t>(rank) << 32) | h.file]++;
            arrive(rank, op, h, {}, 0);
            return;
        }
        case OpKind::FileClose: {
            // MPI calls close collective, but ROMIO does not synchronize in it (no barrier
            // unless shared file pointers are used): each rank pays the close cost alone.
            // OMPIO does (collective-close="yes"): the close completes when all have called.
            Handle& h = handle_of(rank, op);
            const auto members = groups_[h.group].members.size();
            if (spec_.close_collective) arrive(rank, op, h, {}, 0);
            h.file = kNil;
            if (!spec_.close_collective) finish_rank(rank, 0, close_cost(members));
            return;
        }
        case OpKind::FileSync:
            arrive(rank, op, handle_of(rank, op), {}, 0);
            return;
        case OpKind::FileSetView: {
            Handle& h = handle_of(rank, op);
            if (op.view_block != 0 && op.view_stride < op.view_block)
                fail(rank, op,
                     fmt::format("a vector view needs stride >= block (block {}, stride {})",
                                 format_size(op.view_block), format_size(op.view_stride)));
            h.view = View{op.offset, op.view_block, op.view_stride};
            h.pointer = 0;
            finish_rank(rank, 0);
            return;
        }
        case OpKind::FileSeek: {
            Handle& h = handle_of(rank, op);
            if (op.whence == mpi::kSeekSet)
                h.pointer = op.offset;
            else if (op.whence == mpi::kSeekCur)
                h.pointer += op.offset;
            else
                h.pointer = files_[h.file].size + op.offset;  // contiguous-view end of file
            finish_rank(rank, 0);
            return;
        }
        default:
            break;
    }
    // Data operations.
    Handle& h = handle_of(rank, op);
    const bool write = op.kind == OpKind::FileWrite || op.kind == OpKind::FileWriteAt ||
                       op.kind == OpKind::FileWriteAll || op.kind == OpKind::FileWriteAtAll;
    const bool at = op.kind == OpKind::FileWriteAt || op.kind == OpKind::FileReadAt ||
                    op.kind == OpKind::FileWriteAtAll || op.kind == OpKind::FileReadAtAll;
    const bool collective = op.kind == OpKind::FileWriteAll || op.kind == OpKind::FileReadAll ||
                            op.kind == OpKind::FileWriteAtAll || op.kind == OpKind::FileReadAtAll;
    const std::uint64_t pos = at ? op.offset : h.pointer;
    if (!at) h.pointer += op.bytes;
    std::vector<Extent> extents;
    view_extents(h.view, pos, op.bytes, extents);
    std::uint64_t bytes = op.bytes;
    if (!write) bytes = clip_extents(extents, files_[h.file].size);
    if (collective) {
        arrive(rank, op, h, std::move(extents), bytes);
        return;
    }
    waiting_[static_cast<std::size_t>(rank)] = fmt::format(
        "{} {} of '{}'", write ? "writing" : "reading", format_size(bytes), files_[h.file].name);
    start_client_op(rank, h.file, write, std::move(extents), kNil, 0);
}

void FileSystem::arrive(std::int32_t rank, const Op& op, Handle& h, std::vector<Extent> extents,
                        std::uint64_t bytes) {
    const Group& grp = groups_[h.group];
    const std::uint32_t seq = op.kind == OpKind::FileOpen ? 0 : ++h.coll_seq;
    const auto key = std::make_tuple(h.group, h.file, h.epoch, seq);
    Gathering& g = gatherings_[key];
    if (g.entries.empty()) {
        g.kind = op.kind;
        g.file = h.file;
        g.group = h.group;
        g.expected = grp.members.size();
    } else if (g.kind != op.kind) {
        fail(rank, op,
             fmt::format("collective call number {} on '{}' is MPI_{} on another rank: every rank "
                         "of the communicator must make the same calls in the same order",
                         seq, files_[h.file].name, mpi::to_string(g.kind)));
    }
    g.entries.push_back(Gathering::Entry{rank, std::move(extents), bytes, op.file});
    waiting_[static_cast<std::size_t>(rank)] = fmt::format(
        "waiting for {} more rank(s) of the file's communicator", g.expected - g.entries.size());
    const bool data =
        op.kind != OpKind::FileOpen && op.kind != OpKind::FileClose && op.kind != OpKind::FileSync;
    if (g.entries.size() < g.expected) {
        // Independent collective I/O needs nobody else: go now (the choice is made with this
        // rank's size; once one rank has gone, the call stays independent for all).
        if (data && !two_phase_for(op.kind, bytes)) {
            auto& e = g.entries.back();
            const bool write = op.kind == OpKind::FileWriteAll || op.kind == OpKind::FileWriteAtAll;
            std::vector<Extent> ext = std::move(e.extents);
            e.extents.clear();
            e.bytes = UINT64_MAX;  // already started
            start_client_op(rank, h.file, write, std::move(ext), kNil, 0);
        }
        return;
    }
    Gathering done = std::move(g);
    gatherings_.erase(key);
    if (data && !two_phase_for(op.kind, bytes)) {  // the last arrival, independent
        auto& e = done.entries.back();
        const bool write = op.kind == OpKind::FileWriteAll || op.kind == OpKind::FileWriteAtAll;
        e.bytes = UINT64_MAX;
        start_client_op(rank, h.file, write, std::move(e.extents), kNil, 0);
    }
    gathered(std::move(done));
}

std::int32_t FileSystem::client_rank(const Msg& msg) const {
    if (msg.kind == MsgKind::MetaRequest || msg.kind == MsgKind::MetaReply)
        return opens_pending_[msg.cycle].rank;
    if (msg.kind == MsgKind::Connect) return static_cast<std::int32_t>(msg.sreq);
    return cops_[sreqs_[msg.sreq].cop].rank;
}

void FileSystem::meta_request(std::uint32_t pending) {
    PendingOpen& o = opens_pending_[pending];
    --o.left;
    const std::uint32_t m = msgs_.acquire(Msg{MsgKind::MetaRequest, false, topo::kNoVertex, kNil,
                                              pending, 0, 0, spec_.request_bytes});
    client_send(o.rank, o.server, m);
}

// Binomial trees over member indices 0..P-1 rooted at 0 (MPICH's short broadcast and
// reduce): member i's children are i + 2^k for every 2^k > i with i + 2^k < P; its parent
// is i less its highest power of two.
namespace {
std::uint32_t tree_parent(std::uint32_t i) {
    std::uint32_t p = 1;
    while (p * 2 <= i) p *= 2;
    return i - p;
}
template <typename F>
void for_tree_children(std::uint32_t i, std::uint32_t n, F f) {
    std::uint32_t k = 1;
    while (k <= i) k *= 2;
    for (; i + k < n; k *= 2) f(i + k);
}
}  // namespace

void FileSystem::start_open_tree(std::uint32_t pending) {
    PendingOpen& o = opens_pending_[pending];
    const auto n = static_cast<std::uint32_t>(groups_[o.g.group].members.size());
    if (!spec_.open_collectives || n < 2) {
        complete_open(pending);
        return;
    }
    o.phase = 0;
    o.received = 0;
    for_tree_children(0, n, [&](std::uint32_t c) { open_tree_send(pending, 0, c); });
}

void FileSystem::open_tree_send(std::uint32_t pending, std::uint32_t from, std::uint32_t to) {
    const auto& members = groups_[opens_pending_[pending].g.group].members;
    const std::uint32_t m = msgs_.acquire(
        Msg{MsgKind::OpenTree, false, topo::kNoVertex, kNil, pending, to, 0, spec_.request_bytes});
    send(ranks_[static_cast<std::size_t>(members[from])].vertex,
         ranks_[static_cast<std::size_t>(members[to])].vertex, m, topo::kNoVertex);
}

void FileSystem::open_tree_arrived(std::uint32_t pending, std::uint32_t member) {
    PendingOpen& o = opens_pending_[pending];
    const auto n = static_cast<std::uint32_t>(groups_[o.g.group].members.size());
    if (o.phase == 1) {  // reduce: a child's result reached `member`
        if (--o.children[member] > 0) return;
        if (member != 0) {
            open_tree_send(pending, member, tree_parent(member));
            return;
        }
        o.phase = 2;  // the first rank has the result: broadcast it back
        o.received = 0;
        for_tree_children(0, n, [&](std::uint32_t c) { open_tree_send(pending, 0, c); });
        return;
    }
    // a broadcast reached `member`: pass it on
    for_tree_children(member, n, [&](std::uint32_t c) { open_tree_send(pending, member, c); });
    if (++o.received < n - 1) return;
    if (o.phase == 2) {
        complete_open(pending);
        return;
    }
    // every member has the handle: reduce the result to the first rank, leaves first
    o.phase = 1;
    o.children.assign(n, 0);
    for (std::uint32_t i = 1; i < n; ++i) ++o.children[tree_parent(i)];
    for (std::uint32_t i = 1; i < n; ++i)
        if (o.children[i] == 0) open_tree_send(pending, i, tree_parent(i));
}

void FileSystem::complete_open(std::uint32_t pending) {
    const Gathering g = std::move(opens_pending_[pending].g);
    opens_pending_[pending].g = Gathering{};
    opens_pending_[pending].children.clear();
    opens_pending_.release(pending);
    finish_open(g);
}

void FileSystem::finish_open(const Gathering& g) {
    for (const auto& e : g.entries)
        finish_rank(e.rank, 0, open_cost(g.entries.size()) + first_open(e.rank));
    report_.files = files_.size();
}

void FileSystem::gathered(Gathering g) {
    // The ranks still in the call waited for the last one to enter (those that went ahead
    // with independent I/O did not).
    for (const auto& e : g.entries)
        if (e.bytes != UINT64_MAX) host_.io_all_arrived(e.rank);
    switch (g.kind) {
        case OpKind::FileOpen: {
            if (spec_.open_requests == 0 && (!spec_.open_collectives || g.entries.size() < 2)) {
                finish_open(g);
                return;
            }
            // The metadata server: the server of the file's first stripe.
            std::vector<Piece> first;
            files_[g.file].layout.map(Extent{0, 1}, first);
            const std::int32_t rank = groups_[g.group].members.front();
            const std::uint32_t server = first.empty() ? 0 : first.front().server;
            const std::uint32_t pending = opens_pending_.acquire(
                PendingOpen{std::move(g), rank, server, spec_.open_requests, 0, 0, {}});
            if (spec_.open_requests > 0)
                meta_request(pending);
            else
                start_open_tree(pending);
            return;
        }
        case OpKind::FileClose:
            for (const auto& e : g.entries) finish_rank(e.rank, 0, close_cost(g.entries.size()));
            return;
        case OpKind::FileSync:
            syncs_.push_back(std::move(g));
            check_syncs();
            return;
        default:
            break;
    }
    const bool write = g.kind == OpKind::FileWriteAll || g.kind == OpKind::FileWriteAtAll;
    bool started = false;  // some rank went independently
    for (const auto& e : g.entries) started = started || e.bytes == UINT64_MAX;
    if (started) {
        for (auto& e : g.entries)
            if (e.bytes != UINT64_MAX)
                start_client_op(e.rank, g.file, write, std::move(e.extents), kNil, 0);
        return;
    }
    start_two_phase(g);
}

void FileSystem::check_syncs() {
    for (std::size_t i = 0; i < syncs_.size();) {
        std::uint64_t dirty = 0;
        for (const Server& sv : servers_) dirty += sv.cache->dirty_bytes(syncs_[i].file);
        if (dirty > 0) {
            ++i;
            continue;
        }
        // The entries are in the order the ranks entered: the k-th ends k sync-apart later.
        Time delay = spec_.sync;
        for (const auto& e : syncs_[i].entries) {
            finish_rank(e.rank, 0, delay);
            delay += spec_.sync_apart;
        }
        syncs_.erase(syncs_.begin() + static_cast<std::ptrdiff_t>(i));
    }
}

// ---- two-phase collective I/O ----------------------------------------------------------

void FileSystem::start_two_phase(Gathering& g) {
    TwoPhase tp;
    tp.file = g.file;
    tp.write = g.kind == OpKind::FileWriteAll || g.kind == OpKind::FileWriteAtAll;
    tp.members = std::move(g.entries);
    std::sort(tp.members.begin(), tp.members.end(),
              [](const auto& a, const auto& b) { return a.rank < b.rank; });
    std::uint64_t lo = UINT64_MAX, hi = 0;
    for (auto& m : tp.members) {
        merge_extents(m.extents);
        if (!m.extents.empty()) {
            lo = std::min(lo, m.extents.front().offset);
            hi = std::max(hi, m.extents.back().end());
        }
    }
    // Aggregators: the first rank of each node (in rank order), at most cb-nodes.
    std::vector<std::int32_t> aggs;
    std::vector<bool> node_seen(topo_.nodes.size(), false);
    for (const auto& m : tp.members) {
        const auto node = ranks_[static_cast<std::size_t>(m.rank)].node;
        if (node_seen[node]) continue;
        node_seen[node] = true;
        aggs.push_back(m.rank);
        if (spec_.cb_nodes > 0 && aggs.size() == static_cast<std::size_t>(spec_.cb_nodes)) break;
    }
    const std::uint32_t run = runs_.acquire(std::move(tp));
    TwoPhase& r = runs_[run];
    if (lo >= hi) {  // nobody moves data
        for (const auto& m : r.members) finish_rank(m.rank, 0);
        runs_.release(run);
        return;
    }
    // Equal file domains, rounded up to whole stripes (PVFS alignment) when large enough.
    std::uint64_t fd = (hi - lo + aggs.size() - 1) / aggs.size();
    const std::uint64_t stripe = files_[r.file].layout.stripe();
    if (fd >= stripe) fd = (fd + stripe - 1) / stripe * stripe;
    for (std::size_t a = 0; a < aggs.size(); ++a) {
        TwoPhase::Agg agg;
        agg.rank = aggs[a];
        agg.lo = std::min(hi, lo + a * fd);
        agg.hi = std::min(hi, agg.lo + fd);
        agg.next = agg.lo;
        agg.cursor.resize(r.members.size());
        agg.cycle_bytes.resize(r.members.size());
        for (std::size_t m = 0; m < r.members.size(); ++m) {
            const auto& ext = r.members[m].extents;
            agg.cursor[m] = static_cast<std::size_t>(
                std::partition_point(ext.begin(), ext.end(),
                                     [&](const Extent& e) { return e.end() <= agg.lo; }) -
                ext.begin());
        }
        r.aggs.push_back(std::move(agg));
    }
    r.aggs_left = r.aggs.size();
    for (std::size_t a = 0; a < r.aggs.size(); ++a) {
        waiting_[static_cast<std::size_t>(r.aggs[a].rank)] = "aggregating (two-phase)";
        next_cycle(run, static_cast<std::uint32_t>(a));
    }
}

void FileSystem::next_cycle(std::uint32_t run, std::uint32_t a) {
    TwoPhase& r = runs_[run];
    TwoPhase::Agg& agg = r.aggs[a];
    if (agg.next >= agg.hi) {
        agg.done = true;
        if (--r.aggs_left == 0) {
            for (const auto& m : r.members) finish_rank(m.rank, m.bytes);
            runs_.release(run);
        }
        return;
    }
    const std::uint64_t c_lo = agg.next;
    const std::uint64_t c_hi = std::min(agg.hi, c_lo + spec_.cb_buffer);
    agg.next = c_hi;
    agg.cycle.clear();
    for (std::size_t m = 0; m < r.members.size(); ++m) {
        const auto& ext = r.members[m].extents;
        std::size_t& i = agg.cursor[m];
        std::uint64_t n = 0;
        while (i < ext.size() && ext[i].offset < c_hi) {
            const std::uint64_t s = std::max(ext[i].offset, c_lo);
            const std::uint64_t e = std::min(ext[i].end(), c_hi);
            if (e > s) {
                n += e - s;
                agg.cycle.push_back(Extent{s, e - s});
            }
            if (ext[i].end() <= c_hi)
                ++i;
            else
                break;
        }
        agg.cycle_bytes[m] = n;
    }
    merge_extents(agg.cycle);
    if (!r.write) {
        cycle_io(run, a);
        return;
    }
    // Phase one (write): every rank with data in this cycle sends it to the aggregator.
    exchange(run, a, true);
}

void FileSystem::exchange(std::uint32_t run, std::uint32_t a, bool to_aggregator) {
    TwoPhase& r = runs_[run];
    TwoPhase::Agg& agg = r.aggs[a];
    agg.pending = 1;  // held until every exchange is posted
    const topo::VertexId at = ranks_[static_cast<std::size_t>(agg.rank)].vertex;
    for (std::size_t m = 0; m < r.members.size(); ++m) {
        if (agg.cycle_bytes[m] == 0 || r.members[m].rank == agg.rank) continue;
        ++agg.pending;
        const std::uint32_t msg = msgs_.acquire(
            Msg{MsgKind::Exchange, false, topo::kNoVertex, 0, run, a, 0, agg.cycle_bytes[m]});
        const topo::VertexId member = ranks_[static_cast<std::size_t>(r.members[m].rank)].vertex;
        network_.send(to_aggregator ? member : at, to_aggregator ? at : member, agg.cycle_bytes[m],
                      mpi::kIoCookie | msg, false);
    }
    exchange_arrived(run, a);  // drops the hold
}

void FileSystem::exchange_arrived(std::uint32_t run, std::uint32_t a) {
    TwoPhase::Agg& agg = runs_[run].aggs[a];
    if (--agg.pending > 0) return;
    if (runs_[run].write)
        cycle_io(run, a);
    else
        next_cycle(run, a);
}

void FileSystem::cycle_io(std::uint32_t run, std::uint32_t a) {
    TwoPhase& r = runs_[run];
    TwoPhase::Agg& agg = r.aggs[a];
    if (agg.cycle.empty()) {
        next_cycle(run, a);
        return;
    }
    start_client_op(agg.rank, r.file, r.write, agg.cycle, run, a);
}

void FileSystem::cycle_done(std::uint32_t run, std::uint32_t a) {
    TwoPhase& r = runs_[run];
    if (r.write) {
        next_cycle(run, a);
        return;
    }
    // Phase two (read): the aggregator sends every rank its part of the cycle.
    exchange(run, a, false);
}

// ---- reports ---------------------------------------------------------------------------

std::string FileSystem::describe(std::int32_t rank) const {
    return waiting_[static_cast<std::size_t>(rank)];
}

mpi::IoReport FileSystem::report() const {
    mpi::IoReport r = report_;
    r.files = files_.size();
    for (const Server& sv : servers_) {
        mpi::IoServerReport s;
        s.node = topo_.nodes[static_cast<std::size_t>(sv.node)].name;
        s.cache = sv.cache_name;
        s.disk = sv.disk_name;
        s.bytes_written = sv.bytes_written;
        s.bytes_read = sv.bytes_read;
        const DiskStats& d = sv.disk->stats();
        s.disk_requests = d.requests;
        s.disk_bytes_written = d.bytes_written;
        s.disk_bytes_read = d.bytes_read;
        s.track_seeks = d.track_seeks;
        s.average_seeks = d.average_seeks;
        s.disk_busy = d.busy;
        const CacheStats& c = sv.cache->stats();
        s.cache_hits = c.hits;
        s.cache_hit_bytes = c.hit_bytes;
        s.cache_misses = c.misses;
        s.merged = c.merged;
        s.write_stalls = c.write_stalls;
        s.peak_memory = c.peak_memory;
        s.readahead_waits = c.readahead_waits;
        if (sv.disk_written_at_end != UINT64_MAX && sv.disk_written_done > sv.disk_written_at_end) {
            s.drained_bytes = sv.disk_written_done - sv.disk_written_at_end;
            s.drain_end = sv.last_disk_done;
        }
        r.servers.push_back(std::move(s));
    }
    return r;
}

}  // namespace

void check_io(const topo::Topology& t, const IoSettings& io, const mpi::MpiSettings& mpi) {
    if (!io.fs.present || io.servers.empty()) return;
    check_distribution(t, io);
    DiskRegistry disks("disk");
    register_builtin_disks(disks);
    CacheRegistry caches("cache");
    register_builtin_caches(caches);
    for (const auto& s : io.servers) {
        const auto memory = t.nodes[static_cast<std::size_t>(s.node)].memory;
        disks.make(s.disk, t.source, memory);
        caches.make(s.cache, t.source, memory);
    }
    io_rules(t, mpi, {});
}

mpi::IoFactory io_factory(IoSettings io, std::vector<FileDecl> files) {
    return [io = std::move(io), files = std::move(files)](
               const mpi::IoContext& ctx) -> std::unique_ptr<mpi::IoService> {
        if (!io.fs.present || io.servers.empty()) return nullptr;
        return std::make_unique<FileSystem>(ctx, io, files);
    };
}

}  // namespace clustersim::io
