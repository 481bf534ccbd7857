// Jitter trace files (issue 6): jitSim text (with and without a frequency header, every bad
// input with its file:line), jitSim binary (exact round trip, truncation), LogGOPSim noise
// (hand-computed tuples at 1 and 2 GHz, ordering errors, write and read back), and the
// traces shipped in traces/examples/jitter.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "models/jitter.hpp"
#include "simulator/error.hpp"
#include "traces/jitter_io.hpp"

namespace clustersim::traces {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string temp_path(const std::string& name) {
    const fs::path dir = fs::path(::testing::TempDir()) / "clustersim_jitter_io";
    fs::create_directories(dir);
    return (dir / name).string();
}

void spit(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The message of the InputError that parsing `text` throws (fails the test if none).
std::string text_error(const std::string& text) {
    try {
        parse_jitter_text(text, "bad.jtr");
    } catch (const InputError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return "";
}

std::string read_error(const std::string& path, JitterFormat format, double hz = 0) {
    try {
        read_jitter_trace(path, format, hz);
    } catch (const InputError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no error reading " << path;
    return "";
}

jitter::JitterTrace sample_trace() {
    jitter::JitterTrace t;
    t.frequency_hz = 2'400'000'000;
    t.jitter = {0, 30, 5, 18446744073709ULL, 7};
    t.compute = {100, 20, 0, 9, 1234567890123ULL};
    t.source = "sample";
    return t;
}

TEST(JitterText, ParsesTuplesWithoutFrequency) {
    const auto t = parse_jitter_text("# a comment\n\n10 90\n20\t80\n 30 , 70 \n0,5\n", "x.jtr");
    EXPECT_EQ(t.frequency_hz, 0);
    EXPECT_THAT(t.jitter, ElementsAre(10, 20, 30, 0));
    EXPECT_THAT(t.compute, ElementsAre(90, 80, 70, 5));
    EXPECT_EQ(t.source, "x.jtr");
}

TEST(JitterText, ParsesFrequencyHeaderInEverySpelling) {
    EXPECT_EQ(parse_jitter_text("# frequency: 2.4GHz\n1 2\n", "a").frequency_hz, 2.4e9);
    EXPECT_EQ(parse_jitter_text("# frequency: 2.4G\n1 2\n", "a").frequency_hz, 2.4e9);
    EXPECT_EQ(parse_jitter_text("#frequency:2400000000\n1 2\n", "a").frequency_hz, 2.4e9);
    EXPECT_EQ(parse_jitter_text("1 2\n# Frequency: 1000MHz\n", "a").frequency_hz, 1e9);
}

TEST(JitterText, BadInputsNameFileAndLine) {
    EXPECT_THAT(text_error("1 2\n3 -4\n"), HasSubstr("bad.jtr:2: "));
    EXPECT_THAT(text_error("1 2\n3 -4\n"), HasSubstr("negative"));
    EXPECT_THAT(text_error("# c\n1 2\n3 x4\n"), HasSubstr("bad.jtr:3: "));
    EXPECT_THAT(text_error("# c\n1 2\n3 x4\n"), HasSubstr("'x4'"));
    EXPECT_THAT(text_error("1.5 2\n"), HasSubstr("bad.jtr:1: expected a non-negative whole"));
    EXPECT_THAT(text_error("1 2\n\n7\n"), HasSubstr("bad.jtr:3: "));
    EXPECT_THAT(text_error("1 2\n\n7\n"), HasSubstr("missing"));
    EXPECT_THAT(text_error("1 2\n7 8 9\n"), HasSubstr("bad.jtr:2: "));
    EXPECT_THAT(text_error("1 2\n7 8 9\n"), HasSubstr("extra field '9'"));
    EXPECT_THAT(text_error("1 99999999999999999999\n"), HasSubstr("bad.jtr:1: "));
    // Only comments: empty, reported at the last line.
    EXPECT_THAT(text_error("# one\n# two\n"), HasSubstr("bad.jtr:2: "));
    EXPECT_THAT(text_error("# one\n# two\n"), HasSubstr("empty"));
    EXPECT_THAT(text_error(""), HasSubstr("bad.jtr:1: "));
    EXPECT_THAT(text_error("5 0\n6 0\n7 0\n"), HasSubstr("bad.jtr:3: "));
    EXPECT_THAT(text_error("5 0\n6 0\n7 0\n"), HasSubstr("compute cycles"));
    EXPECT_THAT(text_error("# frequency: fast\n1 2\n"), HasSubstr("bad.jtr:1: "));
    EXPECT_THAT(text_error("# frequency: fast\n1 2\n"), HasSubstr("frequency"));
    EXPECT_THAT(text_error("1 2\n# frequency: 2.4GHz\n# frequency: 0\n"), HasSubstr("bad.jtr:3: "));
    EXPECT_THAT(text_error("1 2\n# frequency: 2GHz\n# frequency: 3GHz\n"),
                HasSubstr("bad.jtr:3: expected one '# frequency:' header; the first is on line 2"));
}

TEST(JitterText, WriteReadRoundTripIsExact) {
    const auto path = temp_path("round.jtr");
    write_jitter_trace(sample_trace(), path, JitterFormat::Text);
    const auto back = read_jitter_trace(path);
    EXPECT_EQ(back.frequency_hz, 2.4e9);
    EXPECT_EQ(back.jitter, sample_trace().jitter);
    EXPECT_EQ(back.compute, sample_trace().compute);
    EXPECT_EQ(back.source, path);
    // The flag overrides the header.
    EXPECT_EQ(read_jitter_trace(path, JitterFormat::Text, 1e9).frequency_hz, 1e9);
}

TEST(JitterBinary, RoundTripIsExactAndDetected) {
    auto t = sample_trace();
    t.frequency_hz = 2'394'123'456.75;  // binary keeps the double, fractions included
    const auto path = temp_path("round.jtb");
    write_jitter_trace(t, path, JitterFormat::Binary);
    EXPECT_EQ(slurp(path).size(), 24 + 16 * t.size());
    EXPECT_EQ(slurp(path).substr(0, 8), std::string("CSJTR\0\0\1", 8));
    EXPECT_EQ(detect_jitter_format(path), JitterFormat::Binary);
    const auto back = read_jitter_trace(path);
    EXPECT_EQ(back.frequency_hz, t.frequency_hz);
    EXPECT_EQ(back.jitter, t.jitter);
    EXPECT_EQ(back.compute, t.compute);
    // Binary -> text -> binary is byte-identical when the frequency is whole hertz.
    t.frequency_hz = 2.4e9;
    write_jitter_trace(t, path, JitterFormat::Binary);
    const auto text = temp_path("via.jtr");
    write_jitter_trace(read_jitter_trace(path), text, JitterFormat::Text);
    const auto again = temp_path("again.jtb");
    write_jitter_trace(read_jitter_trace(text), again, JitterFormat::Binary);
    EXPECT_EQ(slurp(path), slurp(again));
}

TEST(JitterBinary, TruncatedAndCorruptFilesAreErrors) {
    const auto path = temp_path("full.jtb");
    write_jitter_trace(sample_trace(), path, JitterFormat::Binary);
    const std::string data = slurp(path);
    const auto cut = temp_path("cut.jtb");
    spit(cut, data.substr(0, data.size() - 3));
    EXPECT_THAT(read_error(cut, JitterFormat::Auto), HasSubstr("cut.jtb: truncated"));
    spit(cut, data.substr(0, 20));
    EXPECT_THAT(read_error(cut, JitterFormat::Binary), HasSubstr("cut.jtb: truncated"));
    spit(cut, data + "xyz");
    EXPECT_THAT(read_error(cut, JitterFormat::Binary), HasSubstr("trailing garbage"));
    spit(cut, "CSJTRxxx" + data.substr(8));
    EXPECT_THAT(read_error(cut, JitterFormat::Binary), HasSubstr("magic"));
    // A huge tuple count in a short file must not allocate: it is truncated.
    std::string huge = data.substr(0, 16) + std::string(8, '\xff') + data.substr(24);
    spit(cut, huge);
    EXPECT_THAT(read_error(cut, JitterFormat::Binary), HasSubstr("truncated"));
    jitter::JitterTrace none;
    none.jitter = {4};
    none.compute = {0};
    write_jitter_trace(none, cut, JitterFormat::Binary);
    EXPECT_THAT(read_error(cut, JitterFormat::Binary), HasSubstr("compute cycles"));
}

TEST(JitterFormats, NamesAndDetection) {
    EXPECT_EQ(parse_jitter_format("auto"), JitterFormat::Auto);
    EXPECT_EQ(parse_jitter_format("text"), JitterFormat::Text);
    EXPECT_EQ(parse_jitter_format("binary"), JitterFormat::Binary);
    EXPECT_EQ(parse_jitter_format("loggopsim"), JitterFormat::LogGOPSim);
    try {
        parse_jitter_format("csv");
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("--format: unknown jitter trace format 'csv'"));
    }
    const auto noise = temp_path("d.noise");
    spit(noise, "10\t5\n");
    EXPECT_EQ(detect_jitter_format(noise), JitterFormat::LogGOPSim);
    const auto text = temp_path("d.jtr");
    spit(text, "1 2\n");
    EXPECT_EQ(detect_jitter_format(text), JitterFormat::Text);
    EXPECT_THAT(read_error(temp_path("missing.jtr"), JitterFormat::Auto),
                HasSubstr("missing.jtr: cannot open"));
}

// Three events: [100, 150) ns, [400, 400.5) ns, [1000, 1250) ns.
const char* kThreeEvents = "# LogGOPSim noise\n100\t50\n400\t0.5\n1000\t250\n";

TEST(JitterLogGOPSim, ReadsThreeEventsAt1And2GHz) {
    const auto path = temp_path("three.noise");
    spit(path, kThreeEvents);
    // 1 GHz: 1 cycle = 1 ns; 0.5 ns rounds to [400, 401) (400.5 rounds half up).
    const auto a = read_jitter_trace(path);
    EXPECT_EQ(a.frequency_hz, 1e9);
    EXPECT_THAT(a.jitter, ElementsAre(0, 50, 1, 250));
    EXPECT_THAT(a.compute, ElementsAre(100, 250, 599, 0));
    // 2 GHz: every time doubles in cycles.
    const auto b = read_jitter_trace(path, JitterFormat::LogGOPSim, 2e9);
    EXPECT_EQ(b.frequency_hz, 2e9);
    EXPECT_THAT(b.jitter, ElementsAre(0, 100, 1, 500));
    EXPECT_THAT(b.compute, ElementsAre(200, 500, 1199, 0));
    // An event at 0 has no leading compute tuple; a zero-length event marks the end.
    spit(path, "0\t10\n30\t10\n100\t0\n");
    const auto c = read_jitter_trace(path);
    EXPECT_THAT(c.jitter, ElementsAre(10, 10));
    EXPECT_THAT(c.compute, ElementsAre(20, 60));
}

TEST(JitterLogGOPSim, OverlappingUnsortedAndBadLinesAreErrors) {
    const auto path = temp_path("bad.noise");
    spit(path, "100\t50\n140\t5\n");
    EXPECT_THAT(read_error(path, JitterFormat::Auto), HasSubstr("bad.noise:2: "));
    EXPECT_THAT(read_error(path, JitterFormat::Auto), HasSubstr("overlap"));
    spit(path, "# x\n100\t50\n50\t5\n");
    EXPECT_THAT(read_error(path, JitterFormat::Auto), HasSubstr("bad.noise:3: "));
    EXPECT_THAT(read_error(path, JitterFormat::Auto), HasSubstr("sorted"));
    spit(path, "100\t-5\n");
    EXPECT_THAT(read_error(path, JitterFormat::Auto), HasSubstr("bad.noise:1: "));
    spit(path, "100\n");
    EXPECT_THAT(read_error(path, JitterFormat::Auto), HasSubstr("bad.noise:1: "));
    spit(path, "1\t2\n100\t5\t7\n");
    EXPECT_THAT(read_error(path, JitterFormat::Auto), HasSubstr("bad.noise:2: "));
    spit(path, "1e3\t2\n");
    EXPECT_THAT(read_error(path, JitterFormat::Auto), HasSubstr("bad.noise:1: "));
    spit(path, "# nothing\n");
    EXPECT_THAT(read_error(path, JitterFormat::Auto), HasSubstr("empty"));
    spit(path, "0\t100\n");  // all jitter
    EXPECT_THAT(read_error(path, JitterFormat::Auto), HasSubstr("compute cycles"));
}

TEST(JitterLogGOPSim, WriteAndReadBackWithinOneCycle) {
    jitter::JitterTrace t;
    t.frequency_hz = 2.4e9;
    t.jitter = {0, 3001, 17, 250000, 1};
    t.compute = {123457, 9999, 1, 77777, 31};
    const auto path = temp_path("out.noise");
    write_jitter_trace(t, path, JitterFormat::LogGOPSim);
    const auto back = read_jitter_trace(path, JitterFormat::Auto, 2.4e9);
    ASSERT_EQ(back.size(), t.size());
    for (std::size_t i = 0; i < t.size(); ++i) {
        EXPECT_NEAR(static_cast<double>(back.jitter[i]), static_cast<double>(t.jitter[i]), 1) << i;
        EXPECT_NEAR(static_cast<double>(back.compute[i]), static_cast<double>(t.compute[i]), 1)
            << i;
    }
    // Without a frequency the format (nanoseconds) cannot be written.
    t.frequency_hz = 0;
    try {
        write_jitter_trace(t, path, JitterFormat::LogGOPSim);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("out.noise: "));
        EXPECT_THAT(e.what(), HasSubstr("frequency"));
    }
}

TEST(JitterExamples, ShippedTracesParseAndHaveAFrequency) {
    const fs::path dir = fs::path(CLUSTERSIM_SOURCE_DIR) / "traces/examples/jitter";
    int count = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".jtr") continue;
        ++count;
        const auto t = read_jitter_trace(entry.path().string());
        EXPECT_GT(t.frequency_hz, 0) << entry.path();
        EXPECT_GT(t.size(), 0u) << entry.path();
        const jitter::Timeline timeline(t);  // a usable trace
        EXPECT_GT(timeline.compute_total(), 0u);
    }
    EXPECT_GE(count, 3);  // this-machine.core0, this-machine.core1, periodic-daemon
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::traces
