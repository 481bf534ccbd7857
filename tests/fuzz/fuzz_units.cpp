// Unit parsing (simulator/units.cpp): the input as a time, a size, a bandwidth, a speed
// and a count.
#include "fuzz_common.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_units) {
    using namespace clustersim;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    fuzz::expect_clean([&] { (void)parse_time(text); });
    fuzz::expect_clean([&] { (void)parse_size(text); });
    fuzz::expect_clean([&] { (void)parse_bandwidth(text); });
    fuzz::expect_clean([&] { (void)parse_speed(text); });
    fuzz::expect_clean([&] { (void)parse_count(text); });
    return 0;
}
