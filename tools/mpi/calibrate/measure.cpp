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
#include "tools/mpi/calibrate/measure_parts.hpp"

namespace clustersim::calibrate {

namespace {

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
