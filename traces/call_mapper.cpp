// The call-to-record mapper the MPI trace readers share (call_mapper.hpp).
#include "traces/call_mapper.hpp"

#include <fmt/format.h>

namespace clustersim::traces {

std::uint32_t RequestTable::take() {
    if (!free_.empty()) {
        const std::uint32_t h = *free_.begin();
        free_.erase(free_.begin());
        return h;
    }
    return next_++;
}

std::optional<std::uint32_t> RequestTable::find(std::int64_t request) const {
    auto it = open_.find(request);
    if (it == open_.end()) return std::nullopt;
    return it->second;
}

std::optional<std::uint32_t> RequestTable::close(std::int64_t request) {
    auto it = open_.find(request);
    if (it == open_.end()) return std::nullopt;
    const std::uint32_t h = it->second;
    open_.erase(it);
    return h;
}

std::vector<std::uint32_t> RequestTable::complete(const std::vector<std::int64_t>& requests) {
    std::vector<std::uint32_t> out;
    for (std::int64_t q : requests)
        if (auto h = close(q)) {
            out.push_back(*h);
            release(*h);
        }
    return out;
}

std::optional<std::int32_t> CommTable::find(std::int64_t id) const {
    auto it = handles_.find(id);
    if (it == handles_.end()) return std::nullopt;
    return it->second;
}

std::int32_t SharedCountLists::list(std::int64_t comm, mpi::CollOp op, std::uint64_t k,
                                    std::size_t n) {
    const auto key = std::make_tuple(comm, static_cast<int>(op), k);
    auto it = index_.find(key);
    if (it == index_.end()) {
        trace_.count_lists.emplace_back(n, 0);
        it = index_.emplace(key, static_cast<std::int32_t>(trace_.count_lists.size() - 1)).first;
    }
    auto& l = trace_.count_lists[static_cast<std::size_t>(it->second)];
    if (l.size() != n) l.assign(n, 0);
    return it->second;
}

void CallMapper::fail(const std::string& what) const {
    if (fail_) throw fail_(what);
    throw InputError(trace_.source, 0, fmt::format("rank {}: {}", rank_, what));
}

void CallMapper::flush() {
    for (const Record& r : records_) trace_.append(rank_, r);
    records_.clear();
}

void CallMapper::timed_call(Time start, Time end, bool gap) {
    const Time from = have_last_ ? last_end_ : Time::zero();
    if (gap && start > from) {
        Record r;
        r.kind = mpi::OpKind::Compute;
        r.compute_time = start - from;
        r.timed = true;
        r.start = from;
        r.end = start;
        push(r);
    }
    last_end_ = have_last_ ? std::max(last_end_, end) : end;
    have_last_ = true;
}

Record CallMapper::unmodeled(const std::string& name, bool named) {
    Record r;
    r.kind = mpi::OpKind::Unmodeled;
    r.path = named ? trace_.intern(name) : kNone;
    ++report_.unmodeled[name];
    if (name == "MPI_Finalize") report_.finalized.insert(rank_);
    return r;
}

bool CallMapper::wait(const std::vector<std::int64_t>& requests, bool all, bool timed, Time start,
                      Time end) {
    const std::vector<std::uint32_t> handles = requests_.complete(requests);
    if (handles.empty()) return false;
    push_waits(handles, all, [&](Record r, bool last) {
        if (timed) {
            r.timed = true;
            r.start = start;
            r.end = last ? end : start;
        }
        push(r);
    });
    return true;
}

namespace {

// The kinds whose record names a communicator (`comm`).
bool on_comm(mpi::OpKind k) {
    using K = mpi::OpKind;
    switch (k) {
        case K::Send:
        case K::Recv:
        case K::Isend:
        case K::Irecv:
        case K::Sendrecv:
        case K::Collective:
        case K::FileOpen:
        case K::CommFree:
        case K::WinCreate:
            return true;
        default:
            return mpi::creates_comm(k);
    }
}

}  // namespace

CallMapper::Mapped CallMapper::map(const MpiCall& c) {
    Record r = c.rec;
    const mpi::OpKind k = r.kind;
    if (k == mpi::OpKind::Wait || k == mpi::OpKind::Waitall)
        return wait(c.completes, c.all, c.timed, c.start, c.end) ? Mapped::Yes : Mapped::NoneOpen;
    if (on_comm(k)) {
        const auto h = comms_.find(c.comm);
        if (!h) return Mapped::UnknownComm;
        r.comm = *h;
    }
    if (k == mpi::OpKind::CommFree) comms_.erase(c.comm);
    if (k == mpi::OpKind::Isend || k == mpi::OpKind::Irecv ||
        (k == mpi::OpKind::Collective && r.nonblocking))
        r.handle = requests_.open(c.request);
    if (mpi::creates_comm(k)) {
        r.newcomm = comms_.create();
        if (c.newcomm != kNoComm) comms_.bind(c.newcomm, static_cast<std::int32_t>(r.newcomm));
    }
    if (c.timed) {
        r.timed = true;
        r.start = c.start;
        r.end = c.end;
    }
    push(r);
    return Mapped::Yes;
}

void CallMapper::map_unmodeled(const MpiCall& c) {
    Record r = unmodeled(std::string(c.name));
    r.compute_time = c.timed ? c.end - c.start : Time::zero();
    if (c.timed) {
        r.timed = true;
        r.start = c.start;
        r.end = c.end;
    }
    push(r);
}

std::int32_t CallMapper::count_list(std::int64_t comm, mpi::CollOp op, std::size_t n) {
    const std::uint64_t k = calls_[{comm, static_cast<int>(op)}]++;
    return lists_.list(comm, op, k, n);
}

}  // namespace clustersim::traces
