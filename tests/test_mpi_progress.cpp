// Progress only inside MPI calls (issue 23; <network progress="in_mpi">): an MPI library
// without a progress thread answers a rendezvous request-to-send only while the receiver is
// inside an MPI call. Closed forms in every network model: a receiver that posts its
// receive, computes T and then waits lets the message go exactly when a receiver that
// computes T first and posts its receive then would; without a Compute between post and
// wait, and for eager messages, nothing changes; bytes sent = bytes received.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "coll_fixtures.hpp"
#include "simulator/error.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace testing;

// Two nodes on a switch: 1 GB/s, 1 us links, whole messages, eager up to 1 KiB; `progress`
// is the <network> attribute's text ("" for none).
run::Model pair(const std::string& progress) {
    std::string xml = fmt::format(R"(<cluster name="progress">
  <network granularity="message" eager-threshold="1KiB"{}/>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <nodes prefix="n" count="2" type="n"/>
  <switch name="sw"/>
)",
                                  progress.empty() ? "" : " progress=\"" + progress + "\"");
    for (int i = 0; i < 2; ++i)
        xml += fmt::format(
            "  <cable from=\"n{}.s0\" to=\"sw\" latency=\"1us\" bandwidth=\"1GB/s\"/>\n", i);
    return run::parse_model(xml + "</cluster>\n", "progress.xml");
}

const std::vector<std::string> kModels = {"packet", "cut_through", "fluid", "simple",
                                          "contention:collectives=messages"};

mpi::SimulationResult run(const std::string& model, const std::string& progress,
                          const std::vector<mpi::Op>& a, const std::vector<mpi::Op>& b) {
    auto t = pair(progress);
    mpi::choose_network(t, model);
    ScriptProgram prog({a, b});
    auto res = mpi::simulate(t, one_rank_per_node(t, 2), prog);
    EXPECT_EQ(res.ranks[0].bytes_sent, res.ranks[1].bytes_received);
    EXPECT_EQ(res.ranks[1].bytes_sent, res.ranks[0].bytes_received);
    return res;
}

TEST(Progress, RendezvousWaitsForTheReceiversNextMpiCall) {
    constexpr std::uint64_t kBig = 64 * 1024;
    const mpi::Op work = compute(100'000);  // 100 us at 1 G instructions/s
    for (const std::string& model : kModels) {
        SCOPED_TRACE(model);
        // posted, then 100 us of compute, then the wait: the clear-to-send goes at the wait
        const auto in_mpi =
            run(model, "in_mpi", {send(1, kBig)}, {irecv(0, kBig, 0), work, wait(0)});
        const auto spelled = run(model, "", {send(1, kBig)}, {work, irecv(0, kBig, 0), wait(0)});
        const auto always =
            run(model, "always", {send(1, kBig)}, {irecv(0, kBig, 0), work, wait(0)});
        const auto none = run(model, "", {send(1, kBig)}, {irecv(0, kBig, 0), work, wait(0)});
        for (int r = 0; r < 2; ++r) {
            EXPECT_EQ(in_mpi.ranks[r].finish, spelled.ranks[r].finish) << r;
            EXPECT_EQ(always.ranks[r].finish, none.ranks[r].finish) << r;
        }
        // the sender's Send: done before the receiver's compute ends without the attribute,
        // after it with it
        EXPECT_LT(none.ranks[0].finish, Time::us(100));
        EXPECT_GT(in_mpi.ranks[0].finish, Time::us(100));
        // no compute between the post and the wait, or an eager message: no change
        const auto direct = run(model, "in_mpi", {send(1, kBig)}, {irecv(0, kBig, 0), wait(0)});
        const auto direct_none = run(model, "", {send(1, kBig)}, {irecv(0, kBig, 0), wait(0)});
        const auto eager = run(model, "in_mpi", {send(1, 512)}, {irecv(0, 512, 0), work, wait(0)});
        const auto eager_none = run(model, "", {send(1, 512)}, {irecv(0, 512, 0), work, wait(0)});
        for (int r = 0; r < 2; ++r) {
            EXPECT_EQ(direct.ranks[r].finish, direct_none.ranks[r].finish) << r;
            EXPECT_EQ(eager.ranks[r].finish, eager_none.ranks[r].finish) << r;
        }
        // a request-to-send that meets the posted receive during the receiver's last compute
        // is answered when its program ends
        const auto last =
            run(model, "in_mpi", {isend(1, kBig, 0), wait(0)}, {irecv(0, kBig, 0), work});
        EXPECT_GT(last.ranks[0].finish, Time::us(100));
    }
}

TEST(Progress, BadValueIsOneLineNamingTheFileAndAttribute) {
    try {
        pair("sometimes");
        FAIL() << "expected an InputError";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("progress.xml:2"), std::string::npos) << what;
        EXPECT_NE(what.find("'progress'"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
