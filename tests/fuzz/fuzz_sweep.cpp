// Sweep files (sweep/sweep.cpp): the bytes as a sweep file's JSON, read and checked by
// parse_sweep; a file it accepts is expanded into its points (its axes' product is at most
// the reader's 200,000; past 2,000 the expansion is skipped, as it only repeats the same
// code for longer than libFuzzer's time-out would allow under the sanitizers). The base
// model path names a file that exists (the example in the seeds), so expansion reads it.
#include "fuzz_common.hpp"
#include "sweep/sweep.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_sweep) {
    namespace sw = clustersim::sweep;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::string path = clustersim::fuzz::write_input("input.json", text);
    clustersim::fuzz::expect_clean([&] {
        const sw::SweepSpec spec = sw::parse_sweep(text, path);
        std::size_t points = 1;
        for (const auto& g : spec.groups) points *= spec.axes[g[0]].values.size();
        if (points <= 2000) (void)sw::expand(spec);
    });
    return 0;
}
