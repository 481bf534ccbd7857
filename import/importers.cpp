// The platform importers' registry (import/import.hpp) and its two built-ins.
#include "import/import.hpp"

namespace clustersim::traces {
namespace {

void register_builtin_importers(ImporterRegistry& r) {
    r.add(ImporterEntry{
        "piosimhd",
        "a PIOsimHD model XML: nodes, CPUs, NICs, switches, connections, servers with cache "
        "layers and disks",
        {{"file-system", "choice", "", "none",
          "--file-system pvfs2: the servers run PVFS2: its request handshake, small I/O and "
          "the open's metadata lookup"},
         {"mpi-channel", "choice", "", "none",
          "--mpi-channel sock: the ranks ran MPICH2's ch3:sock (TCP): each pair connects on "
          "its first message, 2 round trips"}},
        [](const std::string& path, const ImportOptions& o) {
            return import_piosimhd(path, PiosimhdOptions{.pvfs2 = o.file_system == "pvfs2",
                                                         .mpi_sock = o.mpi_channel == "sock"});
        }});
    r.add(ImporterEntry{
        "simgrid",
        "a SimGrid platform XML: hosts, links, routes, zones, <cluster> incl. "
        "fat-tree, torus, dragonfly",
        {},
        [](const std::string& path, const ImportOptions&) { return import_simgrid(path); }});
}

}  // namespace

ImporterRegistry& importers() {
    static ImporterRegistry registry("importer");
    static const bool filled = (register_builtin_importers(registry), true);
    (void)filled;
    return registry;
}

}  // namespace clustersim::traces
