// The flags of clustersim-calibrate (parse_options) and what a measurement does after them
// (resolve).

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "simulator/quantity.hpp"

#include "tools/mpi/calibrate/calibrate.hpp"

namespace clustersim::calibrate {

namespace quantity = clustersim::quantity;

// ---- flags -------------------------------------------------------------------------------

// "64KiB", "1.5MiB", "0B" -> bytes. Every size carries a unit; the result must be whole.
std::uint64_t parse_size(std::string_view flag, std::string_view text) {
    const std::string expected =
        "expected a size with a unit (B, KB, MB, GB, KiB, MiB, GiB; "
        "e.g. 64KiB, 1MiB, 0B)";
    const std::string what = strf("%.*s: '%.*s'", static_cast<int>(flag.size()), flag.data(),
                                  static_cast<int>(text.size()), text.data());
    // The simulator's reader of numbers with units (simulator/quantity.hpp).
    quantity::Decimal d;
    std::string_view unit;
    const quantity::Split split = quantity::split_number(text, d, unit);
    if (split == quantity::Split::TooLarge) throw UsageError(what + " is too large");
    if (split != quantity::Split::Ok) throw UsageError(what + ": " + expected);
    if (unit.empty()) throw UsageError(what + " has no unit; " + expected);
    const quantity::u128 f = quantity::bytes_per_unit(unit);
    if (f == 0) throw UsageError(what + ": unknown unit '" + std::string(unit) + "'; " + expected);
    std::uint64_t bytes = 0;
    switch (quantity::scale_exact(d, f, bytes)) {
        case quantity::Exact::Ok:
            return bytes;
        case quantity::Exact::NotWhole:
            throw UsageError(what + " is not a whole number of bytes; " + expected);
        case quantity::Exact::TooLarge:
            break;
    }
    throw UsageError(what + " is too large");
}

std::uint64_t parse_count(std::string_view flag, std::string_view text, std::uint64_t max) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || v == 0 || v > max)
        throw UsageError(strf("%.*s: '%.*s': expected a whole number from 1 to %llu",
                              static_cast<int>(flag.size()), flag.data(),
                              static_cast<int>(text.size()), text.data(),
                              static_cast<unsigned long long>(max)));
    return v;
}

const char* kUsage =
    "Usage: mpirun -np N clustersim-calibrate [--quick] [--max-size SIZE | --sizes LIST]\n"
    "           [--passes N] [--repeats N] [--min-repeats N] [--cpu-repeats N]\n"
    "           [--bandwidth largest|fit] [--io-dir DIR] [--io-size SIZE] [--local-curves]\n"
    "           [--name NAME]\n"
    "           [--out MODEL.xml] [--csv FILE.csv] [--save-measured FILE.json]\n"
    "       mpirun -np 2 clustersim-calibrate --peer-setup-only\n"
    "       clustersim-calibrate --from FILE.json [--bandwidth largest|fit] [--local-curves]\n"
    "           [--name NAME] [--out MODEL.xml] [--csv FILE.csv]\n"
    "\n"
    "Measures the machine the ranks run on, between one pair of ranks per placement class\n"
    "(intra-socket, inter-socket, inter-node; absent classes are reported): ping-pong latency\n"
    "and bandwidth against message size, bidirectional MPI_Sendrecv bandwidth, the eager\n"
    "threshold, the core speed, and writing a file with MPI-IO (page cache and disk); then\n"
    "writes a clustersim cluster model of the machine.\n"
    "Every figure is the median over the passes of the pass's median: passes during which\n"
    "other work shared the machine do not count. I/O figures are the median of every pass's\n"
    "samples.\n"
    "\n"
    "  --quick           a fast, rougher run: --max-size 4MiB --passes 3 --repeats 50\n"
    "                    --min-repeats 3 --cpu-repeats 2 --io-size 16MiB, a shorter CPU\n"
    "                    kernel, the powers of 4 only (flags given as well win)\n"
    "  --max-size SIZE   largest message (default 64MiB, at most 1GiB); the sizes are 0 B, 1 B,\n"
    "                    the powers of 4 up to 1 KiB and the powers of 2 from 1 KiB up to it\n"
    "  --sizes LIST      these message sizes instead, comma-separated (e.g. 0B,1KiB,1MiB)\n"
    "  --passes N        passes over every measurement, one after the other (default 5)\n"
    "  --repeats N       timed round trips of a small message per pass (default 200; the 0 B\n"
    "                    latency gets 10 x N); larger ones get N x 64 KiB of data per pass\n"
    "  --min-repeats N   fewest timed round trips of any size per pass (default 5)\n"
    "  --cpu-repeats N   timed runs of the CPU kernel per rank and pass (default 3)\n"
    "  --local-curves           write the collectives' copy and reduction rates per size\n"
    "                           (<copy-rate>, <reduce-rate>) besides the 64 MiB rates; off by\n"
    "                           default: hot-cache loop rates overstate MPI's own copies\n"
    "                           (docs/validation.md)\n"
    "  --bandwidth largest|fit  the model's bandwidth of a class: from its largest ping-pong\n"
    "                    (default, PIOsimHD's way) or the least-squares fit of latency +\n"
    "                    size / bandwidth to every ping-pong from 1 KiB up\n"
    "  --io-dir DIR      directory the I/O test writes (and deletes) its file in, on the\n"
    "                    file system to model (default /tmp)\n"
    "  --io-size SIZE    bytes of each file the I/O test writes in 1 MiB MPI_File_write_at\n"
    "                    calls (default 64MiB, at least 2MiB)\n"
    "  --name NAME       the model's name (default: calibrated-HOST)\n"
    "  --out FILE        write the cluster model (XML) there\n"
    "  --csv FILE        write every measurement there (CSV)\n"
    "  --save-measured FILE  write the raw measurements there (JSON), for --from\n"
    "  --from FILE       measure nothing (and start no MPI): derive the model and write\n"
    "                    --out and --csv from measurements saved with --save-measured\n"
    "  --peer-setup-only measure the lazy peer set-up alone (ranks 0 and 1, 64 zero-byte\n"
    "                    round trips, the first messages they exchange), print its round\n"
    "                    trips and total cost, write nothing (bench/validate.sh tracer-setup\n"
    "                    runs it with and without the tracer)\n"
    "  --help            print this text\n"
    "\n"
    "Sizes carry a unit: B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024).\n";

Options parse_options(int argc, char** argv) {
    Options o;
    o.command = kProgram;
    for (int i = 1; i < argc; ++i) o.command += std::string(" ") + argv[i];
    std::set<std::string> seen;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg.size() < 3 || arg.substr(0, 2) != "--")
            throw UsageError(
                strf("'%s': unexpected argument; expected a flag such as --out "
                     "FILE (see --help)",
                     argv[i]));
        const std::size_t eq = arg.find('=');
        const std::string name(arg.substr(0, eq));
        std::optional<std::string> inline_value;
        if (eq != std::string_view::npos) inline_value = std::string(arg.substr(eq + 1));
        if (!seen.insert(name).second)
            throw UsageError(name + ": given twice; expected it at most once");
        if (name == "--help" || name == "--quick" || name == "--local-curves") {
            if (inline_value) throw UsageError(name + ": expected no value (it is a switch)");
            (name == "--help" ? o.help : name == "--quick" ? o.quick : o.local_curves) = true;
            continue;
        }
        if (name == "--peer-setup-only") {
            if (inline_value) throw UsageError(name + ": expected no value (it is a switch)");
            o.peer_setup_only = true;
            continue;
        }
        const std::set<std::string> with_value{
            "--max-size",    "--sizes",     "--passes",        "--repeats", "--min-repeats",
            "--cpu-repeats", "--bandwidth", "--out",           "--csv",     "--name",
            "--io-dir",      "--io-size",   "--save-measured", "--from"};
        if (with_value.count(name) == 0)
            throw UsageError(
                name +
                ": unknown flag; expected one of --quick, --max-size, --sizes, "
                "--passes, --repeats, --min-repeats, --cpu-repeats, --bandwidth, --io-dir, "
                "--io-size, --local-curves, --name, --out, --csv, --save-measured, --from, "
                "--peer-setup-only, --help");
        std::string value;
        if (inline_value) {
            value = *inline_value;
        } else {
            if (i + 1 >= argc) throw UsageError(name + ": missing value (see --help)");
            value = argv[++i];
        }
        if (name == "--max-size") {
            o.max_size = parse_size(name, value);
            if (*o.max_size == 0 || *o.max_size > kMaxMessage)
                throw UsageError(
                    strf("--max-size: '%s': expected a size from 1B to 1GiB", value.c_str()));
        } else if (name == "--sizes") {
            std::vector<std::uint64_t> list;
            std::size_t start = 0;
            while (true) {
                const std::size_t comma = value.find(',', start);
                const std::string item = value.substr(start, comma - start);
                if (item.empty())
                    throw UsageError(
                        strf("--sizes: '%s': empty item; expected sizes separated "
                             "by commas (e.g. 0B,1KiB,1MiB)",
                             value.c_str()));
                const std::uint64_t b = parse_size(name, item);
                if (b > kMaxMessage)
                    throw UsageError(
                        strf("--sizes: '%s': expected at most 1GiB (MPI counts "
                             "are int)",
                             item.c_str()));
                list.push_back(b);
                if (comma == std::string::npos) break;
                start = comma + 1;
            }
            std::sort(list.begin(), list.end());
            list.erase(std::unique(list.begin(), list.end()), list.end());
            if (list.back() == 0)
                throw UsageError(
                    "--sizes: expected at least one size above 0B (the bandwidth "
                    "needs one)");
            o.sizes = list;
        } else if (name == "--bandwidth") {
            if (value != "largest" && value != "fit")
                throw UsageError(strf("--bandwidth: '%s': expected largest or fit", value.c_str()));
            o.fit = value == "fit";
        } else if (name == "--passes") {
            o.passes = parse_count(name, value, 1000);
        } else if (name == "--repeats") {
            o.repeats = parse_count(name, value, 100'000'000);
        } else if (name == "--min-repeats") {
            o.min_repeats = parse_count(name, value, 100'000'000);
        } else if (name == "--cpu-repeats") {
            o.cpu_repeats = parse_count(name, value, 100'000);
        } else if (name == "--io-dir") {
            if (value.empty()) throw UsageError("--io-dir: expected a directory");
            o.io_dir = value;
        } else if (name == "--io-size") {
            o.io_size = parse_size(name, value);
            if (*o.io_size < 2 * MiB || *o.io_size > 64 * GiB)
                throw UsageError(
                    strf("--io-size: '%s': expected a size from 2MiB to 64GiB", value.c_str()));
        } else if (name == "--out" || name == "--csv" || name == "--save-measured" ||
                   name == "--from") {
            if (value.empty()) throw UsageError(name + ": expected a file name");
            (name == "--out"    ? o.out
             : name == "--csv"  ? o.csv
             : name == "--from" ? o.from
                                : o.save_measured) = value;
        } else if (name == "--name") {
            const bool ok = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
                return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_';
            });
            if (!ok)
                throw UsageError(strf("--name: '%s': expected letters, digits, '-' and '_' only",
                                      value.c_str()));
            o.name = value;
        }
    }
    if (o.sizes && o.max_size)
        throw UsageError(
            "--sizes: cannot be combined with --max-size (--sizes lists every "
            "size)");
    if (o.peer_setup_only)
        for (const std::string& other : seen)
            if (other != "--peer-setup-only")
                throw UsageError("--peer-setup-only: cannot be combined with " + other +
                                 " (it measures the set-up alone and writes nothing)");
    if (!o.from.empty())
        for (const char* measuring :
             {"--quick", "--max-size", "--sizes", "--passes", "--repeats", "--min-repeats",
              "--cpu-repeats", "--io-dir", "--io-size", "--save-measured"})
            if (seen.count(measuring) != 0)
                throw UsageError(std::string("--from: cannot be combined with ") + measuring +
                                 " (--from measures nothing: the measurements are in the file)");
    return o;
}

Settings resolve(const Options& o) {
    Settings s;
    std::uint64_t max_size = 64 * MiB;
    if (o.quick) {
        max_size = 4 * MiB;
        s.passes = 3;
        s.repeats = 50;
        s.min_repeats = 3;
        s.cpu_repeats = 2;
        s.cpu_steps = std::uint64_t{1} << 22;
        s.probe_delay = 1e-3;
        s.io_size = 16 * MiB;
    }
    s.io_dir = o.io_dir;
    if (o.io_size) s.io_size = *o.io_size;
    if (o.max_size) max_size = *o.max_size;
    if (o.passes) s.passes = *o.passes;
    if (o.repeats) s.repeats = *o.repeats;
    if (o.min_repeats) s.min_repeats = *o.min_repeats;
    if (o.cpu_repeats) s.cpu_repeats = *o.cpu_repeats;
    if (o.sizes) {
        s.sizes = *o.sizes;
    } else {
        // 0 B, 1 B, the powers of 4 below 1 KiB, then every power of 2 from 1 KiB: the
        // powers of 4 alone missed this VM's bandwidth cliff between 8 and 16 MiB (one way
        // 750 us at 8 MiB, 1.62 ms at 16 MiB), so 10 MiB was interpolated 30-40 % slow.
        // --quick keeps the powers of 4 throughout (its 4 MiB stop below that cliff).
        s.sizes = {0, 1};
        for (std::uint64_t b = 4; b <= max_size; b *= (b < KiB || o.quick ? 4 : 2))
            s.sizes.push_back(b);
        if (s.sizes.back() != max_size) s.sizes.push_back(max_size);
    }
    s.buffer = std::max(s.sizes.back(), kProbeMax);
    return s;
}

}  // namespace clustersim::calibrate
