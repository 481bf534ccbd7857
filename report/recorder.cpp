#include "report/recorder.hpp"

namespace clustersim::traces {

Recorder::Recorder(mpi::Program& program, std::uint32_t ranks, bool keep_trace,
                   const std::string& spill_path)
    : program_(program), keep_trace_(keep_trace), current_(ranks) {
    if (!spill_path.empty()) spill_ = std::make_unique<OpSpill>(spill_path);
    trace_.resize(ranks);
    trace_.format = "native_binary";
    log_.ranks.resize(ranks);
}

bool Recorder::next(std::int32_t rank, mpi::Op& op) {
    if (!program_.next(rank, op)) return false;
    current_[static_cast<std::size_t>(rank)] = op;
    return true;
}

void Recorder::request_done(std::int32_t rank, std::uint32_t handle) {
    program_.request_done(rank, handle);
    mpi::Op& op = current_[static_cast<std::size_t>(rank)];
    op.handle = handle;
    op.counts = nullptr;
}

void Recorder::op_done(const mpi::OpEvent& e) {
    if (spill_)
        spill_->add(e);
    else
        log_.ops.push_back(e);
    log_.simulated = max(log_.simulated, e.end);
    if (!keep_trace_) return;
    Record r = to_record(trace_, current_[static_cast<std::size_t>(e.rank)]);
    r.timed = true;
    r.start = e.start;
    r.end = e.end;
    trace_.append(static_cast<std::uint32_t>(e.rank), r);
}

Record to_record(Trace& trace, const mpi::Op& op) {
    Record r;
    r.kind = op.kind;
    r.instructions = op.instructions;
    r.peer = op.peer;
    r.tag = op.tag;
    r.comm = op.comm;
    r.bytes = op.bytes;
    r.peer2 = op.peer2;
    r.tag2 = op.tag2;
    r.bytes2 = op.bytes2;
    r.handle = op.handle;
    r.count = op.count;
    r.coll = op.coll;
    r.nonblocking = op.nonblocking;
    r.root = op.root;
    if (op.counts != nullptr) r.counts = trace.add_counts(*op.counts);
    r.color = op.color;
    r.key = op.key;
    r.newcomm = op.newcomm;
    r.file = op.file;
    if (op.path != nullptr) r.path = trace.intern(*op.path);
    r.offset = op.offset;
    r.view_block = op.view_block;
    r.view_stride = op.view_stride;
    r.whence = op.whence;
    if (mpi::is_onesided(op.kind)) {  // an Op's window handle is its `file`
        r.win = op.file;
        r.file = 0;
    }
    if (r.kind != mpi::OpKind::Compute && r.kind != mpi::OpKind::Unmodeled) r.instructions = 0;
    return r;
}

RunLog run_log_from_trace(const Trace& trace, const std::string& title, TracerOverhead* overhead) {
    RunLog log;
    log.title = title;
    log.ranks.resize(trace.ranks());
    for (std::uint32_t rank = 0; rank < trace.ranks(); ++rank) {
        log.ranks[rank].app = trace.name;
        log.ranks[rank].app_rank = static_cast<std::int32_t>(rank);
        auto c = trace.cursor(rank);
        Record r;
        Time shift;  // this rank's tracer overhead so far (with `overhead`)
        while (c.next(r)) {
            if (!r.timed) continue;
            mpi::OpEvent e;
            e.rank = static_cast<std::int32_t>(rank);
            e.kind = mpi::stat_kind(r.kind, r.coll, r.nonblocking);
            e.start = r.start - shift;
            e.end = r.end - shift;
            if (overhead != nullptr && r.kind == mpi::OpKind::Compute &&
                r.compute_time > Time::zero() && r.compute_time < r.end - r.start) {
                const Time extra = (r.end - r.start) - r.compute_time;
                e.end = e.start + r.compute_time;
                shift += extra;
                overhead->total += extra;
                ++overhead->bursts;
            }
            e.bytes = r.kind == mpi::OpKind::Sendrecv ? r.bytes + r.bytes2 : r.bytes;
            e.peer = r.kind == mpi::OpKind::Send || r.kind == mpi::OpKind::Recv ? r.peer : -1;
            log.ops.push_back(e);
            log.simulated = max(log.simulated, e.end);
        }
    }
    return log;
}

}  // namespace clustersim::traces
