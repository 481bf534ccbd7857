// Converting other simulators' cluster descriptions into clustersim model XML
// (`clustersim import piosimhd|simgrid FILE > model.xml`).
#pragma once

#include <string>
#include <vector>

namespace clustersim::traces {

struct ImportResult {
    std::string xml;                    // a complete clustersim model document
    std::vector<std::string> unmapped;  // one line per thing that could not be mapped (with line)
    // `--placement map:FILE` content reproducing the source's process placement (PIOsimHD
    // ClientProcess elements), empty if the source has none.
    std::string placement_map;
};

// PIOsimHD's model XML (Project/Templates/ComponentList...: nodes, CPUs, NICs, switches,
// connections, servers with cache layers and disks).
ImportResult import_piosimhd(const std::string& path);
// A SimGrid platform (hosts, links, routes, <cluster> incl. fat-tree, torus, dragonfly).
ImportResult import_simgrid(const std::string& path);

}  // namespace clustersim::traces
