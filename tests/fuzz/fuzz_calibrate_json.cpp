// clustersim-calibrate's saved measurements (tools/mpi/calibrate/measured_json.cpp): the bytes
// as a --from file. BadMeasured is the expected answer to a bad file; a file it accepts is
// derived (both bandwidth rules) and written (model XML with both collectives forms, CSV), as
// --from does.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tools/mpi/calibrate/calibrate.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_calibrate_json) {
    namespace cal = clustersim::calibrate;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const cal::Measured m = cal::measured_from_json(text, "fuzz.json");
        for (const bool fit : {false, true}) {
            const cal::Derived d = cal::derive(m, fit);
            (void)cal::write_model(m, d, "fuzz", fit);
        }
        (void)cal::write_csv(m);
    } catch (const cal::BadMeasured&) {
    }
    return 0;
}
