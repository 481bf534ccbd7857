// Measured collective curves (issue 23, <collective-curve> in <collectives>): a blocking
// collective whose operation, communicator size and placement match a curve costs the
// curve's time from its last member's entry; any other call runs its algorithm as before.
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>

#include "coll_fixtures.hpp"
#include "collectives/coll_curve.hpp"
#include "simulator/error.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;
using mpi::CollOp;
using mpi::Op;
using mpi::OpKind;

Op coll(CollOp c, std::uint64_t bytes, bool nonblocking = false) {
    Op op;
    op.kind = OpKind::Collective;
    op.coll = c;
    op.bytes = bytes;
    op.nonblocking = nonblocking;
    if (nonblocking) op.handle = 0;
    return op;
}

// p single-core nodes on a star; `extra` goes inside <collectives>.
run::Model star(int p, const std::string& extra, const std::string& attrs = "") {
    std::string xml = fmt::format(R"(<cluster name="star">
  <network granularity="message" eager-threshold="1TiB"/>
  <collectives reduce-instructions-per-byte="0" {}>{}</collectives>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="4" speed="1G"/></node-type>
  <nodes prefix="n" count="{}" type="n"/>
  <switch name="sw"/>
)",
                                  attrs, extra, p);
    for (int i = 0; i < p; ++i)
        xml += fmt::format(
            "  <cable from=\"n{}.s0\" to=\"sw\" latency=\"1us\" bandwidth=\"1GB/s\"/>\n", i);
    return run::parse_model(xml + "</cluster>\n", "star.xml");
}

// All p ranks on node 0, one per core.
std::vector<mpi::RankLocation> one_node(const run::Model& m, std::size_t p) {
    std::vector<mpi::RankLocation> out;
    for (std::size_t r = 0; r < p; ++r)
        out.push_back(mpi::RankLocation{0, 0, static_cast<std::uint32_t>(r),
                                        m.topology.nodes[0].sockets[0].vertex});
    return out;
}

mpi::SimulationResult run_ops(const run::Model& m, const std::vector<mpi::RankLocation>& where,
                              const std::vector<std::vector<Op>>& ops) {
    ScriptProgram prog(ops);
    return mpi::simulate(m, where, prog);
}

void expect_model_error(const std::string& extra, const std::string& needle,
                        const std::string& attrs = "") {
    try {
        star(2, extra, attrs);
        FAIL() << "expected an InputError containing: " << needle;
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("star.xml:"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
}

// A barrier with a curve of 5 us costs exactly 5 us after the last member enters: rank r
// computes r x 10 us first, so every rank leaves at 30 us + 5 us; the second barrier, entered
// by all at 35 us, ends at 40 us.
TEST(CollectiveCurves, BarrierCostsExactlyTheCurveTimeAfterTheLastArrival) {
    const auto m = star(4, R"(<collective-curve operation="barrier" ranks="4" scope="inter_node">
      <point size="0B" time="5us"/></collective-curve>)");
    std::vector<std::vector<Op>> ops;
    for (int r = 0; r < 4; ++r)
        ops.push_back({compute(10'000ULL * static_cast<std::uint64_t>(r)), coll(CollOp::Barrier, 0),
                       coll(CollOp::Barrier, 0)});
    const auto res = run_ops(m, one_rank_per_node(m, 4), ops);
    const auto b = mpi::stat_kind(OpKind::Collective, CollOp::Barrier, false);
    for (int r = 0; r < 4; ++r) {
        EXPECT_EQ(res.ranks[r].finish, Time::us(40)) << r;
        EXPECT_EQ(res.ranks[r].ops[b].count, 2u);
        EXPECT_EQ(res.ranks[r].ops[b].time, Time::us(35 - 10 * r + 5)) << r;
        EXPECT_EQ(res.ranks[r].bytes_sent, 0u) << "no message: " << r;
    }
    ASSERT_EQ(res.algorithms.count("barrier/measured-curve"), 1u);
    EXPECT_EQ(res.algorithms.at("barrier/measured-curve"), 2u);
}

// Between two measured points the time follows the power law through them (log-log
// interpolation; with two points the monotone cubic is that straight line in log-log):
// (1 KiB, 1 us) and (16 KiB, 4 us) give 2 us at 4 KiB; below the first point its time, above
// the last the last point's bandwidth (16 us at 64 KiB).
TEST(CollectiveCurves, AllreduceBetweenTwoPointsInterpolatesLogLog) {
    const std::string curve =
        R"(<collective-curve operation="allreduce" ranks="2" scope="intra_node">
      <point size="1KiB" time="1us"/><point size="16KiB" time="4us"/></collective-curve>)";
    const auto m = star(2, curve);
    const std::vector<std::pair<std::uint64_t, double>> want{
        {512, 1.0}, {1024, 1.0}, {4096, 2.0}, {16384, 4.0}, {65536, 16.0}};
    for (const auto& [bytes, us] : want) {
        const auto res =
            run_ops(m, one_node(m, 2),
                    {{coll(CollOp::Allreduce, bytes)}, {coll(CollOp::Allreduce, bytes)}});
        for (int r = 0; r < 2; ++r)
            EXPECT_NEAR(static_cast<double>(res.ranks[r].finish.ps()), us * 1e6, 2.0)
                << bytes << " B, rank " << r;
    }
    // The curve itself: a size-0 point joins the first positive one by a straight line.
    const mpi::CollectiveCurve c(
        {{0, Time::ns(100)}, {1000, Time::ns(300)}, {4000, Time::ns(600)}});
    EXPECT_EQ(c.at(0), Time::ns(100));
    EXPECT_EQ(c.at(500), Time::ns(200));
    EXPECT_NEAR(static_cast<double>(c.at(2000).ps()), 300e3 * std::pow(2.0, 0.5), 2.0);
    EXPECT_NEAR(static_cast<double>(c.at(8000).ps()), 1.2e6, 2.0);
    const mpi::CollectiveCurve flat({{0, Time::ns(700)}});
    EXPECT_EQ(flat.at(0), Time::ns(700));
    EXPECT_EQ(flat.at(1 << 20), Time::ns(700));
    EXPECT_THROW(mpi::CollectiveCurve({{8, Time::ns(1)}, {8, Time::ns(2)}}), std::invalid_argument);
    EXPECT_THROW(mpi::CollectiveCurve({{8, Time::zero()}}), std::invalid_argument);
}

// A call the curves do not match runs its algorithm, bit for bit as without curves: another
// communicator size, another placement, another operation, a nonblocking call, or
// <collectives curves="off">.
TEST(CollectiveCurves, UnmatchedCallsRunTheirAlgorithmUnchanged) {
    const std::string two =
        R"(<collective-curve operation="allreduce" ranks="2" scope="inter_node"><point size="1KiB" time="1ms"/></collective-curve>)";
    const std::string intra4 =
        R"(<collective-curve operation="allreduce" ranks="4" scope="intra_node"><point size="1KiB" time="1ms"/></collective-curve>)";
    const std::string bcast4 =
        R"(<collective-curve operation="bcast" ranks="4" scope="inter_node"><point size="1KiB" time="1ms"/></collective-curve>)";
    const std::string inter4 =
        R"(<collective-curve operation="allreduce" ranks="4" scope="inter_node"><point size="1KiB" time="1ms"/></collective-curve>)";
    const auto plain = star(4, "");
    const std::vector<std::vector<Op>> ops(
        4, {coll(CollOp::Allreduce, 4096), compute(1000), coll(CollOp::Allreduce, 4096)});
    std::vector<std::vector<Op>> nb(4, {coll(CollOp::Allreduce, 4096, true), wait(0)});
    const auto where = one_rank_per_node(plain, 4);
    const auto base = run_ops(plain, where, ops);
    const auto base_nb = run_ops(plain, where, nb);
    for (const auto& [model, what] : {std::pair{star(4, two), "2-rank curve"},
                                      {star(4, intra4), "intra-node curve"},
                                      {star(4, bcast4), "bcast curve"},
                                      {star(4, inter4, R"(curves="off")"), "curves off"}}) {
        const auto res = run_ops(model, where, ops);
        for (int r = 0; r < 4; ++r) {
            EXPECT_EQ(res.ranks[r].finish, base.ranks[r].finish) << what << ", rank " << r;
            EXPECT_EQ(res.ranks[r].bytes_sent, base.ranks[r].bytes_sent) << what;
        }
        EXPECT_EQ(res.algorithms, base.algorithms) << what;
    }
    const auto res_nb = run_ops(star(4, inter4), where, nb);
    for (int r = 0; r < 4; ++r) EXPECT_EQ(res_nb.ranks[r].finish, base_nb.ranks[r].finish) << r;
    // The matching curve does replace the algorithm: its one point's bandwidth (1 KiB per ms)
    // above it, so 4 ms + 1 us + 4 ms.
    const auto curved = run_ops(star(4, inter4), where, ops);
    for (int r = 0; r < 4; ++r) EXPECT_EQ(curved.ranks[r].finish, Time::us(8001)) << r;
    // An algorithm named for the call (--algorithm, or a model rule for its size) runs.
    mpi::SimulationOptions o;
    o.algorithm_overrides = {"allreduce=ring"};
    ScriptProgram p1(ops), p2(ops);
    const auto forced = mpi::simulate(star(4, inter4), where, p1, o);
    const auto forced_plain = mpi::simulate(plain, where, p2, o);
    const std::string rule = R"(<algorithm operation="allreduce" name="ring" max-size="8KiB"/>)";
    const auto ruled = run_ops(star(4, inter4 + rule), where, ops);
    const auto ruled_plain = run_ops(star(4, rule), where, ops);
    for (int r = 0; r < 4; ++r) {
        EXPECT_EQ(forced.ranks[r].finish, forced_plain.ranks[r].finish) << r;
        EXPECT_EQ(ruled.ranks[r].finish, ruled_plain.ranks[r].finish) << r;
    }
    EXPECT_EQ(forced.algorithms.count("allreduce/ring"), 1u);
    // Ranks sharing a node but not all on one: neither scope matches.
    auto mixed = where;
    mixed[1] = mixed[0];
    mixed[1].core = 1;
    const auto m_inter = run_ops(star(4, inter4), mixed, ops);
    const auto m_plain = run_ops(plain, mixed, ops);
    for (int r = 0; r < 4; ++r) EXPECT_EQ(m_inter.ranks[r].finish, m_plain.ranks[r].finish) << r;
}

TEST(CollectiveCurves, BadCurvesAreOneLineNamingTheFileAndAttribute) {
    const auto pt = std::string(R"(<point size="1KiB" time="1us"/>)");
    expect_model_error(R"(<collective-curve operation="allgatherv" ranks="2" scope="intra_node">)" +
                           pt + "</collective-curve>",
                       "'operation': 'allgatherv' is not valid");
    expect_model_error(R"(<collective-curve operation="bcast" ranks="1" scope="intra_node">)" + pt +
                           "</collective-curve>",
                       "'ranks': 1 is not valid");
    expect_model_error(R"(<collective-curve operation="bcast" ranks="2" scope="socket">)" + pt +
                           "</collective-curve>",
                       "'scope': 'socket' is not valid");
    expect_model_error(R"(<collective-curve operation="bcast" ranks="2" scope="intra_node"/>)",
                       "without <point> elements");
    expect_model_error(
        R"(<collective-curve operation="bcast" ranks="2" scope="intra_node"><point size="1KiB" time="0s"/></collective-curve>)",
        "expected a positive time");
    expect_model_error(
        R"(<collective-curve operation="bcast" ranks="2" scope="intra_node"><point size="1KiB" time="1us"/><point size="1KiB" time="2us"/></collective-curve>)",
        "expected sizes strictly rising");
    const std::string one = R"(<collective-curve operation="bcast" ranks="2" scope="intra_node">)" +
                            pt + "</collective-curve>";
    expect_model_error(one + one, "second <collective-curve> of bcast on 2 ranks intra_node");
    expect_model_error("", "'curves': 'maybe' is not valid", R"(curves="maybe")");
}

// A curve-timed collective sends no messages, but counts one each way between its members
// toward the lazy peer set-up (<mpi-overhead><peer-setup>): with after = 3 and 2 us, the
// third 5 us barrier of two ranks lasts 5 + 2 x 2 us (both directions set up, one after the
// other), every other one 5 us; fewer than three barriers cost what they cost without it.
TEST(CollectiveCurves, ACurveTimedCallCountsTowardThePeerSetUp) {
    auto model = [](bool setup) {
        return run::parse_model(
            fmt::format(
                R"(<cluster name="one">
  <network granularity="message" eager-threshold="1TiB"/>
  <collectives reduce-instructions-per-byte="0"><collective-curve operation="barrier" ranks="2" scope="intra_node"><point size="0B" time="5us"/></collective-curve></collectives>
  {}
  <node-type name="n" memory="1GiB"><socket name="s0" cores="4" speed="1G"/>
    <memory-node name="mem0"/><cable from="s0" to="mem0" latency="1us" bandwidth="1GB/s"/></node-type>
  <node name="n0" type="n"/>
</cluster>
)",
                setup ? R"(<mpi-overhead><peer-setup after="3" time="2us"/></mpi-overhead>)" : ""),
            "one.xml");
    };
    for (const int k : {2, 3, 5}) {
        std::vector<std::vector<Op>> ops(2);
        for (auto& r : ops)
            for (int i = 0; i < k; ++i) r.push_back(coll(CollOp::Barrier, 0));
        for (const bool setup : {false, true}) {
            const auto m = model(setup);
            const auto res = run_ops(m, one_node(m, 2), ops);
            const Time want = Time::us(5 * k + (setup && k >= 3 ? 4 : 0));
            for (int r = 0; r < 2; ++r)
                EXPECT_EQ(res.ranks[r].finish, want) << "k " << k << " setup " << setup;
        }
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
