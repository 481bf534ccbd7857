// `clustersim sweep` as users run it: every point's record equals the individual
// `clustersim run --json` of its command; the results file does not depend on the number of
// jobs; resume skips done points; a failing point (bad parameter, wall-time or memory blow-up)
// is reported and the others complete; generated models are written once; Slurm job arrays
// and `collect`; plots and the best-configuration table; bad sweep files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"
#include "sweep/sweep_engine.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

namespace fs = std::filesystem;

// A sweep of 8 cheap points on the 16-node star: bcast sizes x algorithms x ranks.
std::string bcast_sweep(const std::string& sizes = R"("1KiB", "256KiB")") {
    return R"({
  "base": {"model": ")" +
           example("star-16.xml") + R"(", "app": "bcast:iterations=2"},
  "axes": {"size": [)" +
           sizes + R"(],
           "algorithm": ["bcast=binomial", "bcast=linear"],
           "ranks": [4, 8]}
})";
}

std::vector<nlohmann::json> records(const std::string& dir) {
    std::vector<nlohmann::json> out;
    std::stringstream ss(slurp(dir + "/results.jsonl"));
    std::string line;
    while (std::getline(ss, line))
        if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    return out;
}

std::vector<nlohmann::json> deterministic(const std::vector<nlohmann::json>& rs) {
    std::vector<nlohmann::json> out;
    for (const auto& r : rs) out.push_back(sweep::without_measured(r));
    return out;
}

std::size_t lines(const std::string& path) {
    const std::string s = slurp(path);
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

struct Sweep {
    std::string file, out;
};

Sweep make_sweep(const std::string& text, const std::string& name = "sweep") {
    Sweep s{write_temp(name + ".json", text), temp_path(name + "_out")};
    fs::remove_all(s.out);
    return s;
}

TEST(CliSweep, EveryRecordEqualsTheIndividualRunOfItsCommand) {
    const Sweep s = make_sweep(bcast_sweep());
    const Result r = run("sweep " + s.file + " --jobs 2 --out " + s.out);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(r.err, "") << "quiet when stderr is not a terminal";
    EXPECT_NE(r.out.find("8 points, 8 run now (2 local jobs), 0 done before"), std::string::npos)
        << r.out;
    const auto rs = records(s.out);
    ASSERT_EQ(rs.size(), 8u);
    std::map<std::string, double> time_of;
    for (std::size_t i = 0; i < rs.size(); ++i) {
        const auto& rec = rs[i];
        EXPECT_EQ(rec["index"], i);
        ASSERT_EQ(rec["status"], "ok") << rec.dump();
        // The point's own command, run by hand in the sweep's folder.
        std::string cmd = rec["command"].get<std::string>();
        ASSERT_EQ(cmd.rfind("clustersim run ", 0), 0u) << cmd;
        const Result single =
            run_shell("cd " + s.out + " && " + CLUSTERSIM_BINARY + cmd.substr(10));
        ASSERT_EQ(single.code, 0) << cmd << single.err;
        nlohmann::json mine =
            sweep::without_measured({{"result", nlohmann::json::parse(single.out)}});
        nlohmann::json theirs = sweep::without_measured(rec);
        EXPECT_EQ(mine["result"], theirs["result"]) << cmd;
        const auto& res = rec["result"];
        EXPECT_EQ(res["network"]["bytes_sent"], res["network"]["bytes_delivered"]);
        EXPECT_EQ(res["ranks"], rec["axes"]["ranks"]);
        // A bcast of m bytes to p ranks, twice: every non-root rank receives 2m.
        const std::uint64_t m = rec["axes"]["size"] == "1KiB" ? 1024 : 262144;
        const std::uint64_t p = rec["axes"]["ranks"].get<std::uint64_t>();
        EXPECT_EQ(res["operations"]["Bcast"]["count"], 2 * p);
        EXPECT_GT(rec["wall_time_s"].get<double>(), 0.0);
        EXPECT_GT(rec["peak_memory_bytes"].get<std::uint64_t>(), 1u << 20);
        time_of[rec["axes"]["algorithm"].get<std::string>() + "/" + std::to_string(p) + "/" +
                std::to_string(m)] = res["simulated_time_s"].get<double>();
    }
    // More bytes take longer, for every algorithm and rank count.
    for (const std::string alg : {"bcast=binomial", "bcast=linear"})
        for (int p : {4, 8})
            EXPECT_LT(time_of[alg + "/" + std::to_string(p) + "/1024"],
                      time_of[alg + "/" + std::to_string(p) + "/262144"]);
    // The CSV has a row per point, in the same order; the app's own figures (the bcast's
    // OSU-style latencies and bandwidths) are columns too.
    const std::string csv = slurp(s.out + "/results.csv");
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "index,hash,size,algorithm,ranks,status,simulated_time_s,simulated_time_ps,events,"
              "result_ranks,messages,bytes_delivered,algbw_bytes_per_s,busbw_bytes_per_s,"
              "latency_avg_s,latency_max_s,latency_min_s,wall_time_s,peak_memory_bytes,error");
    EXPECT_EQ(lines(s.out + "/results.csv"), 9u);
    EXPECT_NE(csv.find("\n0," + rs[0]["hash"].get<std::string>() + ",1KiB,bcast=binomial,4,ok,"),
              std::string::npos);
}

TEST(CliSweep, OneJobAndTwoJobsWriteTheSameResults) {
    const Sweep a = make_sweep(bcast_sweep());
    const std::string b = temp_path("out_b");
    fs::remove_all(b);
    ASSERT_EQ(run("sweep " + a.file + " --jobs 1 --out " + a.out).code, 0);
    ASSERT_EQ(run("sweep " + a.file + " --jobs 2 --out " + b).code, 0);
    const auto ra = records(a.out), rb = records(b);
    ASSERT_EQ(ra.size(), 8u);
    EXPECT_EQ(deterministic(ra), deterministic(rb));
}

TEST(CliSweep, ResumeSkipsDonePointsAndRunsOnlyNewOnes) {
    Sweep s = make_sweep(bcast_sweep());
    ASSERT_EQ(run("sweep " + s.file + " --jobs 2 --out " + s.out).code, 0);
    EXPECT_EQ(lines(s.out + "/journal.jsonl"), 8u);
    const auto first = records(s.out);
    // A second run has nothing to do.
    Result again = run("sweep " + s.file + " --jobs 2 --out " + s.out);
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_NE(again.out.find("8 points, 0 run now (2 local jobs), 8 done before"),
              std::string::npos)
        << again.out;
    EXPECT_EQ(lines(s.out + "/journal.jsonl"), 8u);
    EXPECT_EQ(records(s.out), first);  // measured fields included: nothing was rerun
    // An interrupted run leaves a half-written line at the journal's end: ignored.
    { std::ofstream(s.out + "/journal.jsonl", std::ios::app) << R"({"hash":"0123)"; }
    // One more size: only its 4 points run; the others keep their records.
    std::ofstream(s.file) << bcast_sweep(R"("1KiB", "64KiB", "256KiB")");
    again = run("sweep " + s.file + " --jobs 2 --out " + s.out);
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_NE(again.out.find("12 points, 4 run now (2 local jobs), 8 done before"),
              std::string::npos)
        << again.out;
    const auto now = records(s.out);
    ASSERT_EQ(now.size(), 12u);
    for (std::size_t i = 0; i < 12; ++i) {
        EXPECT_EQ(now[i]["index"], i);
        EXPECT_EQ(now[i]["axes"]["size"], i < 4 ? "1KiB" : i < 8 ? "64KiB" : "256KiB");
    }
    EXPECT_EQ(now[0], first[0]);
    EXPECT_EQ(now[11]["hash"], first[7]["hash"]);
    EXPECT_EQ(now[11]["wall_time_s"], first[7]["wall_time_s"]);
}

TEST(CliSweep, AFailingPointIsReportedAndTheOthersComplete) {
    const Sweep s = make_sweep(R"({
  "base": {"model": ")" + example("star-16.xml") +
                               R"(", "app": "pingpong:iterations=2"},
  "axes": {"size": ["1KiB", "1XB", "4KiB"]}
})");
    Result r = run("sweep " + s.file + " --jobs 2 --out " + s.out);
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("2 ok, 1 failed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("failed: point 1 (size=1XB): --app: 'pingpong:iterations=2,size=1XB': "
                         "parameter 'size': '1XB': unknown unit 'XB'"),
              std::string::npos)
        << r.out;
    const auto rs = records(s.out);
    ASSERT_EQ(rs.size(), 3u);
    EXPECT_EQ(rs[0]["status"], "ok");
    EXPECT_EQ(rs[2]["status"], "ok");
    EXPECT_EQ(rs[1]["status"], "failed");
    EXPECT_EQ(rs[1]["exit_code"], 2);
    EXPECT_FALSE(rs[1].contains("result"));
    EXPECT_NE(slurp(s.out + "/results.csv").find(",failed,"), std::string::npos);
    // Bad input fails the same way again: not rerun, unless asked.
    r = run("sweep " + s.file + " --jobs 2 --out " + s.out);
    EXPECT_NE(r.out.find("0 run now"), std::string::npos) << r.out;
    r = run("sweep " + s.file + " --jobs 2 --out " + s.out + " --retry-failed");
    EXPECT_NE(r.out.find("1 run now"), std::string::npos) << r.out;
}

TEST(CliSweep, APointPastItsWallTimeOrMemoryLimitIsStoppedAndTheOthersComplete) {
    // 100 TiB through one link: minutes of simulation (1 TiB took 2.5-3.2 s of a release
    // build on the VM of 2026-11-29, close enough to the limit to finish under it); 2 s
    // allowed (the 1 MiB point needs milliseconds, also in the sanitizer build on a loaded
    // machine).
    Sweep s = make_sweep(R"({
  "base": {"model": ")" + example("star-16.xml") +
                         R"(", "app": "stream"},
  "axes": {"size": ["1MiB", "100TiB"]},
  "limits": {"wall_time": "2s"}
})");
    Result r = run("sweep " + s.file + " --jobs 2 --out " + s.out);
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    auto rs = records(s.out);
    ASSERT_EQ(rs.size(), 2u);
    EXPECT_EQ(rs[0]["status"], "ok");
    EXPECT_EQ(rs[1]["status"], "failed");
    EXPECT_EQ(rs[1]["error"], "killed at the wall-time limit of 2 s");
    EXPECT_EQ(rs[1]["signal"], 9);
    EXPECT_GE(rs[1]["wall_time_s"].get<double>(), 2.0);
    EXPECT_LT(rs[1]["wall_time_s"].get<double>(), 10.0);
    // A killed point is not "done": the next run tries it again, the ok one is kept.
    r = run("sweep " + s.file + " --jobs 2 --out " + s.out);
    EXPECT_NE(r.out.find("2 points, 1 run now (2 local jobs), 1 done before"), std::string::npos)
        << r.out;
#ifdef CLUSTERSIM_SANITIZED
    // The memory limit is an address-space limit (RLIMIT_AS), and AddressSanitizer reserves
    // terabytes of address space for its shadow memory: no sanitized child can start under it.
    GTEST_SKIP() << "memory limits are not testable in a sanitizer build";
#endif
    // A star of 100,000 nodes needs ~170 MB; 64 MiB allowed (the 4-node one fits). The
    // generate step reads its model back, so it is the step that meets the limit.
    s = make_sweep(R"({
  "base": {"generate": {"topology": "star", "nic": "analytical"}, "app": "pingpong:size=1KiB"},
  "axes": {"nodes": [4, 100000]},
  "limits": {"memory": "64MiB"}
})");
    r = run("sweep " + s.file + " --jobs 2 --out " + s.out);
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    rs = records(s.out);
    ASSERT_EQ(rs.size(), 2u);
    EXPECT_EQ(rs[0]["status"], "ok") << rs[0].dump();
    EXPECT_EQ(rs[1]["status"], "failed");
    EXPECT_EQ(rs[1]["error"],
              "generate: out of memory: the run needs more memory than this process may use (the "
              "machine's, or a limit such as ulimit -v) (memory limit 64 MiB)");
}

TEST(CliSweep, GeneratedModelsAreWrittenOnceAndABadGeneratorValueFailsItsPoints) {
    const Sweep s = make_sweep(R"({
  "base": {"generate": {"topology": "fat-tree", "down": "4,4", "up": "1,2", "nic": "analytical"},
           "app": "bcast:size=1MiB", "ranks": 16},
  "axes": {"link-bandwidth": ["1GB/s", "10GB/s", "10XB/s"],
           "algorithm": ["bcast=binomial", "bcast=scatter_allgather"]}
})");
    const Result r = run("sweep " + s.file + " --jobs 2 --out " + s.out);
    EXPECT_EQ(r.code, 1);
    std::size_t models = 0;
    for (const auto& e : fs::directory_iterator(s.out + "/models"))
        models += e.path().extension() == ".xml";
    EXPECT_EQ(models, 2u);
    const auto rs = records(s.out);
    ASSERT_EQ(rs.size(), 6u);
    for (int i : {4, 5}) {
        EXPECT_EQ(rs[i]["status"], "failed");
        EXPECT_EQ(rs[i]["error"].get<std::string>().rfind(
                      "generate: --link-bandwidth: '10XB/s': unknown unit", 0),
                  0u)
            << rs[i]["error"];
    }
    for (int i : {0, 1}) {  // 10 times the link bandwidth: faster, same messages
        ASSERT_EQ(rs[i]["status"], "ok");
        EXPECT_LT(rs[i + 2]["result"]["simulated_time_s"].get<double>(),
                  rs[i]["result"]["simulated_time_s"].get<double>());
        EXPECT_EQ(rs[i + 2]["result"]["network"]["messages"],
                  rs[i]["result"]["network"]["messages"]);
    }
    EXPECT_EQ(rs[0]["result"]["model"], rs[1]["result"]["model"]);  // one model file, reused
    EXPECT_NE(rs[0]["result"]["model"], rs[2]["result"]["model"]);
}

TEST(CliSweep, TracesModelsAndCacheLayersAsAxes) {
    const std::string data = std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/data/traces/";
    const Sweep s = make_sweep(R"({
  "base": {"app": "pingpong:size=1KiB"},
  "axes": {"model": [")" + example("figure5-io-8.xml") +
                               R"(", ")" + example("io-strided.xml") + R"("],
           "trace": [")" + data +
                               R"(partdiff-small.trace", ")" + data +
                               R"(every-kind.trace"],
           "cache": ["none", "write_behind"]}
})");
    const Result r = run("sweep " + s.file + " --jobs 2 --out " + s.out);
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const auto rs = records(s.out);
    ASSERT_EQ(rs.size(), 8u);
    for (const auto& rec : rs) {
        const bool every_kind =
            rec["axes"]["trace"].get<std::string>().ends_with("every-kind.trace");
        if (every_kind) {  // the trace's own error, naming it (its rank 1 is global rank 3)
            EXPECT_EQ(rec["status"], "failed");
            EXPECT_NE(rec["error"].get<std::string>().find(
                          "every-kind.trace: rank 3 uses communicator 2 that it does not have"),
                      std::string::npos)
                << rec["error"];
            continue;
        }
        ASSERT_EQ(rec["status"], "ok") << rec.dump();
        EXPECT_EQ(rec["result"]["model"], rec["axes"]["model"]);
        // The trace app (the base's pingpong is kept alongside it: two apps, 2 + 4 ranks).
        EXPECT_EQ(rec["result"]["app"][1], "trace:" + rec["axes"]["trace"].get<std::string>());
        const std::string cmd = rec["command"].get<std::string>();
        EXPECT_NE(cmd.find("--cache " + rec["axes"]["cache"].get<std::string>()),
                  std::string::npos);
        const Result single =
            run_shell("cd " + s.out + " && " + CLUSTERSIM_BINARY + cmd.substr(10));
        ASSERT_EQ(single.code, 0) << cmd << single.err;
        EXPECT_EQ(nlohmann::json::parse(single.out)["simulated_time_ps"],
                  rec["result"]["simulated_time_ps"]);
        EXPECT_GT(rec["result"]["io"]["bytes_written"].get<std::uint64_t>(), 0u);
    }
}

TEST(CliSweep, SlurmArrayTasksThenCollectGiveTheLocalResults) {
    const Sweep s = make_sweep(bcast_sweep());
    const Result e = run("sweep " + s.file + " --emit-array " + s.out + " --chunk 3");
    ASSERT_EQ(e.code, 0) << e.err;
    const std::string script = slurp(s.out + "/sweep.sbatch");
    EXPECT_NE(script.find("#SBATCH --array=0-2\n"), std::string::npos) << script;
    EXPECT_NE(script.find("--task \"$SLURM_ARRAY_TASK_ID\" --chunk 3"), std::string::npos);
    // What Slurm would do: run the script once per task.
    for (int task : {0, 1}) {
        const Result t = run_shell("SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " bash " +
                                   s.out + "/sweep.sbatch");
        EXPECT_EQ(t.code, 0) << t.out << t.err;
    }
    Result c = run("sweep collect " + s.out);
    EXPECT_EQ(c.code, 1);
    EXPECT_NE(c.out.find("6 ok, 0 failed, 2 missing"), std::string::npos) << c.out;
    ASSERT_EQ(run_shell("SLURM_ARRAY_TASK_ID=2 bash " + s.out + "/sweep.sbatch").code, 0);
    c = run("sweep collect " + s.out);
    EXPECT_EQ(c.code, 0) << c.out << c.err;
    const std::string local = temp_path("local");
    fs::remove_all(local);
    ASSERT_EQ(run("sweep " + s.file + " --jobs 2 --out " + local).code, 0);
    EXPECT_EQ(deterministic(records(s.out)), deterministic(records(local)));
}

TEST(CliSweep, PlotDrawsEverySeriesAndTheTableNamesTheBestPerPoint) {
    const Sweep s = make_sweep(bcast_sweep());
    ASSERT_EQ(run("sweep " + s.file + " --jobs 2 --out " + s.out).code, 0);
    const std::string svg = temp_path("plot.svg");
    const Result p = run("sweep plot " + s.out +
                         " --x size --y simulated_time --series algorithm "
                         "--facet ranks --log-x --log-y -o " +
                         svg);
    ASSERT_EQ(p.code, 0) << p.err;
    const std::string doc = slurp(svg);
    EXPECT_EQ(doc.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
    for (const char* text : {"simulated time vs size by algorithm, per ranks", "bcast=binomial",
                             "bcast=linear", "ranks = 4", "ranks = 8", ">1 KiB<", ">256 KiB<"})
        EXPECT_NE(doc.find(text), std::string::npos) << text;
    EXPECT_EQ(std::count(doc.begin(), doc.end(), '\n') > 10, true);
    // Two panels x two series, one polyline each; a marker per point.
    std::size_t polylines = 0, pos = 0;
    while ((pos = doc.find("<polyline", pos)) != std::string::npos) ++polylines, ++pos;
    EXPECT_EQ(polylines, 4u);
    // The table: for each (ranks, size) the algorithm with the smallest simulated time.
    std::map<std::pair<int, std::string>, std::pair<double, std::string>> best;
    for (const auto& r : records(s.out)) {
        const auto key =
            std::make_pair(r["axes"]["ranks"].get<int>(), r["axes"]["size"].get<std::string>());
        const double t = r["result"]["simulated_time_s"].get<double>();
        if (!best.count(key) || t < best[key].first) best[key] = {t, r["axes"]["algorithm"]};
    }
    ASSERT_EQ(best.size(), 4u);
    for (const auto& [key, b] : best)
        EXPECT_NE(p.out.find("| " + std::to_string(key.first) + " | " + key.second + " | " +
                             b.second + " | "),
                  std::string::npos)
            << p.out;
    // Speed-up over ranks for each algorithm: 1 at the smallest rank count.
    const Result sp = run("sweep plot " + s.out +
                          " --x ranks --y simulated_time --series "
                          "algorithm --facet size --speedup --maximize -o " +
                          svg);
    ASSERT_EQ(sp.code, 0) << sp.err;
    EXPECT_NE(slurp(svg).find("speed-up of simulated time (over the smallest ranks)"),
              std::string::npos);
    EXPECT_NE(sp.out.find(" | 1x | "), std::string::npos) << sp.out;
}

TEST(CliSweep, AProgressLineOnATerminal) {
    // `script` gives the sweep a terminal; without one (every other test) stderr stays empty.
    const Sweep s = make_sweep(bcast_sweep());
    const Result r = run_shell("script -qec '" + std::string(CLUSTERSIM_BINARY) + " sweep " +
                               s.file + " --jobs 2 --out " + s.out + "' /dev/null");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("\r  sweep: 8/8 points, 0 failed, "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" s, ETA 0 s"), std::string::npos) << r.out;
}

TEST(CliSweep, ListPrintsEveryPointsCommand) {
    const Sweep s = make_sweep(bcast_sweep());
    const Result r = run("sweep " + s.file + " --list");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("8 points\n"), std::string::npos);
    EXPECT_NE(r.out.find(
                  "--app bcast:iterations=2,size=256KiB --ranks 8 --algorithm bcast=linear --json"),
              std::string::npos)
        << r.out;
    EXPECT_FALSE(fs::exists(s.out));
}

TEST(CliSweepBadInput, OneLineNamingTheFileLineOrFlag) {
    const std::string bad = write_temp(
        "bad.json",
        "{\n  \"base\": {\"app\": \"pingpong\"},\n  \"axes\": {\"size\": \"1KiB\"}\n}\n");
    expect_bad_input("sweep " + bad, bad + ":3: axes.size: expected a non-empty list of values");
    expect_bad_input("sweep", "expected a sweep FILE");
    expect_bad_input("sweep /no/such/sweep.json",
                     "/no/such/sweep.json: cannot read the sweep file");
    expect_bad_input("sweep collect /tmp", "not a sweep output folder");
    const Sweep s = make_sweep(bcast_sweep());
    expect_bad_input("sweep " + s.file + " --out " + s.out + " --time-limit 5", "--time-limit:");
    ASSERT_EQ(run("sweep " + s.file + " --jobs 2 --out " + s.out).code, 0);
    expect_bad_input("sweep plot " + s.out + " --x size --y nothing_like_this",
                     "--y: no field 'nothing_like_this'");
    expect_bad_input("sweep plot " + s.out + " --x size --y simulated_tim",
                     "--y: no field 'simulated_tim' in the results (point 0) (did you mean "
                     "'simulated_time'?)");
    expect_bad_input("sweep plot " + s.out + " --x sise --y simulated_time",
                     "(did you mean 'size'?)");
    expect_bad_input("sweep plot " + s.out + " --x algorithm --y simulated_time --log-x",
                     "--log-x:");
    // A plot of the file naming a field the results lack: the results are written, then
    // one error naming the file and the plot's key.
    const Sweep p = make_sweep(R"({"base": {"model": ")" + example("star-16.xml") +
                                   R"(", "app": "pingpong"}, "axes": {"size": ["1KiB"]},
      "plots": [{"x": "size", "y": "nothing", "output": "a.svg"}]})",
                               "plots");
    const Result r = run("sweep " + p.file + " --out " + p.out);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "clustersim: error: " + p.file +
                         ": plots: y: no field 'nothing' in the results (point 0)\n");
    EXPECT_EQ(records(p.out).size(), 1u);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
