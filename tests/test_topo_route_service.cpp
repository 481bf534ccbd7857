// The route service (topologies/route_service.hpp): path, per-hop relays, latency and
// bottleneck of a route, checked hop by hop on the example models; every pair of every
// example agrees with the router's path and with the sums taken edge by edge.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "run/model.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/route_service.hpp"
#include "topologies/routing.hpp"

namespace clustersim::topo {
namespace CLUSTERSIM_TEST_FILE {

Topology example(const std::string& name) {
    // The whole model: examples carry other folders' elements (<collectives>, <jitter>, ...).
    return run::load_model(std::string(CLUSTERSIM_SOURCE_DIR) + "/topologies/examples/" + name)
        .topology;
}

TEST(TopoRouteService, SameSocketGoesOutAndBackAtTheMemoryNodesLocalRate) {
    const Topology t = example("figure1-westmere-10.xml");
    const Router router(t);
    const RouteService routes(t, router);
    const VertexId s0 = t.find_vertex("n0.s0"), mem0 = t.find_vertex("n0.mem0");
    const Route r = routes.route(s0, s0);
    ASSERT_EQ(r.edges.size(), 2u);
    EXPECT_EQ(t.target_of(r.edges[0]), mem0);
    EXPECT_EQ(t.target_of(r.edges[1]), s0);
    EXPECT_TRUE(r.neighbours);
    const RouteRelay relay = routes.relay(r, 1);
    EXPECT_EQ(relay.vertex, mem0);
    EXPECT_TRUE(relay.local);
    EXPECT_EQ(relay.rate, t.vertex(mem0).local);
    EXPECT_EQ(r.latency, t.edge(r.edges[0]).latency + t.edge(r.edges[1]).latency);
    Bandwidth narrowest = t.vertex(mem0).local;
    for (EdgeId e : r.edges)
        if (!t.edge(e).bandwidth.infinite()) narrowest = std::min(narrowest, t.edge(e).bandwidth);
    EXPECT_EQ(r.bottleneck, narrowest);
}

TEST(TopoRouteService, AcrossNodesEveryRelayAtItsRelayRate) {
    const Topology t = example("figure1-westmere-10.xml");
    const Router router(t);
    const RouteService routes(t, router);
    const Route r = routes.route(t.find_vertex("n2.s1"), t.find_vertex("n7.s0"));
    ASSERT_EQ(r.edges.size(), 8u);  // s1 mem1 qpi nic sw nic qpi mem0 s0
    EXPECT_FALSE(r.neighbours);
    EXPECT_EQ(t.vertex(routes.relay(r, 4).vertex).name, "sw");
    for (std::size_t i = 1; i < r.edges.size(); ++i) {
        EXPECT_FALSE(routes.relay(r, i).local);
        EXPECT_EQ(routes.relay(r, i).rate, t.vertex(t.source_of(r.edges[i])).relay);
    }
}

// Every pair of sockets of every example: the route is the router's path (same-socket pairs:
// out to the first neighbour and back), its latency the sum of its links', and its bottleneck
// the narrowest link or relay rate.
TEST(TopoRouteService, EveryExamplePairIsTheRoutersPathWithItsSums) {
    for (const char* name : {"figure1-westmere-10.xml", "fat-tree-16.xml", "torus-4x4.xml",
                             "dragonfly-72.xml", "star-16.xml", "two-nodes.xml"}) {
        const Topology t = example(name);
        const Router router(t);
        const RouteService routes(t, router);
        std::vector<VertexId> sockets;
        for (VertexId v = 0; v < t.num_vertices(); ++v)
            if (t.vertex(v).kind == VertexKind::Socket) sockets.push_back(v);
        ASSERT_FALSE(sockets.empty()) << name;
        Route r;
        std::size_t pairs = 0;
        for (std::size_t i = 0; i < sockets.size(); i += 3) {
            for (std::size_t j = 0; j < sockets.size(); j += 2) {
                const VertexId a = sockets[i], b = sockets[j];
                routes.route(a, b, r);
                if (a != b) {
                    EXPECT_EQ(r.edges, router.path(a, b)) << name;
                }
                ASSERT_FALSE(r.edges.empty());
                EXPECT_EQ(t.source_of(r.edges.front()), a);
                EXPECT_EQ(t.target_of(r.edges.back()), b);
                Time latency;
                Bandwidth narrowest;
                auto narrow = [&](Bandwidth x) {
                    if (!x.infinite() && (narrowest.infinite() || x < narrowest)) narrowest = x;
                };
                for (std::size_t k = 0; k < r.edges.size(); ++k) {
                    latency += t.edge(r.edges[k]).latency;
                    narrow(t.edge(r.edges[k]).bandwidth);
                    if (k > 0) narrow(routes.relay(r, k).rate);
                }
                EXPECT_EQ(r.latency, latency) << name;
                EXPECT_EQ(r.bottleneck, narrowest) << name;
                EXPECT_FALSE(r.bottleneck.infinite()) << name;
                ++pairs;
            }
        }
        EXPECT_GT(pairs, 0u);
    }
}

TEST(TopoRouteService, UnreachablePairsAreNamed) {
    // Two sockets joined one way only, and a socket without any cable.
    TopologyBuilder b;
    VertexProps p;
    p.kind = VertexKind::Socket;
    p.name = "n0.s0";
    const VertexId s0 = b.add_vertex(p);
    p.name = "n1.s0";
    const VertexId s1 = b.add_vertex(p);
    p.name = "lonely";
    const VertexId v = b.add_vertex(p);
    b.add_edge(s0, s1, Time::ns(1), Bandwidth{1'000'000'000});
    const Topology t = std::move(b).build("t", "t.xml");
    const Router router(t);
    const RouteService routes(t, router);
    EXPECT_EQ(routes.route(s0, s1).edges.size(), 1u);
    const VertexId a = s1;
    auto message = [&](VertexId x, VertexId y) {
        try {
            (void)routes.route(x, y);
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message(a, s0), "no route from 'n1.s0' to 'n0.s0'");
    EXPECT_EQ(message(a, v), "no route from 'n1.s0' to 'lonely'");
    EXPECT_EQ(message(v, v), "socket 'lonely' has no link");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::topo
