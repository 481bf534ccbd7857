// The NIC models, by name: how a node's outgoing packets enter the network. A node's NIC
// model is chosen in the model XML (`<network nic="...">`, `<node-type nic="...">`) or by
// `clustersim generate --nic`, as `NAME[:key=value,...]` with the entry's documented
// parameters; `clustersim list nics` prints them.
//
// A NIC model is a NicBehaviour: for each packet a node's sockets inject, inject() picks one
// of the three things the packet network offers (NicPort): route the packet hop by hop
// (two events per packet per hop), reserve its whole route at once (one event per packet),
// or hand it over with a departure and an arrival time of the model's own. The network
// resolves each node's behaviour once, when it is built; a packet pays one virtual call.
//
// Adding a NIC model is one NicBehaviour class plus one registration:
//     topo::nic_models().add({"mine", "one line of help", {/* ParamInfo... */},
//                             [](const std::vector<KeyValue>& params) {
//                                 return std::make_shared<Mine>(params);
//                             }});
#pragma once

#include <cstdint>
#include <memory>

#include "simulator/configured_registry.hpp"
#include "simulator/time.hpp"
#include "topologies/topology.hpp"

namespace clustersim::topo {

// One packet as a NIC model sees it.
struct NicPacket {
    std::uint64_t bytes;
    VertexId src, dst;  // its stream's sockets
    bool last;          // the last packet of its message
};

// What the packet network (models/network.hpp) offers a NIC model, for packet `pkt`.
class NicPort {
  public:
    virtual Time now() const = 0;
    virtual NicPacket packet(std::uint32_t pkt) const = 0;
    // The packet queues at its first link and is routed hop by hop (packet NIC).
    virtual void hop_by_hop(std::uint32_t pkt) = 0;
    // The packet reserves every link and relay of its route from now on, in one go, and is
    // delivered when its last byte arrives (analytical NIC).
    virtual void reserve_route(std::uint32_t pkt) = 0;
    // The packet has left the sending node at `left` (the sender's "injected" notice) and is
    // delivered at `arrives` (>= left >= now), without touching the graph's links.
    virtual void deliver_at(std::uint32_t pkt, Time left, Time arrives) = 0;

  protected:
    ~NicPort() = default;
};

class NicBehaviour {
  public:
    virtual ~NicBehaviour() = default;
    virtual void inject(NicPort& port, std::uint32_t pkt) const = 0;
};

// A registered NIC model: name, one line, parameters, and a factory of its behaviour.
using NicModelEntry = ConfiguredEntry<std::shared_ptr<const NicBehaviour>>;

// select("NAME[:key=value,...]") gives a NicModel id: the built-ins without parameters are
// NicModel::Packet and NicModel::Analytical, any other text gets the next free id (at most
// 256). Errors read "'x' is not valid; expected packet or analytical", "'m:k=v': NIC model
// 'm' has no parameter 'k'; expected ...". made(id) is the behaviour of the configured model.
using NicModelRegistry = ConfiguredRegistry<std::shared_ptr<const NicBehaviour>, NicModel>;
NicModelRegistry& nic_models();

}  // namespace clustersim::topo
