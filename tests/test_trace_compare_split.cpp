// `compare`'s split headline (issue 56): the ranks' time summed over ranks, split into what
// was replayed (compute, unmodeled calls), what was modelled (MPI, MPI-IO) and what no record
// covers; the parts add up to the ranks' runtimes on both sides.
#include <gtest/gtest.h>

#include "mpi/runtime.hpp"
#include "report/compare.hpp"

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

    // The same split in JSON, per rank too: each side's parts add up, per rank and in all.
    const nlohmann::json j = traces::comparison_json(c);
    ASSERT_EQ(j.at("split").size(), 4u);
    for (const char* side : {"recorded_s", "simulated_s"}) {
        const auto& p = j.at("split");
        EXPECT_DOUBLE_EQ(
            p[0].at(side).get<double>() + p[1].at(side).get<double>() + p[2].at(side).get<double>(),
            p[3].at(side).get<double>());
    }
    EXPECT_DOUBLE_EQ(j.at("split")[1].at("error").get<double>(), 140.0 / 190.0 - 1);
    ASSERT_EQ(j.at("ranks").size(), 2u);
    EXPECT_DOUBLE_EQ(j.at("ranks")[0].at("modelled").at("recorded_s").get<double>(), 40e-6);
    EXPECT_DOUBLE_EQ(j.at("ranks")[0].at("modelled").at("simulated_s").get<double>(), 20e-6);
    EXPECT_DOUBLE_EQ(j.at("ranks")[1].at("modelled").at("recorded_s").get<double>(), 150e-6);
    EXPECT_DOUBLE_EQ(j.at("ranks")[1].at("modelled").at("simulated_s").get<double>(), 120e-6);
    double modelled_ranks = 0;
    for (const auto& r : j.at("ranks"))
        modelled_ranks += r.at("modelled").at("recorded_s").get<double>();
    EXPECT_DOUBLE_EQ(modelled_ranks, j.at("split")[1].at("recorded_s").get<double>());
    EXPECT_DOUBLE_EQ(j.at("runtime").at("recorded_s").get<double>(), 160e-6);
    EXPECT_FALSE(j.contains("by_size"));
    EXPECT_TRUE(traces::comparison_json(c, true).contains("by_size"));
}

// A row whose recorded time is 0 and simulated time is not has no error: null, not inf.
TEST(CompareSplit, AnErrorWithoutARecordedTimeIsNull) {
    traces::RunLog rec, sim;
    rec.ranks.resize(1);
    sim.ranks.resize(1);
    rec.ops = {split_op(0, mpi::OpKind::Compute, 0, 100)};
    sim.ops = {split_op(0, mpi::OpKind::Compute, 0, 100), split_op(0, mpi::OpKind::Send, 100, 110)};
    const nlohmann::json j = traces::comparison_json(traces::compare_runs(rec, sim));
    EXPECT_TRUE(j.at("split")[1].at("error").is_null()) << j.dump();
    EXPECT_EQ(j.at("split")[2].at("error").get<double>(), 0.0);
}

}  // namespace
