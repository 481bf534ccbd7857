// The seam between the MPI runtime and a parallel file system (iosys/ implements it).
//
// The runtime hands every MPI-IO operation of a rank to the IoService and blocks the rank
// until the service calls IoHost::io_done. The service moves its own requests and data
// through the same network as MPI messages (its cookies carry kIoCookie), so file traffic
// and communication share links. This folder knows nothing of servers, caches or disks.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collectives/mpi_settings.hpp"
#include "collectives/placement.hpp"
#include "collectives/program.hpp"
#include "models/transport.hpp"
#include "simulator/engine.hpp"
#include "topologies/topology.hpp"

namespace clustersim::mpi {

// Network cookies of the I/O system have this bit set; the runtime's never do.
inline constexpr std::uint64_t kIoCookie = 1ULL << 62;

// What the runtime offers the I/O system.
class IoHost {
  public:
    virtual ~IoHost() = default;
    // The rank's current MPI-IO operation has finished, having moved `bytes` of file data
    // (written or read; a short read moves fewer than asked).
    virtual void io_done(std::int32_t rank, std::uint64_t bytes) = 0;
    // Every rank of a collective MPI-IO call's communicator has entered it: `rank`, still in
    // that call, waited for the last one until now (the call's `wait` in timelines, as
    // for every other collective). Not called for a rank that went ahead on its own.
    virtual void io_all_arrived(std::int32_t rank) { (void)rank; }
};

// One server's share of a run, for --json and the summary.
struct IoServerReport {
    std::string node;
    std::string cache, disk;          // model names
    std::uint64_t bytes_written = 0;  // client data received for writes
    std::uint64_t bytes_read = 0;     // data returned to clients
    std::uint64_t disk_requests = 0;
    std::uint64_t disk_bytes_written = 0, disk_bytes_read = 0;
    std::uint64_t track_seeks = 0, average_seeks = 0;
    Time disk_busy;
    std::uint64_t cache_hits = 0, cache_hit_bytes = 0, cache_misses = 0;
    std::uint64_t merged = 0, write_stalls = 0, peak_memory = 0;
    std::uint64_t readahead_waits = 0;  // read chunks that waited for a read-ahead in flight
    // Written data still in the server's cache when the last rank finished its program, which
    // its disk wrote after that (write-behind), and when the disk finished it.
    std::uint64_t drained_bytes = 0;
    Time drain_end;
};

struct IoReport {
    std::vector<IoServerReport> servers;
    std::uint64_t bytes_written = 0;  // by all ranks
    std::uint64_t bytes_read = 0;
    Time first_start = Time::max();  // first data operation started
    Time last_end = Time::zero();    // last data operation finished
    std::uint64_t files = 0;
};

class IoService : public net::NetworkClient {
  public:
    // Starts `rank`'s MPI-IO operation `op` (is_file_op(op.kind)). For FileOpen, `members`
    // are the world ranks of the communicator it is opened on, in communicator order.
    // Completes later (never inside this call) through IoHost::io_done.
    virtual void start(std::int32_t rank, const Op& op,
                       const std::vector<std::int32_t>* members) = 0;
    // What the rank waits for, for deadlock reports ("" if nothing to add).
    virtual std::string describe(std::int32_t rank) const = 0;
    virtual IoReport report() const = 0;
    // Every rank has finished its program (the run's simulated time): what the servers write
    // to disk from now on is reported as drained after the run (IoServerReport).
    virtual void programs_done() {}
    // From now on, append every disk request's service interval to `out` (track = server
    // index, in report() order); null stops.
    virtual void record_disks(std::vector<net::Activity>* out) = 0;
};

struct IoContext {
    Engine& engine;
    net::Transport& network;
    const topo::Topology& topology;
    const MpiSettings& mpi;  // the model's <collectives> (its collective I/O rules)
    const std::vector<RankLocation>& ranks;
    IoHost& host;
    const std::vector<std::string>& algorithm_overrides;  // --algorithm, for collective I/O
};

// Builds the I/O system of a run (null: the model has no file system).
using IoFactory = std::function<std::unique_ptr<IoService>(const IoContext&)>;

// MPI-IO collective operation names usable in <algorithm operation="..."> and --algorithm.
inline bool is_io_collective_name(const std::string& op) {
    return op == "write_at_all" || op == "read_at_all" || op == "write_all" || op == "read_all";
}

}  // namespace clustersim::mpi
