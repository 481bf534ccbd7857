// JSON nested far deeper than any file of the project's is refused before a document is built
// (issue 53, "signals"): a sweep results line nested 200,000 deep ended `sweep plot` in a
// segmentation fault; sweep files, the results a resumed sweep reads and `sweep collect`'s
// sweep.json take the same check (sweep/json_depth.hpp). One line naming the file and line, exit
// 2; JSON nested 256 levels still parses to its usual error or result. The line is the one
// where the text goes past the limit (nlohmann's SAX pass stops there; a bracket scan finds
// its line), and for JSON Lines files the line of the record.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli_fixtures.hpp"
#include "sweep/json_depth.hpp"

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
    EXPECT_FALSE(sweep::json_too_deep("{\"a\": [1, {\"b\": []}]}"));
    EXPECT_FALSE(sweep::json_too_deep(nested(256)));
    EXPECT_TRUE(sweep::json_too_deep(nested(257)));
    EXPECT_TRUE(sweep::json_too_deep(nested(2'000'000)));
    EXPECT_FALSE(sweep::json_too_deep("{not json"));  // the parser that follows says why
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
    expect_bad_input("sweep collect " + dir, "sweep.json:1: JSON nested more than 256 levels deep");
}

// The whole error output: one line, exit 2, nothing on stdout, no signal.
void expect_line(const std::string& args, const std::string& line) {
    const testing::Result r = testing::run(args);
    EXPECT_EQ(r.code, 2) << r.err.substr(0, 300);
    EXPECT_EQ(r.err, "clustersim: error: " + line + "\n");
    EXPECT_EQ(r.out, "");
}

const std::string kTooDeep =
    "JSON nested more than 256 levels deep (this file's JSON nests a few levels; refused "
    "before it is read)";

TEST(JsonDepth, TheLineIsWhereTheTextGoesPastTheLimit) {
    EXPECT_EQ(sweep::json_too_deep_line(nested(256)), 0);
    EXPECT_EQ(sweep::json_too_deep_line("{\n\"a\": \"[[[\\\"[\",\n\"b\":\n" + nested(300) + "}"),
              4);
    EXPECT_EQ(sweep::json_too_deep_line(std::string(200, '[') + "\n\n" + nested(100)), 3);
    try {
        sweep::check_json_depth("{\"x\":\n" + nested(257) + "}", "f.json", 10);
        ADD_FAILURE() << "not refused";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), "f.json:11: " + kTooDeep);
    }
    EXPECT_NO_THROW(sweep::check_json_depth(nested(256), "f.json"));
}

TEST(JsonDepth, ADeepSweepFileIsRefusedAtItsLineEvenInAnUncheckedField) {
    const std::string path = write_temp(
        "deep-sweep.json", "{\n  \"base\": {\"model\": \"" + testing::example("star-16.xml") +
                               "\", \"app\": \"barrier\"},\n  \"axes\": {\"ranks\": [2]},\n"
                               "  \"x-notes\": " +
                               nested(200'000) + "\n}\n");
    expect_line("sweep " + path + " --list", path + ":4: " + kTooDeep);
}

TEST(JsonDepth, ADeepJournalLineOfSweepCollectIsRefusedAtItsLine) {
    const std::string dir = temp_path("collect-journal");
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string sweep = write_temp(
        "journal-sweep.json", "{\"base\": {\"model\": \"" + testing::example("star-16.xml") +
                                  "\", \"app\": \"barrier\"}, \"axes\": {\"ranks\": [2]}}\n");
    { std::ofstream(dir + "/sweep.json") << "{\"file\": \"" << sweep << "\"}\n"; }
    {
        std::ofstream(dir + "/journal.jsonl")
            << "{\"hash\": \"0\", \"status\": \"failed\"}\n"
            << "{\"hash\": \"1\", \"status\": \"ok\", \"result\": " << nested(200'000) << "}\n";
    }
    expect_line("sweep collect " + dir,
                fs::canonical(dir).string() + "/journal.jsonl:2: " + kTooDeep);
}

TEST(JsonDepth, ADeepResultsLineOfSweepPlotIsRefusedAtItsLine) {
    // The deep value is the one --y picks: never reached, the line is refused first.
    const std::string path =
        write_temp("deep-results.jsonl",
                   "{\"status\": \"ok\", \"axes\": {\"ranks\": 2}, \"result\": {\"t\": 1}}\n"
                   "{\"status\": \"ok\", \"axes\": {\"ranks\": 4}, \"result\": {\"t\": " +
                       nested(200'000) + "}}\n");
    expect_line("sweep plot " + path + " --x ranks --y t", path + ":2: " + kTooDeep);
    expect_line("sweep plot " + path + " --x ranks --y t --series t", path + ":2: " + kTooDeep);
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
