// Collectives in the runtime: placement, communicators (dup, split), nonblocking
// collectives, selection by the model's rules, and the bad inputs of issue 3.
#include <gtest/gtest.h>

#include <fstream>

#include "coll_fixtures.hpp"
#include "collectives/apps.hpp"
#include "simulator/error.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;
using mpi::CollOp;
using mpi::Op;
using mpi::OpKind;

topo::Topology dual_socket_nodes(int nodes, int cores) {
    return topo::parse_model(fmt::format(R"(<cluster name="dual">
  <node-type name="n" memory="1GiB">
    <socket name="s0" cores="{0}" speed="1G"/><socket name="s1" cores="{0}" speed="1G"/>
    <memory-node name="m0"/><memory-node name="m1"/><switch name="qpi"/><nic name="nic"/>
    <cable from="s0" to="m0" latency="1us" bandwidth="1GB/s"/><cable from="s1" to="m1" latency="1us" bandwidth="1GB/s"/>
    <cable from="m0" to="qpi" latency="1us" bandwidth="1GB/s"/><cable from="m1" to="qpi" latency="1us" bandwidth="1GB/s"/>
    <cable from="qpi" to="nic" latency="1us" bandwidth="1GB/s"/>
  </node-type>
  <star type="n" nodes="{1}" link-latency="1us" link-bandwidth="1GB/s"/>
</cluster>)",
                                         cores, nodes),
                             "dual.xml");
}

struct Where {
    std::uint32_t node, socket, core;
    bool operator==(const Where&) const = default;
};
std::vector<Where> where(const std::vector<mpi::RankLocation>& v) {
    std::vector<Where> out;
    for (const auto& l : v) out.push_back({l.node, l.socket, l.core});
    return out;
}

// PIOsimHD's configuration 2-5 (MPICH round_robin): ((0,4),(2)),((1),(3)).
TEST(Placement, RoundRobinOverNodesThenSockets) {
    const auto t = dual_socket_nodes(2, 4);
    const auto p = where(mpi::place_ranks(t, 5, mpi::PlacementKind::RoundRobin));
    const std::vector<Where> want{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}};
    EXPECT_EQ(p, want);
}

TEST(Placement, SequentialFillsANodeFirst) {
    const auto t = dual_socket_nodes(2, 2);
    const auto p = where(mpi::place_ranks(t, 5, mpi::PlacementKind::Sequential));
    const std::vector<Where> want{{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 1}, {1, 0, 0}};
    EXPECT_EQ(p, want);
    // More ranks than cores wrap around (ranks then share cores).
    const auto over = where(mpi::place_ranks(t, 10, mpi::PlacementKind::Sequential));
    EXPECT_EQ(over[8], (Where{0, 0, 0}));
}

std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

TEST(Placement, MapFile) {
    const auto t = dual_socket_nodes(2, 2);
    const std::string path =
        write_file("ok.map", "# rank node socket core\n0 n1 1 1\n1 n0\n2 n0 1  # comment\n");
    const auto p = where(mpi::place_ranks(t, 3, "map:" + path));
    const std::vector<Where> want{{1, 1, 1}, {0, 0, 0}, {0, 1, 0}};
    EXPECT_EQ(p, want);
}

void expect_error(const std::function<void()>& f, const std::string& needle) {
    try {
        f();
        FAIL() << "expected an InputError containing: " << needle;
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
    }
}

TEST(PlacementBadInput, MapNamingAMissingNode) {
    const auto t = dual_socket_nodes(2, 2);
    const std::string path = write_file("missing.map", "0 n0\n1 n7 0 0\n");
    expect_error([&] { mpi::place_ranks(t, 2, "map:" + path); },
                 path + ":2: node 'n7' is not in the model");
}

TEST(PlacementBadInput, MapWithBadSocketCoreDuplicateOrMissingRank) {
    const auto t = dual_socket_nodes(2, 2);
    expect_error([&] { mpi::place_ranks(t, 1, "map:" + write_file("s.map", "0 n0 2\n")); },
                 "s.map:1: node 'n0' has 2 sockets");
    expect_error([&] { mpi::place_ranks(t, 1, "map:" + write_file("c.map", "0 n0 0 5\n")); },
                 "c.map:1: socket 0 of node 'n0' has 2 cores");
    expect_error([&] { mpi::place_ranks(t, 2, "map:" + write_file("d.map", "0 n0\n0 n1\n")); },
                 "d.map:2: rank 0 is placed twice");
    expect_error([&] { mpi::place_ranks(t, 2, "map:" + write_file("m.map", "0 n0\n")); },
                 "rank 1 is not placed");
    expect_error([&] { mpi::place_ranks(t, 2, "map:/nonexistent.map"); },
                 "/nonexistent.map: cannot read");
    expect_error([&] { mpi::place_ranks(t, 2, "scatter"); }, "unknown placement 'scatter'");
}

Op coll(CollOp c, std::uint64_t bytes, int comm = 0, int root = 0) {
    Op op;
    op.kind = OpKind::Collective;
    op.coll = c;
    op.bytes = bytes;
    op.comm = comm;
    op.root = root;
    return op;
}

// Split 6 ranks by parity; a bcast on each half runs concurrently and moves data only
// within the half: each half's root (world rank 0 and 1) sends to its two members.
TEST(Communicators, SplitByParityRunsIndependentBcasts) {
    const auto t = uniform_star(6);
    std::vector<std::vector<Op>> script(6);
    for (int r = 0; r < 6; ++r) {
        Op split;
        split.kind = OpKind::CommSplit;
        split.color = r % 2;
        split.key = r;
        split.newcomm = 1;
        script[r] = {split, coll(CollOp::Bcast, 1000, 1, 0)};
    }
    ScriptProgram prog(script);
    mpi::SimulationOptions o;
    o.algorithm_overrides = {"bcast=linear"};
    const auto res = mpi::simulate(t, one_rank_per_node(t, 6), prog, o);
    EXPECT_EQ(res.ranks[0].bytes_sent, 2000u);  // to world ranks 2 and 4
    EXPECT_EQ(res.ranks[1].bytes_sent, 2000u);  // to 3 and 5
    for (int r = 2; r < 6; ++r) EXPECT_EQ(res.ranks[r].bytes_received, 1000u);
    // Both halves at once: two sends of 1000 B from each root: 2 S + S + 2L.
    EXPECT_NEAR(res.simulated.seconds(), 3 * S(1000) + 2 * kL, 1e-12);
}

TEST(Communicators, SplitWithUndefinedColorAndKeyOrderAndDup) {
    const auto t = uniform_star(4);
    // Ranks 0..2 join color 5 in reverse order (key = -rank), rank 3 stays out; within the
    // new communicator rank 2 is therefore rank 0, the bcast root.
    std::vector<std::vector<Op>> script(4);
    for (int r = 0; r < 4; ++r) {
        Op split;
        split.kind = OpKind::CommSplit;
        split.color = r == 3 ? mpi::kUndefined : 5;
        split.key = -r;
        split.newcomm = 1;
        Op dup;
        dup.kind = OpKind::CommDup;
        dup.comm = 0;
        dup.newcomm = 2;
        script[r] = {split, dup};
        if (r != 3) script[r].push_back(coll(CollOp::Bcast, 500, 1, 0));
        script[r].push_back(coll(CollOp::Barrier, 0, 2));
    }
    ScriptProgram prog(script);
    mpi::SimulationOptions o;
    o.algorithm_overrides = {"bcast=linear"};
    const auto res = mpi::simulate(t, one_rank_per_node(t, 4), prog, o);
    EXPECT_EQ(res.ranks[2].bytes_sent, 1000u);
    EXPECT_EQ(res.ranks[0].bytes_received, 500u);
    EXPECT_EQ(res.ranks[1].bytes_received, 500u);
    EXPECT_EQ(res.ranks[3].bytes_received, 0u);
}

// A 4-node star (1 us, 1 GB/s, one 1 G instructions/s core per node) whose <collectives>
// element carries `attr` (e.g. comm-create="20us").
run::Model comm_star(const std::string& attr) {
    std::string xml = fmt::format(R"(<cluster name="uniform-star">
  <network granularity="message" eager-threshold="1TiB"/>
  <collectives {}/>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="4" type="n"/>
  <switch name="sw"/>
)",
                                  attr);
    for (int i = 0; i < 4; ++i)
        xml += fmt::format(
            "  <cable from=\"n{}.s0\" to=\"sw\" latency=\"1us\" bandwidth=\"1GB/s\"/>\n", i);
    return run::parse_model(xml + "</cluster>\n", "uniform-star.xml");
}

// <collectives comm-create="20us"> (issue 19): a comm_dup or comm_split costs an 8-byte
// allreduce over the parent communicator plus 20 us on each member's core, so it ends
// exactly when an explicit allreduce of 8 B, 20 us of compute and a free comm_dup would.
// Without the attribute creation only synchronises (the runs above).
TEST(Communicators, CreationCostsAnAgreementAndTheLocalCost) {
    Op dup;
    dup.kind = OpKind::CommDup;
    dup.newcomm = 1;
    Op split;
    split.kind = OpKind::CommSplit;
    split.comm = 1;
    split.newcomm = 2;
    const Op barrier = coll(CollOp::Barrier, 0, 2);
    auto run = [&](const run::Model& t, const std::vector<Op>& ops) {
        ScriptProgram prog(std::vector<std::vector<Op>>(4, ops));
        return mpi::simulate(t, one_rank_per_node(t, 4), prog);
    };
    const auto modelled = run(comm_star(R"(comm-create="20us")"), {dup, split, barrier});
    const auto free = run(comm_star(""), {dup, split, barrier});
    const Op agree = coll(CollOp::Allreduce, 8, 0);
    const Op local = compute(20'000);  // 20 us at 1 G instructions/s
    const auto spelled = run(
        comm_star(""), {agree, local, dup, coll(CollOp::Allreduce, 8, 1), local, split, barrier});
    for (int r = 0; r < 4; ++r) {
        EXPECT_EQ(modelled.ranks[r].finish, spelled.ranks[r].finish) << r;
        EXPECT_GT(modelled.ranks[r].finish, free.ranks[r].finish + Time::us(40)) << r;
        EXPECT_EQ(modelled.ranks[r].ops[static_cast<int>(OpKind::CommDup)].count, 1u);
        EXPECT_EQ(modelled.ranks[r].ops[static_cast<int>(OpKind::CommSplit)].count, 1u);
        // the agreement is the creation's, not a call of the program's
        EXPECT_EQ(modelled.ranks[r]
                      .ops[mpi::stat_kind(OpKind::Collective, CollOp::Allreduce, false)]
                      .count,
                  0u);
    }
    expect_error([&] { comm_star(R"(comm-create="-1us")"); }, "comm-create");
    expect_error([&] { comm_star(R"(comm-create="20")"); }, "comm-create");
}

// <collectives first-topology="300us"> (issue 23): a rank's first MPI_Cart_create costs
// 300 us more on its core than comm-create's 20 us, its second and a comm_dup do not: the
// run ends exactly 300 us after the same run without the attribute, and the first
// Cart_create lasts exactly 300 us longer. Without comm-create it is one error.
TEST(Communicators, OnlyTheFirstTopologyCommunicatorCostsFirstTopology) {
    mpi::TopoSpec spec;
    spec.dims = {4};
    spec.periods = {1};
    const std::vector<std::uint64_t> ring = mpi::encode_topo_spec(OpKind::CartCreate, spec);
    Op cart;
    cart.kind = OpKind::CartCreate;
    cart.newcomm = 1;
    cart.counts = &ring;
    Op cart2 = cart;
    cart2.newcomm = 2;
    Op dup;
    dup.kind = OpKind::CommDup;
    dup.newcomm = 3;
    const Op barrier = coll(CollOp::Barrier, 0, 0);
    auto run = [&](const run::Model& t) {
        ScriptProgram prog(std::vector<std::vector<Op>>(4, {dup, cart, cart2, barrier}));
        return mpi::simulate(t, one_rank_per_node(t, 4), prog);
    };
    const auto first = run(comm_star(R"(comm-create="20us" first-topology="300us")"));
    const auto plain = run(comm_star(R"(comm-create="20us")"));
    const int c = static_cast<int>(OpKind::CartCreate);
    for (int r = 0; r < 4; ++r) {
        EXPECT_EQ(first.ranks[r].finish, plain.ranks[r].finish + Time::us(300)) << r;
        EXPECT_EQ(first.ranks[r].ops[c].count, 2u);
        EXPECT_EQ(first.ranks[r].ops[c].time, plain.ranks[r].ops[c].time + Time::us(300)) << r;
    }
    expect_error([&] { comm_star(R"(first-topology="300us")"); }, "needs comm-create");
    expect_error([&] { comm_star(R"(comm-create="20us" first-topology="300")"); },
                 "first-topology");
    expect_error([&] { comm_star(R"(comm-create="20us" first-topology="-300us")"); },
                 "without a sign");
}

// <collectives barrier="3us"> (issue 23): every barrier costs 3 us on each member's core
// after its algorithm's messages, so a run of barriers ends exactly where the same barriers
// each followed by 3 us of compute end without the attribute (3 us more per barrier than
// the free run), and no other collective pays it.
TEST(CollLocalWork, BarrierCostAddsExactlyItsTimePerBarrier) {
    auto run = [&](const run::Model& t, const std::vector<Op>& ops) {
        ScriptProgram prog(std::vector<std::vector<Op>>(4, ops));
        return mpi::simulate(t, one_rank_per_node(t, 4), prog);
    };
    const Op barrier = coll(CollOp::Barrier, 0, 0);
    const Op allreduce = coll(CollOp::Allreduce, 1024, 0);
    const Op local = compute(3'000);  // 3 us at 1 G instructions/s
    const std::vector<Op> ops{barrier, allreduce, barrier, barrier};
    const auto costed = run(comm_star(R"(barrier="3us")"), ops);
    const auto free = run(comm_star(""), ops);
    const auto spelled =
        run(comm_star(""), {barrier, local, allreduce, barrier, local, barrier, local});
    for (int r = 0; r < 4; ++r) {
        EXPECT_EQ(costed.ranks[r].finish, spelled.ranks[r].finish) << r;
        EXPECT_EQ(costed.ranks[r].finish, free.ranks[r].finish + Time::us(9)) << r;
        const auto b = mpi::stat_kind(OpKind::Collective, CollOp::Barrier, false);
        EXPECT_EQ(costed.ranks[r].ops[b].count, 3u);
        EXPECT_EQ(costed.ranks[r].ops[b].time, free.ranks[r].ops[b].time + Time::us(9)) << r;
    }
    expect_error([&] { comm_star(R"(barrier="-1us")"); }, "barrier");
    expect_error([&] { comm_star(R"(barrier="3")"); }, "barrier");
}

TEST(Communicators, FreeingIsLocalAndCostsCommFreeOnTheCore) {
    Op dup;
    dup.kind = OpKind::CommDup;
    dup.newcomm = 1;
    Op free_op;
    free_op.kind = OpKind::CommFree;
    free_op.comm = 1;
    const Op barrier = coll(CollOp::Barrier, 0, 0);
    auto run = [&](const run::Model& t, const std::vector<std::vector<Op>>& script) {
        ScriptProgram prog(script);
        return mpi::simulate(t, one_rank_per_node(t, 4), prog);
    };
    auto same = [](const std::vector<Op>& ops) { return std::vector<std::vector<Op>>(4, ops); };
    // With comm-free: 3 us on the rank's core and nothing else (no agreement, no message),
    // exactly a 3 us compute burst in its place; comm-create does not make it collective.
    const Op three_us = compute(3'000);  // at 1 G instructions/s
    for (const char* attrs : {R"(comm-free="3us")", R"(comm-create="20us" comm-free="3us")"}) {
        const auto freed = run(comm_star(attrs), same({dup, free_op, barrier}));
        const auto spelled = run(comm_star(attrs), same({dup, three_us, barrier}));
        for (int r = 0; r < 4; ++r) {
            EXPECT_EQ(freed.ranks[r].finish, spelled.ranks[r].finish) << attrs << " rank " << r;
            EXPECT_EQ(freed.ranks[r].ops[static_cast<int>(OpKind::CommFree)].count, 1u);
        }
        EXPECT_EQ(freed.network.messages_delivered, spelled.network.messages_delivered) << attrs;
    }
    // Local: one rank freeing late (after 1 ms of compute) delays no other rank's free.
    std::vector<std::vector<Op>> late = same({dup, free_op});
    late[2].insert(late[2].begin() + 1, compute(1'000'000));
    const auto skewed = run(comm_star(R"(comm-create="20us" comm-free="3us")"), late);
    const auto even = run(comm_star(R"(comm-create="20us" comm-free="3us")"), same({dup, free_op}));
    for (const int r : {0, 1, 3}) EXPECT_EQ(skewed.ranks[r].finish, even.ranks[r].finish) << r;
    EXPECT_EQ(skewed.ranks[2].finish, even.ranks[2].finish + Time::ms(1));
    // Without comm-free the free costs nothing (local and immediate).
    const auto free_unmodelled = run(comm_star(""), same({dup, free_op, barrier}));
    const auto without = run(comm_star(""), same({dup, barrier}));
    for (int r = 0; r < 4; ++r) EXPECT_EQ(free_unmodelled.ranks[r].finish, without.ranks[r].finish);
}

TEST(Communicators, UsingAMissingCommunicatorIsAnError) {
    const auto t = uniform_star(2);
    ScriptProgram prog({{coll(CollOp::Barrier, 0, 3)}, {coll(CollOp::Barrier, 0, 3)}});
    expect_error([&] { mpi::simulate(t, one_rank_per_node(t, 2), prog); }, "communicator 3");
}

// A nonblocking bcast overlaps the root's computation: the root computes 10 ms while the
// data moves; Wait then returns at once.
TEST(Nonblocking, IbcastOverlapsComputation) {
    const auto t = uniform_star(4);
    Op ib = coll(CollOp::Bcast, 1 << 20);
    ib.nonblocking = true;
    ib.handle = 0;
    std::vector<std::vector<Op>> script(4, {ib, compute(10'000'000), wait(0)});
    ScriptProgram prog(script);
    mpi::SimulationOptions o;
    o.algorithm_overrides = {"bcast=linear"};
    const auto res = mpi::simulate(t, one_rank_per_node(t, 4), prog, o);
    for (const auto& r : res.ranks) EXPECT_EQ(r.finish, Time::ms(10));
    EXPECT_EQ(res.ranks[1].bytes_received, 1u << 20);
    EXPECT_EQ(
        res.ranks[0].ops[mpi::kOpKinds + mpi::kCollOps + static_cast<int>(CollOp::Bcast)].count,
        1u);
}

// The model's <collectives> rules pick by size; first match wins; others use the default.
TEST(Selection, ModelRulesBySizeRange) {
    const std::string rules = R"(<algorithm operation="bcast" name="linear" max-size="4KiB"/>
      <algorithm operation="bcast" name="binomial" min-size="4KiB"/>)";
    const auto t = uniform_star(8, 0, rules);
    mpi::CollectiveRegistry registry;
    mpi::register_builtin_collectives(registry);
    const mpi::Selection sel(registry, t.mpi, t.topology.source, {});
    EXPECT_EQ(sel.choose(CollOp::Bcast, 100, 8).name, "linear");
    EXPECT_EQ(sel.choose(CollOp::Bcast, 4096, 8).name, "binomial");
    EXPECT_EQ(sel.choose(CollOp::Barrier, 0, 8).name, "dissemination");
    const mpi::Selection over(registry, t.mpi, t.topology.source, {"bcast=linear"});
    EXPECT_EQ(over.choose(CollOp::Bcast, 1 << 20, 8).name, "linear");
}

TEST(SelectionBadInput, UnknownAlgorithmInTheModelListsTheValidOnes) {
    const auto t = uniform_star(2, 0, "\n    <algorithm operation=\"bcast\" name=\"hypercube\"/>");
    mpi::CollectiveRegistry registry;
    mpi::register_builtin_collectives(registry);
    expect_error(
        [&] { mpi::Selection(registry, t.mpi, t.topology.source, {}); },
        "uniform-star.xml:4: collective 'bcast' has no algorithm 'hypercube'; valid algorithms: ");
}

TEST(SelectionBadInput, UnknownOperationAndBadOverride) {
    const auto t = uniform_star(2, 0, "\n    <algorithm operation=\"broadcast\" name=\"linear\"/>");
    mpi::CollectiveRegistry registry;
    mpi::register_builtin_collectives(registry);
    expect_error([&] { mpi::Selection(registry, t.mpi, t.topology.source, {}); },
                 "operation 'broadcast' is unknown");
    const auto ok = uniform_star(2);
    expect_error([&] { mpi::Selection(registry, ok.mpi, ok.topology.source, {"bcast=nope"}); },
                 "--algorithm: 'bcast=nope': collective 'bcast' has no algorithm 'nope'");
    expect_error([&] { mpi::Selection(registry, ok.mpi, ok.topology.source, {"bcast"}); },
                 "expected OPERATION=ALGORITHM");
}

TEST(AppsBadInput, RootOutOfRangeAndSizeWithoutUnit) {
    mpi::AppRegistry apps;
    mpi::register_builtin_apps(apps);
    expect_error([&] { apps.create("bcast:size=1MiB,root=8", 8); },
                 "root 8 is out of range for 8 ranks");
    expect_error([&] { apps.create("allreduce:size=10", 4); }, "missing unit");
    expect_error([&] { apps.create("gather:size=1MiB,root=-1", 4); }, "without a sign");
    // A program naming a bad root directly is caught by the runtime.
    const auto t = uniform_star(2);
    ScriptProgram prog({{coll(CollOp::Bcast, 10, 0, 2)}, {coll(CollOp::Bcast, 10, 0, 2)}});
    expect_error([&] { mpi::simulate(t, one_rank_per_node(t, 2), prog); },
                 "root 2 is out of range");
}

TEST(Apps, EveryCollectiveAndPatternRuns) {
    mpi::AppRegistry apps;
    mpi::register_builtin_apps(apps);
    const auto t = uniform_star(5);
    for (const auto& info : apps.apps()) {
        if (info.name == "pingpong" || info.name == "stream") continue;
        const bool sized = info.params.front().name == "size";
        auto app =
            apps.create(info.name + (sized ? ":size=10KiB,iterations=2" : ":iterations=2"), 5);
        const auto res = mpi::simulate(t, one_rank_per_node(t, 5), *app);
        std::uint64_t sent = 0, received = 0;
        for (const auto& r : res.ranks) sent += r.bytes_sent, received += r.bytes_received;
        EXPECT_EQ(sent, received) << info.name;
        EXPECT_GT(res.simulated.ps(), 0) << info.name;
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
