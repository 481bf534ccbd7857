// The file system's independent operations: a client's request split into chunks per server,
// the messages delivered (requests, data, acks, metadata, connections) and the chunks done.
#include "iosys/file_system_parts.hpp"

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

namespace clustersim::io::fs_detail {

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
        case MsgKind::WriteReady:
            write_ready(m);
            return;
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
        case MsgKind::ReadRequest:
            read_request(m);
            return;
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

// A write request's response (handshake="yes") at the client: the data sent, chunk by chunk.
void FileSystem::write_ready(std::uint32_t m) {
    Msg& msg = msgs_[m];
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
            const std::uint32_t d = msgs_.acquire(
                Msg{MsgKind::WriteData, false, topo::kNoVertex, sq, 0, 0, e.offset + off, n});
            send(client, server, d, forwarder_of(rank));
        }
}

// A read request at its server: its extents submitted to the cache in chunks.
void FileSystem::read_request(std::uint32_t m) {
    Msg& msg = msgs_[m];
    msgs_.release(m);
    ServerRequest& q = sreqs_[msg.sreq];
    const std::uint32_t sq = msg.sreq;
    std::vector<Extent> ext = std::move(q.extents);
    std::uint32_t chunks = 0;
    for (const Extent& e : ext)
        chunks += static_cast<std::uint32_t>((e.bytes + spec_.granularity - 1) / spec_.granularity);
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

}  // namespace clustersim::io::fs_detail
