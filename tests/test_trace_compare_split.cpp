// `compare`'s split headline (issue 56): the ranks' time summed over ranks, split into what
// was replayed (compute, unmodeled calls), what was modelled (MPI, MPI-IO) and what no record
// covers; the parts add up to the ranks' runtimes on both sides.
#include <gtest/gtest.h>

#include "collectives/runtime.hpp"
#include "traces/compare.hpp"

namespace {

using namespace clustersim;

mpi::OpEvent split_op(std::int32_t rank, mpi::OpKind kind, std::int64_t start_us,
                      std::int64_t end_us) {
    mpi::OpEvent e;
    e.rank = rank;
    e.kind = mpi::stat_kind(kind, {}, false);
    e.start = Time::us(start_us);
    e.end = Time::us(end_us);
    return e;
}

TEST(CompareSplit, ReplayedModelledAndGapsAddUpToTheRanksRuntimes) {
    traces::RunLog rec, sim;
    rec.ranks.resize(2);
    sim.ranks.resize(2);
    // Rank 0: compute 0-100, a gap 100-110, send 110-150, unmodeled 150-160.
    rec.ops = {split_op(0, mpi::OpKind::Compute, 0, 100), split_op(0, mpi::OpKind::Send, 110, 150),
               split_op(0, mpi::OpKind::Unmodeled, 150, 160)};
    // Rank 1: recv 0-150.
    rec.ops.push_back(split_op(1, mpi::OpKind::Recv, 0, 150));
    // Simulated: the send and the receive shorter, the replayed parts as recorded.
    sim.ops = {split_op(0, mpi::OpKind::Compute, 0, 100), split_op(0, mpi::OpKind::Send, 100, 120),
               split_op(0, mpi::OpKind::Unmodeled, 120, 130),
               split_op(1, mpi::OpKind::Recv, 0, 120)};
    const traces::Comparison c = traces::compare_runs(rec, sim);
    ASSERT_EQ(c.split.size(), 4u);
    const auto& replayed = c.split[0];
    const auto& modelled = c.split[1];
    const auto& gaps = c.split[2];
    const auto& sum = c.split[3];
    EXPECT_EQ(replayed.recorded, Time::us(110));  // compute 100 + unmodeled 10
    EXPECT_EQ(replayed.simulated, Time::us(110));
    EXPECT_EQ(modelled.recorded, Time::us(190));   // send 40 + recv 150
    EXPECT_EQ(modelled.simulated, Time::us(140));  // send 20 + recv 120
    EXPECT_EQ(gaps.recorded, Time::us(10));
    EXPECT_EQ(gaps.simulated, Time::zero());
    EXPECT_EQ(sum.recorded, Time::us(160 + 150));
    EXPECT_EQ(sum.simulated, Time::us(130 + 120));
    for (Time traces::CompareRow::*side :
         {&traces::CompareRow::recorded, &traces::CompareRow::simulated})
        EXPECT_EQ(replayed.*side + modelled.*side + gaps.*side, sum.*side);
    EXPECT_DOUBLE_EQ(modelled.error(), 140.0 / 190.0 - 1);
    const std::string table = traces::format_comparison(c);
    EXPECT_NE(table.find("modelled (MPI and MPI-IO calls)"), std::string::npos) << table;
    EXPECT_NE(table.find("-26.3%"), std::string::npos) << table;
}

}  // namespace
