#include "traces/replay.hpp"

#include "simulator/time.hpp"

namespace clustersim::traces {

TraceProgram::TraceProgram(const Trace& trace, std::vector<std::uint64_t> core_speed,
                           std::uint64_t traced_speed)
    : trace_(trace),
      core_speed_(std::move(core_speed)),
      traced_speed_(traced_speed != 0 ? traced_speed : trace.traced_speed) {
    cursors_.reserve(trace.ranks());
    for (std::uint32_t r = 0; r < trace.ranks(); ++r) cursors_.push_back(trace.cursor(r));
    current_.resize(trace.ranks());
}

std::uint64_t TraceProgram::instructions(std::int32_t rank, const Record& r) const {
    if (r.compute_time.ps() <= 0) return r.instructions;
    const std::uint64_t speed =
        traced_speed_ != 0 ? traced_speed_ : core_speed_[static_cast<std::size_t>(rank)];
    // t [ps] * speed [instructions/s] / 10^12, rounded; 128-bit so it cannot overflow.
    const uint128 x = static_cast<uint128>(r.compute_time.ps()) * speed + 500'000'000'000ULL;
    return static_cast<std::uint64_t>(x / 1'000'000'000'000ULL);
}

bool TraceProgram::next(std::int32_t rank, mpi::Op& op) {
    const auto r = static_cast<std::size_t>(rank);
    if (r >= cursors_.size()) return false;
    Record& rec = current_[r];
    if (!cursors_[r].next(rec)) return false;
    ++consumed_;
    op = to_op(trace_, rec, rec.kind == mpi::OpKind::Compute ? instructions(rank, rec) : 0);
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
    return op;
}

void MultiProgram::add(mpi::Program& program, std::uint32_t ranks) {
    const auto index = static_cast<std::uint32_t>(programs_.size());
    programs_.push_back(&program);
    sizes_.push_back(ranks);
    for (std::uint32_t i = 0; i < ranks; ++i) {
        owner_.push_back(index);
        local_.push_back(static_cast<std::int32_t>(i));
    }
}

bool MultiProgram::next(std::int32_t rank, mpi::Op& op) {
    const auto r = static_cast<std::size_t>(rank);
    if (r >= owner_.size()) return false;
    return programs_[owner_[r]]->next(local_[r], op);
}

}  // namespace clustersim::traces
