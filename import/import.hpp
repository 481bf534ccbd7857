// Converting other simulators' cluster descriptions into clustersim model XML
// (`clustersim import piosimhd|simgrid FILE > model.xml`).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "simulator/params.hpp"
#include "simulator/registry.hpp"

namespace clustersim::traces {

struct ImportResult {
    std::string xml;                    // a complete clustersim model document
    std::vector<std::string> unmapped;  // one line per thing that could not be mapped (with line)
    // `--placement map:FILE` content reproducing the source's process placement (PIOsimHD
    // ClientProcess elements), empty if the source has none.
    std::string placement_map;
};

// What the import adds that a PIOsimHD model does not say.
struct PiosimhdOptions {
    // The servers run PVFS2 (`--file-system pvfs2`): the <file-system> gets PVFS2's request
    // path with its documented defaults (traces/README.md): handshake="yes" (sys-io: request,
    // response, flow, completion ack), small-io="16KiB" (PINT_SMALL_IO_MAXSIZE),
    // open-requests="1" (ROMIO's ad_pvfs2_open: rank 0's PVFS_sys_lookup) and
    // open-collectives="yes" (ROMIO's MPI_Bcast of the handle in ad_pvfs2_open.c and
    // MPI_Allreduce of the result in ad_open.c) and connect-round-trips="1" (BMI's tcp method
    // connects a client to a server on its first message: SYN, SYN-ACK). PIOsimHD models
    // none of it (paper, 3.3: "Metadata operations are not considered").
    bool pvfs2 = false;
    // The MPI library ran MPICH2's ch3:sock channel (`--mpi-channel sock`; MPICH2 1.0.x's
    // default, the library of PIOsimHD's and HDTrace's recordings): ranks talk over TCP
    // sockets, each pair connected on its first message by TCP's SYN / SYN-ACK and the
    // channel's open request / open response (ch3u_connect_sock.c). The model gets
    // <mpi-overhead><connect round-trips="2"/>. PIOsimHD models no connection set-up.
    bool mpi_sock = false;
};

// PIOsimHD's model XML (Project/Templates/ComponentList...: nodes, CPUs, NICs, switches,
// connections, servers with cache layers and disks).
ImportResult import_piosimhd(const std::string& path, const PiosimhdOptions& options = {});
// A SimGrid platform (hosts, links, routes, <cluster> incl. fat-tree, torus, dragonfly).
// The most hosts an import takes (all <cluster>s together): every host name is kept to keep
// names unique, so 2^24 hosts took more than a gigabyte and minutes (docs/limits.md).
inline constexpr std::uint64_t kMaxImportHosts = 1u << 20;
// `max_hosts` lowers that limit (the fuzz harness: a cluster of 2^20 hosts takes 1.7 s, but
// minutes under the sanitizers, and the limit's check is the same at any value).
ImportResult import_simgrid(const std::string& path, std::uint64_t max_hosts = kMaxImportHosts);

// The flags of `clustersim import` that only some importers read (piosimhd's).
struct ImportOptions {
    std::string file_system;  // --file-system ("" or "pvfs2")
    std::string mpi_channel;  // --mpi-channel ("" or "sock")
};

// One platform importer: `clustersim import NAME FILE`. `params` documents the flags it
// reads (ImportOptions) as ParamInfo; `import` reads FILE (InputError with file and line).
struct ImporterEntry {
    std::string name;  // "simgrid"
    std::string doc;   // one line
    std::vector<ParamInfo> params;
    std::function<ImportResult(const std::string& path, const ImportOptions& options)> import;
};

using ImporterRegistry = NamedRegistry<ImporterEntry>;

// Every importer: piosimhd and simgrid on first use, then whatever any translation unit adds:
// `traces::importers().add(traces::ImporterEntry{...})`; `import KIND`, its --help, its error
// for an unknown kind, `list importers` and the completion read it.
ImporterRegistry& importers();

}  // namespace clustersim::traces
