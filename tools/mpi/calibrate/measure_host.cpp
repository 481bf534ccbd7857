// MEASURE: this rank and its host (CPU, socket, model name), the pairs of ranks of each
// placement class, results sent to rank 0, the peer set-up, the CPU kernel, the local copy and
// reduction rates and the kernel's dirty-page limits (measure_parts.hpp).

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

#include "tools/mpi/calibrate/calibrate.hpp"
#include "tools/mpi/calibrate/measure_parts.hpp"

namespace clustersim::calibrate {

namespace {

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

}  // namespace

void pack(const Stats& s, double* b) {
    const double v[kStatsDoubles] = {s.value, s.median_all, s.min,     s.p10,
                                     s.p90,   s.max,        s.samples, s.passes};
    std::copy(v, v + kStatsDoubles, b);
}
Stats unpack(const double* b) {
    return Stats{b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]};
}

RankInfo probe_self() {
    RankInfo r{};
    int len = 0;
    MPI_Get_processor_name(r.host, &len);
    r.host[std::min(len, MPI_MAX_PROCESSOR_NAME)] = '\0';
    static_assert(MPI_MAX_PROCESSOR_NAME <= kHostNameMax);
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
// The lazy peer set-up (PeerSetup): kSetupRoundTrips zero-byte ping-pongs between ranks 0
// and 1, each round trip timed on rank 0 (returned there; empty elsewhere). Must be the
// first messages the two ranks exchange: the set-up happens once, at a count of messages.
std::vector<double> setup_round_trips(int rank) {
    std::vector<double> rtt;
    char byte = 0;
    if (rank == 0) {
        rtt.reserve(kSetupRoundTrips);
        for (int i = 0; i < kSetupRoundTrips; ++i) {
            const double t0 = MPI_Wtime();
            MPI_Send(&byte, 0, MPI_BYTE, 1, kTagSetup, MPI_COMM_WORLD);
            MPI_Recv(&byte, 0, MPI_BYTE, 1, kTagSetup, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            rtt.push_back(MPI_Wtime() - t0);
        }
    } else if (rank == 1) {
        for (int i = 0; i < kSetupRoundTrips; ++i) {
            MPI_Recv(&byte, 0, MPI_BYTE, 0, kTagSetup, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&byte, 0, MPI_BYTE, 0, kTagSetup, MPI_COMM_WORLD);
        }
    }
    return rtt;
}

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

std::string now_utc() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
    return buf;
}

}  // namespace clustersim::calibrate
