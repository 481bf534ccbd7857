// `clustersim trace merge` (traces/merge.cpp) on one rank file: the input as a *.csrank.
#include "fuzz_common.hpp"
#include "traces/merge.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_merge) {
    const std::string path =
        clustersim::fuzz::write_input("input.csrank", {reinterpret_cast<const char*>(data), size});
    clustersim::fuzz::expect_clean([&] {
        clustersim::traces::MergeOptions options;
        clustersim::traces::MergeReport report;
        (void)clustersim::traces::merge_rank_files({path}, options, report);
    });
    return 0;
}
