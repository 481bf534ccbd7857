// Shared fixture for the topology tests: a single-socket node type with a NIC.
#pragma once

#include <cstddef>

namespace clustersim::topo::testing {

// 3 vertices (socket, memory node, NIC) and 2 cables (4 one-way edges) per node.
constexpr const char* kType = R"(<node-type name="t" memory="1GiB">
    <socket name="s0" cores="2" speed="1G"/>
    <memory-node name="mem0"/>
    <nic name="nic"/>
    <cable from="s0" to="mem0" latency="100ns" bandwidth="10GB/s"/>
    <cable from="nic" to="mem0" latency="100ns" bandwidth="10GB/s"/>
  </node-type>)";
constexpr std::size_t kNodeVertices = 3, kNodeEdges = 4;

}  // namespace clustersim::topo::testing
