// The GOAL schedule reader (traces/goal_reader.cpp: parse_goal), from memory; a schedule it
// accepts is then run by its GoalProgram without a network (every posted send and receive
// completes when the rank waits), which must hand out each operation once and end.
#include "fuzz_common.hpp"
#include "traces/goal.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_goal) {
    clustersim::fuzz::expect_clean([&] {
        const clustersim::traces::GoalSchedule s = clustersim::traces::parse_goal(
            std::string(reinterpret_cast<const char*>(data), size), "input.goal");
        clustersim::traces::GoalProgram program(
            s, std::vector<std::uint64_t>(s.ranks, 2'500'000'000ULL));
        std::uint64_t handed = 0;
        for (std::uint32_t r = 0; r < s.ranks; ++r) {
            clustersim::mpi::Op op;
            while (program.next(static_cast<std::int32_t>(r), op)) {
                if (op.kind == clustersim::mpi::OpKind::Wait) {
                    if (op.counts == nullptr || op.counts->empty()) std::abort();
                    program.request_done(static_cast<std::int32_t>(r),
                                         static_cast<std::uint32_t>(op.counts->back()));
                } else if (++handed > s.ops.size()) {
                    std::abort();  // an operation handed out twice
                }
            }
        }
        if (handed != s.ops.size()) std::abort();  // one never handed out
    });
    return 0;
}
