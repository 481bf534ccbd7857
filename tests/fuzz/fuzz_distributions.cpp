// Per-process jitter distributions (traces/distributions.cpp, `clustersim jitter --model
// max_of_distributions --distributions FILE`): the bytes as the CSV file.
#include "fuzz_common.hpp"
#include "traces/distributions.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_distributions) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    clustersim::fuzz::expect_clean(
        [&] { (void)clustersim::traces::parse_distributions(text, "input.csv"); });
    return 0;
}
