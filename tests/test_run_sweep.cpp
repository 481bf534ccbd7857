// The sweep library without processes: a sweep file's grid (product, zip, seeds), the
// points' command lines and hashes, the generated models' keys, and bad sweep files (one
// error naming file:line).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "simulator/error.hpp"
#include "sweep/sweep.hpp"
#include "sweep/sweep_engine.hpp"

namespace clustersim::sweep {
namespace CLUSTERSIM_TEST_FILE {

const std::string kModel = std::string(CLUSTERSIM_SOURCE_DIR) + "/topologies/examples/star-16.xml";

std::string file_name() {
    return ::testing::TempDir() + "/sweep_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".json";
}

SweepSpec parse(const std::string& text) {
    return parse_sweep(text, file_name());
}

// The value of flag `flag` in a point's run arguments (all of them, in order).
std::vector<std::string> flag_values(const Point& p, const std::string& flag) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i + 1 < p.run_args.size(); ++i)
        if (p.run_args[i] == flag) out.push_back(p.run_args[i + 1]);
    return out;
}

TEST(SweepGrid, ProductIsRowMajorWithTheFirstAxisSlowest) {
    const auto spec = parse(R"({
      "base": {"model": ")" +
                            kModel + R"(", "app": "bcast:iterations=2", "network": "simple"},
      "axes": {"size": ["1KiB", "64KiB", "1MiB"],
               "algorithm": ["bcast=binomial", "bcast=scatter_allgather"],
               "ranks": [4, 8]}
    })");
    const auto points = expand(spec);
    ASSERT_EQ(points.size(), 12u);
    const std::vector<std::string> sizes = {"1KiB", "64KiB", "1MiB"};
    const std::vector<std::string> algs = {"bcast=binomial", "bcast=scatter_allgather"};
    const std::vector<std::string> ranks = {"4", "8"};
    for (std::size_t i = 0; i < points.size(); ++i) {
        const Point& p = points[i];
        EXPECT_EQ(p.index, i);
        const std::size_t s = i / 4, a = i / 2 % 2, r = i % 2;
        EXPECT_EQ(flag_values(p, "--app"),
                  std::vector<std::string>{"bcast:iterations=2,size=" + sizes[s]});
        EXPECT_EQ(flag_values(p, "--algorithm"), std::vector<std::string>{algs[a]});
        EXPECT_EQ(flag_values(p, "--ranks"), std::vector<std::string>{ranks[r]});
        EXPECT_EQ(flag_values(p, "--network"), std::vector<std::string>{"simple"});
        EXPECT_EQ(p.run_args.front(), "run");
        EXPECT_EQ(p.run_args[1], kModel);
        EXPECT_EQ(p.run_args.back(), "--json");
        ASSERT_EQ(p.axes.size(), 3u);
        EXPECT_EQ(p.axes[0].first, "size");
        EXPECT_EQ(value_text(p.axes[0].second), sizes[s]);
        EXPECT_EQ(value_text(p.axes[2].second), ranks[r]);
    }
    // Every point has its own hash, and the hash does not depend on the expansion.
    std::set<std::string> hashes;
    for (const auto& p : points) hashes.insert(p.hash);
    EXPECT_EQ(hashes.size(), points.size());
    const auto again = expand(parse(R"({
      "base": {"model": ")" + kModel +
                                    R"(", "app": "bcast:iterations=2", "network": "simple"},
      "axes": {"size": ["1KiB", "64KiB", "1MiB"],
               "algorithm": ["bcast=binomial", "bcast=scatter_allgather"],
               "ranks": [4, 8]}
    })"));
    for (std::size_t i = 0; i < points.size(); ++i) EXPECT_EQ(again[i].hash, points[i].hash);
}

TEST(SweepGrid, ZippedAxesAdvanceTogetherAndSeedsRepeat) {
    const auto spec = parse(R"({
      "base": {"model": ")" +
                            kModel + R"(", "app": "pingpong"},
      "axes": {"size": ["1KiB", "1MiB", "16MiB"],
               "network": ["simple", "packet"],
               "iterations": [100, 10, 1],
               "seed": 3},
      "zip": [["size", "iterations"]]
    })");
    const auto points = expand(spec);
    ASSERT_EQ(points.size(), 3u * 2u * 3u);
    const std::vector<std::pair<std::string, std::string>> zipped = {
        {"1KiB", "100"}, {"1MiB", "10"}, {"16MiB", "1"}};
    for (std::size_t i = 0; i < points.size(); ++i) {
        const std::size_t z = i / 6, n = i / 3 % 2, seed = i % 3 + 1;
        const auto apps = flag_values(points[i], "--app");
        ASSERT_EQ(apps.size(), 1u);
        EXPECT_EQ(apps[0], "pingpong:size=" + zipped[z].first + ",iterations=" + zipped[z].second);
        EXPECT_EQ(flag_values(points[i], "--network")[0], n == 0 ? "simple" : "packet");
        EXPECT_EQ(flag_values(points[i], "--seed"), std::vector<std::string>{std::to_string(seed)});
    }
}

TEST(SweepGrid, GeneratedModelsAreKeyedByTheirGeneratorArguments) {
    const auto spec = parse(R"({
      "base": {"generate": {"topology": "fat-tree", "down": "4,2", "up": "1,2",
                            "nic": "analytical"},
               "app": "bcast:size=1MiB"},
      "axes": {"link-bandwidth": ["1GB/s", "10GB/s"], "algorithm": ["bcast=binomial",
               "bcast=linear"]}
    })");
    const auto points = expand(spec);
    ASSERT_EQ(points.size(), 4u);
    EXPECT_EQ(points[0].model_key, points[1].model_key);  // same model, other algorithm
    EXPECT_NE(points[0].model_key, points[2].model_key);
    EXPECT_EQ(points[0].run_args[1], "models/" + points[0].model_key + ".xml");
    EXPECT_EQ(points[2].generate_args,
              (std::vector<std::string>{"generate", "fat-tree", "--down", "4,2", "--up", "1,2",
                                        "--nic", "analytical", "--link-bandwidth", "10GB/s"}));
    EXPECT_NE(points[0].hash, points[2].hash);
}

TEST(SweepGrid, TheHashFollowsTheModelFilesContent) {
    const std::string model = ::testing::TempDir() + "/sweep_hash_model.xml";
    std::filesystem::copy_file(kModel, model, std::filesystem::copy_options::overwrite_existing);
    const std::string text =
        R"({"base": {"model": ")" + model + R"(", "app": "pingpong"}, "axes": {"size": ["1KiB"]}})";
    const std::string before = expand(parse(text))[0].hash;
    std::ofstream(model, std::ios::app) << "<!-- changed -->\n";
    EXPECT_NE(expand(parse(text))[0].hash, before);
    std::filesystem::remove(model);
}

TEST(SweepGrid, CostEstimatePutsTheLargestPointsFirst) {
    const auto points = expand(parse(R"({
      "base": {"model": ")" + kModel +
                                     R"(", "app": "bcast"},
      "axes": {"size": ["1KiB", "16MiB", "64KiB"], "ranks": [2, 16]}})"));
    // ranks x iterations x (1 + size / 64 KiB)
    EXPECT_DOUBLE_EQ(points[0].cost, 2 * (1 + 1.0 / 64));
    EXPECT_DOUBLE_EQ(points[3].cost, 16 * (1 + 256.0));
    EXPECT_DOUBLE_EQ(points[5].cost, 16 * 2.0);
}

// Bad sweep files: InputError naming the file and the line of the offending key.
void expect_error(const std::string& text, int line, const std::string& needle) {
    try {
        expand(parse(text));
        ADD_FAILURE() << "no error for: " << text;
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), file_name()) << e.what();
        EXPECT_EQ(e.line(), line) << e.what();
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(SweepBadInput, EveryMistakeNamesTheLine) {
    const std::string m = R"("model": ")" + kModel + R"(")";
    expect_error(
        "{\n \"base\": {" + m + ", \"app\": \"pingpong\"},\n \"axes\": {\"size\": [\"1KiB\",]}\n}",
        3, "not valid JSON");
    expect_error("{\n \"base\": {" + m + ", \"app\": \"pingpong\"},\n \"axis\": {}\n}", 3,
                 "unknown key 'axis'");
    expect_error("{\n \"base\": {" + m + ",\n  \"apps\": \"pingpong\"}\n}", 3,
                 "base: unknown key 'apps'");
    expect_error(
        "{\n \"base\": {" + m + ", \"app\": \"pingpong\"},\n \"axes\": {\n  \"size\": []\n }\n}", 4,
        "axes.size: expected a non-empty list");
    expect_error("{\n \"base\": {" + m +
                     ", \"app\": \"pingpong\"},\n \"axes\": {\n  \"nodes\": [2, 4]\n }\n}",
                 4, "needs base.generate");
    expect_error("{\n \"base\": {" + m +
                     ", \"app\": \"pingpong\"},\n \"axes\": {\"size\": [\"1KiB\", \"2KiB\"], "
                     "\"iterations\": [1, 2, 3]},\n \"zip\": [[\"size\",\n  \"iterations\"]]\n}",
                 5, "differ in length");
    expect_error("{\n \"base\": {" + m +
                     ", \"app\": \"pingpong\"},\n \"axes\": {\"size\": [\"1KiB\"]},\n \"zip\": "
                     "[[\"size\", \"ranks\"]]\n}",
                 4, "'ranks' is not an axis");
    expect_error("{\n \"base\": {\"model\": \"no-such-model.xml\", \"app\": \"pingpong\"}\n}", 2,
                 "base.model: no file");
    expect_error("{\n \"base\": {\"app\": \"pingpong\"}\n}", 2, "needs a model");
    expect_error("{\n \"base\": {" + m +
                     ", \"app\": \"pingpong\"},\n \"limits\": {\"wall_time\": \"10\"}\n}",
                 3, "limits.wall_time");
    expect_error("{\n \"base\": {" + m + ", \"app\": \"pingpong\", \"flags\": [\"--json\"]}\n}", 2,
                 "set by the sweep itself");
    expect_error("{\n \"base\": {" + m +
                     ", \"app\": \"pingpong\"},\n \"axes\": {\"size\": [\"1B\", "
                     "\"2B\", \"3B\"], \"seed\": 100000}\n}",
                 3, "300000 points; at most 200,000");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::sweep
