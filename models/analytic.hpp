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
// Two-way transfers (issue 23): a rank that sends and receives at the same time (a
// Sendrecv, a halo exchange) does both copies, and each direction moves slower than a
// one-way message. With a two-way curve (<point-to-point direction="both">, measured by
// clustersim-calibrate as MPI_Sendrecv) a message from rank a to rank b transfers at the
// two-way time T2(s) = max(T1(s), s / B2(s)) while a is receiving or b is sending another
// message, and at its one-way time T1(s) otherwise: its progress is kept as the fraction
// transferred, and when a rank starts or stops sending or receiving, the messages of that
// rank change rate and their end is computed again. So two messages that cross, starting
// together, both take exactly T2(s). Without a two-way curve nothing of this runs.
//
// Concurrent transfers (issue 23): Open MPI's shared-memory transport (vader, single copy by
// CMA) moves a large message by the RECEIVER's process_vm_readv, so the messages in transfer
// to one rank share that rank's copy bandwidth, whichever rank sent them, while a rank's
// incoming and outgoing copies run on two cores. With a concurrency curve
// (<point-to-point direction="concurrent">, measured by clustersim-calibrate as two MPI_Isend
// of s bytes at once) a message of s bytes to a rank that has n >= 2 messages in transfer
// transfers in at least n s / Bc(s) (processor sharing: each of the n progresses at that
// rate until n changes), else as above. So k messages of s bytes to one rank, starting
// together, all take max(T(s), k s / Bc(s)); one message alone is unchanged. Without the
// curve nothing of this runs.
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
#include "models/comm_spec.hpp"
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
    // Two-way curves (<point-to-point direction="both">): empty: none.
    comm::FittedCurve intra_two_way, inter_two_way;
    // Concurrency curves (<point-to-point direction="concurrent">): empty: none.
    comm::FittedCurve intra_concurrent, inter_concurrent;
};

// Resolves `spec` against `t` (node types to nodes, defaults); throws std::invalid_argument
// for a <node-type> entry that names no node type of the model.
AnalyticParams resolve_params(const topo::Topology& t, const comm::CommModelSpec& spec);

class AnalyticNetwork final : public Component, public Transport {
  public:
    AnalyticNetwork(Engine& engine, const topo::Topology& topology, topo::Router& router,
                    NetworkClient& client, std::unique_ptr<comm::CommModel> model,
                    AnalyticParams params);

    void send(VertexId src, VertexId dst, std::uint64_t bytes, std::uint64_t cookie,
              bool notify_injected) override;
    // With a two-way curve: a message of `src_rank` to `dst_rank` transfers at the two-way
    // curve while its sender is receiving or its receiver is sending another message (see
    // the top of this file); otherwise as send().
    void send_between(VertexId src, VertexId dst, std::uint64_t bytes, std::uint64_t cookie,
                      bool notify_injected, std::int32_t src_rank, std::int32_t dst_rank) override;
    // With a measured curve: priced at the lower of its bandwidths at `bytes` and at `buffer`
    // (the two-way and concurrency curves too); otherwise as send_between().
    void send_within(VertexId src, VertexId dst, std::uint64_t bytes, std::uint64_t cookie,
                     bool notify_injected, std::int32_t src_rank, std::int32_t dst_rank,
                     std::uint64_t buffer) override;
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
    // The two-way curve for a message between these nodes, or null.
    const comm::FittedCurve* two_way_of(std::int32_t src_node, std::int32_t dst_node) const;
    // The concurrency curve for a message between these nodes, or null.
    const comm::FittedCurve* concurrent_of(std::int32_t src_node, std::int32_t dst_node) const;
    const comm::CommModel& model() const { return *model_; }
    std::size_t queued() const { return queue_.size() - queue_head_ - queue_holes_; }

    void handle(Engine& engine, const Event& event) override;
    std::string name() const override { return "analytic network"; }

  private:
    enum Kind : std::uint32_t { kTransferred = 0, kInjected = 1, kDeliver = 2 };
    struct Flight {
        std::uint64_t cookie = 0;
        comm::Message msg;
        comm::Plan plan;
        Time sent;
        bool notify_injected = false;
        // Two-way and concurrent pricing (only when `ranked`): the ranks, the one-way and
        // two-way transfer times, the time of s / Bc(s) (zero: no concurrency curve), the
        // fraction transferred by `since`, the current transfer time (`period`, the whole
        // message at the current rate) and the version of the pending kTransferred event
        // (older ones are stale).
        bool ranked = false, two_way = false;
        std::int32_t src_rank = -1, dst_rank = -1;
        Time one, two, shared, since, period;
        double done = 0;
        std::uint32_t version = 0;
    };
    comm::PairCost path_cost(VertexId src, VertexId dst) const;
    // The route's cost built from per-vertex halves when the router's paths are tree halves
    // and the two endpoints meet at an anchor (topologies/routing.hpp, tree_link): the same
    // latency and narrowest rate as path_cost(), with no route built and nothing kept per pair.
    // False when the route is not of that shape (two vertices under one child of their anchor,
    // a core endpoint, a routed fabric, no route): then path_cost() and the pair cache decide.
    bool tree_cost(VertexId src, VertexId dst, comm::PairCost& out);
    struct TreeHalf {
        Time up_latency, down_latency;      // from the vertex up to its anchor, and back down
        std::uint64_t up_narrowest = 0;     // bytes/s, 0 = no finite rate on the way up
        std::uint64_t down_narrowest = 0;   // the same on the way down
        VertexId anchor = topo::kNoVertex;  // kNoVertex: not computed yet
        VertexId top = topo::kNoVertex;     // the anchor's child on the vertex's chain
        bool usable = false;                // a tree vertex with edges both ways to its anchor
    };
    const TreeHalf& half(VertexId v);
    comm::Message message(VertexId src, VertexId dst, std::uint64_t bytes);
    void start(std::uint32_t flight, const comm::Plan& plan);
    void offer_queue();
    // Two-way pricing.
    bool wants_two_way(const Flight& f) const;
    Time period_of(const Flight& f) const;  // the whole transfer at the current rate
    void retime(std::uint32_t flight);      // progress to now, the current rate, a new end event
    // Rates may have changed (`skip`: a flight not started yet).
    void reconsider(std::vector<std::uint32_t>& flights, std::uint32_t skip = kGone);
    void track(std::uint32_t flight);
    void untrack(std::uint32_t flight);

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
    // Waiting flights, in the order they were sent, from queue_head_ on; a flight that has
    // started leaves kGone until the queue is squeezed (offer_queue).
    static constexpr std::uint32_t kGone = ~std::uint32_t{0};
    std::vector<std::uint32_t> queue_;
    std::size_t queue_head_ = 0, queue_holes_ = 0;  // consumed front; kGone entries past it
    std::unordered_map<std::uint64_t, comm::PairCost> costs_;  // (src, dst) sockets
    // Tree halves (tree_cost): per vertex, filled on first use; the cost between two anchors
    // (their core path and both anchors' relays) by anchor pair.
    const topo::Router& router_;
    static constexpr VertexId kHalfPage = 4096;  // vertices per page of halves_
    std::vector<std::unique_ptr<TreeHalf[]>> halves_;
    std::unordered_map<std::uint64_t, comm::PairCost> anchor_costs_;
    std::vector<EdgeId> core_path_;  // scratch for an anchor pair's path
    // The last destination each source socket sent to, and that pair's cost: most traces
    // send to a few neighbours over and over, so this spares the hash lookup.
    struct LastPair {
        VertexId dst = topo::kNoVertex;
        comm::PairCost cost;
    };
    std::vector<LastPair> last_;      // by source vertex
    std::vector<std::int32_t> node_;  // node index of each vertex (-1: none), kept flat
    bool uniform_ = false;            // every cost is given by the XML: no graph lookups
    // Two-way pricing, by rank: messages in transfer from it and to it.
    bool two_way_ = false;     // a two-way curve is given
    bool concurrent_ = false;  // a concurrency curve is given
    std::vector<std::vector<std::uint32_t>> sending_, receiving_;
    std::uint32_t version_ = 0;  // of the last kTransferred event of a two-way flight
};

}  // namespace clustersim::net
