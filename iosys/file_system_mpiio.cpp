// The file system's MPI-IO operations: an operation started and its extents, a collective
// call gathered, opens (metadata round trips, ROMIO's broadcast and allreduce tree), syncs.
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

void FileSystem::start(std::int32_t rank, const Op& op, const std::vector<std::int32_t>* members) {
    auto& hs = handles_[static_cast<std::size_t>(rank)];
    switch (op.kind) {
        case OpKind::FileOpen: {
            if (op.path == nullptr || op.path->empty()) fail(rank, op, "no file name");
            if (op.file > mpi::kMaxHandle)
                fail(rank, op, mpi::handle_beyond_limit("file", op.file));
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

}  // namespace clustersim::io::fs_detail
