// clustersim-calibrate's stages and the types at their seams (tools/mpi/README.md,
// "clustersim-calibrate"): MEASURE (measure.cpp, MPI) fills a `Measured`; DERIVE (derive.cpp,
// no MPI) turns it into `Derived`; WRITE (write.cpp, report.cpp) renders the model XML, the CSV
// and the tables on stdout; measured_json.cpp saves and reads a `Measured` (--save-measured,
// --from). Everything but measure.cpp and main.cpp is the library clustersim_calibrate_model,
// which links no MPI (the tests use it).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "simulator/time.hpp"

namespace clustersim::topo {
class XmlElement;
}

namespace clustersim::calibrate {

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
              kTagResult = 16, kTagNote = 17, kTagBurst = 18, kTagGroup = 19, kTagStream = 20;
// Concurrent transfers (issue 23): groups of kConcurrent messages of one size sent at once
// from one rank to another (MPI_Isend each, the receiver's MPI_Irecv posted first).
constexpr int kConcurrent = 2;
// Per-message software costs (LogGP's o): measured at these sizes (all sent eagerly by the
// MPI libraries we know; the simulator keeps the last point's cost above them), in bursts of
// kBurst messages.
constexpr std::array<std::uint64_t, 3> kOverheadSizes{8, 256, 1024};
constexpr int kBurst = 16;
constexpr double kLateClose = 2e-3;  // s: the other ranks' delay before a close (io_world)
constexpr int kWorldOpens = 15;      // collective opens and closes per test (io_world)
// Concurrent syncs (io_world): each rank writes kSyncApartBytes at its own offset of one file
// opened on MPI_COMM_WORLD, then every rank calls MPI_File_sync at once, kSyncApartPasses times
// (the file grows by world x kSyncApartBytes per pass, as an application's dumps append).
constexpr std::uint64_t kSyncApartBytes = 256 * 1024;
constexpr int kSyncApartPasses = 11;
constexpr double kSettle = 50e-6;  // s: the receiver's wait before it takes a burst in

// A bad flag or file: one line on stderr (from rank 0), exit kUsageExit.
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

// ---- text ------------------------------------------------------------------------------

std::string size_text(std::uint64_t b);  // 0 B, 1 B, 4 KiB, 64 MiB, 1.5 KiB, 1000 B
std::string time_text(double s);         // 312.4 ns, 1.234 µs, 56.78 ms, 1.234 s
std::string us_text(double s);
std::string mbps_text(double bytes_per_s);
std::string gbps_text(double bytes_per_s);
// A measured figure as the model's integer quantity, at the precision the model keeps (the
// model writer, topologies/model_writer.hpp, then writes it exactly): a time to 0.1 ns below
// 1 ms and to 100 ns from 1 ms (negative: 0), a bandwidth to 0.1 MB/s (at least 0.1 MB/s), a
// core speed to 1 M instructions/s (at least 1 M).
Time model_time_of(double s);
Bandwidth model_bandwidth_of(double bytes_per_s);
std::uint64_t model_speed_of(double per_s);

// ---- flags -------------------------------------------------------------------------------

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
    std::string save_measured;    // --save-measured: the raw measurements (JSON) go there
    std::string from;             // --from: derive and write from these, measure nothing

    // --peer-setup-only: measure the set-up's round trips, print them, nothing else.
    bool peer_setup_only = false;
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

extern const char* kUsage;
Options parse_options(int argc, char** argv);
Settings resolve(const Options& o);

// ---- ranks, hosts, placement classes -------------------------------------------------------

constexpr int kHostNameMax = 256;  // at least MPI_MAX_PROCESSOR_NAME (checked in measure.cpp)
constexpr int kCpuModelMax = 96;
// Gathered from every rank as raw bytes (trivially copyable).
struct RankInfo {
    char host[kHostNameMax + 1];
    char cpu_model[kCpuModelMax];
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

enum Class { kIntraSocket = 0, kInterSocket = 1, kInterNode = 2, kClasses = 3 };
inline const char* class_name(int c) {
    static const char* names[] = {"intra-socket", "inter-socket", "inter-node"};
    return names[c];
}

struct Pair {
    bool present = false;
    int a = -1, b = -1;
    bool shared_cpu = false;  // intra-socket pair on one CPU (no pair on two CPUs exists)
    std::string absent;       // why there is no pair
};

// ---- statistics and measurements -------------------------------------------------------

// The samples of one measurement over every pass.
struct Samples {
    std::vector<double> all;
    std::vector<double> pass_medians;
};

double median_sorted(const std::vector<double>& v);
void add_pass(Samples& s, std::vector<double> pass);

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

Stats summarize(const Samples& s);

// A fresh send buffer (issue 23): Open MPI's shared-memory transport moves a message above
// its eager limit by the receiver's single copy (CMA), and a buffer the sender has just
// written is pulled out of the sender's cache, slower. Per size, between the ranks of one
// class: the one-way time (an s-byte MPI_Send answered by a zero-byte one, both timed on
// the sender) of an untouched buffer and of one the sender wrote (a store loop) right
// before, alternated, and the time of that store loop; each call after a zero-byte
// handshake, so only the send is timed (measure_fresh_sends).
struct FreshResult {
    std::uint64_t bytes = 0;
    Stats untouched, fresh, write;  // s
};
// Sizes measured: those of the run from kFreshMin to kFreshMax bytes (beyond a few MiB the
// buffer leaves the cache, written or not).
constexpr std::uint64_t kFreshMin = 1024, kFreshMax = 4 * 1024 * 1024;

// A process's first uses (issue 23): Open MPI loads its topology framework at the first
// communicator with a topology and OMPIO's frameworks at the first MPI_File_open, so
// LAMMPS's first MPI_Cart_create and MPI_File_open cost 0.3-1.6 and 1.4-2.6 ms, the later
// ones tens of microseconds. Measured first in the run (after the peer set-up's messages,
// before any other MPI-IO call), once per run: a 1-D periodic MPI_Cart_create of
// MPI_COMM_WORLD twice, then an MPI_File_open of a new file on MPI_COMM_WORLD twice
// (LAMMPS's dump's mode: create, append, write only), each after a barrier; rank 0's times
// (measure_first_uses).
struct FirstUse {
    bool measured = false;
    double cart_first = 0, cart_second = 0, open_first = 0, open_second = 0;  // s
    // The model's <collectives first-topology> and <file-system first-open>: the first
    // less the second, at least 0.
    double topology() const { return std::max(0.0, cart_first - cart_second); }
    double open() const { return std::max(0.0, open_first - open_second); }
};

// A cold fresh send (issue 23): the same one-way send of a just-written buffer, but after
// both ranks wrote kColdEvictCaches times their core's cache (a long compute, as LAMMPS's
// force loop before its halo's reverse exchange): the pull then misses in both caches.
// Per size up to the cache's, alternated with a fresh send without that write
// (measure_cold_sends).
struct ColdResult {
    std::uint64_t bytes = 0;
    Stats fresh, cold;  // s
};
constexpr std::uint64_t kColdEvictCaches = 4;
// Timed sends per size and pass of each kind (each cold one follows an eviction of a few
// MiB: the count keeps the measurement near a second).
constexpr std::uint64_t kColdReps = 8;

struct SizeResult {
    std::uint64_t bytes = 0;
    Stats pingpong;  // one-way time, s
    Stats sendrecv;  // time per MPI_Sendrecv, s
    // Time per group of kConcurrent messages of `bytes` sent at once one way (round trip of
    // two groups / 2), s; samples == 0: not measured (files saved before it was).
    Stats concurrent;
    Stats stream =
        {};  // time per MPI_Send of a stream from a to b, s (ClassResult::stream_measured)
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
    // The stream (issue 23): a sends blocking MPI_Send back to back, b loops on MPI_Recv;
    // SizeResult::stream is the time per call. Not measured (an older --save-measured file):
    // no <mpi-overhead><gap>.
    bool stream_measured = false;
};
// Sends per timed group of the stream (a sample is the group's time per call), at most.
constexpr std::uint64_t kStreamGroup = 8;

// Local work of collectives, on rank 0 alone (MPI's own routines and memcpy, no messages):
// bytes/s of copying a block from a send to a receive buffer (what a gather root does with
// its own block) and of MPI_Reduce_local on doubles with MPI_SUM (what a reduction step
// does with a received vector), at each of kLocalSizes (in cache and beyond it: the rates
// differ by several times). Each the median of kLocalRuns timed runs after one warm-up run
// (small sizes repeat within a run to last at least about 100 us). Every power of 2 from
// 16 KiB to 64 MiB, like the ping-pong's grid: the cache cliff lies between two of them (on
// the 2-core VM between 512 KiB at 45-48 GB/s and 1 MiB at 3-30 GB/s), and a grid at
// powers of 8 interpolated 32 GB/s for a scatter root's 512 KiB copy.
constexpr std::array<std::uint64_t, 13> kLocalSizes{
    16ull << 10, 32ull << 10, 64ull << 10, 128ull << 10, 256ull << 10, 512ull << 10, 1ull << 20,
    2ull << 20,  4ull << 20,  8ull << 20,  16ull << 20,  32ull << 20,  64ull << 20};
constexpr int kLocalRuns = 5;
// MPI_Barrier: runs of calls timed together, the time per call of each run one sample.
constexpr int kBarrierRuns = 31, kBarrierCalls = 64;
struct LocalRates {
    std::vector<std::pair<std::uint64_t, double>> copy, reduce;  // (bytes, bytes/s)
};

// Lazy peer set-up (issue 23): Open MPI 4.1's shared-memory BTL sets up a per-peer fast box
// at the btl_vader_fbox_threshold-th send to that peer (default 16); InfiniBand and UCX
// libraries set up endpoints at the first message. Measured once per process pair (it only
// happens once): ranks 0 and 1 run kSetupRoundTrips zero-byte ping-pongs as the very first
// thing after MPI_Init, before any other message, rank 0 timing each round trip.
constexpr int kSetupRoundTrips = 64;
constexpr int kTagSetup = 21;
// What the round trips show (peer_setup_of): `steady` the median of round trips 33..64;
// the set-up is a round trip i >= 2 (the very first is cold) whose excess over steady is
// > max(kSetupSpikeFactor x steady, kSetupSpikeFloor), of several the one after which the
// round trips drop most (a disturbance of the machine changes nothing): after = i (the i-th
// message each way), time = the excess of round trips i..i+3 (each at least 0) / 2 (both
// directions set up in the same round trip). found == false: no such spike.
constexpr double kSetupSpikeFactor = 5, kSetupSpikeFloor = 2e-6;
struct PeerSetup {
    bool found = false;
    int after = 0;
    double time = 0;    // s, per direction
    double steady = 0;  // s, a round trip
    double excess = 0;  // s, round trip `after`'s excess over steady
    double spread = 0;  // s, the excess of round trips after..after+3 (= 2 time)
};
PeerSetup peer_setup_of(const std::vector<double>& round_trips);

// The whole set-up cost the round trips show, also when the two directions set up in
// different round trips (each rank counts its own sends: a message one rank sent before the
// ping-pongs, such as the tracer's start-up broadcast, moves its direction's set-up one round
// trip earlier). The spike peer_setup_of finds, and every round trip over its threshold up to
// kSetupWindow round trips before or after it: `first`..`last` (1-based) the earliest and the
// latest of them, `total` the excess over steady of round trips first..last + 3 (each at
// least 0), both directions; `spikes` counts the round trips over the threshold. With one
// spike, total = 2 x PeerSetup::time. found == false: no set-up seen. `clustersim-calibrate
// --peer-setup-only` prints it; `bench/validate.sh tracer-setup` compares it with and without the
// tracer.
constexpr int kSetupWindow = 8;
struct SetupTotal {
    bool found = false;
    int first = 0, last = 0, spikes = 0;
    double steady = 0;  // s, a round trip
    double total = 0;   // s, both directions
};
SetupTotal setup_total_of(const std::vector<double>& round_trips);

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
    // Issue 23: per pass, (the end of the last rank to enter the sync - the end of the first)
    // / (world - 1), at least 0, rank 0's median over the passes (io_world; ranks on one host
    // only: one clock); not measured (value 0) in files saved before it.
    Stats sync_apart;
    DirtyLimits dirty;
};

// The real library's collective curves (issue 23; coll_curves.cpp, measure_collectives.cpp):
// MPI_Barrier, MPI_Bcast (MPI_BYTE), MPI_Reduce and MPI_Allreduce (MPI_DOUBLE, MPI_SUM; sizes
// rounded down to whole doubles) on MPI_COMM_WORLD, at each size of the grid; per pass and
// size Settings::warmup calls, then kCurveRuns runs of Settings::reps / kCurveRuns calls
// (at least 1), each run's time per call the slowest rank's (as clustersim-bench and the
// validation suite time a phase). `value` is the median over the passes of each pass's
// median run (Stats), min/max/p10/p90 over every run.
constexpr std::array<const char*, 4> kCurveOps{"barrier", "bcast", "reduce", "allreduce"};
constexpr int kCurveRuns = 3;
struct CollCurveMeasured {
    std::string operation;                                // one of kCurveOps
    std::vector<std::pair<std::uint64_t, Stats>> points;  // size one rank passes, s per call
};

// MEASURE's output (on rank 0), DERIVE's and WRITE's input; what --save-measured keeps.
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
    int overhead_bursts = 0;  // bursts of kBurst per pass and size, for the report
    // o_s + o_r of a message of `bytes` (s), interpolated linearly between the measured sizes,
    // the first size's below them and the last's above, as the simulator does.
    double overhead(std::uint64_t bytes) const { return overhead_of(bytes, true); }
    // o_s alone, likewise.
    double send_overhead(std::uint64_t bytes) const { return overhead_of(bytes, false); }
    double overhead_of(std::uint64_t bytes, bool with_recv) const {
        if (overheads.empty()) return 0;
        auto at = [&](std::size_t i) {
            return overheads[i].send.value + (with_recv ? overheads[i].recv.value : 0.0);
        };
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
    // MPI_Comm_free of each duplicate, rank 0's median (issue 57): <collectives comm-free>,
    // a local cost. 0: not measured (files saved before it).
    double comm_free = 0;
    // MPI_Barrier on MPI_COMM_WORLD (issue 23): the time per call of kBarrierRuns runs of
    // kBarrierCalls barriers each, rank 0's median over the runs (`value`) and their spread.
    // Not measured (an older --save-measured file): no <collectives barrier>.
    bool barrier_measured = false;
    Stats barrier;
    // The model's barrier cost (<collectives barrier>): the measured time per call less what
    // the simulated barrier already pays for its messages, ceil(log2 world) rounds of one
    // exchange of (almost) nothing, each the MPI_Sendrecv of the smallest measured size of
    // the slowest measured class; at least 0.
    int barrier_rounds() const {
        int r = 0;
        while ((1LL << r) < world) ++r;
        return r;
    }
    double barrier_exchange() const {
        double t = 0;
        for (const ClassResult& c : classes)
            if (c.pair.present && !c.sizes.empty()) t = std::max(t, c.sizes.front().sendrecv.value);
        return t;
    }
    double barrier_local() const {
        return std::max(0.0, barrier.value - barrier_rounds() * barrier_exchange());
    }

    // The model's send gap (<mpi-overhead><gap>, LogGP's g): per size of the stream of the
    // class the per-message costs were measured on, its time per call less o_s(size) (the
    // simulator charges o_s before the message leaves and counts g from there), at least 0.
    // Empty: no stream measured (or no per-message costs).
    std::vector<std::pair<std::uint64_t, double>> send_gap() const {
        std::vector<std::pair<std::uint64_t, double>> g;
        if (overhead_class < 0 || overheads.empty()) return g;
        const ClassResult& c = classes[static_cast<std::size_t>(overhead_class)];
        if (!c.stream_measured) return g;
        for (const SizeResult& s : c.sizes)
            g.emplace_back(s.bytes, std::max(0.0, s.stream.value - send_overhead(s.bytes)));
        return g;
    }
    // The collective curves (CollCurveMeasured; empty: not measured, an older file).
    std::vector<CollCurveMeasured> coll_curves;

    // The lazy peer set-up's round trips (kSetupRoundTrips, s, rank 0's), between ranks 0
    // and 1 of class `setup_class` (-1: not measured; an older --save-measured file).
    std::vector<double> setup_round_trips;
    int setup_class = -1;
    PeerSetup peer_setup() const { return peer_setup_of(setup_round_trips); }

    // Fresh send buffers (FreshResult; measure_fresh_sends): on the pair of class
    // `fresh_class` (-1: not measured; an older --save-measured file), per size.
    std::vector<FreshResult> fresh;
    int fresh_class = -1;
    // The model's <fresh-send> curve: per size, the fresh one-way time less the untouched
    // one (medians), at least 0; empty: not measured.
    std::vector<std::pair<std::uint64_t, double>> fresh_extra() const {
        std::vector<std::pair<std::uint64_t, double>> x;
        for (const FreshResult& f : fresh)
            x.emplace_back(f.bytes, std::max(0.0, f.fresh.value - f.untouched.value));
        return x;
    }
    // Its write rate: the fastest the sender wrote a buffer (bytes / write time, the largest
    // over the sizes), so no compute shorter than the write of s bytes at it counts as one
    // that wrote them. 0: not measured.
    double fresh_write_rate() const {
        double r = 0;
        for (const FreshResult& f : fresh)
            if (f.write.value > 0) r = std::max(r, static_cast<double>(f.bytes) / f.write.value);
        return r;
    }

    // A process's first uses (FirstUse; not measured in an older --save-measured file).
    FirstUse first_use;
    // Cold fresh sends (ColdResult; measure_cold_sends): on the pair of class `cold_class`
    // (-1: not measured; an older --save-measured file), per size; the core's cache size
    // (sysconf's level 2, or 2 MiB when it reports none), and the time both ranks' write of
    // kColdEvictCaches such caches took (rank a's).
    std::vector<ColdResult> cold;
    int cold_class = -1;
    std::uint64_t cold_cache_bytes = 0;
    Stats cold_evict;
    // The model's <cold-send> curve: per size, the cold one-way time less the fresh one
    // (medians), at least 0; empty: not measured.
    std::vector<std::pair<std::uint64_t, double>> cold_extra() const {
        std::vector<std::pair<std::uint64_t, double>> x;
        for (const ColdResult& c : cold)
            x.emplace_back(c.bytes, std::max(0.0, c.cold.value - c.fresh.value));
        return x;
    }
    // Its `after`: the compute that can have written one cache's worth, the eviction's
    // time over kColdEvictCaches. 0: not measured.
    double cold_after() const {
        return cold.empty() ? 0.0 : cold_evict.value / static_cast<double>(kColdEvictCaches);
    }

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

// DERIVE's output: the model's figures (see tools/mpi/README.md, "The model").
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
    double io_sync_apart = 0;      // <file-system sync-apart>: io.sync_apart's median
    double io_writeback_rate = 0;  // (size - transfer) / (sync - small sync), for the report
    double io_open = 0, io_close = 0;
    std::uint64_t io_memory = 0;
};

// ---- derive (derive.cpp) -------------------------------------------------------------------

struct CurvePoint {
    std::uint64_t bytes = 0;
    double bandwidth = 0;   // bytes/s, transfer
    double one_way = 0;     // s, measured ping-pong
    double sendrecv = 0;    // s, measured MPI_Sendrecv per call
    double two_way = 0;     // bytes/s, transfer per direction in the sendrecv; 0: not measured
    double group = 0;       // s, measured time per group of kConcurrent messages; 0: not measured
    double concurrent = 0;  // bytes/s, the receiver's shared transfer bandwidth; 0: not measured
};

double model_time(std::uint64_t m, double latency, double bandwidth, std::uint64_t eager);
double fit_bandwidth(const ClassResult& r, double latency, std::uint64_t eager);
double net_latency(const ClassResult& r, const Measured& m);
std::vector<CurvePoint> transfer_curve(const ClassResult& r, const Measured& m, std::uint64_t eager,
                                       std::vector<std::uint64_t>* skipped);
std::vector<std::pair<int, const char*>> curve_classes(const Derived& d);
Derived derive(const Measured& m, bool fit);

// ---- write (write.cpp) and the report on stdout (report.cpp) -------------------------------

std::string host_summary(const Host& h);
std::string eager_text(const Eager& e);
std::vector<std::string> io_report(const Measured& m, const Derived& d);
// The collectives' decision profile (collectives/selection.hpp, profile_names) of the MPI
// library MPI_Get_library_version named, or "" when calibrate knows none for it: Open MPI
// 4.1.x is "openmpi-4.1" (the model then gets <collectives profile buffer-copies="yes">).
std::string library_profile(const std::string& mpi_library);
std::string write_model(const Measured& m, const Derived& d, const std::string& name,
                        bool local_curves);
std::string write_csv(const Measured& m);

void print_placement(const Measured& m, const std::array<Pair, kClasses>& pairs);
void print_class(int c, const ClassResult& r);
void print_overheads(const Measured& m);
// `cost_class`: the class the per-message costs come from (Measured::overhead_class; run()
// prints this before they are measured).
void print_peer_setup(const Measured& m, int cost_class);
void print_setup_total(const std::vector<double>& round_trips);
void print_summary(const Measured& m, const Derived& d);

// ---- the run's files (write.cpp) -------------------------------------------------------------

// --out, --csv and --save-measured, opened before the measurements so that a bad path fails
// first.
struct Outputs {
    std::ofstream xml, csv, measured;
};
// Opens the files `o` names; "" or the one-line error (naming the flag).
std::string open_outputs(const Options& o, Outputs& out);
// Derives the model, prints the summary and writes the files (rank 0, after the measurements
// or after reading them with --from). Throws UsageError when a file cannot be written.
void finish(const Measured& m, const Options& o, Outputs& out);

// clustersim-calibrate --from FILE ...: reads the measurements, prints the report as a run
// does, derives and writes the files; no MPI. The process's exit code (2: a bad flag or file,
// one line on stderr).
int main_from(int argc, char** argv);

// ---- measure (measure.cpp: MPI; not in the library) ------------------------------------------

// Every rank: measures, then rank 0 finishes (prints, derives, writes). 0, or throws
// UsageError.
int run(int rank, int world, const Options& opt);

// ---- saved measurements (measured_json.cpp) --------------------------------------------------

// A file that is not a saved measurement: what() is one line naming the file and the field.
class BadMeasured : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};
std::string measured_to_json(const Measured& m);
// `text` read from `file` (named in the errors); checks what derive and write rely on.
Measured measured_from_json(std::string_view text, const std::string& file);

// ---- collective curves (coll_curves.cpp; measure_collectives.cpp: MPI) ----------------------

// The placement the curves were measured in: "intra-node" (every rank on one host),
// "inter-node" (every rank on a host of its own), "" (mixed: no curve in the model).
std::string coll_curve_scope(const Measured& m);
// The sizes each operation is measured at: the grid's and twice the grid's largest for
// bcast, the same rounded down to whole doubles (duplicates dropped) for the reductions, 0
// alone for the barrier.
std::vector<std::uint64_t> coll_curve_sizes(const char* operation,
                                            const std::vector<std::uint64_t>& grid);
// The model's <collective-curve> elements, children of `collectives` (none without a scope).
void add_collective_curves(const Measured& m, topo::XmlElement& collectives);
// The CSV's rows ("collective_allreduce,intra-node,-1,-1,BYTES,,..."), one per point.
std::string coll_curves_csv(const Measured& m);
// The report's lines (stdout and the model's header comment).
std::vector<std::string> coll_curves_report(const Measured& m);
// Every rank: measures the curves into `m` (rank 0's copy).
void measure_coll_curves(const Settings& s, int rank, int world, Measured& m);
// Fresh send buffers (FreshResult) between ranks a and b of class `cls`, every other rank
// waiting; rank 0 keeps the figures in m.fresh (measure_fresh.cpp).
void measure_fresh_sends(const Settings& s, int rank, int a, int b, int cls, Measured& m);
// Every rank, before any other MPI-IO call: a process's first uses (FirstUse) into
// m.first_use on rank 0; nothing when the open fails (--io-dir is checked after it).
void measure_first_uses(const Settings& s, int rank, Measured& m);
void print_first_uses(const Measured& m);
// Cold fresh sends (ColdResult) between ranks a and b of class `cls`, every other rank
// waiting; rank 0 keeps the figures in m.cold (measure_fresh.cpp).
void measure_cold_sends(const Settings& s, int rank, int a, int b, int cls, Measured& m);
// measure.cpp's helpers for the measurements of other files: rank `from`'s summary of `s` on
// rank 0 (every rank calls it), and a barrier that polls and sleeps (ranks outside a
// measured pair do not take a core from it).
Stats stats_on_root(int rank, int from, const Samples& s);
void wait_quietly();
void print_fresh_sends(const Measured& m);
void print_cold_sends(const Measured& m);

}  // namespace clustersim::calibrate
