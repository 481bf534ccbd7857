// A collective's transfers priced at the buffer they land in (issue 23; <collectives
// buffer-footprint="yes">): a rendezvous segment or block of a collective moves at the lower
// of the <point-to-point> curve's bandwidths at its own size and at the size of the receive
// buffer it lands in (comm::FittedCurve::time_within). Closed forms in the simple model
// (intra-node latency L = 1 us, rendezvous messages: a segment of s bytes costs its transfer
// time T more than the same schedule with a transfer time T0): a segment of a 100 MiB bcast
// costs seg / B(100 MiB); a gather root's block costs block / B(the gathered buffer), and
// its copy of its own block block / the copy rate of that buffer; a
// scatter's block, the program's own messages and segments whose own size is the slower
// one are unchanged; off by default.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "models/comm_model.hpp"
#include "sim_fixtures.hpp"
#include "simulator/error.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;

// One node, one socket, two cores; the simple model (L = 1 us) with the intra-node curve
// `points`; every message above 1 KiB is rendezvous; `footprint` the attribute's value
// ("" for none); `copy_rate` the <copy-rate> points ("" for none).
run::Model machine(const std::string& points, const std::string& footprint,
                   const std::string& copy_rate = "") {
    const std::string attr =
        footprint.empty() ? "" : fmt::format(R"( buffer-footprint="{}")", footprint);
    const std::string xml = fmt::format(
        R"(<cluster name="footprint">
  <network granularity="message" eager-threshold="1KiB"/>
  <node-type name="n" memory="1GiB">
    <socket name="s0" cores="2" speed="1G"/>
    <memory-node name="mem0" local-bandwidth="1GB/s"/>
    <cable from="s0" to="mem0" latency="500ns" bandwidth="1GB/s"/>
  </node-type>
  <node name="n0" type="n"/>
  <comm-model model="simple" intra-latency="1us" intra-bandwidth="1GB/s" collectives="messages">
    <point-to-point scope="intra_node">{}</point-to-point>
  </comm-model>
  <collectives reduce-instructions-per-byte="0"{}>{}</collectives>
</cluster>
)",
        points, attr, copy_rate.empty() ? "" : "<copy-rate>" + copy_rate + "</copy-rate>");
    return run::parse_model(xml, "footprint.xml");
}

std::vector<mpi::RankLocation> two_cores(const topo::Topology& t) {
    const auto v = t.nodes[0].sockets[0].vertex;
    return {mpi::RankLocation{0, 0, 0, v}, mpi::RankLocation{0, 0, 1, v}};
}

mpi::SimulationResult run_script(const run::Model& t, std::vector<std::vector<mpi::Op>> script,
                                 const std::vector<std::string>& algorithms = {}) {
    ScriptProgram prog(std::move(script));
    mpi::SimulationOptions opt;
    opt.algorithm_overrides = algorithms;
    auto res = mpi::simulate(t, two_cores(t.topology), prog, opt);
    EXPECT_EQ(res.ranks[0].bytes_sent, res.ranks[1].bytes_received);
    EXPECT_EQ(res.ranks[1].bytes_sent, res.ranks[0].bytes_received);
    EXPECT_EQ(res.network.messages_sent, res.network.messages_delivered);
    return res;
}

mpi::Op collective(mpi::CollOp op, std::uint64_t bytes) {
    mpi::Op o;
    o.kind = mpi::OpKind::Collective;
    o.coll = op;
    o.bytes = bytes;
    return o;
}

Time last_finish(const mpi::SimulationResult& r) {
    return max(r.ranks[0].finish, r.ranks[1].finish);
}

constexpr std::uint64_t kMiB = 1024 * 1024;

// 4 GB/s up to 1 MiB (a cache-resident ping-pong), 1 GB/s from 64 MiB on (memory-bound).
const std::string kCliff = R"(<point size="2KiB" bandwidth="4GB/s"/>)"
                           R"(<point size="1MiB" bandwidth="4GB/s"/>)"
                           R"(<point size="64MiB" bandwidth="1GB/s"/>)";

TEST(BufferFootprint, TimeWithinIsTheLowerOfTheTwoBandwidths) {
    const auto c = comm::FittedCurve::from({{2048, Bandwidth{4'000'000'000}},
                                            {kMiB, Bandwidth{4'000'000'000}},
                                            {64 * kMiB, Bandwidth{1'000'000'000}}});
    // In a 100 MiB buffer a 1 MiB segment moves at 1 GB/s: 1,048,576 B / 1 GB/s.
    EXPECT_EQ(c.time_within(kMiB, 100 * kMiB), Time::ns(1'048'576));
    EXPECT_EQ(c.time(kMiB), Time::ns(262'144));
    // A buffer no larger than the message: the message's own time.
    EXPECT_EQ(c.time_within(kMiB, kMiB), c.time(kMiB));
    EXPECT_EQ(c.time_within(kMiB, 0), c.time(kMiB));
    // A rising curve (the small message's own fixed cost): the slower, its own size.
    const auto rising = comm::FittedCurve::from(
        {{64 * 1024, Bandwidth{1'000'000'000}}, {kMiB, Bandwidth{4'000'000'000}}});
    EXPECT_EQ(rising.time_within(64 * 1024, kMiB), rising.time(64 * 1024));
    EXPECT_EQ(rising.time_within(64 * 1024, kMiB), Time::ns(65'536));
}

TEST(BufferFootprint, ASegmentOfA100MiBBcastCostsSegOverTheBuffersBandwidth) {
    // Pipelined-chain bcast of 100 MiB in 1 MiB segments on 2 ranks: 100 rendezvous
    // messages, one after the other (step k sends segment k). With the attribute each
    // segment moves at B(100 MiB) = 1 GB/s (1,048.576 us) instead of B(1 MiB) = 4 GB/s
    // (262.144 us): the call lasts exactly 100 x 786.432 us longer.
    const std::vector<std::string> pipeline{"bcast=pipelined_chain:segment=1MiB"};
    const auto call = std::vector<std::vector<mpi::Op>>(
        2, std::vector<mpi::Op>{collective(mpi::CollOp::Bcast, 100 * kMiB)});
    const auto off = run_script(machine(kCliff, ""), call, pipeline);
    const auto no = run_script(machine(kCliff, "no"), call, pipeline);
    const auto on = run_script(machine(kCliff, "yes"), call, pipeline);
    EXPECT_EQ(last_finish(no), last_finish(off));  // "no" is the default
    EXPECT_EQ(last_finish(on) - last_finish(off), 100 * Time::ns(786'432));
    // A lone point-to-point message of one segment is unchanged: the program's own
    // messages land in buffers of their own size.
    const std::vector<std::vector<mpi::Op>> lone{{send(1, kMiB)}, {recv(0, kMiB)}};
    EXPECT_EQ(last_finish(run_script(machine(kCliff, "yes"), lone)),
              last_finish(run_script(machine(kCliff, ""), lone)));
}

// 4 GB/s up to 512 KiB, 2 GB/s from 1 MiB on: a gather of 512 KiB blocks on 2 ranks lands
// rank 1's block in the root's 1 MiB buffer.
const std::string kHalf = R"(<point size="2KiB" bandwidth="4GB/s"/>)"
                          R"(<point size="512KiB" bandwidth="4GB/s"/>)"
                          R"(<point size="1MiB" bandwidth="2GB/s"/>)";

TEST(BufferFootprint, AGatherRootsBlockMovesAtTheGatheredBuffersBandwidth) {
    const auto call = std::vector<std::vector<mpi::Op>>(
        2, std::vector<mpi::Op>{collective(mpi::CollOp::Gather, 512 * 1024)});
    const std::vector<std::string> linear{"gather=linear"};
    const auto off = run_script(machine(kHalf, ""), call, linear);
    const auto on = run_script(machine(kHalf, "yes"), call, linear);
    // 524,288 B at 2 GB/s (262.144 us) instead of 4 GB/s (131.072 us).
    EXPECT_EQ(on.ranks[0].finish - off.ranks[0].finish, Time::ns(131'072));
    // The schedule is otherwise the same: one rendezvous message, 3 L + T.
    EXPECT_EQ(off.ranks[0].finish, Time::us(3) + Time::ns(131'072));
    EXPECT_EQ(on.ranks[0].finish, Time::us(3) + Time::ns(262'144));
}

TEST(BufferFootprint, AGatherRootsOwnBlockIsCopiedAtTheGatheredBuffersRate) {
    // The root copies its own 512 KiB block into its 1 MiB buffer first: at the copy-rate
    // curve's 2 GB/s of 1 MiB (262.144 us) instead of its 4 GB/s of 512 KiB (131.072 us);
    // then rank 1's block, whose request waited, costs 2 L + block / B.
    const auto call = std::vector<std::vector<mpi::Op>>(
        2, std::vector<mpi::Op>{collective(mpi::CollOp::Gather, 512 * 1024)});
    const std::vector<std::string> linear{"gather=linear"};
    const auto off = run_script(machine(kHalf, "", kHalf), call, linear);
    const auto on = run_script(machine(kHalf, "yes", kHalf), call, linear);
    EXPECT_EQ(off.ranks[0].finish, Time::ns(131'072) + Time::us(2) + Time::ns(131'072));
    EXPECT_EQ(on.ranks[0].finish, Time::ns(262'144) + Time::us(2) + Time::ns(262'144));
    // A scatter's root copies into a receive buffer of its block's size: unchanged.
    const auto scatter = std::vector<std::vector<mpi::Op>>(
        2, std::vector<mpi::Op>{collective(mpi::CollOp::Scatter, 512 * 1024)});
    const std::vector<std::string> scatter_linear{"scatter=linear"};
    EXPECT_EQ(last_finish(run_script(machine(kHalf, "yes", kHalf), scatter, scatter_linear)),
              last_finish(run_script(machine(kHalf, "", kHalf), scatter, scatter_linear)));
}

TEST(BufferFootprint, AScattersBlockLandsInABufferOfItsOwnSize) {
    const auto call = std::vector<std::vector<mpi::Op>>(
        2, std::vector<mpi::Op>{collective(mpi::CollOp::Scatter, 512 * 1024)});
    const std::vector<std::string> linear{"scatter=linear"};
    const auto off = run_script(machine(kHalf, ""), call, linear);
    const auto on = run_script(machine(kHalf, "yes"), call, linear);
    EXPECT_EQ(on.ranks[1].finish, off.ranks[1].finish);
    EXPECT_EQ(on.ranks[1].finish, Time::us(3) + Time::ns(131'072));
}

TEST(BufferFootprint, AnAllgathersBlocksLandInTheWholeBuffer) {
    // Each rank receives the other's 512 KiB block into its 1 MiB buffer: 2 GB/s.
    const auto call = std::vector<std::vector<mpi::Op>>(
        2, std::vector<mpi::Op>{collective(mpi::CollOp::Allgather, 512 * 1024)});
    const std::vector<std::string> ring{"allgather=ring"};
    const auto off = run_script(machine(kHalf, ""), call, ring);
    const auto on = run_script(machine(kHalf, "yes"), call, ring);
    EXPECT_EQ(last_finish(on) - last_finish(off), Time::ns(131'072));
}

TEST(BufferFootprint, SegmentsWhoseOwnSizeIsSlowerKeepIt) {
    // A rising curve (1 GB/s at 64 KiB, 4 GB/s at 1 MiB): 64 KiB segments of a 1 MiB bcast
    // pay their own, slower, size's bandwidth either way.
    const std::string rising =
        R"(<point size="64KiB" bandwidth="1GB/s"/><point size="1MiB" bandwidth="4GB/s"/>)";
    const std::vector<std::string> pipeline{"bcast=pipeline:segment=64KiB"};
    const auto call = std::vector<std::vector<mpi::Op>>(
        2, std::vector<mpi::Op>{collective(mpi::CollOp::Bcast, kMiB)});
    EXPECT_EQ(last_finish(run_script(machine(rising, "yes"), call, pipeline)),
              last_finish(run_script(machine(rising, ""), call, pipeline)));
}

TEST(BufferFootprint, BadValueIsOneLineNamingTheLine) {
    expect_input_errors(
        {{"maybe",
          "<collectives> attribute 'buffer-footprint': 'maybe' is not valid; expected "
          "yes or no"}},
        "footprint.xml:12", [](const std::string& v) { (void)machine(kCliff, v); });
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
