// `clustersim jitter` (jitSim fast path and the Garg–De mode) and `clustersim jitter-trace`
// end to end: jitSim's Figure 2 through the command line, the JSON/CSV/SVG outputs, the
// max_of_distributions bounds and anomalous nodes, and one check per bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

#include "cli_fixtures.hpp"

namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;
using json = nlohmann::json;

// jitSim Figure 2's ten tuples <jitter, compute>, no frequency header: cycles only.
const char* kFigure2 =
    "# jitSim Figure 2\n"
    "10 50\n5 30\n25 20\n5 10\n15 100\n20 300\n10 20\n60 60\n5 20\n10 70\n";

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        if (!l.empty()) out.push_back(l);
    return out;
}

TEST(CliJitter, Figure2PerTaskThroughTheCommandLine) {
    const std::string trace = write_temp("fig2.jtr", kFigure2);
    const Result r = run("jitter --trace " + trace +
                         " --work 100cycles --phases 1 --tasks 2 --start-indices 0,6 "
                         "--barrier none --per-task --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    ASSERT_EQ(j.at("curves").size(), 1u);
    const json& c = j.at("curves")[0];
    EXPECT_EQ(c.at("policy"), "explicit");
    EXPECT_EQ(c.at("work_cycles"), 100);
    ASSERT_EQ(c.at("results").size(), 1u);
    const json& res = c.at("results")[0];
    EXPECT_EQ(res.at("tasks"), 2);
    EXPECT_DOUBLE_EQ(res.at("mean_phase_cycles").get<double>(), 165.0);
    EXPECT_EQ(res.at("noiseless_phase_cycles"), 100);
    EXPECT_NEAR(res.at("slowdown_percent").get<double>(), 65.0, 1e-9);
    EXPECT_FALSE(res.contains("mean_phase_s"));  // no frequency: cycles only
    const json& pt = res.at("per_task");
    ASSERT_EQ(pt.size(), 2u);
    EXPECT_EQ(pt[0].at("compute_cycles"), 100);
    EXPECT_EQ(pt[0].at("jitter_cycles"), 30);
    EXPECT_EQ(pt[0].at("wait_cycles"), 35);
    EXPECT_EQ(pt[0].at("total_cycles"), 165);
    EXPECT_EQ(pt[1].at("compute_cycles"), 100);
    EXPECT_EQ(pt[1].at("jitter_cycles"), 65);
    EXPECT_EQ(pt[1].at("wait_cycles"), 0);
    EXPECT_EQ(pt[1].at("total_cycles"), 165);
}

TEST(CliJitter, Figure2TableAloneTaskTakes130Cycles) {
    const std::string trace = write_temp("fig2.jtr", kFigure2);
    const Result r =
        run("jitter --trace " + trace + " --work 100cycles --phases 1 --tasks 1 --start-indices 0");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("130.0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("30.000"), std::string::npos) << r.out;  // slowdown %
    EXPECT_NE(r.out.find("slowdown %"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("µs"), std::string::npos) << "no frequency, no times:\n" << r.out;
}

TEST(CliJitter, WorkAsTimeNeedsAFrequency) {
    const std::string trace = write_temp("fig2.jtr", kFigure2);
    expect_bad_input(
        "jitter --trace " + trace + " --work 300us --phases 1 --tasks 2",
        "--work: '300us' is a time, but the trace " + trace + " has no frequency header");
    // With --frequency it is converted: 1 GHz × 50 ns = 50 cycles.
    const Result r = run("jitter --trace " + trace +
                         " --frequency 1GHz --work 50ns --phases 1 --tasks 1 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j.at("curves")[0].at("work_cycles"), 50);
    EXPECT_TRUE(j.at("curves")[0].at("results")[0].contains("mean_phase_s"));
}

// Misspelt policy and barrier names get a suggestion; the other separator reads as the name.
TEST(CliJitter, PolicyAndBarrierNamesSuggestAndReadEitherSeparator) {
    const std::string trace = write_temp("quiet2.jtr", "# frequency: 1GHz\n0 1000000\n");
    const std::string base = "jitter --trace " + trace + " --work 10us --phases 2 --tasks 1..4";
    expect_bad_input(base + " --policy synchronised", "(did you mean 'synchronized'?)");
    expect_bad_input(base + " --barrier binary_tre", "(did you mean 'binary_tree'?)");
    const Result r = run(base + " --barrier binary-tree --mpi-latency 1us --json");
    EXPECT_EQ(r.code, 0) << r.err;
}

TEST(CliJitter, NoJitterMeansNoSlowdown) {
    const std::string trace = write_temp("quiet.jtr", "# frequency: 1GHz\n0 1000000\n");
    const Result r = run("jitter --trace " + trace +
                         " --work 10us --phases 5 --tasks 1..1024 --policy "
                         "unsynchronized,synchronized --barrier binary_tree --mpi-latency 1us "
                         "--network-latency 500ns --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    ASSERT_EQ(j.at("curves").size(), 2u);
    for (const json& c : j.at("curves")) {
        ASSERT_EQ(c.at("results").size(), 11u);  // 1, 2, 4, …, 1024
        EXPECT_EQ(c.at("send_cycles"), 500);
        EXPECT_EQ(c.at("recv_cycles"), 500);
        for (const json& res : c.at("results"))
            EXPECT_DOUBLE_EQ(res.at("slowdown_percent").get<double>(), 0.0) << res.dump();
    }
}

TEST(CliJitter, JsonCsvAndSvgOutputs) {
    const std::string csv = temp_path("out.csv"), svg = temp_path("out.svg");
    const Result r =
        run("jitter --trace gen:periodic:period=1ms,duration=20us --trace "
            "gen:bernoulli:quantum=1ms,probability=0.05,duration=100us --frequency 2GHz "
            "--gen-length 200ms --work 100us --phases 10 --tasks 1..256 "
            "--policy unsynchronized,synchronized,coscheduled --window 900us,100us "
            "--barrier binary_tree --mpi-latency 2us --network-latency 1us --shm-latency 200ns "
            "--cores-per-node 4 --threads 2 --json --csv " +
            csv + " --svg " + svg);
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    ASSERT_EQ(j.at("curves").size(), 6u);  // 2 traces × 3 policies
    for (const json& c : j.at("curves")) {
        EXPECT_EQ(c.at("work_cycles"), 200000);
        EXPECT_EQ(c.at("network_latency_cycles"), 2000);
        EXPECT_EQ(c.at("shm_latency_cycles"), 400);
        ASSERT_EQ(c.at("results").size(), 9u);
        for (const json& res : c.at("results")) {
            EXPECT_GE(res.at("slowdown_percent").get<double>(), 0.0);
            EXPECT_GE(res.at("mean_phase_cycles").get<double>(),
                      res.at("noiseless_phase_cycles").get<double>());
            EXPECT_EQ(res.at("phase_cycles").size(), 10u);
            EXPECT_FALSE(res.contains("per_task"));
        }
    }
    const auto rows = lines_of(slurp(csv));
    ASSERT_EQ(rows.size(), 1u + 6 * 9);
    EXPECT_EQ(rows[0].rfind("curve,trace,policy,tasks,", 0), 0u) << rows[0];
    const std::string plot = slurp(svg);
    EXPECT_EQ(plot.rfind("<svg", 0), 0u);
    EXPECT_NE(plot.find("</svg>"), std::string::npos);
    EXPECT_NE(plot.find("slowdown (%)"), std::string::npos);
    EXPECT_NE(plot.find("(coscheduled)"), std::string::npos);
}

TEST(CliJitter, BadTraceFilesNameFileAndLine) {
    const std::string neg = write_temp("neg.jtr", "10 50\n-5 30\n");
    expect_bad_input("jitter --trace " + neg + " --work 10cycles --phases 1 --tasks 2",
                     neg + ":2:");
    const std::string word = write_temp("word.jtr", "10 50\n5 thirty\n");
    expect_bad_input("jitter --trace " + word + " --work 10cycles --phases 1 --tasks 2",
                     word + ":2:");
    const std::string empty = write_temp("empty.jtr", "# frequency: 1GHz\n");
    expect_bad_input("jitter --trace " + empty + " --work 10cycles --phases 1 --tasks 2", "empty");
}

TEST(CliJitter, BadFlags) {
    const std::string t = write_temp("fig2.jtr", kFigure2);
    const std::string base = "jitter --trace " + t + " --phases 1 ";
    expect_bad_input(base + "--work 10cycles --tasks 2 --start-indices 0,10",
                     "--start-indices: start index 10 is beyond the trace");
    // The trace has 680 compute cycles: a larger quantum is an error, not a wrap.
    expect_bad_input(base + "--work 681cycles --tasks 2",
                     "--work: 681 cycles of work per phase are more than all the compute cycles");
    expect_bad_input(base +
                         "--work 10cycles --tasks 2 --policy coscheduled --window "
                         "800cycles,100cycles",
                     "--window: coscheduled start: a high + low priority window of 900 units "
                     "is longer than the trace");
    expect_bad_input(base + "--work 10cycles --tasks 2 --policy coscheduled",
                     "--policy: coscheduled needs --window");
    expect_bad_input(base + "--work 10cycles --tasks 2,x", "--tasks: '2,x'");
    expect_bad_input(base + "--work 10cycles --tasks 0", "--tasks: '0'");
    expect_bad_input(base + "--work 10cycles --tasks 64..8", "--tasks: '64..8'");
    expect_bad_input(base + "--work 10cycles --tasks 2 --policy sync",
                     "--policy: unknown start policy 'sync'");
    expect_bad_input(base + "--work 10cycles --tasks 2 --barrier ring",
                     "--barrier: 'ring': expected none, binary_tree or kary_tree");
    expect_bad_input(base + "--work 10cycles --tasks 2 --mpi-latency 5cycles",
                     "--mpi-latency: only used with a tree barrier");
    expect_bad_input(base + "--work ten --tasks 2", "--work: 'ten'");
    expect_bad_input(base + "--work 10cycles --tasks 131072 --per-task",
                     "--per-task: per-task results are limited to 65,536 tasks");
    expect_bad_input(base + "--work 10cycles --tasks 2 --model fastest", "--model: 'fastest'");
    expect_bad_input("jitter --trace " + t + " --work 10cycles --tasks 2", "--phases");
}

// Garg–De: 32 processes on 4 nodes; node "slow" adds 400 µs to half of its samples.
std::string distribution_file() {
    std::string text = "process,node,value\n";
    for (int p = 0; p < 32; ++p) {
        const std::string node = p / 8 == 2 ? "slow" : "n" + std::to_string(p / 8);
        for (int i = 0; i < 100; ++i) {
            double us = 1000 + (i * 37 + p * 11) % 50;  // 1000–1049 µs
            if (node == "slow" && i % 2 == 0) us += 400;
            text += std::to_string(p) + "," + node + "," + std::to_string(us) + "us\n";
        }
    }
    return write_temp("dist.csv", text);
}

TEST(CliJitter, MaxOfDistributionsBoundsAndAnomalousNode) {
    const std::string dist = distribution_file(), csv = temp_path("max.csv");
    const Result r =
        run("jitter --model max_of_distributions --distributions " + dist +
            " --tasks 1,7,255,4096 --latency 2us --iterations 500 --json --csv " + csv);
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    ASSERT_EQ(j.at("results").size(), 4u);
    for (const json& res : j.at("results")) {
        const double mean = res.at("mean_s"), p50 = res.at("p50_s"), p90 = res.at("p90_s"),
                     p99 = res.at("p99_s"), p999 = res.at("p999_s"), mn = res.at("min_s"),
                     mx = res.at("max_s"), slack = res.at("slack_s");
        EXPECT_LE(mn, p50);
        EXPECT_LE(p50, p90);
        EXPECT_LE(p90, p99);
        EXPECT_LE(p99, p999);
        EXPECT_LE(p999, mx);
        // The mean is a floating-point sum: equal samples may round it by an ulp.
        EXPECT_LE(mn, mean * (1 + 1e-12));
        EXPECT_LE(mean, mx * (1 + 1e-12));
        EXPECT_GE(mn, 1000e-6 - 1e-12);
        EXPECT_LE(mx, 1450e-6 + 1e-12);
        EXPECT_DOUBLE_EQ(res.at("bound_lower_s").get<double>(), mean);
        EXPECT_NEAR(res.at("bound_upper_s").get<double>(), mean + slack, 1e-15);
        if (!res.at("exact").get<bool>()) {
            const double theta = res.at("theta_mean_s");
            EXPECT_GE(theta, mean - 1e-12);
            EXPECT_LE(theta, mean + slack + 1e-12);
        }
    }
    // N = 7 is a full binary tree of depth 2: slack = 2τ·2 = 8 µs; N = 1: no slack.
    EXPECT_DOUBLE_EQ(j.at("results")[0].at("slack_s").get<double>(), 0.0);
    EXPECT_NEAR(j.at("results")[1].at("slack_s").get<double>(), 8e-6, 1e-15);
    ASSERT_EQ(j.at("p99_per_process").size(), 32u);
    ASSERT_EQ(j.at("anomalous_nodes").size(), 1u);
    const json& a = j.at("anomalous_nodes")[0];
    EXPECT_EQ(a.at("node"), "slow");
    EXPECT_EQ(a.at("node_processes"), 8);
    EXPECT_EQ(a.at("processes"), json({16, 17, 18, 19, 20, 21, 22, 23}));
    EXPECT_EQ(lines_of(slurp(csv)).size(), 5u);

    const Result text = run("jitter --model max_of_distributions --distributions " + dist +
                            " --tasks 7 --latency 2us --iterations 200");
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("slow: 8 of its 8 processes"), std::string::npos) << text.out;
}

TEST(CliJitter, MaxOfDistributionsBadInputs) {
    const std::string dist = distribution_file();
    const std::string bad = write_temp("bad.csv", "process,node,value\n0,a,1ms\n0,a,-2ms\n");
    expect_bad_input(
        "jitter --model max_of_distributions --distributions " + bad + " --tasks 4 --latency 1us",
        bad + ":3: value '-2ms' is negative");
    expect_bad_input("jitter --model max_of_distributions --distributions " + dist + " --tasks 4",
                     "--latency: expected the one-way message latency");
    expect_bad_input(
        "jitter --model max_of_distributions --distributions " + dist + " --tasks 4 --latency fast",
        "--latency: 'fast'");
    expect_bad_input("jitter --model max_of_distributions --distributions " + dist +
                         " --tasks 4 --latency 1us --trace x.jtr",
                     "--trace: not used by --model max_of_distributions");
}

TEST(CliJitter, JitterTraceGenerateConvertInfo) {
    const std::string text = temp_path("g.jtr"), bin = temp_path("g.jtb"),
                      noise = temp_path("g.noise"), back = temp_path("back.jtr");
    Result r =
        run("jitter-trace generate --spec periodic:period=1ms,duration=10us --length 100ms "
            "--frequency 1GHz --out " +
            text);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("100,000,000 cycles (100 ms at 1 GHz), jitter 1.000 %"), std::string::npos)
        << r.out;
    for (const auto& [from, to] :
         {std::pair{text, bin}, std::pair{bin, noise}, std::pair{noise, back}}) {
        r = run("jitter-trace convert " + from + " " + to +
                (to == back ? std::string(" --frequency 1GHz") : std::string()));
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.out.find("jitter 1.000 %"), std::string::npos) << r.out;
    }
    r = run("jitter-trace info " + back);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("largest event: 10,000 cycles (10 µs)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[8,192, 16,384) cycles"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("100 jitter events"), std::string::npos) << r.out;

    expect_bad_input("jitter-trace generate --spec periodic:period=1ms --frequency 1GHz --out " +
                         temp_path("x.jtr"),
                     "--spec:");
    expect_bad_input(
        "jitter-trace generate --spec periodic:period=1ms,duration=10us "
        "--frequency fast --out " +
            temp_path("x.jtr"),
        "--frequency: 'fast'");
    const std::string fig2 = write_temp("fig2.jtr", kFigure2);
    expect_bad_input("jitter-trace convert " + fig2 + " " + temp_path("f.noise"), "frequency");
    expect_bad_input("jitter-trace convert " + fig2 + " " + temp_path("f.x") + " --to xml",
                     "--to:");
}

}  // namespace CLUSTERSIM_TEST_FILE
