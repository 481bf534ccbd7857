// `clustersim import simgrid` (traces/import_simgrid.cpp): the input as the XML file.
#include "fuzz_common.hpp"
#include "import/import.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_import_simgrid) {
    const std::string path =
        clustersim::fuzz::write_input("input.xml", {reinterpret_cast<const char*>(data), size});
    // At most 4,096 hosts: the 2^20 of the command take minutes per input under the
    // sanitizers (a libFuzzer timeout, not a hang: 1.7 s in a release build).
    clustersim::fuzz::expect_clean([&] { (void)clustersim::traces::import_simgrid(path, 4096); });
    return 0;
}
