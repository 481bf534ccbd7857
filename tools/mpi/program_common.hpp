// Shared by the MPI programs clustersim-bench, clustersim-jacobi and clustersim-gargde
// (issue 7): a small command-line parser, quantities with units (sizes, times, counts) and
// readable output with units. Header-only, standard library and MPI's C API only: the
// programs link nothing of the simulator.
//
// Conventions (as in the `clustersim` command): every size or time carries a unit (`10KiB`,
// `300us`); a missing or unknown unit is an error. A bad flag is reported by rank 0 as ONE
// line on stderr, `PROGRAM: error: --FLAG: what was expected`, and exits with code 2 (and so
// does mpirun); the other ranks finalize and exit quietly with 0 (all ranks parse the same
// argv, so they agree without communicating).
#pragma once

// Open MPI (and MPICH) include their deprecated C++ bindings from mpi.h in C++ code; those
// headers do not compile cleanly with -Wextra -Werror, and only the C API is used here.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/quantity.hpp"

namespace clustersim::mpiprog {

// A bad command line or input: the message names the flag and what was expected.
class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

namespace detail {

// Reads `text` as a whole number of the base unit (bytes, nanoseconds) with the shared reader
// (simulator/quantity.hpp); `per_unit` gives the base units per unit, 0 for an unknown unit.
// Every error names the flag and what was expected.
template <typename PerUnit>
std::uint64_t parse_whole(const std::string& flag, std::string_view text,
                          const std::string& expected, const char* base, PerUnit per_unit) {
    const std::string what = flag + ": '" + std::string(text) + "'";
    if (text.empty()) throw UsageError(flag + ": empty value, " + expected);
    quantity::Decimal d;
    std::string_view unit;
    const quantity::Split split = quantity::split_number(text, d, unit);
    if (split == quantity::Split::TooLarge) throw UsageError(what + " is too large, " + expected);
    if (split != quantity::Split::Ok) throw UsageError(what + " is not a number, " + expected);
    if (unit.empty()) throw UsageError(what + " has no unit, " + expected);
    const quantity::u128 factor = per_unit(unit);
    if (factor == 0)
        throw UsageError(what + " has an unknown unit '" + std::string(unit) + "', " + expected);
    std::uint64_t v = 0;
    if (quantity::scale_exact(d, factor, v) != quantity::Exact::Ok)
        throw UsageError(what + " is not a whole number of " + base + " or too large, " + expected);
    return v;
}

}  // namespace detail

// A size in bytes with a unit: B, kB/KB/MB/GB/TB (powers of 1000), KiB/MiB/GiB/TiB (powers
// of 1024); `1.5MiB` is fine when the result is a whole number of bytes.
inline std::uint64_t parse_size(const std::string& flag, std::string_view text) {
    return detail::parse_whole(
        flag, text, "expected a size with a unit (B, KiB, MiB, GiB, kB, MB, GB; e.g. 10KiB)",
        "bytes", [](std::string_view unit) { return quantity::bytes_per_unit(unit); });
}

// A time with a unit (ns, us, µs, ms, s), returned in whole nanoseconds; a time that is not
// a whole number of nanoseconds is an error.
inline std::uint64_t parse_time_ns(const std::string& flag, std::string_view text) {
    return detail::parse_whole(flag, text,
                               "expected a time with a unit (ns, us, ms, s; e.g. 300us)",
                               "nanoseconds", [](std::string_view unit) -> quantity::u128 {
                                   const quantity::u128 ps = quantity::ps_per_unit(unit);
                                   return ps % 1000 == 0 ? ps / 1000 : 0;  // ps is not a unit here
                               });
}

// A plain whole number without sign or unit, at least `min`.
inline std::uint64_t parse_count(
    const std::string& flag, std::string_view text, std::uint64_t min = 0,
    std::uint64_t max = static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
    const std::string expected =
        "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max);
    if (text.empty()) throw UsageError(flag + ": empty value, " + expected);
    for (char c : text)
        if (c < '0' || c > '9')
            throw UsageError(flag + ": '" + std::string(text) + "' is not a whole number, " +
                             expected);
    if (text.size() > 18)
        throw UsageError(flag + ": '" + std::string(text) + "' is too large, " + expected);
    std::uint64_t v = 0;
    for (char c : text) v = v * 10 + static_cast<std::uint64_t>(c - '0');
    if (v < min || v > max)
        throw UsageError(flag + ": '" + std::string(text) + "' is out of range, " + expected);
    return v;
}

// "a,b,c" -> {"a", "b", "c"}; an empty item is an error.
inline std::vector<std::string> split_list(const std::string& flag, const std::string& text) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (true) {
        const std::size_t comma = text.find(',', pos);
        std::string item =
            text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        if (item.empty())
            throw UsageError(flag + ": empty item in '" + text +
                             "', expected a comma-separated list");
        out.push_back(std::move(item));
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return out;
}

// --------------------------------------------------------------------------------------
// Flags: `--name VALUE`, `--name=VALUE`, or a switch `--name`. Unknown flags, a missing value,
// a value given to a switch, a flag given twice and positional arguments are errors.
struct FlagSpec {
    std::string name;   // "--sizes"
    std::string value;  // what the value looks like ("LIST"); empty for a switch
    std::string help;
};

class Flags {
  public:
    Flags(std::vector<FlagSpec> specs, int argc, char** argv) : specs_(std::move(specs)) {
        for (int i = 1; i < argc; ++i) {
            std::string arg = argv[i];
            if (arg == "-h") arg = "--help";
            if (arg.rfind("--", 0) != 0)
                throw UsageError("unexpected argument '" + arg +
                                 "', expected a flag (--help lists them)");
            std::string name = arg, value;
            bool has_value = false;
            if (const auto eq = arg.find('='); eq != std::string::npos) {
                name = arg.substr(0, eq);
                value = arg.substr(eq + 1);
                has_value = true;
            }
            if (name == "--help") {
                help_ = true;
                continue;
            }
            const FlagSpec* spec = find(name);
            if (spec == nullptr) {
                std::string names;
                for (const auto& s : specs_) names += (names.empty() ? "" : ", ") + s.name;
                throw UsageError("unknown flag '" + name + "', expected one of: " + names +
                                 ", --help");
            }
            if (values_.count(name)) throw UsageError(name + ": given twice, expected it once");
            if (spec->value.empty()) {
                if (has_value) throw UsageError(name + ": takes no value, got '" + value + "'");
            } else if (!has_value) {
                if (i + 1 >= argc)
                    throw UsageError(name + ": missing value, expected " + spec->value + " (" +
                                     spec->help + ")");
                value = argv[++i];
            }
            values_[name] = value;
        }
    }

    bool help() const { return help_; }
    bool has(const std::string& name) const { return values_.count(name) != 0; }
    // The value of a flag that was given (check has() first), or `fallback`.
    std::string get(const std::string& name, const std::string& fallback) const {
        const auto it = values_.find(name);
        return it == values_.end() ? fallback : it->second;
    }

    std::string usage(const std::string& program, const std::string& summary) const {
        std::string out = "usage: mpirun -np N " + program + " [flags]\n" + summary + "\n\n";
        for (const auto& s : specs_) {
            std::string left = "  " + s.name + (s.value.empty() ? "" : " " + s.value);
            if (left.size() < 30)
                left.resize(30, ' ');
            else
                left += "\n" + std::string(30, ' ');
            out += left + s.help + "\n";
        }
        return out;
    }

  private:
    const FlagSpec* find(const std::string& name) const {
        for (const auto& s : specs_)
            if (s.name == name) return &s;
        return nullptr;
    }
    std::vector<FlagSpec> specs_;
    std::map<std::string, std::string> values_;
    bool help_ = false;
};

// --------------------------------------------------------------------------------------
// Output with units.

// A number with `digits` significant digits, trailing zeros dropped ("12.5", "0.001234").
inline std::string trim_number(double v, int digits = 4) {
    char buf[64];
    if (v == 0) return "0";
    const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
    const int decimals = std::max(0, digits - 1 - magnitude);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string s = buf;
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

// "12.34 us", "1.5 ms", "2.301 s" (the `clustersim` command's style).
inline std::string format_seconds(double s) {
    const double a = std::fabs(s);
    if (a >= 1) return trim_number(s) + " s";
    if (a >= 1e-3) return trim_number(s * 1e3) + " ms";
    if (a >= 1e-6) return trim_number(s * 1e6) + " us";
    return trim_number(s * 1e9) + " ns";
}

// "10 KiB", "1.5 MiB", "512 B".
inline std::string format_bytes(std::uint64_t bytes) {
    const double b = static_cast<double>(bytes);
    if (bytes >= (1ULL << 40)) return trim_number(b / static_cast<double>(1ULL << 40)) + " TiB";
    if (bytes >= (1ULL << 30)) return trim_number(b / static_cast<double>(1ULL << 30)) + " GiB";
    if (bytes >= (1ULL << 20)) return trim_number(b / static_cast<double>(1ULL << 20)) + " MiB";
    if (bytes >= (1ULL << 10)) return trim_number(b / static_cast<double>(1ULL << 10)) + " KiB";
    return std::to_string(bytes) + " B";
}

// A canonical size that parse_size reads back exactly: "10KiB", "100MiB", "1000B".
inline std::string canonical_bytes(std::uint64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (u < 4 && bytes != 0 && bytes % 1024 == 0) {
        bytes /= 1024;
        ++u;
    }
    return std::to_string(bytes) + units[u];
}

// A bandwidth in bytes per second: "1.25 GB/s" (powers of 1000, as the simulator prints).
inline std::string format_bandwidth(double bytes_per_s) {
    if (bytes_per_s >= 1e9) return trim_number(bytes_per_s / 1e9) + " GB/s";
    if (bytes_per_s >= 1e6) return trim_number(bytes_per_s / 1e6) + " MB/s";
    if (bytes_per_s >= 1e3) return trim_number(bytes_per_s / 1e3) + " KB/s";
    return trim_number(bytes_per_s) + " B/s";
}

// Table cells: pad to `width` characters (UTF-8 aware: "δ" is one character), on the right
// (pad) or on the left (lpad).
inline std::size_t display_width(const std::string& s) {
    std::size_t n = 0;
    for (char c : s)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
    return n;
}

inline std::string pad(std::string s, std::size_t width) {
    const std::size_t w = display_width(s);
    if (w < width) s.append(width - w, ' ');
    return s;
}

inline std::string lpad(const std::string& s, std::size_t width) {
    const std::size_t w = display_width(s);
    return w < width ? std::string(width - w, ' ') + s : s;
}

// --------------------------------------------------------------------------------------
// The frame of every program: MPI_Init, run `body`, and turn a UsageError into one line on
// stderr and exit code 2 on rank 0 (0 on the others). `body` returns the exit code.
// A UsageError must be thrown by all ranks alike (from argv, or after a broadcast decision),
// never by one rank alone: the others would wait in their next collective.
template <typename Body>
int run_program(const char* program, int argc, char** argv, Body&& body) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int code = 0;
    try {
        code = body(rank);
    } catch (const UsageError& e) {
        // One line from rank 0, which exits with 2 (so does mpirun); the others end quietly.
        if (rank == 0) std::fprintf(stderr, "%s: error: %s\n", program, e.what());
        code = rank == 0 ? 2 : 0;
    }
    MPI_Finalize();
    return code;
}

}  // namespace clustersim::mpiprog
