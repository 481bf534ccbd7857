// Fresh send buffers (issue 23): <mpi-overhead><fresh-send write-rate="W"> with a size -> time
// curve F hands a Send, Isend or Sendrecv's send of s bytes to the network F(s) later when
// its rank computed at least s / W (long enough to have written the buffer) since its
// previous call that sent above the eager threshold (Open MPI's single-copy pull of lines
// dirty in the sender's cache is slower; the pull leaves them clean). Closed forms in every
// network model: a fresh one-way send costs exactly F(s) more; an untouched one (no compute
// before it, too little, or compute before an earlier bulk send) costs what it costs
// without the element.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "coll_fixtures.hpp"
#include "simulator/error.hpp"
#include "topologies/routing.hpp"
#include "topologies/summary.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;

// two_nodes_on_a_switch (sim_fixtures.hpp) with `overhead`: <mpi-overhead>, or "" for none.
run::Model pair(const std::string& overhead) {
    return two_nodes_on_a_switch("fresh", overhead);
}

// A bad <mpi-overhead> is refused by one error naming fresh.xml's line and `what`.
void expect_refused(const std::string& bad, const std::string& what) {
    SCOPED_TRACE(bad);
    try {
        pair(bad);
        ADD_FAILURE() << "accepted";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("fresh.xml:"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
}

// F: 0 at 1 KiB, 8 us at 33 KiB (linear between: 4 us at 17 KiB), 8 us beyond; W = 1 GB/s.
const std::string kFresh = R"(<mpi-overhead><fresh-send write-rate="1GB/s">
    <point size="1KiB" time="0us"/><point size="33KiB" time="8us"/>
  </fresh-send></mpi-overhead>)";

Time run(const std::string& model, const std::string& overhead, std::vector<mpi::Op> a,
         std::vector<mpi::Op> b) {
    return run_two_ranks(pair(overhead), model, std::move(a), std::move(b));
}

// Rank 1 runs `before` then sends `bytes` to rank 0 with a blocking Send.
Time one_way(const std::string& model, const std::string& overhead, std::vector<mpi::Op> before,
             std::uint64_t bytes) {
    std::vector<mpi::Op> b = std::move(before);
    b.push_back(send(0, bytes));
    return run(model, overhead, {recv(1, bytes)}, b);
}

TEST(FreshSend, ReadFromTheModelAndShownBySummary) {
    const auto t = pair(kFresh);
    EXPECT_EQ(t.mpi.fresh_write_rate.bytes_per_s, 1'000'000'000u);
    ASSERT_EQ(t.mpi.fresh_send.points.size(), 2u);
    EXPECT_EQ(t.mpi.fresh_send.at(17 * 1024), Time::us(4));
    EXPECT_EQ(t.mpi.fresh_send.at(1024 * 1024), Time::us(8));
    const std::string text = mpi::describe_overheads(t.mpi);
    EXPECT_NE(text.find("a send of a buffer written in the compute before it (at most 1 GB/s) "
                        "leaves 8 us (at 64 KiB) later"),
              std::string::npos)
        << text;
    topo::Router router(t.topology);
    const std::string summary = topo::format_summary(run::summarize(t, router));
    EXPECT_NE(summary.find("a send of a buffer written"), std::string::npos) << summary;
    EXPECT_TRUE(pair("").mpi.fresh_send.zero());
}

// A fresh send of s bytes (rank computed s / W before it) costs exactly F(s) more, eager
// (17 KiB: 4 us) and rendezvous (128 KiB: 8 us) alike, in every network model.
TEST(FreshSend, AFreshSendCostsExactlyTheCurvesTimeMore) {
    for (const auto& model : kOverheadModels) {
        for (const auto& [bytes, extra] : {std::pair{std::uint64_t{17 * 1024}, Time::us(4)},
                                           std::pair{std::uint64_t{128 * 1024}, Time::us(8)}}) {
            SCOPED_TRACE(fmt::format("{} {} B", model, bytes));
            const std::vector<mpi::Op> work = {compute(bytes)};  // s ns = s / (1 GB/s)
            EXPECT_EQ(one_way(model, kFresh, work, bytes), one_way(model, "", work, bytes) + extra);
        }
    }
}

// The window: compute since the rank's previous call that sent above the eager threshold
// (64 KiB here; its data leaves by the receiver's copy, which leaves the lines clean). No
// compute: untouched. Posting a receive, or a small send, in between keeps the window open
// (LAMMPS's halo: pack, post, send; its exchange: pack, a 4-byte Sendrecv of the count,
// post, send); a rendezvous send in between closes it.
TEST(FreshSend, OnlyComputeSinceThePreviousBulkSendMakesItFresh) {
    const std::uint64_t bytes = 17 * 1024, bulk = 128 * 1024;
    for (const auto& model : kOverheadModels) {
        SCOPED_TRACE(model);
        EXPECT_EQ(one_way(model, kFresh, {}, bytes), one_way(model, "", {}, bytes));
        // Rank 1: 100 us of compute, then `between`, then the 17 KiB send to rank 0; rank 0
        // sends the 8 bytes rank 1's Irecv takes at once, receives what `between` sends it,
        // then the send.
        const auto check = [&](const std::vector<mpi::Op>& between_b,
                               const std::vector<mpi::Op>& between_a, bool fresh) {
            std::vector<mpi::Op> a = {send(1, 8)}, b = {compute(100'000)};
            a.insert(a.end(), between_a.begin(), between_a.end());
            a.push_back(recv(1, bytes));
            b.insert(b.end(), between_b.begin(), between_b.end());
            b.push_back(send(0, bytes));
            b.push_back(wait(0));
            const Time with = run(model, kFresh, a, b), without = run(model, "", a, b);
            EXPECT_EQ(with, fresh ? without + Time::us(4) : without);
        };
        check({irecv(0, 8, 0)}, {}, true);
        // (2 us of compute after the small send, less than 17 KiB / W: its message has left
        // the network before the 17 KiB one starts, in every model)
        check({send(0, 8), compute(2'000), irecv(0, 8, 0)}, {recv(1, 8)}, true);
        check({send(0, bulk), irecv(0, 8, 0)}, {recv(1, bulk)}, false);
        // (1 ms: the bulk message has left every link before the send starts)
        check({send(0, bulk), compute(1'000'000), irecv(0, 8, 0)}, {recv(1, bulk)}, true);
    }
}

// The rule's boundary: s / W = 17,408 ns for 17 KiB at 1 GB/s, so 17,407 instructions of
// compute (1 ns each) leave the send untouched and 17,408 make it fresh; two computes in a
// row count together.
TEST(FreshSend, TheComputeMustLastAtLeastTheWriteOfTheBuffer) {
    const std::uint64_t bytes = 17 * 1024;
    for (const auto& model : kOverheadModels) {
        SCOPED_TRACE(model);
        const std::vector<mpi::Op> short_work = {compute(bytes - 1)};
        EXPECT_EQ(one_way(model, kFresh, short_work, bytes), one_way(model, "", short_work, bytes));
        const std::vector<mpi::Op> work = {compute(bytes)};
        EXPECT_EQ(one_way(model, kFresh, work, bytes),
                  one_way(model, "", work, bytes) + Time::us(4));
        const std::vector<mpi::Op> split = {compute(bytes / 2), compute(bytes / 2)};
        EXPECT_EQ(one_way(model, kFresh, split, bytes),
                  one_way(model, "", split, bytes) + Time::us(4));
    }
}

// Isend and Sendrecv's send are priced like Send; the receive side is not (a Sendrecv's
// receive of rank 0 sees only rank 1's later message).
TEST(FreshSend, IsendAndSendrecvAreFreshToo) {
    const std::uint64_t bytes = 17 * 1024;
    for (const auto& model : kOverheadModels) {
        SCOPED_TRACE(model);
        const std::vector<mpi::Op> a = {recv(1, bytes)};
        const std::vector<mpi::Op> b = {compute(bytes), isend(0, bytes, 0), wait(0)};
        EXPECT_EQ(run(model, kFresh, a, b), run(model, "", a, b) + Time::us(4));
        mpi::Op sr = send(0, bytes);
        sr.kind = mpi::OpKind::Sendrecv;
        sr.peer2 = 0;
        sr.bytes2 = 0;
        const std::vector<mpi::Op> c = {recv(1, bytes), send(1, 0)};
        const std::vector<mpi::Op> d = {compute(bytes), sr};
        EXPECT_EQ(run(model, kFresh, c, d), run(model, "", c, d) + Time::us(4));
    }
}

// Above the eager threshold the extra slows the receiver's pull, after the clear-to-send,
// with progress in MPI (Open MPI's single-copy pull runs in the receiver's MPI calls). Rank
// 1 posts its Irecv, computes 300 us longer than rank 0 (LAMMPS's halo: Irecv, pack, Send,
// Wait, one rank late), then waits: rank 0's Send waits for it and then for the slower pull,
// so it lasts exactly F longer, and so does rank 1's Wait. Handing the request-to-send over
// F later instead would hide F in rank 1's lateness: in LAMMPS's two-way exchange that put
// F into the early rank's Wait.
TEST(FreshSend, TheRendezvousPullPaysItAfterTheClearToSend) {
    const std::uint64_t bytes = 128 * 1024;
    const int send_kind = static_cast<int>(mpi::OpKind::Send);
    const int wait_kind = static_cast<int>(mpi::OpKind::Wait);
    for (const auto& model : kOverheadModels) {
        SCOPED_TRACE(model);
        const auto late_receiver = [&](const std::string& overhead) {
            auto t = pair(overhead);
            t.topology.settings.progress_in_mpi = true;
            mpi::choose_network(t, model);
            ScriptProgram prog({{compute(bytes), send(1, bytes)},
                                {irecv(0, bytes, 0), compute(bytes + 300'000), wait(0)}});
            return mpi::simulate(t, one_rank_per_node(t.topology, 2), prog);
        };
        const auto with = late_receiver(kFresh), without = late_receiver("");
        EXPECT_EQ(with.simulated, without.simulated + Time::us(8));
        EXPECT_EQ(with.ranks[0].ops[send_kind].time,
                  without.ranks[0].ops[send_kind].time + Time::us(8));
        EXPECT_EQ(with.ranks[1].ops[wait_kind].time,
                  without.ranks[1].ops[wait_kind].time + Time::us(8));
        EXPECT_GE(without.ranks[0].ops[send_kind].time, Time::us(300));  // it waited for rank 1
    }
}

// <cold-send after="50us">: 2 us at 1 KiB, 6 us from 33 KiB (4 us at 17 KiB), on kFresh.
const std::string kCold = R"(<mpi-overhead><fresh-send write-rate="1GB/s">
    <point size="1KiB" time="0us"/><point size="33KiB" time="8us"/>
  </fresh-send><cold-send after="50us">
    <point size="1KiB" time="2us"/><point size="33KiB" time="6us"/>
  </cold-send></mpi-overhead>)";

TEST(ColdSend, ReadFromTheModelAndShownBySummary) {
    const auto t = pair(kCold);
    EXPECT_EQ(t.mpi.cold_after, Time::us(50));
    EXPECT_EQ(t.mpi.cold_send.at(17 * 1024), Time::us(4));
    const std::string text = mpi::describe_overheads(t.mpi);
    EXPECT_NE(text.find("one after at least 50 us of compute leaves 6 us (at 64 KiB) later still"),
              std::string::npos)
        << text;
    EXPECT_TRUE(pair(kFresh).mpi.cold_send.zero());
}

// A fresh send after at least `after` of compute costs F(s) + C(s) more, eager (17 KiB: 4 + 4
// us) and rendezvous (128 KiB: 8 + 6 us), in every network model, two computes in a row
// counting together; after less compute (but enough to be fresh) F(s) only, and untouched
// nothing. The boundary (17 KiB): 49,999 ns of compute is fresh only, 50,000 ns cold.
TEST(ColdSend, AColdSendCostsTheFreshAndTheColdCurvesTimeMore) {
    for (const auto& model : kOverheadModels) {
        for (const auto& [bytes, fresh, cold] :
             {std::tuple{std::uint64_t{17 * 1024}, Time::us(4), Time::us(4)},
              std::tuple{std::uint64_t{128 * 1024}, Time::us(8), Time::us(6)}}) {
            SCOPED_TRACE(fmt::format("{} {} B", model, bytes));
            const std::uint64_t just_fresh = std::max<std::uint64_t>(bytes, 49'999);
            for (const auto& [work, extra] :
                 {std::pair{std::vector<mpi::Op>{compute(just_fresh)}, fresh},
                  std::pair{std::vector<mpi::Op>{compute(200'000)}, fresh + cold},
                  std::pair{
                      std::vector<mpi::Op>{compute(std::max<std::uint64_t>(bytes, 50'000) / 2),
                                           compute(std::max<std::uint64_t>(bytes, 50'000) / 2)},
                      fresh + cold},
                  std::pair{std::vector<mpi::Op>{}, Time::zero()}}) {
                if (just_fresh >= 50'000 && extra == fresh) continue;
                EXPECT_EQ(one_way(model, kCold, work, bytes),
                          one_way(model, "", work, bytes) + extra);
            }
        }
    }
}

TEST(ColdSend, BadElementsAreOneErrorNamingTheLine) {
    for (const auto& [bad, what] :
         {std::pair{std::string(R"(<mpi-overhead><fresh-send write-rate="1GB/s" time="1us"/>)"
                                R"(<cold-send time="1us"/></mpi-overhead>)"),
                    "after"},
          std::pair{std::string(R"(<mpi-overhead><fresh-send write-rate="1GB/s" time="1us"/>)"
                                R"(<cold-send after="-1us" time="1us"/></mpi-overhead>)"),
                    "without a sign"},
          std::pair{std::string(R"(<mpi-overhead><cold-send after="1us" time="1us"/>)"
                                R"(</mpi-overhead>)"),
                    "needs <fresh-send>"},
          std::pair{std::string(R"(<mpi-overhead><fresh-send write-rate="1GB/s" time="1us"/>)"
                                R"(<cold-send after="1us" time="1us"/><cold-send after="1us" )"
                                R"(time="1us"/></mpi-overhead>)"),
                    "second <cold-send>"}}) {
        expect_refused(bad, what);
    }
}

TEST(FreshSend, BadElementsAreOneErrorNamingTheLine) {
    for (const std::string& bad :
         {std::string(R"(<mpi-overhead><fresh-send><point size="1KiB" time="1us"/>)"
                      R"(</fresh-send></mpi-overhead>)"),
          std::string(R"(<mpi-overhead><fresh-send write-rate="fast" time="1us"/></mpi-overhead>)"),
          std::string(R"(<mpi-overhead><fresh-send write-rate="1GB/s" time="1us" x="1"/>)"
                      R"(</mpi-overhead>)")}) {
        expect_refused(bad, "fresh-send");
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
