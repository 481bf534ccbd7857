// Reading per-process w + δ distributions (Garg–De mode of `clustersim jitter`): the samples
// and histogram CSV formats, and one test per bad input naming the file and line.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <string>

#include "simulator/error.hpp"
#include "traces/distributions.hpp"

namespace CLUSTERSIM_TEST_FILE {

using clustersim::InputError;
using clustersim::traces::parse_distributions;

// The message of the InputError parsing `text` throws ("" if none).
std::string error_of(const std::string& text) {
    try {
        parse_distributions(text, "d.csv");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(JitterDistributions, SamplesWithUnitsAndPlainSecondsSortedPerProcess) {
    const auto d = parse_distributions(
        "# measured on two nodes\n"
        "process,node,value\n"
        "1,n0,2ms\n"
        "0,n0,1.25ms\n"
        "\n"
        "1, n0 ,0.0015\n"
        "0,n0,830us\n"
        "2,n1,1e-3\n",
        "d.csv");
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d[0].process, 0u);
    EXPECT_EQ(d[0].node, "n0");
    ASSERT_EQ(d[0].lower.size(), 2u);
    EXPECT_DOUBLE_EQ(d[0].lower[0], 830e-6);
    EXPECT_DOUBLE_EQ(d[0].lower[1], 1.25e-3);
    EXPECT_EQ(d[0].lower, d[0].upper);
    EXPECT_EQ(d[0].count, (std::vector<double>{1, 1}));
    EXPECT_EQ(d[1].node, "n0");
    EXPECT_DOUBLE_EQ(d[1].lower[0], 1.5e-3);
    EXPECT_DOUBLE_EQ(d[1].lower[1], 2e-3);
    EXPECT_EQ(d[2].process, 2u);
    EXPECT_EQ(d[2].node, "n1");
    EXPECT_DOUBLE_EQ(d[2].lower[0], 1e-3);
}

TEST(JitterDistributions, HistogramBinsSortedWithCounts) {
    const auto d = parse_distributions(
        "process,node,lower,upper,count\n"
        "0,a,1.1ms,1.2ms,5\n"
        "0,a,1.0ms,1.1ms,95\n"
        "7,b,0.001,0.0011,3\n",
        "d.csv");
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].lower.size(), 2u);
    EXPECT_DOUBLE_EQ(d[0].lower[0], 1.0e-3);
    EXPECT_DOUBLE_EQ(d[0].upper[0], 1.1e-3);
    EXPECT_DOUBLE_EQ(d[0].count[0], 95);
    EXPECT_DOUBLE_EQ(d[0].count[1], 5);
    EXPECT_EQ(d[1].process, 7u);
    EXPECT_DOUBLE_EQ(d[1].count[0], 3);
}

TEST(JitterDistributions, WriteThenReadRoundTrips) {
    std::vector<clustersim::jitter::ProcessDistribution> in(2);
    in[0].process = 0;
    in[0].node = "x";
    in[0].lower = {1e-3, 1.5e-3};
    in[0].upper = {1.5e-3, 2e-3};
    in[0].count = {10, 2};
    in[1].process = 1;
    in[1].node = "y";
    in[1].lower = {0.123456789e-3};
    in[1].upper = {0.2e-3};
    in[1].count = {1};
    const std::string path =
        ::testing::TempDir() + "/clustersim_dist_" + std::to_string(::getpid()) + ".csv";
    clustersim::traces::write_distributions(in, path);
    const auto out = clustersim::traces::read_distributions(path);
    std::remove(path.c_str());
    ASSERT_EQ(out.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(out[i].process, in[i].process);
        EXPECT_EQ(out[i].node, in[i].node);
        EXPECT_EQ(out[i].lower, in[i].lower);
        EXPECT_EQ(out[i].upper, in[i].upper);
        EXPECT_EQ(out[i].count, in[i].count);
    }
}

TEST(JitterDistributions, EmptyFile) {
    EXPECT_EQ(error_of(""),
              "d.csv: empty distribution file: expected a header 'process,node,value' or "
              "'process,node,lower,upper,count' and data lines");
    EXPECT_NE(error_of("# only a comment\n\n").find("d.csv: empty distribution file"),
              std::string::npos);
    EXPECT_EQ(error_of("\nprocess,node,value\n"), "d.csv:2: no data lines after the header");
}

TEST(JitterDistributions, UnknownHeader) {
    EXPECT_NE(error_of("rank,host,value\n0,a,1ms\n").find("d.csv:1: unknown header 'rank,host,"),
              std::string::npos);
    // A data line first (no header) is an unknown header too.
    EXPECT_NE(error_of("0,a,1ms\n").find("d.csv:1: unknown header"), std::string::npos);
}

TEST(JitterDistributions, WrongColumnCount) {
    EXPECT_EQ(error_of("process,node,value\n0,a,1ms\n0,a,1ms,2ms\n"),
              "d.csv:3: 4 columns, expected 3 (process,node,value)");
    EXPECT_EQ(error_of("process,node,lower,upper,count\n0,a,1ms,2ms\n"),
              "d.csv:2: 4 columns, expected 5 (process,node,lower,upper,count)");
}

TEST(JitterDistributions, BadNumbers) {
    EXPECT_NE(
        error_of("process,node,value\n0,a,fast\n").find("d.csv:2: value 'fast' is not a number"),
        std::string::npos);
    EXPECT_NE(error_of("process,node,value\n0,a,1parsec\n").find("d.csv:2: value '1parsec'"),
              std::string::npos);
    EXPECT_NE(
        error_of("process,node,value\n0,a,inf\n").find("d.csv:2: value 'inf': expected a finite"),
        std::string::npos);
    EXPECT_NE(error_of("process,node,value\nzero,a,1ms\n").find("d.csv:2: process 'zero'"),
              std::string::npos);
    EXPECT_NE(error_of("process,node,lower,upper,count\n0,a,1ms,2ms,many\n")
                  .find("d.csv:2: count 'many' is not a number"),
              std::string::npos);
    EXPECT_EQ(error_of("process,node,value\n0,,1ms\n"),
              "d.csv:2: empty node field: expected the process's host name");
}

TEST(JitterDistributions, NegativeValues) {
    EXPECT_EQ(error_of("process,node,value\n0,a,1ms\n0,a,-1ms\n"),
              "d.csv:3: value '-1ms' is negative: expected a time of at least 0");
    EXPECT_NE(error_of("process,node,lower,upper,count\n0,a,-0.001,0.001,1\n")
                  .find("d.csv:2: lower '-0.001' is negative"),
              std::string::npos);
}

TEST(JitterDistributions, UpperNotAboveLower) {
    EXPECT_EQ(error_of("process,node,lower,upper,count\n0,a,2ms,2ms,4\n"),
              "d.csv:2: upper 2ms must be larger than lower 2ms");
    EXPECT_EQ(error_of("process,node,lower,upper,count\n0,a,2ms,1ms,4\n"),
              "d.csv:2: upper 1ms must be larger than lower 2ms");
}

TEST(JitterDistributions, CountNotPositive) {
    EXPECT_EQ(error_of("process,node,lower,upper,count\n0,a,1ms,2ms,0\n"),
              "d.csv:2: count '0': expected more than 0");
    EXPECT_EQ(error_of("process,node,lower,upper,count\n0,a,1ms,2ms,-3\n"),
              "d.csv:2: count '-3': expected more than 0");
}

TEST(JitterDistributions, OverlappingBinsAndProcessOnTwoNodes) {
    EXPECT_EQ(error_of("process,node,lower,upper,count\n0,a,1ms,2ms,1\n0,a,1.5ms,3ms,1\n"),
              "d.csv:3: bin [0.0015, 0.003) s of process 0 overlaps the bin at line 2");
    EXPECT_EQ(error_of("process,node,value\n0,a,1ms\n1,b,1ms\n0,b,2ms\n"),
              "d.csv:4: process 0 is on node 'b' here but on 'a' at line 2");
}

TEST(JitterDistributions, MissingFile) {
    try {
        clustersim::traces::read_distributions("/nonexistent/d.csv");
        FAIL() << "expected an InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), "/nonexistent/d.csv: cannot open the distribution file");
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
