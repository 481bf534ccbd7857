// Shared by the libFuzzer harnesses (tests/fuzz/README.md). A harness feeds one input to
// one reader; an InputError (bad input, reported as one line with exit 2 by the command) is
// the expected outcome, so it is caught. Anything else escapes: an uncaught exception, a
// signal, an ASan/UBSan report, more than -rss_limit_mb of memory or more than -timeout
// seconds is a finding.
//
// The harnesses are one program (fuzz_main.cpp, compiled with them in one unity file): each
// harness file defines its entry with CLUSTERSIM_FUZZ_HARNESS(fuzz_NAME), and the build makes
// a link named fuzz_NAME to the program for each, which runs the harness its name names.
// Thirteen programs compiled the same headers thirteen times (about 60 s of the sanitizer
// build's CPU; one unity file of all of them, 5.3 s).
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "topologies/generators.hpp"

namespace clustersim::fuzz {

// The harnesses, by name (fuzz_NAME), filled before main by CLUSTERSIM_FUZZ_HARNESS.
using Harness = int (*)(const std::uint8_t* data, std::size_t size);
struct NamedHarness {
    const char* name;
    Harness run;
};
inline std::vector<NamedHarness>& harnesses() {
    static std::vector<NamedHarness> all;
    return all;
}
struct RegisterHarness {
    RegisterHarness(const char* name, Harness run) { harnesses().push_back({name, run}); }
};

// CLUSTERSIM_FUZZ_HARNESS(fuzz_NAME) { ... data, size ... return 0; }: a harness's entry
// (libFuzzer's LLVMFuzzerTestOneInput for the link named fuzz_NAME).
#define CLUSTERSIM_FUZZ_HARNESS(NAME)                                                 \
    static int NAME(const std::uint8_t* data, std::size_t size);                      \
    static const ::clustersim::fuzz::RegisterHarness NAME##_registered{#NAME, &NAME}; \
    static int NAME(const std::uint8_t* data, std::size_t size)

// A per-process scratch folder: readers that take a path get the input as a file there.
inline const std::string& scratch() {
    static const std::string dir = [] {
        std::string d = "/tmp/clustersim-fuzz-" + std::to_string(::getpid());
        std::string cmd = "mkdir -p " + d;
        if (std::system(cmd.c_str()) != 0) std::abort();
        return d;
    }();
    return dir;
}

inline std::string write_input(const std::string& name, std::string_view bytes) {
    const std::string path = scratch() + "/" + name;
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
}

// Runs `f`, swallowing the exceptions that mean "bad input, reported properly".
template <class F>
void expect_clean(F&& f) {
    try {
        f();
    } catch (const InputError&) {
    } catch (const UnitError&) {
    } catch (const topo::ModelError&) {
    }
}

}  // namespace clustersim::fuzz
