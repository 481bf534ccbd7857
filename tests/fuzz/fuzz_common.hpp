// Shared by the libFuzzer harnesses (tests/fuzz/README.md). A harness feeds one input to
// one reader; an InputError (bad input, reported as one line with exit 2 by the command) is
// the expected outcome, so it is caught. Anything else escapes: an uncaught exception, a
// signal, an ASan/UBSan report, more than -rss_limit_mb of memory or more than -timeout
// seconds is a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>

#include "simulator/error.hpp"
#include "simulator/units.hpp"
#include "topologies/generators.hpp"

namespace clustersim::fuzz {

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
