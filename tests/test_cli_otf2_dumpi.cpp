// OTF2 and DUMPI traces as users run them: the Score-P and SST traces of ../shared/external
// replay on a generated star and on an imported SimGrid platform, `compare` reads them as the
// recorded run, `run --out` writes timeline.otf2 that reads back as the simulated trace,
// `convert --to otf2`, and broken archives are one line with exit code 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"
#include "trace_fixtures.hpp"

namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;
namespace fs = std::filesystem;

std::string external(const std::string& rel) {
    return std::string(CLUSTERSIM_SHARED_DIR) + "/external/" + rel;
}
const std::string kScorep = "otf2-scorep-sst-macro/traces.otf2";
const std::string kDumpi = "dumpi-sst-dumpi/testtrace.meta";

std::string out_dir(const std::string& name) {
    const std::string d = temp_path(name);
    fs::remove_all(d);
    return d;
}

std::string model(const std::string& kind) {
    const std::string path = temp_path(kind + ".xml");
    const Result r = kind == "star"
                         ? run("generate star --nodes 10")
                         : run("import simgrid " + external("simgrid-platforms/" + kind + ".xml"));
    EXPECT_EQ(r.code, 0) << r.err;
    std::ofstream(path) << r.out;
    return path;
}

// Replays `trace` on `model_path`, compares it with the recorded run and checks the outputs.
void replay_and_compare(const std::string& model_path, const std::string& trace,
                        const std::string& recorded_runtime) {
    const std::string dir = out_dir(fs::path(model_path).stem().string() + "-out");
    const Result r =
        run("run " + model_path + " --oversubscribe --app trace:" + trace + " --out " + dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("not modeled, replayed as their recorded duration"), std::string::npos)
        << r.err;
    for (const char* f : {"timeline.otf2", "timeline.def", "timeline", "simulated.cstrace"})
        EXPECT_TRUE(fs::exists(dir + "/" + f)) << f;
    const Result c = run("compare " + trace + " " + dir);
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_NE(c.out.find("total runtime: recorded " + recorded_runtime), std::string::npos)
        << c.out;
    // the OTF2 archive of the run reads back as the simulated trace, record for record
    const Result a = run("convert " + dir + "/simulated.cstrace " + temp_path("sim.txt"));
    const Result b = run("convert " + dir + "/timeline.otf2 " + temp_path("otf2.txt"));
    ASSERT_EQ(a.code, 0) << a.err;
    ASSERT_EQ(b.code, 0) << b.err;
    std::string sim = slurp(temp_path("sim.txt")), back = slurp(temp_path("otf2.txt"));
    ASSERT_FALSE(sim.empty());
    EXPECT_EQ(back, sim);
    // compare also takes the OTF2 archive as the simulated run
    const Result c2 = run("compare " + trace + " " + dir + "/timeline.otf2");
    EXPECT_EQ(c2.code, 0) << c2.err;
}

TEST(CliOtf2Dumpi, ScorepTraceReplaysOnAGeneratedStarAndCompares) {
    SKIP_WITHOUT_EXTERNAL();
    // rank runtimes of the recording: 1.248 s (first to last event, otf2-print)
    replay_and_compare(model("star"), external(kScorep), "1.248 s");
}

TEST(CliOtf2Dumpi, ScorepTraceReplaysOnAnImportedSimgridPlatform) {
    SKIP_WITHOUT_EXTERNAL();
    replay_and_compare(model("cluster_fat_tree"), external(kScorep), "1.248 s");
}

TEST(CliOtf2Dumpi, DumpiTraceReplaysOnAGeneratedStarAndAnImportedPlatform) {
    SKIP_WITHOUT_EXTERNAL();
    // testtrace-0000.txt: rank 0 from 1296777956.737669 s; the latest MPI_Finalize return
    // of the four ranks is 5.557 ms later
    replay_and_compare(model("star"), external(kDumpi), "5.557 ms");
    replay_and_compare(model("cluster_crossbar"), external(kDumpi), "5.557 ms");
}

TEST(CliOtf2Dumpi, FormatFlagAndConvertToOtf2) {
    SKIP_WITHOUT_EXTERNAL();
    const std::string anchor = temp_path("dumpi.otf2");
    const Result c = run("convert --format dumpi " + external(kDumpi) + " " + anchor);
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_NE(c.out.find("otf2 format"), std::string::npos) << c.out;
    const Result r = run("run " + model("star") + " --json --format otf2 --app trace:" + anchor);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out).at("ranks").get<int>(), 4);
    // `--to otf2 OUT` writes the archive OUT.otf2 + OUT.def + OUT/, as the README says.
    const std::string stem = temp_path("dumpi-stem");
    const Result s = run("convert --format dumpi " + external(kDumpi) + " " + stem + " --to otf2");
    ASSERT_EQ(s.code, 0) << s.err;
    EXPECT_NE(s.out.find("to " + stem + ".otf2 (otf2 format"), std::string::npos) << s.out;
    EXPECT_TRUE(std::filesystem::is_regular_file(stem + ".otf2"));
    EXPECT_TRUE(std::filesystem::is_regular_file(stem + ".def"));
    EXPECT_TRUE(std::filesystem::is_directory(stem));
    const Result t = run("run " + model("star") + " --json --app trace:" + stem + ".otf2");
    ASSERT_EQ(t.code, 0) << t.err;
    EXPECT_EQ(nlohmann::json::parse(t.out).at("simulated_time_ps"),
              nlohmann::json::parse(r.out).at("simulated_time_ps"));
    expect_bad_input("convert --format otf2 " + external(kDumpi) + " " + temp_path("x.txt"),
                     "not a readable OTF2 archive");
    expect_bad_input("convert --format dumpi " + external(kScorep) + " " + temp_path("x.txt"),
                     "numprocs");
    expect_bad_input("convert " + external(kDumpi) + " " + temp_path("x.txt") + " --to otf3",
                     "expected text, binary, otf2 or goal");
}

TEST(CliOtf2Dumpi, BrokenArchivesAreOneLineWithExitCode2) {
    SKIP_WITHOUT_EXTERNAL();
    const fs::path copy = temp_path("cut");
    fs::remove_all(copy);
    fs::create_directories(copy / "traces");
    const fs::path src = external("otf2-scorep-sst-macro");
    for (const auto& e : fs::directory_iterator(src))
        if (e.is_regular_file()) fs::copy_file(e.path(), copy / e.path().filename());
    for (const auto& e : fs::directory_iterator(src / "traces"))
        fs::copy_file(e.path(), copy / "traces" / e.path().filename());
    fs::permissions(copy / "traces" / "7.evt", fs::perms::owner_write, fs::perm_options::add);
    fs::resize_file(copy / "traces" / "7.evt", 5000);
    const std::string star = model("star");
    expect_bad_input("run " + star + " --app trace:" + (copy / "traces.otf2").string(),
                     "rank 7) event ");
    fs::remove(copy / "traces" / "7.evt");
    expect_bad_input("compare " + (copy / "traces.otf2").string() + " " + temp_path("none"),
                     "7.evt' is missing");
    // DUMPI: a rank file cut in its records (the index at its end is gone)
    const fs::path d = temp_path("dumpi");
    fs::remove_all(d);
    fs::create_directories(d);
    for (const auto& e : fs::directory_iterator(external("dumpi-sst-dumpi")))
        fs::copy_file(e.path(), d / e.path().filename());
    fs::permissions(d / "testtrace-0002.bin", fs::perms::owner_write, fs::perm_options::add);
    fs::resize_file(d / "testtrace-0002.bin", 100);
    expect_bad_input("run " + star + " --app trace:" + (d / "testtrace.meta").string(),
                     "testtrace-0002.bin");
}

}  // namespace CLUSTERSIM_TEST_FILE
