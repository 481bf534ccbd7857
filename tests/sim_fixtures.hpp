// Shared helpers for tests that run whole simulations on small models written inline.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "collectives/program.hpp"
#include "run/model.hpp"
#include "run/simulation.hpp"
#include "simulator/error.hpp"
#include "topologies/model_xml.hpp"

namespace clustersim::testing {

// Bad input, each (input, wanted) of `bad`: `load(input)` throws an InputError of one line
// that names `where` (the file, or file:line) and contains `wanted`.
inline void expect_input_errors(const std::vector<std::pair<std::string, std::string>>& bad,
                                const std::string& where,
                                const std::function<void(const std::string&)>& load) {
    for (const auto& [input, wanted] : bad) {
        try {
            load(input);
            ADD_FAILURE() << "accepted: " << input;
        } catch (const InputError& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(where), std::string::npos) << msg;
            EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
            EXPECT_NE(msg.find(wanted), std::string::npos) << msg << "\n  wanted: " << wanted;
        }
    }
}

// A program given as one list of operations per rank.
class ScriptProgram final : public mpi::Program {
  public:
    explicit ScriptProgram(std::vector<std::vector<mpi::Op>> script)
        : script_(std::move(script)), pos_(script_.size(), 0) {}
    bool next(std::int32_t rank, mpi::Op& op) override {
        auto r = static_cast<std::size_t>(rank);
        if (r >= script_.size() || pos_[r] == script_[r].size()) return false;
        op = script_[r][pos_[r]++];
        return true;
    }

  private:
    std::vector<std::vector<mpi::Op>> script_;
    std::vector<std::size_t> pos_;
};

inline mpi::Op send(int peer, std::uint64_t bytes, int tag = 0) {
    mpi::Op op;
    op.kind = mpi::OpKind::Send;
    op.peer = peer;
    op.bytes = bytes;
    op.tag = tag;
    return op;
}
inline mpi::Op recv(int peer, std::uint64_t bytes, int tag = 0) {
    mpi::Op op;
    op.kind = mpi::OpKind::Recv;
    op.peer = peer;
    op.bytes = bytes;
    op.tag = tag;
    return op;
}

// k round trips of `bytes` between ranks 0 and 1: rank 0 sends then receives, rank 1
// receives then sends back.
inline std::vector<std::vector<mpi::Op>> pingpong_script(int k, std::uint64_t bytes) {
    std::vector<mpi::Op> a, b;
    for (int i = 0; i < k; ++i) {
        a.push_back(send(1, bytes));
        a.push_back(recv(1, bytes));
        b.push_back(recv(0, bytes));
        b.push_back(send(0, bytes));
    }
    return {a, b};
}

// A one-node model whose <comm-model model="simple"> holds `inner` (a test of that element's
// children).
inline std::string comm_model_xml(const std::string& inner) {
    return R"(<cluster name="x">
  <node-type name="n" memory="1GiB"><socket name="s0" cores="2" speed="1G"/></node-type>
  <node name="n0" type="n"/>
  <comm-model model="simple" intra-latency="1us" intra-bandwidth="1GB/s">
    )" + inner +
           R"(
  </comm-model>
</cluster>
)";
}
// The network models a per-message overhead test runs in: the graph models and two analytic
// ones (contention with its collectives as messages).
inline const std::vector<std::string> kOverheadModels = {"packet", "cut_through", "fluid", "simple",
                                                         "contention:collectives=messages"};

// Two nodes n0, n1 on a switch: 1 GB/s, 1 us links, whole messages, eager up to 64 KiB,
// two cores of 1 G instructions/s per node (an instruction is 1 ns); `inner` goes into the
// cluster (an <mpi-overhead> element, or "" for none). The per-message overhead tests' model.
inline run::Model two_nodes_on_a_switch(const std::string& name, const std::string& inner) {
    const std::string xml = fmt::format(R"(<cluster name="{}">
  <network granularity="message" eager-threshold="64KiB"/>
  <node-type name="n" memory="1GiB"><socket name="s0" cores="2" speed="1G"/></node-type>
  <nodes prefix="n" count="2" type="n"/>
  <switch name="sw"/>
{}
  <cable from="n0.s0" to="sw" latency="1us" bandwidth="1GB/s"/>
  <cable from="n1.s0" to="sw" latency="1us" bandwidth="1GB/s"/>
</cluster>
)",
                                        name, inner);
    return run::parse_model(xml, name + ".xml");
}

inline mpi::Op isend(int peer, std::uint64_t bytes, std::uint32_t handle, int tag = 0) {
    mpi::Op op = send(peer, bytes, tag);
    op.kind = mpi::OpKind::Isend;
    op.handle = handle;
    return op;
}
inline mpi::Op irecv(int peer, std::uint64_t bytes, std::uint32_t handle, int tag = 0) {
    mpi::Op op = recv(peer, bytes, tag);
    op.kind = mpi::OpKind::Irecv;
    op.handle = handle;
    return op;
}
inline mpi::Op wait(std::uint32_t handle) {
    mpi::Op op;
    op.kind = mpi::OpKind::Wait;
    op.handle = handle;
    return op;
}
inline mpi::Op waitall(std::uint32_t first, std::uint32_t count) {
    mpi::Op op;
    op.kind = mpi::OpKind::Waitall;
    op.handle = first;
    op.count = count;
    return op;
}
inline mpi::Op cancel(std::uint32_t handle) {
    mpi::Op op;
    op.kind = mpi::OpKind::Cancel;
    op.handle = handle;
    return op;
}
inline mpi::Op compute(std::uint64_t instructions) {
    mpi::Op op;
    op.kind = mpi::OpKind::Compute;
    op.instructions = instructions;
    return op;
}
inline mpi::Op sendrecv(int dst, std::uint64_t bytes, int src, std::uint64_t rbytes, int tag = 0) {
    mpi::Op op;
    op.kind = mpi::OpKind::Sendrecv;
    op.peer = dst;
    op.bytes = bytes;
    op.tag = tag;
    op.peer2 = src;
    op.bytes2 = rbytes;
    op.tag2 = tag;
    return op;
}

// Places rank i on node i, socket 0, core 0 (or all on node 0 if `one_node`).
inline std::vector<mpi::RankLocation> one_rank_per_node(const topo::Topology& t,
                                                        std::size_t ranks) {
    std::vector<mpi::RankLocation> out;
    for (std::size_t r = 0; r < ranks; ++r) {
        const auto n = static_cast<std::uint32_t>(r % t.nodes.size());
        out.push_back(mpi::RankLocation{n, 0, 0, t.nodes[n].sockets[0].vertex});
    }
    return out;
}
inline std::vector<mpi::RankLocation> one_rank_per_node(const run::Model& m, std::size_t ranks) {
    return one_rank_per_node(m.topology, ranks);
}

}  // namespace clustersim::testing
