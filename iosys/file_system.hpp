// The parallel file system of a run: servers (a cache layer and a disk each) on nodes,
// files striped over them, clients (ranks) that send requests and data through the same
// network as MPI messages, optional I/O forwarders, and MPI-IO semantics on top: file
// handles, views, individual file pointers, collective operations (independent or
// two-phase), metadata costs, sync.
//
// Protocol (PIOsimHD 3.3, PVFS-like):
//   write  client -> server: a request message, then the data in chunks of the file
//          system's granularity; each chunk goes to the server's cache layer when it has
//          arrived; when all of a request's chunks are safe the server acknowledges; the
//          write finishes with the last acknowledgement and only then grows the file.
//   read   client -> server: a request; the server hands its chunks to the cache layer and
//          sends each one's data back when it is ready; the read finishes with the last
//          byte. Bytes past the end of the file are not read (a short read).
//   forwarder: every message between a client on one of its client nodes and a server
//          is received whole by the forwarder node and sent on from there.
//   two-phase collective I/O (ROMIO's algorithm): once every rank of the file's
//          communicator has called, the accessed range is split into one contiguous file
//          domain per aggregator (one rank per node, or cb-nodes); each aggregator walks
//          its domain in cb-buffer cycles: ranks send it their data for the cycle, it
//          writes the cycle's data as one independent request (reads: reads, then sends
//          each rank its part). The call finishes for all ranks when every aggregator is
//          done.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectives/io_service.hpp"
#include "collectives/mpi_settings.hpp"
#include "iosys/io_settings.hpp"

namespace clustersim::io {

// A file that exists before the run (e.g. from a trace's project file).
struct FileDecl {
    std::string name;
    std::uint64_t size = 0;
    std::uint64_t stripe = 0;  // 0: the file system's default
};

// The factory for SimulationOptions::io: builds the file system of the model, or returns
// null if the model has none. Throws InputError (model file and line) for an unknown cache
// layer, disk model, distribution, bad parameter, or collective I/O algorithm.
// `io` is the model's I/O settings (run::Model::io), copied into the factory.
mpi::IoFactory io_factory(IoSettings io, std::vector<FileDecl> files = {});

// Checks what the model XML reader leaves to this folder: cache layer and disk model names
// and parameters, the distribution, collective I/O algorithm rules. Throws InputError
// (model file and line). Nothing to check if the model has no file system.
void check_io(const topo::Topology& topology, const IoSettings& io, const mpi::MpiSettings& mpi);

// Collective I/O algorithm names, for errors and docs.
inline const char* collective_io_names() {
    return "independent, two_phase";
}

}  // namespace clustersim::io
