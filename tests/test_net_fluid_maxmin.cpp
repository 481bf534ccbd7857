// The fluid model's incremental max-min (models/fluid.hpp, issue 51) against a solve from
// scratch. The model keeps rates between events and re-solves only what a change can reach:
// the flows coupled to it through saturated resources, all flows that start at one instant
// in one solve, and of a flow's resources that carry it alone only the tightest. Whatever it
// skips, at every instant its rates must be the max-min fair rates of the flows then active,
// as MaxMinSolver computes them from scratch over every active flow and every resource of
// its route (links, finite relays, a memory node's local rate). Checked on a thousand random
// topologies (switches in a random tree plus random extra cables, relay-limited switches,
// NICs and memory nodes, one- and two-socket nodes) with random flows started at random
// times, several at one instant, checked after every instant at which one starts and at
// random times between (when flows have ended); half the trials on a coarse grid of times
// and sizes, where flows end at the instant others start.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "models/fluid.hpp"
#include "models/maxmin.hpp"
#include "simulator/engine.hpp"
#include "simulator/rng.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/route_service.hpp"
#include "topologies/routing.hpp"

namespace clustersim::net {
namespace CLUSTERSIM_TEST_FILE {

// Starts the flows scheduled for it (an event per start, so a flow starts at its time) and
// hears of their ends.
struct Driver final : Component, NetworkClient {
    struct Start {
        VertexId src, dst;
        std::uint64_t bytes;
    };
    explicit Driver(Engine& e) : engine(e) { id = engine.add(*this); }
    void at(Time t, VertexId src, VertexId dst, std::uint64_t bytes) {
        starts.push_back({src, dst, bytes});
        engine.schedule(t, id, 0, starts.size() - 1);
    }
    void handle(Engine&, const Event& ev) override {
        const Start& s = starts[ev.data];
        started.push_back(ev.data);
        net->send(s.src, s.dst, s.bytes, ev.data, true);
    }
    std::string name() const override { return "driver"; }
    void message_injected(std::uint64_t cookie) override { ended.insert(cookie); }
    void message_delivered(std::uint64_t) override {}

    Engine& engine;
    ComponentId id;
    FluidNetwork* net = nullptr;
    std::vector<Start> starts;
    std::vector<std::uint64_t> started;  // cookies in start (send) order
    std::set<std::uint64_t> ended;
};

std::vector<VertexId> sockets_of(const topo::Topology& t) {
    std::vector<VertexId> out;
    for (VertexId v = 0; v < t.num_vertices(); ++v)
        if (t.vertex(v).kind == topo::VertexKind::Socket) out.push_back(v);
    return out;
}

// A random cluster: 1-5 switches (a random tree and up to two more cables), 2-8 nodes of
// three types hung off random switches; rates drawn so that any resource can bind.
std::string random_cluster(Rng& rng) {
    auto pick = [&](std::initializer_list<const char*> v) {
        return *(v.begin() + static_cast<std::ptrdiff_t>(rng.below(v.size())));
    };
    std::string x = R"(<cluster name="random">
  <network granularity="100KiB" routing="shortest_path" nic="packet" eager-threshold="64KiB"/>
)";
    for (int t = 0; t < 3; ++t) {
        const int sockets = t == 2 ? 2 : 1;
        x += fmt::format(R"(  <node-type name="t{}" memory="1GiB">
)",
                         t);
        for (int s = 0; s < sockets; ++s)
            x += fmt::format(R"(    <socket name="s{}" cores="1" speed="1G"/>
)",
                             s);
        x += fmt::format(
            R"(    <memory-node name="mem0" bandwidth="{}" local-bandwidth="{}"/>
    <nic name="nic" bandwidth="{}"/>
)",
            pick({"9GB/s", "0.3GB/s", "2GB/s"}), pick({"20GB/s", "0.5GB/s"}),
            pick({"8GB/s", "0.4GB/s", "1GB/s"}));
        for (int s = 0; s < sockets; ++s)
            x += fmt::format(R"(    <cable from="s{}" to="mem0" latency="100ns" bandwidth="{}"/>
)",
                             s, pick({"10GB/s", "0.6GB/s"}));
        x += fmt::format(R"(    <cable from="nic" to="mem0" latency="200ns" bandwidth="{}"/>
  </node-type>
)",
                         pick({"10GB/s", "0.7GB/s"}));
    }
    const auto switches = 1 + rng.below(5);
    for (std::uint64_t s = 0; s < switches; ++s) {
        const char* relay = pick({"", "0.7GB/s", "0.15GB/s", "3GB/s"});
        x += *relay ? fmt::format(R"(  <switch name="sw{}" bandwidth="{}"/>
)",
                                  s, relay)
                    : fmt::format(R"(  <switch name="sw{}"/>
)",
                                  s);
    }
    auto cable = [&](const std::string& a, const std::string& b) {
        x += fmt::format(R"(  <cable from="{}" to="{}" latency="1us" bandwidth="{}"/>
)",
                         a, b, pick({"10GB/s", "1GB/s", "0.5GB/s", "2.5GB/s"}));
    };
    std::set<std::pair<std::uint64_t, std::uint64_t>> linked;
    for (std::uint64_t s = 1; s < switches; ++s) {
        const std::uint64_t p = rng.below(s);
        linked.insert({p, s});
        cable(fmt::format("sw{}", p), fmt::format("sw{}", s));
    }
    for (int extra = 0; extra < 2 && switches > 2; ++extra) {
        std::uint64_t a = rng.below(switches), b = rng.below(switches);
        if (a > b) std::swap(a, b);
        if (a == b || !linked.insert({a, b}).second) continue;
        cable(fmt::format("sw{}", a), fmt::format("sw{}", b));
    }
    const auto nodes = 2 + rng.below(7);
    for (std::uint64_t n = 0; n < nodes; ++n) {
        x += fmt::format(R"(  <nodes prefix="n{}-" count="1" type="t{}"/>
)",
                         n, rng.below(3));
        cable(fmt::format("n{}-0.nic", n), fmt::format("sw{}", rng.below(switches)));
    }
    return x + "</cluster>\n";
}

// The resources of a flow from src to dst as the fluid model defines them (fluid.hpp):
// each link, and before each hop after the first the vertex's relay if finite (a memory
// node between two of its neighbours: its local rate). Ids: edge e; relay of v: E + v;
// local rate of v: E + V + v.
std::vector<std::uint32_t> reference_resources(const topo::Topology& t,
                                               const topo::RouteService& service, VertexId src,
                                               VertexId dst) {
    topo::Route path;
    service.route_path(src, dst, path);
    const auto E = static_cast<std::uint32_t>(t.num_edges());
    const auto V = static_cast<std::uint32_t>(t.num_vertices());
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < path.edges.size(); ++i) {
        out.push_back(static_cast<std::uint32_t>(path.edges[i]));
        if (i == 0) continue;
        const VertexId v = t.source_of(path.edges[i]);
        const auto& p = t.vertex(v);
        if (path.neighbours && p.kind == topo::VertexKind::MemoryNode && !p.local.infinite())
            out.push_back(E + V + static_cast<std::uint32_t>(v));
        else if (p.kind != topo::VertexKind::Socket && !p.relay.infinite())
            out.push_back(E + static_cast<std::uint32_t>(v));
    }
    return out;
}

TEST(FluidMaxMin, IncrementalRatesEqualAFullSolveOnRandomTopologiesAndFlows) {
    Rng rng(20261207);
    std::size_t checks = 0, compared = 0, shared_checks = 0;
    for (int trial = 0; trial < 1000; ++trial) {
        const std::string xml = random_cluster(rng);
        const topo::Topology t = topo::parse_model(xml, "random.xml");
        topo::Router router(t);
        const topo::RouteService service(t, router);
        Engine engine;
        Driver driver(engine);
        FluidNetwork net(engine, t, router, driver);
        driver.net = &net;
        const std::vector<VertexId> sockets = sockets_of(t);
        ASSERT_GE(sockets.size(), 2u);
        // 1-40 flows at 1-12 instants in the first 2 ms (so several start together).
        const auto flows = 1 + rng.below(40);
        const auto instants = 1 + rng.below(12);
        std::vector<Time> times;
        // Odd trials on a coarse grid (multiples of 50 us, sizes of a few round values) so that
        // flows end at the very instant others start, and several end together.
        const bool coarse = trial % 2 == 1;
        for (std::uint64_t i = 0; i < instants; ++i)
            times.push_back(coarse ? Time::us(50 * static_cast<std::int64_t>(rng.below(40)))
                                   : Time::ps(static_cast<std::int64_t>(rng.below(2'000'000'000))));
        std::set<Time> checkpoints(times.begin(), times.end());
        for (std::uint64_t f = 0; f < flows; ++f) {
            const VertexId a = sockets[rng.below(sockets.size())];
            VertexId b = sockets[rng.below(sockets.size())];
            if (a == b)
                b = sockets[(std::find(sockets.begin(), sockets.end(), a) - sockets.begin() + 1) %
                            sockets.size()];
            const std::uint64_t bytes = coarse ? 25'000 * (1 + rng.below(8)) * (1 + rng.below(4))
                                               : 100'000 + rng.below(5'000'000);
            driver.at(times[rng.below(times.size())], a, b, bytes);
        }
        for (int i = 0; i < 8; ++i)
            checkpoints.insert(Time::ps(static_cast<std::int64_t>(rng.below(20'000'000'000))));
        // Capacities of the reference's resources.
        const auto E = t.num_edges(), V = t.num_vertices();
        std::vector<double> capacity(E + 2 * V, 0.0);
        for (EdgeId e = 0; e < E; ++e)
            capacity[e] = static_cast<double>(t.edge(e).bandwidth.bytes_per_s);
        for (VertexId v = 0; v < V; ++v) {
            if (!t.vertex(v).relay.infinite())
                capacity[E + v] = static_cast<double>(t.vertex(v).relay.bytes_per_s);
            if (!t.vertex(v).local.infinite())
                capacity[E + V + v] = static_cast<double>(t.vertex(v).local.bytes_per_s);
        }
        MaxMinSolver solver;
        for (const Time c : checkpoints) {
            engine.run(c);
            // The active flows in start order, each with its route's resources.
            std::vector<std::vector<std::uint32_t>> routes;
            std::map<std::uint32_t, std::uint32_t> dense;  // resource id -> solver index
            std::vector<double> cap;
            for (const std::uint64_t cookie : driver.started) {
                if (driver.ended.count(cookie)) continue;
                const Driver::Start& s = driver.starts[cookie];
                std::vector<std::uint32_t> r = reference_resources(t, service, s.src, s.dst);
                for (std::uint32_t& id : r) {
                    auto [it, added] = dense.emplace(id, static_cast<std::uint32_t>(cap.size()));
                    if (added) cap.push_back(capacity[id]);
                    id = it->second;
                }
                routes.push_back(std::move(r));
            }
            const std::vector<double> got = net.active_rates();
            ASSERT_EQ(got.size(), routes.size()) << "trial " << trial << " at " << c.ps() << " ps";
            ++checks;
            if (routes.empty()) continue;
            shared_checks += routes.size() > 1;
            std::vector<double> want;
            solver.solve(cap, routes, want);
            for (std::size_t i = 0; i < want.size(); ++i) {
                ASSERT_NEAR(got[i], want[i], 1e-9 * want[i])
                    << "trial " << trial << ", flow " << i << " of " << want.size() << " at "
                    << c.ps() << " ps\n"
                    << xml;
                ++compared;
            }
        }
        engine.run();
        ASSERT_EQ(driver.ended.size(), flows) << "every flow ends";
    }
    EXPECT_GT(compared, 20'000u);
    EXPECT_GT(shared_checks, 3'000u) << "most checks see several flows at once";
    EXPECT_GT(checks, 10'000u);
}

// A star of `nodes` one-socket nodes (a memory node and a NIC each) with links of `latency`
// and `bandwidth` to the switch.
std::string star_xml(int nodes, const char* latency, const char* bandwidth) {
    return fmt::format(R"(<cluster name="star">
  <network granularity="100KiB" routing="shortest_path" nic="packet" eager-threshold="64KiB"/>
  <node-type name="node" memory="1GiB">
    <socket name="s0" cores="1" speed="1G"/>
    <memory-node name="mem0" bandwidth="20GB/s"/>
    <nic name="nic"/>
    <cable from="s0" to="mem0" latency="100ns" bandwidth="20GB/s"/>
    <cable from="nic" to="mem0" latency="100ns" bandwidth="20GB/s"/>
  </node-type>
  <star type="node" nodes="{}" prefix="n" switch="sw" link-latency="{}" link-bandwidth="{}"/>
</cluster>)",
                       nodes, latency, bandwidth);
}

// Flows that start at one instant are solved together: every rank of a linear alltoall posts
// its p - 1 sends at once, so the p (p - 1) flows are one solve when they start and one when
// they end (they share the links equally and end together), not one solve per flow of a
// component that grows to p (p - 1) flows (before the batching: 827,111 flow rates computed
// for p = 64, now 2 p (p - 1)).
TEST(FluidMaxMin, FlowsStartingAtOneInstantAreOneSolve) {
    const int p = 64;
    Engine engine;
    const std::string xml = star_xml(p, "5us", "1250MB/s");
    const topo::Topology t = topo::parse_model(xml, "star.xml");
    topo::Router router(t);
    Driver driver(engine);
    FluidNetwork net(engine, t, router, driver);
    driver.net = &net;
    const std::vector<VertexId> sockets = sockets_of(t);
    ASSERT_EQ(sockets.size(), static_cast<std::size_t>(p));
    const std::uint64_t m = 64 * 1024;
    for (int i = 0; i < p; ++i)
        for (int k = 1; k < p; ++k) driver.at(Time::zero(), sockets[i], sockets[(i + k) % p], m);
    engine.run();
    const auto flows = static_cast<std::uint64_t>(p) * (p - 1);
    EXPECT_EQ(net.stats().bytes_delivered, flows * m);
    EXPECT_LE(net.stats().packet_hops, 2 * flows + 1) << "one solve at the start, one at the end";
    // Each link carries p - 1 flows at B / (p - 1): the last byte leaves (p - 1) m / B after
    // the start; every flow ends then, at one picosecond.
    EXPECT_EQ(driver.ended.size(), flows);
}

// The floors of an incremental solve (models/README.md): a flow that ends re-solves only the
// flows at its rate or above, and flows that start only those at or above the smallest fair
// share C / n of a resource they cross. On a star of 1 GB/s links: four flows into node 9
// (a, b, c, c2: 1/4 GB/s each, bottlenecked on 9's link) and a small flow d from a's node 0
// to node 8, which shares 0's outgoing link with a and takes the 3/4 GB/s a leaves. d ends
// first, at 3/4: a, b, c and c2 run below it and are not re-solved (and keep their rates, as
// a solve from scratch gives). Then e starts from node 0 to node 7: its rate (3/4) saturates
// 0's link again, which couples it to a, but a is below the fair share of that link (1/2)
// and is not re-solved either: e alone is. Without the floors each would re-solve all five.
TEST(FluidMaxMin, FlowsBelowAnEndingOrStartingFlowsLevelAreNotResolved) {
    Engine engine;
    const std::string xml = star_xml(10, "1us", "1GB/s");
    const topo::Topology t = topo::parse_model(xml, "star.xml");
    topo::Router router(t);
    Driver driver(engine);
    FluidNetwork net(engine, t, router, driver);
    driver.net = &net;
    const std::vector<VertexId> s = sockets_of(t);
    ASSERT_EQ(s.size(), 10u);
    const std::uint64_t big = 100'000'000;                                 // 0.4 s at 1/4 GB/s
    for (int i = 0; i < 4; ++i) driver.at(Time::zero(), s[i], s[9], big);  // a, b, c, c2
    driver.at(Time::zero(), s[0], s[8], 1'000'000);                        // d: 1.3 ms
    driver.at(Time::ms(10), s[0], s[7], big);                              // e
    engine.run(Time::us(1));
    const std::vector<double> start = net.active_rates();
    ASSERT_EQ(start.size(), 5u);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(start[i], 0.25e9, 1);
    EXPECT_NEAR(start[4], 0.75e9, 1);
    const std::uint64_t solved = net.stats().packet_hops;
    engine.run(Time::ms(5));  // d has ended
    ASSERT_EQ(driver.ended.size(), 1u);
    EXPECT_EQ(net.stats().packet_hops, solved) << "a, b, c and c2 are below d's level";
    const std::vector<double> after_d = net.active_rates();
    ASSERT_EQ(after_d.size(), 4u);
    for (const double r : after_d) EXPECT_NEAR(r, 0.25e9, 1);
    engine.run(Time::ms(11));  // e has started
    EXPECT_EQ(net.stats().packet_hops, solved + 1) << "e alone: a is below 0's fair share";
    const std::vector<double> after_e = net.active_rates();
    ASSERT_EQ(after_e.size(), 5u);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(after_e[i], 0.25e9, 1);
    EXPECT_NEAR(after_e[4], 0.75e9, 1);
    engine.run();
    EXPECT_EQ(driver.ended.size(), 6u);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::net
