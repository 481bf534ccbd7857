// MEASURE: the ladders, passes, placement classes, CPU kernel and I/O probes under MPI; fills
// a `Measured` on rank 0 (see tools/mpi/README.md, "clustersim-calibrate").

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

namespace clustersim::calibrate {

namespace {

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

    // Concurrent transfers: the one-way time of a group of kConcurrent messages of `bytes`
    // sent at once, from `reps` round trips after warm-up (a posts its receives, sends a
    // group to b with MPI_Isend and waits for all; b, its receives posted first, takes the
    // group and sends one back the same way), on rank a. Each message has its own buffer.
    std::vector<double> concurrent(int a, int b, std::uint64_t bytes, std::uint64_t reps) {
        std::vector<double> samples;
        if (rank_ != a && rank_ != b) return samples;
        const std::uint64_t warm = Settings::warmup(reps);
        const int count = static_cast<int>(bytes);
        const std::size_t need = static_cast<std::size_t>(kConcurrent) * bytes;
        if (group_send_.size() < need) group_send_.assign(need, 'g'), group_recv_.assign(need, 'h');
        const int peer = rank_ == a ? b : a;
        std::array<MPI_Request, 2 * kConcurrent> req{};
        auto post_receives = [&] {
            for (int i = 0; i < kConcurrent; ++i)
                MPI_Irecv(group_recv_.data() + static_cast<std::size_t>(i) * bytes, count, MPI_BYTE,
                          peer, kTagGroup, MPI_COMM_WORLD, &req[kConcurrent + i]);
        };
        auto send_group = [&] {
            for (int i = 0; i < kConcurrent; ++i)
                MPI_Isend(group_send_.data() + static_cast<std::size_t>(i) * bytes, count, MPI_BYTE,
                          peer, kTagGroup, MPI_COMM_WORLD, &req[i]);
            MPI_Waitall(kConcurrent, req.data(), MPI_STATUSES_IGNORE);
        };
        auto take_group = [&] {
            MPI_Waitall(kConcurrent, req.data() + kConcurrent, MPI_STATUSES_IGNORE);
        };
        if (rank_ == a) samples.reserve(reps);
        for (std::uint64_t it = 0; it < warm + reps; ++it) {
            if (rank_ == a) {
                post_receives();
                const double t0 = MPI_Wtime();
                send_group();
                take_group();
                const double t1 = MPI_Wtime();
                if (it >= warm) samples.push_back((t1 - t0) / 2);
            } else {
                post_receives();
                take_group();
                send_group();
            }
        }
        return samples;
    }

    // A stream: a sends `calls` blocking MPI_Send of `bytes` to b back to back (after
    // warm-up), b loops on MPI_Recv; then b sends a 0-byte note, so the next measurement
    // starts with nothing in flight. On rank a: per group of up to kStreamGroup consecutive
    // sends, the group's time per call (at least `min` groups: a large size's few calls are
    // timed one by one).
    std::vector<double> stream(int a, int b, std::uint64_t bytes, std::uint64_t calls) {
        std::vector<double> samples;
        const std::uint64_t warm = Settings::warmup(calls);
        const std::uint64_t group = std::clamp<std::uint64_t>(
            calls / std::max<std::uint64_t>(1, s_.min_repeats), 1, kStreamGroup);
        const std::uint64_t groups = std::max<std::uint64_t>(1, calls / group);
        const int count = static_cast<int>(bytes);
        if (rank_ == a) {
            for (std::uint64_t it = 0; it < warm; ++it)
                MPI_Send(send_.data(), count, MPI_BYTE, b, kTagStream, MPI_COMM_WORLD);
            samples.reserve(groups);
            for (std::uint64_t g = 0; g < groups; ++g) {
                const double t0 = MPI_Wtime();
                for (std::uint64_t k = 0; k < group; ++k)
                    MPI_Send(send_.data(), count, MPI_BYTE, b, kTagStream, MPI_COMM_WORLD);
                samples.push_back((MPI_Wtime() - t0) / static_cast<double>(group));
            }
            MPI_Recv(nullptr, 0, MPI_BYTE, b, kTagNote, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank_ == b) {
            for (std::uint64_t it = 0; it < warm + groups * group; ++it)
                MPI_Recv(recv_.data(), count, MPI_BYTE, a, kTagStream, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            MPI_Send(nullptr, 0, MPI_BYTE, a, kTagNote, MPI_COMM_WORLD);
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
    std::vector<char> group_send_, group_recv_;  // kConcurrent buffers each (concurrent())
};

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
    std::vector<double> open, close, late_close, sync_apart;
    std::string error;
};

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
    // Concurrent syncs of one file: every rank writes its block, then all sync at once. A
    // pass's figure is (the end of the last rank to enter the sync - the end of the first to
    // enter) / (world - 1), on MPI_Wtime: the model's k-th rank to enter ends k sync-apart
    // after the first, however late it entered. It needs one clock, so it is measured only
    // when every rank runs on one host (the same processor name).
    int world = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    std::vector<char> names(static_cast<std::size_t>(world) * MPI_MAX_PROCESSOR_NAME);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME,
               MPI_CHAR, 0, MPI_COMM_WORLD);
    int one_host = 1;
    if (rank == 0)
        for (int r = 1; r < world; ++r)
            if (std::strncmp(names.data(), names.data() + r * MPI_MAX_PROCESSOR_NAME,
                             MPI_MAX_PROCESSOR_NAME) != 0)
                one_host = 0;
    MPI_Bcast(&one_host, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (world < 2 || one_host == 0) return w;
    if (rank == 0) MPI_File_delete(path.c_str(), MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh = MPI_FILE_NULL;
    int rc = MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                           MPI_INFO_NULL, &fh);
    int ok = rc == MPI_SUCCESS ? 1 : 0, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all == 0) {
        if (rc == MPI_SUCCESS) MPI_File_close(&fh);
        w.error = "MPI_File_open on MPI_COMM_WORLD failed (concurrent syncs)";
        return w;
    }
    std::vector<char> block(kSyncApartBytes, 'x');
    std::vector<double> times(2 * static_cast<std::size_t>(world));
    for (int pass = 0; pass < kSyncApartPasses && ok != 0; ++pass) {
        const auto at = static_cast<MPI_Offset>(
            (static_cast<std::uint64_t>(pass) * static_cast<std::uint64_t>(world) +
             static_cast<std::uint64_t>(rank)) *
            kSyncApartBytes);
        rc = MPI_File_write_at(fh, at, block.data(), static_cast<int>(block.size()), MPI_BYTE,
                               MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        double t[2] = {MPI_Wtime(), 0};
        if (rc == MPI_SUCCESS) rc = MPI_File_sync(fh);
        t[1] = MPI_Wtime();
        ok = rc == MPI_SUCCESS ? 1 : 0;
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Gather(t, 2, MPI_DOUBLE, times.data(), 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0 && ok != 0) {
            std::size_t first = 0, last = 0;  // by entry
            for (std::size_t r = 1; r < static_cast<std::size_t>(world); ++r) {
                if (times[2 * r] < times[2 * first]) first = r;
                if (times[2 * r] >= times[2 * last]) last = r;
            }
            // A pass where the first to enter ended last counts as no apart (the model has none).
            w.sync_apart.push_back(
                std::max(0.0, (times[2 * last + 1] - times[2 * first + 1]) / (world - 1)));
        }
    }
    MPI_File_close(&fh);
    if (ok == 0) w.sync_apart.clear();  // a failed write or sync: not measured
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

}  // namespace

// For the measurements in other files (calibrate.hpp).
Stats stats_on_root(int rank, int from, const Samples& s) {
    return to_root(rank, from, s);
}
void wait_quietly() {
    quiet_barrier();
}

namespace {

// Outputs are opened up front on rank 0, so a bad path (or an I/O directory where no file can be
// made) fails on every rank before the measurements.
void check_outputs(int rank, const Options& opt, const Settings& s, Outputs& out) {
    std::string open_error;
    if (rank == 0) {
        open_error = open_outputs(opt, out);
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
}

// The library, the ranks and the hosts they run on.
void describe_machine(Measured& m, int world, const Settings& s, const Options& opt) {
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
}

// The first pair's class (the lazy set-up's ping-pongs ran between ranks 0 and 1), on rank 0.
void note_setup(Measured& m, const std::array<Pair, kClasses>& pairs,
                const std::vector<double>& setup_rtt) {
    const RankInfo &r0 = m.ranks[0], &r1 = m.ranks[1];
    m.setup_round_trips = setup_rtt;
    m.setup_class = std::strcmp(r0.host, r1.host) != 0 ? kInterNode
                    : r0.socket == r1.socket           ? kIntraSocket
                                                       : kInterSocket;
    int cost_class = -1;  // as run()'s ov_class
    for (const int c : {kIntraSocket, kInterSocket, kInterNode})
        if (cost_class < 0 && pairs[static_cast<std::size_t>(c)].present) cost_class = c;
    print_peer_setup(m, cost_class);
}

// The samples of the passes; each stays on the rank that measured it until the end.
struct ClassSamples {
    Samples latency;
    std::vector<Samples> pingpong, sendrecv, concurrent, stream;
};
// The I/O test runs on rank 0 alone (the others wait in quiet_barrier), last in a pass.
struct IoSamples {
    Samples open, write_cached, close, write_small, sync_small, synced_small, write_synced, sync,
        synced, small_write;
};
struct OverheadSamples {
    Samples send, post, recv;
};
struct PassSamples {
    Samples cpu;
    std::array<ClassSamples, kClasses> cs;
    IoSamples io;
    std::string io_error;
    std::vector<OverheadSamples> ov{kOverheadSizes.size()};
};

// Passes: each runs the CPU kernel on every rank at once (as in a parallel run), then every
// class's latency, ping-pong and sendrecv ladders, so a disturbance of the machine hits one
// pass, not one size. The CPU kernel runs on at most one rank per online CPU of each host (the
// first ones in rank order), so that ranks sharing a core do not halve the speed measured.
void run_passes(int rank, const Settings& s, const Measured& m,
                const std::array<Pair, kClasses>& pairs, int ov_class, std::uint64_t ov_reps,
                Bench& bench, PassSamples& ps) {
    bool runs_cpu = false;
    for (const Host& h : m.hosts) {
        const auto at = std::find(h.ranks.begin(), h.ranks.end(), rank);
        if (at != h.ranks.end()) runs_cpu = at - h.ranks.begin() < std::max(1, h.cpus);
    }
    for (ClassSamples& c : ps.cs) {
        c.pingpong.resize(s.sizes.size());
        c.sendrecv.resize(s.sizes.size());
        c.concurrent.resize(s.sizes.size());
        c.stream.resize(s.sizes.size());
    }
    const std::vector<char> io_buffer(rank == 0 ? s.io_transfer : 0, 'c');
    for (std::uint64_t pass = 0; pass < s.passes; ++pass) {
        quiet_barrier();
        if (runs_cpu) add_pass(ps.cpu, cpu_runs(rank, s));
        for (int c = 0; c < kClasses; ++c) {
            const Pair& p = pairs[static_cast<std::size_t>(c)];
            if (!p.present) continue;
            ClassSamples& x = ps.cs[static_cast<std::size_t>(c)];
            quiet_barrier();
            add_pass(x.latency, bench.pingpong(p.a, p.b, 0, 10 * s.repeats));
            for (std::size_t i = 0; i < s.sizes.size(); ++i)
                if (s.sizes[i] > 0)
                    add_pass(x.pingpong[i],
                             bench.pingpong(p.a, p.b, s.sizes[i], s.reps(s.sizes[i])));
            for (std::size_t i = 0; i < s.sizes.size(); ++i)
                add_pass(x.sendrecv[i], bench.sendrecv(p.a, p.b, s.sizes[i], s.reps(s.sizes[i])));
            for (std::size_t i = 0; i < s.sizes.size(); ++i)
                if (s.sizes[i] > 0)
                    add_pass(x.concurrent[i],
                             bench.concurrent(p.a, p.b, s.sizes[i], s.reps(s.sizes[i])));
            for (std::size_t i = 0; i < s.sizes.size(); ++i)
                add_pass(x.stream[i], bench.stream(p.a, p.b, s.sizes[i], s.reps(s.sizes[i])));
        }
        if (ov_class >= 0) {
            const Pair& p = pairs[static_cast<std::size_t>(ov_class)];
            quiet_barrier();
            for (std::size_t i = 0; i < kOverheadSizes.size(); ++i) {
                std::vector<double> send, post, recv;
                bench.overheads(p.a, p.b, kOverheadSizes[i], ov_reps, send, post, recv);
                add_pass(ps.ov[i].send, send);
                add_pass(ps.ov[i].post, post);
                add_pass(ps.ov[i].recv, recv);
            }
        }
        quiet_barrier();
        if (rank == 0 && ps.io_error.empty()) {
            const IoPass p = io_pass(s, io_buffer);
            ps.io_error = p.error;
            if (ps.io_error.empty()) {
                add_pass(ps.io.open, {p.open});
                add_pass(ps.io.write_cached, {p.write_cached});
                add_pass(ps.io.close, {p.close});
                std::vector<double> both;
                for (std::size_t i = 0; i < p.sync_small.size(); ++i)
                    both.push_back(p.write_small[i] + p.sync_small[i]);
                add_pass(ps.io.write_small, p.write_small);
                add_pass(ps.io.sync_small, p.sync_small);
                add_pass(ps.io.synced_small, both);
                add_pass(ps.io.write_synced, {p.write_synced});
                add_pass(ps.io.synced, {p.write_synced + p.sync});
                add_pass(ps.io.sync, {p.sync});
                add_pass(ps.io.small_write, {p.small_write});
            }
        }
    }
}

// The I/O test's medians over the passes (see IoMeasured), on rank 0.
void summarize_io(Measured& m, const Settings& s, const PassSamples& ps) {
    // The median over the passes (see IoMeasured).
    const auto median_stats = [](const Samples& x) {
        Stats st = summarize(x);
        st.value = st.median_all;
        return st;
    };
    m.io.measured = true;
    m.io.error = ps.io_error;
    m.io.dir = s.io_dir;
    m.io.fs = fs_type(s.io_dir);
    m.io.size = s.io_size;
    m.io.transfer = s.io_transfer;
    m.io.open = median_stats(ps.io.open);
    m.io.write_cached = median_stats(ps.io.write_cached);
    m.io.close = median_stats(ps.io.close);
    m.io.write_small = median_stats(ps.io.write_small);
    m.io.sync_small = median_stats(ps.io.sync_small);
    m.io.synced_small = median_stats(ps.io.synced_small);
    m.io.write_synced = median_stats(ps.io.write_synced);
    m.io.synced = median_stats(ps.io.synced);
    m.io.sync = median_stats(ps.io.sync);
    m.io.small_write = median_stats(ps.io.small_write);
    m.io.dirty = dirty_limits();
}

void measure_io_world(int rank, int world, const Settings& s, const PassSamples& ps, Measured& m) {
    int ok = rank == 0 && ps.io_error.empty() ? 1 : 0;
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
            if (!w.sync_apart.empty()) m.io.sync_apart = stats(w.sync_apart);
        }
    }
}

// Communicator creation: MPI_Comm_dup (freed after each) against an 8-byte allreduce, every
// rank taking part, each call after a barrier; rank 0's medians.
void measure_comm_create(Measured& m) {
    constexpr int kCreateRuns = 31;
    std::vector<double> dup, agree, freed;
    for (int i = 0; i < kCreateRuns; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        const double t1 = MPI_Wtime();
        MPI_Comm_free(&c);
        freed.push_back(MPI_Wtime() - t1);
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
    m.comm_free = median(freed);
}

// MPI_Barrier: kBarrierRuns runs of kBarrierCalls barriers, every rank taking part, the time
// per call of each run on rank 0 (a few warm-up calls first).
void measure_barrier(Measured& m) {
    for (int i = 0; i < 8; ++i) MPI_Barrier(MPI_COMM_WORLD);
    std::vector<double> per_call;
    for (int i = 0; i < kBarrierRuns; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        for (int k = 0; k < kBarrierCalls; ++k) MPI_Barrier(MPI_COMM_WORLD);
        per_call.push_back((MPI_Wtime() - t0) / kBarrierCalls);
    }
    Samples x;
    x.all = per_call;
    m.barrier = summarize(x);
    m.barrier.value = m.barrier.median_all;
    m.barrier_measured = true;
}

// To rank 0: the CPU figures of every rank, each class's statistics, its eager threshold, the
// per-message costs.
void gather_results(int rank, int world, const Settings& s, const std::array<Pair, kClasses>& pairs,
                    int ov_class, std::uint64_t ov_reps, Bench& bench, const PassSamples& ps,
                    Measured& m) {
    m.cpu_instructions = s.cpu_steps * kInstructionsPerStep;
    {
        double mine[kStatsDoubles];
        pack(summarize(ps.cpu), mine);
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
        const ClassSamples& x = ps.cs[static_cast<std::size_t>(c)];
        r.latency = to_root(rank, r.pair.a, x.latency);
        for (std::size_t i = 0; i < s.sizes.size(); ++i) {
            SizeResult sr;
            sr.bytes = s.sizes[i];
            sr.pingpong = s.sizes[i] == 0 ? r.latency : to_root(rank, r.pair.a, x.pingpong[i]);
            sr.sendrecv = to_root(rank, r.pair.a, x.sendrecv[i]);
            if (s.sizes[i] > 0) sr.concurrent = to_root(rank, r.pair.a, x.concurrent[i]);
            sr.stream = to_root(rank, r.pair.a, x.stream[i]);
            r.sizes.push_back(sr);
        }
        r.stream_measured = true;
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
            m.overheads.push_back(OverheadResult{kOverheadSizes[i], to_root(rank, a, ps.ov[i].send),
                                                 to_root(rank, a, ps.ov[i].post),
                                                 to_root(rank, a, ps.ov[i].recv)});
        m.overhead_bursts = static_cast<int>(ov_reps);
        if (rank == 0) print_overheads(m);
    }
}

}  // namespace

int run(int rank, int world, const Options& opt) {
    const Settings s = resolve(opt);
    // The very first messages between ranks 0 and 1 (before the outputs' check, placement
    // and every other measurement): the lazy peer set-up's ping-pongs.
    const std::vector<double> setup_rtt = setup_round_trips(rank);
    if (opt.peer_setup_only) {
        if (rank == 0) print_setup_total(setup_rtt);
        return 0;
    }
    // A process's first uses (measure_first.cpp), before any other MPI-IO call.
    Measured first;
    measure_first_uses(s, rank, first);
    Outputs out;
    check_outputs(rank, opt, s, out);

    Measured m;
    m.first_use = first.first_use;
    if (rank == 0) print_first_uses(m);
    describe_machine(m, world, s, opt);
    const auto pairs = choose_pairs(m.ranks, m.hosts);
    if (rank == 0) print_placement(m, pairs);
    if (rank == 0) note_setup(m, pairs, setup_rtt);

    Bench bench(rank, s);
    PassSamples ps;
    // The per-message costs: on the pair of the class the intra-node curve comes from.
    int ov_class = -1;
    for (const int c : {kIntraSocket, kInterSocket, kInterNode})
        if (ov_class < 0 && pairs[static_cast<std::size_t>(c)].present) ov_class = c;
    const std::uint64_t ov_reps = std::max<std::uint64_t>(s.min_repeats, s.repeats / 4);
    run_passes(rank, s, m, pairs, ov_class, ov_reps, bench, ps);
    quiet_barrier();
    if (rank == 0) summarize_io(m, s, ps);
    // The collective open and close, every rank taking part (when rank 0's I/O worked).
    measure_io_world(rank, world, s, ps, m);

    // Collectives' local work, rank 0 alone while the others wait.
    quiet_barrier();
    if (rank == 0) m.local = local_rates();
    quiet_barrier();
    measure_comm_create(m);
    measure_barrier(m);
    // The real library's collective curves (measure_collectives.cpp).
    measure_coll_curves(s, rank, world, m);
    // Fresh send buffers (measure_fresh.cpp), on the pair the per-message costs come from.
    if (ov_class >= 0) {
        const Pair& p = pairs[static_cast<std::size_t>(ov_class)];
        measure_fresh_sends(s, rank, p.a, p.b, ov_class, m);
        if (rank == 0) print_fresh_sends(m);
        measure_cold_sends(s, rank, p.a, p.b, ov_class, m);
        if (rank == 0) print_cold_sends(m);
    }
    gather_results(rank, world, s, pairs, ov_class, ov_reps, bench, ps, m);
    quiet_barrier();

    if (rank == 0) finish(m, opt, out);
    return 0;
}

}  // namespace clustersim::calibrate
