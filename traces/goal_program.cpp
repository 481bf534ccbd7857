// GoalProgram (traces/goal.hpp): a GOAL schedule run by the runtime with its dependencies.
#include <algorithm>
#include <functional>

#include "simulator/time.hpp"
#include "traces/goal.hpp"

namespace clustersim::traces {

GoalProgram::GoalProgram(const GoalSchedule& schedule, std::vector<std::uint64_t> core_speed,
                         std::uint64_t traced_speed)
    : schedule_(schedule),
      core_speed_(std::move(core_speed)),
      traced_speed_(traced_speed),
      unmet_(schedule.deps),
      state_(schedule.ranks) {}

void GoalProgram::seed(std::uint32_t rank) {
    RankState& st = state_[rank];
    st.seeded = true;
    const std::uint64_t base = schedule_.begin[rank];
    for (std::uint32_t i = 0; i < schedule_.count[rank]; ++i)
        if (unmet_[base + i] == 0) st.ready.push_back(i);  // ascending: already a min-heap
}

void GoalProgram::release(std::uint32_t rank, std::uint32_t local, bool start_edges) {
    RankState& st = state_[rank];
    const std::uint64_t base = schedule_.begin[rank];
    const std::uint64_t i = base + local;
    for (std::uint64_t e = schedule_.succ_begin[i]; e < schedule_.succ_begin[i + 1]; ++e) {
        const std::uint32_t s = schedule_.succ[e];
        if (((s & GoalSchedule::kStartEdge) != 0) != start_edges) continue;
        const std::uint32_t j = s & ~GoalSchedule::kStartEdge;
        if (--unmet_[base + j] == 0) {
            st.ready.push_back(j);
            std::push_heap(st.ready.begin(), st.ready.end(), std::greater<>{});
        }
    }
}

void GoalProgram::started(std::uint32_t rank, std::uint32_t local) {
    ++started_;
    state_[rank].last = local;
    release(rank, local, true);
}

void GoalProgram::finished(std::uint32_t rank, std::uint32_t local) {
    release(rank, local, false);
}

namespace {
// Instructions in `ns` nanoseconds on a core of `speed` instructions/s, rounded (as a trace's
// compute time is projected, traces/replay.cpp).
std::uint64_t goal_instructions(std::uint64_t ns, std::uint64_t speed) {
    const uint128 x = static_cast<uint128>(ns) * 1000u * speed + 500'000'000'000ULL;
    return static_cast<std::uint64_t>(x / 1'000'000'000'000ULL);
}
}  // namespace

bool GoalProgram::next(std::int32_t rank_in, mpi::Op& op) {
    const auto rank = static_cast<std::uint32_t>(rank_in);
    if (rank >= state_.size()) return false;
    RankState& st = state_[rank];
    if (!st.seeded) seed(rank);
    if (st.calc != kNone) {  // the calc handed out last has run
        const std::uint32_t c = st.calc;
        st.calc = kNone;
        finished(rank, c);
    }
    op = mpi::Op{};
    if (!st.ready.empty()) {
        std::pop_heap(st.ready.begin(), st.ready.end(), std::greater<>{});
        const std::uint32_t local = st.ready.back();
        st.ready.pop_back();
        const GoalOp& g = schedule_.ops[schedule_.begin[rank] + local];
        started(rank, local);
        if (g.kind == GoalKind::Calc) {
            op.kind = mpi::OpKind::Compute;
            op.instructions =
                goal_instructions(g.size, traced_speed_ != 0 ? traced_speed_ : core_speed_[rank]);
            st.calc = local;
            return true;
        }
        op.kind = g.kind == GoalKind::Send ? mpi::OpKind::Isend : mpi::OpKind::Irecv;
        op.peer = g.peer;
        op.tag = g.tag;
        op.bytes = g.size;
        std::uint32_t h = 0;
        if (!st.free_handles.empty()) {
            h = st.free_handles.back();
            st.free_handles.pop_back();
        } else {
            h = static_cast<std::uint32_t>(st.handle_op.size());
            st.handle_op.push_back(kNone);
        }
        st.handle_op[h] = local;
        st.pending.push_back(h);
        op.handle = h;
        return true;
    }
    if (!st.pending.empty()) {  // wait for any posted send or receive
        op.kind = mpi::OpKind::Wait;
        op.counts = &st.pending;
        return true;
    }
    return false;  // every operation has completed (the schedule has no cycle)
}

void GoalProgram::request_done(std::int32_t rank_in, std::uint32_t handle) {
    const auto rank = static_cast<std::uint32_t>(rank_in);
    RankState& st = state_[rank];
    const auto it = std::find(st.pending.begin(), st.pending.end(), handle);
    if (it != st.pending.end()) st.pending.erase(it);
    const std::uint32_t local = st.handle_op[handle];
    st.handle_op[handle] = kNone;
    st.free_handles.push_back(handle);
    finished(rank, local);
}

std::uint32_t GoalProgram::line(std::int32_t rank_in) const {
    const auto rank = static_cast<std::uint32_t>(rank_in);
    if (rank >= state_.size()) return 0;
    const RankState& st = state_[rank];
    std::uint32_t local = st.last;
    if (st.calc == kNone && !st.pending.empty()) {
        local = kNone;
        for (const std::uint64_t h : st.pending) local = std::min(local, st.handle_op[h]);
    }
    if (local == kNone) return 0;
    return schedule_.ops[schedule_.begin[rank] + local].line;
}

}  // namespace clustersim::traces
