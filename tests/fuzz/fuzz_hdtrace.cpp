// The HDTrace reader (traces/hdtrace.cpp): the input is the project file (.proj), a NUL
// byte, then the trace of its one rank (.trc) (tests/fuzz/README.md: seeds are made so).
#include <cstring>

#include "fuzz_common.hpp"
#include "traces/reader.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_hdtrace) {
    static const auto reader = clustersim::traces::make_hdtrace_reader();
    const std::string_view all(reinterpret_cast<const char*>(data), size);
    const std::size_t nul = all.find('\0');
    const std::string_view proj = all.substr(0, nul);
    const std::string_view trc = nul == std::string_view::npos ? "" : all.substr(nul + 1);
    const std::string path = clustersim::fuzz::write_input("fuzz.proj", proj);
    clustersim::fuzz::write_input("fuzz_node0_0_0.trc", trc);
    clustersim::fuzz::expect_clean([&] {
        clustersim::traces::ReadOptions options;
        clustersim::traces::ReadReport report;
        (void)reader->read(path, options, report);
    });
    return 0;
}
