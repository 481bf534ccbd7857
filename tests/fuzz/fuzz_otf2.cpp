// The OTF2 reader (traces/otf2_reader.cpp) on one location's event file: the Score-P archive
// of ../shared/external/otf2-scorep-sst-macro is copied to the scratch folder once, and the
// input replaces rank 0's events (traces/0.evt); the definitions stay valid, so the reader
// gets past them into the event stream every time.
#include <filesystem>

#include "fuzz_common.hpp"
#include "traces/reader.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_otf2) {
    namespace fs = std::filesystem;
    static const std::string anchor = [] {
        const fs::path from = fs::path(CLUSTERSIM_SHARED_DIR) / "external/otf2-scorep-sst-macro";
        const fs::path to = fs::path(clustersim::fuzz::scratch()) / "otf2";
        fs::remove_all(to);
        fs::create_directories(to);
        fs::copy(from / "traces.otf2", to / "traces.otf2");
        fs::copy(from / "traces.def", to / "traces.def");
        fs::copy(from / "traces", to / "traces", fs::copy_options::recursive);
        return (to / "traces.otf2").string();
    }();
    clustersim::fuzz::write_input("otf2/traces/0.evt", {reinterpret_cast<const char*>(data), size});
    clustersim::fuzz::expect_clean([&] {
        clustersim::traces::ReadOptions options;
        clustersim::traces::ReadReport report;
        (void)clustersim::traces::load_trace(anchor, "otf2", options, report);
    });
    return 0;
}
