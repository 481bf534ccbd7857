// The model writer (topologies/model_writer.hpp): exact value forms, escaping, the rendering,
// a round trip through the model reader for every element it has a helper for, and the
// generated models of `clustersim generate` against the same models written out by hand.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "run/model.hpp"
#include "simulator/units.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_writer.hpp"
#include "topologies/model_xml.hpp"

namespace clustersim::topo {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::HasSubstr;

// ---- value forms -------------------------------------------------------------------------

TEST(ModelWriter, QuantitiesParseBackExactly) {
    for (const std::int64_t ps : {0LL, 1LL, 999LL, 1'000LL, 1'500'000LL, 2'000'000'000'000LL,
                                  123'456'789LL, 3'600'000'000'000'000LL}) {
        EXPECT_EQ(parse_time(model_time(Time::ps(ps))), Time::ps(ps)) << model_time(Time::ps(ps));
    }
    for (const std::uint64_t b : {0ULL, 1ULL, 1000ULL, 1024ULL, 1536ULL, 100ULL << 10, 5ULL << 20,
                                  16ULL << 30, 10'000'000ULL, 12'345'678'901ULL}) {
        EXPECT_EQ(parse_size(model_size(b)), b) << model_size(b);
    }
    for (const std::uint64_t b :
         {1ULL, 1'000ULL, 117'000'000ULL, 1'250'000'000ULL, 50ULL << 20, 1ULL << 30, 3ULL << 10,
          52'428'801ULL, 3'456'700'000ULL, 999'999ULL, 40'000'000'000ULL, 1'000'000'000'000ULL}) {
        EXPECT_EQ(parse_bandwidth(model_bandwidth(Bandwidth{b})), Bandwidth{b})
            << model_bandwidth(Bandwidth{b});
    }
    for (const std::uint64_t s : {1ULL, 1'500ULL, 2'800'000'000ULL, 999'999'999ULL})
        EXPECT_EQ(parse_speed(model_speed(s)), s) << model_speed(s);
    // One form each: decimal rates stay decimal, PIOsimHD's 1024-based ones binary.
    EXPECT_EQ(model_bandwidth(Bandwidth{1'250'000'000}), "1250MB/s");
    EXPECT_EQ(model_bandwidth(Bandwidth{50ULL << 20}), "50MiB/s");
    EXPECT_EQ(model_bandwidth(Bandwidth{3ULL << 10}), "3KiB/s");
    EXPECT_EQ(model_bandwidth(Bandwidth{2ULL << 30}), "2GiB/s");
    EXPECT_EQ(model_bandwidth(Bandwidth{52'428'801}), "52.428801MB/s");
    EXPECT_EQ(model_bandwidth(Bandwidth{3'456'700'000}), "3456.7MB/s");
    EXPECT_EQ(model_bandwidth(Bandwidth{999'999}), "999999B/s");
    EXPECT_EQ(model_time(Time::ns(1500)), "1500ns");
    EXPECT_EQ(model_time(Time::ps(123'400)), "123.4ns");
    EXPECT_EQ(model_time(Time::ps(1'500'001)), "1500.001ns");
    EXPECT_EQ(model_time(Time::ps(999)), "999ps");
    EXPECT_EQ(model_size(64 * 1024), "64KiB");
    EXPECT_EQ(model_speed(2'800'000'000), "2800M");
}

// ---- escaping and rendering --------------------------------------------------------------

TEST(ModelWriter, EscapesEveryTextAndRendersOneElementPerLine) {
    ModelDocument doc("a&b <\"c\">");
    doc.add_comment("made by -- a tool-");
    doc.add_processing_instruction("tool", "--flag x?>y");
    XmlElement& c = doc.cluster();
    c.add("x").text("v", "tab\there\nand 'quotes' & <tags>");
    c.add_comment("inner -- comment");
    XmlElement& parent = c.add("parent");
    parent.add("child").count("n", 3);
    const std::string text = doc.str();
    EXPECT_EQ(text,
              "<?xml version=\"1.0\"?>\n"
              "<!-- made by - - a tool-  -->\n"
              "<?tool --flag x? >y?>\n"
              "<cluster name=\"a&amp;b &lt;&quot;c&quot;&gt;\">\n"
              "  <x v=\"tab&#9;here&#10;and 'quotes' &amp; &lt;tags&gt;\"/>\n"
              "  <!-- inner - - comment -->\n"
              "  <parent>\n"
              "    <child n=\"3\"/>\n"
              "  </parent>\n"
              "</cluster>\n");
    pugi::xml_document parsed;
    ASSERT_TRUE(parsed.load_string(text.c_str(),
                                   pugi::parse_default | pugi::parse_comments | pugi::parse_pi));
    EXPECT_STREQ(parsed.child("cluster").attribute("name").value(), "a&b <\"c\">");
    EXPECT_STREQ(parsed.child("cluster").child("x").attribute("v").value(),
                 "tab\there\nand 'quotes' & <tags>");
    EXPECT_STREQ(parsed.child("tool").value(), "--flag x? >y");

    // Setting an attribute again replaces it in place; the encoding goes in the declaration.
    ModelDocument d2("m");
    d2.set_encoding("UTF-8");
    d2.cluster().add("e").count("a", 1).count("b", 2).count("a", 3);
    EXPECT_THAT(d2.str(), HasSubstr("<e a=\"3\" b=\"2\"/>"));
    EXPECT_THAT(d2.str(), HasSubstr("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
}

// ---- every element through the model reader ---------------------------------------------

TEST(ModelWriter, EveryElementRoundTripsThroughTheReader) {
    ModelDocument doc("everything");
    XmlElement& c = doc.cluster();
    c.add_network()
        .size("granularity", 4096)
        .text("routing", "round_robin")
        .text("nic", "analytical")
        .size("eager-threshold", 12'000);
    XmlElement& coll = c.add_collectives();
    coll.bandwidth("reduce-bandwidth", Bandwidth{3'000'000'000})
        .bandwidth("copy-bandwidth", Bandwidth{7ULL << 30})
        .time("comm-create", Time::ns(5340));
    coll.add_algorithm("bcast", "binomial").size("max-size", 2048);
    XmlElement& copy = coll.add("copy-rate");
    copy.add_point(1024, Bandwidth{16'000'000'000});
    copy.add_point(1 << 20, Bandwidth{3'500'000'000});
    XmlElement& overhead = c.add_mpi_overhead();
    overhead.add("send")
        .time("time", Time::ns(150))
        .bandwidth("bandwidth", Bandwidth{20'000'000'000});
    XmlElement& recv = overhead.add("recv");
    recv.add_point(8, Time::ns(90));
    recv.add_point(1024, Time::ns(160));

    XmlElement& type = c.add_node_type("box", 3ULL << 30);
    type.add_socket("s0", 4, 2'400'000'000);
    type.add_socket("s1", 2, 1'500);
    type.add_memory_node("mem0")
        .bandwidth("bandwidth", Bandwidth{6'000'000'000})
        .bandwidth("local-bandwidth", Bandwidth{8'000'000'000});
    type.add_memory_node("mem1");
    type.add_switch("qpi", Bandwidth{12ULL << 30});
    type.add_nic("nic", Bandwidth{1'250'000'000}).text("forwarding", "cut_through");
    type.add_cable("s0", "mem0", Time::ns(200), Bandwidth{6'000'000'000});
    type.add_cable("s1", "mem1", Time::ps(1), Bandwidth{1});
    type.add_edge("mem0", "qpi", Time::ns(300), Bandwidth{4'000'000'000});
    type.add_edge("qpi", "mem0", Time::ns(301), Bandwidth{4'000'000'001});
    type.add_cable("mem1", "qpi", Time::ns(300), Bandwidth{4ULL << 20});
    type.add_cable("nic", "qpi", Time::us(1), Bandwidth{2'000'000'000});
    type.add_jitter()
        .text("generator", "periodic:period=10ms,duration=250us")
        .time("length", Time::s(2))
        .count("seed", 7);
    c.add_node("a", "box");
    c.add_node("b", "box");
    c.add_switch("sw", Bandwidth{380'000'000});
    c.add_switch("free");
    c.add_cable("a.nic", "sw", Time::us(25), Bandwidth{117'000'000});
    c.add_edge("b.nic", "sw", Time::us(26), Bandwidth{118'000'000});
    c.add_edge("sw", "b.nic", Time::us(27), Bandwidth{119'000'000});
    c.add_cable("sw", "free", Time::us(1), Bandwidth{1'000'000'000});
    c.add_comm_model("simple")
        .time("latency", Time::ns(1500))
        .bandwidth("bandwidth", Bandwidth{1'250'000'000})
        .add("point-to-point")
        .text("scope", "inter-node")
        .add_point(1024, Bandwidth{100'000'000});
    XmlElement& server = c.add_io_server("a");
    server.add_component("cache", "write_behind");
    server.add_component("disk", "simple", {{"latency", "2ms"}, {"rate", "100MiB/s"}});
    c.add_file_system().size("stripe", 128 * 1024).time("open", Time::us(3));

    const std::string xml = doc.str();
    run::Model m;
    ASSERT_NO_THROW(m = run::parse_model(xml, "everything.xml")) << xml;
    const Topology& t = m.topology;
    EXPECT_EQ(t.name, "everything");
    EXPECT_EQ(t.settings.granularity, 4096u);
    EXPECT_EQ(t.settings.routing, Routing::RoundRobin);
    EXPECT_EQ(t.settings.nic_model, NicModel::Analytical);
    EXPECT_EQ(t.settings.eager_threshold, 12'000u);
    EXPECT_EQ(m.mpi.reduce_bandwidth, Bandwidth{3'000'000'000});
    EXPECT_EQ(m.mpi.copy_bandwidth, Bandwidth{7ULL << 30});
    EXPECT_TRUE(m.mpi.comm_create_modelled);
    EXPECT_EQ(m.mpi.comm_create_local, Time::ns(5340));
    ASSERT_EQ(m.mpi.collectives.size(), 1u);
    EXPECT_EQ(m.mpi.collectives[0].algorithm, "binomial");
    EXPECT_EQ(m.mpi.collectives[0].max_bytes, 2048u);
    ASSERT_EQ(m.mpi.copy_curve.size(), 2u);
    EXPECT_EQ(m.mpi.copy_curve[1],
              (std::pair<std::uint64_t, Bandwidth>{1 << 20, Bandwidth{3'500'000'000}}));
    EXPECT_EQ(m.mpi.send_overhead.time, Time::ns(150));
    EXPECT_EQ(m.mpi.send_overhead.bandwidth, Bandwidth{20'000'000'000});
    ASSERT_EQ(m.mpi.recv_overhead.points.size(), 2u);
    EXPECT_EQ(m.mpi.recv_overhead.points[1].second, Time::ns(160));

    ASSERT_EQ(t.nodes.size(), 2u);
    EXPECT_EQ(t.nodes[1].memory, 3ULL << 30);
    ASSERT_EQ(t.nodes[1].sockets.size(), 2u);
    EXPECT_EQ(t.nodes[1].sockets[0].cores, 4u);
    EXPECT_EQ(t.nodes[1].sockets[0].speed, 2'400'000'000u);
    EXPECT_EQ(t.nodes[1].sockets[1].speed, 1'500u);
    auto vertex = [&](const char* name) -> const VertexProps& {
        const VertexId v = t.find_vertex(name);
        EXPECT_NE(v, kNoVertex) << name;
        return t.vertex(v);
    };
    EXPECT_EQ(vertex("b.mem0").relay, Bandwidth{6'000'000'000});
    EXPECT_EQ(vertex("b.mem0").local, Bandwidth{8'000'000'000});
    EXPECT_TRUE(vertex("b.mem1").relay.infinite());
    EXPECT_EQ(vertex("b.qpi").relay, Bandwidth{12ULL << 30});
    EXPECT_EQ(vertex("a.nic").relay, Bandwidth{1'250'000'000});
    EXPECT_EQ(vertex("a.nic").forwarding, topo::kCutThrough);
    EXPECT_EQ(vertex("sw").relay, Bandwidth{380'000'000});
    EXPECT_TRUE(vertex("free").relay.infinite());
    // Every one-way edge, by its ends: (latency, bandwidth).
    auto edge = [&](const char* from, const char* to) -> EdgeProps {
        const VertexId a = t.find_vertex(from), b = t.find_vertex(to);
        const auto [first, last] = t.out_edge_range(a);
        for (EdgeId e = first; e != last; ++e)
            if (t.target_of(e) == b) return t.edge(e);
        ADD_FAILURE() << "no edge " << from << " -> " << to;
        return {};
    };
    EXPECT_EQ(edge("a.s0", "a.mem0").latency, Time::ns(200));
    EXPECT_EQ(edge("a.mem0", "a.s0").bandwidth, Bandwidth{6'000'000'000});
    EXPECT_EQ(edge("b.s1", "b.mem1").latency, Time::ps(1));
    EXPECT_EQ(edge("b.s1", "b.mem1").bandwidth, Bandwidth{1});
    EXPECT_EQ(edge("a.mem0", "a.qpi").latency, Time::ns(300));
    EXPECT_EQ(edge("a.qpi", "a.mem0").latency, Time::ns(301));
    EXPECT_EQ(edge("a.qpi", "a.mem0").bandwidth, Bandwidth{4'000'000'001});
    EXPECT_EQ(edge("a.qpi", "a.mem1").bandwidth, Bandwidth{4ULL << 20});
    EXPECT_EQ(edge("sw", "a.nic").latency, Time::us(25));
    EXPECT_EQ(edge("b.nic", "sw").bandwidth, Bandwidth{118'000'000});
    EXPECT_EQ(edge("sw", "b.nic").latency, Time::us(27));
    // Per node 2 x 2 socket cables + 2 + 2 mem-qpi edges + 2 nic cable = 10; network 2 + 2 + 2.
    EXPECT_EQ(t.num_edges(), 2u * 10 + 6);

    ASSERT_EQ(m.jitter.size(), 1u);
    EXPECT_EQ(m.jitter[0].generator, "periodic:period=10ms,duration=250us");
    EXPECT_EQ(m.jitter[0].length, Time::s(2));
    EXPECT_EQ(m.jitter[0].seed, 7u);
    ASSERT_TRUE(m.comm.present);
    EXPECT_EQ(m.comm.model, "simple");
    EXPECT_EQ(m.comm.latency, Time::ns(1500));
    ASSERT_EQ(m.comm.inter_curve.size(), 1u);
    EXPECT_EQ(m.comm.inter_curve[0].second, Bandwidth{100'000'000});
    ASSERT_EQ(m.io.servers.size(), 1u);
    EXPECT_EQ(m.io.servers[0].cache.model, "write_behind");
    EXPECT_EQ(m.io.servers[0].disk.model, "simple");
    using P = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(m.io.servers[0].disk.params, (P{{"latency", "2ms"}, {"rate", "100MiB/s"}}));
    EXPECT_TRUE(m.io.fs.present);
    EXPECT_EQ(m.io.fs.stripe, 128u * 1024);
    EXPECT_EQ(m.io.fs.open, Time::us(3));
}

// ---- generate: the written model against the same model written by hand ------------------

// Same vertices (name, kind, relays, node, socket, group), same edges (ends, latency,
// bandwidth) in the same order, same nodes and settings.
void expect_same_graph(const Topology& a, const Topology& b) {
    EXPECT_EQ(a.name, b.name);
    ASSERT_EQ(a.num_vertices(), b.num_vertices());
    ASSERT_EQ(a.num_edges(), b.num_edges());
    for (VertexId v = 0; v < a.num_vertices(); ++v) {
        const VertexProps &x = a.vertex(v), &y = b.vertex(v);
        ASSERT_EQ(x.name, y.name);
        EXPECT_EQ(x.kind, y.kind) << x.name;
        EXPECT_EQ(x.relay, y.relay) << x.name;
        EXPECT_EQ(x.local, y.local) << x.name;
        EXPECT_EQ(x.node, y.node) << x.name;
        EXPECT_EQ(x.socket, y.socket) << x.name;
        EXPECT_EQ(x.group, y.group) << x.name;
        EXPECT_EQ(x.forwarding, y.forwarding) << x.name;
    }
    for (EdgeId e = 0; e < a.num_edges(); ++e) {
        EXPECT_EQ(a.source_of(e), b.source_of(e));
        EXPECT_EQ(a.target_of(e), b.target_of(e));
        EXPECT_EQ(a.edge(e).latency, b.edge(e).latency);
        EXPECT_EQ(a.edge(e).bandwidth, b.edge(e).bandwidth);
    }
    ASSERT_EQ(a.nodes.size(), b.nodes.size());
    for (std::size_t i = 0; i < a.nodes.size(); ++i) {
        EXPECT_EQ(a.nodes[i].name, b.nodes[i].name);
        EXPECT_EQ(a.nodes[i].memory, b.nodes[i].memory);
        EXPECT_EQ(a.nodes[i].sockets.size(), b.nodes[i].sockets.size());
        for (std::size_t s = 0; s < a.nodes[i].sockets.size(); ++s) {
            EXPECT_EQ(a.nodes[i].sockets[s].cores, b.nodes[i].sockets[s].cores);
            EXPECT_EQ(a.nodes[i].sockets[s].speed, b.nodes[i].sockets[s].speed);
        }
        EXPECT_EQ(a.nodes[i].nic, b.nodes[i].nic);
    }
    EXPECT_EQ(a.settings.granularity, b.settings.granularity);
    EXPECT_EQ(a.settings.forwarding, b.settings.forwarding);
    EXPECT_EQ(a.settings.routing, b.settings.routing);
    EXPECT_EQ(a.settings.nic_model, b.settings.nic_model);
    EXPECT_EQ(a.settings.eager_threshold, b.settings.eager_threshold);
}

// The options below, as a person would write them (other unit spellings on purpose). A
// dragonfly's local cables take the link latency and its global ones twice it unless given
// (issue 52: one meaning per flag); a torus that names no routing takes dimension_order, as a
// generated one does.
constexpr const char* kHandType = R"(
  <node-type name="node" memory="8GiB">
    <socket name="s0" cores="3" speed="2.5GHz"/>
    <socket name="s1" cores="3" speed="2500M"/>
    <memory-node name="mem0" bandwidth="20GB/s" local-bandwidth="20000MB/s"/>
    <memory-node name="mem1" bandwidth="20GB/s" local-bandwidth="20GB/s"/>
    <switch name="qpi" bandwidth="12.8GB/s"/>
    <nic name="nic" forwarding="cut_through"/>
    <cable from="s0" to="mem0" latency="0.1us" bandwidth="20GB/s"/>
    <cable from="s1" to="mem1" latency="100ns" bandwidth="20GB/s"/>
    <cable from="mem0" to="qpi" latency="0.2us" bandwidth="12800MB/s"/>
    <cable from="mem1" to="qpi" latency="200ns" bandwidth="12.8GB/s"/>
    <cable from="nic" to="qpi" latency="200ns" bandwidth="12.8GB/s"/>
  </node-type>)";

std::string by_hand(const std::string& name, const std::string& network,
                    const std::string& generator) {
    return fmt::format("<cluster name=\"{}\">\n  {}{}\n  {}\n</cluster>\n", name, network,
                       kHandType, generator);
}

GenerateOptions options(const char* kind) {
    GenerateOptions o;
    o.kind = kind;
    o.sockets = 2;
    o.cores = 3;
    o.cpu_speed = 2'500'000'000;
    o.memory = 8ULL << 30;
    o.link_bandwidth = Bandwidth{10'000'000'000 / 8};
    o.link_latency = Time::ns(1500);
    return o;
}

TEST(ModelWriter, GeneratedModelsLoadToTheGraphTheyDescribe) {
    const std::string net =
        R"(<network forwarding="cut_through" granularity="4096B" routing="shortest_path" nic="packet" eager-threshold="64KiB"/>)";
    {
        GenerateOptions o = options("star");
        o.nodes = 5;
        o.switch_bandwidth = Bandwidth{40'000'000'000};
        expect_same_graph(
            parse_model(generate_model_xml(o), "gen.xml"),
            parse_model(
                by_hand("star-5", net,
                        R"(<star type="node" nodes="5" switch="sw" switch-bandwidth="40GB/s")"
                        R"( link-latency="1.5us" link-bandwidth="10Gbit/s"/>)"),
                "hand.xml"));
    }
    {
        GenerateOptions o = options("fat-tree");
        o.down = {2, 3, 2};
        o.granularity = 0;
        o.nic = NicModel::Analytical;
        o.routing = Routing::DModK;
        expect_same_graph(
            parse_model(generate_model_xml(o), "gen.xml"),
            parse_model(
                by_hand(
                    "fat-tree-12",
                    R"(<network forwarding="cut_through" granularity="message" routing="d_mod_k" nic="analytical"/>)",
                    R"(<fat-tree type="node" levels="3" down="2,3,2" up="1,2,3")"
                    R"( link-latency="1500ns" link-bandwidth="1.25GB/s"/>)"),
                "hand.xml"));
    }
    {
        GenerateOptions o = options("torus");
        o.dims = {3, 2, 2};
        o.eager_threshold = 1000;
        expect_same_graph(
            parse_model(generate_model_xml(o), "gen.xml"),
            parse_model(
                by_hand(
                    "torus-3x2x2",
                    R"(<network forwarding="cut_through" granularity="4KiB" eager-threshold="1KB"/>)",
                    R"(<torus type="node" dims="3,2,2")"
                    R"( link-latency="1.5us" link-bandwidth="1250MB/s"/>)"),
                "hand.xml"));
    }
    {
        GenerateOptions o = options("dragonfly");
        o.nodes = 72;  // balanced: p = 2, 9 groups of 4 routers
        o.routing = Routing::Valiant;
        o.switch_bandwidth = Bandwidth{10'000'000'000};
        o.global_latency = Time::us(3);
        expect_same_graph(
            parse_model(generate_model_xml(o), "gen.xml"),
            parse_model(
                by_hand(
                    "dragonfly-72",
                    R"(<network forwarding="cut_through" granularity="4KiB" routing="valiant"/>)",
                    R"(<dragonfly type="node" groups="9" routers="4" nodes-per-router="2")"
                    R"( global-links="2" router-bandwidth="10GB/s")"
                    R"( link-latency="1.5us" link-bandwidth="1.25GB/s")"
                    R"( local-latency="1.5us" local-bandwidth="1.25GB/s")"
                    R"( global-latency="3us" global-bandwidth="1.25GB/s"/>)"),
                "hand.xml"));
    }
}

// The file stays short: the generator element, not one line per node.
TEST(ModelWriter, GeneratedFileIsTheWritersRendering) {
    GenerateOptions o = options("dragonfly");
    o.nodes = 72;
    const std::string xml = generate_model_xml(o);
    EXPECT_THAT(xml, HasSubstr("<!-- Generated by `clustersim generate dragonfly`. -->\n"));
    EXPECT_THAT(xml, HasSubstr("\n  <dragonfly type=\"node\" groups=\"9\" routers=\"4\" "
                               "nodes-per-router=\"2\" global-links=\"2\" prefix=\"n\" "
                               "link-latency=\"1500ns\" link-bandwidth=\"1250MB/s\" "
                               "local-latency=\"1500ns\" local-bandwidth=\"1250MB/s\" "
                               "global-latency=\"3us\" global-bandwidth=\"1250MB/s\"/>\n"));
    EXPECT_EQ(std::count(xml.begin(), xml.end(), '\n'), 19);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::topo
