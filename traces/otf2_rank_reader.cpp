// Otf2RankReader (otf2_rank_reader.hpp): one location's ENTER/LEAVE and MPI events gathered
// into calls, the calls' times and clustersim:* attributes, the communicators a creating call
// makes, and the records pushed through the rank's CallMapper.
#include <algorithm>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "traces/otf2_rank_reader.hpp"

namespace clustersim::traces::otf2_in {

void Otf2RankReader::enter(std::uint64_t time, std::uint64_t pos, OTF2_AttributeList* attrs,
                           OTF2_RegionRef region) {
    ++depth_;
    if (in_call_) return;  // nested inside an MPI call: part of it
    auto it = sh_.defs->regions.find(region);
    if (it == sh_.defs->regions.end())
        fail(pos, fmt::format("ENTER of region {}, which is not defined", region));
    const std::string& name = it->second;
    const bool mpi = name.rfind("MPI_", 0) == 0;
    const bool compute = name == kOtf2ComputeRegion;
    if (!mpi && !compute && !sh_.clustersim) return;  // user code: part of the compute
    in_call_ = true;
    call_depth_ = depth_;
    call_.name = name;
    call_.short_name = &sh_.short_names[region];
    call_.compute = compute;
    call_.events.clear();
    call_.attrs.values.clear();
    call_.attrs.texts.clear();
    call_.start = ps(time);
    call_.index = pos;
    read_attributes(attrs);
}

void Otf2RankReader::leave(std::uint64_t time, std::uint64_t pos) {
    if (depth_ == 0) fail(pos, "LEAVE without a matching ENTER");
    if (in_call_ && depth_ == call_depth_) {
        in_call_ = false;
        call_.end = ps(time);
        if (call_.end < call_.start)
            fail(pos, fmt::format("LEAVE of {} at {} ps, before its ENTER at {} ps", call_.name,
                                  call_.end.ps(), call_.start.ps()));
        finish_call();
    }
    --depth_;
}

void Otf2RankReader::event(Otf2Event e) {
    if (!in_call_) {  // outside any MPI region (e.g. from a progress thread): ignored
        ++sh_.events_outside_calls;
        return;
    }
    call_.events.push_back(e);
}

void Otf2RankReader::finish(bool cut) {
    if (depth_ != 0 && in_call_) {
        if (!cut) fail(call_.index, fmt::format("the location ends inside {}", call_.name));
        dropped_call = call_.name;
    }
    sh_.unmatched_creations += creations_.size();
    creations_.clear();
    // Irecvs never completed keep any-source/any-tag and 0 bytes.
    sh_.open_irecvs += open_irecv_.size();
    m_.flush();
}

void Otf2RankReader::fail(std::uint64_t pos, const std::string& what) const {
    throw InputError(
        sh_.path, 0,
        fmt::format("location {} (rank {}) event {}: {}", location_, rank_, pos, what));
}

Time Otf2RankReader::ps(std::uint64_t ticks) const {
    const Wide d = static_cast<Wide>(ticks) - static_cast<Wide>(sh_.defs->offset);
    const Wide tps = static_cast<Wide>(sh_.defs->ticks_per_s);
    const Wide num = d * 1'000'000'000'000;
    Wide q = num / tps;
    const Wide r = num % tps;
    if (2 * (r < 0 ? -r : r) >= tps) q += num < 0 ? -1 : 1;
    return Time::ps(static_cast<std::int64_t>(q));
}

void Otf2RankReader::read_attributes(OTF2_AttributeList* list) {
    if (list == nullptr || sh_.defs->clustersim_attributes.empty()) return;
    const std::uint32_t n = OTF2_AttributeList_GetNumberOfElements(list);
    for (std::uint32_t i = 0; i < n; ++i) {
        OTF2_AttributeRef id;
        OTF2_Type type;
        OTF2_AttributeValue v;
        if (OTF2_AttributeList_GetAttributeByIndex(list, i, &id, &type, &v) != OTF2_SUCCESS)
            continue;
        auto it = sh_.defs->clustersim_attributes.find(id);
        if (it == sh_.defs->clustersim_attributes.end()) continue;
        const std::string_view name = it->second;
        if (type == OTF2_TYPE_STRING)
            call_.attrs.texts.set(name, sh_.defs->str(v.stringRef));
        else if (type == OTF2_TYPE_UINT64)
            call_.attrs.values.set(name, v.uint64);
        else if (type == OTF2_TYPE_INT64)
            call_.attrs.values.set(name, static_cast<std::uint64_t>(v.int64));
    }
}

std::vector<std::uint64_t> Otf2RankReader::comm_members(std::uint32_t comm) const {
    auto it = sh_.defs->comms.find(comm);
    if (it == sh_.defs->comms.end()) return {};
    auto g = sh_.defs->groups.find(it->second.group);
    if (g == sh_.defs->groups.end()) return {};
    if (g->second.type == OTF2_GROUP_TYPE_COMM_SELF) return {rank_};
    return g->second.members;
}

bool Otf2RankReader::self_comm(std::uint32_t comm) const {
    auto it = sh_.defs->comms.find(comm);
    if (it == sh_.defs->comms.end()) return false;
    auto g = sh_.defs->groups.find(it->second.group);
    return g != sh_.defs->groups.end() && g->second.type == OTF2_GROUP_TYPE_COMM_SELF;
}

std::int32_t Otf2RankReader::handle_of(std::uint32_t comm) {
    if (auto h = m_.comms().find(comm)) return *h;
    if (creations_.empty() || sh_.defs->comms.count(comm) == 0) return -1;
    const std::size_t rec = creations_.front();
    creations_.erase(creations_.begin());
    bind_creation(rec, comm);
    return *m_.comms().find(comm);
}

void Otf2RankReader::bind_creation(std::size_t rec, std::uint32_t comm) {
    if (sh_.defs->comms.count(comm) == 0) {  // a CommCreate of an undefined communicator
        ++sh_.unmatched_creations;
        return;
    }
    Record& r = m_.record(rec);
    m_.comms().bind(comm, static_cast<std::int32_t>(r.newcomm));
    const auto& c = sh_.defs->comms.at(comm);
    std::int32_t parent = 0;
    if (c.parent != kOtf2Undef32) {
        if (auto p = m_.comms().find(c.parent))
            parent = *p;
        else
            ++sh_.parentless;
    } else {
        ++sh_.parentless;
    }
    r.comm = parent;
    if (r.kind == mpi::OpKind::CommSplit) {
        const auto members = comm_members(comm);
        if (self_comm(comm)) {
            r.color = static_cast<std::int32_t>(sh_.defs->comms.size() + rank_);
            r.key = 0;
        } else {
            r.color = static_cast<std::int32_t>(comm);
            auto pos = std::find(members.begin(), members.end(), rank_);
            r.key = static_cast<std::int32_t>(pos - members.begin());
        }
    }
}

void Otf2RankReader::unmodeled(const Call& c) {
    Record r = m_.unmodeled(c.name, c.attrs.values.count("nopath") == 0);
    r.instructions = attr(c, "instructions", 0);
    r.compute_time = Time::ps(static_cast<std::int64_t>(
        attr(c, "compute_time", static_cast<std::uint64_t>((c.end - c.start).ps()))));
    push(r, c);
}

void Otf2RankReader::push(Record r, const Call& c) {
    // untimed, written by clustersim from an untimed record
    auto u = c.attrs.values.find("untimed");
    if (u != c.attrs.values.end() && u->second != 0) {
        r.timed = false;
    } else {
        r.timed = true;
        r.start = c.start;
        r.end = c.end;
        // clamped by the writer (OTF2 timestamps never decrease): the record's own times
        if (auto s = c.attrs.values.find("start"); s != c.attrs.values.end())
            r.start = Time::ps(static_cast<std::int64_t>(s->second));
        if (auto e = c.attrs.values.find("end"); e != c.attrs.values.end())
            r.end = Time::ps(static_cast<std::int64_t>(e->second));
    }
    m_.push(r);
}

std::uint32_t Otf2RankReader::handle_attr(const Call& c) {
    auto it = c.attrs.values.find("handle");
    return it != c.attrs.values.end() ? static_cast<std::uint32_t>(it->second)
                                      : m_.requests().take();
}

void Otf2RankReader::finish_call() {
    Call& c = call_;
    // clustersim's own archives write their compute records as regions
    m_.timed_call(c.start, c.end, !sh_.clustersim);
    if (c.compute) {
        Record r;
        r.kind = mpi::OpKind::Compute;
        r.instructions = attr(c, "instructions", 0);
        r.compute_time = Time::ps(static_cast<std::int64_t>(
            attr(c, "compute_time", static_cast<std::uint64_t>((c.end - c.start).ps()))));
        push(r, c);
        return;
    }
    if (c.attrs.values.count("unmodeled") || !map_call(c)) unmodeled(c);
}

}  // namespace clustersim::traces::otf2_in
