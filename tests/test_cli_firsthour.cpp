// The first hour of a new user: --version, help, list, "did you mean", the progress line in
// batch mode, output paths checked before the simulation, `record` without a command, the
// bash completion, and numbers (not strings) in run --json's app summary.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"

namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;
namespace fs = std::filesystem;

TEST(FirstHour, VersionNamesTheGitRevisionThreeWays) {
    for (const char* args : {"--version", "version"}) {
        const Result r = run(args);
        ASSERT_EQ(r.code, 0) << args << r.err;
        EXPECT_TRUE(
            std::regex_search(r.out, std::regex(R"(^clustersim \d+\.\d+\.\d+ \(git \S+\)\n$)")))
            << args << ": " << r.out;
    }
    const Result help = run("help");
    ASSERT_EQ(help.code, 0) << help.err;
    EXPECT_NE(help.out.find("Usage: clustersim"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("record"), std::string::npos) << help.out;
    const Result help_run = run("help run");
    ASSERT_EQ(help_run.code, 0) << help_run.err;
    EXPECT_NE(help_run.out.find("--progress"), std::string::npos);
}

TEST(FirstHour, RunHelpNamesEveryAppAlgorithmAndNetworkModel) {
    const Result r = run("run --help");
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* name : {"pingpong", "alltoallv", "barrier_loop", "io", "bcast=binomial",
                             "allreduce=ring", "reduce_scatter=recursive_halving", "cut_through",
                             "fluid", "bus_only", "pmac", "hdtrace", "write_behind"})
        EXPECT_NE(r.out.find(name), std::string::npos) << name;
}

TEST(FirstHour, ListPrintsEachKindWithItsParameters) {
    const Result all = run("list");
    ASSERT_EQ(all.code, 0) << all.err;
    EXPECT_NE(all.out.find("pingpong:size="), std::string::npos) << all.out;
    EXPECT_NE(all.out.find("bcast=pipelined_chain"), std::string::npos);
    EXPECT_NE(all.out.find("network models"), std::string::npos);
    EXPECT_NE(all.out.find("disk models"), std::string::npos);
    const Result nets = run("list networks");
    ASSERT_EQ(nets.code, 0);
    EXPECT_EQ(nets.out.find("apps"), std::string::npos) << "only the kind asked for";
    expect_bad_input("list netwroks", "did you mean 'networks'?");
}

// A registered name given with '-' for '_' (or the other way round) is that name, with one
// note each on stderr: the same results, the registered names in the outputs.
TEST(FirstHour, TheOtherSeparatorReadsAsTheRegisteredName) {
    auto swapped = [](std::string n) {
        for (char& c : n) c = c == '-' ? '_' : c == '_' ? '-' : c;
        return n;
    };
    auto args = [&](bool swap) {
        auto n = [&](const std::string& x) { return swap ? swapped(x) : x; };
        return "run " + example("figure5-io-8.xml") + " --ranks 4 --app " + n("barrier_loop") +
               ":work=1ms,iterations=3 --app io:op=write,size=1MiB --ranks 4 --oversubscribe" +
               " --placement " + n("round_robin") + " --network " + n("cut_through") + " --cpu " +
               n("run_to_completion") + " --cache " + n("write_behind") +
               " --algorithm barrier=" + n("recursive_doubling") + " --json";
    };
    // Whichever spelling is registered, the other is read as it.
    const Result a = run(args(false)), b = run(args(true));
    ASSERT_EQ(a.code, 0) << a.err;
    ASSERT_EQ(b.code, 0) << b.err;
    auto notes = [](const std::string& err) {
        std::size_t n = 0;
        for (std::size_t p = 0; (p = err.find("clustersim: note: '", p)) != std::string::npos; ++p)
            ++n;
        return n;
    };
    // Six names (the app counts once), each in one spelling or the other.
    EXPECT_EQ(notes(a.err) + notes(b.err), 6u) << a.err << b.err;
    auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
    for (auto* j : {&ja, &jb})
        for (const char* k : {"wall_time_s", "events_per_s", "cpu_time_s", "model_load_s",
                              "phases_s", "peak_memory_bytes", "app"})
            j->erase(k);
    EXPECT_EQ(ja, jb);
    EXPECT_EQ(ja.at("placement"), "round_robin");
    EXPECT_EQ(ja.at("network").at("model"), "cut_through");
    EXPECT_EQ(ja.at("io").at("servers").at(0).at("cache"), "write_behind");
    EXPECT_EQ(ja.at("collective_algorithms").begin().key(), "barrier/recursive_doubling");
}

TEST(FirstHour, MisspeltNamesGetASuggestion) {
    const std::string model = example("star-16.xml");
    expect_bad_input("run " + model + " --app bcast:size=1MiB --rank 16",
                     "run: unknown flag '--rank' (did you mean '--ranks'?)");
    expect_bad_input("rnu " + model, "unknown command 'rnu' (did you mean 'run'?)");
    expect_bad_input("run " + model + " --app bcats:size=1MiB", "(did you mean 'bcast'?)");
    expect_bad_input("run " + model + " --app bcast:size=1MiB --algorithm bcast=binomail",
                     "(did you mean 'binomial'?)");
    expect_bad_input("run " + model + " --app bcast:size=1MiB --algorithm bcats=binomial",
                     "(did you mean 'bcast'?)");
    expect_bad_input("run " + model + " --app bcast:size=1MiB --network fluidd",
                     "(did you mean 'fluid'?)");
    const std::string trace =
        std::string(CLUSTERSIM_SHARED_DIR) + "/external/simgrid-ti-traces/replay/actions0.txt";
    expect_bad_input("run " + model + " --app trace:" + trace + " --format simgrid",
                     "(did you mean 'simgrid_ti'?)");
    expect_bad_input(
        "run " + example("figure5-io-8.xml") + " --app io:op=write,size=1MiB --cache write_behnd",
        "(did you mean 'write_behind'?)");
    expect_bad_input("run " + model + " --app barrier --ranks 2 --placement round-robbin",
                     "--placement: unknown placement 'round-robbin' (did you mean");
    expect_bad_input("run " + model + " --app barrier --ranks 2 --cpu procesor-sharing",
                     "(did you mean");
    // Every enumerated flag value and XML value suggests the name it is close to.
    expect_bad_input("run " + model + " --app barrier --ranks 2 --mpi openmpi",
                     "(did you mean 'openmpi_4.1'?)");
    expect_bad_input("run " + model + " --app barrier --ranks 2 --out " + ::testing::TempDir() +
                         "/fh --timeline-detail hardwar",
                     "(did you mean 'hardware'?)");
    expect_bad_input("generate fat-tree --down 4,2 --up 1,2 --routing d_mod_j",
                     "(did you mean 'd_mod_k'?)");
    expect_bad_input("convert x.txt y --to otf", "(did you mean 'otf2'?)");
    const std::string xml =
        write_temp("routing.xml", R"(<cluster name="r"><network routing="shortest_pth"/>
  <node-type name="t" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <node name="n0" type="t"/></cluster>)");
    expect_bad_input("validate " + xml, "(did you mean 'shortest_path'?)");
    expect_bad_input("run " + model + " --app pingpong:sise=1KiB", "(did you mean 'size'?)");
    expect_bad_input("import simgird x.xml", "(did you mean 'simgrid'?)");
    expect_bad_input("generate startt", "KIND: 'startt' (did you mean 'star'?)");
    const Result fat = run("generate fat_tree --down 2 --up 1");
    EXPECT_EQ(fat.code, 0) << fat.err;
    EXPECT_NE(fat.err.find("'fat_tree' is read as 'fat-tree'"), std::string::npos) << fat.err;
    const std::string element = write_temp("element.xml", R"(<cluster name="r">
  <node-typ name="t" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-typ>
</cluster>)");
    expect_bad_input("validate " + element,
                     "unknown element <node-typ> in <cluster> (did you "
                     "mean 'node-type'?)");
    // Nothing close: no suggestion, still the list.
    const Result r = run("run " + model + " --app zzzzzz:size=1MiB");
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
}

// --progress in a batch job (stderr is a file here, not a terminal): the run's header, then
// full lines with the fraction done and the time left, never going back and ending at 100.0 %
// when the run is complete; without it nothing; --quiet never.
TEST(FirstHour, ProgressLinesInBatchMode) {
    const std::string args =
        "run " + example("star-16.xml") + " --app allreduce:size=64KiB,iterations=400 --ranks 16";
    const Result plain = run(args);
    ASSERT_EQ(plain.code, 0) << plain.err;
    EXPECT_EQ(plain.err, "") << "not a terminal and no --progress: quiet";

    const Result p = run(args + " --progress --progress-interval 0s");
    ASSERT_EQ(p.code, 0) << p.err;
    const std::regex line(
        R"(  progress +\d+\.\d% \([\d,]+ of 6,400 operations\)(, about .+ left)?; [\d,]+ events \([\d.]+ M events/s\), simulated .+ (s|ms|us), .+ wall)");
    std::size_t lines = 0;
    double last = -1;
    const std::string header = "clustersim run: model " + example("star-16.xml") +
                               " (16 nodes), app allreduce:size=64KiB,iterations=400\n  16 ranks "
                               "placed round_robin: rank 0 on n0 socket 0 core 0, rank 1 on n1 "
                               "socket 0 core 0, rank 2 on n2 socket 0 core 0, rank 3 on n3 "
                               "socket 0 core 0, ...\n";
    ASSERT_EQ(p.err.substr(0, header.size()), header) << "the header comes first";
    EXPECT_EQ(p.out.substr(0, header.size()), header) << "and heads the summary";
    std::size_t pos = header.size();
    while (pos < p.err.size()) {
        const std::size_t nl = p.err.find('\n', pos);
        const std::string l = p.err.substr(pos, nl - pos);
        pos = nl == std::string::npos ? p.err.size() : nl + 1;
        ASSERT_TRUE(std::regex_match(l, line)) << "'" << l << "'";
        const double f = std::stod(l.substr(l.find_first_not_of(" ", 11)));
        EXPECT_GE(f, last) << "the fraction never goes back";
        last = f;
        ++lines;
    }
    EXPECT_GE(lines, 2u) << p.err;
    EXPECT_EQ(last, 100.0) << "the last line is the completed run: " << p.err;
    // The results are the same (all but the last line, the simulator's own wall time).
    auto results = [](const std::string& out) { return out.substr(0, out.find("  simulator:")); };
    EXPECT_EQ(results(p.out), results(plain.out)) << "progress changes nothing of the results";

    const Result q = run(args + " --quiet");
    EXPECT_EQ(q.err, "");
    expect_bad_input(args + " --progress --quiet", "--progress");
    expect_bad_input(args + " --progress --progress-interval 10", "--progress-interval");
}

TEST(FirstHour, ProgressLinesBeforeTheEndEstimateTheTimeLeft) {
    // 1.44 M events: progress is reported after chunks of at most 262,144 events, so lines come
    // before the end, and those give an estimate of the time left.
    const Result r = run("run " + example("star-16.xml") +
                         " --app allreduce:size=64KiB,iterations=400 --ranks 16 --progress "
                         "--progress-interval 0s");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("left; "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("100.0% (6,400 of 6,400 operations)"), std::string::npos) << r.err;
}

// A bad --out is reported before the simulation, not after it: the run below would take
// minutes, the error comes at once.
TEST(FirstHour, OutputPathsAreCheckedBeforeSimulating) {
    const std::string slow = "run " + example("star-16.xml") +
                             " --app allreduce:size=64MiB,iterations=100000 --ranks 16";
    const auto t0 = std::chrono::steady_clock::now();
    const std::string file = write_temp("not-a-folder", "x");
    expect_bad_input(slow + " --out " + file, "--out: '" + file + "' is a file, not a folder");
    expect_bad_input(slow + " --out /proc/no/such/place", "--out: cannot make folder");
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 5.0) << "the errors came before the simulation";
    // convert, trace merge and compare check theirs first too.
    const std::string trace =
        std::string(CLUSTERSIM_SHARED_DIR) + "/external/simgrid-ti-traces/replay/actions0.txt";
    expect_bad_input("convert " + trace + " /proc/no/such/out.txt", "OUTPUT: folder");
    expect_bad_input("convert " + trace + " " + ::testing::TempDir(), "is a folder, not a file");
    expect_bad_input("trace merge " + ::testing::TempDir() + " -o /proc/no/x.cstrace", "--out");
    expect_bad_input("compare " + trace + " " + trace + " --out " + file, "--out");
}

TEST(FirstHour, RecordNeedsACommandAndChecksItsOutput) {
    expect_bad_input("record", "COMMAND");
    const Result r = run("record -o /proc/no/x.cstrace -- true");
    EXPECT_EQ(r.code, 2) << r.err;
}

TEST(FirstHour, ConvertCountsEveryFileOfAnIndex) {
    const std::string index =
        std::string(CLUSTERSIM_SHARED_DIR) + "/external/simgrid-ti-traces/ti_traces_32_1.index.txt";
    const std::string out = temp_path("t.cstrace");
    const Result r = run("convert " + index + " " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("in 33 files"), std::string::npos) << r.out;
    std::uint64_t in = fs::file_size(index);
    for (int i = 0; i < 32; ++i)
        in += fs::file_size(std::string(CLUSTERSIM_SHARED_DIR) +
                            "/external/simgrid-ti-traces/ti_traces_32_1/ti_trace" +
                            std::to_string(i) + ".txt");
    const double ratio = static_cast<double>(fs::file_size(out)) / static_cast<double>(in);
    const std::smatch m = [&] {
        std::smatch x;
        std::regex_search(r.out, x, std::regex(R"(([\d.]+)x the input's size)"));
        return x;
    }();
    ASSERT_EQ(m.size(), 2u) << r.out;
    EXPECT_NEAR(std::stod(m[1]), ratio, 0.006) << r.out;
}

TEST(FirstHour, AppSummaryInJsonIsNumbersWithUnitsInTheKeys) {
    const Result r = run("run " + example("figure1-westmere-10.xml") +
                         " --app pingpong:size=1MiB,iterations=10 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto& s = j.at("app_summary");
    ASSERT_TRUE(s.at("one_way_time_s").is_number());
    ASSERT_TRUE(s.at("round_trip_s").is_number());
    ASSERT_TRUE(s.at("one_way_bandwidth_bytes_per_s").is_number());
    // The same figures as the text summary: one way = half a round trip = simulated / 20.
    EXPECT_NEAR(s.at("round_trip_s").get<double>(), 2 * s.at("one_way_time_s").get<double>(),
                1e-12);
    EXPECT_NEAR(s.at("one_way_time_s").get<double>(),
                j.at("simulated_time_ps").get<double>() / 20 * 1e-12, 1e-12);
    for (const auto& [k, v] : s.items()) EXPECT_TRUE(v.is_number()) << k;
    // The fluid model names flows, not packets.
    const Result f = run("run " + example("star-16.xml") +
                         " --app bcast:size=1MiB --ranks 4 --network fluid --json");
    ASSERT_EQ(f.code, 0) << f.err;
    const auto jf = nlohmann::json::parse(f.out);
    EXPECT_TRUE(jf.at("network").contains("flows"));
    EXPECT_FALSE(jf.at("network").contains("packets"));
    const Result ft =
        run("run " + example("star-16.xml") + " --app bcast:size=1MiB --ranks 4 --network fluid");
    EXPECT_NE(ft.out.find("flows"), std::string::npos) << ft.out;
    EXPECT_EQ(ft.out.find("packet"), std::string::npos) << ft.out;
}

TEST(FirstHour, BashCompletionKnowsEveryCommandAndFlag) {
    const Result r = run("completion bash");
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* w : {"complete -o filenames -F _clustersim clustersim", "\"run\")", "record",
                          "--progress", "--oversubscribe", "jitter-trace"})
        EXPECT_NE(r.out.find(w), std::string::npos) << w;
    // It is valid bash.
    const std::string path = write_temp("completion.bash", r.out);
    EXPECT_EQ(run_shell("bash -n " + path).code, 0);
    expect_bad_input("completion zsh", "only bash");
}

TEST(FirstHour, LargeTimesHaveNoExponent) {
    // 10,000 s and more print as whole numbers with separators, not 1e+04.
    const Result r =
        run("run " + example("two-nodes.xml") + " --app loop:work=20000s,iterations=1 --ranks 2");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find("e+"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("20,000 s"), std::string::npos) << r.out;
}

}  // namespace CLUSTERSIM_TEST_FILE
