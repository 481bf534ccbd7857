// clustersim-calibrate: measures the machine it runs on and writes a clustersim cluster model
// of it, the way PIOsimHD parameterizes its model (Kunkel, "Simulating parallel programs on
// application and system level", section 5.1): "latency is measured with a Ping-Pong kernel
// transferring empty messages; throughput is determined with large message transfers of a
// Ping-Pong and a bi-directional SendRecv kernel. Performance of intra-socket, inter-socket
// and inter-node communication is measured. With those values performance of internal edges
// and nodes can be derived, e.g. by subtracting the average intra-socket latency from the
// inter-socket latency". It also writes the parameters of PSINS's `simple` communication
// model (Tikir et al., section 2: best achievable latency and bandwidth, intra- and
// inter-node) as the model's <comm-model>.
//
// What it measures, between one pair of ranks per placement class:
//
//   classes     from every rank's host name (MPI_Get_processor_name), its CPU (sched_getcpu)
//               and that CPU's /sys/devices/system/cpu/cpuN/topology/physical_package_id:
//               intra-socket (one host, one package), inter-socket (one host, two packages),
//               inter-node (two hosts). The first pair of ranks (in rank order) of each class
//               is measured (two ranks on one CPU only if no other pair shares a socket); a
//               class no pair falls into is reported as absent, with the reason.
//   ping-pong   rank a sends `size` bytes to rank b, which sends them back (MPI_Send /
//               MPI_Recv). Each round trip is timed on its own (MPI_Wtime); one-way time =
//               round trip / 2. The 0 B ping-pong is the latency (10 x --repeats round trips).
//   sendrecv    both ranks call MPI_Sendrecv(size to the peer, size from the peer) together;
//               time per call; bandwidth per direction = size / time, aggregate = twice that.
//   eager       the largest size whose MPI_Send returns before the receive is posted: a
//               announces the size, b answers when ready (nothing else in flight), waits
//               probe_delay (2 ms) and only then posts its receive; a send that returned in
//               less than half of that went eagerly. A size is rendezvous if two of three
//               tries blocked (one OS hiccup cannot flip it); powers of two, then a binary
//               search. Measured twice: with b polling MPI_Iprobe while it waits (the
//               protocol's threshold, which the model uses) and with b computing (Open MPI's
//               shared memory, for one, completes only the smallest sends without the
//               receiver's help).
//   o_s, o_r    the MPI library's per-message software costs (LogGP's o), on the pair of
//               the class the intra-node curve comes from, at 8 B, 256 B and 1 KiB, in
//               bursts of kBurst messages (per message: the burst's time / kBurst): o_s =
//               posting an MPI_Isend (the receives already posted), post = posting an
//               MPI_Irecv (nothing sent yet), o_r = taking in a burst that was sent while
//               the receiver made no MPI call, per MPI_Recv, minus post (Bench::overheads).
//               Written as <mpi-overhead>; the simulator charges them on the ranks' cores on
//               top of the network, so the model's latencies and transfer curves have
//               o_s + o_r taken out (see derive).
//   cpu         every rank at once (at most one per online CPU of a host) runs a fixed kernel:
//               `steps` steps of xorshift64 (x ^= x << 13; x ^= x >> 7; x ^= x << 17), one
//               dependent chain. We count SIX instructions per step (three shifts, three
//               xors; the compiler's register copies are eliminated at rename on x86-64 and
//               the loop counter runs beside the chain, so they are not counted), so a core
//               that retires one dependent integer operation per cycle shows its clock rate.
//               That rate, in instructions per second, is the model's core `speed` (a compute
//               record of N instructions takes N / speed), and the same value is what a trace
//               recorded on this machine gives as its `traced-speed` (replay projects recorded
//               compute times by traced-speed / model speed, so both must be this unit).
//   file I/O    rank 0 alone, last in every pass (see io_pass): writes --io-size bytes
//               (64 MiB) in 1 MiB MPI_File_write_at calls into a fresh file in --io-dir,
//               once without a sync (the page cache's rate, open and close) and once
//               followed by MPI_File_sync, and three files of one 1 MiB write, each synced;
//               every file is deleted afterwards; then 64 writes of 160 B (the client's cost
//               per request). From /proc: the kernel's dirty-page limits. Then every rank
//               opens and closes a file on MPI_COMM_WORLD (15 times; open and close per rank
//               beyond rank 0's own), and 15 times more with the other ranks entering the
//               close 2 ms late (whether the close synchronizes: OMPIO's does).
//   two-way     the sendrecv ladder, read like the ping-pong: per size the transfer time of
//               one direction while both move, written as <point-to-point direction="both">.
//
// Passes and the statistic. Everything runs in --passes passes one after the other (the CPU
// kernel, then every class's latency, ping-pong and sendrecv ladders), and every figure is
// the MEDIAN OVER THE PASSES OF EACH PASS'S MEDIAN (for the CPU: of the passes' median
// runs). Within a pass the median drops the iterations the OS took away (a VM's upper tail,
// which a mean would keep); the median over passes drops the passes during which other work
// shared the cores, a disturbance long enough to move a median, and (unlike the minimum
// over passes, which this tool used first) does not pick a VM's fast mode every time. The minimum
// of all samples would be the opposite error: the one iteration on which caches, timer and
// scheduler lined up. The CSV keeps the median of all samples, the minimum, the 10th and 90th
// percentiles and the maximum as well. The I/O figures are the MEDIAN of all their samples instead:
// a file system's own variation is part of every write. Small messages get --repeats round trips
// per pass, larger ones --repeats x 64 KiB of data, never fewer than --min-repeats; warm-up
// iterations are dropped. Ranks outside the measured pair wait in a sleeping barrier, not in
// a spinning MPI call.
//
// The model (see `derive` and `write_model`): per host shape a <node-type> with the host's
// sockets (physical cores per package, online CPUs), its memory (MemTotal) and the measured
// core speed; one memory node per socket, a QPI-like switch joining them when there are
// several, a NIC when there are several nodes, and one switch joining the nodes. Every
// memory node, switch and NIC forwards cut-through, so a message of m bytes over the path
// takes (sum of latencies) + m / (bottleneck bandwidth), the form PSINS's simple model and
// the ping-pong share, and the latencies of the hidden edges come out of the subtractions:
//   socket - memory node  latency = intra-socket latency / 2 (s -> mem -> s has two edges);
//                         bandwidth = intra-socket bandwidth (also the memory node's local rate)
//   memory node - QPI     latency = (inter-socket latency - intra-socket latency) / 2;
//                         bandwidth = inter-socket bandwidth; the QPI relay (shared by both
//                         directions) = the inter-socket sendrecv aggregate, if larger
//   NIC - QPI/memory node latency 0, bandwidth = inter-node bandwidth; NIC relay = inter-node
//                         sendrecv aggregate, if larger
//   NIC - switch          latency = (inter-node latency - the node-internal part) / 2,
//                         bandwidth = inter-node bandwidth
// The bandwidth of a class (--bandwidth largest, the default and PIOsimHD's way) is that of
// its largest ping-pong with the latency the simulator adds taken out: B = m / (t - k L),
// k = 1 for an eager message, 3 above the eager threshold (request, clear-to-send, data), so
// the model reproduces the largest measured size; --bandwidth fit takes the B whose
// k L + m / B is closest to every measured size from 1 KiB up instead. The <comm-model>
// (PSINS's simple model) gets the same latency and bandwidth, collectives="messages" (the
// collectives run their algorithms as messages: calibrating them from measured collectives
// would make a validation against collectives circular), and the measured ping-pong as
// <point-to-point> curves (see transfer_curve): within a node from the intra-socket pair (else
// the inter-socket one), between nodes from the inter-node pair. One point per measured size:
// the transfer bandwidth s / (t - k L), so that the analytic models, which time a message as
// k L + s / B(s) with B interpolated through the points, reproduce every measured size.
// I/O (see derive): one <io-server> on n0 with a write_behind cache of the kernel's dirty
// setpoint and a `simple` disk at the rate that writing + syncing the large file rather than
// the small one shows (write_behind flushes while the writes go on, Linux at the sync); a
// <file-system> with the measured open and close and the sync's fixed cost.
//
// Output: tables on stdout (rank 0), `--out FILE.xml` (the model; the command that made it
// is on a <?clustersim-calibrate ...?> line, since an XML comment cannot hold "--"),
// `--csv FILE` (one row per measurement). A bad flag is ONE line on stderr from rank 0,
// which exits with 2; the other ranks finalize and exit with 0 (every rank parses the same
// argv, so they agree).
//
// MPI's C API and the standard library only (plus sched_getcpu/sched_getaffinity): the MPI
// programs link nothing of the simulator.

// Open MPI and MPICH pull their C++ bindings into C++ code from mpi.h; only the C API is used.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <sched.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "simulator/quantity.hpp"

namespace {

namespace quantity = clustersim::quantity;

constexpr const char* kProgram = "clustersim-calibrate";
constexpr int kUsageExit = 2;
constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
constexpr std::uint64_t kMaxMessage = GiB;           // MPI counts are int
constexpr std::uint64_t kBytesPerRepeat = 64 * KiB;  // data budget per size: repeats x this
constexpr std::uint64_t kProbeMax = MiB;             // largest size the eager probe tries
constexpr int kMaxSockets = 64;
constexpr int kSmallWrites = 64;                 // small writes per pass of the I/O test
constexpr std::uint64_t kSmallWriteBytes = 160;  // bytes each
constexpr int kSmallSyncs = 3;           // files of one write synced per pass of the I/O test
constexpr int kInstructionsPerStep = 6;  // xorshift64: 3 shifts + 3 xors
constexpr int kTagPing = 11, kTagPong = 12, kTagSendrecv = 13, kTagProbe = 14, kTagData = 15,
              kTagResult = 16, kTagNote = 17, kTagBurst = 18;
// Per-message software costs (LogGP's o): measured at these sizes (all sent eagerly by the
// MPI libraries we know; the simulator keeps the last point's cost above them), in bursts of
// kBurst messages.
constexpr std::array<std::uint64_t, 3> kOverheadSizes{8, 256, 1024};
constexpr int kBurst = 16;
constexpr double kSettle = 50e-6;  // s: the receiver's wait before it takes a burst in

// ---- text ------------------------------------------------------------------------------

class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

template <typename... Args>
std::string strf(const char* format, Args... args) {
    if constexpr (sizeof...(Args) == 0) {
        return format;
    } else {
        const int n = std::snprintf(nullptr, 0, format, args...);
        if (n <= 0) return {};
        std::string s(static_cast<std::size_t>(n), '\0');
        std::snprintf(s.data(), s.size() + 1, format, args...);
        return s;
    }
}

// 0 B, 1 B, 4 KiB, 64 MiB, 1.5 KiB, 1000 B
std::string size_text(std::uint64_t b) {
    const std::pair<std::uint64_t, const char*> units[] = {
        {GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}};
    for (const auto& [f, name] : units)
        if (b >= f) {
            if (b % f == 0) return strf("%llu %s", static_cast<unsigned long long>(b / f), name);
            if ((b * 10) % f == 0) return strf("%.1f %s", static_cast<double>(b) / f, name);
        }
    return strf("%llu B", static_cast<unsigned long long>(b));
}

// A time with its unit: 312.4 ns, 1.234 µs, 56.78 ms, 1.234 s.
std::string time_text(double s) {
    if (s < 1e-6) return strf("%.1f ns", s * 1e9);
    if (s < 1e-3) return strf("%.3f µs", s * 1e6);
    if (s < 1) return strf("%.3f ms", s * 1e3);
    return strf("%.3f s", s);
}

std::string us_text(double s) {
    return strf("%.3f µs", s * 1e6);
}
std::string mbps_text(double bytes_per_s) {
    return strf("%.1f MB/s", bytes_per_s / 1e6);
}
std::string gbps_text(double bytes_per_s) {
    return strf("%.3f GB/s", bytes_per_s / 1e9);
}

// Model XML quantities (units the model reader parses exactly).
std::string xml_time(double s) {
    s = std::max(0.0, s);
    if (s < 1e-6) return strf("%.1fns", s * 1e9);
    if (s < 1e-3) return strf("%.4fus", s * 1e6);
    return strf("%.4fms", s * 1e3);
}
std::string xml_bandwidth(double bytes_per_s) {
    return strf("%.1fMB/s", std::max(0.1e6, bytes_per_s) / 1e6);
}
// A size in the largest binary unit that divides it: 1KiB, 64MiB, 1B, 1000B.
std::string xml_size(std::uint64_t b) {
    for (const auto& [f, name] :
         {std::pair<std::uint64_t, const char*>{GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}})
        if (b >= f && b % f == 0)
            return strf("%llu%s", static_cast<unsigned long long>(b / f), name);
    return strf("%lluB", static_cast<unsigned long long>(b));
}
std::string xml_speed(double per_s) {
    return strf("%.0fM", std::max(1.0, per_s / 1e6));
}

// Text for an XML comment, which must not contain "--" (nor end in "-").
std::string comment_safe(std::string s) {
    for (std::size_t at; (at = s.find("--")) != std::string::npos;) s.insert(at + 1, " ");
    if (!s.empty() && s.back() == '-') s += ' ';
    return s;
}

std::string xml_escape(std::string_view s) {
    std::string out;
    for (const char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

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

struct Options {
    bool help = false, quick = false;
    std::optional<std::uint64_t> max_size, passes, repeats, min_repeats, cpu_repeats;
    std::optional<std::vector<std::uint64_t>> sizes;
    std::optional<std::uint64_t> io_size;
    std::string out, csv, name;
    std::string io_dir = "/tmp";  // --io-dir
    bool fit = false;             // --bandwidth fit
    bool local_curves = false;    // --local-curves
    std::string command;          // as given, for the model's header
};

// What a run does, after --quick and the flags. Repeat counts are per pass.
struct Settings {
    std::vector<std::uint64_t> sizes;
    std::uint64_t passes = 5, repeats = 200, min_repeats = 5, cpu_repeats = 3;
    std::uint64_t cpu_steps = std::uint64_t{1} << 24;  // 100.7 M instructions, ~33 ms at 3 G
    double probe_delay = 2e-3;                         // s
    std::uint64_t buffer = 0;                          // bytes per buffer
    std::string io_dir = "/tmp";                       // where the I/O test writes its file
    std::uint64_t io_size = 64 * MiB;                  // bytes per file written
    std::uint64_t io_transfer = MiB;                   // bytes per MPI_File_write_at

    std::uint64_t reps(std::uint64_t bytes) const {
        const std::uint64_t by_data =
            bytes == 0 ? repeats : std::max<std::uint64_t>(1, repeats * kBytesPerRepeat / bytes);
        return std::max(min_repeats, std::min(repeats, by_data));
    }
    static std::uint64_t warmup(std::uint64_t reps) {
        return std::clamp<std::uint64_t>(reps / 10, 1, 10);
    }
};

const char* kUsage =
    "Usage: mpirun -np N clustersim-calibrate [--quick] [--max-size SIZE | --sizes LIST]\n"
    "           [--passes N] [--repeats N] [--min-repeats N] [--cpu-repeats N]\n"
    "           [--bandwidth largest|fit] [--io-dir DIR] [--io-size SIZE] [--local-curves]\n"
    "           [--name NAME]\n"
    "           [--out MODEL.xml] [--csv FILE.csv]\n"
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
    "                    kernel (flags given as well win)\n"
    "  --max-size SIZE   largest message (default 64MiB, at most 1GiB); the sizes are 0 B, 1 B\n"
    "                    and the powers of 4 up to it\n"
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
        const std::set<std::string> with_value{
            "--max-size",  "--sizes", "--passes", "--repeats", "--min-repeats", "--cpu-repeats",
            "--bandwidth", "--out",   "--csv",    "--name",    "--io-dir",      "--io-size"};
        if (with_value.count(name) == 0)
            throw UsageError(
                name +
                ": unknown flag; expected one of --quick, --max-size, --sizes, "
                "--passes, --repeats, --min-repeats, --cpu-repeats, --bandwidth, --io-dir, "
                "--io-size, --local-curves, --name, --out, --csv, --help");
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
        } else if (name == "--out" || name == "--csv") {
            if (value.empty()) throw UsageError(name + ": expected a file name");
            (name == "--out" ? o.out : o.csv) = value;
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
        s.sizes = {0, 1};
        for (std::uint64_t b = 4; b <= max_size; b *= 4) s.sizes.push_back(b);
        if (s.sizes.back() != max_size) s.sizes.push_back(max_size);
    }
    s.buffer = std::max(s.sizes.back(), kProbeMax);
    return s;
}

// ---- this rank and its host ----------------------------------------------------------------

std::optional<long> read_long(const std::string& path) {
    std::ifstream in(path);
    long v = 0;
    if (in >> v) return v;
    return std::nullopt;
}

// "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11}
std::vector<int> parse_cpu_list(const std::string& text) {
    std::vector<int> cpus;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        int lo = 0, hi = 0;
        const std::size_t dash = item.find('-');
        try {
            lo = std::stoi(item.substr(0, dash));
            hi = dash == std::string::npos ? lo : std::stoi(item.substr(dash + 1));
        } catch (const std::exception&) {
            continue;
        }
        for (int c = lo; c <= hi && c - lo < 100000; ++c) cpus.push_back(c);
    }
    return cpus;
}

// Gathered from every rank as raw bytes (trivially copyable).
struct RankInfo {
    char host[MPI_MAX_PROCESSOR_NAME + 1];
    char cpu_model[96];
    std::int32_t cpu;                 // sched_getcpu(), -1 unknown
    std::int32_t socket;              // index of its package among the host's packages (0 unknown)
    std::int32_t package;             // physical_package_id, -1 unknown
    std::int32_t bound_cpus;          // CPUs in the affinity mask
    std::int32_t host_cpus;           // online logical CPUs of the host
    std::int32_t sockets;             // packages of the host
    std::int32_t cores[kMaxSockets];  // physical cores per package (in package id order)
    std::int32_t topology_known;      // the sysfs topology could be read
    std::uint64_t memory;             // MemTotal, bytes
    double load;                      // 1-minute load average at start, -1 unknown
};

RankInfo probe_self() {
    RankInfo r{};
    int len = 0;
    MPI_Get_processor_name(r.host, &len);
    r.host[std::min(len, MPI_MAX_PROCESSOR_NAME)] = '\0';
    r.cpu = sched_getcpu();
    cpu_set_t mask;
    CPU_ZERO(&mask);
    r.bound_cpus = sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : -1;

    std::string online;
    {
        std::ifstream in("/sys/devices/system/cpu/online");
        std::getline(in, online);
    }
    std::vector<int> cpus = parse_cpu_list(online);
    if (cpus.empty())
        for (unsigned c = 0; c < std::max(1u, std::thread::hardware_concurrency()); ++c)
            cpus.push_back(static_cast<int>(c));
    r.host_cpus = static_cast<std::int32_t>(cpus.size());
    std::map<long, std::set<long>> packages;  // package id -> core ids
    bool known = true;
    for (const int c : cpus) {
        const std::string base = strf("/sys/devices/system/cpu/cpu%d/topology/", c);
        const auto pkg = read_long(base + "physical_package_id");
        const auto core = read_long(base + "core_id");
        if (!pkg || !core) {
            known = false;
            break;
        }
        packages[*pkg].insert(*core);
    }
    r.topology_known = known && !packages.empty() ? 1 : 0;
    if (r.topology_known == 0) {
        packages.clear();
        for (const int c : cpus) packages[0].insert(c);
    }
    r.sockets = 0;
    r.socket = -1;
    r.package = -1;
    const auto my_pkg = r.cpu >= 0 && r.topology_known != 0
                            ? read_long(strf("/sys/devices/system/cpu/cpu%d/topology/"
                                             "physical_package_id",
                                             r.cpu))
                            : std::optional<long>(0);
    for (const auto& [pkg, cores] : packages) {
        if (r.sockets == kMaxSockets) break;
        if (my_pkg && *my_pkg == pkg) {
            r.socket = r.sockets;
            r.package = static_cast<std::int32_t>(pkg);
        }
        r.cores[r.sockets++] = static_cast<std::int32_t>(cores.size());
    }
    if (r.socket < 0) r.socket = 0;  // CPU unknown: assume the first package

    {
        std::ifstream in("/proc/loadavg");
        r.load = -1;
        double load = 0;
        if (in >> load) r.load = load;
    }
    {
        std::ifstream in("/proc/meminfo");
        std::string key;
        std::uint64_t kb = 0;
        while (in >> key) {
            if (key == "MemTotal:" && in >> kb) {
                r.memory = kb * 1024;
                break;
            }
            in.ignore(1 << 16, '\n');
        }
    }
    {
        std::ifstream in("/proc/cpuinfo");
        std::string line;
        while (std::getline(in, line)) {
            if (line.rfind("model name", 0) != 0) continue;
            const std::size_t colon = line.find(':');
            if (colon == std::string::npos) continue;
            std::string model = line.substr(colon + 1);
            model.erase(0, model.find_first_not_of(" \t"));
            std::snprintf(r.cpu_model, sizeof r.cpu_model, "%s", model.c_str());
            break;
        }
    }
    return r;
}

// A host as the model sees it.
struct Host {
    std::string name;
    std::vector<int> cores;  // physical cores per socket
    int cpus = 0;            // online logical CPUs
    std::uint64_t memory = 0;
    bool topology_known = false;
    std::string cpu_model;
    double load = -1;  // 1-minute load average when the run started
    std::vector<int> ranks;
};

// ---- placement classes -----------------------------------------------------------------

enum Class { kIntraSocket = 0, kInterSocket = 1, kInterNode = 2, kClasses = 3 };
const char* class_name(int c) {
    static const char* names[] = {"intra-socket", "inter-socket", "inter-node"};
    return names[c];
}

struct Pair {
    bool present = false;
    int a = -1, b = -1;
    bool shared_cpu = false;  // intra-socket pair on one CPU (no pair on two CPUs exists)
    std::string absent;       // why there is no pair
};

std::array<Pair, kClasses> choose_pairs(const std::vector<RankInfo>& info,
                                        const std::vector<Host>& hosts) {
    std::array<Pair, kClasses> p;
    const int n = static_cast<int>(info.size());
    auto same_host = [&](int i, int j) { return std::strcmp(info[i].host, info[j].host) == 0; };
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            int c = kInterNode;
            if (same_host(i, j)) c = info[i].socket == info[j].socket ? kIntraSocket : kInterSocket;
            const bool shared = c == kIntraSocket && info[i].cpu >= 0 && info[i].cpu == info[j].cpu;
            Pair& q = p[static_cast<std::size_t>(c)];
            if (q.present && !(q.shared_cpu && !shared)) continue;
            q.present = true;
            q.a = i;
            q.b = j;
            q.shared_cpu = shared;
        }
    const bool one_socket =
        std::all_of(hosts.begin(), hosts.end(), [](const Host& h) { return h.cores.size() == 1; });
    if (!p[kIntraSocket].present) p[kIntraSocket].absent = "no two ranks share a socket";
    if (!p[kInterSocket].present)
        p[kInterSocket].absent = one_socket ? "every node has one socket"
                                            : "no two ranks of one node sit on different "
                                              "sockets (place them so, e.g. mpirun --map-by "
                                              "socket)";
    if (!p[kInterNode].present)
        p[kInterNode].absent = hosts.size() == 1 ? "one node" : "no two ranks on different nodes";
    return p;
}

// ---- statistics and measurements -------------------------------------------------------

// The samples of one measurement over every pass.
struct Samples {
    std::vector<double> all;
    std::vector<double> pass_medians;
};

double median_sorted(const std::vector<double>& v) {
    const std::size_t n = v.size();
    if (n == 0) return 0;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void add_pass(Samples& s, std::vector<double> pass) {
    if (pass.empty()) return;
    s.all.insert(s.all.end(), pass.begin(), pass.end());
    std::sort(pass.begin(), pass.end());
    s.pass_medians.push_back(median_sorted(pass));
}

// `value` is THE figure: the median over the passes of each pass's median. Within a pass the
// median drops the iterations the OS took away; across passes the median drops passes
// during which other work shared the cores (fewer than half of them), and stands for the
// machine as it typically is: on a VM whose small-message times flip between a fast and a
// slow mode from run to run, the minimum over passes would pick the fast mode every time,
// and replays predicted from it came out 30-50 % fast (docs/validation.md). The rest
// describe every sample.
struct Stats {
    double value = 0, median_all = 0, min = 0, p10 = 0, p90 = 0, max = 0, samples = 0;
    double passes = 0;
};

Stats summarize(const Samples& s) {
    Stats r;
    if (s.all.empty()) return r;
    std::vector<double> v = s.all;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    r.samples = static_cast<double>(n);
    r.passes = static_cast<double>(s.pass_medians.size());
    std::vector<double> medians = s.pass_medians;
    std::sort(medians.begin(), medians.end());
    r.value = median_sorted(medians);
    r.median_all = median_sorted(v);
    r.min = v.front();
    r.max = v.back();
    auto pct = [&](double q) {
        const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
        return v[std::min(n - 1, k == 0 ? 0 : k - 1)];
    };
    r.p10 = pct(0.10);
    r.p90 = pct(0.90);
    return r;
}

constexpr int kStatsDoubles = 8;
void pack(const Stats& s, double* b) {
    const double v[kStatsDoubles] = {s.value, s.median_all, s.min,     s.p10,
                                     s.p90,   s.max,        s.samples, s.passes};
    std::copy(v, v + kStatsDoubles, b);
}
Stats unpack(const double* b) {
    return Stats{b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]};
}

// Rank `from`'s summary of `s`, on rank 0.
Stats to_root(int rank, int from, const Samples& s) {
    Stats r = rank == from ? summarize(s) : Stats{};
    if (from == 0) return r;
    double buf[kStatsDoubles];
    if (rank == from) {
        pack(r, buf);
        MPI_Send(buf, kStatsDoubles, MPI_DOUBLE, 0, kTagResult, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Recv(buf, kStatsDoubles, MPI_DOUBLE, from, kTagResult, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        r = unpack(buf);
    }
    return r;
}

struct SizeResult {
    std::uint64_t bytes = 0;
    Stats pingpong;  // one-way time, s
    Stats sendrecv;  // time per MPI_Sendrecv, s
};

// The eager threshold the way one probe saw it.
struct Eager {
    std::uint64_t bytes = 0;  // largest size that went eagerly
    bool at_least = false;    // every probed size went eagerly
    int probes = 0;
};

// The MPI library's per-message costs at one size (on the measured rank), seconds per
// message: posting an MPI_Isend (o_s), posting an MPI_Irecv (post), and an MPI_Recv of a
// message that has already arrived minus the post (o_r).
struct OverheadResult {
    std::uint64_t bytes = 0;
    Stats send, post, recv;
};

struct ClassResult {
    Pair pair;
    Stats latency;  // 0 B one-way, s
    std::vector<SizeResult> sizes;
    Eager eager;        // the receiver polls MPI while the send is on its way: the protocol's
    Eager eager_quiet;  // the receiver computes (makes no MPI call) until it receives
};

class Bench {
  public:
    Bench(int rank, const Settings& s)
        : rank_(rank), s_(s), send_(s.buffer, 'a'), recv_(s.buffer, 'b') {}

    // One-way times of `reps` round trips between a and b, after warm-up; on rank a.
    std::vector<double> pingpong(int a, int b, std::uint64_t bytes, std::uint64_t reps) {
        std::vector<double> samples;
        const std::uint64_t warm = Settings::warmup(reps);
        const int count = static_cast<int>(bytes);
        if (rank_ == a) {
            samples.reserve(reps);
            for (std::uint64_t it = 0; it < warm + reps; ++it) {
                const double t0 = MPI_Wtime();
                MPI_Send(send_.data(), count, MPI_BYTE, b, kTagPing, MPI_COMM_WORLD);
                MPI_Recv(recv_.data(), count, MPI_BYTE, b, kTagPong, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                const double t1 = MPI_Wtime();
                if (it >= warm) samples.push_back((t1 - t0) / 2);
            }
        } else if (rank_ == b) {
            for (std::uint64_t it = 0; it < warm + reps; ++it) {
                MPI_Recv(recv_.data(), count, MPI_BYTE, a, kTagPing, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MPI_Send(send_.data(), count, MPI_BYTE, a, kTagPong, MPI_COMM_WORLD);
            }
        }
        return samples;
    }

    // Time per MPI_Sendrecv of `bytes` each way between a and b; on rank a.
    std::vector<double> sendrecv(int a, int b, std::uint64_t bytes, std::uint64_t reps) {
        std::vector<double> samples;
        const std::uint64_t warm = Settings::warmup(reps);
        const int count = static_cast<int>(bytes);
        if (rank_ == a || rank_ == b) {
            const int peer = rank_ == a ? b : a;
            samples.reserve(reps);
            for (std::uint64_t it = 0; it < warm + reps; ++it) {
                const double t0 = MPI_Wtime();
                MPI_Sendrecv(send_.data(), count, MPI_BYTE, peer, kTagSendrecv, recv_.data(), count,
                             MPI_BYTE, peer, kTagSendrecv, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                const double t1 = MPI_Wtime();
                if (it >= warm && rank_ == a) samples.push_back(t1 - t0);
            }
        }
        return samples;
    }

    // Per-message costs on rank a, each the mean over a burst of kBurst messages of `bytes`
    // (`reps` bursts after warm-up), into send/post/recv:
    //   o_s:  a posts kBurst MPI_Isend back to back, b's receives already posted;
    //   post: a posts kBurst MPI_Irecv before anything was sent;
    //   o_r:  b sends a burst and then a 0-byte note while a makes no MPI call for kSettle;
    //         then a times the note's MPI_Recv (messages between a pair arrive in order: the
    //         library takes in the burst first) and kBurst MPI_Recv of the burst; o_r = that
    //         per message (kBurst + 1) minus the post.
    void overheads(int a, int b, std::uint64_t bytes, std::uint64_t reps, std::vector<double>& send,
                   std::vector<double>& post, std::vector<double>& recv) {
        const std::uint64_t warm = Settings::warmup(reps);
        const int count = static_cast<int>(bytes);
        std::array<MPI_Request, kBurst> req{};
        auto sbuf = [&](int i) { return send_.data() + static_cast<std::size_t>(i) * bytes; };
        auto rbuf = [&](int i) { return recv_.data() + static_cast<std::size_t>(i) * bytes; };
        for (std::uint64_t it = 0; it < warm + reps; ++it) {
            if (rank_ == a) {
                MPI_Recv(nullptr, 0, MPI_BYTE, b, kTagNote, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                double t0 = MPI_Wtime();
                for (int i = 0; i < kBurst; ++i)
                    MPI_Isend(sbuf(i), count, MPI_BYTE, b, kTagBurst, MPI_COMM_WORLD, &req[i]);
                const double t_send = (MPI_Wtime() - t0) / kBurst;
                MPI_Waitall(kBurst, req.data(), MPI_STATUSES_IGNORE);
                t0 = MPI_Wtime();
                for (int i = 0; i < kBurst; ++i)
                    MPI_Irecv(rbuf(i), count, MPI_BYTE, b, kTagBurst, MPI_COMM_WORLD, &req[i]);
                const double t_post = (MPI_Wtime() - t0) / kBurst;
                MPI_Send(nullptr, 0, MPI_BYTE, b, kTagNote, MPI_COMM_WORLD);
                MPI_Waitall(kBurst, req.data(), MPI_STATUSES_IGNORE);
                // b sends the next burst and a note now; a makes no MPI call until they are
                // there, then takes all of them: the library's whole receive-side work.
                for (const double until = MPI_Wtime() + kSettle; MPI_Wtime() < until;) {
                }
                t0 = MPI_Wtime();
                MPI_Recv(nullptr, 0, MPI_BYTE, b, kTagNote, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < kBurst; ++i)
                    MPI_Recv(rbuf(i), count, MPI_BYTE, b, kTagBurst, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                const double t_recv = (MPI_Wtime() - t0) / (kBurst + 1);
                if (it >= warm) {
                    send.push_back(t_send);
                    post.push_back(t_post);
                    recv.push_back(std::max(0.0, t_recv - t_post));
                }
            } else if (rank_ == b) {
                for (int i = 0; i < kBurst; ++i)
                    MPI_Irecv(rbuf(i), count, MPI_BYTE, a, kTagBurst, MPI_COMM_WORLD, &req[i]);
                MPI_Send(nullptr, 0, MPI_BYTE, a, kTagNote, MPI_COMM_WORLD);
                MPI_Waitall(kBurst, req.data(), MPI_STATUSES_IGNORE);
                MPI_Recv(nullptr, 0, MPI_BYTE, a, kTagNote, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < kBurst; ++i)
                    MPI_Isend(sbuf(i), count, MPI_BYTE, a, kTagBurst, MPI_COMM_WORLD, &req[i]);
                MPI_Waitall(kBurst, req.data(), MPI_STATUSES_IGNORE);
                for (int i = 0; i < kBurst; ++i)
                    MPI_Isend(sbuf(i), count, MPI_BYTE, a, kTagBurst, MPI_COMM_WORLD, &req[i]);
                MPI_Send(nullptr, 0, MPI_BYTE, a, kTagNote, MPI_COMM_WORLD);
                MPI_Waitall(kBurst, req.data(), MPI_STATUSES_IGNORE);
            }
        }
    }

    // The largest size whose MPI_Send from a returns before b posts the receive, b waiting
    // probe_delay first: polling MPI (MPI_Iprobe) when `progress`, else computing. The
    // result is on rank 0.
    Eager eager_threshold(int a, int b, bool progress) {
        std::uint64_t result[3] = {0, 0, 0};  // bytes, at least, probes
        if (rank_ == a) {
            int probes = 0;
            // A probe: announce the size, wait until b is ready (nothing else in flight),
            // send. Rendezvous if the send blocked on at least two of three tries.
            auto blocked = [&](std::uint64_t bytes) {
                ++probes;
                int slow = 0;
                for (int attempt = 0; attempt < 3 && slow < 2 && attempt - slow < 2; ++attempt) {
                    const long long announce = static_cast<long long>(bytes);
                    MPI_Send(&announce, 1, MPI_LONG_LONG, b, kTagProbe, MPI_COMM_WORLD);
                    MPI_Recv(nullptr, 0, MPI_BYTE, b, kTagProbe, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    const double t0 = MPI_Wtime();
                    MPI_Send(send_.data(), static_cast<int>(bytes), MPI_BYTE, b, kTagData,
                             MPI_COMM_WORLD);
                    if (MPI_Wtime() - t0 >= s_.probe_delay / 2) ++slow;
                }
                return slow >= 2;
            };
            const std::uint64_t top = std::min(kProbeMax, s_.buffer);
            std::uint64_t lo = 0, hi = 0;
            for (std::uint64_t m = 1; m <= top; m *= 2) {
                if (blocked(m)) {
                    hi = m;
                    break;
                }
                lo = m;
            }
            while (hi != 0 && hi - lo > 1) {
                const std::uint64_t mid = lo + (hi - lo) / 2;
                (blocked(mid) ? hi : lo) = mid;
            }
            const long long stop = -1;
            MPI_Send(&stop, 1, MPI_LONG_LONG, b, kTagProbe, MPI_COMM_WORLD);
            result[0] = lo;
            result[1] = hi == 0 ? 1 : 0;
            result[2] = static_cast<std::uint64_t>(probes);
        } else if (rank_ == b) {
            for (;;) {
                long long bytes = 0;
                MPI_Recv(&bytes, 1, MPI_LONG_LONG, a, kTagProbe, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (bytes < 0) break;
                MPI_Send(nullptr, 0, MPI_BYTE, a, kTagProbe, MPI_COMM_WORLD);
                const double until = MPI_Wtime() + s_.probe_delay;
                while (MPI_Wtime() < until) {
                    if (!progress) continue;
                    int flag = 0;
                    MPI_Iprobe(a, kTagData, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
                }
                MPI_Recv(recv_.data(), static_cast<int>(bytes), MPI_BYTE, a, kTagData,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
        if (a != 0) {
            if (rank_ == a)
                MPI_Send(result, 3, MPI_UINT64_T, 0, kTagResult, MPI_COMM_WORLD);
            else if (rank_ == 0)
                MPI_Recv(result, 3, MPI_UINT64_T, a, kTagResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        return Eager{result[0], result[1] != 0, static_cast<int>(result[2])};
    }

  private:
    int rank_;
    const Settings& s_;
    std::vector<char> send_, recv_;
};

// MPI_Barrier for ranks that may wait long (those outside the measured pair): an MPI library
// usually spins in a blocking call, which would take a core from the ranks being measured
// when ranks share cores; this one polls a nonblocking barrier and sleeps in between.
void quiet_barrier() {
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (int done = 0;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done != 0) return;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

// The CPU kernel: `steps` dependent xorshift64 steps, kInstructionsPerStep instructions each.
std::uint64_t xorshift_steps(std::uint64_t x, std::uint64_t steps) {
    for (std::uint64_t i = 0; i < steps; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

volatile std::uint64_t g_sink = 0;  // keeps the kernel's result alive

// Seconds per timed run of the kernel on this rank (`runs` runs after a short warm-up).
std::vector<double> cpu_runs(int rank, const Settings& s) {
    std::vector<double> times;
    std::uint64_t x = 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(rank + 1) ^
                      static_cast<std::uint64_t>(MPI_Wtime() * 1e6);
    if (x == 0) x = 1;
    x = xorshift_steps(x, s.cpu_steps / 8);  // warm-up: clock up, page in
    for (std::uint64_t r = 0; r < s.cpu_repeats; ++r) {
        const double t0 = MPI_Wtime();
        x = xorshift_steps(x, s.cpu_steps);
        times.push_back(MPI_Wtime() - t0);
    }
    g_sink = g_sink ^ x;
    return times;
}

// Local work of collectives, on rank 0 alone (MPI's own routines and memcpy, no messages):
// bytes/s of copying a block from a send to a receive buffer (what a gather root does with
// its own block) and of MPI_Reduce_local on doubles with MPI_SUM (what a reduction step
// does with a received vector), at each of kLocalSizes (in cache and beyond it: the rates
// differ by several times). Each the median of kLocalRuns timed runs after one warm-up run
// (small sizes repeat within a run to last at least about 100 us).
constexpr std::array<std::uint64_t, 5> kLocalSizes{16ull << 10, 128ull << 10, 1ull << 20,
                                                   8ull << 20, 64ull << 20};
constexpr int kLocalRuns = 5;
struct LocalRates {
    std::vector<std::pair<std::uint64_t, double>> copy, reduce;  // (bytes, bytes/s)
};
LocalRates local_rates() {
    LocalRates out;
    for (const std::uint64_t size : kLocalSizes) {
        const std::size_t n = size / sizeof(double);
        std::vector<double> a(n, 1.0), b(n, 2.0);
        const int inner = static_cast<int>(std::max<std::uint64_t>(1, (4ull << 20) / size));
        std::vector<double> copy, reduce;
        for (int r = 0; r <= kLocalRuns; ++r) {
            double t0 = MPI_Wtime();
            for (int i = 0; i < inner; ++i) {
                std::memcpy(b.data(), a.data(), size);
                a[static_cast<std::size_t>(i) % n] += b[n / 2];  // keep the copies alive
            }
            const double tc = (MPI_Wtime() - t0) / inner;
            t0 = MPI_Wtime();
            for (int i = 0; i < inner; ++i)
                MPI_Reduce_local(a.data(), b.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM);
            const double tr = (MPI_Wtime() - t0) / inner;
            if (r == 0) continue;  // warm-up
            copy.push_back(tc);
            reduce.push_back(tr);
        }
        g_sink = g_sink ^ static_cast<std::uint64_t>(b[n / 2]);
        std::sort(copy.begin(), copy.end());
        std::sort(reduce.begin(), reduce.end());
        out.copy.emplace_back(size, static_cast<double>(size) / copy[copy.size() / 2]);
        out.reduce.emplace_back(size, static_cast<double>(size) / reduce[reduce.size() / 2]);
    }
    return out;
}

// ---- file I/O ----------------------------------------------------------------------------

// One pass of the I/O test, on one rank: three files written into --io-dir with MPI-IO
// (MPI_COMM_SELF), each created fresh and deleted afterwards (deleting a file drops its
// dirty pages, so nothing is written back behind the next measurement):
//   cached   io_size bytes in io_transfer-byte MPI_File_write_at calls, no sync: the writes
//            land in the page cache (open, writes and close timed apart);
//   small    one io_transfer-byte write, then MPI_File_sync (both timed): the fixed cost of
//            a sync plus io_transfer bytes of disk; kSmallSyncs files (a sync's fixed cost,
//            a journal commit, varies by milliseconds; they take little time);
//   synced   io_size bytes as in `cached`, then MPI_File_sync (writes and sync timed apart).
// Seconds; `error` is set (and the rest meaningless) when an MPI-IO call failed.
struct IoPass {
    double open = 0, write_cached = 0, close = 0, write_synced = 0, sync = 0;
    double small_write = 0;  // per call of kSmallWrites kSmallWriteBytes-byte writes, no sync
    std::vector<double> write_small, sync_small;  // kSmallSyncs of each
    std::string error;
};

std::string mpi_error_text(int rc) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) return strf("MPI error %d", rc);
    return std::string(text, static_cast<std::size_t>(std::max(0, len)));
}

std::string io_file(const Settings& s) {
    return s.io_dir + strf("/clustersim-calibrate-%ld.tmp", static_cast<long>(::getpid()));
}

// Writes `bytes` at offset 0 of a fresh `path` in `transfer`-byte calls, optionally syncs,
// closes and deletes the file; the times of the phases go to `open`, `write`, `sync`,
// `close`. Returns an error text, empty on success.
std::string io_write_file(const std::string& path, std::uint64_t bytes, std::uint64_t transfer,
                          bool sync, const std::vector<char>& buffer, double& open, double& write,
                          double& synced, double& close) {
    MPI_File_delete(path.c_str(), MPI_INFO_NULL);  // a leftover of an interrupted run
    MPI_File fh = MPI_FILE_NULL;
    const double t0 = MPI_Wtime();
    int rc = MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                           MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) return "MPI_File_open: " + mpi_error_text(rc);
    const double t1 = MPI_Wtime();
    for (std::uint64_t at = 0; at < bytes && rc == MPI_SUCCESS; at += transfer) {
        const int count = static_cast<int>(std::min(transfer, bytes - at));
        rc = MPI_File_write_at(fh, static_cast<MPI_Offset>(at), buffer.data(), count, MPI_BYTE,
                               MPI_STATUS_IGNORE);
    }
    const double t2 = MPI_Wtime();
    if (rc == MPI_SUCCESS && sync) rc = MPI_File_sync(fh);
    const double t3 = MPI_Wtime();
    const int rc_close = MPI_File_close(&fh);
    const double t4 = MPI_Wtime();
    MPI_File_delete(path.c_str(), MPI_INFO_NULL);
    if (rc != MPI_SUCCESS)
        return (sync ? "MPI_File_write_at / MPI_File_sync: " : "MPI_File_write_at: ") +
               mpi_error_text(rc);
    if (rc_close != MPI_SUCCESS) return "MPI_File_close: " + mpi_error_text(rc_close);
    open = t1 - t0;
    write = t2 - t1;
    synced = t3 - t2;
    close = t4 - t3;
    return {};
}

IoPass io_pass(const Settings& s, const std::vector<char>& buffer) {
    IoPass p;
    const std::string path = io_file(s);
    double ignore = 0;
    p.error = io_write_file(path, s.io_size, s.io_transfer, false, buffer, p.open, p.write_cached,
                            ignore, p.close);
    for (int i = 0; i < kSmallSyncs && p.error.empty(); ++i) {
        double write = 0, sync = 0;
        p.error = io_write_file(path, s.io_transfer, s.io_transfer, true, buffer, ignore, write,
                                sync, ignore);
        p.write_small.push_back(write);
        p.sync_small.push_back(sync);
    }
    if (p.error.empty())
        p.error = io_write_file(path, s.io_size, s.io_transfer, true, buffer, ignore,
                                p.write_synced, p.sync, ignore);
    if (p.error.empty()) {
        double write = 0;
        p.error = io_write_file(path, kSmallWrites * kSmallWriteBytes, kSmallWriteBytes, false,
                                buffer, ignore, write, ignore, ignore);
        p.small_write = write / kSmallWrites;
    }
    return p;
}

// The collective open and close (issue 23): every rank opens a fresh file on MPI_COMM_WORLD
// right after a barrier and closes it after another (rank 0 times both); then again with
// every rank but 0 entering the close kLateClose late: if rank 0's close takes at least half
// of that, the library's close synchronizes (OMPIO's does, ROMIO's does not). Seconds;
// `error` set when an MPI-IO call failed (on any rank: the result is agreed).
struct IoWorld {
    std::vector<double> open, close, late_close;
    std::string error;
};
constexpr double kLateClose = 2e-3;  // s
constexpr int kWorldOpens = 15;

IoWorld io_world(const Settings& s, int rank) {
    IoWorld w;
    const std::string path = s.io_dir + "/clustersim-calibrate-world.tmp";
    for (int i = 0; i < 2 * kWorldOpens; ++i) {
        const bool late = i >= kWorldOpens;
        if (rank == 0) MPI_File_delete(path.c_str(), MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File fh = MPI_FILE_NULL;
        const double t0 = MPI_Wtime();
        int rc = MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                               MPI_INFO_NULL, &fh);
        const double t1 = MPI_Wtime();
        int ok = rc == MPI_SUCCESS ? 1 : 0, all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all == 0) {
            if (rc == MPI_SUCCESS) MPI_File_close(&fh);
            w.error = "MPI_File_open on MPI_COMM_WORLD failed";
            return w;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (late && rank != 0) {
            const double until = MPI_Wtime() + kLateClose;
            while (MPI_Wtime() < until) {
            }
        }
        const double t2 = MPI_Wtime();
        MPI_File_close(&fh);
        const double t3 = MPI_Wtime();
        if (late) {
            w.late_close.push_back(t3 - t2);
        } else {
            w.open.push_back(t1 - t0);
            w.close.push_back(t3 - t2);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) MPI_File_delete(path.c_str(), MPI_INFO_NULL);
    return w;
}

// The file system type of `dir` (statfs), as a name where it is a common one.
std::string fs_type(const std::string& dir) {
    struct statfs st {};
    if (::statfs(dir.c_str(), &st) != 0) return "unknown";
    const auto magic = static_cast<unsigned long>(st.f_type);
    const std::pair<unsigned long, const char*> known[] = {
        {0xEF53, "ext2/3/4"},  {0x58465342, "xfs"},     {0x9123683E, "btrfs"},
        {0x01021994, "tmpfs"}, {0x794C7630, "overlay"}, {0x6969, "nfs"},
        {0x65735546, "fuse"},  {0x2FC12FC1, "zfs"},     {0x47504653, "gpfs"},
        {0x0BD00BD0, "lustre"}};
    for (const auto& [m, name] : known)
        if (m == magic) return name;
    return strf("type 0x%lx", magic);
}

// What the kernel lets be dirty before writers wait (Linux: mm/page-writeback.c). Dirtyable
// memory is free memory plus the file pages (what the page cache may grow into); the
// background threshold and the limit are vm.dirty_background_{bytes,ratio} and
// vm.dirty_{bytes,ratio} of it (the *_bytes settings win when not 0; a background threshold
// not below the limit is halved). balance_dirty_pages lets writers run freely up to
// `freerun` = (background + limit) / 2 and throttles them from there, to the rate of the
// disk's writeback exactly at `setpoint` = (freerun + limit) / 2: a long write settles with
// `setpoint` bytes dirty, writing at the disk's rate. Zero when unknown (no /proc).
struct DirtyLimits {
    std::uint64_t mem_total = 0, dirtyable = 0, background = 0, limit = 0, setpoint = 0;
    std::string rule;  // how they were found, for the report
};

DirtyLimits dirty_limits() {
    DirtyLimits d;
    std::map<std::string, std::uint64_t> kb;
    {
        std::ifstream in("/proc/meminfo");
        std::string key;
        std::uint64_t v = 0;
        while (in >> key >> v) {
            kb[key] = v;
            in.ignore(1 << 16, '\n');
        }
    }
    const auto vm = [](const char* name) {
        return read_long(std::string("/proc/sys/vm/") + name).value_or(-1);
    };
    d.mem_total = kb["MemTotal:"] * KiB;
    d.dirtyable = (kb["MemFree:"] + kb["Active(file):"] + kb["Inactive(file):"]) * KiB;
    if (d.dirtyable == 0) d.dirtyable = d.mem_total;
    const long ratio = vm("dirty_ratio"), bytes = vm("dirty_bytes");
    const long bg_ratio = vm("dirty_background_ratio"), bg_bytes = vm("dirty_background_bytes");
    if (d.dirtyable == 0 || (ratio < 0 && bytes <= 0)) {
        d.rule = "unknown (no /proc/meminfo or /proc/sys/vm)";
        return d;
    }
    const auto share = [&](long b, long r, const char* bname, const char* rname) {
        if (b > 0) {
            d.rule += strf("%s%s %ld", d.rule.empty() ? "" : ", ", bname, b);
            return static_cast<std::uint64_t>(b);
        }
        const long pct = std::max(0L, r);
        d.rule += strf("%s%s %ld%%", d.rule.empty() ? "" : ", ", rname, pct);
        return static_cast<std::uint64_t>(static_cast<double>(d.dirtyable) * pct / 100.0);
    };
    d.limit = share(bytes, ratio, "vm.dirty_bytes", "vm.dirty_ratio");
    d.background = share(bg_bytes, bg_ratio < 0 ? 10 : bg_ratio, "vm.dirty_background_bytes",
                         "vm.dirty_background_ratio");
    if (d.background >= d.limit) d.background = d.limit / 2;
    const std::uint64_t freerun = (d.background + d.limit) / 2;
    d.setpoint = (freerun + d.limit) / 2;
    return d;
}

// ---- the model ---------------------------------------------------------------------------

// The I/O test's figures (on rank 0), each the MEDIAN of the samples of every pass (a few per
// run: a file system's own variation, journal commits for one, is part of what every write
// meets, so the luckiest sample would be too fast). Seconds.
struct IoMeasured {
    bool measured = false;
    std::string error;  // an MPI-IO call failed: no I/O figures
    std::string dir, fs;
    std::uint64_t size = 0, transfer = 0;
    Stats open, write_cached, close;
    Stats write_small, sync_small, synced_small;  // the small file: write, sync, both
    Stats write_synced, sync, synced;             // the large one
    Stats small_write;                            // per kSmallWriteBytes write, no sync
    // The collective open and close on MPI_COMM_WORLD (IoWorld), rank 0's medians.
    int world = 0;
    Stats open_world, close_world, late_close;
    DirtyLimits dirty;
};

struct Measured {
    std::vector<RankInfo> ranks;
    std::vector<Host> hosts;
    std::array<ClassResult, kClasses> classes;
    std::vector<Stats> cpu;              // per rank: seconds per timed kernel run
    std::uint64_t cpu_instructions = 0;  // per timed run
    std::string mpi_library;
    std::string command, date;
    int world = 0, passes = 0;
    IoMeasured io;
    LocalRates local;  // rank 0's copy and reduction rates
    // The per-message costs, measured on the pair of `overhead_class` (the class the
    // intra-node curve comes from; -1: none measured), one entry per kOverheadSizes.
    int overhead_class = -1;
    std::vector<OverheadResult> overheads;
    // o_s + o_r of a message of `bytes` (s), interpolated linearly between the measured sizes,
    // the first size's below them and the last's above, as the simulator does.
    double overhead(std::uint64_t bytes) const {
        if (overheads.empty()) return 0;
        auto at = [&](std::size_t i) { return overheads[i].send.value + overheads[i].recv.value; };
        if (bytes <= overheads.front().bytes) return at(0);
        for (std::size_t i = 1; i < overheads.size(); ++i) {
            if (bytes > overheads[i].bytes) continue;
            const double f = static_cast<double>(bytes - overheads[i - 1].bytes) /
                             static_cast<double>(overheads[i].bytes - overheads[i - 1].bytes);
            return at(i - 1) + f * (at(i) - at(i - 1));
        }
        return at(overheads.size() - 1);
    }
    // Communicator creation (issue 19), rank 0's medians: MPI_Comm_dup of MPI_COMM_WORLD and
    // an 8-byte MPI_Allreduce (the agreement the model charges first); the model's local
    // cost (<collectives comm-create>) is their difference, at least 0.
    double comm_dup = 0, agreement = 0;
    double comm_create_local() const { return std::max(0.0, comm_dup - agreement); }

    double speed(std::size_t rank) const {  // instructions/s, the median over its passes
        const double t = cpu[rank].value;
        return t > 0 ? static_cast<double>(cpu_instructions) / t : 0;
    }
};

// A class's figures as the model uses them.
struct ClassFigures {
    bool present = false;
    double latency = 0;    // s, 0 B one-way
    double bandwidth = 0;  // bytes/s, the model's: `largest` or `fit`
    double largest = 0;    // bytes/s, m / (t - k L) at the largest size m
    double fit = 0;        // bytes/s, the least-squares fit over the sizes from 1 KiB
    double raw = 0;        // bytes/s, m / t at the largest size
    double aggregate = 0;  // bytes/s, sendrecv 2 m / t at the largest size
    std::uint64_t at = 0;  // the largest size
};

struct NodeType {
    std::string name;
    std::vector<int> cores;
    std::uint64_t memory = 0;
    double speed = 0;  // instructions/s
    std::vector<std::size_t> hosts;
};

struct Derived {
    bool fit = false;  // bandwidths from the fit, not the largest size
    std::array<ClassFigures, kClasses> fig;
    std::uint64_t eager = 64 * KiB;
    std::string eager_source = "not measured; the simulator's default";
    std::vector<NodeType> types;
    std::vector<std::size_t> type_of_host;
    double speed = 0;                                            // median over the ranks
    double sm_latency = 0, sm_bandwidth = 0;                     // socket - memory node
    double mq_latency = 0, mq_bandwidth = 0, qpi_relay = 0;      // memory node - qpi
    double link_latency = 0, link_bandwidth = 0, nic_relay = 0;  // nic - sw
    std::vector<std::string> notes;  // what was not measured and how it was filled in
    // I/O (when measured): the page cache's write rate, the disk's rate and the fixed cost of
    // a sync from the two synced files, the synced file's end-to-end rate, the write-behind
    // memory, the metadata costs.
    bool io = false;
    double io_cache_rate = 0, io_disk_rate = 0, io_sync_cost = 0, io_synced_rate = 0;
    // Issue 23: the client's cost per small write request, the metadata cost per rank of a
    // collective open and close, whether the close synchronizes.
    double io_request_overhead = 0, io_open_per_rank = 0, io_close_per_rank = 0;
    bool io_close_collective = false;
    double io_writeback_rate = 0;  // (size - transfer) / (sync - small sync), for the report
    double io_open = 0, io_close = 0;
    std::uint64_t io_memory = 0;
};

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return median_sorted(v);
}

// The simulator's one-way time of an m-byte message over a path of latency L and bandwidth B
// (cut-through): k L + m / B, k = 1 eager, 3 with rendezvous (request, clear-to-send, data).
double model_time(std::uint64_t m, double latency, double bandwidth, std::uint64_t eager) {
    return (m > eager ? 3 : 1) * latency + static_cast<double>(m) / bandwidth;
}

// The bandwidth whose model_time is closest to the measured one-way times of every size from
// 1 KiB up: least squares of log(model / measured), so each size counts by its relative error
// (a coarse scan of log B, then golden-section search around the best point).
double fit_bandwidth(const ClassResult& r, double latency, std::uint64_t eager) {
    std::vector<std::pair<std::uint64_t, double>> pts;
    for (const SizeResult& s : r.sizes)
        if (s.bytes >= KiB && s.pingpong.value > 0) pts.emplace_back(s.bytes, s.pingpong.value);
    if (pts.empty()) return 0;
    auto cost = [&](double log_b) {
        double sum = 0;
        for (const auto& [bytes, t] : pts) {
            const double e = std::log(model_time(bytes, latency, std::exp(log_b), eager) / t);
            sum += e * e;
        }
        return sum;
    };
    double lo = 1e300, hi = 0;
    for (const auto& [bytes, t] : pts) {
        lo = std::min(lo, static_cast<double>(bytes) / t);
        hi = std::max(hi, static_cast<double>(bytes) / t);
    }
    const double a = std::log(lo) - std::log(10.0), b = std::log(hi) + std::log(100.0);
    constexpr int kSteps = 400;
    double best = a;
    for (int i = 0; i <= kSteps; ++i) {
        const double x = a + (b - a) * i / kSteps;
        if (cost(x) < cost(best)) best = x;
    }
    double l = best - (b - a) / kSteps, h = best + (b - a) / kSteps;
    const double g = (std::sqrt(5.0) - 1) / 2;
    for (int i = 0; i < 60; ++i) {
        const double x1 = h - g * (h - l), x2 = l + g * (h - l);
        if (cost(x1) < cost(x2))
            h = x2;
        else
            l = x1;
    }
    return std::exp((l + h) / 2);
}

// A class's point-to-point curve, as <comm-model> <point-to-point> carries it: the analytic
// models time an s-byte message as s / B(s) of transfer, arriving the pair's latency L after
// it (B interpolated through the points), so a point's bandwidth is the TRANSFER bandwidth
// s / (t(s) - k L), t the measured one-way time, L the 0 B one, k = 1 for an eager message
// and 3 above the model's eager threshold: the simulated MPI runtime sends such a message as
// a request, a clear-to-send and the data, each a message of the analytic model, so it
// arrives 3 L + s / B(s) after the send (the ping-pong measures the protocol too). Sizes
// where t - k L is at most 2 % of t (or not positive) are pure latency, their bandwidth
// noise: left out.
//
// The two-way curve (<point-to-point direction="both">) is read the same way from the
// MPI_Sendrecv time per call, in which both directions move at once: s / (t2(s) - k L - o(s)),
// each rank paying o_s for its send and o_r for its receive as in the ping-pong. Where that
// transfer comes out shorter than the one-way one (noise: both directions cannot be faster
// than one), the one-way bandwidth is written.
struct CurvePoint {
    std::uint64_t bytes = 0;
    double bandwidth = 0;  // bytes/s, transfer
    double one_way = 0;    // s, measured ping-pong
    double sendrecv = 0;   // s, measured MPI_Sendrecv per call
    double two_way = 0;    // bytes/s, transfer per direction in the sendrecv; 0: not measured
};

// The latency the model gives a class: the 0 B one-way time minus the per-message costs
// (o_s + o_r at the smallest size), which the simulator charges on the ranks' cores on top of
// the network's latency; at least a tenth of the measured one.
double net_latency(const ClassResult& r, const Measured& m) {
    return std::max(0.1 * r.latency.value, r.latency.value - m.overhead(0));
}

// With per-message costs measured, the transfer is what remains of the one-way time after
// the latency and o_s + o_r of that size: t - k L - o(s).
std::vector<CurvePoint> transfer_curve(const ClassResult& r, const Measured& m, std::uint64_t eager,
                                       std::vector<std::uint64_t>* skipped) {
    std::vector<CurvePoint> curve;
    const double latency = net_latency(r, m);
    for (const SizeResult& s : r.sizes) {
        if (s.bytes == 0) continue;
        const double t = s.pingpong.value;
        const double transfer = t - (s.bytes > eager ? 3 : 1) * latency - m.overhead(s.bytes);
        if (t <= 0 || transfer <= 0 || transfer <= 0.02 * t) {
            if (skipped != nullptr) skipped->push_back(s.bytes);
            continue;
        }
        double two_way = 0;
        if (s.sendrecv.value > 0) {
            const double both = std::max(transfer, s.sendrecv.value - (t - transfer));
            two_way = static_cast<double>(s.bytes) / both;
        }
        curve.push_back(
            {s.bytes, static_cast<double>(s.bytes) / transfer, t, s.sendrecv.value, two_way});
    }
    return curve;
}

// The classes whose ping-pong becomes a <point-to-point> curve, with its scope: within a node
// the class the intra-latency comes from (intra-socket, else inter-socket), between nodes the
// inter-node one; absent classes are left out.
std::vector<std::pair<int, const char*>> curve_classes(const Derived& d) {
    std::vector<std::pair<int, const char*>> out;
    if (d.fig[kIntraSocket].present)
        out.emplace_back(kIntraSocket, "intra-node");
    else if (d.fig[kInterSocket].present)
        out.emplace_back(kInterSocket, "intra-node");
    if (d.fig[kInterNode].present) out.emplace_back(kInterNode, "inter-node");
    return out;
}

Derived derive(const Measured& m, bool fit) {
    Derived d;
    d.fit = fit;
    // The eager threshold the model uses: the inter-node one when there are several nodes
    // (most of a cluster's messages), else the one measured inside the node.
    for (const int c : {kInterNode, kInterSocket, kIntraSocket}) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(c)];
        if (!r.pair.present) continue;
        d.eager = r.eager.bytes;
        d.eager_source = std::string("measured ") + class_name(c);
        break;
    }
    for (int c = 0; c < kClasses; ++c) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(c)];
        ClassFigures& f = d.fig[static_cast<std::size_t>(c)];
        if (!r.pair.present || r.sizes.empty()) continue;
        f.present = true;
        f.latency = net_latency(r, m);
        const SizeResult& top = r.sizes.back();
        f.at = top.bytes;
        const double t = top.pingpong.value;
        f.raw = t > 0 ? static_cast<double>(top.bytes) / t : 0;
        const double k = top.bytes > d.eager ? 3 : 1;  // rendezvous: request, clear, data
        const double pure = t - k * f.latency - m.overhead(top.bytes);
        f.largest = pure > 0.05 * t ? static_cast<double>(top.bytes) / pure : f.raw;
        f.fit = fit_bandwidth(r, f.latency, d.eager);
        f.bandwidth = fit && f.fit > 0 ? f.fit : f.largest;
        f.aggregate =
            top.sendrecv.value > 0 ? 2 * static_cast<double>(top.bytes) / top.sendrecv.value : 0;
    }
    const ClassFigures& is = d.fig[kIntraSocket];
    const ClassFigures& xs = d.fig[kInterSocket];
    const ClassFigures& xn = d.fig[kInterNode];
    double widest = 0;
    for (const ClassFigures& f : d.fig) widest = std::max(widest, f.bandwidth);

    if (is.present) {
        d.sm_latency = is.latency / 2;
        d.sm_bandwidth = is.bandwidth;
    } else {
        d.sm_bandwidth = widest;
        d.notes.push_back(
            "socket - memory node: no intra-socket pair; latency 0, bandwidth the "
            "widest measured (so it is no measured path's bottleneck)");
    }
    const bool multi_socket = std::any_of(m.hosts.begin(), m.hosts.end(),
                                          [](const Host& h) { return h.cores.size() > 1; });
    if (xs.present) {
        d.mq_latency = std::max(0.0, (xs.latency - 2 * d.sm_latency) / 2);
        if (xs.latency < 2 * d.sm_latency)
            d.notes.push_back(
                "memory node - qpi: the inter-socket latency is below the "
                "intra-socket one; the edge gets latency 0");
        d.mq_bandwidth = xs.bandwidth;
        d.qpi_relay = std::max(xs.aggregate, xs.bandwidth);
    } else if (multi_socket) {
        d.mq_bandwidth = d.sm_bandwidth;
        d.notes.push_back(
            "memory node - qpi: no inter-socket pair; latency 0, bandwidth as "
            "socket - memory node, relay unlimited");
    }
    if (m.hosts.size() > 1) {
        if (xn.present) {
            const double inside = 2 * d.sm_latency + (multi_socket ? 2 * d.mq_latency : 0);
            d.link_latency = std::max(0.0, (xn.latency - inside) / 2);
            if (xn.latency < inside)
                d.notes.push_back(
                    "nic - sw: the inter-node latency is below the node-internal "
                    "part; the links get latency 0");
            d.link_bandwidth = xn.bandwidth;
            d.nic_relay = std::max(xn.aggregate, xn.bandwidth);
        } else {
            d.link_bandwidth = widest;
            d.notes.push_back(
                "nic - sw: no inter-node pair; latency 0, bandwidth the widest "
                "measured");
        }
    }

    // Node types: hosts of one shape (cores per socket, memory) share one, whose speed is the
    // median of the speeds of the ranks on those hosts.
    std::map<std::pair<std::vector<int>, std::uint64_t>, std::size_t> by_shape;
    d.type_of_host.assign(m.hosts.size(), 0);
    for (std::size_t h = 0; h < m.hosts.size(); ++h) {
        const Host& host = m.hosts[h];
        const std::uint64_t mem_mib = host.memory / MiB;
        const auto key = std::make_pair(host.cores, mem_mib);
        auto it = by_shape.find(key);
        if (it == by_shape.end()) {
            it = by_shape.emplace(key, d.types.size()).first;
            NodeType t;
            t.cores = host.cores;
            t.memory = std::max<std::uint64_t>(1, mem_mib) * MiB;
            d.types.push_back(t);
        }
        d.types[it->second].hosts.push_back(h);
        d.type_of_host[h] = it->second;
    }
    std::vector<double> all;
    for (std::size_t t = 0; t < d.types.size(); ++t) {
        d.types[t].name = d.types.size() == 1 ? "node" : strf("node%zu", t);
        std::vector<double> speeds;
        for (const std::size_t h : d.types[t].hosts)
            for (const int r : m.hosts[h].ranks)
                if (m.speed(static_cast<std::size_t>(r)) > 0)
                    speeds.push_back(m.speed(static_cast<std::size_t>(r)));
        d.types[t].speed = median_of(speeds);
        all.insert(all.end(), speeds.begin(), speeds.end());
    }
    d.speed = median_of(all);

    // I/O: see IoMeasured and the README. A synced file's write + sync time is a fixed cost
    // (the sync's journal commit) plus its bytes at a rate: two files (io_transfer and io_size
    // bytes) give both.
    const IoMeasured& io = m.io;
    if (io.measured && io.error.empty()) {
        d.io = true;
        const auto size = static_cast<double>(io.size);
        const auto small = static_cast<double>(io.transfer);
        d.io_cache_rate = io.write_cached.value > 0 ? size / io.write_cached.value : 0;
        // The model's write-behind cache flushes from the first write on, Linux only at the
        // sync (below the background threshold), so the rate the model's disk needs is the
        // one at which a whole synced file comes out right: from the two files' write + sync
        // times. The writeback rate (from the syncs alone) is reported.
        const double extra = io.synced.value - io.synced_small.value;
        const double extra_sync = io.sync.value - io.sync_small.value;
        d.io_writeback_rate = extra_sync > 0 ? (size - small) / extra_sync : 0;
        if (extra > 0) {
            d.io_disk_rate = (size - small) / extra;
        } else {
            d.io_disk_rate = d.io_cache_rate;
            d.notes.push_back(
                "disk: writing and syncing the large file took no longer than the small one (no "
                "disk behind the directory?); the disk gets the page cache's write rate");
        }
        d.io_sync_cost = std::max(0.0, io.synced_small.value - small / d.io_disk_rate);
        d.io_synced_rate = io.synced.value > 0 ? size / io.synced.value : 0;
        d.io_open = io.open.value;
        d.io_close = io.close.value;
        // A small write costs the simulator about three messages of the intra-node latency
        // (request, data, acknowledgement) and its copy at the page cache's rate; the rest of
        // the measured time per call is the request's software cost.
        const ClassFigures& near =
            d.fig[kIntraSocket].present ? d.fig[kIntraSocket] : d.fig[kInterSocket];
        d.io_request_overhead = std::max(
            0.0, io.small_write.value - 3 * near.latency -
                     (d.io_cache_rate > 0 ? static_cast<double>(kSmallWriteBytes) / d.io_cache_rate
                                          : 0));
        if (io.world > 1) {
            const double others = io.world - 1;
            d.io_open_per_rank = std::max(0.0, io.open_world.value - io.open.value) / others;
            d.io_close_per_rank = std::max(0.0, io.close_world.value - io.close.value) / others;
            d.io_close_collective = io.late_close.value > kLateClose / 2;
        }
        d.io_memory = io.dirty.setpoint / MiB * MiB;
        if (d.io_memory == 0) {
            d.io_memory = std::max<std::uint64_t>(MiB, io.dirty.mem_total / 5 / MiB * MiB);
            d.notes.push_back(
                "write-behind memory: the kernel's dirty limits are unknown; a fifth of the "
                "node's memory");
        }
    }
    return d;
}

std::string host_summary(const Host& h) {
    int cores = 0;
    for (const int c : h.cores) cores += c;
    std::string s = strf("%zu socket%s, %d core%s", h.cores.size(), h.cores.size() == 1 ? "" : "s",
                         cores, cores == 1 ? "" : "s");
    if (h.cpus != cores) s += strf(" (%d logical CPUs)", h.cpus);
    s += strf(", %.1f GiB", static_cast<double>(h.memory) / static_cast<double>(GiB));
    if (!h.cpu_model.empty()) s += ", " + h.cpu_model;
    if (!h.topology_known) s += "; socket layout unknown (no sysfs topology)";
    if (h.load >= 0) s += strf("; load average %.2f at start", h.load);
    return s;
}

std::string eager_text(const Eager& e) {
    return strf("%s%llu B", e.at_least ? "at least " : "",
                static_cast<unsigned long long>(e.bytes));
}

// The I/O test's figures and the derivation, as lines (stdout and the model's comment).
std::vector<std::string> io_report(const Measured& m, const Derived& d) {
    const IoMeasured& io = m.io;
    const std::string size = size_text(io.size), one = size_text(io.transfer);
    const auto mib = [](std::uint64_t b) {
        return strf("%llu MiB", static_cast<unsigned long long>(b / MiB));
    };
    return {
        strf("rank 0 wrote %s files in %s MPI_File_write_at calls into %s (%s);", size.c_str(),
             one.c_str(), io.dir.c_str(), io.fs.c_str()),
        strf("each figure the median over %d passes (%d files of one write per pass)", m.passes,
             kSmallSyncs),
        strf("  no sync:   open %s, writes %s (page cache %s), close %s",
             time_text(io.open.value).c_str(), time_text(io.write_cached.value).c_str(),
             mbps_text(d.io_cache_rate).c_str(), time_text(io.close.value).c_str()),
        strf("  synced:    writes %s + MPI_File_sync %s = %s (%s end to end)",
             time_text(io.write_synced.value).c_str(), time_text(io.sync.value).c_str(),
             time_text(io.synced.value).c_str(), mbps_text(d.io_synced_rate).c_str()),
        strf("  one write: write %s + MPI_File_sync %s = %s",
             time_text(io.write_small.value).c_str(), time_text(io.sync_small.value).c_str(),
             time_text(io.synced_small.value).c_str()),
        strf("disk rate = (%s - %s) / (synced - one write synced) = %s: the model's cache",
             size.c_str(), one.c_str(), mbps_text(d.io_disk_rate).c_str()),
        "  flushes while the writes go on, Linux only at the sync (below its background",
        strf("  threshold); Linux's writeback, (%s - %s) / (sync - sync of one write), is %s",
             size.c_str(), one.c_str(), mbps_text(d.io_writeback_rate).c_str()),
        strf("file-system sync = one write synced - %s / disk rate = %s", one.c_str(),
             time_text(d.io_sync_cost).c_str()),
        strf("write-behind memory: of %.1f GiB dirtyable (free + file pages), %s:",
             static_cast<double>(io.dirty.dirtyable) / GiB, io.dirty.rule.c_str()),
        strf("  background %s, limit %s; the setpoint (freerun + limit) / 2, freerun =",
             mib(io.dirty.background).c_str(), mib(io.dirty.limit).c_str()),
        strf("  (background + limit) / 2, where a long write settles at the disk's rate: %s",
             mib(d.io_memory).c_str()),
        strf("small writes: %llu B MPI_File_write_at, %s per call (p10-p90 of the passes' "
             "calls %s - %s); request-overhead = that - 3 intra-node latencies - the copy = %s",
             static_cast<unsigned long long>(kSmallWriteBytes),
             time_text(io.small_write.value).c_str(), time_text(io.small_write.p10).c_str(),
             time_text(io.small_write.p90).c_str(), time_text(d.io_request_overhead).c_str()),
        io.world > 1
            ? strf("on MPI_COMM_WORLD (%d ranks, %d opens, medians, p10-p90): open %s (%s - "
                   "%s), close %s (%s - %s); per rank beyond the first: open %s, close %s; "
                   "close with the others %s late: %s, so collective-close=\"%s\"",
                   io.world, kWorldOpens, time_text(io.open_world.value).c_str(),
                   time_text(io.open_world.p10).c_str(), time_text(io.open_world.p90).c_str(),
                   time_text(io.close_world.value).c_str(), time_text(io.close_world.p10).c_str(),
                   time_text(io.close_world.p90).c_str(), time_text(d.io_open_per_rank).c_str(),
                   time_text(d.io_close_per_rank).c_str(), time_text(kLateClose).c_str(),
                   time_text(io.late_close.value).c_str(), d.io_close_collective ? "yes" : "no")
            : std::string("collective open and close: one rank, not measured")};
}

std::string write_model(const Measured& m, const Derived& d, const std::string& name,
                        bool local_curves) {
    std::ostringstream x;
    const bool multi_node = m.hosts.size() > 1;
    const bool multi_socket = std::any_of(m.hosts.begin(), m.hosts.end(),
                                          [](const Host& h) { return h.cores.size() > 1; });
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    x << "<!-- " << comment_safe(name)
      << ": the machine clustersim-calibrate ran on, as a clustersim cluster model\n"
      << "     (PIOsimHD section 5.1 parameterization; PSINS's simple model in <comm-model>).\n\n";
    x << "     command: on the <?clustersim-calibrate ...?> line below the comment (a comment\n"
      << "              cannot hold the flags' double hyphens); " << m.world << " MPI ranks\n";
    x << "     date:    " << m.date << "\n";
    x << "     MPI:     " << comment_safe(m.mpi_library)
      << "; within a node its shared-memory path\n";
    for (std::size_t h = 0; h < m.hosts.size(); ++h)
        x << "     n" << h << " = host " << comment_safe(m.hosts[h].name) << ": "
          << comment_safe(host_summary(m.hosts[h])) << "\n";
    x << "\n     Measured, each figure the median over " << m.passes
      << " passes of the pass's median\n"
      << "     (ping-pong: one way = round trip / 2; sendrecv: both directions at once,\n"
      << "     aggregate = 2 x size / time):\n";
    for (int c = 0; c < kClasses; ++c) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(c)];
        const ClassFigures& f = d.fig[static_cast<std::size_t>(c)];
        if (!f.present) {
            x << "       " << class_name(c) << ": absent (" << r.pair.absent << ")\n";
            continue;
        }
        x << "       " << class_name(c) << " (ranks " << r.pair.a << " and " << r.pair.b
          << "): latency " << us_text(r.latency.value) << "; " << size_text(f.at) << " ping-pong "
          << mbps_text(f.raw) << ", sendrecv aggregate " << mbps_text(f.aggregate) << ";\n"
          << "         eager up to " << eager_text(r.eager) << " (up to "
          << eager_text(r.eager_quiet) << " while the receiver makes no MPI call)\n";
    }
    x << "       core speed: " << strf("%.0f", d.speed / 1e6)
      << " M instructions/s (xorshift64 kernel, " << kInstructionsPerStep
      << " instructions per step;\n"
      << "         median over the ranks); traces recorded on this machine carry it as\n"
      << "         traced-speed " << strf("%.3fG", d.speed / 1e9) << "\n";
    x << "       local work of collectives (rank 0, median of " << kLocalRuns
      << " runs; copy = memcpy, reduce = MPI_Reduce_local of doubles, MPI_SUM):\n";
    for (std::size_t i = 0; i < m.local.copy.size(); ++i)
        x << "         " << size_text(m.local.copy[i].first) << ": copy "
          << mbps_text(m.local.copy[i].second) << ", reduce " << mbps_text(m.local.reduce[i].second)
          << "\n";
    if (!m.overheads.empty()) {
        const Pair& p = m.classes[static_cast<std::size_t>(m.overhead_class)].pair;
        x << "       per-message costs (" << class_name(m.overhead_class) << ", ranks " << p.a
          << " and " << p.b << "; bursts of " << kBurst
          << " messages, per message; p10-p90 of all bursts):\n"
          << "         o_s = MPI_Isend posting, post = MPI_Irecv posting, o_r = MPI_Recv of a\n"
          << "         burst sent while the receiver made no MPI call, minus post\n";
        for (const OverheadResult& o : m.overheads)
            x << "         " << size_text(o.bytes) << ": o_s " << time_text(o.send.value) << " ("
              << time_text(o.send.p10) << "-" << time_text(o.send.p90) << "), post "
              << time_text(o.post.value) << " (" << time_text(o.post.p10) << "-"
              << time_text(o.post.p90) << "), o_r " << time_text(o.recv.value) << " ("
              << time_text(o.recv.p10) << "-" << time_text(o.recv.p90) << ")\n";
        x << "         <mpi-overhead> carries them; the simulator charges o_s + o_r per message "
             "on\n"
          << "         the ranks' cores, so every class's latency below is its 0 B one-way time\n"
          << "         minus o_s + o_r (at least a tenth of it), and every transfer time\n"
          << "         t - k L - o_s(s) - o_r(s)\n";
    }

    x << "\n     Derived: every memory node, switch and NIC forwards cut-through, so a message of\n"
      << "     m bytes takes (sum of the path's latencies) + m / (its bottleneck bandwidth).\n"
      << "       s - mem: latency = intra-socket latency (less o_s + o_r) / 2 = "
      << us_text(d.sm_latency) << ", bandwidth (and the memory node's\n"
      << "         local rate) " << mbps_text(d.sm_bandwidth) << "\n";
    if (multi_socket)
        x << "       mem - qpi: latency = (inter-socket - intra-socket latency) / 2 = "
          << us_text(d.mq_latency) << ",\n         bandwidth " << mbps_text(d.mq_bandwidth)
          << "; qpi relay = sendrecv aggregate " << mbps_text(d.qpi_relay) << "\n";
    if (multi_node)
        x << "       nic - sw: latency = (inter-node latency - node-internal part) / 2 = "
          << us_text(d.link_latency) << ",\n         bandwidth " << mbps_text(d.link_bandwidth)
          << "; nic relay = sendrecv aggregate " << mbps_text(d.nic_relay) << "\n";
    if (d.fit)
        x << "       The bandwidth of a class (bandwidth fit) is the B for which k x latency + m / "
             "B\n"
          << "       is closest to the measured one-way times of every size m from 1 KiB up "
             "(least\n"
          << "       squares of log(simulated / measured); k = 1 eager, 3 above the eager "
             "threshold:\n"
          << "       request, clear-to-send, data).\n";
    else
        x << "       The bandwidth of a class is m / (t - k x latency) at its largest size m (k = "
             "1\n"
          << "       eager, 3 above the eager threshold: request, clear-to-send, data), so the\n"
          << "       simulated ping-pong there is the measured one.\n";
    for (int c = 0; c < kClasses; ++c) {
        const ClassFigures& f = d.fig[static_cast<std::size_t>(c)];
        if (!f.present) continue;
        x << "       " << class_name(c) << " bandwidth: largest size " << mbps_text(f.largest)
          << ", fit " << mbps_text(f.fit) << " (the model uses the "
          << (d.fit ? "fit" : "largest size") << ")\n";
    }
    x << "       eager-threshold: " << d.eager_source << ".\n";
    for (const std::string& note : d.notes) x << "       note: " << note << "\n";
    x << "\n     <comm-model>: PSINS's simple model with the measured latency and bandwidth; it "
         "is\n"
      << "     the default network model of this file (run with network packet to use the graph).\n"
      << "     Its <point-to-point> curves carry the measured ping-pong: a message of s bytes "
         "takes\n"
      << "     s / B(s) of transfer and arrives the pair's latency L after it, B interpolated\n"
      << "     (monotone cubic, log-log) through the points; above the eager threshold the\n"
      << "     simulated runtime sends a request and a clear-to-send first (2 L more). So each\n"
      << "     point's bandwidth is the transfer bandwidth s / (t(s) - k L), t the one-way time,\n"
      << "     k = 1 eager, 3 rendezvous; sizes with t - k L at most 2 % of t are left out (pure\n"
      << "     latency). The curves with direction=\"both\" carry the measured MPI_Sendrecv the\n"
      << "     same way: the transfer of one direction while the ranks send and receive at once,\n"
      << "     s / (t2(s) - k L - o(s)), never faster than one way. collectives=\"messages\":\n"
      << "     collectives run their algorithms as point-to-point messages through the curves.\n"
      << "     Measured (size, one-way time, transfer bandwidth, sendrecv per call / one-way):\n";
    for (const auto& [c, scope] : curve_classes(d)) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(c)];
        std::vector<std::uint64_t> skipped;
        const std::vector<CurvePoint> curve = transfer_curve(r, m, d.eager, &skipped);
        x << "       " << scope << ", from " << class_name(c)
          << " (L = " << time_text(r.latency.value) << "):";
        int col = 0;
        for (const CurvePoint& p : curve)
            x << (col++ % 2 == 0 ? "\n        " : "   ") << " " << size_text(p.bytes) << ", "
              << time_text(p.one_way) << ", " << mbps_text(p.bandwidth) << ", "
              << strf("%.2f", p.sendrecv / p.one_way) << ";";
        x << "\n";
        if (!skipped.empty()) {
            x << "         left out (t - k L at most 2 % of t):";
            for (const std::uint64_t b : skipped) x << " " << size_text(b);
            x << "\n";
        }
    }
    if (d.io) {
        x << "\n     I/O:\n";
        for (const std::string& line : io_report(m, d))
            x << "       " << comment_safe(line) << "\n";
        x << "       The model: one I/O server on n0 (the node rank 0 ran on) with that "
             "write-behind\n"
          << "       cache and a simple disk at the disk rate; file-system open, close and sync\n"
          << "       as measured. Its cache acknowledges a write once copied in at the page\n"
          << "       cache's rate (copy-rate).\n";
    } else if (m.io.measured) {
        x << "\n     I/O: not measured (" << comment_safe(m.io.error) << "); no I/O server.\n";
    }
    x << "-->\n";
    std::string command = m.command;
    for (std::size_t at; (at = command.find("?>")) != std::string::npos;)
        command.insert(at + 1, " ");
    x << "<?clustersim-calibrate " << command << "?>\n";

    x << "<cluster name=\"" << xml_escape(name) << "\">\n";
    x << "  <network forwarding=\"cut-through\" granularity=\"100KiB\" "
         "routing=\"shortest-path\"\n           nic=\"packet\" eager-threshold=\""
      << d.eager << "B\"/>\n";
    for (const NodeType& t : d.types) {
        x << "  <node-type name=\"" << t.name << "\" memory=\"" << t.memory / MiB << "MiB\">\n";
        const std::size_t sockets = t.cores.size();
        for (std::size_t s = 0; s < sockets; ++s)
            x << "    <socket name=\"s" << s << "\" cores=\"" << std::max(1, t.cores[s])
              << "\" speed=\"" << xml_speed(t.speed) << "\"/>\n";
        for (std::size_t s = 0; s < sockets; ++s)
            x << "    <memory-node name=\"mem" << s << "\" local-bandwidth=\""
              << xml_bandwidth(d.sm_bandwidth) << "\" forwarding=\"cut-through\"/>\n";
        if (sockets > 1) {
            x << "    <switch name=\"qpi\"";
            if (d.qpi_relay > 0) x << " bandwidth=\"" << xml_bandwidth(d.qpi_relay) << "\"";
            x << " forwarding=\"cut-through\"/>\n";
        }
        if (multi_node) {
            x << "    <nic name=\"nic\"";
            if (d.nic_relay > 0) x << " bandwidth=\"" << xml_bandwidth(d.nic_relay) << "\"";
            x << " forwarding=\"cut-through\"/>\n";
        }
        for (std::size_t s = 0; s < sockets; ++s)
            x << "    <cable from=\"s" << s << "\" to=\"mem" << s << "\" latency=\""
              << xml_time(d.sm_latency) << "\" bandwidth=\"" << xml_bandwidth(d.sm_bandwidth)
              << "\"/>\n";
        if (sockets > 1)
            for (std::size_t s = 0; s < sockets; ++s)
                x << "    <cable from=\"mem" << s << "\" to=\"qpi\" latency=\""
                  << xml_time(d.mq_latency) << "\" bandwidth=\"" << xml_bandwidth(d.mq_bandwidth)
                  << "\"/>\n";
        if (multi_node)
            x << "    <cable from=\"nic\" to=\"" << (sockets > 1 ? "qpi" : "mem0")
              << "\" latency=\"" << xml_time(0) << "\" bandwidth=\""
              << xml_bandwidth(d.link_bandwidth) << "\"/>\n";
        x << "  </node-type>\n";
    }
    for (std::size_t h = 0; h < m.hosts.size(); ++h)
        x << "  <node name=\"n" << h << "\" type=\"" << d.types[d.type_of_host[h]].name << "\"/>\n";
    if (multi_node) {
        x << "  <switch name=\"sw\" forwarding=\"cut-through\"/>\n";
        for (std::size_t h = 0; h < m.hosts.size(); ++h)
            x << "  <cable from=\"n" << h << ".nic\" to=\"sw\" latency=\""
              << xml_time(d.link_latency) << "\" bandwidth=\"" << xml_bandwidth(d.link_bandwidth)
              << "\"/>\n";
    }
    // PSINS's simple model: within a node the intra-socket figures (the inter-socket ones if
    // no pair shared a socket), between nodes the inter-node ones.
    const ClassFigures& in =
        d.fig[kIntraSocket].present ? d.fig[kIntraSocket] : d.fig[kInterSocket];
    x << "  <comm-model model=\"simple\"";
    if (d.fig[kInterNode].present)
        x << " latency=\"" << xml_time(d.fig[kInterNode].latency) << "\" bandwidth=\""
          << xml_bandwidth(d.fig[kInterNode].bandwidth) << "\"";
    if (in.present)
        x << " intra-latency=\"" << xml_time(in.latency) << "\" intra-bandwidth=\""
          << xml_bandwidth(in.bandwidth) << "\"";
    x << " collectives=\"messages\">\n";
    for (const auto& [c, scope] : curve_classes(d)) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(c)];
        const std::vector<CurvePoint> curve = transfer_curve(r, m, d.eager, nullptr);
        if (curve.empty()) continue;
        x << "    <point-to-point scope=\"" << scope << "\">\n";
        for (const CurvePoint& p : curve)
            x << "      <point size=\"" << xml_size(p.bytes) << "\" bandwidth=\""
              << xml_bandwidth(p.bandwidth) << "\"/>\n";
        x << "    </point-to-point>\n";
        if (std::all_of(curve.begin(), curve.end(),
                        [](const CurvePoint& p) { return p.two_way > 0; })) {
            x << "    <point-to-point scope=\"" << scope << "\" direction=\"both\">\n";
            for (const CurvePoint& p : curve)
                x << "      <point size=\"" << xml_size(p.bytes) << "\" bandwidth=\""
                  << xml_bandwidth(p.two_way) << "\"/>\n";
            x << "    </point-to-point>\n";
        }
    }
    x << "  </comm-model>\n";
    // The per-message software costs, as measured (OverheadResult).
    if (!m.overheads.empty()) {
        x << "  <mpi-overhead>\n";
        for (const auto& [tag, member] :
             {std::pair<const char*, Stats OverheadResult::*>{"send", &OverheadResult::send},
              {"recv", &OverheadResult::recv},
              {"post", &OverheadResult::post}}) {
            x << "    <" << tag << ">\n";
            for (const OverheadResult& o : m.overheads)
                x << "      <point size=\"" << xml_size(o.bytes) << "\" time=\""
                  << xml_time((o.*member).value) << "\"/>\n";
            x << "    </" << tag << ">\n";
        }
        x << "  </mpi-overhead>\n";
    }
    // Collectives' local work at the measured rates (rank 0, 64 MiB, memcpy and
    // MPI_Reduce_local of doubles).
    // The attributes: the largest size's rates; the curves follow the sizes (cache effects).
    // Communicator creation: the local cost beyond the 8-byte allreduce's agreement.
    const std::string comm_create = "\" comm-create=\"" + xml_time(m.comm_create_local());
    if (!m.local.copy.empty() && !m.local.reduce.empty() && !local_curves) {
        x << "  <collectives reduce-bandwidth=\"" << xml_bandwidth(m.local.reduce.back().second)
          << "\" copy-bandwidth=\"" << xml_bandwidth(m.local.copy.back().second) << comm_create
          << "\"/>\n";
    } else if (!m.local.copy.empty() && !m.local.reduce.empty()) {
        x << "  <collectives reduce-bandwidth=\"" << xml_bandwidth(m.local.reduce.back().second)
          << "\" copy-bandwidth=\"" << xml_bandwidth(m.local.copy.back().second) << comm_create
          << "\">\n";
        for (const auto& [tag, curve] :
             {std::pair<const char*, const std::vector<std::pair<std::uint64_t, double>>*>{
                  "copy-rate", &m.local.copy},
              {"reduce-rate", &m.local.reduce}}) {
            x << "    <" << tag << ">\n";
            for (const auto& [size, rate] : *curve)
                x << "      <point size=\"" << xml_size(size) << "\" bandwidth=\""
                  << xml_bandwidth(rate) << "\"/>\n";
            x << "    </" << tag << ">\n";
        }
        x << "  </collectives>\n";
    } else {
        x << "  <collectives comm-create=\"" << xml_time(m.comm_create_local()) << "\"/>\n";
    }
    if (d.io) {
        // One I/O server on the node rank 0 wrote from, the kernel's page cache as its
        // write-behind cache, the disk a simple one at the measured rate.
        x << "  <io-server node=\"n0\">\n"
          << "    <cache model=\"write_behind\" memory=\"" << d.io_memory / MiB << "MiB\""
          << (d.io_cache_rate > 0 ? " copy-rate=\"" + xml_bandwidth(d.io_cache_rate) + "\"" : "")
          << "/>\n"
          << "    <disk model=\"simple\" rate=\"" << xml_bandwidth(d.io_disk_rate) << "\"/>\n"
          << "  </io-server>\n"
          << "  <file-system open=\"" << xml_time(d.io_open) << "\" close=\""
          << xml_time(d.io_close) << "\" sync=\"" << xml_time(d.io_sync_cost)
          << "\" request-overhead=\"" << xml_time(d.io_request_overhead) << "\"";
        if (m.io.world > 1)
            x << " open-per-rank=\"" << xml_time(d.io_open_per_rank) << "\" close-per-rank=\""
              << xml_time(d.io_close_per_rank) << "\" collective-close=\""
              << (d.io_close_collective ? "yes" : "no") << "\"";
        x << "/>\n";
    }
    x << "</cluster>\n";
    return x.str();
}

std::string write_csv(const Measured& m) {
    std::ostringstream c;
    c << "kind,class,rank_a,rank_b,bytes,instructions,passes,samples,value_us,median_all_us,"
         "min_us,p10_us,p90_us,max_us,bandwidth_MB_per_s,speed_Minstr_per_s\n";
    auto times = [&](const Stats& s) {
        return strf("%.0f,%.0f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f", s.passes, s.samples, s.value * 1e6,
                    s.median_all * 1e6, s.min * 1e6, s.p10 * 1e6, s.p90 * 1e6, s.max * 1e6);
    };
    for (int k = 0; k < kClasses; ++k) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(k)];
        if (!r.pair.present) continue;
        const std::string who = strf("%s,%d,%d", class_name(k), r.pair.a, r.pair.b);
        for (const bool pp : {true, false})
            for (const SizeResult& s : r.sizes) {
                const Stats& st = pp ? s.pingpong : s.sendrecv;
                c << (pp ? "pingpong," : "sendrecv,") << who << ","
                  << static_cast<unsigned long long>(s.bytes) << ",," << times(st) << ",";
                if (s.bytes > 0 && st.value > 0)
                    c << strf("%.3f", static_cast<double>(s.bytes) / st.value / 1e6);
                c << ",\n";
            }
        c << "eager_threshold," << who << "," << r.eager.bytes << ",,," << r.eager.probes
          << ",,,,,,,,\n";
        c << "eager_threshold_receiver_computing," << who << "," << r.eager_quiet.bytes << ",,,"
          << r.eager_quiet.probes << ",,,,,,,,\n";
    }
    if (!m.overheads.empty()) {  // per-message costs: seconds per message, as the others
        const Pair& p = m.classes[static_cast<std::size_t>(m.overhead_class)].pair;
        const std::string who = strf("%s,%d,%d", class_name(m.overhead_class), p.a, p.b);
        for (const OverheadResult& o : m.overheads)
            for (const auto& [kind, st] : {std::pair<const char*, const Stats*>{"o_s", &o.send},
                                           {"o_post", &o.post},
                                           {"o_r", &o.recv}})
                c << kind << "," << who << "," << static_cast<unsigned long long>(o.bytes) << ",,"
                  << times(*st) << ",,\n";
    }
    if (m.io.measured && m.io.error.empty()) {
        const IoMeasured& io = m.io;
        const std::tuple<const char*, const Stats*, std::uint64_t> rows[] = {
            {"io_open", &io.open, 0},
            {"io_write_cached", &io.write_cached, io.size},
            {"io_close", &io.close, 0},
            {"io_write_small", &io.write_small, io.transfer},
            {"io_sync_small", &io.sync_small, io.transfer},
            {"io_synced_small", &io.synced_small, io.transfer},
            {"io_write_synced", &io.write_synced, io.size},
            {"io_sync", &io.sync, io.size},
            {"io_synced", &io.synced, io.size}};
        for (const auto& [kind, st, bytes] : rows) {
            c << kind << ",io,0,," << bytes << ",," << times(*st) << ",";
            if (bytes > 0 && st->value > 0)
                c << strf("%.3f", static_cast<double>(bytes) / st->value / 1e6);
            c << ",\n";
        }
    }
    for (std::size_t r = 0; r < m.cpu.size(); ++r)
        if (m.cpu[r].samples > 0)
            c << "cpu,cpu" << m.ranks[r].cpu << "," << r << ",,," << m.cpu_instructions << ","
              << times(m.cpu[r]) << ",," << strf("%.1f", m.speed(r) / 1e6) << "\n";
    return c.str();
}

// ---- report (rank 0) -----------------------------------------------------------------------

// `s` padded with spaces to `width` characters (UTF-8 aware: µ is one character).
std::string pad(const std::string& s, std::size_t width, bool right = false) {
    std::size_t chars = 0;
    for (const char ch : s)
        if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80) ++chars;
    const std::string fill(width > chars ? width - chars : 0, ' ');
    return right ? fill + s : s + fill;
}

void print_placement(const Measured& m, const std::array<Pair, kClasses>& pairs) {
    std::printf("%s: %d ranks on %zu node%s; %s\n", kProgram, m.world, m.hosts.size(),
                m.hosts.size() == 1 ? "" : "s", m.mpi_library.c_str());
    for (const Host& h : m.hosts) {
        std::printf("  host %s: %s\n", h.name.c_str(), host_summary(h).c_str());
        if (h.load > 0.5 * std::max(1, h.cpus))
            std::printf(
                "  warning: %s was busy (load average %.2f over the last minute on %d CPUs);\n"
                "  if other work still runs, the figures will be pessimistic\n",
                h.name.c_str(), h.load, h.cpus);
    }
    std::printf("\n  rank  host                  cpu  socket  affinity\n");
    for (std::size_t r = 0; r < m.ranks.size(); ++r) {
        const RankInfo& i = m.ranks[r];
        const std::string aff = i.bound_cpus == 1  ? "bound to its cpu"
                                : i.bound_cpus > 1 ? strf("%d cpus (may migrate)", i.bound_cpus)
                                                   : "unknown";
        std::printf("  %4zu  %-20s %4d  %6d  %s\n", r, i.host, i.cpu, i.socket, aff.c_str());
    }
    std::printf("\n  class          pair\n");
    for (int c = 0; c < kClasses; ++c) {
        const Pair& p = pairs[static_cast<std::size_t>(c)];
        if (p.present)
            std::printf("  %-14s ranks %d and %d%s\n", class_name(c), p.a, p.b,
                        p.shared_cpu ? " (they share one cpu: no pair on two cpus)" : "");
        else
            std::printf("  %-14s absent: %s\n", class_name(c), p.absent.c_str());
    }
    std::fflush(stdout);
}

void print_class(int c, const ClassResult& r) {
    std::printf("\n%s (ranks %d and %d)\n", class_name(c), r.pair.a, r.pair.b);
    std::printf("  latency (0 B ping-pong, one way): %s  (%.0f round trips in %.0f passes)\n",
                us_text(r.latency.value).c_str(), r.latency.samples, r.latency.passes);
    std::printf(
        "  eager threshold (largest MPI_Send that returns before the receive is posted):"
        " %s;\n    %s while the receiver makes no MPI call\n",
        eager_text(r.eager).c_str(), eager_text(r.eager_quiet).c_str());
    std::printf("\n  %s %s  %s %s %s %s| %s %s %s\n", pad("size", 8).c_str(),
                pad("round trips", 11, true).c_str(), pad("ping-pong", 12).c_str(),
                pad("min", 12).c_str(), pad("p90", 12).c_str(), pad("bandwidth", 14).c_str(),
                pad("sendrecv", 12).c_str(), pad("per direction", 14).c_str(), "aggregate");
    for (const SizeResult& s : r.sizes) {
        const double b = static_cast<double>(s.bytes);
        const bool bw = s.bytes > 0;
        std::printf("  %s %s  %s %s %s %s| %s %s %s\n", pad(size_text(s.bytes), 8).c_str(),
                    pad(strf("%.0f", s.pingpong.samples), 11, true).c_str(),
                    pad(time_text(s.pingpong.value), 12).c_str(),
                    pad(time_text(s.pingpong.min), 12).c_str(),
                    pad(time_text(s.pingpong.p90), 12).c_str(),
                    pad(bw ? mbps_text(b / s.pingpong.value) : "-", 14).c_str(),
                    pad(time_text(s.sendrecv.value), 12).c_str(),
                    pad(bw ? mbps_text(b / s.sendrecv.value) : "-", 14).c_str(),
                    bw ? mbps_text(2 * b / s.sendrecv.value).c_str() : "-");
    }
    std::printf(
        "  ping-pong: one way (round trip / 2); sendrecv: time per call, both directions"
        " at once;\n  min and p90 over every sample\n");
    std::fflush(stdout);
}

void print_summary(const Measured& m, const Derived& d) {
    std::printf(
        "\ncommunicator creation (rank 0, median of 31 calls): MPI_Comm_dup %.2f us, 8-byte "
        "MPI_Allreduce %.2f us: comm-create %.2f us\n",
        m.comm_dup * 1e6, m.agreement * 1e6, m.comm_create_local() * 1e6);
    std::printf(
        "\nlocal work of collectives (rank 0, median of %d runs)\n"
        "      size   copy (memcpy)   reduce (MPI_Reduce_local, doubles, SUM)\n",
        kLocalRuns);
    for (std::size_t i = 0; i < m.local.copy.size(); ++i)
        std::printf("  %8s   %13s   %s\n", size_text(m.local.copy[i].first).c_str(),
                    mbps_text(m.local.copy[i].second).c_str(),
                    mbps_text(m.local.reduce[i].second).c_str());
    std::printf(
        "\ncpu speed (xorshift64 kernel: %d instructions per step, %.1f M instructions "
        "per run)\n",
        kInstructionsPerStep, static_cast<double>(m.cpu_instructions) / 1e6);
    std::printf("  rank   cpu  speed (median pass)    slowest run\n");
    for (std::size_t r = 0; r < m.cpu.size(); ++r) {
        if (m.cpu[r].samples == 0) {
            std::printf("  %4zu  %4d  - (a rank per cpu of its host ran the kernel)\n", r,
                        m.ranks[r].cpu);
            continue;
        }
        std::printf(
            "  %4zu  %4d  %s %s\n", r, m.ranks[r].cpu,
            pad(strf("%.1f M instr/s", m.speed(r) / 1e6), 22).c_str(),
            strf("%.1f M instr/s", static_cast<double>(m.cpu_instructions) / m.cpu[r].max / 1e6)
                .c_str());
    }
    std::printf(
        "  model speed %s instructions/s per core; traces recorded here: --traced-speed "
        "%s\n",
        xml_speed(d.speed).c_str(), strf("%.3fG", d.speed / 1e9).c_str());

    std::printf("\nmodel figures\n");
    for (int c = 0; c < kClasses; ++c) {
        const ClassFigures& f = d.fig[static_cast<std::size_t>(c)];
        if (!f.present) {
            std::printf("  %-14s absent\n", class_name(c));
            continue;
        }
        std::printf(
            "  %-14s latency %s, bandwidth %s (%s; %s %s);\n"
            "  %-14s ping-pong %s at %s, sendrecv aggregate %s\n",
            class_name(c), us_text(f.latency).c_str(), gbps_text(f.bandwidth).c_str(),
            d.fit ? "the fit" : "from the largest size",
            d.fit ? "the largest size gives" : "the fit gives",
            gbps_text(d.fit ? f.largest : f.fit).c_str(), "", gbps_text(f.raw).c_str(),
            size_text(f.at).c_str(), gbps_text(f.aggregate).c_str());
    }
    std::printf("  eager threshold %llu B (%s)\n", static_cast<unsigned long long>(d.eager),
                d.eager_source.c_str());

    for (const auto& [c, scope] : curve_classes(d)) {
        const ClassResult& r = m.classes[static_cast<std::size_t>(c)];
        std::vector<std::uint64_t> skipped;
        const std::vector<CurvePoint> curve = transfer_curve(r, m, d.eager, &skipped);
        std::printf(
            "\n<point-to-point scope=\"%s\"> from %s: transfer bandwidth s / (one-way - k L),\n"
            "  L = %s, k = 1 up to the eager threshold (%llu B), else 3; sendrecv / one-way:\n"
            "  time per MPI_Sendrecv over the ping-pong's one-way time (1: both directions cost\n"
            "  what one message does)\n",
            scope, class_name(c), us_text(r.latency.value).c_str(),
            static_cast<unsigned long long>(d.eager));
        std::printf("  %s %s %s %s %s\n", pad("size", 8).c_str(), pad("one-way", 12).c_str(),
                    pad("transfer bw", 14).c_str(), pad("two-way bw", 14).c_str(),
                    "sendrecv / one-way");
        for (const CurvePoint& p : curve)
            std::printf("  %s %s %s %s %.2f\n", pad(size_text(p.bytes), 8).c_str(),
                        pad(time_text(p.one_way), 12).c_str(),
                        pad(mbps_text(p.bandwidth), 14).c_str(),
                        pad(p.two_way > 0 ? mbps_text(p.two_way) : "-", 14).c_str(),
                        p.sendrecv / p.one_way);
        if (!skipped.empty()) {
            std::printf("  left out (one-way - k L at most 2 %% of one-way):");
            for (const std::uint64_t b : skipped) std::printf(" %s", size_text(b).c_str());
            std::printf("\n");
        }
    }

    const IoMeasured& io = m.io;
    if (d.io) {
        std::printf("\nI/O\n");
        for (const std::string& line : io_report(m, d)) std::printf("  %s\n", line.c_str());
    } else if (io.measured) {
        std::printf("\nI/O: not measured: %s\n", io.error.c_str());
    }
    for (const std::string& n : d.notes) std::printf("  note: %s\n", n.c_str());
    std::fflush(stdout);
}

std::string now_utc() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
    return buf;
}

int run(int rank, int world, const Options& opt) {
    const Settings s = resolve(opt);

    // Outputs are opened up front, so a bad path fails before the measurements.
    std::ofstream xml_out, csv_out;
    std::string open_error;
    if (rank == 0) {
        if (!opt.out.empty()) {
            xml_out.open(opt.out);
            if (!xml_out)
                open_error =
                    strf("--out: cannot write '%s': %s", opt.out.c_str(), std::strerror(errno));
        }
        if (open_error.empty() && !opt.csv.empty()) {
            csv_out.open(opt.csv);
            if (!csv_out)
                open_error =
                    strf("--csv: cannot write '%s': %s", opt.csv.c_str(), std::strerror(errno));
        }
        // The I/O test's directory: a file must be creatable there.
        if (open_error.empty()) {
            const std::vector<char> byte(1, 'c');
            double ignore = 0;
            const std::string e =
                io_write_file(io_file(s), 1, 1, false, byte, ignore, ignore, ignore, ignore);
            if (!e.empty())
                open_error =
                    strf("--io-dir: cannot write a file in '%s': %s", s.io_dir.c_str(), e.c_str());
        }
    }
    int failed = open_error.empty() ? 0 : 1;
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (failed != 0) throw UsageError(open_error);

    Measured m;
    m.world = world;
    m.passes = static_cast<int>(s.passes);
    m.command = strf("mpirun -np %d ", world) + opt.command;
    m.date = now_utc();
    {
        char v[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(v, &len);
        const std::string lib(v, static_cast<std::size_t>(std::max(0, len)));
        m.mpi_library = lib.substr(0, lib.find_first_of("\r\n,"));
    }
    const RankInfo self = probe_self();
    m.ranks.resize(static_cast<std::size_t>(world));
    MPI_Allgather(&self, sizeof(RankInfo), MPI_BYTE, m.ranks.data(), sizeof(RankInfo), MPI_BYTE,
                  MPI_COMM_WORLD);
    for (std::size_t r = 0; r < m.ranks.size(); ++r) {
        const RankInfo& i = m.ranks[r];
        auto it = std::find_if(m.hosts.begin(), m.hosts.end(),
                               [&](const Host& h) { return h.name == i.host; });
        if (it == m.hosts.end()) {
            Host h;
            h.name = i.host;
            h.cores.assign(i.cores, i.cores + std::clamp(i.sockets, 1, kMaxSockets));
            h.cpus = i.host_cpus;
            h.memory = i.memory;
            h.topology_known = i.topology_known != 0;
            h.cpu_model = i.cpu_model;
            h.load = i.load;
            m.hosts.push_back(h);
            it = m.hosts.end() - 1;
        }
        it->ranks.push_back(static_cast<int>(r));
    }
    const auto pairs = choose_pairs(m.ranks, m.hosts);
    if (rank == 0) print_placement(m, pairs);

    // Passes: each runs the CPU kernel on every rank at once (as in a parallel run), then
    // every class's latency, ping-pong and sendrecv ladders, so a disturbance of the machine
    // hits one pass, not one size. Samples stay on the measuring rank (a) until the end.
    //
    // The CPU kernel runs on at most one rank per online CPU of each host (the first ones in
    // rank order), so that ranks sharing a core do not halve the speed measured.
    bool runs_cpu = false;
    for (const Host& h : m.hosts) {
        const auto at = std::find(h.ranks.begin(), h.ranks.end(), rank);
        if (at != h.ranks.end()) runs_cpu = at - h.ranks.begin() < std::max(1, h.cpus);
    }
    Bench bench(rank, s);
    Samples cpu;
    struct ClassSamples {
        Samples latency;
        std::vector<Samples> pingpong, sendrecv;
    };
    std::array<ClassSamples, kClasses> cs;
    for (ClassSamples& c : cs) {
        c.pingpong.resize(s.sizes.size());
        c.sendrecv.resize(s.sizes.size());
    }
    // The I/O test runs on rank 0 alone (the others wait in quiet_barrier), last in a pass.
    struct IoSamples {
        Samples open, write_cached, close, write_small, sync_small, synced_small, write_synced,
            sync, synced, small_write;
    } io;
    std::string io_error;
    const std::vector<char> io_buffer(rank == 0 ? s.io_transfer : 0, 'c');
    // The per-message costs: on the pair of the class the intra-node curve comes from.
    int ov_class = -1;
    for (const int c : {kIntraSocket, kInterSocket, kInterNode})
        if (ov_class < 0 && pairs[static_cast<std::size_t>(c)].present) ov_class = c;
    struct OverheadSamples {
        Samples send, post, recv;
    };
    std::vector<OverheadSamples> ov(kOverheadSizes.size());
    const std::uint64_t ov_reps = std::max<std::uint64_t>(s.min_repeats, s.repeats / 4);
    for (std::uint64_t pass = 0; pass < s.passes; ++pass) {
        quiet_barrier();
        if (runs_cpu) add_pass(cpu, cpu_runs(rank, s));
        for (int c = 0; c < kClasses; ++c) {
            const Pair& p = pairs[static_cast<std::size_t>(c)];
            if (!p.present) continue;
            ClassSamples& x = cs[static_cast<std::size_t>(c)];
            quiet_barrier();
            add_pass(x.latency, bench.pingpong(p.a, p.b, 0, 10 * s.repeats));
            for (std::size_t i = 0; i < s.sizes.size(); ++i)
                if (s.sizes[i] > 0)
                    add_pass(x.pingpong[i],
                             bench.pingpong(p.a, p.b, s.sizes[i], s.reps(s.sizes[i])));
            for (std::size_t i = 0; i < s.sizes.size(); ++i)
                add_pass(x.sendrecv[i], bench.sendrecv(p.a, p.b, s.sizes[i], s.reps(s.sizes[i])));
        }
        if (ov_class >= 0) {
            const Pair& p = pairs[static_cast<std::size_t>(ov_class)];
            quiet_barrier();
            for (std::size_t i = 0; i < kOverheadSizes.size(); ++i) {
                std::vector<double> send, post, recv;
                bench.overheads(p.a, p.b, kOverheadSizes[i], ov_reps, send, post, recv);
                add_pass(ov[i].send, send);
                add_pass(ov[i].post, post);
                add_pass(ov[i].recv, recv);
            }
        }
        quiet_barrier();
        if (rank == 0 && io_error.empty()) {
            const IoPass p = io_pass(s, io_buffer);
            io_error = p.error;
            if (io_error.empty()) {
                add_pass(io.open, {p.open});
                add_pass(io.write_cached, {p.write_cached});
                add_pass(io.close, {p.close});
                std::vector<double> both;
                for (std::size_t i = 0; i < p.sync_small.size(); ++i)
                    both.push_back(p.write_small[i] + p.sync_small[i]);
                add_pass(io.write_small, p.write_small);
                add_pass(io.sync_small, p.sync_small);
                add_pass(io.synced_small, both);
                add_pass(io.write_synced, {p.write_synced});
                add_pass(io.synced, {p.write_synced + p.sync});
                add_pass(io.sync, {p.sync});
                add_pass(io.small_write, {p.small_write});
            }
        }
    }
    quiet_barrier();
    if (rank == 0) {
        // The median over the passes (see IoMeasured).
        const auto median_stats = [](const Samples& x) {
            Stats st = summarize(x);
            st.value = st.median_all;
            return st;
        };
        m.io.measured = true;
        m.io.error = io_error;
        m.io.dir = s.io_dir;
        m.io.fs = fs_type(s.io_dir);
        m.io.size = s.io_size;
        m.io.transfer = s.io_transfer;
        m.io.open = median_stats(io.open);
        m.io.write_cached = median_stats(io.write_cached);
        m.io.close = median_stats(io.close);
        m.io.write_small = median_stats(io.write_small);
        m.io.sync_small = median_stats(io.sync_small);
        m.io.synced_small = median_stats(io.synced_small);
        m.io.write_synced = median_stats(io.write_synced);
        m.io.synced = median_stats(io.synced);
        m.io.sync = median_stats(io.sync);
        m.io.small_write = median_stats(io.small_write);
        m.io.dirty = dirty_limits();
    }
    // The collective open and close, every rank taking part (when rank 0's I/O worked).
    {
        int ok = rank == 0 && io_error.empty() ? 1 : 0;
        MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (ok != 0) {
            IoWorld w = io_world(s, rank);
            if (rank == 0 && w.error.empty()) {
                const auto stats = [](const std::vector<double>& v) {
                    Samples x;
                    x.all = v;
                    Stats st = summarize(x);
                    st.value = st.median_all;
                    return st;
                };
                m.io.world = world;
                m.io.open_world = stats(w.open);
                m.io.close_world = stats(w.close);
                m.io.late_close = stats(w.late_close);
            }
        }
    }

    // Collectives' local work, rank 0 alone while the others wait.
    quiet_barrier();
    if (rank == 0) m.local = local_rates();
    quiet_barrier();

    // Communicator creation: MPI_Comm_dup (freed after each) against an 8-byte allreduce,
    // every rank taking part, each call after a barrier; rank 0's medians.
    {
        constexpr int kCreateRuns = 31;
        std::vector<double> dup, agree;
        for (int i = 0; i < kCreateRuns; ++i) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            MPI_Comm c;
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
            const double t1 = MPI_Wtime();
            MPI_Comm_free(&c);
            dup.push_back(t1 - t0);
            MPI_Barrier(MPI_COMM_WORLD);
            double in = 1, out = 0;
            const double t2 = MPI_Wtime();
            MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            agree.push_back(MPI_Wtime() - t2);
        }
        auto median = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        };
        m.comm_dup = median(dup);
        m.agreement = median(agree);
    }

    // To rank 0: the CPU figures of every rank, each class's statistics, its eager threshold.
    m.cpu_instructions = s.cpu_steps * kInstructionsPerStep;
    {
        double mine[kStatsDoubles];
        pack(summarize(cpu), mine);
        std::vector<double> all(rank == 0 ? kStatsDoubles * static_cast<std::size_t>(world) : 0);
        MPI_Gather(mine, kStatsDoubles, MPI_DOUBLE, all.data(), kStatsDoubles, MPI_DOUBLE, 0,
                   MPI_COMM_WORLD);
        if (rank == 0)
            for (int r = 0; r < world; ++r)
                m.cpu.push_back(
                    unpack(all.data() + static_cast<std::ptrdiff_t>(r) * kStatsDoubles));
    }
    for (int c = 0; c < kClasses; ++c) {
        ClassResult& r = m.classes[static_cast<std::size_t>(c)];
        r.pair = pairs[static_cast<std::size_t>(c)];
        if (!r.pair.present) continue;
        const ClassSamples& x = cs[static_cast<std::size_t>(c)];
        r.latency = to_root(rank, r.pair.a, x.latency);
        for (std::size_t i = 0; i < s.sizes.size(); ++i) {
            SizeResult sr;
            sr.bytes = s.sizes[i];
            sr.pingpong = s.sizes[i] == 0 ? r.latency : to_root(rank, r.pair.a, x.pingpong[i]);
            sr.sendrecv = to_root(rank, r.pair.a, x.sendrecv[i]);
            r.sizes.push_back(sr);
        }
        quiet_barrier();
        r.eager = bench.eager_threshold(r.pair.a, r.pair.b, true);
        r.eager_quiet = bench.eager_threshold(r.pair.a, r.pair.b, false);
        if (rank == 0) print_class(c, r);
    }
    quiet_barrier();
    if (ov_class >= 0) {
        const int a = pairs[static_cast<std::size_t>(ov_class)].a;
        m.overhead_class = ov_class;
        for (std::size_t i = 0; i < kOverheadSizes.size(); ++i)
            m.overheads.push_back(OverheadResult{kOverheadSizes[i], to_root(rank, a, ov[i].send),
                                                 to_root(rank, a, ov[i].post),
                                                 to_root(rank, a, ov[i].recv)});
        if (rank == 0) {
            std::printf(
                "\nper-message costs (%s, ranks %d and %d; median over %d passes of each "
                "pass's median of %d bursts of %d; p10-p90 of all bursts):\n",
                class_name(ov_class), a, pairs[static_cast<std::size_t>(ov_class)].b, m.passes,
                static_cast<int>(ov_reps), kBurst);
            for (const OverheadResult& o : m.overheads)
                std::printf("  %6s: o_s %s (%s-%s), post %s (%s-%s), o_r %s (%s-%s)\n",
                            size_text(o.bytes).c_str(), time_text(o.send.value).c_str(),
                            time_text(o.send.p10).c_str(), time_text(o.send.p90).c_str(),
                            time_text(o.post.value).c_str(), time_text(o.post.p10).c_str(),
                            time_text(o.post.p90).c_str(), time_text(o.recv.value).c_str(),
                            time_text(o.recv.p10).c_str(), time_text(o.recv.p90).c_str());
        }
    }
    quiet_barrier();

    if (rank == 0) {
        const Derived d = derive(m, opt.fit);
        print_summary(m, d);
        std::string name = opt.name;
        if (name.empty()) {
            name = "calibrated-";
            for (const char ch : m.hosts.front().name)
                name += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-') ? ch : '_';
        }
        if (xml_out.is_open()) {
            xml_out << write_model(m, d, name, opt.local_curves);
            xml_out.close();
            if (!xml_out) throw UsageError(strf("--out: cannot write '%s'", opt.out.c_str()));
            std::printf("\nwrote the model to %s\n", opt.out.c_str());
        }
        if (csv_out.is_open()) {
            csv_out << write_csv(m);
            csv_out.close();
            if (!csv_out) throw UsageError(strf("--csv: cannot write '%s'", opt.csv.c_str()));
            std::printf("wrote the measurements to %s\n", opt.csv.c_str());
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, world = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    int code = 0;
    try {
        const Options opt = parse_options(argc, argv);
        if (opt.help) {
            if (rank == 0) std::fputs(kUsage, stdout);
        } else if (world < 2) {
            throw UsageError("needs at least 2 MPI ranks (e.g. mpirun -np 2 clustersim-calibrate)");
        } else {
            code = run(rank, world, opt);
        }
    } catch (const UsageError& e) {
        if (rank == 0) std::fprintf(stderr, "%s: error: %s\n", kProgram, e.what());
        code = rank == 0 ? kUsageExit : 0;
    }
    MPI_Finalize();
    return code;
}
