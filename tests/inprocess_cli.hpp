// `clustersim ARGS...` run in the test's own process (cli::main), so that what the test
// registered (a toy model, app, reader, ...) is there: the registry tests use it. Other CLI
// tests run the binary (cli_fixtures.hpp).
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tools/cli.hpp"

namespace clustersim::testing {

struct CliResult {
    int code = -1;
    std::string out, err;
};

inline CliResult clustersim_in_process(std::vector<std::string> args) {
    args.insert(args.begin(), "clustersim");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    CliResult r;
    r.code = cli::main(static_cast<int>(args.size()), argv.data());
    r.out = ::testing::internal::GetCapturedStdout();
    r.err = ::testing::internal::GetCapturedStderr();
    return r;
}

}  // namespace clustersim::testing
