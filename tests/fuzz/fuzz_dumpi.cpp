// The DUMPI reader (traces/dumpi_reader.cpp) on one rank's .bin: the input is rank 0 of a
// one-rank trace whose .meta is fixed.
#include "fuzz_common.hpp"
#include "traces/reader.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_dumpi) {
    static const std::string meta = clustersim::fuzz::write_input(
        "input.meta",
        "hostname=fuzz\nnumprocs=1\nusername=fuzz\nstartime=0\nfileprefix=input\nversion=1\n"
        "subversion=0\nsubsubversion=0\n");
    clustersim::fuzz::write_input("input-0000.bin", {reinterpret_cast<const char*>(data), size});
    clustersim::fuzz::expect_clean([&] {
        clustersim::traces::ReadOptions options;
        clustersim::traces::ReadReport report;
        (void)clustersim::traces::load_trace(meta, "dumpi", options, report);
    });
    return 0;
}
