// The native_text trace reader (traces/), through its TraceReader: the input as a file.
#include "fuzz_common.hpp"
#include "traces/reader.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_native_text) {
    static const auto reader = clustersim::traces::make_native_text_reader();
    const std::string path =
        clustersim::fuzz::write_input("input.trace", {reinterpret_cast<const char*>(data), size});
    clustersim::fuzz::expect_clean([&] {
        clustersim::traces::ReadOptions options;
        clustersim::traces::ReadReport report;
        (void)reader->read(path, options, report);
    });
    return 0;
}
