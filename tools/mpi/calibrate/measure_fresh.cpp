// MEASURE of fresh send buffers (issue 23; calibrate.hpp, FreshResult): ranks a and b of one
// class alternate an untouched and a just-written send buffer, size by size, pass by pass;
// rank 0 keeps the figures.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "simulator/memory.hpp"
#include "tools/mpi/calibrate/calibrate.hpp"

namespace clustersim::calibrate {

namespace {

constexpr int kTagFresh = 22, kTagFreshReady = 23, kTagFreshAck = 24;
// The core's cache a long compute replaces where the C library reports none.
constexpr std::uint64_t kDefaultCache = 2 * 1024 * 1024;

// The sender's store loop: every 8-byte word written (as an application packs a halo), the
// value changing each call so no pass finds the lines as the last left them.
void write_buffer(std::vector<double>& buf, std::uint64_t bytes, std::uint64_t k) {
    const std::size_t words = bytes / 8;
    for (std::size_t i = 0; i < words; ++i) buf[i] = static_cast<double>(i + k);
}

// The receiver's side of one timed send: it says it is ready, takes the message in MPI_Recv
// and acknowledges it.
void receive_timed(char* data, char* in, int count, int peer) {
    MPI_Send(data, 0, MPI_BYTE, peer, kTagFreshReady, MPI_COMM_WORLD);
    MPI_Recv(in, count, MPI_BYTE, peer, kTagFresh, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(data, 0, MPI_BYTE, peer, kTagFreshAck, MPI_COMM_WORLD);
}

// The sender's side: once the receiver is in MPI_Recv, the send of `count` bytes until its
// acknowledgement, in seconds.
double send_timed(char* data, char* in, int count, int peer) {
    MPI_Recv(in, 0, MPI_BYTE, peer, kTagFreshReady, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const double t0 = MPI_Wtime();
    MPI_Send(data, count, MPI_BYTE, peer, kTagFresh, MPI_COMM_WORLD);
    MPI_Recv(in, 0, MPI_BYTE, peer, kTagFreshAck, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return MPI_Wtime() - t0;
}

}  // namespace

void measure_fresh_sends(const Settings& s, int rank, int a, int b, int cls, Measured& m) {
    std::vector<std::uint64_t> sizes;
    for (const std::uint64_t bytes : s.sizes)
        if (bytes >= kFreshMin && bytes <= kFreshMax) sizes.push_back(bytes);
    if (sizes.empty()) return;
    wait_quietly();
    // Per size: untouched, fresh and write samples of every pass (rank a's).
    std::vector<Samples> untouched(sizes.size()), fresh(sizes.size()), write(sizes.size());
    if (rank == a || rank == b) {
        const std::uint64_t largest = sizes.back();
        std::vector<double> buf(largest / 8 + 1, 1.0), back(largest / 8 + 1, 0.0);
        char* const data = reinterpret_cast<char*>(buf.data());
        char* const in = reinterpret_cast<char*>(back.data());
        const int peer = rank == a ? b : a;
        std::uint64_t stamp = 0;
        for (std::uint64_t pass = 0; pass < s.passes; ++pass)
            for (std::size_t i = 0; i < sizes.size(); ++i) {
                const std::uint64_t bytes = sizes[i];
                const int count = static_cast<int>(bytes);
                const std::uint64_t reps = s.reps(bytes), warm = Settings::warmup(reps);
                std::vector<double> u, f, w;
                for (std::uint64_t k = 0; k < warm + reps; ++k)
                    for (const bool written : {false, true}) {
                        if (rank == b) {
                            receive_timed(data, in, count, peer);
                            continue;
                        }
                        double t_write = 0;
                        if (written) {
                            const double t0 = MPI_Wtime();
                            write_buffer(buf, bytes, ++stamp);
                            t_write = MPI_Wtime() - t0;
                        }
                        const double t = send_timed(data, in, count, peer);
                        if (k < warm) continue;
                        (written ? f : u).push_back(t);
                        if (written) w.push_back(t_write);
                    }
                if (rank == a) {
                    add_pass(untouched[i], u);
                    add_pass(fresh[i], f);
                    add_pass(write[i], w);
                }
            }
    }
    wait_quietly();
    std::vector<FreshResult> results;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        FreshResult r;
        r.bytes = sizes[i];
        r.untouched = stats_on_root(rank, a, untouched[i]);
        r.fresh = stats_on_root(rank, a, fresh[i]);
        r.write = stats_on_root(rank, a, write[i]);
        results.push_back(r);
    }
    if (rank != 0) return;
    m.fresh = std::move(results);
    m.fresh_class = cls;
}

// The same handshake as measure_fresh_sends, at its sizes up to the core's cache; per sample, a
// fresh send (the sender writes the buffer) alternated with a cold one (both ranks first write
// kColdEvictCaches caches' worth of another buffer, every 8-byte word: the receiver before it
// enters MPI_Recv, the sender before it writes the message's buffer).
void measure_cold_sends(const Settings& s, int rank, int a, int b, int cls, Measured& m) {
    // Up to the cache's size: a larger written buffer leaves the cache by itself.
    const std::uint64_t cache = core_cache_bytes(kDefaultCache);
    std::vector<std::uint64_t> sizes;
    for (const std::uint64_t bytes : s.sizes)
        if (bytes >= kFreshMin && bytes <= std::min(kFreshMax, cache)) sizes.push_back(bytes);
    if (sizes.empty()) return;
    const std::uint64_t evict_bytes = kColdEvictCaches * cache;
    wait_quietly();
    std::vector<Samples> fresh(sizes.size()), cold(sizes.size());
    Samples evict;
    if (rank == a || rank == b) {
        const std::uint64_t largest = sizes.back();
        std::vector<double> buf(largest / 8 + 1, 1.0), back(largest / 8 + 1, 0.0),
            other(evict_bytes / 8, 1.0);
        char* const data = reinterpret_cast<char*>(buf.data());
        char* const in = reinterpret_cast<char*>(back.data());
        const int peer = rank == a ? b : a;
        std::uint64_t stamp = 0;
        for (std::uint64_t pass = 0; pass < s.passes; ++pass) {
            std::vector<double> e;
            for (std::size_t i = 0; i < sizes.size(); ++i) {
                const std::uint64_t bytes = sizes[i];
                const int count = static_cast<int>(bytes);
                std::vector<double> f, c;
                for (std::uint64_t k = 0; k < 1 + kColdReps; ++k)
                    for (const bool evicted : {false, true}) {
                        ++stamp;
                        if (evicted) {
                            const double t0 = MPI_Wtime();
                            write_buffer(other, evict_bytes, stamp);
                            if (k > 0) e.push_back(MPI_Wtime() - t0);
                        }
                        if (rank == b) {
                            receive_timed(data, in, count, peer);
                            continue;
                        }
                        write_buffer(buf, bytes, stamp);
                        const double t = send_timed(data, in, count, peer);
                        if (k > 0) (evicted ? c : f).push_back(t);  // the first: warm-up
                    }
                if (rank == a) {
                    add_pass(fresh[i], f);
                    add_pass(cold[i], c);
                }
            }
            if (rank == a) add_pass(evict, e);
        }
    }
    wait_quietly();
    std::vector<ColdResult> results;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        ColdResult r;
        r.bytes = sizes[i];
        r.fresh = stats_on_root(rank, a, fresh[i]);
        r.cold = stats_on_root(rank, a, cold[i]);
        results.push_back(r);
    }
    const Stats evict_stats = stats_on_root(rank, a, evict);
    if (rank != 0) return;
    m.cold = std::move(results);
    m.cold_class = cls;
    m.cold_cache_bytes = cache;
    m.cold_evict = evict_stats;
}

}  // namespace clustersim::calibrate
