// Motif apps (issue 58, collectives/motifs.hpp): each against its closed form on a uniform
// star under the simple model (every message L + m/B, independent of the others; 2.5 G
// instructions/s cores; a message above the eager threshold pays two more latencies for its
// rendezvous), the message counts the grid and stencil imply, the balanced grid, and the
// refusals of parameters that do not fit the rank count.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"
#include "collectives/motifs.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;

constexpr double kL = 1e-6, kB = 1e9, kSpeed = 2.5e9;

nlohmann::json run_json(const std::string& app, int ranks = 8) {
    const Result r = testing::run("run " + example("star-16.xml") + " --app " + app + " --ranks " +
                                  std::to_string(ranks) +
                                  " --network simple:latency=1us,bandwidth=1GB/s,intra-latency=0s,"
                                  "collectives=messages --json");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}
double simulated(const nlohmann::json& j) {
    return j.at("simulated_time_s").get<double>();
}

TEST(Motifs, Halo3dIsComputeThenOneMessageTime) {
    // 2 x 2 x 2 ranks, 32^3 cells of 8 B, 100 instructions a cell: C = 32768 x 100 / 2.5e9;
    // the six faces (8 KiB each) go at once: L + 8192 / B.
    const double c = 32768 * 100 / kSpeed, t = c + kL + 8192 / kB;
    const nlohmann::json j = run_json("halo3d:iterations=3");
    EXPECT_NEAR(simulated(j), 3 * t, 1e-12);
    EXPECT_NEAR(j.at("app_summary").at("iteration_time_s").get<double>(), t, 1e-12);
    // Periodic on a grid of 2: both the -1 and the +1 neighbour of each dimension, the same
    // rank, get a face: 6 messages a rank and iteration.
    EXPECT_EQ(j.at("network").at("messages").get<int>(), 3 * 8 * 6);
}

TEST(Motifs, StencilAndBordersDecideTheNeighbours) {
    // 27 points: 6 faces, 12 edges, 8 corners; on a non-periodic 2 x 2 x 2 grid each rank
    // has 3 face, 3 edge and 1 corner neighbour.
    const auto messages = [](const std::string& app) {
        return run_json(app).at("network").at("messages").get<int>();
    };
    EXPECT_EQ(messages("halo3d:periodic=0"), 8 * 3);
    EXPECT_EQ(messages("halo3d:periodic=0,stencil=27"), 8 * 7);
    EXPECT_EQ(messages("halo3d:stencil=27"), 8 * 26);
    // Bytes: a face 32 x 32, an edge 32, a corner 1 cell of 8 B.
    const nlohmann::json j = run_json("halo3d:periodic=0,stencil=27");
    EXPECT_EQ(j.at("network").at("bytes_sent").get<std::uint64_t>(), 8u * (3 * 8192 + 3 * 256 + 8));
    // 2-D and 4-D: a 4 x 2 grid (balanced), non-periodic: 2 x 2 corner ranks with 2
    // neighbours and 4 edge ranks with 3 (5 points); the 4-D lattice 2 x 2 x 2 x 1 of 8 ranks.
    EXPECT_EQ(messages("halo2d:periodic=0"), 4 * 2 + 4 * 3);
    EXPECT_EQ(messages("lqcd:periodic=0"), 8 * 3);
}

TEST(Motifs, CgAddsTwoAllreducesPerIteration) {
    // The halo as above, then twice C/8 of compute and an 8-byte recursive-doubling
    // allreduce over 8 ranks: 3 steps of L + 8 / B and a reduction of 8 B at 1 instruction a
    // byte.
    const double c = 32768 * 100 / kSpeed;
    const double allreduce = 3 * (kL + 8 / kB + 8 / kSpeed);
    const double t = c + kL + 8192 / kB + 2 * (c / 8 + allreduce);
    const nlohmann::json j = run_json("cg:iterations=3");
    EXPECT_NEAR(simulated(j), 3 * t, 1e-12);
    EXPECT_EQ(j.at("collective_algorithms").at("allreduce/recursive_doubling").get<int>(), 6);
}

TEST(Motifs, AllreduceEveryNthIterationAddsItsMessageTimes) {
    // halo3d as above, and after iterations 2 and 4 an 8-byte recursive-doubling allreduce
    // of 8 ranks (a solver's residual): 3 steps of L + 8 / B and a reduction of 8 B each.
    const double c = 32768 * 100 / kSpeed, allreduce = 3 * (kL + 8 / kB + 8 / kSpeed);
    const nlohmann::json j = run_json("halo3d:iterations=5,allreduce=2");
    EXPECT_NEAR(simulated(j), 5 * (c + kL + 8192 / kB) + 2 * allreduce, 1e-12);
    EXPECT_EQ(j.at("collective_algorithms").at("allreduce/recursive_doubling").get<int>(), 2);
}

TEST(Motifs, MgIsAVCycleOfShrinkingHalosAndACoarseAllreduce) {
    // 64^3 cells, 4 levels: visits 0 1 2 3 2 1 0, level l with (64 >> l)^3 cells of compute and
    // faces of (64 >> l)^2 x 8 B (all eager here), and at level 3 an 8-byte allreduce.
    double t = 0;
    for (const int l : {0, 1, 2, 3, 2, 1, 0}) {
        const double n = 64 >> l;
        t += n * n * n * 100 / kSpeed + kL + n * n * 8 / kB;
    }
    t += 3 * (kL + 8 / kB + 8 / kSpeed);
    EXPECT_NEAR(simulated(run_json("mg:iterations=1")), t, 1e-12);
    // One level is the plain 7-point halo.
    EXPECT_NEAR(simulated(run_json("mg:levels=1")), 64.0 * 64 * 64 * 100 / kSpeed + kL + 32768 / kB,
                1e-12);
}

TEST(Motifs, CheckpointsWriteEveryNthIterationThroughTheFileSystem) {
    // 8 ranks of 32^3 cells of 8 B, 4 iterations, a checkpoint every 2nd: two collective
    // writes of 256 KiB a rank into one file, opened once and closed once.
    const Result r = testing::run("run " + example("figure5-io-8.xml") +
                                  " --ranks 8 --app halo3d:iterations=4,checkpoint=2 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const auto& ops = j.at("operations");
    EXPECT_EQ(ops.at("File_open").at("count").get<int>(), 8);
    EXPECT_EQ(ops.at("File_write_at_all").at("count").get<int>(), 16);
    EXPECT_EQ(ops.at("File_close").at("count").get<int>(), 8);
    EXPECT_EQ(j.at("io").at("bytes_written").get<std::uint64_t>(), 2u * 8 * 32768 * 8);
    // checkpoint-size overrides what a rank writes.
    const Result s = testing::run(
        "run " + example("figure5-io-8.xml") +
        " --ranks 8 --app halo3d:iterations=2,checkpoint=1,checkpoint-size=1MiB --json");
    ASSERT_EQ(s.code, 0) << s.err;
    EXPECT_EQ(nlohmann::json::parse(s.out).at("io").at("bytes_written").get<std::uint64_t>(),
              2u * 8 * 1048576);
    // Without a file system a checkpoint is one line naming what is missing.
    expect_bad_input("run " + example("star-16.xml") + " --ranks 8 --app halo3d:checkpoint=1",
                     "but the model has no file system");
}

TEST(Motifs, Fft3dIsThreePassesAndTwoTransposes) {
    // n = 64 on a 4 x 2 grid: 64 x 16 x 32 = 32768 points a rank, 50 instructions a point
    // and pass; the row transpose (2 ranks) one exchange of 32768 x 16 / 2 B, the column
    // transpose (4 ranks, pairwise) 3 exchanges of 32768 x 16 / 4 B, both rendezvous.
    const double pass = 32768 * 50 / kSpeed;
    const double t = 3 * pass + (3 * kL + 262144 / kB) + 3 * (3 * kL + 131072 / kB);
    const nlohmann::json j = run_json("fft3d:n=64,iterations=2");
    EXPECT_NEAR(simulated(j), 2 * t, 1e-12);
    EXPECT_EQ(j.at("collective_algorithms").at("alltoall/pairwise").get<int>(), 12);
}

TEST(Motifs, Sweep3dOnALineIsEightWavesOfTheGrid) {
    // 8 x 1 ranks, one block per octant: each octant is a wave through the 8 ranks (7 hops
    // of L + m/B after each block's compute), and the next octant starts at the rank the
    // last one ended on: 8 x (8 Tc + 7 Tm). Tc = 16 x 16 x 8 planes x 6 angles x 20 / speed,
    // m = 16 x 8 x 6 x 8 B.
    const double tc = 16.0 * 16 * 8 * 6 * 20 / kSpeed, tm = kL + 6144 / kB;
    const nlohmann::json j = run_json("sweep3d:grid=8x1,cells=16x16x8,kb=8");
    EXPECT_NEAR(simulated(j), 8 * (8 * tc + 7 * tm), 1e-12);
}

TEST(Motifs, SyntheticTrafficIsOneMessageTime) {
    // 1 MiB is a rendezvous (L + L + L + m/B); on the simple model nothing is shared.
    const double t = 3 * kL + 1048576 / kB;
    EXPECT_NEAR(simulated(run_json("incast:size=1MiB")), t, 1e-12);
    EXPECT_NEAR(simulated(run_json("bisection:size=1MiB")), t, 1e-12);
    // An odd count: 0-2 and 1-3 exchange, rank 4 sits out.
    EXPECT_EQ(run_json("bisection:size=4KiB", 5).at("network").at("messages").get<int>(), 4);
    // n = 60 on 4 x 2 divides: 60 x 15 x 30 points a rank, the same formula as above.
    const double pass = 60.0 * 15 * 30 * 50 / kSpeed;
    EXPECT_NEAR(simulated(run_json("fft3d:n=60")),
                3 * pass + (3 * kL + 60.0 * 15 * 30 * 16 / 2 / kB) +
                    3 * (3 * kL + 60.0 * 15 * 30 * 16 / 4 / kB),
                1e-12);
    // n = 62 does not divide: blocks of ceil(62 / 4) = 16 and ceil(62 / 2) = 31 rows.
    const double q = 62.0 * 16 * 31;
    EXPECT_NEAR(simulated(run_json("fft3d:n=62")),
                3 * q * 50 / kSpeed + (3 * kL + q * 16 / 2 / kB) + 3 * (3 * kL + q * 16 / 4 / kB),
                1e-12);
    EXPECT_NEAR(simulated(run_json("permutation:size=4KiB")), kL + 4096 / kB, 1e-12);
    EXPECT_EQ(run_json("incast:size=4KiB,iterations=2").at("network").at("messages").get<int>(),
              2 * 7);
    // The permutation is the seed's: the same seed, the same run; bytes sent = received.
    const nlohmann::json a = run_json("permutation:size=4KiB,seed=7", 16);
    const nlohmann::json b = run_json("permutation:size=4KiB,seed=7", 16);
    EXPECT_EQ(a.at("simulated_time_ps"), b.at("simulated_time_ps"));
    EXPECT_EQ(a.at("network").at("bytes_sent"), a.at("network").at("bytes_delivered"));
}

TEST(Motifs, NbodyIsComputeThenItsLargestIncomingParticles) {
    // 2 x 2 x 2 periodic boxes of 4,000 particles, 10 % leaving: a mean of 400 / 26 = 15 to
    // each of the 26 neighbours, each count uniform in 0 .. 30 from the seed. Every rank
    // computes C = 4000 x 2000 / speed, posts its 26 receives and sends at once, and is done
    // when its last incoming message (L + count x 48 B / B) has arrived and its sends have
    // left (count x 48 B / B): iteration by iteration, a rank starts when it ended the one
    // before, so the end times follow the max-plus recurrence below.
    const double c = 4000.0 * 2000 / kSpeed;
    const auto neighbour = [](int r, int d) {
        const int o[3] = {d / 9 - 1, d / 3 % 3 - 1, d % 3 - 1};  // d: in {-1,0,1}^3, 13 the centre
        const int x[3] = {r / 4, r / 2 % 2, r % 2};
        int out = 0;
        for (int i = 0; i < 3; ++i) out = out * 2 + (x[i] + o[i] + 2) % 2;
        return out;
    };
    // Direction index j (0-25) <-> offset index in {-1,0,1}^3 without the centre (13).
    const auto offset = [](int j) { return j < 13 ? j : j + 1; };
    const int iterations = 3;
    std::vector<double> end(8, 0.0);
    std::uint64_t bytes = 0;
    for (int it = 0; it < iterations; ++it) {
        std::vector<double> next(8, 0.0);
        for (int r = 0; r < 8; ++r) {
            double t = end[r] + c;
            for (int j = 0; j < 26; ++j) {
                const int q = neighbour(r, offset(j));  // q sent in direction 25 - j
                const double in =
                    48.0 * mpi::nbody_count(1, it, static_cast<std::uint32_t>(q), 25 - j, 15);
                const double out = 48.0 * mpi::nbody_count(1, it, r, j, 15);
                t = std::max({t, end[q] + c + kL + in / kB, end[r] + c + out / kB});
                bytes += static_cast<std::uint64_t>(out);
            }
            next[r] = t;
        }
        end = next;
    }
    const nlohmann::json j = run_json(fmt::format("nbody:iterations={}", iterations));
    EXPECT_NEAR(simulated(j), *std::max_element(end.begin(), end.end()), 1e-12);
    EXPECT_EQ(j.at("network").at("messages").get<int>(), iterations * 8 * 26);
    EXPECT_EQ(j.at("network").at("bytes_sent").get<std::uint64_t>(), bytes);
    // The counts: 0 .. 2 x mean, mean 15 (over 26 x 8 x 3 draws within 10 %), and another
    // seed another exchange.
    EXPECT_NEAR(static_cast<double>(bytes) / 48 / (iterations * 8 * 26), 15.0, 1.5);
    // Uniform: each of 0 .. 30 within 20 % of 1/31 of 31,000 draws.
    std::vector<int> seen(31, 0);
    for (std::uint32_t k = 0; k < 31000; ++k) ++seen.at(mpi::nbody_count(3, k / 26, k, k % 26, 15));
    for (const int n : seen) EXPECT_NEAR(n, 1000, 200);
    EXPECT_NE(run_json("nbody:seed=2").at("network").at("bytes_sent"),
              run_json("nbody").at("network").at("bytes_sent"));
    expect_bad_input("run " + example("star-16.xml") + " --ranks 8 --app nbody:migrate=150",
                     "migrate=150: expected a percentage, 0 to 100");
}

TEST(Motifs, BalancedGridsAreMpiDimsCreates) {
    using V = std::vector<std::uint32_t>;
    EXPECT_EQ(mpi::balanced_grid(8, 3), (V{2, 2, 2}));
    EXPECT_EQ(mpi::balanced_grid(12, 2), (V{4, 3}));
    EXPECT_EQ(mpi::balanced_grid(16, 3), (V{4, 2, 2}));
    EXPECT_EQ(mpi::balanced_grid(1048576, 3), (V{128, 128, 64}));
    EXPECT_EQ(mpi::balanced_grid(7, 2), (V{7, 1}));
    EXPECT_EQ(mpi::balanced_grid(1, 4), (V{1, 1, 1, 1}));
}

TEST(Motifs, ParametersThatDoNotFitAreRefused) {
    const std::string run = "run " + example("star-16.xml") + " --ranks 8 --app ";
    expect_bad_input(run + "halo3d:grid=4x4x4",
                     "grid=4x4x4 has 64 positions for 8 ranks; give a grid of exactly the ranks");
    expect_bad_input(run + "halo3d:stencil=9", "parameter 'stencil' is '9'; expected 7 or 27");
    expect_bad_input(run + "halo3d:cells=32x32",
                     "parameter 'cells' is '32x32': 2 sizes, expected 3");
    expect_bad_input(run + "fft3d:n=3", "n=3 has fewer rows than the grid 4x2 has ranks");
    expect_bad_input(run + "halo3d:cells=1048576x1048576x1048576,work=1000000",
                     "the compute per iteration is beyond 2^62");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
