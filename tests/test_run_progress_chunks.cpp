// The progress callback of a run (run/simulation.hpp, issue 51): called between chunks of
// events whose size shrinks while events are slow, so a flow model whose every event is a
// large solve still reports about every `progress_wall_s`; each call carries the network
// model's own counters. With progress_wall_s = 0 every chunk is "slow" and shrinks to one
// event: the calls then come after nearly every event. In every network model (the analytic
// one with collectives as messages, so bytes move through it): events only
// grow, the simulated time never goes back, messages and bytes delivered never shrink and
// never pass what was sent, the last call has every byte delivered, and the results are
// those of a run without progress.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "collectives/apps.hpp"
#include "run/model.hpp"
#include "run/simulation.hpp"
#include "simulator/units.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

struct Call {
    std::uint64_t events;
    Time now;
    net::NetworkStats network;
    std::uint64_t running;  // ranks inside an operation
};

mpi::SimulationResult simulate(const std::string& network, bool with_progress,
                               std::vector<Call>* calls) {
    const std::uint32_t n = 32;
    topo::GenerateOptions o;
    o.kind = "star";
    o.nodes = n;
    o.link_bandwidth = parse_bandwidth("1.25GB/s");
    o.link_latency = parse_time("5us");
    o.granularity = 100 * 1024;  // few packets: a progress call per event stays cheap
    o.forwarding = topo::kStoreAndForward;
    run::Model model = run::parse_model(topo::generate_model_xml(o), "progress-star.xml");
    mpi::choose_network(model, network);
    mpi::AppRegistry apps;
    mpi::register_builtin_apps(apps);
    auto app = apps.create("alltoall:size=64KiB,iterations=3", n);
    mpi::SimulationOptions options;
    options.algorithm_overrides = {"alltoall=pairwise"};
    if (with_progress) {
        options.progress_wall_s = 0;
        options.progress = [calls](std::uint64_t events, Time now, const net::NetworkStats& s,
                                   std::uint64_t running) {
            calls->push_back({events, now, s, running});
        };
    }
    return mpi::simulate(model, mpi::place_ranks(model.topology, n, mpi::PlacementKind::RoundRobin),
                         *app, options);
}

TEST(RunProgress, CallsComeAfterEveryFewEventsWithTheNetworksCountersInEveryModel) {
    for (const char* network : {"packet", "cut_through", "fluid", "simple:collectives=messages"}) {
        SCOPED_TRACE(network);
        std::vector<Call> calls;
        const mpi::SimulationResult quiet = simulate(network, false, nullptr);
        const mpi::SimulationResult r = simulate(network, true, &calls);
        EXPECT_EQ(r.simulated, quiet.simulated) << "progress changes no result";
        EXPECT_EQ(r.events, quiet.events);
        ASSERT_FALSE(calls.empty());
        // Chunks shrink to one event when every chunk is slow: about one call per event.
        EXPECT_GE(calls.size(), r.events / 2) << r.events << " events";
        for (std::size_t i = 1; i < calls.size(); ++i) {
            ASSERT_GT(calls[i].events, calls[i - 1].events);
            ASSERT_GE(calls[i].now, calls[i - 1].now);
            ASSERT_GE(calls[i].network.messages_delivered, calls[i - 1].network.messages_delivered);
            ASSERT_GE(calls[i].network.bytes_delivered, calls[i - 1].network.bytes_delivered);
            ASSERT_LE(calls[i].network.bytes_delivered, calls[i].network.bytes_sent);
        }
        EXPECT_EQ(calls.back().events, r.events);
        // Every rank inside an operation at first; none once the run is over.
        EXPECT_EQ(calls.front().running, 32u);
        EXPECT_EQ(calls.back().running, 0u) << "every operation completed";
        EXPECT_EQ(calls.back().network.bytes_delivered, r.network.bytes_delivered);
        EXPECT_EQ(calls.back().network.bytes_delivered, 3u * 32 * 31 * 64 * 1024);
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
