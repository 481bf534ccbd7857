// Parsing quantities with units: exact decimals, every unit family, and rejections whose
// messages say what was expected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "simulator/units.hpp"

namespace clustersim {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::HasSubstr;

template <class F>
std::string error_of(F f) {
    try {
        f();
    } catch (const UnitError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(UnitsParse, BandwidthsAreExactDecimals) {
    EXPECT_EQ(parse_bandwidth("1.25GB/s").bytes_per_s, 1'250'000'000u);
    EXPECT_EQ(parse_bandwidth("10Gbit/s").bytes_per_s, 1'250'000'000u);
    EXPECT_EQ(parse_bandwidth("1GiB/s").bytes_per_s, 1ull << 30);
    EXPECT_EQ(parse_bandwidth("800Mbit/s").bytes_per_s, 100'000'000u);
    EXPECT_EQ(parse_bandwidth("117MB/s").bytes_per_s, 117'000'000u);
    EXPECT_EQ(parse_bandwidth("6GB/s").bytes_per_s, 6'000'000'000u);
    EXPECT_EQ(parse_bandwidth("100Gbit/s").bytes_per_s, 12'500'000'000u);
    EXPECT_EQ(parse_bandwidth("1Gbps").bytes_per_s, 125'000'000u);
    EXPECT_EQ(parse_bandwidth("512KiB/s").bytes_per_s, 512u * 1024u);
    EXPECT_EQ(parse_bandwidth("1B/s").bytes_per_s, 1u);
    EXPECT_EQ(parse_bandwidth("0.1GB/s").bytes_per_s, 100'000'000u);
}

TEST(UnitsParse, Times) {
    EXPECT_EQ(parse_time("5us"), Time::us(5));
    EXPECT_EQ(parse_time("0.2us"), Time::ns(200));
    EXPECT_EQ(parse_time("0.2ms"), Time::us(200));
    EXPECT_EQ(parse_time("1.5s"), Time::ms(1500));
    EXPECT_EQ(parse_time("250ns"), Time::ns(250));
    EXPECT_EQ(parse_time("40ps"), Time::ps(40));
    EXPECT_EQ(parse_time("0s"), Time::zero());
    EXPECT_EQ(parse_time("25us"), Time::ps(25'000'000));
    EXPECT_EQ(parse_time("1min"), Time::s(60));
}

TEST(UnitsParse, Sizes) {
    EXPECT_EQ(parse_size("100KiB"), 102'400u);
    EXPECT_EQ(parse_size("64KiB"), 65'536u);
    EXPECT_EQ(parse_size("1GiB"), 1ull << 30);
    EXPECT_EQ(parse_size("12GiB"), 12ull << 30);
    EXPECT_EQ(parse_size("1.5MB"), 1'500'000u);
    EXPECT_EQ(parse_size("64B"), 64u);
    EXPECT_EQ(parse_size("1KB"), 1'000u);
    EXPECT_EQ(parse_size("0B"), 0u);
}

TEST(UnitsParse, Speeds) {
    EXPECT_EQ(parse_speed("2.8G"), 2'800'000'000u);
    EXPECT_EQ(parse_speed("2.8GIPS"), 2'800'000'000u);
    EXPECT_EQ(parse_speed("2800Minstr/s"), 2'800'000'000u);
    EXPECT_EQ(parse_speed("2.8GHz"), 2'800'000'000u);
    EXPECT_EQ(parse_speed("1G"), 1'000'000'000u);
    EXPECT_EQ(parse_speed("500k"), 500'000u);
}

TEST(UnitsParse, Counts) {
    EXPECT_EQ(parse_count("16"), 16u);
    EXPECT_EQ(parse_count("0"), 0u);
    EXPECT_EQ(parse_count("65536"), 65'536u);
    EXPECT_THROW(parse_count("1.5"), UnitError);
    EXPECT_THROW(parse_count("16n"), UnitError);
    EXPECT_THROW(parse_count("-3"), UnitError);
    EXPECT_THROW(parse_count(""), UnitError);
}

TEST(UnitsParse, RejectsUnknownUnitsAndSaysWhatWasExpected) {
    const std::string e = error_of([] { parse_bandwidth("10Gbit"); });
    EXPECT_THAT(e, HasSubstr("unknown unit 'Gbit'"));
    EXPECT_THAT(e, HasSubstr("expected a bandwidth"));
    EXPECT_THAT(error_of([] { parse_time("5 parsecs"); }), HasSubstr("unknown unit"));
    EXPECT_THAT(error_of([] { parse_size("1.5XB"); }), HasSubstr("expected a size"));
    EXPECT_THAT(error_of([] { parse_speed("2.8 bogomips"); }), HasSubstr("unknown unit"));
}

TEST(UnitsParse, RejectsMissingUnits) {
    EXPECT_THAT(error_of([] { parse_time("25"); }), HasSubstr("missing unit"));
    EXPECT_THAT(error_of([] { parse_size("100"); }), HasSubstr("missing unit"));
    EXPECT_THAT(error_of([] { parse_bandwidth("1000"); }), HasSubstr("missing unit"));
    EXPECT_THAT(error_of([] { parse_speed("2800"); }), HasSubstr("missing unit"));
}

TEST(UnitsParse, RejectsZeroSignsAndJunk) {
    EXPECT_THAT(error_of([] { parse_bandwidth("0GB/s"); }), HasSubstr("positive"));
    EXPECT_THAT(error_of([] { parse_speed("0G"); }), HasSubstr("positive"));
    EXPECT_THAT(error_of([] { parse_bandwidth("-1GB/s"); }), HasSubstr("without a sign"));
    EXPECT_THAT(error_of([] { parse_time("+5us"); }), HasSubstr("without a sign"));
    EXPECT_THROW(parse_time(""), UnitError);
    EXPECT_THROW(parse_time("us"), UnitError);
    EXPECT_THROW(parse_time("5us5"), UnitError);
    EXPECT_THROW(parse_size("1.2.3KiB"), UnitError);
}

TEST(UnitsParse, CanonicalFormsParseBackExactly) {
    for (std::uint64_t b :
         {1'250'000'000ull, 117'000'000ull, 1ull << 30, 12'800'000'000ull, 123'456'789ull, 1ull}) {
        EXPECT_EQ(parse_bandwidth(canonical_bandwidth(Bandwidth{b})).bytes_per_s, b) << b;
    }
    for (Time t : {Time::us(1), Time::ns(100), Time::ps(1'234'567), Time::s(3), Time::zero()})
        EXPECT_EQ(parse_time(canonical_time(t)), t) << t.ps();
    for (std::uint64_t s : {100ull * 1024, 64ull * 1024, 16ull << 30, 1'000'000ull, 7ull})
        EXPECT_EQ(parse_size(canonical_size(s)), s) << s;
    for (std::uint64_t v : {2'800'000'000ull, 2'000'000'000ull, 1'234'567ull, 999ull})
        EXPECT_EQ(parse_speed(canonical_speed(v)), v) << v;
}

TEST(UnitsParse, ReadableFormsCarryUnits) {
    EXPECT_EQ(format_size(100 * 1024), "100 KiB");
    EXPECT_EQ(format_bandwidth(Bandwidth{1'250'000'000}), "1.25 GB/s");
    EXPECT_EQ(format_bandwidth(kInfiniteBandwidth), "unlimited");
    EXPECT_THAT(format_time(Time::us(25)), HasSubstr("us"));
    EXPECT_THAT(format_speed(2'800'000'000), HasSubstr("instr/s"));
}

// Issue 18: 128 or more fraction digits used to scale by 10^128, which wraps 128 bits to 0
// and divided by zero (SIGFPE). Digits past what any unit resolves are read and dropped.
TEST(UnitsParse, ManyFractionDigitsAreDroppedNotDividedByZero) {
    const std::string zeros(200, '0');
    EXPECT_EQ(parse_time("1." + zeros + "s"), Time::s(1));
    EXPECT_EQ(parse_time("0.5" + zeros + "1us"), Time::ns(500));
    EXPECT_EQ(parse_size("0.5" + zeros + "KiB"), 512u);
    EXPECT_EQ(parse_bandwidth("1." + std::string(130, '9') + "GB/s").bytes_per_s, 2'000'000'000u);
    EXPECT_EQ(parse_speed("2." + zeros + "G"), 2'000'000'000u);
    EXPECT_EQ(parse_time("0." + std::string(23, '0') + "9s"), Time::zero());
    EXPECT_THROW(parse_time(std::string(40, '9') + "s"), UnitError);  // integer part: refused
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim
