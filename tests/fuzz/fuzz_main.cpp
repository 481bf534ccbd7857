// The one program of the libFuzzer harnesses (fuzz_common.hpp): run through a link named
// fuzz_NAME (the build makes one per harness in build/tests/fuzz/), it feeds every input to
// the harness of that name. Any other name is one line on stderr and exit 2.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "fuzz_common.hpp"

namespace {
clustersim::fuzz::Harness chosen = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    const std::string self =
        *argc > 0 ? std::filesystem::path((*argv)[0]).filename().string() : std::string();
    std::string names;
    for (const auto& h : clustersim::fuzz::harnesses()) {
        if (self == h.name) {
            chosen = h.run;
            return 0;
        }
        names += names.empty() ? h.name : std::string(", ") + h.name;
    }
    std::fprintf(stderr,
                 "%s: run the fuzz harnesses through their links (build/tests/fuzz/fuzz_NAME); "
                 "'%s' is none of: %s\n",
                 self.c_str(), self.c_str(), names.c_str());
    std::exit(2);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return chosen(data, size);
}
