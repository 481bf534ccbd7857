// `clustersim import piosimhd` (traces/import_piosimhd.cpp): the input as the XML file.
#include "fuzz_common.hpp"
#include "traces/import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path =
        clustersim::fuzz::write_input("input.xml", {reinterpret_cast<const char*>(data), size});
    clustersim::fuzz::expect_clean([&] { (void)clustersim::traces::import_piosimhd(path); });
    return 0;
}
