// The shared reader of numbers with units (simulator/quantity.hpp), used by the simulator's
// parse_* (simulator/units.cpp) and by the MPI programs (tools/mpi/program_common.hpp):
// splitting, exact and rounded scaling, the unit tables, and agreement with the simulator's
// parse_size / parse_time on every input both accept.
#include <cstdint>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "simulator/quantity.hpp"
#include "simulator/units.hpp"

namespace clustersim::quantity {
namespace CLUSTERSIM_TEST_FILE {

TEST(UnitsQuantity, SplitsNumberAndUnit) {
    Decimal d;
    std::string_view unit;
    ASSERT_EQ(split_number(" 1.25 GB/s ", d, unit), Split::Ok);
    EXPECT_EQ(static_cast<std::uint64_t>(d.mantissa), 125u);
    EXPECT_EQ(d.scale, 2);
    EXPECT_EQ(unit, "GB/s");
    EXPECT_EQ(split_number("-5us", d, unit), Split::Sign);
    EXPECT_EQ(split_number("+5us", d, unit), Split::Sign);
    EXPECT_EQ(split_number("KiB", d, unit), Split::NoDigits);
    EXPECT_EQ(split_number("", d, unit), Split::NoDigits);
    const std::string huge = std::string(60, '9') + "B";
    EXPECT_EQ(split_number(huge, d, unit), Split::TooLarge);
    // 128 fraction digits: the 25th on are dropped (they divided by zero once).
    const std::string many = "1." + std::string(128, '5') + "s";  // `unit` views into it
    ASSERT_EQ(split_number(many, d, unit), Split::Ok);
    EXPECT_LE(d.scale, kMaxFractionDigits);  // stops where the mantissa would outgrow 128 bits
    EXPECT_GT(d.scale, 20);
    EXPECT_EQ(unit, "s");
    std::uint64_t ps = 0;
    ASSERT_TRUE(scale_rounded(d, ps_per_unit(unit), 1, ps));
    EXPECT_EQ(ps, 1'555'555'555'556u);
}

TEST(UnitsQuantity, ScalesExactlyOrRounded) {
    Decimal d;
    std::string_view unit;
    std::uint64_t v = 0;
    ASSERT_EQ(split_number("1.5KiB", d, unit), Split::Ok);
    EXPECT_EQ(scale_exact(d, bytes_per_unit(unit), v), Exact::Ok);
    EXPECT_EQ(v, 1536u);
    ASSERT_EQ(split_number("1.5B", d, unit), Split::Ok);
    EXPECT_EQ(scale_exact(d, bytes_per_unit(unit), v), Exact::NotWhole);
    ASSERT_TRUE(scale_rounded(d, bytes_per_unit(unit), 1, v));
    EXPECT_EQ(v, 2u);  // to nearest, halves up
    ASSERT_EQ(split_number("16EiB", d, unit), Split::Ok);
    EXPECT_EQ(bytes_per_unit(unit), 0u);  // no such unit
    ASSERT_EQ(split_number("16777216TiB", d, unit), Split::Ok);
    EXPECT_EQ(scale_exact(d, bytes_per_unit(unit), v), Exact::TooLarge);
    EXPECT_FALSE(scale_rounded(d, bytes_per_unit(unit), 1, v));
}

TEST(UnitsQuantity, UnitTables) {
    EXPECT_EQ(bytes_per_unit("B"), 1u);
    EXPECT_EQ(bytes_per_unit("kB"), 1000u);
    EXPECT_EQ(bytes_per_unit("KB"), 1000u);
    EXPECT_EQ(bytes_per_unit("KiB"), 1024u);
    EXPECT_EQ(bytes_per_unit("TiB"), u128(1) << 40);
    EXPECT_EQ(bytes_per_unit("Kib"), 0u);
    EXPECT_EQ(bytes_per_unit("KiBs"), 0u);
    EXPECT_EQ(ps_per_unit("ps"), 1u);
    EXPECT_EQ(ps_per_unit("us"), 1'000'000u);
    EXPECT_EQ(ps_per_unit("\xC2\xB5s"), 1'000'000u);
    EXPECT_EQ(ps_per_unit("min"), u128(60) * 1'000'000'000'000);
    EXPECT_EQ(ps_per_unit("h"), 0u);
}

// The simulator's parsers are this reader plus their own messages: on every input that is a
// whole number of bytes or picoseconds, the two agree.
TEST(UnitsQuantity, AgreesWithTheSimulatorsParsers) {
    const char* sizes[] = {"0B",   "1B",   "64KiB",  "1.5MiB",  "2.5GB",
                           "10kB", "3TiB", "0.5KiB", "1000000B"};
    for (const char* text : sizes) {
        Decimal d;
        std::string_view unit;
        ASSERT_EQ(split_number(text, d, unit), Split::Ok) << text;
        std::uint64_t v = 0;
        ASSERT_EQ(scale_exact(d, bytes_per_unit(unit), v), Exact::Ok) << text;
        EXPECT_EQ(v, parse_size(text)) << text;
    }
    const char* times[] = {"0s", "5us", "0.2ms", "1.5s", "250ns", "40ps", "2min", "1\xC2\xB5s"};
    for (const char* text : times) {
        Decimal d;
        std::string_view unit;
        ASSERT_EQ(split_number(text, d, unit), Split::Ok) << text;
        std::uint64_t v = 0;
        ASSERT_EQ(scale_exact(d, ps_per_unit(unit), v), Exact::Ok) << text;
        EXPECT_EQ(static_cast<std::int64_t>(v), parse_time(text).ps()) << text;
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::quantity
