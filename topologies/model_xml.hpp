// Reading a cluster model XML file into a Topology. The format is documented in
// topologies/README.md.
//
// Every problem with the input (malformed XML, an unknown element or attribute, a missing
// attribute, a bad unit, a duplicate or unknown name, an unreadable file) throws InputError
// with the file, the line of the offending element and one line saying what was expected.
#pragma once

#include <string>
#include <string_view>

#include "topologies/topology.hpp"

namespace clustersim::topo {

// Reads and parses the file; an unreadable file is InputError(path, 0, "cannot read file: ...").
Topology load_model(const std::string& path);

// Parses `xml`; `file_name` is used in error messages and as Topology::source.
Topology parse_model(std::string_view xml, const std::string& file_name);

}  // namespace clustersim::topo
