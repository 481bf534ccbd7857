// The I/O side of `clustersim run`: the io app on the shipped I/O examples, --json's I/O
// fields, --cache, and the bad inputs the I/O flags and app parameters can carry.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>

#include "cli_fixtures.hpp"
#include "timeline_check.hpp"

namespace CLUSTERSIM_TEST_FILE {

using namespace clustersim::testing;

TEST(CliIo, ValidateReportsServersOfTheFigure5Example) {
    const Result r = run("validate " + example("figure5-io-8.xml"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("I/O"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("8 servers"), std::string::npos) << r.out;
}

TEST(CliIo, IoAppJsonHasPerServerFiguresThatAddUp) {
    const Result r = run("run " + example("io-strided.xml") +
                         " --ranks 8 --placement sequential --json --app "
                         "io:size=4MiB,transfer=64KiB,pattern=strided,mode=independent");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto& io = j.at("io");
    EXPECT_EQ(io.at("bytes_written").get<std::uint64_t>(), 8u * 4 * 1024 * 1024);
    ASSERT_EQ(io.at("servers").size(), 2u);
    std::uint64_t received = 0;
    for (const auto& s : io.at("servers")) {
        received += s.at("bytes_written").get<std::uint64_t>();
        for (const char* key : {"disk_busy_s", "track_seeks", "average_seeks", "cache_hits",
                                "disk_requests", "cache"})
            EXPECT_TRUE(s.contains(key)) << key;
        EXPECT_GT(s.at("disk_busy_s").get<double>(), 0.0);
    }
    EXPECT_EQ(received, io.at("bytes_written").get<std::uint64_t>());
    EXPECT_GT(io.at("throughput_bytes_per_s").get<double>(), 0.0);
    EXPECT_EQ(j.at("operations").at("File_write").at("count").get<int>(), 8 * 64);
}

TEST(CliIo, CacheFlagSwapsTheSchedulerAndReorderRemovesSeeks) {
    auto seeks = [](const std::string& cache) {
        const Result r = run("run " + example("io-strided.xml") +
                             " --ranks 8 --placement sequential --json --cache " + cache +
                             " --app io:size=4MiB,transfer=64KiB,pattern=strided");
        EXPECT_EQ(r.code, 0) << r.err;
        const auto j = nlohmann::json::parse(r.out);
        std::uint64_t n = 0;
        for (const auto& s : j.at("io").at("servers")) {
            EXPECT_EQ(s.at("cache").get<std::string>(), cache);
            n += s.at("track_seeks").get<std::uint64_t>() +
                 s.at("average_seeks").get<std::uint64_t>();
        }
        return n;
    };
    const auto fifo = seeks("none");
    const auto sorted = seeks("reorder");
    EXPECT_GT(fifo, 100u);
    EXPECT_LT(sorted * 10, fifo);
}

TEST(CliIo, ReadTestReadsAFileThatExistsBeforeTheRun) {
    const Result r = run("run " + example("figure5-io-8.xml") +
                         " --ranks 8 --app io:op=read,size=16MiB,transfer=4MiB");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("I/O throughput "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("aggregate"), std::string::npos) << r.out;  // one throughput
    EXPECT_NE(r.out.find("128 MiB read"), std::string::npos) << r.out;
}

TEST(CliIo, BadInputs) {
    const std::string m = example("io-strided.xml");
    expect_bad_input("run " + m + " --ranks 2 --app io:size=1GiB --cache lru",
                     "--cache: unknown cache layer 'lru'; valid: none, write_behind, aggregation, "
                     "reorder");
    expect_bad_input("run " + example("two-nodes.xml") + " --ranks 2 --app io:size=1MiB",
                     "no file system");
    expect_bad_input(
        "run " + example("two-nodes.xml") + " --ranks 2 --app io:size=1MiB --cache none",
        "has no <io-server>");
    expect_bad_input("run " + m + " --ranks 2 --app io:size=1MiB,transfer=300KiB",
                     "not a multiple of transfer");
    expect_bad_input("run " + m + " --ranks 2 --app io:pattern=diagonal",
                     "parameter 'pattern' is 'diagonal'; expected contiguous or strided");
    expect_bad_input("run " + m + " --ranks 2 --app io:files=per-rank,pattern=strided",
                     "needs files=shared");
    expect_bad_input("run " + m +
                         " --ranks 2 --app io:size=1MiB,mode=collective "
                         "--algorithm write_all=fast",
                     "valid: independent, two_phase");
    const std::string bad_disk = write_temp("bad-disk.xml", R"(<cluster name="x">
  <node-type name="t" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <node name="n0" type="t"/>
  <io-server node="n0">
    <disk model="hdd" rate="50MB/s" rpmm="7200"/>
  </io-server>
</cluster>
)");
    expect_bad_input("validate " + bad_disk,
                     "bad-disk.xml:5: <disk model=\"hdd\"> has no parameter 'rpmm'");
    const std::string bad_cache = write_temp("bad-cache.xml", R"(<cluster name="x">
  <node-type name="t" memory="1GiB"><socket name="s0" cores="1" speed="1G"/></node-type>
  <node name="n0" type="t"/>
  <io-server node="n0">
    <cache model="lru"/>
    <disk model="simple" rate="50MB/s"/>
  </io-server>
</cluster>
)");
    expect_bad_input("validate " + bad_cache,
                     "bad-cache.xml:5: unknown cache model 'lru'; valid: none, write_behind, "
                     "aggregation, reorder");
}

TEST(CliIo, HardwareTimelineHasDiskAndLinkTracks) {
    const std::string dir = temp_path("hw");
    const Result r = run("run " + example("figure5-io-8.xml") +
                         " --ranks 8 --app io:size=16MiB,transfer=4MiB --timeline-detail "
                         "hardware --out " +
                         dir);
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream f(dir + "/timeline.json");
    const auto doc = nlohmann::json::parse(f);
    clustersim::expect_valid_timeline(doc);
    int disks = 0, links = 0;
    for (const auto& e : doc.at("traceEvents"))
        if (e.at("ph") == "M" && e.at("name") == "thread_name") {
            const auto name = e.at("args").at("name").get<std::string>();
            disks += name.rfind("disk ", 0) == 0;
            links += name.rfind("link ", 0) == 0;
        }
    EXPECT_EQ(disks, 8);
    EXPECT_GT(links, 8);
    expect_bad_input("run " + example("figure5-io-8.xml") +
                         " --ranks 8 --app io:size=16MiB --timeline-detail hardware",
                     "'hardware' needs --out");
}
}  // namespace CLUSTERSIM_TEST_FILE
