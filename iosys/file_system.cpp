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
#include "iosys/file_system_parts.hpp"
#include "iosys/layout.hpp"
#include "models/connections.hpp"
#include "simulator/error.hpp"
#include "simulator/pool.hpp"
#include "simulator/units.hpp"

namespace clustersim::io {

namespace fs_detail {

namespace {

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

}  // namespace

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
    const DiskRegistry& disks = disk_models();
    const CacheRegistry& caches = cache_models();
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

}  // namespace fs_detail

void check_io(const topo::Topology& t, const IoSettings& io, const mpi::MpiSettings& mpi) {
    if (!io.fs.present || io.servers.empty()) return;
    fs_detail::check_distribution(t, io);
    const DiskRegistry& disks = disk_models();
    const CacheRegistry& caches = cache_models();
    for (const auto& s : io.servers) {
        const auto memory = t.nodes[static_cast<std::size_t>(s.node)].memory;
        disks.make(s.disk, t.source, memory);
        caches.make(s.cache, t.source, memory);
    }
    fs_detail::io_rules(t, mpi, {});
}

mpi::IoFactory io_factory(IoSettings io, std::vector<FileDecl> files) {
    return [io = std::move(io), files = std::move(files)](
               const mpi::IoContext& ctx) -> std::unique_ptr<mpi::IoService> {
        if (!io.fs.present || io.servers.empty()) return nullptr;
        return std::make_unique<fs_detail::FileSystem>(ctx, io, files);
    };
}

}  // namespace clustersim::io
