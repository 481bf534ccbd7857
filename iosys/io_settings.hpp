// The parallel I/O settings from the model file (<io-server>, <io-forwarder>,
// <file-system>) and their schema part: iosys/ reads its own elements
// (topologies/schema_part.hpp), registered by the run layer (run/model.cpp). Adding an
// attribute is one field here plus its lines in io_settings.cpp's reader.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "simulator/time.hpp"
#include "topologies/schema_part.hpp"
#include "topologies/summary.hpp"

namespace clustersim::io {

// A component chosen by name, with its parameters as written in the XML (attribute name ->
// text). Names and parameters are checked against the registries (disk.hpp, cache.hpp) when
// a run starts (or by check_io); `line` is where the element is, for errors.
struct ComponentSpec {
    std::string model;
    std::vector<std::pair<std::string, std::string>> params;
    int line = 0;
};

// <io-server>: one file system server on a node (at most one per node).
struct IoServerSpec {
    std::int32_t node = -1;  // index into topo::Topology::nodes
    ComponentSpec cache;     // <cache model="none|write_behind|aggregation|reorder" .../>
    ComponentSpec disk;      // <disk model="simple|hdd|ssd" .../>
    int line = 0;
};

// <io-forwarder>: every rank on one of `clients` talks to the servers through `node`.
struct IoForwarderSpec {
    std::int32_t node = -1;             // index into topo::Topology::nodes
    std::vector<std::int32_t> clients;  // node indices
    int line = 0;
};

// <file-system>: how files are laid out over the servers and what metadata costs.
struct FileSystemSpec {
    bool present = false;                          // false: the model has no file system
    std::string distribution = "simple-striping";  // checked by iosys
    std::uint64_t stripe = 64 * 1024;              // bytes per chunk, > 0
    std::vector<std::int32_t> servers;  // indices into IoSettings::servers, in stripe order
    Time open = Time::zero();           // metadata cost of MPI_File_open
    Time close = Time::zero();          // of MPI_File_close
    Time sync = Time::zero();           // of MPI_File_sync, after the dirty data is on disk
    // Issue 23: the ranks' syncs of one file end one after another, this much apart, in the
    // order the ranks entered (the k-th to enter, from 0, pays sync + k sync_apart). Calibrate
    // measures it from P ranks' concurrent MPI_File_syncs of one file: the end of the last to
    // enter less the end of the first (Linux's fsyncs of one file by two processes ended
    // 0.2-0.3 ms apart in LAMMPS's dumps).
    Time sync_apart = Time::zero();
    // Issue 23: metadata that grows with the communicator (open and close of a file by P
    // ranks cost open + (P - 1) open_per_rank, close + (P - 1) close_per_rank), a close that
    // synchronizes like the open (OMPIO's), and a client cost per request to a server.
    Time open_per_rank = Time::zero();
    Time close_per_rank = Time::zero();
    bool close_collective = false;
    Time request_overhead = Time::zero();
    // Issue 23: a process's first MPI_File_open costs this much more on that rank (the MPI
    // library loads and sets up its I/O components once: Open MPI 4.1's OMPIO, 1.3-5 ms).
    Time first_open = Time::zero();
    std::uint64_t request_bytes = 256;  // size of a request or acknowledgement message
    // The PVFS2 request path (issue 23 part 4; off unless the model says so). handshake: a
    // write's data to a server waits for the server's response to the request (PVFS2's
    // sys-io state machine: request, response, flow, completion ack), except a share of at
    // most small_io bytes, which travels with the request as PVFS2's small I/O does
    // (PINT_SMALL_IO_MAXSIZE, 16 KiB). open_requests: request/response round trips the
    // communicator's first rank makes to the file's metadata server (the server of its
    // first stripe) once every rank has entered the open (ROMIO's ad_pvfs2_open: rank 0
    // looks the file up, then broadcasts the handle), before the open cost.
    // open_collectives: then ROMIO's collectives of the open run as messages of
    // request_bytes between the ranks: the broadcast of the handle from the first rank
    // (ad_pvfs2_open.c) and the allreduce of the result (ad_open.c), as a reduce to the first
    // rank and a broadcast back, each over a binomial tree (MPICH's short-message trees).
    bool open_collectives = false;
    bool handshake = false;
    std::uint64_t small_io = 0;
    std::uint32_t open_requests = 0;
    // connect_round_trips: a client connects to a server on its first message to it (PVFS2's
    // BMI over TCP: SYN / SYN-ACK, 1): that many round trips of empty messages first; 0: none.
    std::uint32_t connect_round_trips = 0;
    std::uint64_t granularity = 1024 * 1024;     // a server handles data in chunks of this size
    std::uint64_t cb_buffer = 16 * 1024 * 1024;  // two-phase collective buffer per aggregator
    std::int32_t cb_nodes = 0;  // two-phase aggregators; 0 = one per node of the communicator
    int line = 0;
};

struct IoSettings {
    std::vector<IoServerSpec> servers;  // in document order
    std::vector<IoForwarderSpec> forwarders;
    FileSystemSpec fs;
};

// The parallel I/O elements' part (read once the graph is built: they name nodes), filling
// `out` (which must outlive the reader it is added to).
topo::SchemaPart io_part(IoSettings& out);

// `clustersim validate`'s I/O lines: the servers, the striping, the forwarders.
void summarize_io(const IoSettings& io, const std::vector<topo::NodeInfo>& nodes,
                  topo::ModelSummary& summary);

}  // namespace clustersim::io
