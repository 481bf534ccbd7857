// What the MPI layer needs from a network model: send a message between two sockets and be
// told when it has left and when it has arrived. The packet model (network.hpp) and the
// fluid model (fluid.hpp) implement it; the runtime does not know which one it drives.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "simulator/time.hpp"
#include "topologies/topology.hpp"

namespace clustersim::net {

using topo::EdgeId;
using topo::VertexId;

// Who is told about messages: the MPI layer.
class NetworkClient {
  public:
    virtual ~NetworkClient() = default;
    // The last byte of the message has arrived at its destination socket.
    virtual void message_delivered(std::uint64_t cookie) = 0;
    // The last byte has left the source socket (only if asked for at send()).
    virtual void message_injected(std::uint64_t cookie) = 0;
};

struct NetworkStats {
    std::uint64_t messages_sent = 0;
    std::uint64_t messages_delivered = 0;
    std::uint64_t bytes_sent = 0;       // payload bytes handed to send()
    std::uint64_t bytes_delivered = 0;  // payload bytes that arrived at destinations
    std::uint64_t packets = 0;          // packet model: packets; fluid model: flows
    std::uint64_t packet_hops = 0;      // packet model: link traversals; fluid: rate recomputations
    std::uint64_t messages_waited = 0;  // analytic contention models: messages that waited for
                                        // a bus or link before they could start
    Time resource_wait;                 // their total wait
};

// A busy interval of a piece of hardware (a link, a disk), for detailed timelines.
// `track` names the hardware within its kind (an edge id, a server index).
struct Activity {
    std::uint32_t track = 0;
    Time start, end;
    std::uint64_t bytes = 0;
};

// A message of `bytes` sent at `now` through a path whose narrowest rate is `bottleneck`
// bytes/s (0: no limit) cannot arrive before now + bytes / bottleneck. If that already
// passes the simulated-time horizon (Time::max(), about 106.75 days) the send is refused
// with a HorizonError naming both ends: simulating it would not end (the packet model would
// move 2^64 bytes packet by packet) and could only stop at the horizon. models/network.cpp.
void refuse_past_horizon(Time now, std::uint64_t bytes, std::uint64_t bottleneck,
                         std::string_view from, std::string_view to);

class Transport {
  public:
    virtual ~Transport() = default;
    // Sends `bytes` from socket vertex `src` to socket vertex `dst` (they may be equal: two
    // processes of one socket exchange through its memory node). `cookie` is handed back.
    virtual void send(VertexId src, VertexId dst, std::uint64_t bytes, std::uint64_t cookie,
                      bool notify_injected) = 0;
    // The same, for a message between the ranks `src_rank` and `dst_rank` (the MPI layer's
    // messages): models that price a rank sending and receiving at once (the analytic models'
    // two-way curves, models/analytic.hpp) need to know whose message it is. The default
    // ignores the ranks.
    virtual void send_between(VertexId src, VertexId dst, std::uint64_t bytes, std::uint64_t cookie,
                              bool notify_injected, std::int32_t src_rank, std::int32_t dst_rank) {
        (void)src_rank, (void)dst_rank;
        send(src, dst, bytes, cookie, notify_injected);
    }
    // The same, for a message that lands in a buffer of `buffer` bytes of which it is a
    // segment or block (a collective's receive buffer; <collectives buffer-footprint="yes">):
    // models that price by a measured size curve (the analytic models' <point-to-point>)
    // price it at the lower of the curve's bandwidths at its size and at the buffer's
    // (comm::FittedCurve::time_within). The default ignores the buffer: the graph models'
    // links have no size curve.
    virtual void send_within(VertexId src, VertexId dst, std::uint64_t bytes, std::uint64_t cookie,
                             bool notify_injected, std::int32_t src_rank, std::int32_t dst_rank,
                             std::uint64_t buffer) {
        (void)buffer;
        send_between(src, dst, bytes, cookie, notify_injected, src_rank, dst_rank);
    }
    virtual const NetworkStats& stats() const = 0;
    // Payload bytes that crossed each one-way edge, indexed by edge id.
    virtual std::vector<std::uint64_t> edge_bytes() const = 0;
    // From now on, append the busy intervals of links (track = edge id) to `out`, back-to-back
    // transmissions merged into one interval; null stops. Models that cannot tell return
    // false.
    virtual bool record_links(std::vector<Activity>* out) {
        (void)out;
        return false;
    }
    // Analytic models (models/analytic.hpp) time a collective call as a whole: true if this
    // one does, and then the MPI layer asks collective_time() when the last member of a call
    // has entered instead of running the operation's algorithm as messages.
    virtual bool times_collectives() const { return false; }
    // Time from the last member's entry to the completion of a call of `operation`
    // ("allreduce", ...) by the ranks on `sockets` (one entry per member) passing at most
    // `bytes` each, in which some member must send or receive `volume` bytes whatever the
    // algorithm (mpi::collective_volume).
    virtual Time collective_time(std::string_view operation, const std::vector<VertexId>& sockets,
                                 std::uint64_t bytes, std::uint64_t volume) {
        (void)operation, (void)sockets, (void)bytes, (void)volume;
        return Time::zero();
    }
};

}  // namespace clustersim::net
