// The engine glue of the analytic communication models (comm_model.hpp): a Transport that
// asks a CommModel about every message instead of moving it through the graph.
//
// A message is offered to the model when it is sent. If the model lets it start, it takes
// its resources (one unit of each pool the plan names) for the plan's transfer time; when
// the transfer ends the resources are freed, the sender is told its last byte has left, and
// the message is delivered one latency later. A message the model does not let start waits
// in one first-come-first-served queue; whenever resources are freed the queue is offered
// again in order, and every message that can start now starts (a later message whose
// resources are free may pass an earlier one that still waits for others). Its time in the
// queue is its wait time (NetworkStats::messages_waited, resource_wait).
//
// A model without resources (simple) costs at most two engine events per message and no
// allocation: the sender's notification and the delivery carry the MPI layer's cookie.
//
// Latency and bandwidth of a pair of sockets come from the <comm-model> element when it
// gives them (inter-node; per node type within a node), otherwise from the graph: the sum
// of the latencies along the route and its bottleneck bandwidth (links, and the relay rates
// of store-and-forward vertices; a memory node's local rate between two of its neighbours),
// the same route the packet and fluid models use, so `simple` is a lower bound of both.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "models/comm_model.hpp"
#include "models/transport.hpp"
#include "simulator/engine.hpp"
#include "simulator/pool.hpp"
#include "topologies/route_service.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace clustersim::net {

// The model's parameters with the XML resolved against the topology.
struct AnalyticParams {
    bool has_latency = false, has_bandwidth = false;  // inter-node, else from the graph
    Time latency;
    Bandwidth bandwidth;
    std::uint32_t buses = 1;
    struct Node {
        std::uint32_t in_links = 1, out_links = 1;
        bool has_latency = false, has_bandwidth = false;  // within the node, else the graph
        Time latency;
        Bandwidth bandwidth;
    };
    std::vector<Node> nodes;  // by node index
    bool collectives_as_messages = false;
    // Measured transfer curves (<point-to-point>): within a node, between nodes; empty: none.
    comm::FittedCurve intra_curve, inter_curve;
};

// Resolves `spec` against `t` (node types to nodes, defaults); throws std::invalid_argument
// for a <node-type> entry that names no node type of the model.
AnalyticParams resolve_params(const topo::Topology& t, const topo::CommModelSpec& spec);

class AnalyticNetwork final : public Component, public Transport {
  public:
    AnalyticNetwork(Engine& engine, const topo::Topology& topology, topo::Router& router,
                    NetworkClient& client, std::unique_ptr<comm::CommModel> model,
                    AnalyticParams params);

    void send(VertexId src, VertexId dst, std::uint64_t bytes, std::uint64_t cookie,
              bool notify_injected) override;
    const NetworkStats& stats() const override { return stats_; }
    // No edges are crossed in these models: all zero.
    std::vector<std::uint64_t> edge_bytes() const override;
    bool times_collectives() const override { return !params_.collectives_as_messages; }
    Time collective_time(std::string_view operation, const std::vector<VertexId>& sockets,
                         std::uint64_t bytes, std::uint64_t volume) override;

    // The latency and bandwidth of the pair (for tests and reports).
    comm::PairCost pair_cost(VertexId src, VertexId dst);
    // The measured transfer curve for a message between these nodes, or null.
    const comm::FittedCurve* curve_of(std::int32_t src_node, std::int32_t dst_node) const;
    const comm::CommModel& model() const { return *model_; }
    std::size_t queued() const { return queue_.size(); }

    void handle(Engine& engine, const Event& event) override;
    std::string name() const override { return "analytic network"; }

  private:
    enum Kind : std::uint32_t { kTransferred = 0, kInjected = 1, kDeliver = 2 };
    struct Flight {
        std::uint64_t cookie;
        comm::Message msg;
        comm::Plan plan;
        Time sent;
        bool notify_injected;
    };
    comm::PairCost path_cost(VertexId src, VertexId dst) const;
    void start(std::uint32_t flight, const comm::Plan& plan);
    void offer_queue();

    Engine& engine_;
    const topo::Topology& topo_;
    topo::RouteService routes_;
    NetworkClient& client_;
    std::unique_ptr<comm::CommModel> model_;
    AnalyticParams params_;
    ComponentId id_;
    NetworkStats stats_;
    comm::Resources resources_;
    Pool<Flight> flights_;
    std::vector<std::uint32_t> queue_;  // waiting flights, in the order they were sent
    std::unordered_map<std::uint64_t, comm::PairCost> costs_;  // (src, dst) sockets
    // The last destination each source socket sent to, and that pair's cost: most traces
    // send to a few neighbours over and over, so this spares the hash lookup.
    struct LastPair {
        VertexId dst = topo::kNoVertex;
        comm::PairCost cost;
    };
    std::vector<LastPair> last_;      // by source vertex
    std::vector<std::int32_t> node_;  // node index of each vertex (-1: none), kept flat
    bool uniform_ = false;            // every cost is given by the XML: no graph lookups
};

}  // namespace clustersim::net
