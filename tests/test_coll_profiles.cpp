// Decision profiles (--mpi openmpi_4.1 / mpich_4): the choices follow the libraries' rules
// (cells worked out by hand from Open MPI 4.1's coll_tuned_decision_fixed.c and MPICH 4's
// CVAR defaults), name only registered algorithms, are what a run uses and reports, yield
// to --algorithm, can come from the model, and collectives/README.md shows their table.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "coll_fixtures.hpp"
#include "collectives/selection.hpp"
#include "simulator/error.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

using mpi::CollOp;
using mpi::profile_choice;

TEST(Profiles, EveryChoiceIsARegisteredAlgorithm) {
    mpi::CollectiveRegistry registry;
    mpi::register_builtin_collectives(registry);
    for (const auto& profile : mpi::profile_names())
        for (int i = 0; i < mpi::kCollOps; ++i)
            for (std::uint64_t bytes = 1; bytes <= (std::uint64_t{1} << 26); bytes *= 2)
                for (std::int32_t p = 2; p <= 8192; p *= 2)
                    for (std::int32_t q : {p - 1, p, p + 1}) {
                        const auto op = static_cast<CollOp>(i);
                        const auto c = profile_choice(profile, op, bytes, q);
                        EXPECT_NE(registry.find(op, c.name), nullptr)
                            << profile << " " << mpi::to_string(op) << "/" << c.name;
                    }
}

TEST(Profiles, OpenMpiCellsFollowItsFixedRules) {
    const std::string o = "openmpi_4.1";
    // bcast: p < 4 and < 32 B: pipeline (unsegmented); 16 <= p < 32 and < 4 KiB: knomial;
    // 128 <= p < 256 and >= 64 KiB: knomial; 16 <= p < 32 and >= 1 MiB: scatter_allgather.
    EXPECT_EQ(profile_choice(o, CollOp::Bcast, 8, 2).name, "pipeline");
    EXPECT_EQ(profile_choice(o, CollOp::Bcast, 8, 2).segment, 8u);
    EXPECT_EQ(profile_choice(o, CollOp::Bcast, 8, 16).name, "knomial");
    EXPECT_EQ(profile_choice(o, CollOp::Bcast, 8 << 20, 128).name, "knomial");
    EXPECT_EQ(profile_choice(o, CollOp::Bcast, 8 << 20, 16).name, "scatter_rd_allgather");
    EXPECT_EQ(profile_choice(o, CollOp::Bcast, 8 << 20, 2048).name, "scatter_rd_allgather");
    EXPECT_EQ(profile_choice(o, CollOp::Bcast, 20 << 10, 512).name, "split_binary_tree");
    // allreduce: 512 <= p < 2048 and >= 16 KiB: rabenseifner; < 2 KiB: nonoverlapping;
    // 8 <= p < 16 and < 8 KiB: recursive doubling; 16 <= p < 32 and < 64 B: segmented ring.
    EXPECT_EQ(profile_choice(o, CollOp::Allreduce, 8 << 20, 1024).name, "rabenseifner");
    EXPECT_EQ(profile_choice(o, CollOp::Allreduce, 8, 1024).name, "reduce_bcast");
    EXPECT_EQ(profile_choice(o, CollOp::Allreduce, 8, 8).name, "recursive_doubling");
    EXPECT_EQ(profile_choice(o, CollOp::Allreduce, 8, 16).name, "segmented_ring");
    EXPECT_EQ(profile_choice(o, CollOp::Allreduce, 100 << 10, 2).name, "segmented_ring");
    // alltoall: 128 <= p < 256 and < 1 KiB: modified bruck; >= 256 KiB: pairwise.
    EXPECT_EQ(profile_choice(o, CollOp::Alltoall, 8, 128).name, "bruck");
    EXPECT_EQ(profile_choice(o, CollOp::Alltoall, 8 << 20, 128).name, "pairwise");
    EXPECT_EQ(profile_choice(o, CollOp::Alltoall, 64 << 10, 16).name, "linear_sync");
    // allgather: 128 <= p < 256, 512 B .. 128 KiB: neighbor exchange; p < 32: recursive
    // doubling, which Open MPI runs as bruck when p is not a power of two.
    EXPECT_EQ(profile_choice(o, CollOp::Allgather, 64 << 10, 128).name, "neighbor_exchange");
    EXPECT_EQ(profile_choice(o, CollOp::Allgather, 8, 16).name, "recursive_doubling");
    EXPECT_EQ(profile_choice(o, CollOp::Allgather, 8, 17).name, "bruck");
    // barrier: 4 <= p < 8: linear; 64 <= p < 256: bruck (our dissemination).
    EXPECT_EQ(profile_choice(o, CollOp::Barrier, 0, 5).name, "linear");
    EXPECT_EQ(profile_choice(o, CollOp::Barrier, 0, 100).name, "dissemination");
}

TEST(Profiles, MpichCellsFollowItsThresholds) {
    const std::string m = "mpich_4";
    EXPECT_EQ(profile_choice(m, CollOp::Bcast, 12288, 64).name, "binomial");
    EXPECT_EQ(profile_choice(m, CollOp::Bcast, 12289, 64).name, "scatter_rd_allgather");
    EXPECT_EQ(profile_choice(m, CollOp::Bcast, 64 << 10, 16).name, "scatter_rd_allgather");
    EXPECT_EQ(profile_choice(m, CollOp::Bcast, 64 << 10, 17).name, "scatter_allgather");
    EXPECT_EQ(profile_choice(m, CollOp::Bcast, 64 << 10, 4).name, "binomial");
    // allreduce: recursive doubling while the count (doubles) is below pof2 = 64.
    EXPECT_EQ(profile_choice(m, CollOp::Allreduce, 8, 2).name, "recursive_doubling");
    EXPECT_EQ(profile_choice(m, CollOp::Allreduce, 504, 100).name, "recursive_doubling");
    EXPECT_EQ(profile_choice(m, CollOp::Allreduce, 512, 100).name, "rabenseifner");
    EXPECT_EQ(profile_choice(m, CollOp::Gatherv, 512, 100).name, "linear");
    EXPECT_EQ(profile_choice(m, CollOp::Alltoall, 256, 8).name, "bruck");
    EXPECT_EQ(profile_choice(m, CollOp::Alltoall, 256, 7).name, "linear");
    EXPECT_EQ(profile_choice(m, CollOp::Alltoall, 32769, 7).name, "pairwise");
    EXPECT_EQ(profile_choice(m, CollOp::Allgather, 512, 100).name, "bruck");  // 50 KiB in all
    EXPECT_EQ(profile_choice(m, CollOp::Allgather, 1024, 100).name, "ring");  // 100 KiB
    EXPECT_EQ(profile_choice(m, CollOp::Allgather, 1024, 128).name, "recursive_doubling");
    EXPECT_EQ(profile_choice(m, CollOp::Allgather, 1024, 1000).name, "ring");
}

// The README's table is the function's output.
TEST(Profiles, ReadmeShowsTheOpenMpiTable) {
    std::ifstream in(std::string(CLUSTERSIM_SOURCE_DIR) + "/collectives/README.md");
    ASSERT_TRUE(in) << "collectives/README.md";
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& profile : mpi::profile_names())
        EXPECT_NE(text.str().find(mpi::profile_table(profile)), std::string::npos)
            << "collectives/README.md lacks the table of " << profile << ":\n"
            << mpi::profile_table(profile);
}

mpi::SimulationResult run_profile(int p, CollOp op, std::uint64_t bytes, const std::string& profile,
                                  const std::vector<std::string>& overrides = {},
                                  const std::string& extra = "") {
    const auto t = uniform_star(p, 0, extra);
    mpi::Op call;
    call.kind = mpi::OpKind::Collective;
    call.coll = op;
    call.bytes = bytes;
    ScriptProgram prog(
        std::vector<std::vector<mpi::Op>>(static_cast<std::size_t>(p), {call, call}));
    mpi::SimulationOptions o;
    o.mpi_profile = profile;
    o.algorithm_overrides = overrides;
    return mpi::simulate(t, one_rank_per_node(t, static_cast<std::size_t>(p)), prog, o);
}

TEST(Profiles, RunsUseAndReportTheProfilesChoice) {
    // 16 ranks, 8 B bcast: Open MPI 4.1 takes knomial, MPICH binomial; each call counted once.
    const auto ompi = run_profile(16, CollOp::Bcast, 8, "openmpi_4.1");
    EXPECT_EQ(ompi.algorithms, (std::map<std::string, std::uint64_t>{{"bcast/knomial", 2}}));
    const auto mpich = run_profile(16, CollOp::Bcast, 8, "mpich_4");
    EXPECT_EQ(mpich.algorithms, (std::map<std::string, std::uint64_t>{{"bcast/binomial", 2}}));
    // knomial's two levels (root -> 4, 8, 12 at once; then each to its 3) beat binomial's 4.
    EXPECT_LT(ompi.simulated, mpich.simulated);
    // --algorithm wins over the profile.
    const auto forced = run_profile(16, CollOp::Bcast, 8, "openmpi_4.1", {"bcast=linear"});
    EXPECT_EQ(forced.algorithms, (std::map<std::string, std::uint64_t>{{"bcast/linear", 2}}));
}

// A 4-node star whose <collectives> names `profile`.
run::Model star_with_profile(const std::string& profile) {
    std::string xml = fmt::format(R"(<cluster name="profiled">
  <network granularity="message" eager-threshold="1TiB"/>
  <collectives profile="{}"/>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="4" type="n"/>
  <switch name="sw"/>
)",
                                  profile);
    for (int i = 0; i < 4; ++i)
        xml += fmt::format(
            "  <cable from=\"n{}.s0\" to=\"sw\" latency=\"1us\" bandwidth=\"1GB/s\"/>\n", i);
    return run::parse_model(xml + "</cluster>\n", "profiled.xml");
}

TEST(Profiles, TheModelCanNameTheProfile) {
    mpi::Op call;
    call.kind = mpi::OpKind::Collective;
    call.coll = CollOp::Bcast;
    call.bytes = 8;
    const auto t = star_with_profile("mpich_4");
    ScriptProgram prog(std::vector<std::vector<mpi::Op>>(4, {call}));
    const auto from_model = mpi::simulate(t, one_rank_per_node(t, 4), prog, {});
    EXPECT_EQ(from_model.algorithms, (std::map<std::string, std::uint64_t>{{"bcast/binomial", 1}}));
    // --mpi wins over the model: Open MPI 4.1 takes the binary tree for 4 ranks, 8 B.
    ScriptProgram prog2(std::vector<std::vector<mpi::Op>>(4, {call}));
    mpi::SimulationOptions o;
    o.mpi_profile = "openmpi_4.1";
    const auto flagged = mpi::simulate(t, one_rank_per_node(t, 4), prog2, o);
    EXPECT_EQ(flagged.algorithms, (std::map<std::string, std::uint64_t>{{"bcast/binary_tree", 1}}));
    // An unknown name in the model: its file and line.
    const auto bad = star_with_profile("lam-7");
    ScriptProgram prog3(std::vector<std::vector<mpi::Op>>(4, {call}));
    try {
        mpi::simulate(bad, one_rank_per_node(bad, 4), prog3, {});
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "profiled.xml");
        EXPECT_EQ(e.line(), 3);
    }
}

TEST(Profiles, UnknownProfileIsAnInputError) {
    try {
        run_profile(4, CollOp::Bcast, 8, "lam-7");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--mpi"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("openmpi_4.1"), std::string::npos) << e.what();
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
