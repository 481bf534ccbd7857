// A parameter given twice, or given nothing, is refused (issue 53, "silent nonsense"): the
// last of `--network simple:latency=1us,latency=1ms` won in silence while `--app` refused
// the same, and an empty value was read as no value. One mechanism for every key=value list
// (simulator/params.hpp, KeyValueItem::problem()), and one override per operation in
// --algorithm.
#include <string>

#include <gtest/gtest.h>

#include "cli_fixtures.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using testing::example;
using testing::expect_bad_input;

const std::string kRun = "run " + example("star-16.xml") + " --app barrier --ranks 2 ";

TEST(ParamsOnce, AKeyGivenTwiceIsRefusedInEveryParameterList) {
    expect_bad_input(kRun + "--network simple:latency=1us,latency=1ms",
                     "--network: 'simple:latency=1us,latency=1ms': 'latency' is given twice");
    expect_bad_input(kRun + "--network contention:latency=1us,bandwidth=1GB/s,latency=2us",
                     "'latency' is given twice");
    expect_bad_input(kRun + "--app barrier:iterations=2,iterations=3", "given twice");
    expect_bad_input(kRun + "--algorithm barrier=linear --algorithm barrier=dissemination",
                     "--algorithm: 'barrier=dissemination': barrier is given an algorithm twice");
}

TEST(ParamsOnce, AKeyWithNoValueIsRefused) {
    expect_bad_input(kRun + "--network simple:latency=", "'latency' has no value");
    expect_bad_input(kRun + "--cpu processor_sharing:", "--cpu");
}

TEST(ParamsOnce, EachKeyOnceIsStillAccepted) {
    const testing::Result r =
        testing::run(kRun +
                     "--network simple:latency=1us,bandwidth=1GB/s --algorithm "
                     "barrier=linear --algorithm bcast=binomial");
    EXPECT_EQ(r.code, 0) << r.err;
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

// An empty value of any flag or positional is refused naming it (issue 53: "an empty output
// name: 'cannot write: No such file or directory'"; `run --out ''` wrote nothing in silence).
// A traced program's own empty argument (record's COMMAND) is passed on.
TEST(ParamsOnce, AnEmptyValueIsRefusedNamingItsFlag) {
    const std::string trace =
        std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/data/traces/every-kind.trace";
    expect_bad_input(kRun + "--out ''", "--out: an empty value");
    expect_bad_input("convert " + trace + " ''", "OUTPUT: an empty value");
    expect_bad_input(kRun + "--network ''", "--network: an empty value");
    expect_bad_input("run '' --app barrier", "MODEL: an empty value");
    expect_bad_input("generate star --link-bandwidth ''", "--link-bandwidth: an empty value");
    expect_bad_input("record -o '' -- true", "--out: an empty value");
    expect_bad_input("compare " + trace + " " + trace + " --out ''", "--out: an empty value");
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
