// `clustersim import piosimhd` (traces/import_piosimhd.cpp): the input as the XML file,
// imported plain and with `--file-system pvfs2 --mpi-channel sock`.
#include "fuzz_common.hpp"
#include "import/import.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_import_piosimhd) {
    const std::string path =
        clustersim::fuzz::write_input("input.xml", {reinterpret_cast<const char*>(data), size});
    for (const bool pvfs2 : {false, true})
        clustersim::fuzz::expect_clean([&] {
            (void)clustersim::traces::import_piosimhd(
                path, clustersim::traces::PiosimhdOptions{pvfs2, pvfs2});
        });
    return 0;
}
