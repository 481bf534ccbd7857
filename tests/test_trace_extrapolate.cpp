// Trace extrapolation (traces/extrapolate.hpp) on synthetic SPMD programs written at any rank
// count (extrapolate_fixtures.hpp): traces at 2, 4 and 8 ranks extrapolated to 16 and 32 are
// the program's own traces at 16 and 32, record by record; what does not follow a law is
// refused with one line naming the input, the rank and the record.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "extrapolate_fixtures.hpp"
#include "simulator/error.hpp"
#include "trace_fixtures.hpp"

namespace clustersim::traces::testing {
namespace CLUSTERSIM_TEST_FILE {

// Every rank's records of `got` equal those of `want`, in order (the first difference named).
void expect_same_records(const Trace& got, const Trace& want) {
    ASSERT_EQ(got.ranks(), want.ranks());
    for (std::uint32_t r = 0; r < want.ranks(); ++r) {
        const std::vector<Record> a = records(got, r), b = records(want, r);
        ASSERT_EQ(a.size(), b.size()) << "rank " << r;
        for (std::size_t k = 0; k < a.size(); ++k)
            ASSERT_TRUE(a[k] == b[k])
                << "rank " << r << ", record " << k + 1 << ": " << record_name(a[k]) << " peer "
                << a[k].peer << " bytes " << a[k].bytes << " offset " << a[k].offset
                << ", expected " << record_name(b[k]) << " peer " << b[k].peer << " bytes "
                << b[k].bytes << " offset " << b[k].offset;
    }
}

Extrapolation extrapolated(const std::vector<ExtrapolationInput>& in, std::uint32_t ranks,
                           int dims = 0) {
    ExtrapolateOptions o;
    o.ranks = ranks;
    o.dims = dims;
    return extrapolate(in, o);
}

// The refusal's one line.
std::string refusal(const std::vector<ExtrapolationInput>& in, std::uint32_t ranks, int dims = 0) {
    try {
        extrapolated(in, ranks, dims);
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        return what;
    }
    ADD_FAILURE() << "not refused";
    return {};
}

Trace ring3(std::uint32_t p) {
    return ring(p);
}
Trace halo_periodic(std::uint32_t p) {
    return halo2d(p, true);
}
Trace halo_open(std::uint32_t p) {
    return halo2d(p, false);
}
Trace rows(std::uint32_t p) {
    return rows1d(p);
}
Trace collectives(std::uint32_t p) {
    return colls(p);
}

TEST(Extrapolate, DimsCreateIsMpisBalancedGrid) {
    EXPECT_EQ(dims_create(16, 2), (std::vector<std::uint32_t>{4, 4}));
    EXPECT_EQ(dims_create(8, 2), (std::vector<std::uint32_t>{4, 2}));
    EXPECT_EQ(dims_create(2, 2), (std::vector<std::uint32_t>{2, 1}));
    EXPECT_EQ(dims_create(12, 3), (std::vector<std::uint32_t>{3, 2, 2}));
    EXPECT_EQ(dims_create(7, 2), (std::vector<std::uint32_t>{7, 1}));
    EXPECT_EQ(dims_create(1048576, 3), (std::vector<std::uint32_t>{128, 128, 64}));
    EXPECT_EQ(dims_create(36, 1), (std::vector<std::uint32_t>{36}));
}

TEST(Extrapolate, LawsGoThroughEveryPointOrAreNotFound) {
    Law law;
    // 8 p + 16 at 2, 4, 8: a + b p; at 16: 144.
    ASSERT_TRUE(fit_exact({{2, 32}, {4, 48}, {8, 80}}, 1, law));
    EXPECT_EQ(law.name(), "a + b p");
    EXPECT_DOUBLE_EQ(law.at(16), 144);
    // 1, 2, 3 at 2, 4, 8 is log2 p, not c p (0.405 p rounds to 1, 2, 3 but gives 6 at 16).
    ASSERT_TRUE(fit_exact({{2, 1}, {4, 2}, {8, 3}}, 1, law));
    EXPECT_EQ(law.name(), "c log2 p");
    EXPECT_DOUBLE_EQ(law.at(16), 4);
    // 64 KiB / p from two scales: a one-term law is enough.
    ASSERT_TRUE(fit_exact({{4, 16384}, {8, 8192}}, 1, law));
    EXPECT_EQ(law.name(), "c/p");
    // The edge of a 2-D block, N / n_1: 1440, 720, 720 at 2 (2x1), 4 (2x2), 8 (4x2).
    ASSERT_TRUE(fit_exact({{2, 1440}, {4, 720}, {8, 720}}, 2, law));
    EXPECT_EQ(law.name(), "c/n1");
    EXPECT_DOUBLE_EQ(law.at(32), 360);  // 8x4
    // p^2 follows none of them; two scales that differ need a one-term law.
    EXPECT_FALSE(fit_exact({{2, 4}, {4, 16}, {8, 64}}, 1, law));
    EXPECT_FALSE(fit_exact({{2, 10}, {4, 11}}, 1, law));
    // Compute: the smaller relative residual; 1 ms / p is strong scaling, residual 0.
    double rms = 1, worst = 1;
    law = fit_compute({{2, 5e8}, {4, 2.5e8}, {8, 1.25e8}}, rms, worst);
    EXPECT_EQ(law.g, Growth::InvP);
    EXPECT_NEAR(rms, 0, 1e-12);
    law = fit_compute({{2, 100}, {4, 110}, {8, 90}}, rms, worst);
    EXPECT_EQ(law.g, Growth::None);
    // c minimises sum (c / v - 1)^2: c = sum(1/v) / sum(1/v^2).
    const double c = (1 / 100. + 1 / 110. + 1 / 90.) / (1 / 10000. + 1 / 12100. + 1 / 8100.);
    EXPECT_NEAR(law.a, c, 1e-9);
    EXPECT_NEAR(worst,
                std::max({std::fabs(c / 100 - 1), std::fabs(c / 110 - 1), std::fabs(c / 90 - 1)}),
                1e-12);
}

TEST(Extrapolate, ARingAt2_4_8IsTheRingAt16And32) {
    for (std::uint32_t target : {16u, 32u}) {
        const Extrapolation x = extrapolated(inputs(ring3, {2, 4, 8}), target);
        expect_same_records(x.trace, ring(target));
        EXPECT_EQ(x.dims, 1);
        EXPECT_FALSE(x.by_position);  // every rank alike
        ASSERT_EQ(x.classes.size(), 1u);
        EXPECT_EQ(x.classes[0].second, target);
        // Peers: irecv and isend per iteration, each a rank offset (-1, +1 mod p).
        ASSERT_EQ(x.peers.laws.size(), 1u);
        EXPECT_EQ(x.peers.laws[0].first, "a rank offset");
        EXPECT_EQ(x.peers.laws[0].second, 6u);
        EXPECT_EQ(x.compute.fitted, x.compute.constant);  // 100 us everywhere
        EXPECT_EQ(x.sizes.worst, 0);
    }
}

TEST(Extrapolate, APeriodic2DHaloIsFittedOnItsGrid) {
    // At 2, 4 and 8 ranks (2x1, 2x2, 4x2) the second dimension never has more than 2 ranks,
    // where -1 and +1 are the same neighbour: refused (below); from 4, 8 and 16 (4x4) it is
    // known.
    for (std::uint32_t target : {32u, 64u}) {
        const Extrapolation x = extrapolated(inputs(halo_periodic, {4, 8, 16}), target);
        expect_same_records(x.trace, halo2d(target, true));
        EXPECT_EQ(x.dims, 2);
        EXPECT_EQ(x.grid, dims_create(target, 2));
        // The edges: N / n_1 and N / n_0 bytes; the compute N^2 / p x 10 instructions.
        bool edge = false;
        for (const auto& [name, n] : x.sizes.laws) edge = edge || name == "c/n1";
        EXPECT_TRUE(edge) << x.sizes.laws.front().first;
        EXPECT_NEAR(x.compute.rms, 0, 1e-9);
    }
}

TEST(Extrapolate, ANonPeriodic2DHaloIsFittedByGridPosition) {
    // 3x3, 4x4, 5x5: every position of the grid (corners, edges, interior) at three scales.
    for (std::uint32_t target : {36u, 64u}) {
        const Extrapolation x = extrapolated(inputs(halo_open, {9, 16, 25}), target);
        expect_same_records(x.trace, halo2d(target, false));
        EXPECT_TRUE(x.by_position);
        EXPECT_EQ(x.classes.size(), 9u);  // 3 positions per dimension
    }
}

TEST(Extrapolate, RowBlocksWithFileOffsetsAreFittedPerRank) {
    // Offsets rank x N^2 x 8 / p: a law of p times the rank; the last rank's (p - 1) N^2 8 / p
    // is a + b/p.
    for (std::uint32_t target : {16u, 32u}) {
        const Extrapolation x = extrapolated(inputs(rows, {2, 4, 8}), target);
        expect_same_records(x.trace, rows1d(target));
        EXPECT_TRUE(x.by_position);
        ASSERT_EQ(x.classes.size(), 3u);
        EXPECT_EQ(x.classes[1].first, "interior");
        EXPECT_EQ(x.classes[1].second, target - 2);
        bool per_rank = false;
        for (const auto& [name, n] : x.sizes.laws)
            per_rank = per_rank || name == "constant + rank x (c/p)";
        EXPECT_TRUE(per_rank);
    }
}

TEST(Extrapolate, CollectivesWithScalingSizesAndRoots) {
    for (std::uint32_t target : {16u, 32u}) {
        const Extrapolation x = extrapolated(inputs(collectives, {2, 4, 8}), target);
        expect_same_records(x.trace, colls(target));
    }
}

TEST(Extrapolate, InputsInAnyOrderAndAtTwoScales) {
    // Two scales suffice where every law is one term (the ring: constants).
    const Extrapolation x = extrapolated(inputs(ring3, {8, 4}), 16);
    expect_same_records(x.trace, ring(16));
}

// ---- refusals ---------------------------------------------------------------------------

TEST(ExtrapolateRefuses, SequencesWhoseLengthGrowsWithP) {
    // Rank 0 receives from every other rank (p - 1 receives), the others send once.
    auto to_root = [](std::uint32_t p) {
        Trace t;
        t.resize(p);
        for (std::uint32_t r = 1; r < p; ++r) {
            t.append(0, p2p(mpi::OpKind::Recv, static_cast<std::int32_t>(r), 8));
            t.append(r, p2p(mpi::OpKind::Send, 0, 8));
        }
        return t;
    };
    const std::string why = refusal(inputs(+to_root, {2, 4, 8}), 16);
    EXPECT_NE(why.find("synthetic@"), std::string::npos) << why;
    EXPECT_NE(why.find("MPI calls"), std::string::npos) << why;
    EXPECT_NE(why.find("sequences of different lengths are not aligned"), std::string::npos) << why;
}

TEST(ExtrapolateRefuses, PeersThatAreNoOffsetNorGridRelation) {
    // Rank r sends to 3 r + 1 mod p and receives from its inverse: a permutation, no offset.
    auto perm = [](std::uint32_t p) {
        Trace t;
        t.resize(p);
        for (std::uint32_t r = 0; r < p; ++r) {
            std::uint32_t from = 0;
            for (std::uint32_t s = 0; s < p; ++s)
                if ((3 * s + 1) % p == r) from = s;
            t.append(r, p2p(mpi::OpKind::Irecv, static_cast<std::int32_t>(from), 8, 0));
            t.append(r, p2p(mpi::OpKind::Isend, static_cast<std::int32_t>((3 * r + 1) % p), 8, 1));
            t.append(r, waitall(0, 2));
        }
        return t;
    };
    const std::string why = refusal(inputs(+perm, {2, 4, 8}), 16);
    EXPECT_NE(why.find("is neither the same rank in every trace, a fixed offset"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("record "), std::string::npos) << why;
}

TEST(ExtrapolateRefuses, SizesThatFollowNoLaw) {
    auto square = [](std::uint32_t p) {
        Trace t;
        t.resize(p);
        for (std::uint32_t r = 0; r < p; ++r) t.append(r, coll(mpi::CollOp::Allreduce, p * p));
        return t;
    };
    const std::string why = refusal(inputs(+square, {2, 4, 8}), 16);
    EXPECT_NE(why.find("field bytes (4 at 2, 16 at 4, 64 at 8) follows no law of p"),
              std::string::npos)
        << why;
    // At two scales a + b g(p) is not tried: the message says a third scale would allow it.
    auto affine = [](std::uint32_t p) {
        Trace t;
        t.resize(p);
        for (std::uint32_t r = 0; r < p; ++r) t.append(r, coll(mpi::CollOp::Allreduce, p + 100));
        return t;
    };
    EXPECT_NE(refusal(inputs(+affine, {2, 4}), 16).find("a third scale would allow"),
              std::string::npos);
    EXPECT_NO_THROW(extrapolated(inputs(+affine, {2, 4, 8}), 16));
}

TEST(ExtrapolateRefuses, NeighboursTheInputsCannotTellApart) {
    const std::string why = refusal(inputs(halo_periodic, {2, 4, 8}), 16);
    EXPECT_NE(why.find("along dimension 1 of the grid alike at every input (the dimension has "
                       "at most 2 ranks there) but not at 4x4"),
              std::string::npos)
        << why;
}

TEST(ExtrapolateRefuses, APositionOfTheTargetsGridNoInputHas) {
    // A non-periodic 2-D halo at 2, 4, 8 (2x1, 2x2, 4x2): no rank is interior in dimension 1,
    // which 16 (4x4) has. (Without --dims the 1-D classing's refusal is printed: its ranks
    // make different numbers of calls.)
    const std::string why = refusal(inputs(halo_open, {2, 4, 8}), 16, 2);
    EXPECT_NE(why.find("--ranks: 16: no input has a rank at position"), std::string::npos) << why;
}

TEST(ExtrapolateRefuses, CommunicatorsCountListsAndBadScales) {
    auto split = [](std::uint32_t p) {
        Trace t;
        t.resize(p);
        for (std::uint32_t r = 0; r < p; ++r) {
            Record s;
            s.kind = mpi::OpKind::CommSplit;
            s.newcomm = 1;
            t.append(r, s);
        }
        return t;
    };
    EXPECT_NE(refusal(inputs(+split, {2, 4}), 8)
                  .find("synthetic@2: rank 0, record 1 (comm_split) makes or frees a communicator"),
              std::string::npos);
    EXPECT_NE(refusal(inputs(ring3, {4}), 8).find("give traces at two rank counts or more"),
              std::string::npos);
    EXPECT_NE(refusal(inputs(ring3, {4, 4}), 8).find("a second trace at 4 ranks"),
              std::string::npos);
    EXPECT_NE(refusal(inputs(ring3, {2, 4}), 0).find("--ranks: 0: expected 1 to"),
              std::string::npos);
}

TEST(ExtrapolateRefuses, ClassesSeenAtOneScaleOnly) {
    // Rows at 2 and 4: the interior ranks exist at 4 only.
    const std::string why = refusal(inputs(rows, {2, 4}), 16);
    EXPECT_NE(why.find("only this input has ranks of class interior"), std::string::npos) << why;
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::traces::testing
