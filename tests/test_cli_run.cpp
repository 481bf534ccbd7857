// The clustersim command as users run it: outputs, JSON fields, determinism, and one test
// per kind of bad input (one line on stderr naming the file/flag and what was expected,
// exit code 2).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"

namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;

TEST(Cli, ValidatePrintsComponentCounts) {
    const Result r = run("validate " + example("figure1-westmere-10.xml"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("nodes"), std::string::npos);
    EXPECT_NE(r.out.find("routes"), std::string::npos);
}

TEST(Cli, RunOnFigure1PrintsAReadableSummary) {
    const Result r =
        run("run " + example("figure1-westmere-10.xml") + " --app pingpong:size=1MiB,iterations=5");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("simulated time"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("one-way bandwidth"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("events"), std::string::npos) << r.out;
}

TEST(Cli, JsonHasTheDocumentedFieldsAndRunsAreDeterministic) {
    const std::string args = "run " + example("star-16.xml") + " --app stream:size=10MiB --json";
    const Result a = run(args), b = run(args);
    ASSERT_EQ(a.code, 0) << a.err;
    auto ja = nlohmann::json::parse(a.out);
    auto jb = nlohmann::json::parse(b.out);
    for (const char* key :
         {"simulated_time_s", "events", "wall_time_s", "cpu_time_s", "ranks", "peak_memory_bytes"})
        EXPECT_TRUE(ja.contains(key)) << key;
    EXPECT_EQ(ja["ranks"], 2);
    EXPECT_GT(ja["events"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(ja["network"]["bytes_sent"], ja["network"]["bytes_delivered"]);
    for (auto* j : {&ja, &jb})
        for (const char* volatile_key :
             {"wall_time_s", "cpu_time_s", "events_per_s", "peak_memory_bytes", "model_load_s",
              "phases_s"})
            j->erase(volatile_key);
    EXPECT_EQ(ja, jb);
}

// The wall time by phase: each phase once, none negative, the total their sum, the event loop
// and the model load the figures reported beside them; --out's files timed before the JSON.
TEST(Cli, PhasesAddUpToTheirTotal) {
    const std::string out = temp_path("phases");
    const Result r = run("run " + example("star-16.xml") +
                         " --app bcast:size=1MiB --ranks 16 --json --out " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto& p = j.at("phases_s");
    double sum = 0;
    for (const char* k : {"start", "model_load", "programs_load", "placement", "set_up",
                          "event_loop", "results", "report", "outputs"}) {
        ASSERT_TRUE(p.contains(k)) << k;
        EXPECT_GE(p.at(k).get<double>(), 0.0) << k;
        sum += p.at(k).get<double>();
    }
    EXPECT_EQ(p.size(), 10u);
    EXPECT_NEAR(p.at("total").get<double>(), sum, 1e-12);
    EXPECT_EQ(p.at("event_loop"), j.at("wall_time_s"));
    EXPECT_EQ(p.at("model_load"), j.at("model_load_s"));
    EXPECT_GT(p.at("outputs").get<double>(), 0.0);  // the timeline and statistics were written
    // The text summary says the same phases.
    const Result t = run("run " + example("star-16.xml") + " --app bcast:size=1MiB --ranks 16");
    ASSERT_EQ(t.code, 0) << t.err;
    EXPECT_NE(t.out.find("  wall time by phase: start "), std::string::npos) << t.out;
}

// --mpi chooses per call as the library would; the summary and --json say which.
TEST(Cli, MpiProfileChoosesAndReportsTheAlgorithm) {
    const std::string args =
        "run " + example("star-16.xml") + " --app scan:size=8B,iterations=3 --ranks 16 ";
    const Result j = run(args + "--mpi openmpi_4.1 --json");
    ASSERT_EQ(j.code, 0) << j.err;
    const auto json = nlohmann::json::parse(j.out);
    EXPECT_EQ(json["collective_algorithms"], nlohmann::json({{"scan/linear", 3}}));
    EXPECT_EQ(json["operations"]["Scan"]["count"], 48);
    const Result t = run(args + "--mpi mpich_4");
    ASSERT_EQ(t.code, 0) << t.err;
    EXPECT_NE(t.out.find("scan/recursive_doubling"), std::string::npos) << t.out;
    // The timeline names each call's algorithm: 3 calls on each of the 16 ranks.
    const std::string out = temp_path("mpi-profile-out");
    const Result o = run(args + "--mpi mpich_4 --out " + out);
    ASSERT_EQ(o.code, 0) << o.err;
    const std::string timeline = slurp(out + "/timeline.json");
    std::size_t n = 0;
    for (std::size_t at = 0;
         (at = timeline.find(R"("algorithm":"scan/recursive_doubling")", at)) != std::string::npos;
         ++at)
        ++n;
    EXPECT_EQ(n, 48u);
}

TEST(CliBadInput, BadSegmentInTheAlgorithmFlag) {
    const std::string run = "run " + example("star-16.xml") + " --app bcast:size=1MiB --ranks 4 ";
    expect_bad_input(run + "--algorithm bcast=pipeline:segment=0B",
                     "--algorithm: 'bcast=pipeline:segment=0B': segment: expected a positive size");
    expect_bad_input(run + "--algorithm bcast=pipeline:segsize=1KiB",
                     "expected ALGORITHM:segment=SIZE, got ':segsize=1KiB'");
    expect_bad_input(run + "--algorithm bcast=pipeline:segment=12", "segment: ");
}

TEST(CliBadInput, UnknownMpiProfile) {
    expect_bad_input(
        "run " + example("star-16.xml") + " --app bcast:size=1MiB --ranks 4 --mpi lam",
        "--mpi: unknown MPI profile 'lam'; expected one of: openmpi_4.1, mpich_4, simgrid");
}

TEST(Cli, GeneratedModelsValidateAndRun) {
    for (const std::string kind :
         {"star --nodes 8", "fat-tree --down 4,2 --up 1,2", "torus --dims 3,3"}) {
        const Result g = run("generate " + kind + " --sockets 2 --cores 4 --nic analytical");
        ASSERT_EQ(g.code, 0) << kind << g.err;
        const std::string path = write_temp("gen.xml", g.out);
        const Result v = run("validate " + path);
        EXPECT_EQ(v.code, 0) << kind << v.err;
        const Result r = run("run " + path + " --app pingpong:size=64KiB --json");
        EXPECT_EQ(r.code, 0) << kind << r.err;
    }
}

// The report names the model that ran: a model file whose switches forward cut-through runs
// the cut_through packet model, and --json says so (it said "packet").
TEST(Cli, AModelFileForwardingCutThroughIsReportedAsCutThrough) {
    // Generated storing and forwarding (the switches and the NICs), then the switches' rule
    // changed by hand.
    const Result g = run("generate star --nodes 2 --forwarding store_and_forward");
    ASSERT_EQ(g.code, 0) << g.err;
    std::string xml = g.out;
    const std::string tag = "<network forwarding=\"store_and_forward\"";
    ASSERT_NE(xml.find(tag), std::string::npos);
    xml.replace(xml.find(tag), tag.size(), "<network forwarding=\"cut_through\"");
    const std::string path = write_temp("cut.xml", xml);
    const Result r = run("run " + path + " --app pingpong:size=1MiB --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("network").at("model"), "cut_through");
    // and it is the cut_through model's result, the same as asking for it by flag
    const Result f = run("run " + path + " --app pingpong:size=1MiB --json --network cut_through");
    ASSERT_EQ(f.code, 0) << f.err;
    EXPECT_EQ(nlohmann::json::parse(f.out).at("simulated_time_ps"), j.at("simulated_time_ps"));
}

TEST(CliBadInput, UnknownAppListsTheValidOnes) {
    expect_bad_input("run " + example("two-nodes.xml") + " --app frobnicate:size=1MiB",
                     "expected one of: pingpong");
}

TEST(CliBadInput, RanksForATraceAppAreRefusedNotIgnored) {
    // A trace brings its own ranks: --ranks counts the built-in apps only, and a --ranks
    // beyond them was silently unused (the run took the trace's ranks).
    const std::string trace =
        std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/data/traces/every-kind.trace";
    expect_bad_input("run " + example("star-16.xml") + " --app trace:" + trace + " --ranks 4",
                     "--ranks: given 1 time for 0 built-in apps; a trace: app brings its own "
                     "ranks");
    expect_bad_input("run " + example("star-16.xml") + " --app trace:" + trace +
                         " --app bcast:size=1KiB --ranks 2 --ranks 4",
                     "--ranks: given 2 times for 1 built-in app;");
    // One --ranks for the one built-in app beside a trace passes this check (the fixture
    // then stops at its own first record that names an uncreated communicator).
    const Result r = run("run " + example("star-16.xml") + " --app trace:" + trace +
                         " --app bcast:size=1KiB --ranks 2 --oversubscribe --json");
    EXPECT_EQ(r.err.find("--ranks"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("every-kind.trace: rank 1 uses communicator 2"), std::string::npos)
        << r.err;
}

TEST(CliBadInput, UnknownAppParameterListsTheValidOnes) {
    expect_bad_input(
        "run " + example("two-nodes.xml") + " --app pingpong:bytes=1MiB",
        "unknown parameter 'bytes' for app 'pingpong', expected one of: size, iterations");
}

TEST(CliBadInput, MissingAppParameter) {
    expect_bad_input("run " + example("two-nodes.xml") + " --app stream",
                     "missing parameter 'size'");
}

TEST(CliBadInput, SizeWithoutUnit) {
    expect_bad_input("run " + example("two-nodes.xml") + " --app stream:size=100", "missing unit");
}

TEST(CliBadInput, SizeWithUnknownUnit) {
    expect_bad_input("run " + example("two-nodes.xml") + " --app stream:size=100parsecs",
                     "unknown unit");
}

TEST(CliBadInput, UnknownFlag) {
    expect_bad_input("run " + example("two-nodes.xml") + " --app stream:size=1KiB --frobnicate",
                     "--frobnicate");
}

TEST(CliBadInput, UnknownPlacement) {
    expect_bad_input(
        "run " + example("two-nodes.xml") + " --app stream:size=1KiB --placement scatter",
        "unknown placement 'scatter'");
}

TEST(CliBadInput, TooFewRanks) {
    expect_bad_input("run " + example("two-nodes.xml") + " --app pingpong:size=1KiB --ranks 1",
                     "needs at least 2 ranks");
}

TEST(CliBadInput, UnreadableModelFile) {
    expect_bad_input("run /nonexistent/model.xml --app stream:size=1KiB",
                     "/nonexistent/model.xml: cannot read");
}

TEST(CliBadInput, MalformedXmlNamesFileAndLine) {
    const std::string path =
        write_temp("malformed.xml", "<cluster name=\"x\">\n  <switch name=\"sw\">\n</cluster>\n");
    expect_bad_input("validate " + path, path + ":");
}

TEST(CliBadInput, CommModelErrorNamesFileAndLine) {
    const std::string path = write_temp("comm.xml", R"(<cluster name="comm">
  <node-type name="t" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <node name="n0" type="t"/>
  <comm-model model="simple">
    <collective operation="bcast" ranks="8">
      <point size="1MiB" bandwidth="1GB/s"/>
      <point size="1KiB" bandwidth="2GB/s"/>
    </collective>
  </comm-model>
</cluster>
)");
    expect_bad_input("validate " + path,
                     path +
                         ":7: <point> attribute 'size': '1KiB' is not larger than the "
                         "previous point's '1MiB' (line 6); expected sizes strictly rising");
}

TEST(CliBadInput, BadUnitInGenerateFlag) {
    expect_bad_input("generate star --link-bandwidth 10Gbit", "--link-bandwidth");
}

TEST(CliBadInput, RankOnANodeWithoutRouteToTheOthers) {
    // n1 has no cable to the switch: rank 1 (round_robin) lands on it.
    const std::string path = write_temp("island.xml", R"(<cluster name="island">
  <network granularity="100KiB"/>
  <node-type name="n" memory="1GiB">
    <socket name="s0" cores="1" speed="1G"/><memory-node name="mem"/><nic name="nic"/>
    <cable from="s0" to="mem" latency="1us" bandwidth="1GB/s"/>
    <cable from="mem" to="nic" latency="1us" bandwidth="1GB/s"/>
  </node-type>
  <node name="n0" type="n"/>
  <node name="n1" type="n"/>
  <switch name="sw"/>
  <cable from="n0.nic" to="sw" latency="1us" bandwidth="1GB/s"/>
</cluster>
)");
    expect_bad_input(
        "run " + path + " --app stream:size=1KiB",
        path + ":9: node 'n1' hosts rank 1 but has no route to or from node 'n0' (rank 0)");
}

TEST(CliBadInput, UnknownCollectiveAlgorithmListsTheValidOnes) {
    expect_bad_input("run " + example("star-16.xml") +
                         " --app bcast:size=1MiB --ranks 4 --algorithm bcast=hypercube",
                     "collective 'bcast' has no algorithm 'hypercube'; valid algorithms: ");
}

TEST(CliBadInput, CollectiveRootOutOfRange) {
    expect_bad_input("run " + example("star-16.xml") + " --app reduce:size=1MiB,root=4 --ranks 4",
                     "root 4 is out of range for 4 ranks");
}

TEST(CliBadInput, CollectiveSizeWithoutUnit) {
    expect_bad_input("run " + example("star-16.xml") + " --app allreduce:size=1024 --ranks 4",
                     "missing unit");
}

TEST(CliBadInput, PlacementMapNamingAMissingNode) {
    const std::string map = write_temp("ranks.map", "0 n0\n1 n99\n");
    expect_bad_input(
        "run " + example("star-16.xml") + " --app pingpong:size=1KiB --placement map:" + map,
        map + ":2: node 'n99' is not in the model");
}

TEST(Cli, CollectiveJsonHasPerOperationTotals) {
    const Result r =
        run("run " + example("star-16.xml") +
            " --app bcast:size=1MiB,iterations=3 --ranks 8 --algorithm bcast=binomial --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["operations"]["Bcast"]["count"], 24);
    EXPECT_EQ(j["operations"]["Bcast"]["bytes"], 24 * (1 << 20));
}

TEST(CliBadInput, UnknownNetworkModel) {
    expect_bad_input(
        "run " + example("star-16.xml") + " --app pingpong:size=1KiB --network wormhole",
        "--network: unknown network model 'wormhole', expected one of: packet, cut_through, fluid, "
        "simple, bus_only, incoming_link_only, outgoing_link_only, contention, pmac");
}

TEST(Cli, EveryNetworkModelRunsTheSameApp) {
    for (const char* model : {"packet", "cut_through", "fluid"}) {
        const Result r = run("run " + example("dragonfly-72.xml") +
                             " --app allreduce:size=1MiB --ranks 72 --json --network " + model);
        ASSERT_EQ(r.code, 0) << model << r.err;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["network"]["bytes_sent"], j["network"]["bytes_delivered"]) << model;
        EXPECT_GT(j["simulated_time_s"].get<double>(), 0.0) << model;
    }
}

TEST(Cli, AnalyticModelExampleValidatesAndBracketsThePacketModel) {
    const Result v = run("validate " + example("psins-16.xml"));
    ASSERT_EQ(v.code, 0) << v.err;
    EXPECT_NE(v.out.find("network model    analytic (bus_only; 4 buses, 1 in / 1 out links per "
                         "node, 1 node types set apart; latency from the graph, bandwidth from "
                         "the graph; collectives timed as a whole)"),
              std::string::npos)
        << v.out;
    // The same alltoall under simple (the lower bound), the model's packet network, and one
    // bus that every inter-node message must queue for.
    auto simulated = [](const std::string& network) {
        const Result r = run("run " + example("psins-16.xml") +
                             " --app alltoall:size=64KiB --ranks 16 --json --network " + network);
        EXPECT_EQ(r.code, 0) << network << ": " << r.err;
        const auto j = nlohmann::json::parse(r.out);
        return j["simulated_time_ps"].get<std::int64_t>();
    };
    const auto simple = simulated("simple");
    const auto packet = simulated("packet");
    const auto one_bus = simulated("bus_only:buses=1,collectives=messages");
    EXPECT_LT(simple, packet);
    EXPECT_LT(simple, one_bus);
    // 240 messages of 64 KiB one at a time: 228 touch a thin node (12.5 GB/s bottleneck),
    // the 12 between fat nodes go at 25 GB/s.
    EXPECT_GE(one_bus,
              static_cast<std::int64_t>((228.0 * 65536 / 12.5e9 + 12.0 * 65536 / 25e9) * 1e12));
    const auto j = nlohmann::json::parse(run("run " + example("psins-16.xml") +
                                             " --app alltoall:size=64KiB --ranks 16 --json "
                                             "--network bus_only:buses=1,collectives=messages")
                                             .out);
    EXPECT_EQ(j["network"]["model"], "bus_only:buses=1,collectives=messages");
    const auto own = nlohmann::json::parse(
        run("run " + example("psins-16.xml") + " --app alltoall:size=64KiB --ranks 16 --json").out);
    EXPECT_EQ(own["network"]["model"], "bus_only") << "the model's own <comm-model>";
    EXPECT_GT(j["network"]["messages_waited"].get<int>(), 0);
}

TEST(Cli, AnAlgorithmAnAnalyticModelDoesNotRunIsNamedInANote) {
    // simple times a collective call as a whole: --algorithm and --mpi choose nothing there,
    // and the run says so on stderr; with collectives=messages the algorithm runs, no note.
    const std::string base =
        "run " + example("star-16.xml") + " --app bcast:size=1MiB --ranks 8 --json";
    const Result whole =
        run(base + " --network simple --algorithm bcast=binomial --mpi openmpi_4.1");
    ASSERT_EQ(whole.code, 0) << whole.err;
    EXPECT_NE(whole.err.find("clustersim: note: --algorithm bcast=binomial, --mpi openmpi_4.1 not "
                             "used: the simple network model times each collective call as a "
                             "whole; add collectives=messages to --network"),
              std::string::npos)
        << whole.err;
    EXPECT_TRUE(nlohmann::json::parse(whole.out)["collective_algorithms"].empty());
    const Result messages =
        run(base + " --network simple:collectives=messages --algorithm bcast=binomial");
    ASSERT_EQ(messages.code, 0) << messages.err;
    EXPECT_EQ(messages.err.find("note:"), std::string::npos) << messages.err;
    EXPECT_FALSE(nlohmann::json::parse(messages.out)["collective_algorithms"].empty());
    // Not analytic: the packet model runs every algorithm, no note.
    const Result packet = run(base + " --algorithm bcast=binomial");
    ASSERT_EQ(packet.code, 0) << packet.err;
    EXPECT_EQ(packet.err.find("note:"), std::string::npos) << packet.err;
}

TEST(Cli, TraceFlagsWithoutATraceAndPerRankWithoutJsonAreNotSilentlyUnused) {
    // --format, --skip-unknown and --traced-speed act on trace: apps only; without one they
    // passed unused in silence. Now a note names them (the run goes on), a bad --format is
    // refused even so, and --per-rank (which only adds to --json's object) needs --json.
    const std::string base = "run " + example("star-16.xml") + " --app bcast:size=1KiB --ranks 4";
    const Result unused = run(base + " --format otf2 --skip-unknown --traced-speed 2.8G");
    ASSERT_EQ(unused.code, 0) << unused.err;
    EXPECT_EQ(unused.err,
              "clustersim: note: --format otf2, --skip-unknown, --traced-speed 2.8G not used: no "
              "--app is a trace: app\n");
    expect_bad_input(base + " --format otf3", "--format: unknown trace format 'otf3'");
    expect_bad_input(base + " --per-rank", "--per-rank requires --json");
    const Result used = run(base + " --per-rank --json");
    ASSERT_EQ(used.code, 0) << used.err;
    EXPECT_EQ(used.err.find("note:"), std::string::npos) << used.err;
    EXPECT_TRUE(nlohmann::json::parse(used.out).contains("per_rank")) << used.out.substr(0, 300);
}
}  // namespace CLUSTERSIM_TEST_FILE
