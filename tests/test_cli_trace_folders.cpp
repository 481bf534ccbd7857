// Trace folders as users find them (issue 55): a folder holding an OTF2 archive or a DUMPI
// trace is detected by its content without --format; a folder unpacked from a tarball made on
// macOS holds AppleDouble "._NAME.meta" / "._NAME.otf2" files beside the trace's, which are
// not the trace ("the folder holds more than one DUMPI .meta file"); a folder of neither says
// so and names --format.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli_fixtures.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;
namespace fs = std::filesystem;

const std::string kExt = std::string(CLUSTERSIM_SHARED_DIR) + "/external";

// A copy of `from`'s files in a folder of this test's own, with macOS's companions added.
std::string with_apple_double(const std::string& from, const std::string& name) {
    const std::string dir = temp_path(name);
    fs::remove_all(dir);
    fs::copy(from, dir, fs::copy_options::recursive);
    for (const auto& e : fs::directory_iterator(from)) {
        if (!e.is_regular_file()) continue;
        std::ofstream(dir + "/._" + e.path().filename().string(), std::ios::binary)
            << std::string("\0\5\026\007\0\2\0\0Mac OS X        ", 24);
    }
    return dir;
}

std::string replay(const std::string& trace, const std::string& extra = "") {
    return "run " + example("star-16.xml") + " --app trace:" + trace + " --oversubscribe" + extra;
}

TEST(TraceFolders, ADumpiFolderFromATarballMadeOnMacOsIsDetectedAndRead) {
    const std::string src = kExt + "/dumpi-sst-dumpi";
    if (!fs::exists(src)) GTEST_SKIP() << src << " is not there";
    const std::string dir = with_apple_double(src, "dumpi");
    ASSERT_TRUE(fs::exists(dir + "/._testtrace.meta"));
    const Result r = testing::run(replay(dir));
    EXPECT_EQ(r.code, 0) << r.err;
    const Result f = testing::run(replay(dir, " --format dumpi"));
    EXPECT_EQ(f.code, 0) << f.err;
    // The results (from the simulated time to the simulator's own wall-time line).
    auto results = [](const std::string& out) {
        const std::size_t from = out.find("simulated time");
        return out.substr(from, out.find("  simulator:") - from);
    };
    EXPECT_EQ(results(r.out), results(f.out)) << "detected or named, the same trace";
}

TEST(TraceFolders, AnOtf2FolderIsDetectedWithoutFormat) {
    const std::string src = kExt + "/otf2-scorep-sst-macro";
    if (!fs::exists(src)) GTEST_SKIP() << src << " is not there";
    const std::string dir = with_apple_double(src, "otf2");
    const Result r = testing::run(replay(dir));
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("simulated time"), std::string::npos) << r.out;
}

TEST(TraceFolders, AFolderOfNeitherNamesFormat) {
    const std::string dir = temp_path("empty");
    fs::remove_all(dir);
    fs::create_directories(dir);
    expect_bad_input(replay(dir), "name its format with --format (");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
