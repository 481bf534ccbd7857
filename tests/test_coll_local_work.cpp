// Collectives' local work at measured rates (<collectives reduce-bandwidth copy-bandwidth>,
// written by clustersim-calibrate): a rank that copies its own block (gather and scatter
// roots, every rank of allgather and alltoall) spends block / copy-bandwidth on its core
// before the algorithm's first step; a reduction step combines its bytes at reduce-bandwidth
// instead of instructions per byte. Closed forms on the uniform star of coll_fixtures.hpp
// (T(m) = 2 L + 2 m / B, eager messages). With buffer-copies="yes", the algorithms' own
// buffer copies (Algorithm::buffer_copies: Open MPI 4.1's allreduce copies) at the copy rate.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "coll_fixtures.hpp"
#include "simulator/error.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

run::Model star2_children(const std::string& attrs, const std::string& children) {
    std::string xml = R"(<cluster name="star2">
  <network granularity="message" eager-threshold="1TiB"/>
  <collectives )" + attrs +
                      ">" + children +
                      R"(</collectives>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="2" type="n"/>
  <switch name="sw"/>
)";
    for (int i = 0; i < 2; ++i)
        xml += fmt::format(
            "  <cable from=\"n{}.s0\" to=\"sw\" latency=\"1us\" bandwidth=\"1GB/s\"/>\n", i);
    return run::parse_model(xml + "</cluster>\n", "star2.xml");
}

run::Model star2(const std::string& attrs) {
    return star2_children(attrs, "");
}

mpi::SimulationResult one_call(const run::Model& t, mpi::CollOp op, const std::string& alg,
                               std::uint64_t bytes) {
    mpi::Op o;
    o.kind = mpi::OpKind::Collective;
    o.coll = op;
    o.bytes = bytes;
    ScriptProgram prog(std::vector<std::vector<mpi::Op>>(2, {o}));
    mpi::SimulationOptions opt;
    opt.algorithm_overrides = {std::string(mpi::to_string(op)) + "=" + alg};
    return mpi::simulate(t, one_rank_per_node(t, 2), prog, opt);
}

constexpr std::uint64_t kM = 1'000'000;  // bytes

TEST(CollLocalWork, GatherRootCopiesItsOwnBlockFirst) {
    // Copy at 100 MB/s: 10 ms, far longer than the other block's arrival (T(m) = 2.002 ms),
    // which waits as an unexpected message: the root ends with its copy.
    const auto t = star2(R"(reduce-instructions-per-byte="0" copy-bandwidth="100MB/s")");
    const auto r = one_call(t, mpi::CollOp::Gather, "binomial", kM);
    EXPECT_EQ(r.ranks[0].finish, Time::ms(10));
    EXPECT_EQ(r.ranks[1].finish, Time::ms(1));  // its eager send: m / B
    // Without a copy rate: no copy cost, the root waits for the block only.
    const auto plain =
        one_call(star2(R"(reduce-instructions-per-byte="0")"), mpi::CollOp::Gather, "binomial", kM);
    EXPECT_EQ(plain.ranks[0].finish, Time::us(2) + Time::ms(2));
}

TEST(CollLocalWork, AllgatherEveryRankCopiesThenExchanges) {
    const auto t = star2(R"(reduce-instructions-per-byte="0" copy-bandwidth="100MB/s")");
    const auto r = one_call(t, mpi::CollOp::Allgather, "recursive_doubling", kM);
    // 10 ms of copy, then one exchange of m: T(m).
    EXPECT_EQ(r.ranks[0].finish, Time::ms(10) + Time::us(2) + Time::ms(2));
    EXPECT_EQ(r.ranks[1].finish, r.ranks[0].finish);
}

TEST(CollLocalWork, ScatterNonRootCopiesNothing) {
    const auto t = star2(R"(reduce-instructions-per-byte="0" copy-bandwidth="100MB/s")");
    const auto r = one_call(t, mpi::CollOp::Scatter, "binomial", kM);
    // The root copies (10 ms), then sends rank 1's block: it arrives T(m) later.
    EXPECT_EQ(r.ranks[0].finish, Time::ms(10) + Time::ms(1));
    EXPECT_EQ(r.ranks[1].finish, Time::ms(10) + Time::us(2) + Time::ms(2));
}

TEST(CollLocalWork, ReductionAtTheMeasuredRate) {
    // Binomial reduce of m on 2 ranks: the root receives m (T(m)) and combines it at
    // 2 GB/s (0.5 ms); reduce-bandwidth wins over the 1000 instructions per byte.
    const auto t = star2(R"(reduce-instructions-per-byte="1000" reduce-bandwidth="2GB/s")");
    const auto r = one_call(t, mpi::CollOp::Reduce, "binomial", kM);
    EXPECT_EQ(r.ranks[0].finish, Time::us(2) + Time::ms(2) + Time::us(500));
    // Instructions per byte alone: 1 instruction per byte at 1 G instructions/s = 1 ms.
    const auto ipb =
        one_call(star2(R"(reduce-instructions-per-byte="1")"), mpi::CollOp::Reduce, "binomial", kM);
    EXPECT_EQ(ipb.ranks[0].finish, Time::us(2) + Time::ms(2) + Time::ms(1));
}

TEST(CollLocalWork, RateCurvesWinOverTheAttributes) {
    // Copies: 100 MB/s at 1 MB (10 ms), 1 GB/s at 10 MB; the attribute's 1 GB/s loses.
    // Reductions: 500 MB/s at 1 MB (2 ms).
    const auto t = star2_children(
        R"(reduce-instructions-per-byte="0" copy-bandwidth="1GB/s" reduce-bandwidth="8GB/s")",
        R"(<copy-rate><point size="1MB" bandwidth="100MB/s"/><point size="10MB" bandwidth="1GB/s"/></copy-rate>
<reduce-rate><point size="1MB" bandwidth="500MB/s"/></reduce-rate>)");
    ASSERT_EQ(t.mpi.copy_curve.size(), 2u);
    ASSERT_EQ(t.mpi.reduce_curve.size(), 1u);
    EXPECT_EQ(one_call(t, mpi::CollOp::Gather, "binomial", kM).ranks[0].finish, Time::ms(10));
    EXPECT_EQ(one_call(t, mpi::CollOp::Reduce, "binomial", kM).ranks[0].finish,
              Time::us(2) + Time::ms(2) + Time::ms(2));
}

// <collectives buffer-copies="yes">: the allreduce algorithms' own copies (Open MPI 4.1's
// coll/base) at the copy rate: 100 MB/s, so m = 1 MB costs 10 ms per copy.
TEST(CollLocalWork, BufferCopiesAddTheAlgorithmsCopiesAtTheCopyRate) {
    const std::string rate = R"(reduce-instructions-per-byte="0" copy-bandwidth="100MB/s")";
    const auto plain = star2(rate), copies = star2(rate + R"( buffer-copies="yes")");
    EXPECT_FALSE(plain.mpi.buffer_copies);
    EXPECT_TRUE(copies.mpi.buffer_copies);
    // Recursive doubling: one exchange of m, T(m). With copies every rank first copies its
    // vector into the temporary (10 ms); rank 0 (lower than its partner) combines into its
    // receive buffer and ends there, rank 1 combines into the temporary and copies the
    // result back (10 ms more).
    const auto rd0 = one_call(plain, mpi::CollOp::Allreduce, "recursive_doubling", kM);
    EXPECT_EQ(rd0.ranks[0].finish, Time::us(2) + Time::ms(2));
    EXPECT_EQ(rd0.ranks[1].finish, Time::us(2) + Time::ms(2));
    const auto rd = one_call(copies, mpi::CollOp::Allreduce, "recursive_doubling", kM);
    EXPECT_EQ(rd.ranks[0].finish, Time::ms(10) + Time::us(2) + Time::ms(2));
    EXPECT_EQ(rd.ranks[1].finish, Time::ms(20) + Time::us(2) + Time::ms(2));
    // Ring and Rabenseifner on 2 ranks: two exchanges of m / 2,
    // 2 T(m / 2); with copies the send buffer's copy into the receive buffer first.
    for (const char* alg : {"ring", "rabenseifner"}) {
        SCOPED_TRACE(alg);
        const auto a0 = one_call(plain, mpi::CollOp::Allreduce, alg, kM);
        EXPECT_EQ(a0.ranks[0].finish, 2 * (Time::us(2) + Time::ms(1)));
        const auto a = one_call(copies, mpi::CollOp::Allreduce, alg, kM);
        EXPECT_EQ(a.ranks[0].finish, Time::ms(10) + 2 * (Time::us(2) + Time::ms(1)));
        EXPECT_EQ(a.ranks[1].finish, a.ranks[0].finish);
    }
    // Segmented ring (64 KiB phases): the same schedule, 10 ms later.
    EXPECT_EQ(one_call(copies, mpi::CollOp::Allreduce, "segmented_ring", kM).ranks[1].finish,
              Time::ms(10) +
                  one_call(plain, mpi::CollOp::Allreduce, "segmented_ring", kM).ranks[1].finish);
    // Algorithms without copies of their own, and a model without a copy rate: unchanged.
    EXPECT_EQ(one_call(copies, mpi::CollOp::Allreduce, "reduce_bcast", kM).ranks[1].finish,
              one_call(plain, mpi::CollOp::Allreduce, "reduce_bcast", kM).ranks[1].finish);
    const auto no_rate = star2(R"(reduce-instructions-per-byte="0" buffer-copies="yes")");
    EXPECT_EQ(one_call(no_rate, mpi::CollOp::Allreduce, "recursive_doubling", kM).ranks[1].finish,
              Time::us(2) + Time::ms(2));
    // Gather's own-block copy is charged as before, with or without the attribute.
    EXPECT_EQ(one_call(copies, mpi::CollOp::Gather, "binomial", kM).ranks[0].finish, Time::ms(10));
}

TEST(CollLocalWork, RecursiveDoublingCopiesBackWhereTheResultEndsInTheTemporary) {
    // Open MPI's rule: a rank swaps its buffers in each exchange with a higher partner and
    // starts in the temporary, so it copies back after an even number of swaps; the ranks
    // that sit out (even ranks below 2 rem) get the result in place.
    mpi::CollectiveRegistry registry;
    mpi::register_builtin_collectives(registry);
    const mpi::Algorithm* rd = registry.find(mpi::CollOp::Allreduce, "recursive_doubling");
    ASSERT_NE(rd, nullptr);
    const auto after = [&](std::int32_t p) {
        std::vector<int> v;
        for (std::int32_t r = 0; r < p; ++r) {
            mpi::CollArgs a;
            a.op = mpi::CollOp::Allreduce;
            a.size = p;
            a.rank = r;
            a.bytes = 64;
            const auto c = rd->buffer_copies(a);
            EXPECT_EQ(c.before, 64u);
            v.push_back(c.after == 64 ? 1 : 0);
            EXPECT_TRUE(c.after == 0 || c.after == 64);
        }
        return v;
    };
    // p = 4: rank 0 swaps twice (partners 1, 2), 1 and 2 once, 3 never.
    EXPECT_EQ(after(4), (std::vector<int>{1, 0, 0, 1}));
    // p = 3: rank 0 sits out; rank 1 (survivor 0) swaps with rank 2; rank 2 never swaps.
    EXPECT_EQ(after(3), (std::vector<int>{0, 0, 1}));
    // p = 8: swaps = the zero bits among a rank's three low bits.
    EXPECT_EQ(after(8), (std::vector<int>{0, 1, 1, 0, 1, 0, 0, 1}));
    // The others copy before only.
    for (const char* name : {"ring", "segmented_ring", "rabenseifner"}) {
        mpi::CollArgs a;
        a.op = mpi::CollOp::Allreduce;
        a.size = 5;
        a.rank = 3;
        a.bytes = 100;
        const auto c = registry.find(mpi::CollOp::Allreduce, name)->buffer_copies(a);
        EXPECT_EQ(c.before, 100u) << name;
        EXPECT_EQ(c.after, 0u) << name;
    }
}

TEST(CollLocalWork, BadRatesAreOneLineErrors) {
    for (
        const auto& [children, phrase] : std::vector<std::pair<std::string, std::string>>{
            {"<copy-rate/>", "<copy-rate> without <point> elements"},
            {R"(<reduce-rate><point size="1MB" bandwidth="1GB/s"/></reduce-rate><reduce-rate><point size="1MB" bandwidth="1GB/s"/></reduce-rate>)",
             "second <reduce-rate> in <collectives>"},
            {R"(<copy-rate><point size="2MB" bandwidth="1GB/s"/><point size="1MB" bandwidth="1GB/s"/></copy-rate>)",
             "expected sizes strictly rising"},
            {"<rate/>", "expected only <algorithm>, <copy-rate> and <reduce-rate> elements"}}) {
        try {
            star2_children("", children);
            ADD_FAILURE() << children << " parsed";
        } catch (const InputError& e) {
            EXPECT_THAT(e.what(), ::testing::HasSubstr(phrase));
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
        }
    }
    try {
        star2(R"(copy-bandwidth="0B/s")");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr("star2.xml:3: <collectives> attribute "
                                                   "'copy-bandwidth'"));
    }
    try {
        star2(R"(buffer-copies="maybe")");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr("star2.xml:3: <collectives> attribute "
                                                   "'buffer-copies': 'maybe' is not valid"));
    }
    try {
        star2(R"(reduce-bandwidth="fast")");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr("'reduce-bandwidth'"));
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
