// The HDTrace reader: a project file (.proj) naming the application, its files, the rank
// topology and the communicators, plus one XML trace (.trc) per rank written by HDTrace's
// MPI wrapper. Semantics and every choice made are documented in traces/README.md ("HDTrace traces
// and PIOsimHD models"); the short version:
//
//  - Only top-level calls are replayed. A <Nested> block holds the calls its following
//    top-level call made internally (ROMIO's Bcast inside File_open, MPICH's Sendrecv inside
//    Allgather); they are that call's implementation, so they are skipped (as PIOsimHD's own
//    trace reader does).
//  - Times are `timeAdjustment` + `time` / `end` (HDTrace adds the adjustment to every
//    timestamp), exact decimals in picoseconds. The origin (time 0) is the earliest start of
//    a top-level call over all ranks.
//  - The time between two replayed calls becomes a Compute record of that duration; local
//    calls (Init, Finalize, Type_*, File_get_position, ...) become Compute records of their
//    own duration, so a rank's records tile [0, last end] without gaps.
//  - Ranks in the trace (toRank, fromRank, rootRank, root) are world ranks; records carry
//    ranks within the call's communicator, mapped with the project's communicator list.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pugixml.hpp>

#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "traces/call_mapper.hpp"
#include "traces/hdtrace_project.hpp"
#include "traces/piosimhd_units.hpp"
#include "traces/reader.hpp"
#include "traces/text.hpp"
#include "traces/xml_file.hpp"

namespace clustersim::traces {
namespace {

namespace fs = std::filesystem;
using hdtrace_in::Communicator;
using hdtrace_in::Fix;
using hdtrace_in::HdEvent;
using hdtrace_in::Project;
using hdtrace_in::Ps;
using hdtrace_in::read_project;

// ---- the reader --------------------------------------------------------------------------------

std::string find_project(const std::string& path) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) return path;
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(path, ec))
        if (entry.path().extension() == ".proj") found.push_back(entry.path().string());
    if (found.size() != 1)
        throw InputError(path, 0,
                         fmt::format("expected exactly one HDTrace project (.proj) in the folder, "
                                     "found {}",
                                     found.size()));
    return found[0];
}

Time to_time(Ps v, const std::string& file) {
    if (v > static_cast<Ps>(Time::max().ps()))
        throw InputError(file, 0, "the trace spans more than 106 days of simulated time");
    return Time::ps(static_cast<std::int64_t>(v));
}

// Pass 2a: receive sizes from the matching sends (MPI's non-overtaking order per sender,
// receiver, communicator and tag); wildcard receives keep 0 bytes. Returns how many receives
// had no matching send.
std::uint64_t fill_receive_sizes(std::vector<std::vector<HdEvent>>& events) {
    const auto ranks = static_cast<std::uint32_t>(events.size());
    using Key = std::tuple<std::int32_t, std::int32_t, std::int32_t, std::int32_t>;
    std::map<Key, std::vector<std::uint64_t>> sent;
    for (std::uint32_t r = 0; r < ranks; ++r)
        for (const HdEvent& e : events[r])
            if (e.sends)
                sent[{static_cast<std::int32_t>(r), e.dst, e.cid, e.rec.tag}].push_back(
                    e.rec.bytes);
    std::map<Key, std::size_t> taken;
    std::uint64_t unmatched = 0;
    for (std::uint32_t r = 0; r < ranks; ++r)
        for (HdEvent& e : events[r]) {
            if (e.fix != Fix::RecvBytes && e.fix != Fix::SendrecvBytes) continue;
            const std::int32_t tag = e.fix == Fix::RecvBytes ? e.rec.tag : e.rec.tag2;
            std::uint64_t b = 0;
            if (e.src >= 0 && tag >= 0) {
                const Key k{e.src, static_cast<std::int32_t>(r), e.cid, tag};
                const auto it = sent.find(k);
                std::size_t& i = taken[k];
                if (it != sent.end() && i < it->second.size()) {
                    b = it->second[i++];
                } else {
                    ++unmatched;
                }
            }
            (e.fix == Fix::RecvBytes ? e.rec.bytes : e.rec.bytes2) = b;
        }
    return unmatched;
}

// Pass 2b: v-collective counts from the k-th call of every member of its communicator, one
// count list per call (the same lists shared, Trace::add_counts): (cid, collective, k) ->
// its index. HDTrace's own two passes, not the mapper's SharedCountLists: every rank's
// events are read before any record is made.
using VKey = std::tuple<std::int32_t, int, std::uint64_t>;
std::map<VKey, std::int32_t> v_count_lists(const std::vector<std::vector<HdEvent>>& events,
                                           const Project& p, Trace& t) {
    const auto ranks = static_cast<std::uint32_t>(events.size());
    std::map<VKey, std::vector<std::uint64_t>> counts;
    std::map<VKey, std::int32_t> index;
    for (std::uint32_t r = 0; r < ranks; ++r)
        for (const HdEvent& e : events[r]) {
            if (e.fix != Fix::VCounts) continue;
            const Communicator& c = p.comms.at(e.cid);
            const std::size_t n = c.world_of.size();
            const bool all = e.rec.coll == mpi::CollOp::Alltoallv;
            auto& v = counts[{e.cid, static_cast<int>(e.rec.coll), e.occurrence}];
            v.resize(all ? n * n : n, 0);
            const std::size_t me =
                static_cast<std::size_t>(c.local_of.at(static_cast<std::int32_t>(r)));
            if (all) {
                std::copy(e.row.begin(), e.row.end(), v.begin() + static_cast<long>(me * n));
            } else {
                v[me] = e.row.empty() ? 0 : e.row[0];
            }
        }
    for (auto& [k, v] : counts) index[k] = t.add_counts(std::move(v));
    return index;
}

// Pass 3 for rank `r`: its events as records from `origin` on (its .trc is `file`), the time
// between two calls a Compute record, local calls Compute records of their duration; a call
// that starts before the previous one ended is moved to its end. HDTrace's request ids are
// the records' handles and its cids their communicators: no table to map them through.
// Returns how many calls were moved.
std::uint64_t append_rank_records(Trace& t, std::uint32_t r, const std::vector<HdEvent>& events,
                                  Ps origin, const std::string& file,
                                  const std::vector<std::string>& paths,
                                  const std::map<VKey, std::int32_t>& index) {
    std::uint64_t clamped = 0;
    Ps cursor = 0;
    auto compute = [&](Ps from, Ps to) {
        if (to <= from) return;
        Record c;
        c.kind = mpi::OpKind::Compute;
        c.compute_time = to_time(to - from, file);
        c.timed = true;
        c.start = to_time(from, file);
        c.end = to_time(to, file);
        t.append(r, c);
    };
    for (const HdEvent& e : events) {
        Ps s = e.start - origin;
        Ps end = e.end - origin;
        if (s < cursor) {
            ++clamped;
            s = cursor;
            end = std::max(end, cursor);
        }
        compute(cursor, s);
        if (e.local) {
            compute(s, end);
        } else {
            Record rec = e.rec;
            if (rec.kind == mpi::OpKind::FileOpen)
                rec.path = t.intern(paths[static_cast<std::size_t>(rec.path)]);
            if (e.fix == Fix::VCounts)
                rec.counts = index.at({e.cid, static_cast<int>(rec.coll), e.occurrence});
            rec.timed = true;
            rec.start = to_time(s, file);
            rec.end = to_time(end, file);
            t.append(r, rec);
        }
        cursor = end;
    }
    return clamped;
}

class HdtraceReader final : public TraceReader {
  public:
    std::string name() const override { return "hdtrace"; }
    std::string description() const override {
        return "HDTrace project (.proj, or its folder) with one XML .trc per rank (PIOsimHD)";
    }
    bool sniff(const std::string& path, const std::string& head) const override {
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            int n = 0;
            for (const auto& entry : fs::directory_iterator(path, ec))
                n += entry.path().extension() == ".proj";
            return n == 1;
        }
        if (fs::path(path).extension() == ".proj") return true;
        return head.find("<Application") != std::string::npos &&
               head.find("<FileList") != std::string::npos;
    }
    Trace read(const std::string& path, const ReadOptions& options,
               ReadReport& report) const override {
        const XmlFile proj(find_project(path));
        const Project p = read_project(proj);
        const auto ranks = static_cast<std::uint32_t>(p.ranks.size());

        // Pass 1: every rank's top-level calls.
        std::vector<std::vector<HdEvent>> events(ranks);
        std::vector<std::vector<std::string>> paths(ranks);
        std::uint64_t nested = 0;
        bool offsets = false;
        for (std::uint32_t r = 0; r < ranks; ++r) {
            std::error_code ec;
            if (!fs::exists(p.ranks[r].file, ec))
                throw InputError(proj.path(), p.ranks[r].line,
                                 fmt::format("rank {}: trace file '{}' not found", r,
                                             fs::path(p.ranks[r].file).filename().string()));
            const XmlFile trc(p.ranks[r].file);
            report.inputs.push_back(p.ranks[r].file);
            bool used_offsets = false;
            events[r] =
                hdtrace_in::read_rank_events(p, proj, trc, static_cast<std::int32_t>(r), options,
                                             report, nested, paths[r], used_offsets);
            offsets = offsets || used_offsets;
        }

        Trace t;
        t.name = p.name;
        t.source = path;
        t.format = "hdtrace";
        t.traced_speed = 0;
        t.files = p.files;
        for (const auto& f : p.files) t.intern(f.name);
        t.resize(ranks);

        // Pass 2a: receive sizes from the matching sends.
        const std::uint64_t unmatched = fill_receive_sizes(events);

        // Pass 2b: v-collective counts from the k-th call of every member.
        const auto index = v_count_lists(events, p, t);

        // Communicators the replayed calls use, created up front by every rank.
        std::set<std::int32_t> used;
        for (const auto& evs : events)
            for (const HdEvent& e : evs)
                if (!e.local && e.cid >= 0 && e.cid != p.world_cid) used.insert(e.cid);

        // Pass 3: the time origin, then the records.
        std::optional<Ps> origin;
        for (const auto& evs : events)
            if (!evs.empty() && (!origin || evs.front().start < *origin))
                origin = evs.front().start;
        std::uint64_t clamped = 0;
        for (std::uint32_t r = 0; r < ranks; ++r) {
            for (std::int32_t cid : used) {
                const Communicator& c = p.comms.at(cid);
                const auto it = c.local_of.find(static_cast<std::int32_t>(r));
                Record s;
                s.kind = mpi::OpKind::CommSplit;
                s.comm = 0;
                s.color = it != c.local_of.end() ? cid : mpi::kUndefined;
                s.key = it != c.local_of.end() ? it->second : 0;
                s.newcomm = static_cast<std::uint32_t>(cid == 0 ? p.world_cid : cid);
                s.timed = true;
                t.append(r, s);
            }
            clamped +=
                append_rank_records(t, r, events[r], *origin, p.ranks[r].file, paths[r], index);
        }

        if (origin) {
            const Ps sec = *origin / 1'000'000'000'000;
            const Ps frac = *origin % 1'000'000'000'000;
            report.notes.push_back(fmt::format(
                "time origin: {}.{:012d} s (timeAdjustment + time of the earliest top-level "
                "call over all ranks); every rank's records start there",
                static_cast<std::int64_t>(sec), static_cast<std::int64_t>(frac)));
        }
        report.notes.push_back(fmt::format(
            "{} nested calls skipped: they implement the top-level call that follows them",
            nested));
        report.notes.push_back(
            "compute bursts are recorded durations (the traced CPU speed is unknown): replay "
            "keeps them as times");
        if (!used.empty())
            report.notes.push_back(
                fmt::format("{} communicators created up front with comm_split (cids {})",
                            used.size(), fmt::join(used, ", ")));
        if (offsets)
            report.notes.push_back(
                "File_write/File_read without a file view log the byte offset they accessed: "
                "replayed as their *_at forms at that offset");
        if (unmatched != 0)
            report.notes.push_back(fmt::format(
                "{} receives have no matching send in the traces: replayed with 0 bytes",
                unmatched));
        if (clamped != 0)
            report.notes.push_back(fmt::format(
                "{} calls started before the previous call of their rank ended: moved to its end",
                clamped));
        return t;
    }
};

}  // namespace

std::unique_ptr<TraceReader> make_hdtrace_reader() {
    return std::make_unique<HdtraceReader>();
}

}  // namespace clustersim::traces
