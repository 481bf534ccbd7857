// Shared helpers for parallel I/O tests: small models with servers written inline, MPI-IO
// operation builders, and a simulate() that installs the file system.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "collectives/program.hpp"
#include "iosys/file_system.hpp"
#include "run/simulation.hpp"
#include "topologies/model_xml.hpp"

namespace clustersim::testing {

// `nodes` single-socket nodes n0..n{nodes-1} on one switch; every link `link_bw` with 1 us
// latency, packets of 64 KiB. `servers` is the XML of the <io-server> elements (and
// anything else to add, e.g. <file-system>, <io-forwarder>).
inline run::Model io_model(int nodes, const std::string& link_bw, const std::string& servers,
                           const std::string& memory = "8GiB") {
    std::string xml = fmt::format(R"(<cluster name="io-test">
  <network granularity="64KiB" eager-threshold="64KiB"/>
  <node-type name="node" memory="{}">
    <socket name="s0" cores="4" speed="1G"/>
    <memory-node name="mem0"/>
    <nic name="nic"/>
    <cable from="s0" to="mem0" latency="1us" bandwidth="{}"/>
    <cable from="nic" to="mem0" latency="1us" bandwidth="{}"/>
  </node-type>
  <star nodes="{}" type="node" prefix="n" switch="sw" link-latency="1us" link-bandwidth="{}"/>
)",
                                  memory, link_bw, link_bw, nodes, link_bw);
    xml += servers + "\n</cluster>\n";
    return run::parse_model(xml, "io-test.xml");
}

inline mpi::Op file_open(std::uint32_t handle, const std::string* path, int comm = 0) {
    mpi::Op op;
    op.kind = mpi::OpKind::FileOpen;
    op.file = handle;
    op.path = path;
    op.comm = comm;
    return op;
}
inline mpi::Op file_op(mpi::OpKind kind, std::uint32_t handle = 0) {
    mpi::Op op;
    op.kind = kind;
    op.file = handle;
    return op;
}
inline mpi::Op file_at(mpi::OpKind kind, std::uint64_t offset, std::uint64_t bytes,
                       std::uint32_t handle = 0) {
    mpi::Op op = file_op(kind, handle);
    op.offset = offset;
    op.bytes = bytes;
    return op;
}
inline mpi::Op file_view(std::uint64_t disp, std::uint64_t block, std::uint64_t stride,
                         std::uint32_t handle = 0) {
    mpi::Op op = file_op(mpi::OpKind::FileSetView, handle);
    op.offset = disp;
    op.view_block = block;
    op.view_stride = stride;
    return op;
}

// Ranks 0..n-1 one per node from node `first` on (node i+first, socket 0, core 0).
inline std::vector<mpi::RankLocation> ranks_on(const topo::Topology& t, int n, int first = 0) {
    std::vector<mpi::RankLocation> out;
    for (int i = 0; i < n; ++i) {
        const auto node = static_cast<std::uint32_t>(first + i);
        out.push_back(mpi::RankLocation{node, 0, 0, t.nodes[node].sockets[0].vertex});
    }
    return out;
}
inline std::vector<mpi::RankLocation> ranks_on(const run::Model& m, int n, int first = 0) {
    return ranks_on(m.topology, n, first);
}

inline mpi::SimulationResult simulate_io(const run::Model& t,
                                         const std::vector<mpi::RankLocation>& ranks,
                                         mpi::Program& program,
                                         std::vector<std::string> algorithms = {},
                                         std::vector<io::FileDecl> files = {}) {
    mpi::SimulationOptions o;
    o.algorithm_overrides = std::move(algorithms);
    o.io = io::io_factory(t.io, std::move(files));
    return mpi::simulate(t, ranks, program, o);
}

}  // namespace clustersim::testing
