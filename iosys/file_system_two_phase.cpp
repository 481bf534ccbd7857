// The file system's two-phase collective I/O (ROMIO's): aggregators, cycles, the exchange
// between ranks and aggregators, each cycle's I/O.
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

}  // namespace clustersim::io::fs_detail
