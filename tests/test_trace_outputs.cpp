// Outputs of a run: Chrome trace-event timelines (schema check), statistics (per rank, per
// operation, histograms, CSV, summary) and the SVG charts.
#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "report/stats.hpp"
#include "report/svg.hpp"
#include "report/timeline.hpp"
#include "simulator/error.hpp"
#include "timeline_check.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using namespace ::testing;
using mpi::OpKind;
using traces::RunLog;

constexpr int kCompute = static_cast<int>(OpKind::Compute);
constexpr int kSend = static_cast<int>(OpKind::Send);
constexpr int kRecv = static_cast<int>(OpKind::Recv);
constexpr int kWriteAt = static_cast<int>(OpKind::FileWriteAt);
constexpr int kBcast = mpi::kOpKinds + static_cast<int>(mpi::CollOp::Bcast);
constexpr int kIbcast = mpi::kOpKinds + mpi::kCollOps + static_cast<int>(mpi::CollOp::Bcast);

mpi::OpEvent op(std::int32_t rank, int kind, std::int64_t start_us, std::int64_t end_us,
                std::uint64_t bytes = 0, std::int64_t wait_us = 0, std::int32_t peer = -1) {
    mpi::OpEvent e;
    e.rank = rank;
    e.kind = kind;
    e.start = Time::us(start_us);
    e.end = Time::us(end_us);
    e.wait = Time::us(wait_us);
    e.bytes = bytes;
    e.peer = peer;
    return e;
}
mpi::OpEvent coll(std::int32_t rank, int kind, std::int64_t start_us, std::int64_t end_us,
                  std::uint64_t bytes, std::uint32_t comm, std::uint32_t seq) {
    mpi::OpEvent e = op(rank, kind, start_us, end_us, bytes);
    e.comm = comm;
    e.seq = seq;
    return e;
}

// Three ranks (two on n0, one on n1):
//   rank 0: Compute [0,10) | Send 1 MiB to 1 [10,30) wait 5 | Bcast [30,32) | File_write_at [32,40)
//   rank 1: Compute [0,15) | Recv 1 MiB from 0 [15,30)      | Bcast [30,37)
//   rank 2: Compute [0,36)                                   | Bcast [36,37) | Ibcast [37,37)
// The Bcast (comm 0, seq 0) is entered at 30, 30 and 36: rank 0 waits min(6, 2) = 2 us,
// rank 1 min(6, 7) = 6 us, rank 2 none.
RunLog sample_log() {
    RunLog log;
    log.title = "sample on test-cluster (simulated)";
    log.ranks = {{"app", 0, "n0"}, {"app", 1, "n0"}, {"app", 2, "n1"}};
    log.ops = {
        op(0, kCompute, 0, 10),
        op(1, kCompute, 0, 15),
        op(0, kSend, 10, 30, 1 << 20, 5, 1),
        op(1, kRecv, 15, 30, 1 << 20, 0, 0),
        coll(0, kBcast, 30, 32, 100, 0, 0),
        op(2, kCompute, 0, 36),
        coll(1, kBcast, 30, 37, 100, 0, 0),
        coll(2, kBcast, 36, 37, 100, 0, 0),
        coll(2, kIbcast, 37, 37, 0, 0, 1),
        op(0, kWriteAt, 32, 40, 4096),
    };
    log.hardware = {{"disk n1", Time::us(32), Time::us(40), "write 4 KiB"},
                    {"link n0->sw", Time::us(15), Time::us(30), "1 MiB"},
                    {"link n0->sw", Time::us(20), Time::us(25), "64 B"}};
    log.simulated = Time::us(40);
    return log;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string> read_lines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::string temp_path(const std::string& name) {
    return (std::filesystem::path(::testing::TempDir()) / name).string();
}

// --- timeline -------------------------------------------------------------------------------

TEST(TraceTimeline, SchemaOfWrittenFile) {
    const RunLog log = sample_log();
    const std::string path = temp_path("trace_outputs_timeline.json");
    traces::write_timeline(log, path);
    const auto doc = nlohmann::json::parse(read_text(path));
    expect_valid_timeline(doc);
    EXPECT_EQ(doc["displayTimeUnit"], "ns");

    std::map<std::int64_t, std::string> threads;
    std::string process;
    for (const auto& e : doc["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "thread_name")
            threads[e["tid"].get<std::int64_t>()] = e["args"]["name"];
        if (e["ph"] == "M" && e["name"] == "process_name") process = e["args"]["name"];
    }
    EXPECT_EQ(process, log.title);
    EXPECT_EQ(threads[0], "rank 0 (app app rank 0) on n0");
    EXPECT_EQ(threads[1], "rank 1 (app app rank 1) on n0");
    EXPECT_EQ(threads[2], "rank 2 (app app rank 2) on n1");
    // Hardware after the ranks, by track name; the overlapping link spans take two lanes.
    EXPECT_EQ(threads[3], "disk n1");
    EXPECT_EQ(threads[4], "link n0->sw");
    EXPECT_EQ(threads[5], "link n0->sw (2)");
    EXPECT_EQ(threads.size(), 6u);
}

TEST(TraceTimeline, OperationsAndNestedWaits) {
    const RunLog log = sample_log();
    const auto doc = nlohmann::json::parse(traces::timeline_json({{"simulated", &log}}));
    expect_valid_timeline(doc);

    std::vector<nlohmann::json> x;
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] == "X") x.push_back(e);
    // 10 operations, 3 waits (Send, two Bcasts), 3 hardware spans.
    ASSERT_EQ(x.size(), 16u);
    int waits = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (x[i]["name"] != "wait") continue;
        ++waits;
        ASSERT_GT(i, 0u);
        EXPECT_EQ(x[i]["ts"], x[i - 1]["ts"]);  // starts with its operation, right after it
    }
    EXPECT_EQ(waits, 3);

    // Rank 0 in order: Compute, Send (+wait), Bcast (+wait), File_write_at.
    std::vector<std::string> names;
    for (const auto& e : x)
        if (e["tid"] == 0) names.push_back(e["name"]);
    EXPECT_THAT(names, ElementsAre("Compute", "Send", "wait", "Bcast", "wait", "File_write_at"));
    const auto& send = x[1];
    EXPECT_EQ(send["cat"], "mpi");
    EXPECT_DOUBLE_EQ(send["ts"].get<double>(), 10.0);
    EXPECT_DOUBLE_EQ(send["dur"].get<double>(), 20.0);
    EXPECT_EQ(send["args"]["bytes"], 1 << 20);
    EXPECT_EQ(send["args"]["peer"], 1);
    EXPECT_DOUBLE_EQ(send["args"]["wait_us"].get<double>(), 5.0);
    EXPECT_DOUBLE_EQ(x[2]["dur"].get<double>(), 5.0);
    EXPECT_EQ(x[0]["cat"], "compute");
    EXPECT_EQ(x[5]["cat"], "io");
    EXPECT_EQ(x[3]["args"]["wait_us"], 2);

    // The zero-length Ibcast is kept.
    bool ibcast = false;
    for (const auto& e : x)
        if (e["name"] == "Ibcast") {
            ibcast = true;
            EXPECT_EQ(e["dur"], 0);
            EXPECT_EQ(e["tid"], 2);
        }
    EXPECT_TRUE(ibcast);
}

TEST(TraceTimeline, ExactMicroseconds) {
    RunLog log;
    log.ranks = {{"a", 0, "n0"}};
    mpi::OpEvent e = op(0, kCompute, 0, 0);
    e.start = Time::ps(123'456'789'012'345);  // 123.456789012345 s
    e.end = Time::ps(123'456'789'012'346);    // 1 ps later
    log.ops = {op(0, kCompute, 0, 0), e};
    log.ops[0].end = Time::ps(1);
    const std::string text = traces::timeline_json({{"run", &log}});
    EXPECT_NE(text.find(R"("ts":0,"dur":0.000001)"), std::string::npos) << text;
    EXPECT_NE(text.find(R"("ts":123456789.012345,"dur":0.000001)"), std::string::npos) << text;
    expect_valid_timeline(nlohmann::json::parse(text));
}

TEST(TraceTimeline, SideBySideRuns) {
    const RunLog simulated = sample_log();
    RunLog recorded = sample_log();
    recorded.hardware.clear();
    for (auto& e : recorded.ops) {
        e.start = e.start + Time::us(1);
        e.end = e.end + Time::us(2);
    }
    // Recorded data may overlap by rounding; the timeline still gets a clean track.
    recorded.ops.push_back(op(0, kCompute, 40, 45));
    recorded.ops.push_back(op(0, kCompute, 44, 46));
    const std::string path = temp_path("trace_outputs_side_by_side.json");
    traces::write_timelines({{"recorded", &recorded}, {"simulated", &simulated}}, path);
    const auto doc = nlohmann::json::parse(read_text(path));
    expect_valid_timeline(doc);
    std::map<std::int64_t, std::string> processes;
    std::set<std::pair<std::int64_t, std::int64_t>> rank_threads;
    for (const auto& e : doc["traceEvents"]) {
        if (e["name"] == "process_name")
            processes[e["pid"].get<std::int64_t>()] = e["args"]["name"];
        if (e["name"] == "thread_name" && e["args"]["name"].get<std::string>().starts_with("rank "))
            rank_threads.insert({e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()});
    }
    EXPECT_EQ(processes, (std::map<std::int64_t, std::string>{{1, "recorded"}, {2, "simulated"}}));
    EXPECT_EQ(rank_threads.size(), 6u);
    EXPECT_EQ(doc["otherData"]["runs"].size(), 2u);
}

TEST(TraceTimeline, BadPathIsInputError) {
    const RunLog log = sample_log();
    EXPECT_THROW(traces::write_timeline(log, "/nonexistent-dir/x/timeline.json"), InputError);
}

TEST(TraceTimeline, CheckerCatchesBrokenTimelines) {
    auto doc = [](const std::string& events) {
        return nlohmann::json::parse(
            R"({"traceEvents":[{"name":"process_name","ph":"M","pid":1,"tid":0,"ts":0,"args":{"name":"p"}},)"
            R"({"name":"thread_name","ph":"M","pid":1,"tid":0,"ts":0,"args":{"name":"t"}},)" +
            events + "]}");
    };
    expect_valid_timeline(doc(R"({"name":"A","ph":"X","pid":1,"tid":0,"ts":0,"dur":2},)"
                              R"({"name":"wait","ph":"X","pid":1,"tid":0,"ts":0,"dur":1},)"
                              R"({"name":"B","ph":"X","pid":1,"tid":0,"ts":2,"dur":0})"));
    EXPECT_NONFATAL_FAILURE(
        expect_valid_timeline(doc(R"({"name":"A","ph":"X","pid":1,"tid":0,"ts":0,"dur":2},)"
                                  R"({"name":"B","ph":"X","pid":1,"tid":0,"ts":1,"dur":2})")),
        "overlaps");
    EXPECT_NONFATAL_FAILURE(
        expect_valid_timeline(doc(R"({"name":"A","ph":"X","pid":1,"tid":0,"ts":0,"dur":2},)"
                                  R"({"name":"wait","ph":"X","pid":1,"tid":0,"ts":1,"dur":2})")),
        "wait outside");
    EXPECT_NONFATAL_FAILURE(
        expect_valid_timeline(doc(R"({"name":"A","ph":"X","pid":1,"tid":0,"ts":5,"dur":2},)"
                                  R"({"name":"B","ph":"X","pid":1,"tid":0,"ts":1,"dur":2})")),
        "not sorted");
    EXPECT_NONFATAL_FAILURE(
        expect_valid_timeline(doc(R"({"name":"A","ph":"X","pid":1,"tid":7,"ts":5,"dur":2})")),
        "no thread_name");
    EXPECT_NONFATAL_FAILURE(
        expect_valid_timeline(doc(R"({"name":"A","ph":"B","pid":1,"tid":0,"ts":5})")),
        "neither X nor M");
    EXPECT_NONFATAL_FAILURE(
        expect_valid_timeline(doc(R"({"name":"A","ph":"X","pid":1,"tid":0,"ts":5})")), "dur");
}

// --- statistics -----------------------------------------------------------------------------

TEST(TraceStats, CollectiveWaitFromStaggeredEntries) {
    const RunLog log = sample_log();
    const auto waits = traces::effective_waits(log);
    ASSERT_EQ(waits.size(), log.ops.size());
    EXPECT_EQ(waits[2], Time::us(5));  // Send: from the event
    EXPECT_EQ(waits[3], Time::zero());
    EXPECT_EQ(waits[4], Time::us(2));   // rank 0 Bcast: left before rank 2 entered
    EXPECT_EQ(waits[6], Time::us(6));   // rank 1 Bcast: 30 -> 36
    EXPECT_EQ(waits[7], Time::zero());  // rank 2 entered last
    EXPECT_EQ(waits[8], Time::zero());  // nonblocking
}

TEST(TraceStats, UnnumberedCollectivesKeepEventWait) {
    RunLog log;
    log.ranks = {{"a", 0, "n0"}, {"a", 1, "n0"}};
    log.ops = {coll(0, kBcast, 0, 10, 8, 0, 0), coll(0, kBcast, 10, 20, 8, 0, 0),
               coll(1, kBcast, 5, 20, 8, 0, 0)};
    log.ops[2].wait = Time::us(1);
    const auto waits = traces::effective_waits(log);
    EXPECT_THAT(waits, ElementsAre(Time::zero(), Time::zero(), Time::us(1)));
}

TEST(TraceStats, PerRankSums) {
    const RunLog log = sample_log();
    const traces::Stats st = traces::compute_stats(log);
    ASSERT_EQ(st.ranks.size(), 3u);
    const auto& r0 = st.ranks[0];
    EXPECT_EQ(r0.compute, Time::us(10));
    EXPECT_EQ(r0.comm, Time::us(15));  // Send 20 - 5, Bcast 2 - 2
    EXPECT_EQ(r0.wait, Time::us(7));
    EXPECT_EQ(r0.io, Time::us(8));
    EXPECT_EQ(r0.total, Time::us(40));
    EXPECT_EQ(r0.idle, Time::zero());
    EXPECT_EQ(r0.ops, 4u);
    EXPECT_EQ(r0.bytes_p2p, 1u << 20);
    EXPECT_EQ(r0.bytes_collective, 100u);
    EXPECT_EQ(r0.bytes_written, 4096u);
    EXPECT_EQ(r0.bytes_read, 0u);
    const auto& r1 = st.ranks[1];
    EXPECT_EQ(r1.compute, Time::us(15));
    EXPECT_EQ(r1.comm, Time::us(16));  // Recv 15, Bcast 7 - 6
    EXPECT_EQ(r1.wait, Time::us(6));
    EXPECT_EQ(r1.io, Time::zero());
    EXPECT_EQ(r1.total, Time::us(37));
    const auto& r2 = st.ranks[2];
    EXPECT_EQ(r2.compute, Time::us(36));
    EXPECT_EQ(r2.comm, Time::us(1));
    EXPECT_EQ(r2.wait, Time::zero());
    EXPECT_EQ(r2.total, Time::us(37));
    EXPECT_EQ(st.finish, Time::us(40));
    EXPECT_EQ(st.compute, Time::us(61));
    EXPECT_EQ(st.wait, Time::us(13));
    EXPECT_EQ(st.ops, 10u);
}

TEST(TraceStats, PerOperationKind) {
    const traces::Stats st = traces::compute_stats(sample_log());
    ASSERT_EQ(st.kinds.size(), static_cast<std::size_t>(mpi::kStatKinds));
    const auto& c = st.kinds[kCompute];
    EXPECT_EQ(c.count, 3u);
    EXPECT_EQ(c.time, Time::us(61));
    EXPECT_EQ(c.min, Time::us(10));
    EXPECT_EQ(c.max, Time::us(36));
    EXPECT_EQ(c.mean(), Time::ps(61'000'000 / 3));
    const auto& b = st.kinds[kBcast];
    EXPECT_EQ(b.count, 3u);
    EXPECT_EQ(b.time, Time::us(10));
    EXPECT_EQ(b.wait, Time::us(8));
    EXPECT_EQ(b.bytes, 300u);
    EXPECT_EQ(st.kinds[kSend].count, 1u);
    EXPECT_EQ(st.kinds[kSend].wait, Time::us(5));
    EXPECT_EQ(st.kinds[kRecv].bytes, 1u << 20);
    EXPECT_EQ(st.kinds[kIbcast].count, 1u);
    EXPECT_EQ(st.kinds[kWriteAt].bytes, 4096u);
    EXPECT_EQ(st.kinds[static_cast<int>(OpKind::Isend)].count, 0u);
}

TEST(TraceStats, Histograms) {
    const traces::Stats st = traces::compute_stats(sample_log());
    // Sizes: Send and Recv 1 MiB, three Bcasts of 100 B, an Ibcast of 0 B.
    EXPECT_EQ(st.sizes.total, 6u);
    ASSERT_FALSE(st.sizes.bins.empty());
    EXPECT_EQ(st.sizes.bins.front().label, "0 B");
    EXPECT_EQ(st.sizes.bins.front().count, 1u);
    EXPECT_EQ(st.sizes.bins.back().label, "1 MiB–2 MiB");
    EXPECT_EQ(st.sizes.bins.back().count, 2u);
    EXPECT_EQ(st.sizes.bins.size(), 22u);  // 0 B, then 2^0 ... 2^20
    const auto* mib = st.sizes.find(1 << 20);
    ASSERT_NE(mib, nullptr);
    EXPECT_EQ(mib->label, "1 MiB–2 MiB");
    const auto* b100 = st.sizes.find(100);
    ASSERT_NE(b100, nullptr);
    EXPECT_EQ(b100->label, "64 B–128 B");
    EXPECT_EQ(b100->count, 3u);
    EXPECT_EQ(st.sizes.find(1)->label, "1 B–2 B");

    // Bandwidth: Send and Recv each moved 1 MiB in 15 us of activity: 69.9 GB/s.
    EXPECT_EQ(st.bandwidth.total, 2u);
    ASSERT_EQ(st.bandwidth.bins.size(), 1u);
    EXPECT_EQ(st.bandwidth.bins[0].label, "64 GiB/s–128 GiB/s");
    EXPECT_EQ(st.bandwidth.bins[0].count, 2u);
    EXPECT_EQ(st.bandwidth.find((1 << 20) / 15e-6), &st.bandwidth.bins[0]);
}

TEST(TraceStats, CsvFiles) {
    const RunLog log = sample_log();
    const traces::Stats st = traces::compute_stats(log);
    const auto dir = std::filesystem::path(::testing::TempDir()) / "trace_outputs_csv";
    std::filesystem::create_directories(dir);
    traces::write_stats_csv(st, log, dir.string());

    const auto ranks = read_lines((dir / "ranks.csv").string());
    ASSERT_EQ(ranks.size(), 4u);
    EXPECT_EQ(ranks[0],
              "rank,app,app_rank,node,total_s,compute_s,comm_s,wait_s,io_s,idle_s,ops,bytes_p2p,"
              "bytes_collective,bytes_written,bytes_read");
    EXPECT_EQ(ranks[1],
              "0,app,0,n0,0.00004,0.00001,0.000015,0.000007,0.000008,0,4,1048576,100,4096,0");

    const auto ops = read_lines((dir / "operations.csv").string());
    EXPECT_EQ(ops[0], "operation,kind,count,total_s,wait_s,bytes,min_s,mean_s,max_s");
    EXPECT_EQ(ops.size(), 7u);  // Compute Send Recv File_write_at Bcast Ibcast
    EXPECT_EQ(ops[1], "Compute,0,3,0.000061,0,0,0.00001,0.000020333333,0.000036");

    const auto sizes = read_lines((dir / "histogram_sizes.csv").string());
    EXPECT_EQ(sizes[0], "bin,lower_bytes,upper_bytes,count");
    EXPECT_EQ(sizes.size(), 23u);
    EXPECT_EQ(sizes.back(), "1 MiB–2 MiB,1048576,2097152,2");

    const auto bw = read_lines((dir / "histogram_bandwidth.csv").string());
    EXPECT_EQ(bw[0], "bin,lower_bytes_per_s,upper_bytes_per_s,count");
    EXPECT_EQ(bw.size(), 2u);

    EXPECT_THROW(traces::write_stats_csv(st, log, (dir / "missing" / "deeper").string()),
                 InputError);
}

TEST(TraceStats, SummaryText) {
    const RunLog log = sample_log();
    const traces::Stats st = traces::compute_stats(log);
    const std::string all = traces::format_stats(st, log);
    EXPECT_THAT(all, HasSubstr(log.title));
    EXPECT_THAT(all, HasSubstr("3 ranks, 10 operations, finished at 40 us"));
    EXPECT_THAT(all, HasSubstr("Bcast"));
    EXPECT_THAT(all, HasSubstr("File_write_at"));
    EXPECT_THAT(all, HasSubstr("1 MiB–2 MiB"));
    EXPECT_THAT(all, HasSubstr("64 GiB/s–128 GiB/s"));
    EXPECT_THAT(all, Not(HasSubstr("more ranks")));
    const std::string short_ = traces::format_stats(st, log, 2);
    EXPECT_THAT(short_, HasSubstr("… 1 more ranks"));
}

// --- SVG ------------------------------------------------------------------------------------

void expect_svg(const std::string& svg) {
    EXPECT_TRUE(svg.starts_with("<svg")) << svg.substr(0, 80);
    EXPECT_THAT(svg, HasSubstr(R"(xmlns="http://www.w3.org/2000/svg")"));
    pugi::xml_document doc;
    const auto result = doc.load_string(svg.c_str());
    ASSERT_TRUE(result) << result.description() << " at " << result.offset;
    EXPECT_STREQ(doc.document_element().name(), "svg");
}

// All text content, unescaped by the XML parser.
std::string svg_text(const std::string& svg) {
    pugi::xml_document doc;
    doc.load_string(svg.c_str());
    std::string out;
    for (const auto& node : doc.select_nodes("//text"))
        out += node.node().text().get() + std::string("\n");
    return out;
}

TEST(TraceSvg, BarChart) {
    const std::string svg = traces::svg_bar_chart(
        "Time per rank: A <&> B", {"rank 0", "rank 1", "rank \"2\""},
        {{"recorded", {1.5, 2.0, 0.5}}, {"simulated <sim>", {1.4, 2.2, 0.6}}}, "time [s]");
    expect_svg(svg);
    EXPECT_THAT(svg, HasSubstr("Time per rank: A &lt;&amp;&gt; B"));
    EXPECT_THAT(svg, Not(HasSubstr("<sim>")));
    const std::string text = svg_text(svg);
    for (const char* s : {"Time per rank: A <&> B", "rank 0", "rank 1", "rank \"2\"", "recorded",
                          "simulated <sim>", "time [s]"})
        EXPECT_THAT(text, HasSubstr(s));
    pugi::xml_document doc;
    doc.load_string(svg.c_str());
    EXPECT_EQ(doc.select_nodes("//g[@class='bars']/rect").size(), 6u);
}

TEST(TraceSvg, BarChartManyCategoriesAndOddValues) {
    std::vector<std::string> cats;
    std::vector<double> a, b;
    for (int i = 0; i < 300; ++i) {
        cats.push_back("rank " + std::to_string(i));
        a.push_back(i % 7 == 0 ? -1.0 : i * 0.01);
        b.push_back(i == 5 ? std::nan("") : 1.0);
    }
    const std::string svg = traces::svg_bar_chart("many", cats, {{"a", a}, {"b", b}}, "s");
    expect_svg(svg);
    expect_svg(traces::svg_bar_chart("empty", {}, {}, "s"));
}

TEST(TraceSvg, LineChart) {
    std::vector<std::pair<double, double>> slow, fast;
    for (double n = 1; n <= 1024; n *= 2) {
        slow.emplace_back(n, 1.0 + n / 512);
        fast.emplace_back(n, 1.0 + n / 4096);
    }
    const std::string svg = traces::svg_line_chart("Slowdown & scale", "tasks", "slowdown",
                                                   {{"slow", slow}, {"fast", fast}}, true);
    expect_svg(svg);
    const std::string text = svg_text(svg);
    for (const char* s : {"Slowdown & scale", "tasks", "slowdown", "slow", "fast", "1024", "512"})
        EXPECT_THAT(text, HasSubstr(s));
    pugi::xml_document doc;
    doc.load_string(svg.c_str());
    EXPECT_EQ(doc.select_nodes("//polyline").size(), 2u);
    EXPECT_EQ(doc.select_nodes("//g[@class='series']/circle").size(), 22u);

    const std::string lin =
        traces::svg_line_chart("linear", "x", "y", {{"one", {{0, 0}, {3, 1}, {1, 2}}}}, false);
    expect_svg(lin);
    expect_svg(traces::svg_line_chart("narrow log", "x", "y", {{"p", {{4, 1}, {16, 2}}}}, true));
    // Not powers of two over a wide range: decades.
    const std::string decades =
        svg_text(traces::svg_line_chart("decades", "x", "y", {{"p", {{3, 1}, {3000, 2}}}}, true));
    EXPECT_THAT(decades, HasSubstr("10000"));
    EXPECT_THAT(decades, Not(HasSubstr("e+")));
    expect_svg(traces::svg_line_chart("none", "x", "y", {}, true));
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
