// JSON nested far deeper than any file of the project's is refused before a document is built
// (issue 53, "signals"): a sweep results line nested 200,000 deep ended `sweep plot` in a
// segmentation fault; sweep files, the results a resumed sweep reads and `sweep collect`'s
// sweep.json take the same check (run/json_depth.hpp). One line naming the file and line, exit
// 2; JSON nested 256 levels still parses to its usual error or result.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli_fixtures.hpp"
#include "run/json_depth.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using testing::expect_bad_input;
using testing::temp_path;
using testing::write_temp;
namespace fs = std::filesystem;

std::string nested(std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

TEST(JsonDepth, TheSaxPassCountsWithoutBuildingADocument) {
    EXPECT_FALSE(run::json_too_deep("{\"a\": [1, {\"b\": []}]}"));
    EXPECT_FALSE(run::json_too_deep(nested(256)));
    EXPECT_TRUE(run::json_too_deep(nested(257)));
    EXPECT_TRUE(run::json_too_deep(nested(2'000'000)));
    EXPECT_FALSE(run::json_too_deep("{not json"));  // the parser that follows says why
}

TEST(JsonDepth, DeepJsonIsRefusedByEveryReaderNotASignal) {
    const std::string deep = nested(200'000);
    expect_bad_input("sweep plot " +
                         write_temp("deep.jsonl", "{\"status\": \"ok\", \"x\": " + deep + "}\n") +
                         " --x x --y x",
                     "deep.jsonl:1: JSON nested more than 256 levels deep");
    expect_bad_input("sweep " +
                         write_temp("deep.json",
                                    "{\"base\": {\"model\": \"m.xml\", \"app\": "
                                    "\"barrier\"}, \"description\": " +
                                        deep + "}\n") +
                         " --list",
                     "deep.json:1: JSON nested more than 256 levels deep");
    const std::string dir = temp_path("collect");
    fs::remove_all(dir);
    fs::create_directories(dir);
    { std::ofstream(dir + "/sweep.json") << "{\"file\": " << deep << "}\n"; }
    expect_bad_input("sweep collect " + dir, "sweep.json: JSON nested more than 256 levels deep");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
