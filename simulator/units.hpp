// Quantities with units, as users write them in model XML and on the command line.
//
//   time       5us, 0.2ms, 1.5s, 250ns, 40ps              (ps ns us µs ms s min)
//   size       100KiB, 1GiB, 1.5MB, 64B                   (B, kB/KB/MB/GB/TB = 10^3k,
//   KiB/MiB/GiB/TiB = 2^10k) bandwidth  10Gbit/s, 1.25GB/s, 1GiB/s, 800Mbit/s      (B/s or bit/s
//   with the prefixes above; Gbps also) speed      2.8G, 2.8GIPS, 2800Minstr/s, 2.8GHz
//   (instructions per second, SI prefix k M G T)
//
// Numbers are parsed as exact decimals (1.25GB/s is exactly 1'250'000'000 B/s). A missing or
// unknown unit, a sign, or trailing junk throws UnitError whose message says what was expected.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "simulator/time.hpp"

namespace clustersim {

class UnitError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

Time parse_time(std::string_view text);
std::uint64_t parse_size(std::string_view text);
// Rejects zero: a link or relay with no bandwidth can carry nothing.
Bandwidth parse_bandwidth(std::string_view text);
// Instructions per second; rejects zero.
std::uint64_t parse_speed(std::string_view text);
// A plain non-negative integer ("16"); rejects units, signs and fractions.
std::uint64_t parse_count(std::string_view text);

// Readable output with units: "1.234 ms", "100 KiB", "1.25 GB/s", "2.8 G instr/s".
std::string format_time(Time t);
std::string format_size(std::uint64_t bytes);
std::string format_bandwidth(Bandwidth bw);
std::string format_speed(std::uint64_t per_second);
// Canonical forms that parse back exactly (for generated XML): "5us", "1250000000B/s", "100KiB".
std::string canonical_time(Time t);
std::string canonical_size(std::uint64_t bytes);
std::string canonical_bandwidth(Bandwidth bw);
std::string canonical_speed(std::uint64_t per_second);

}  // namespace clustersim
