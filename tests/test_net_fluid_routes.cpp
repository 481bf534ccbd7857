// The fluid model's routes (models/fluid.hpp, tree_route): built from per-vertex tree records
// rather than asked of the route service, they must be the service's routes exactly. Every
// sampled pair of sockets of every example model, one message at a time: the lone flow's
// rate is the route's bottleneck (every link and relay resource is on it), the message
// arrives after the route's latency plus size / bottleneck, and the bytes land on the
// route's edges and no others. The examples cover a star with relay-limited switches, a fat
// tree (a core between trees), two-socket nodes (a memory node's local rate), a torus and a
// dragonfly (routed fabrics, where the service answers).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "import/import.hpp"
#include "models/analytic.hpp"
#include "models/fluid.hpp"
#include "run/model.hpp"
#include "simulator/engine.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/route_service.hpp"
#include "topologies/routing.hpp"

namespace clustersim::net {
namespace CLUSTERSIM_TEST_FILE {

struct Arrivals final : NetworkClient {
    explicit Arrivals(Engine& engine) : engine_(engine) {}
    void message_delivered(std::uint64_t) override { at.push_back(engine_.now()); }
    void message_injected(std::uint64_t) override {}
    std::vector<Time> at;
    Engine& engine_;
};

// Relays as bottlenecks in every position a route has them: the source's and the
// destination's memory node and NIC, the anchor switches of both trees, and a switch in the
// middle of the core (four switches in a ring: a node on sw1 reaches one on sw3 through sw2
// or sw4). Links are fast, so a relay left out of a route, or one too many, changes the rate.
// One node type: a socket, a memory node relaying at `mem` and a NIC relaying at `nic`.
std::string node_type(const char* name, const char* mem, const char* nic) {
    return fmt::format(R"(<node-type name="{}" memory="1GiB">
    <socket name="s0" cores="1" speed="1G"/>
    <memory-node name="mem0" bandwidth="{}"/>
    <nic name="nic" bandwidth="{}"/>
    <cable from="s0" to="mem0" latency="100ns" bandwidth="10GB/s"/>
    <cable from="nic" to="mem0" latency="200ns" bandwidth="10GB/s"/>
  </node-type>)",
                       name, mem, nic);
}
const std::string kRelays = R"(<cluster name="relays">
  <network granularity="100KiB" routing="shortest_path" nic="packet" eager-threshold="64KiB"/>
)" + node_type("fast", "9GB/s", "8GB/s") +
                            node_type("slowmem", "0.3GB/s", "8GB/s") +
                            node_type("slownic", "9GB/s", "0.4GB/s") + R"(
  <nodes prefix="a" count="3" type="fast"/>
  <nodes prefix="b" count="2" type="slowmem"/>
  <nodes prefix="c" count="2" type="slownic"/>
  <switch name="sw1" bandwidth="0.7GB/s"/>
  <switch name="sw2" bandwidth="0.15GB/s"/>
  <switch name="sw3" bandwidth="0.5GB/s"/>
  <switch name="sw4" bandwidth="0.15GB/s"/>
  <cable from="sw1" to="sw2" latency="1us" bandwidth="10GB/s"/>
  <cable from="sw2" to="sw3" latency="2us" bandwidth="10GB/s"/>
  <cable from="sw3" to="sw4" latency="3us" bandwidth="10GB/s"/>
  <cable from="sw4" to="sw1" latency="4us" bandwidth="10GB/s"/>
  <cable from="a0.nic" to="sw1" latency="1us" bandwidth="10GB/s"/>
  <cable from="a1.nic" to="sw1" latency="1us" bandwidth="10GB/s"/>
  <cable from="b0.nic" to="sw1" latency="1us" bandwidth="10GB/s"/>
  <cable from="c0.nic" to="sw2" latency="1us" bandwidth="10GB/s"/>
  <cable from="b1.nic" to="sw3" latency="1us" bandwidth="10GB/s"/>
  <cable from="c1.nic" to="sw3" latency="1us" bandwidth="10GB/s"/>
  <cable from="a2.nic" to="sw4" latency="1us" bandwidth="10GB/s"/>
</cluster>)";

TEST(FluidRoutes, EveryExamplePairTakesTheRouteServicesRoute) {
    for (const char* name :
         {"relays", "figure1-westmere-10.xml", "fat-tree-16.xml", "torus-4x4.xml",
          "dragonfly-72.xml", "star-16.xml", "two-nodes.xml", "figure5-io-8.xml"}) {
        const topo::Topology t = std::string(name) == "relays"
                                     ? topo::parse_model(kRelays, "relays.xml")
                                     : run::load_model(std::string(CLUSTERSIM_SOURCE_DIR) +
                                                       "/topologies/examples/" + name)
                                           .topology;
        topo::Router router(t);
        const topo::RouteService service(t, router);
        Engine engine;
        Arrivals client(engine);
        FluidNetwork net(engine, t, router, client);
        std::vector<VertexId> sockets;
        for (VertexId v = 0; v < t.num_vertices(); ++v)
            if (t.vertex(v).kind == topo::VertexKind::Socket) sockets.push_back(v);
        ASSERT_FALSE(sockets.empty()) << name;
        const std::uint64_t bytes = 1 << 20;
        std::vector<std::uint64_t> before = net.edge_bytes();
        std::size_t pairs = 0;
        // Every pair twice (the second send takes the cached route), sampled on the larger
        // examples.
        const std::size_t step = sockets.size() > 40 ? 5 : 1;
        for (int pass = 0; pass < 2; ++pass) {
            for (std::size_t i = 0; i < sockets.size(); i += step) {
                for (std::size_t j = 0; j < sockets.size(); j += step) {
                    const VertexId a = sockets[i], b = sockets[j];
                    const topo::Route r = service.route(a, b);
                    const Time sent = engine.now();
                    net.send(a, b, bytes, pairs, false);
                    const std::vector<double> rates = net.active_rates();
                    ASSERT_EQ(rates.size(), 1u);
                    ASSERT_EQ(rates[0], static_cast<double>(r.bottleneck.bytes_per_s))
                        << name << ' ' << t.vertex(a).name << " -> " << t.vertex(b).name;
                    engine.run();
                    ASSERT_EQ(client.at.size(), pairs + 1);
                    const double transfer =
                        static_cast<double>(bytes) / static_cast<double>(r.bottleneck.bytes_per_s);
                    const Time took = client.at.back() - sent;
                    EXPECT_LE(std::abs((took - r.latency).seconds() - transfer), 1e-12)
                        << name << ' ' << t.vertex(a).name << " -> " << t.vertex(b).name;
                    const std::vector<std::uint64_t> after = net.edge_bytes();
                    std::vector<std::uint64_t> expected = before;
                    for (EdgeId e : r.edges) expected[e] += bytes;
                    ASSERT_EQ(after, expected)
                        << name << ' ' << t.vertex(a).name << " -> " << t.vertex(b).name;
                    before = after;
                    ++pairs;
                }
            }
        }
        EXPECT_GE(pairs, 8u) << name;
        // The relays model's routes take every rate from 0.15 to 10 GB/s: a relay missed or
        // added shows.
    }
}

// The analytic models' pair costs (models/analytic.hpp, tree_cost): for pairs that meet at an
// anchor they are built from per-vertex halves, not from the route service's route, and must
// be its latency and narrowest rate exactly. Every pair of sockets of every example (the
// relays model puts a bottleneck in every position) and of SimGrid's example platforms
// (about 40 x 40 on the larger ones), twice (the second time from the halves and the
// anchor-pair cache), and one node whose memory node is the anchor of its three
// sockets (the router peels the sockets and keeps the memory node as the root; a route of two
// edges between two of them: the memory node's local rate, not its relay rate).
TEST(AnalyticRoutes, EveryExamplePairCostsTheRouteServicesRoute) {
    const std::string kOneNode = R"(<cluster name="one">
  <node-type name="n" memory="1GiB"><socket name="s0" cores="1" speed="1G"/>
    <socket name="s1" cores="1" speed="1G"/><socket name="s2" cores="1" speed="1G"/>
    <memory-node name="mem0" bandwidth="3GB/s" local-bandwidth="7GB/s"/>
    <cable from="s0" to="mem0" latency="100ns" bandwidth="20GB/s"/>
    <cable from="s1" to="mem0" latency="150ns" bandwidth="20GB/s"/>
    <cable from="s2" to="mem0" latency="200ns" bandwidth="20GB/s"/>
  </node-type>
  <nodes prefix="n" count="1" type="n"/>
</cluster>)";
    // SimGrid's example platforms (../shared/external), imported: zones of clusters with
    // backbones, crossbars, routed fat trees, tori and dragonflies, and full routing tables.
    const std::string simgrid = std::string(CLUSTERSIM_SHARED_DIR) + "/external/simgrid-platforms/";
    for (const char* name :
         {"relays", "one", "figure1-westmere-10.xml", "fat-tree-16.xml", "torus-4x4.xml",
          "dragonfly-72.xml", "star-16.xml", "two-nodes.xml", "figure5-io-8.xml", "psins-16.xml",
          "sg:cluster_backbone.xml", "sg:cluster_crossbar.xml", "sg:cluster_dragonfly.xml",
          "sg:cluster_fat_tree.xml", "sg:cluster_multi.xml", "sg:cluster_torus.xml",
          "sg:hosts_with_disks.xml", "sg:small_platform.xml"}) {
        const std::string n = name;
        const topo::Topology t =
            n == "relays" ? topo::parse_model(kRelays, "relays.xml")
            : n == "one"  ? topo::parse_model(kOneNode, "one.xml")
            : n.rfind("sg:", 0) == 0
                ? topo::parse_model(traces::import_simgrid(simgrid + n.substr(3)).xml, n)
                : run::load_model(std::string(CLUSTERSIM_SOURCE_DIR) + "/topologies/examples/" +
                                  name)
                      .topology;
        topo::Router router(t);
        const topo::RouteService service(t, router);
        Engine engine;
        Arrivals client(engine);
        comm::CommModelSpec spec;
        spec.model = "simple";
        AnalyticNetwork net(engine, t, router, client, comm::make_comm_model("simple"),
                            resolve_params(t, spec));
        std::vector<VertexId> sockets;
        for (VertexId v = 0; v < t.num_vertices(); ++v)
            if (t.vertex(v).kind == topo::VertexKind::Socket) sockets.push_back(v);
        ASSERT_FALSE(sockets.empty()) << name;
        std::size_t pairs = 0, distinct_rates = 0;
        std::vector<std::uint64_t> rates;
        // About 40 x 40 pairs on the larger ones (the crossbar has 65,536 hosts).
        const std::size_t step = std::max<std::size_t>(1, sockets.size() / 40);
        for (int pass = 0; pass < 2; ++pass) {
            for (std::size_t i = 0; i < sockets.size(); i += step) {
                for (std::size_t j = 0; j < sockets.size(); j += step) {
                    const VertexId a = sockets[i], b = sockets[j];
                    const topo::Route r = service.route(a, b);
                    const comm::PairCost c = net.pair_cost(a, b);
                    ASSERT_EQ(c.latency, r.latency)
                        << name << ' ' << t.vertex(a).name << " -> " << t.vertex(b).name;
                    ASSERT_EQ(c.bandwidth, r.bottleneck)
                        << name << ' ' << t.vertex(a).name << " -> " << t.vertex(b).name;
                    rates.push_back(c.bandwidth.bytes_per_s);
                    ++pairs;
                }
            }
        }
        std::sort(rates.begin(), rates.end());
        distinct_rates =
            static_cast<std::size_t>(std::unique(rates.begin(), rates.end()) - rates.begin());
        EXPECT_GE(pairs, 2u) << name;
        if (n == "relays") {
            // The narrowest rate is a core switch in the middle (sw2, sw4: 0.15 GB/s), a
            // memory node below the anchor (0.3 GB/s), an anchor (sw1: 0.7 GB/s) or, for a
            // socket to itself, its memory node (9 GB/s).
            EXPECT_EQ(
                std::vector<std::uint64_t>(
                    rates.begin(), rates.begin() + static_cast<std::ptrdiff_t>(distinct_rates)),
                (std::vector<std::uint64_t>{150'000'000, 300'000'000, 700'000'000, 9'000'000'000}));
        }
        if (n == "one") {
            const topo::Route r = service.route(sockets[0], sockets[1]);
            EXPECT_EQ(r.bottleneck.bytes_per_s, 7'000'000'000u) << "the memory node's local rate";
        }
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::net
