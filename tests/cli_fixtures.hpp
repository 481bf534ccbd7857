// Running the clustersim binary from tests: capture exit code, stdout and stderr; example
// paths; temporary files; the one-line bad-input check every CLI test uses.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <string>

namespace clustersim::testing {

struct Result {
    int code = -1;
    std::string out, err;
};

inline std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// A file name of this test's own: ctest runs tests in parallel processes.
inline std::string temp_path(const std::string& name) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return ::testing::TempDir() + "/clustersim_" + info->test_suite_name() + "_" + info->name() +
           "_" + std::to_string(::getpid()) + "_" + name;
}

// mpirun's flags for the real-MPI tests. In the sanitizer pass clustersim-calibrate links the
// sanitizers' runtime (its derive and write stages are the simulator's libraries); Open MPI's
// own allocations are not leaks of ours, so its ranks run with leak detection off.
#ifdef CLUSTERSIM_SANITIZED
inline const std::string kMpirunFlags =
    " --allow-run-as-root --oversubscribe -x ASAN_OPTIONS=detect_leaks=0:abort_on_error=1";
#else
inline const std::string kMpirunFlags = " --allow-run-as-root --oversubscribe";
#endif
#ifdef CLUSTERSIM_MPIEXEC
// mpirun as the machines the real-MPI tests run on need it (as root in CI containers, more
// ranks than cores on a 2-core machine), then `args`.
inline std::string mpirun(const std::string& args) {
    return std::string(CLUSTERSIM_MPIEXEC) + kMpirunFlags + " " + args;
}
#endif

// A `WORD  MPI_Name xCOUNT MPI_Name xCOUNT ...` line of `clustersim trace merge` (`calls`,
// `unmodeled`, `local`): name -> count; empty if the output has no such line.
inline std::map<std::string, long> merge_counts(const std::string& merge_out,
                                                const std::string& word) {
    std::map<std::string, long> counts;
    std::smatch line;
    if (!std::regex_search(merge_out, line, std::regex("\n  " + word + " +([^\n]*)")))
        return counts;
    const std::string body = line[1];
    const std::regex item(R"((MPI_\w+) x([0-9,]+))");
    for (auto it = std::sregex_iterator(body.begin(), body.end(), item);
         it != std::sregex_iterator(); ++it) {
        std::string n = (*it)[2];
        n.erase(std::remove(n.begin(), n.end(), ','), n.end());
        counts[(*it)[1]] = std::stol(n);
    }
    return counts;
}

// Runs a shell command line, capturing its exit code, stdout and stderr.
inline Result run_shell(const std::string& command) {
    const std::string out = temp_path("out.txt"), err = temp_path("err.txt");
    const int status = std::system((command + " >" + out + " 2>" + err).c_str());
    Result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

inline Result run(const std::string& args) {
    return run_shell(std::string(CLUSTERSIM_BINARY) + " " + args);
}

inline std::string example(const std::string& name) {
    return std::string(CLUSTERSIM_SOURCE_DIR) + "/topologies/examples/" + name;
}

inline std::string write_temp(const std::string& name, const std::string& text) {
    const std::string path = temp_path(name);
    std::ofstream(path) << text;
    return path;
}

// Every bad input: exit code 2 and exactly one line on stderr containing `needle`.
inline void expect_bad_input(const std::string& args, const std::string& needle) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line expected: " << r.err;
    EXPECT_EQ(r.out, "") << args;
}

}  // namespace clustersim::testing
