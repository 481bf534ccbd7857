#include "traces/replay.hpp"

#include <cstring>

#include "simulator/time.hpp"

namespace clustersim::traces {

TraceProgram::TraceProgram(const Trace& trace, std::vector<std::uint64_t> core_speed,
                           std::uint64_t traced_speed)
    : trace_(trace),
      core_speed_(std::move(core_speed)),
      traced_speed_(traced_speed != 0 ? traced_speed : trace.traced_speed) {
    std::uint64_t bytes = 0;
    for (std::uint32_t r = 0; r < trace.ranks(); ++r) bytes += trace.stream(r).size();
    cursors_.reserve(trace.ranks());
    if (bytes >= kArenaBytes) {
        arena_ = HugeBuffer(bytes);
        std::uint8_t* at = arena_.data();
        for (std::uint32_t r = 0; r < trace.ranks(); ++r) {
            const std::vector<std::uint8_t>& s = trace.stream(r);
            if (!s.empty()) std::memcpy(at, s.data(), s.size());
            cursors_.push_back(trace.cursor(r, at));
            at += s.size();
        }
    } else {
        for (std::uint32_t r = 0; r < trace.ranks(); ++r) cursors_.push_back(trace.cursor(r));
    }
    previous_.resize(trace.ranks());
}

namespace {
// Instructions in a burst of `t` ps on a core of `speed` instructions/s, rounded:
// t * speed / 10^12 in 128 bits so it cannot overflow, with a 64-bit division when the
// product fits (the usual case, and far cheaper than the 128-bit one); same result.
std::uint64_t project(std::int64_t t, std::uint64_t speed) {
    const uint128 x = static_cast<uint128>(t) * speed + 500'000'000'000ULL;
    if (static_cast<std::uint64_t>(x >> 64) == 0)
        return static_cast<std::uint64_t>(x) / 1'000'000'000'000ULL;
    return static_cast<std::uint64_t>(x / 1'000'000'000'000ULL);
}
}  // namespace

std::uint64_t TraceProgram::instructions(std::int32_t rank, const Record& r) const {
    if (r.compute_time.ps() <= 0) return r.instructions;
    const std::uint64_t speed =
        traced_speed_ != 0 ? traced_speed_ : core_speed_[static_cast<std::size_t>(rank)];
    return project(r.compute_time.ps(), speed);
}

const Record& TraceProgram::current(std::int32_t rank) const {
    const auto r = static_cast<std::size_t>(rank);
    Trace::Cursor c = cursors_[r];
    c.seek(previous_[r].position, previous_[r].time_base);
    if (c.position() == cursors_[r].position() || !c.next(current_))
        current_ = Record{};  // nothing handed out yet
    return current_;
}

std::uint64_t TraceProgram::mark(std::int32_t rank) const {
    const auto r = static_cast<std::size_t>(rank);
    if (r >= cursors_.size() || cursors_[r].position() == 0) return 0;
    return previous_[r].position + 1;
}

std::uint64_t TraceProgram::record_number_at(std::int32_t rank, std::uint64_t mark) const {
    const auto r = static_cast<std::size_t>(rank);
    if (r >= cursors_.size() || mark == 0) return 0;
    Trace::Cursor c = trace_.cursor(static_cast<std::uint32_t>(rank));
    Record record;
    std::uint64_t n = 0;
    while (c.position() < mark - 1 && c.next(record)) ++n;
    return n + 1;
}

std::uint64_t TraceProgram::record_number(std::int32_t rank) const {
    return record_number_at(rank, mark(rank));
}

bool TraceProgram::next(std::int32_t rank, mpi::Op& op) {
    const auto r = static_cast<std::size_t>(rank);
    if (r >= cursors_.size()) return false;
    Trace::Cursor& c = cursors_[r];
    const Mark before{c.position(), c.time_base()};
    Time compute_time;
    if (!c.next(op, compute_time)) return false;
    // The next rank's next record, whose first byte is otherwise a cache miss when that rank
    // reads it (a thousand streams, a few bytes each at a time, are more than the caches
    // and the hardware prefetchers follow): ranks that run in step, as the ranks of most
    // traces do, advance one after another in rank order. A prefetch changes nothing else.
    if (r + 1 < cursors_.size()) cursors_[r + 1].prefetch();
    previous_[r] = before;
    ++consumed_;
    if (compute_time.ps() > 0) {  // as instructions(): a traced duration wins
        const std::uint64_t speed = traced_speed_ != 0 ? traced_speed_ : core_speed_[r];
        op.instructions = project(compute_time.ps(), speed);
    }
    return true;
}

mpi::Op to_op(const Trace& trace, const Record& r, std::uint64_t instructions) {
    mpi::Op op;
    op.kind = r.kind;
    op.instructions = instructions;
    op.peer = r.peer;
    op.tag = r.tag;
    op.comm = r.comm;
    op.bytes = r.bytes;
    op.peer2 = r.peer2;
    op.tag2 = r.tag2;
    op.bytes2 = r.bytes2;
    op.handle = r.handle;
    op.count = r.count;
    op.coll = r.coll;
    op.nonblocking = r.nonblocking;
    op.root = r.root;
    op.counts =
        r.counts == kNone ? nullptr : &trace.count_lists[static_cast<std::size_t>(r.counts)];
    op.color = r.color;
    op.key = r.key;
    op.newcomm = r.newcomm;
    op.file = r.file;
    op.path = r.path == kNone ? nullptr : &trace.strings[static_cast<std::size_t>(r.path)];
    op.offset = r.offset;
    op.view_block = r.view_block;
    op.view_stride = r.view_stride;
    op.whence = r.whence;
    if (mpi::is_onesided(r.kind)) op.file = r.win;  // an Op's window handle
    return op;
}

}  // namespace clustersim::traces
