// The <comm-model> element of the model XML: every attribute and child lands in
// run::Model::comm (comm::CommModelSpec, models/comm_spec.hpp) with the analytic network model
// chosen, and every kind of bad input gets one line naming its line and what was expected.
#include <cstdint>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/model.hpp"
#include "simulator/error.hpp"

namespace clustersim::topo {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::HasSubstr;

// The <comm-model> comes before the node-types it names: document order does not matter.
constexpr const char* kFull = R"(<cluster name="comm">
  <comm-model model="bus_only" latency="1.5us" bandwidth="1.25GB/s"
              intra-latency="300ns" intra-bandwidth="5GB/s"
              buses="4" in-links="2" out-links="3" collectives="analytic">
    <node-type name="fat" in-links="2" out-links="5" latency="200ns" bandwidth="8GB/s"/>
    <node-type name="thin" out-links="7"/>
    <collective operation="allreduce" scaling="logarithmic"/>
    <collective operation="bcast" scaling="linear" ranks="64">
      <point size="1KiB" bandwidth="120MB/s"/>
      <point size="1MiB" bandwidth="900MB/s"/>
    </collective>
    <collective operation="barrier"/>
  </comm-model>
  <node-type name="fat" memory="1GiB"><socket name="s0" cores="2" speed="1G"/></node-type>
  <node-type name="thin" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <node name="a" type="fat"/>
  <node name="b" type="thin"/>
</cluster>
)";

TEST(TopoCommModel, FullElementLandsInTheSpec) {
    const run::Model t = run::parse_model(kFull, "comm.xml");
    EXPECT_EQ(t.topology.settings.model, NetworkModel::Analytic);
    const comm::CommModelSpec& c = t.comm;
    EXPECT_TRUE(c.present);
    EXPECT_EQ(c.line, 2);
    EXPECT_EQ(c.model, "bus_only");
    EXPECT_TRUE(c.has_latency);
    EXPECT_EQ(c.latency.ps(), 1'500'000);
    EXPECT_TRUE(c.has_bandwidth);
    EXPECT_EQ(c.bandwidth.bytes_per_s, 1'250'000'000u);
    EXPECT_TRUE(c.has_intra_latency);
    EXPECT_EQ(c.intra_latency.ps(), 300'000);
    EXPECT_TRUE(c.has_intra_bandwidth);
    EXPECT_EQ(c.intra_bandwidth.bytes_per_s, 5'000'000'000u);
    EXPECT_EQ(c.buses, 4u);
    EXPECT_EQ(c.in_links, 2u);
    EXPECT_EQ(c.out_links, 3u);
    EXPECT_FALSE(c.collectives_as_messages);

    ASSERT_EQ(c.node_types.size(), 2u);
    const comm::CommNodeSpec& fat = c.node_types[0];
    EXPECT_EQ(fat.node_type, "fat");
    EXPECT_EQ(fat.in_links, 2u);
    EXPECT_EQ(fat.out_links, 5u);
    EXPECT_TRUE(fat.has_latency);
    EXPECT_EQ(fat.latency.ps(), 200'000);
    EXPECT_TRUE(fat.has_bandwidth);
    EXPECT_EQ(fat.bandwidth.bytes_per_s, 8'000'000'000u);
    EXPECT_EQ(fat.line, 5);
    // Unspecified fields stay 0 / false: they fall back to the <comm-model>'s own.
    const comm::CommNodeSpec& thin = c.node_types[1];
    EXPECT_EQ(thin.node_type, "thin");
    EXPECT_EQ(thin.in_links, 0u);
    EXPECT_EQ(thin.out_links, 7u);
    EXPECT_FALSE(thin.has_latency);
    EXPECT_FALSE(thin.has_bandwidth);
    EXPECT_EQ(thin.latency, Time::zero());
    EXPECT_EQ(thin.bandwidth.bytes_per_s, 0u);
    EXPECT_EQ(thin.line, 6);

    ASSERT_EQ(c.collectives.size(), 3u);
    const comm::CommCollectiveSpec& allreduce = c.collectives[0];
    EXPECT_EQ(allreduce.operation, "allreduce");
    EXPECT_EQ(allreduce.scaling, "logarithmic");
    EXPECT_TRUE(allreduce.points.empty());
    EXPECT_EQ(allreduce.ranks, 0u);
    EXPECT_EQ(allreduce.line, 7);
    const comm::CommCollectiveSpec& bcast = c.collectives[1];
    EXPECT_EQ(bcast.operation, "bcast");
    EXPECT_EQ(bcast.scaling, "linear");
    EXPECT_EQ(bcast.ranks, 64u);
    EXPECT_EQ(bcast.line, 8);
    ASSERT_EQ(bcast.points.size(), 2u);
    EXPECT_EQ(bcast.points[0].first, 1024u);
    EXPECT_EQ(bcast.points[0].second.bytes_per_s, 120'000'000u);
    EXPECT_EQ(bcast.points[1].first, 1024u * 1024);
    EXPECT_EQ(bcast.points[1].second.bytes_per_s, 900'000'000u);
    const comm::CommCollectiveSpec& barrier = c.collectives[2];
    EXPECT_EQ(barrier.operation, "barrier");
    EXPECT_EQ(barrier.scaling, "");  // the model's default
    EXPECT_EQ(barrier.line, 12);

    // The rest of the model is read as usual.
    ASSERT_EQ(t.topology.nodes.size(), 2u);
    EXPECT_EQ(t.topology.nodes[1].type, "thin");
}

// One line per element, <comm-model> first: its line is 2.
std::string with_comm(const std::string& comm, const std::string& network = "") {
    return "<cluster name=\"c\">\n" + comm + "\n" + network +
           R"(<node-type name="fat" memory="1GiB"><socket name="s0" cores="2" speed="1G"/></node-type>
<node name="a" type="fat"/>
</cluster>
)";
}

TEST(TopoCommModel, DefaultsWhenOnlyTheModelIsGiven) {
    const run::Model t = run::parse_model(with_comm(R"(<comm-model model="simple"/>)"), "c.xml");
    EXPECT_EQ(t.topology.settings.model, NetworkModel::Analytic);
    const comm::CommModelSpec& c = t.comm;
    EXPECT_TRUE(c.present);
    EXPECT_EQ(c.line, 2);
    EXPECT_EQ(c.model, "simple");
    EXPECT_FALSE(c.has_latency);
    EXPECT_FALSE(c.has_bandwidth);
    EXPECT_FALSE(c.has_intra_latency);
    EXPECT_FALSE(c.has_intra_bandwidth);
    EXPECT_EQ(c.buses, 1u);
    EXPECT_EQ(c.in_links, 1u);
    EXPECT_EQ(c.out_links, 1u);
    EXPECT_FALSE(c.collectives_as_messages);
    EXPECT_TRUE(c.node_types.empty());
    EXPECT_TRUE(c.collectives.empty());
}

TEST(TopoCommModel, CollectivesAsMessages) {
    const run::Model t = run::parse_model(
        with_comm(R"(<comm-model model="simple" collectives="messages"/>)"), "c.xml");
    EXPECT_TRUE(t.comm.collectives_as_messages);
}

TEST(TopoCommModel, ZeroTimesAreAllowed) {
    const run::Model t =
        run::parse_model(with_comm(R"(<comm-model model="simple" latency="0s" intra-latency="0ns">
<node-type name="fat" latency="0us"/></comm-model>)"),
                         "c.xml");
    EXPECT_TRUE(t.comm.has_latency);
    EXPECT_EQ(t.comm.latency, Time::zero());
    EXPECT_TRUE(t.comm.has_intra_latency);
    ASSERT_EQ(t.comm.node_types.size(), 1u);
    EXPECT_TRUE(t.comm.node_types[0].has_latency);
}

TEST(TopoCommModel, ElementChoosesTheAnalyticModelOverTheNetworkElement) {
    const run::Model t = run::parse_model(
        with_comm(R"(<comm-model model="simple"/>)", "<network model=\"fluid\"/>\n"), "c.xml");
    EXPECT_EQ(t.topology.settings.model, NetworkModel::Analytic);
}

TEST(TopoCommModel, AbsentElementKeepsTheNetworkModel) {
    const run::Model fluid =
        run::parse_model(with_comm("", "<network model=\"fluid\"/>\n"), "c.xml");
    EXPECT_FALSE(fluid.comm.present);
    EXPECT_EQ(fluid.comm.line, 0);
    EXPECT_EQ(fluid.topology.settings.model, NetworkModel::Fluid);
    const run::Model plain = run::parse_model(with_comm(""), "c.xml");
    EXPECT_FALSE(plain.comm.present);
    EXPECT_EQ(plain.topology.settings.model, NetworkModel::Packet);
    EXPECT_TRUE(plain.comm.node_types.empty());
    EXPECT_TRUE(plain.comm.collectives.empty());
}

TEST(TopoCommModel, UnknownTopLevelElementListsCommModel) {
    try {
        run::parse_model(with_comm(R"(<comm-models model="simple"/>)"), "c.xml");
        FAIL() << "parsed an unknown element";
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), 2) << e.what();
        EXPECT_THAT(e.what(), HasSubstr("unknown element <comm-models> in <cluster>"));
        EXPECT_THAT(e.what(), HasSubstr("io-forwarder, comm-model"));
    }
}

TEST(TopoCommModel, PointToPointCurvesPerScope) {
    const run::Model t =
        run::parse_model(with_comm(R"(<comm-model model="simple" collectives="messages">
  <point-to-point scope="intra_node">
    <point size="1KiB" bandwidth="2GB/s"/>
    <point size="1MiB" bandwidth="10GB/s"/>
  </point-to-point>
  <point-to-point scope="inter_node"><point size="64KiB" bandwidth="1GB/s"/></point-to-point>
</comm-model>)"),
                         "p2p.xml");
    ASSERT_EQ(t.comm.intra_curve.size(), 2u);
    EXPECT_EQ(t.comm.intra_curve[0].first, 1024u);
    EXPECT_EQ(t.comm.intra_curve[1].second.bytes_per_s, 10'000'000'000u);
    EXPECT_EQ(t.comm.intra_curve_line, 3);
    ASSERT_EQ(t.comm.inter_curve.size(), 1u);
    EXPECT_EQ(t.comm.inter_curve[0].first, 65536u);
    EXPECT_EQ(t.comm.inter_curve_line, 7);
    EXPECT_TRUE(t.comm.collectives_as_messages);
}

// ---- bad inputs -------------------------------------------------------------------------

struct BadCase {
    const char* name;
    const char* comm;  // the <comm-model> element(s), from line 2
    int line;
    const char* phrase;
    const char* phrase2 = "";
};

class TopoCommModelBad : public ::testing::TestWithParam<BadCase> {};

TEST_P(TopoCommModelBad, SaysWhereAndWhat) {
    const BadCase& c = GetParam();
    try {
        run::parse_model(with_comm(c.comm), "bad.xml");
        FAIL() << c.name << " parsed without an error";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "bad.xml");
        EXPECT_EQ(e.line(), c.line) << e.what();
        EXPECT_THAT(e.what(), HasSubstr(c.phrase));
        EXPECT_THAT(e.what(), HasSubstr(c.phrase2));
        const std::string prefix = "bad.xml:" + std::to_string(c.line) + ": ";
        EXPECT_EQ(std::string(e.what()).substr(0, prefix.size()), prefix);
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
    }
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, TopoCommModelBad,
    ::testing::Values(
        // <point-to-point>
        BadCase{"p2p_bad_scope",
                R"(<comm-model model="simple"><point-to-point scope="node"/></comm-model>)", 2,
                "<point-to-point> attribute 'scope': 'node' is not valid",
                "expected intra_node or inter_node"},
        BadCase{"p2p_no_scope", R"(<comm-model model="simple"><point-to-point/></comm-model>)", 2,
                "<point-to-point> is missing required attribute 'scope'"},
        BadCase{"p2p_twice",
                "<comm-model model=\"simple\">\n<point-to-point scope=\"intra_node\"><point "
                "size=\"1KiB\" bandwidth=\"1GB/s\"/></point-to-point>\n<point-to-point "
                "scope=\"intra_node\"/></comm-model>",
                4, "second <point-to-point scope=\"intra_node\">", "the first is on line 3"},
        BadCase{"p2p_empty",
                R"(<comm-model model="simple"><point-to-point scope="inter_node"/></comm-model>)",
                2, "<point-to-point> without <point> elements"},
        BadCase{"p2p_not_rising",
                "<comm-model model=\"simple\"><point-to-point scope=\"intra_node\">\n<point "
                "size=\"1MiB\" bandwidth=\"1GB/s\"/>\n<point size=\"1KiB\" "
                "bandwidth=\"1GB/s\"/></point-to-point></comm-model>",
                4, "'1KiB' is not larger than the previous point's '1MiB' (line 3)"},
        BadCase{
            "p2p_zero_size",
            R"(<comm-model model="simple"><point-to-point scope="intra_node"><point size="0B" bandwidth="1GB/s"/></point-to-point></comm-model>)",
            2, "<point> attribute 'size': expected a size larger than 0B"},
        BadCase{
            "p2p_text",
            R"(<comm-model model="simple"><point-to-point scope="intra_node">x</point-to-point></comm-model>)",
            2, "unexpected content in <point-to-point>; expected only <point> elements"},
        // <comm-model> itself
        BadCase{"missing_model", R"(<comm-model latency="1us"/>)", 2,
                "<comm-model> is missing required attribute 'model'"},
        BadCase{"empty_model", R"(<comm-model model=""/>)", 2,
                "<comm-model> attribute 'model' must not be empty"},
        BadCase{"unknown_attribute", R"(<comm-model model="simple" bandwith="1GB/s"/>)", 2,
                "<comm-model> has unknown attribute 'bandwith' (did you mean 'bandwidth'?)",
                "valid attributes: model, latency, bandwidth, intra-latency, intra-bandwidth, "
                "buses, in-links, out-links, collectives"},
        BadCase{"duplicate_attribute", R"(<comm-model model="simple" buses="2" buses="3"/>)", 2,
                "<comm-model> has attribute 'buses' twice"},
        BadCase{"second_element",
                "<comm-model model=\"simple\"/>\n<comm-model model=\"bus_only\"/>", 3,
                "second <comm-model> element (the first is on line 2)", "expected at most one"},
        BadCase{"latency_without_unit", R"(<comm-model model="simple" latency="1.5"/>)", 2,
                "<comm-model> attribute 'latency': '1.5': missing unit", "expected a time"},
        BadCase{"negative_intra_latency", R"(<comm-model model="simple" intra-latency="-300ns"/>)",
                2, "<comm-model> attribute 'intra-latency': '-300ns'", "without a sign"},
        BadCase{"bare_zero_bandwidth", R"(<comm-model model="simple" bandwidth="0"/>)", 2,
                "<comm-model> attribute 'bandwidth': '0' is not valid",
                "expected a finite positive bandwidth"},
        BadCase{"zero_intra_bandwidth", R"(<comm-model model="simple" intra-bandwidth="0GB/s"/>)",
                2, "<comm-model> attribute 'intra-bandwidth': '0GB/s'",
                "expected a positive bandwidth"},
        BadCase{"unlimited_bandwidth", R"(<comm-model model="simple" bandwidth="unlimited"/>)", 2,
                "<comm-model> attribute 'bandwidth': 'unlimited' is not valid",
                "expected a finite positive bandwidth"},
        BadCase{"infinite_intra_bandwidth", R"(<comm-model model="simple" intra-bandwidth="Inf"/>)",
                2, "<comm-model> attribute 'intra-bandwidth': 'Inf' is not valid",
                "expected a finite positive bandwidth"},
        BadCase{"bandwidth_bad_unit", R"(<comm-model model="simple" bandwidth="1.25GB"/>)", 2,
                "<comm-model> attribute 'bandwidth': '1.25GB': unknown unit 'GB'",
                "expected a bandwidth with a unit"},
        BadCase{"zero_buses", R"(<comm-model model="bus_only" buses="0"/>)", 2,
                "<comm-model> attribute 'buses': expected at least 1 bus, got 0"},
        BadCase{"too_many_buses", R"(<comm-model model="bus_only" buses="4294967296"/>)", 2,
                "<comm-model> attribute 'buses': 4294967296 is too many"},
        BadCase{"zero_in_links", R"(<comm-model model="simple" in-links="0"/>)", 2,
                "<comm-model> attribute 'in-links': expected at least 1 link, got 0"},
        BadCase{"out_links_not_a_count", R"(<comm-model model="simple" out-links="1.5"/>)", 2,
                "<comm-model> attribute 'out-links': '1.5': expected a whole number"},
        BadCase{"bad_collectives", R"(<comm-model model="simple" collectives="simulated"/>)", 2,
                "<comm-model> attribute 'collectives': 'simulated' is not valid",
                "expected analytic or messages"},
        // An enumerated value one letter off is suggested (simulator/suggest.hpp, not_one_of).
        BadCase{"collectives_misspelt", R"(<comm-model model="simple" collectives="mesages"/>)", 2,
                "'mesages' is not valid (did you mean 'messages'?); expected analytic or messages"},
        BadCase{"scope_misspelt",
                R"(<comm-model model="simple"><point-to-point scope="inter_nod"/></comm-model>)", 2,
                "(did you mean 'inter_node'?); expected intra_node or inter_node"},
        BadCase{
            "direction_misspelt",
            R"(<comm-model model="simple"><point-to-point scope="inter_node" direction="bth"/></comm-model>)",
            2, "'bth' is not valid (did you mean 'both'?); expected one-way, both or concurrent"},
        BadCase{"unknown_child", "<comm-model model=\"simple\">\n<link in=\"2\"/>\n</comm-model>",
                3, "unknown element <link> in <comm-model>",
                "expected one of: node-type, collective"},
        BadCase{"text_content", "<comm-model model=\"simple\">\n  fast\n</comm-model>", 3,
                "unexpected text in <comm-model>", "expected only elements: node-type, collective"},
        // <node-type> entries
        BadCase{"node_type_unknown",
                "<comm-model model=\"simple\">\n<node-type name=\"gpu\"/>\n</comm-model>", 3,
                "<node-type> attribute 'name': unknown node-type 'gpu'",
                "declared node-types: fat"},
        BadCase{"node_type_missing_name",
                "<comm-model model=\"simple\">\n<node-type in-links=\"2\"/>\n</comm-model>", 3,
                "<node-type> is missing required attribute 'name'"},
        BadCase{"node_type_empty_name",
                "<comm-model model=\"simple\">\n<node-type name=\"\"/>\n</comm-model>", 3,
                "<node-type> attribute 'name' must not be empty"},
        BadCase{"node_type_twice",
                "<comm-model model=\"simple\">\n<node-type name=\"fat\"/>\n"
                "<node-type name=\"fat\" in-links=\"2\"/>\n</comm-model>",
                4, "node-type 'fat' already has a <node-type> in <comm-model> (line 3)",
                "expected at most one per node-type"},
        BadCase{"node_type_unknown_attribute",
                "<comm-model model=\"simple\">\n<node-type name=\"fat\" memory=\"1GiB\"/>\n"
                "</comm-model>",
                3, "<node-type> has unknown attribute 'memory'",
                "valid attributes: name, in-links, out-links, latency, bandwidth"},
        BadCase{"node_type_zero_out_links",
                "<comm-model model=\"simple\">\n<node-type name=\"fat\" out-links=\"0\"/>\n"
                "</comm-model>",
                3, "<node-type> attribute 'out-links': expected at least 1 link, got 0"},
        BadCase{"node_type_zero_in_links",
                "<comm-model model=\"simple\">\n<node-type name=\"fat\" in-links=\"0\"/>\n"
                "</comm-model>",
                3, "<node-type> attribute 'in-links': expected at least 1 link, got 0"},
        BadCase{"node_type_latency_bad_unit",
                "<comm-model model=\"simple\">\n<node-type name=\"fat\" latency=\"200 nsec\"/>\n"
                "</comm-model>",
                3, "<node-type> attribute 'latency': '200 nsec': unknown unit 'nsec'"},
        BadCase{"node_type_unlimited_bandwidth",
                "<comm-model model=\"simple\">\n<node-type name=\"fat\" bandwidth=\"infinite\"/>\n"
                "</comm-model>",
                3, "<node-type> attribute 'bandwidth': 'infinite' is not valid",
                "expected a finite positive bandwidth"},
        BadCase{"node_type_with_content",
                "<comm-model model=\"simple\">\n<node-type name=\"fat\">\n"
                "<socket name=\"s0\" cores=\"1\" speed=\"1G\"/></node-type>\n</comm-model>",
                4, "unexpected content in <node-type>; expected an empty element"},
        // <collective> entries and their points
        BadCase{"collective_missing_operation",
                "<comm-model model=\"simple\">\n<collective scaling=\"linear\"/>\n</comm-model>", 3,
                "<collective> is missing required attribute 'operation'"},
        BadCase{"collective_empty_operation",
                "<comm-model model=\"simple\">\n<collective operation=\"\"/>\n</comm-model>", 3,
                "<collective> attribute 'operation' must not be empty"},
        BadCase{"collective_bad_scaling",
                "<comm-model model=\"simple\">\n"
                "<collective operation=\"bcast\" scaling=\"quadratic\"/>\n</comm-model>",
                3, "<collective> attribute 'scaling': 'quadratic' is not valid",
                "expected constant, linear or logarithmic"},
        BadCase{"collective_unknown_attribute",
                "<comm-model model=\"simple\">\n"
                "<collective operation=\"bcast\" algorithm=\"binomial\"/>\n</comm-model>",
                3, "<collective> has unknown attribute 'algorithm'",
                "valid attributes: operation, scaling, ranks"},
        BadCase{"collective_twice",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\"/>\n"
                "<collective operation=\"allreduce\"/>\n"
                "<collective operation=\"bcast\" scaling=\"linear\"/>\n</comm-model>",
                5,
                "second <collective> for operation 'bcast' in <comm-model> (the first is on "
                "line 3)",
                "expected at most one per operation"},
        BadCase{"collective_unknown_child",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\" ranks=\"4\">\n"
                "<sample size=\"1KiB\" bandwidth=\"1GB/s\"/>\n</collective>\n</comm-model>",
                4, "unexpected content in <collective>", "expected only <point> elements"},
        BadCase{"collective_text",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\">\nfast\n"
                "</collective>\n</comm-model>",
                4, "unexpected content in <collective>", "expected only <point> elements"},
        BadCase{"points_without_ranks",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\">\n"
                "<point size=\"1KiB\" bandwidth=\"1GB/s\"/>\n</collective>\n</comm-model>",
                3, "<collective> has <point> elements but no 'ranks'", "ranks=\"N\""},
        BadCase{"ranks_without_points",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\" ranks=\"8\"/>\n"
                "</comm-model>",
                3, "<collective> attribute 'ranks' without <point> elements"},
        BadCase{"zero_ranks",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\" ranks=\"0\">\n"
                "<point size=\"1KiB\" bandwidth=\"1GB/s\"/>\n</collective>\n</comm-model>",
                3, "<collective> attribute 'ranks': expected at least 1 rank, got 0"},
        BadCase{"points_equal_sizes",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\" ranks=\"8\">\n"
                "<point size=\"1024B\" bandwidth=\"1GB/s\"/>\n"
                "<point size=\"1KiB\" bandwidth=\"2GB/s\"/>\n</collective>\n</comm-model>",
                5,
                "<point> attribute 'size': '1KiB' is not larger than the previous point's "
                "'1024B' (line 4)",
                "expected sizes strictly rising"},
        BadCase{"points_falling_sizes",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\" ranks=\"8\">\n"
                "<point size=\"1KiB\" bandwidth=\"1GB/s\"/>\n"
                "<point size=\"1MiB\" bandwidth=\"2GB/s\"/>\n"
                "<point size=\"64KiB\" bandwidth=\"3GB/s\"/>\n</collective>\n</comm-model>",
                6, "'64KiB' is not larger than the previous point's '1MiB' (line 5)",
                "expected sizes strictly rising"},
        BadCase{"point_zero_bandwidth",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\" ranks=\"8\">\n"
                "<point size=\"1KiB\" bandwidth=\"0MB/s\"/>\n</collective>\n</comm-model>",
                4, "<point> attribute 'bandwidth': '0MB/s'", "expected a positive bandwidth"},
        BadCase{"point_unlimited_bandwidth",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\" ranks=\"8\">\n"
                "<point size=\"1KiB\" bandwidth=\"unlimited\"/>\n</collective>\n</comm-model>",
                4, "<point> attribute 'bandwidth': 'unlimited' is not valid",
                "expected a finite positive bandwidth"},
        BadCase{"point_missing_size",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\" ranks=\"8\">\n"
                "<point bandwidth=\"1GB/s\"/>\n</collective>\n</comm-model>",
                4, "<point> is missing required attribute 'size'"},
        BadCase{"point_missing_bandwidth",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\" ranks=\"8\">\n"
                "<point size=\"1KiB\"/>\n</collective>\n</comm-model>",
                4, "<point> is missing required attribute 'bandwidth'"},
        BadCase{"point_size_without_unit",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\" ranks=\"8\">\n"
                "<point size=\"1024\" bandwidth=\"1GB/s\"/>\n</collective>\n</comm-model>",
                4, "<point> attribute 'size': '1024': missing unit", "expected a size"},
        BadCase{"point_unknown_attribute",
                "<comm-model model=\"simple\">\n<collective operation=\"bcast\" ranks=\"8\">\n"
                "<point size=\"1KiB\" bandwidth=\"1GB/s\" ranks=\"8\"/>\n</collective>\n"
                "</comm-model>",
                4, "<point> has unknown attribute 'ranks'", "valid attributes: size, bandwidth"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::topo
