// MPI point-to-point semantics: matching with wildcards, non-overtaking, nonblocking
// requests, Sendrecv, eager vs rendezvous completion, processor sharing, deadlock reports,
// cancellation (a cancelled receive matches nothing, an unmatched cancelled send is withdrawn,
// a cancel after the match fails).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "sim_fixtures.hpp"
#include "simulator/error.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;
using mpi::kAnySource;
using mpi::kAnyTag;

// n nodes with one 2-core socket each, on one switch, 1 GB/s and 1 us links, whole messages.
topo::Topology star(int nodes, const std::string& eager = "64KiB") {
    std::string xml = fmt::format(R"(<cluster name="p2p">
  <network granularity="message" eager-threshold="{}"/>
  <node-type name="n" memory="1GiB">
    <socket name="s0" cores="2" speed="1G"/><memory-node name="mem"/><nic name="nic"/>
    <cable from="s0" to="mem" latency="1us" bandwidth="1GB/s"/>
    <cable from="mem" to="nic" latency="1us" bandwidth="1GB/s"/>
  </node-type>
  <star type="n" nodes="{}" prefix="n" link-latency="1us" link-bandwidth="1GB/s"/>
</cluster>)",
                                  eager, nodes);
    return topo::parse_model(xml, "p2p.xml");
}

// A program that records, per receive, which (source, tag) it matched, via bytes: every
// sender encodes its identity in the message size.
TEST(Matching, AnySourceAndAnyTagTakeMessagesInArrivalOrder) {
    const auto t = star(3);
    // Rank 1 sends 1000 B at once; rank 2 computes 1 ms first, then sends 2000 B.
    ScriptProgram prog({{recv(kAnySource, 0, kAnyTag), recv(kAnySource, 0, kAnyTag)},
                        {send(0, 1000, 7)},
                        {compute(1'000'000), send(0, 2000, 9)}});
    const auto res = mpi::simulate(t, one_rank_per_node(t, 3), prog);
    EXPECT_EQ(res.ranks[0].bytes_received, 3000u);
    EXPECT_EQ(res.ranks[0].ops[static_cast<int>(mpi::OpKind::Recv)].count, 2u);
}

TEST(Matching, TagSelectsALaterMessage) {
    const auto t = star(2);
    // Rank 1 sends tag 1 then tag 2; rank 0 receives tag 2 first, then tag 1: both match
    // (eager: the tag-1 message waits in the unexpected queue).
    ScriptProgram prog({{recv(1, 0, 2), recv(1, 0, 1)}, {send(0, 100, 1), send(0, 200, 2)}});
    const auto res = mpi::simulate(t, one_rank_per_node(t, 2), prog);
    EXPECT_EQ(res.ranks[0].bytes_received, 300u);
}

TEST(Matching, NonOvertakingBetweenOnePair) {
    const auto t = star(2);
    // Same tag, different sizes: the first receive must get the first message (100 B): it
    // completes after 6 us + 6 * 100 ns (whole message, 6 store_and_forward hops), long
    // before the 50 KB message could have arrived.
    ScriptProgram prog({{recv(1, 0, 5)}, {send(0, 100, 5), send(0, 50'000, 5)}});
    const auto res = mpi::simulate(t, one_rank_per_node(t, 2), prog);
    EXPECT_NEAR(res.ranks[0].finish.seconds(), 6e-6 + 6 * 100e-9, 1e-12);
    EXPECT_EQ(res.ranks[0].bytes_received, 100u);
}

// The matching index (mpi/matching.hpp, Queue): receives naming a source wait in their pair's
// queue, any-source ones in the rank's own, and an arriving message takes the one posted
// first. Rank 1 sends 100 B at once, then 200 B after 1 ms; rank 0 posts two receives and
// waits for the first-posted one, then releases rank 2. If that receive got the first
// message, rank 2 is released within microseconds, else only after the second (1 ms).
TEST(Matching, AnArrivalTakesTheEarliestPostedOfNamedAndAnySourceReceives) {
    const auto t = star(3);
    for (const bool any_first : {true, false}) {
        const int first = any_first ? kAnySource : 1, second = any_first ? 1 : kAnySource;
        ScriptProgram prog({{irecv(first, 0, 0, kAnyTag), irecv(second, 0, 1, kAnyTag), wait(0),
                             send(2, 10), wait(1)},
                            {send(0, 100, 3), compute(1'000'000), send(0, 200, 3)},
                            {recv(0, 0)}});
        const auto res = mpi::simulate(t, one_rank_per_node(t, 3), prog);
        EXPECT_EQ(res.ranks[0].bytes_received, 300u);
        EXPECT_LT(res.ranks[2].finish.seconds(), 50e-6) << any_first;
    }
}

// Unexpected messages: a receive naming its source takes that source's oldest, wherever it
// is in arrival order; an any-source receive takes the oldest of all that match. Rank 0
// computes 2 ms while ranks 1, 2, 3 send (in that order, 100 us apart; rank 3 twice, tags 3
// and 4); then it receives from 3 with tag 4, then from anyone twice, then from 3.
TEST(Matching, UnexpectedMessagesMatchByPairAndByArrival) {
    const auto t = star(4);
    ScriptProgram prog({{compute(2'000'000), recv(3, 0, 4), recv(kAnySource, 0, kAnyTag),
                         recv(kAnySource, 0, kAnyTag), recv(3, 0, kAnyTag)},
                        {send(0, 100, 3)},
                        {compute(100'000), send(0, 200, 3)},
                        {compute(200'000), send(0, 300, 3), send(0, 400, 4)}});
    struct Recvs final : mpi::OpObserver {
        std::vector<std::pair<std::int32_t, std::uint64_t>> got;  // rank 0's: (peer, bytes)
        void op_done(const mpi::OpEvent& e) override {
            if (e.rank == 0 && e.kind == static_cast<int>(mpi::OpKind::Recv))
                got.emplace_back(e.peer, e.bytes);
        }
    } recvs;
    mpi::SimulationOptions options;
    options.observer = &recvs;
    mpi::simulate(t, one_rank_per_node(t, 4), prog, options);
    const std::vector<std::pair<std::int32_t, std::uint64_t>> want{
        {3, 400}, {1, 100}, {2, 200}, {3, 300}};
    EXPECT_EQ(recvs.got, want);
}

// A root receiving from every rank in rank order while the messages arrived in reverse
// order: each receive finds its message in its pair's queue (the linear scan of one queue
// made this quadratic). Bytes received = sent, and each receive got its own rank's size.
TEST(Matching, RootReceivesInRankOrderWhatArrivedInReverse) {
    constexpr int n = 64;
    const auto t = star(n);
    std::vector<std::vector<mpi::Op>> script(n);
    for (int i = 1; i < n; ++i) {
        script[0].push_back(recv(i, 0, 1));
        script[i] = {compute(static_cast<std::uint64_t>(n - i) * 10'000),
                     send(0, static_cast<std::uint64_t>(i) * 10, 1)};
    }
    script[0].insert(script[0].begin(), compute(5'000'000));
    ScriptProgram prog(script);
    struct Recvs final : mpi::OpObserver {
        std::vector<std::pair<std::int32_t, std::uint64_t>> got;
        void op_done(const mpi::OpEvent& e) override {
            if (e.rank == 0 && e.kind == static_cast<int>(mpi::OpKind::Recv))
                got.emplace_back(e.peer, e.bytes);
        }
    } recvs;
    mpi::SimulationOptions options;
    options.observer = &recvs;
    const auto res = mpi::simulate(t, one_rank_per_node(t, n), prog, options);
    ASSERT_EQ(recvs.got.size(), static_cast<std::size_t>(n - 1));
    std::uint64_t sent = 0;
    for (int i = 1; i < n; ++i) {
        EXPECT_EQ(recvs.got[i - 1], (std::pair<std::int32_t, std::uint64_t>{i, i * 10u}));
        sent += res.ranks[i].bytes_sent;
    }
    EXPECT_EQ(res.ranks[0].bytes_received, sent);
}

TEST(Nonblocking, IrecvBeforeSendAndWaitallComplete) {
    const auto t = star(3);
    ScriptProgram prog({{irecv(1, 0, 0), irecv(2, 0, 1), isend(1, 500, 2), waitall(0, 3)},
                        {isend(0, 1000, 0), recv(0, 0), wait(0)},
                        {send(0, 2000)}});
    const auto res = mpi::simulate(t, one_rank_per_node(t, 3), prog);
    EXPECT_EQ(res.ranks[0].bytes_received, 3000u);
    EXPECT_EQ(res.ranks[0].bytes_sent, 500u);
    EXPECT_EQ(res.ranks[1].bytes_received, 500u);
}

TEST(Sendrecv, RingOfFourExchangesWithoutDeadlock) {
    const auto t =
        star(4, "0B");  // every message by rendezvous: a blocking ring of Sends would deadlock
    std::vector<std::vector<mpi::Op>> script(4);
    for (int r = 0; r < 4; ++r) script[r] = {sendrecv((r + 1) % 4, 1 << 20, (r + 3) % 4, 1 << 20)};
    ScriptProgram prog(script);
    const auto res = mpi::simulate(t, one_rank_per_node(t, 4), prog);
    for (const auto& r : res.ranks) {
        EXPECT_EQ(r.bytes_sent, 1u << 20);
        EXPECT_EQ(r.bytes_received, 1u << 20);
    }
}

TEST(Protocol, EagerSendCompletesBeforeTheReceiverPostsRendezvousDoesNot) {
    const auto t = star(2, "64KiB");
    // The receiver computes 10 ms before receiving. An eager send returns as soon as its
    // data has left; a rendezvous send must wait for the receive to be posted.
    ScriptProgram eager({{send(1, 1000)}, {compute(10'000'000), recv(0, 1000)}});
    const auto e = mpi::simulate(t, one_rank_per_node(t, 2), eager);
    EXPECT_LT(e.ranks[0].finish.seconds(), 1e-4);
    ScriptProgram rndv({{send(1, 1 << 20)}, {compute(10'000'000), recv(0, 1 << 20)}});
    const auto r = mpi::simulate(t, one_rank_per_node(t, 2), rndv);
    EXPECT_GT(r.ranks[0].finish.seconds(), 10e-3);
}

TEST(Cpu, RanksOnOneCoreShareItEqually) {
    const auto t = star(1);
    // 1e9 instructions at 1G instr/s: 1 s alone. Two ranks on one core: both end at 2 s.
    // The socket has two cores: two ranks placed on different cores end at 1 s.
    ScriptProgram prog({{compute(1'000'000'000)}, {compute(1'000'000'000)}});
    const topo::VertexId s = t.nodes[0].sockets[0].vertex;
    auto shared = mpi::simulate(t, {{0, 0, 0, s}, {0, 0, 0, s}}, prog);
    EXPECT_EQ(shared.ranks[0].finish, Time::s(2));
    EXPECT_EQ(shared.ranks[1].finish, Time::s(2));
    ScriptProgram prog2({{compute(1'000'000'000)}, {compute(1'000'000'000)}});
    auto separate = mpi::simulate(t, {{0, 0, 0, s}, {0, 0, 1, s}}, prog2);
    EXPECT_EQ(separate.ranks[0].finish, Time::s(1));
    // Unequal work on one core: the short job (0.5 s alone) ends at 1 s, the long one
    // (1 s alone) gets the core to itself afterwards and ends at 1.5 s.
    ScriptProgram prog3({{compute(500'000'000)}, {compute(1'000'000'000)}});
    auto unequal = mpi::simulate(t, {{0, 0, 0, s}, {0, 0, 0, s}}, prog3);
    EXPECT_EQ(unequal.ranks[0].finish, Time::s(1));
    EXPECT_EQ(unequal.ranks[1].finish, Time::ms(1500));
}

TEST(Deadlock, ReceiveWithoutSendIsReportedWithRanksAndOperations) {
    const auto t = star(2);
    ScriptProgram prog({{recv(1, 100, 3)}, {}});
    try {
        mpi::simulate(t, one_rank_per_node(t, 2), prog);
        FAIL() << "expected a deadlock report";
    } catch (const InputError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("deadlock"), std::string::npos) << msg;
        EXPECT_NE(msg.find("rank 0 in Recv from rank 1 (tag 3)"), std::string::npos) << msg;
    }
}

TEST(Deadlock, TwoBlockingRendezvousSendsToEachOther) {
    const auto t = star(2, "0B");
    ScriptProgram prog(
        {{send(1, 1 << 20), recv(1, 1 << 20)}, {send(0, 1 << 20), recv(0, 1 << 20)}});
    EXPECT_THROW(mpi::simulate(t, one_rank_per_node(t, 2), prog), InputError);
}

TEST(BadProgram, PeerOutOfRangeIsAnInputError) {
    const auto t = star(2);
    ScriptProgram prog({{send(5, 1)}, {}});
    EXPECT_THROW(mpi::simulate(t, one_rank_per_node(t, 2), prog), InputError);
}

// The HPCC RandomAccess ending (issue 19): an any-source Irecv posted, cancelled and waited
// for, then a blocking receive. Without the cancel the Irecv takes the message and the Recv
// waits forever; with it the Recv gets the message and the Wait returns at once.
TEST(Cancel, CancelledAnySourceReceiveMatchesNothing) {
    const auto t = star(2);
    ScriptProgram prog({{irecv(kAnySource, 0, 0, kAnyTag), cancel(0), wait(0), recv(1, 0, 4)},
                        {compute(1'000'000), send(0, 1000, 4)}});
    const auto res = mpi::simulate(t, one_rank_per_node(t, 2), prog);
    EXPECT_EQ(res.ranks[0].bytes_received, 1000u);
    EXPECT_EQ(res.ranks[1].bytes_sent, 1000u);
    EXPECT_EQ(res.ranks[0].ops[static_cast<int>(mpi::OpKind::Cancel)].count, 1u);
    EXPECT_EQ(res.ranks[0].ops[static_cast<int>(mpi::OpKind::Wait)].time, Time::zero());
    // the message left rank 1 after its 1 ms and reached rank 0 after 6 us (6 hops, 100 ns
    // of data each): the Recv is what waited for it
    EXPECT_NEAR(res.ranks[0].finish.seconds(), 1e-3 + 6e-6 + 6 * 1000e-9, 1e-12);
    ScriptProgram without({{irecv(kAnySource, 0, 0, kAnyTag), wait(0), recv(1, 0, 4)},
                           {compute(1'000'000), send(0, 1000, 4)}});
    EXPECT_THROW(mpi::simulate(t, one_rank_per_node(t, 2), without), InputError);
}

// A cancelled receive that names its source leaves its pair's queue: the next receive
// from that source gets the message.
TEST(Cancel, CancelledNamedReceiveMatchesNothing) {
    const auto t = star(2);
    ScriptProgram prog({{irecv(1, 0, 0, 4), cancel(0), wait(0), recv(1, 0, 4)},
                        {compute(1'000'000), send(0, 1000, 4)}});
    const auto res = mpi::simulate(t, one_rank_per_node(t, 2), prog);
    EXPECT_EQ(res.ranks[0].bytes_received, 1000u);
    EXPECT_EQ(res.ranks[0].ops[static_cast<int>(mpi::OpKind::Wait)].time, Time::zero());
    EXPECT_NEAR(res.ranks[0].finish.seconds(), 1e-3 + 6e-6 + 6 * 1000e-9, 1e-12);
}

// A send cancelled before any receive matched it is withdrawn: the receiver gets the next
// message, and bytes sent = bytes received. In flight (eager and rendezvous) and waiting in
// the receiver's unexpected queue.
TEST(Cancel, UnmatchedSendIsWithdrawn) {
    for (const char* eager : {"64KiB", "0B"}) {
        const auto t = star(2, eager);
        ScriptProgram in_flight({{isend(1, 1000, 0, 5), cancel(0), wait(0), send(1, 2000, 5)},
                                 {compute(1'000'000), recv(0, 0, 5)}});
        const auto a = mpi::simulate(t, one_rank_per_node(t, 2), in_flight);
        EXPECT_EQ(a.ranks[1].bytes_received, 2000u) << eager;
        EXPECT_EQ(a.ranks[0].bytes_sent, 2000u) << eager;
        ScriptProgram queued(
            {{isend(1, 1000, 0, 5), compute(1'000'000), cancel(0), wait(0), send(1, 2000, 5)},
             {compute(2'000'000), recv(0, 0, 5)}});
        const auto b = mpi::simulate(t, one_rank_per_node(t, 2), queued);
        EXPECT_EQ(b.ranks[1].bytes_received, 2000u) << eager;
        EXPECT_EQ(b.ranks[0].bytes_sent, 2000u) << eager;
    }
}

// A cancel after the request was matched fails, as in MPI: the transfer completes.
TEST(Cancel, AfterTheMatchTheRequestCompletes) {
    const auto t = star(2);
    ScriptProgram recv_side(
        {{irecv(1, 0, 0), compute(1'000'000), cancel(0), wait(0)}, {send(0, 1000)}});
    const auto a = mpi::simulate(t, one_rank_per_node(t, 2), recv_side);
    EXPECT_EQ(a.ranks[0].bytes_received, 1000u);
    EXPECT_EQ(a.ranks[1].bytes_sent, 1000u);
    ScriptProgram send_side(
        {{isend(1, 1000, 0), compute(1'000'000), cancel(0), wait(0)}, {recv(0, 1000)}});
    const auto b = mpi::simulate(t, one_rank_per_node(t, 2), send_side);
    EXPECT_EQ(b.ranks[0].bytes_sent, 1000u);
    EXPECT_EQ(b.ranks[1].bytes_received, 1000u);
}

TEST(Cancel, OfARequestNeverStartedIsAnInputError) {
    const auto t = star(2);
    ScriptProgram prog({{cancel(3)}, {}});
    try {
        mpi::simulate(t, one_rank_per_node(t, 2), prog);
        FAIL() << "expected an error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("request 3 that was never started"), std::string::npos)
            << e.what();
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
