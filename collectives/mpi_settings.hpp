// The MPI library's settings from the model file (<collectives>, <mpi-overhead>) and their
// schema part: collectives/ reads its own elements (topologies/schema_part.hpp), registered
// by the run layer (run/model.cpp). Adding an attribute is one MpiCosts field (when the
// runtime uses it as read) or MpiSettings field plus its lines in mpi_settings.cpp's reader.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "simulator/time.hpp"
#include "topologies/schema_part.hpp"

namespace clustersim::mpi {

// One <algorithm> rule of the model's <collectives> element: use `algorithm` for
// `operation` when the size a rank passes is in [min_bytes, max_bytes). Names are checked
// against the collectives registry when a run starts (selection.hpp; iosys/ for the
// collective I/O operations).
struct CollectiveRule {
    std::string operation;
    std::string algorithm;
    std::uint64_t min_bytes = 0;
    std::uint64_t max_bytes = UINT64_MAX;
    std::uint64_t segment = 0;  // pipelined algorithms; 0 = the algorithm's default
    int line = 0;
};

// One per-message software cost of the MPI library (LogGP's o), charged on the rank's core
// (mpi/runtime_config.hpp says where). Either `time` + size / `bandwidth` (bandwidth
// infinite: the constant alone), or, with `points` (sizes strictly rising), the time
// interpolated linearly in size between neighbouring points, the first point's time below
// the first size and the last point's above the last. Zero (the default): no cost.
struct OverheadSpec {
    Time time;
    Bandwidth bandwidth = kInfiniteBandwidth;
    std::vector<std::pair<std::uint64_t, Time>> points;
    bool zero() const { return points.empty() && time == Time::zero() && bandwidth.infinite(); }
    // The cost for a message of `bytes`.
    Time at(std::uint64_t bytes) const;
};

// One <collective-curve> of the model's <collectives> (issue 23): the measured time of
// `operation` on a communicator of `ranks` members placed as `scope` ("intra_node",
// "inter_node"), against the size one rank passes (collectives/coll_curve.hpp).
struct CollectiveCurveSpec {
    std::string operation;
    std::uint32_t ranks = 0;
    std::string scope;
    std::vector<std::pair<std::uint64_t, Time>> points;
    int line = 0;
};

// The MPI library's costs and switches as the model gives them and the runtime uses them
// unchanged: both MpiSettings (what the model file says) and mpi::RuntimeConfig (what the
// runtime runs with, mpi/runtime_config.hpp) are one. Adding one is a field here, its lines
// in mpi_settings.cpp's reader, and its use in the runtime.
struct MpiCosts {
    // The CPU cost of combining reduced data (<collectives reduce-instructions-per-byte>).
    std::uint64_t reduce_instructions_per_byte = 1;
    // Measured rates instead (clustersim-calibrate): combining reduced data runs at
    // `reduce_bandwidth` (finite: wins over instructions per byte); a rank copying its own
    // block (gather/scatter root, allgather, alltoall) costs it / `copy_bandwidth`. Infinite
    // (the default): instructions per byte, and no copy cost. Curves win over both
    // (MpiSettings::reduce_curve, RuntimeConfig::reduce_curve).
    Bandwidth reduce_bandwidth = kInfiniteBandwidth;
    Bandwidth copy_bandwidth = kInfiniteBandwidth;
    // <collectives buffer-copies="yes">: the algorithms' own buffer copies
    // (Algorithm::buffer_copies, Open MPI 4.1's: an allreduce's send buffer into its receive
    // buffer or a temporary, recursive doubling's result back) cost their bytes at the copy
    // rate (the copy curve or copy_bandwidth) on the rank's core, before the first step and
    // after the last. Off (the default), or without a copy rate: no cost and no event.
    bool buffer_copies = false;
    // <collectives buffer-footprint="yes"> (issue 23): a rendezvous message of a collective's
    // schedule is handed to the network with the size of the receive buffer it lands in
    // (Runtime::landing_buffer), and the analytic models price it at the lower of their
    // curve's bandwidths at its size and at that buffer's (net::Transport::send_within): a
    // segment of a 100 MiB bcast moves at the 100 MiB bandwidth, as the real library's
    // segments walk through the whole user buffer, not at that of a cache-resident
    // segment-sized ping-pong. Off (the default): every message at its own size.
    bool buffer_footprint = false;
    // <mpi-overhead>: per-message software costs (LogGP's o; OverheadSpec), each run on the
    // rank's core (so jitter and other work on the core stretch it), one at a time per rank
    // in the order they arise: `send` (o_s) before a message is handed to the network (Send,
    // Isend, Sendrecv, every send of a collective's schedule); `recv` (o_r) after a message
    // has arrived and been matched, before its receive completes; `post` when a receive is
    // posted (Recv, Irecv, Sendrecv, every receive of a schedule). Zero (the default): no
    // cost and no event.
    OverheadSpec send_overhead, recv_overhead, post_overhead;
    // The gap between one rank's sends (LogGP's g; <mpi-overhead><gap>, measured by
    // clustersim-calibrate as a stream of blocking MPI_Send less o_s): a send (Send, Isend,
    // Sendrecv's send, every send of a collective's schedule) completes no earlier than
    // `send_gap` after its message was handed to the network, so back-to-back blocking
    // sends are o_s + g apart however fast the network delivers. Zero: no such floor.
    OverheadSpec send_gap;
    // Lazy connection set-up (<mpi-overhead><peer-setup after="16" time="10us"/>; Open MPI's
    // shared-memory fast box, InfiniBand endpoints): counted per directed pair of ranks over
    // every message the runtime itself hands to the network (eager messages, rendezvous
    // requests-to-send and clear-to-sends; not the data that follows a clear-to-send), the
    // peer_setup_after-th is handed over peer_setup_time later, and so is any message for
    // that peer handed over before the set-up ends (in order). A send's gap counts from the
    // deferred hand-over. 0: none, no counter and no event.
    std::uint32_t peer_setup_after = 0;
    Time peer_setup_time;
    // Connection set-up over a connection-oriented transport (<mpi-overhead><connect
    // round-trips="N"/>; MPICH2's ch3:sock: TCP's SYN and SYN-ACK, then the channel's open
    // request and open response): the first message a rank hands to the network for a peer
    // it has no connection with, in either direction (an eager message or a rendezvous
    // request-to-send), first sends connect_round_trips round trips of empty messages to
    // that peer through the network; it, and every message between the two handed over
    // before the last reply arrives, goes when that reply has arrived (in order). A send's
    // gap counts from the hand-over it would have had without the set-up. 0: none, no state.
    std::uint32_t connect_round_trips = 0;
    // Fresh send buffers (<mpi-overhead><fresh-send write-rate="…"> with a size → time curve;
    // Open MPI's single-copy transport pulls a buffer the sender has just written out of the
    // sender's cache, slower): a Send, Isend or Sendrecv's send of s bytes whose rank
    // computed at least s / fresh_write_rate (the Compute operations of its program, as they
    // ran, since its previous call that sent above the eager threshold: sends_in_bulk) costs
    // fresh_send.at(s) more. Above the eager threshold that extra delays the data after the
    // clear-to-send (the receiver's pull is slower), not the request-to-send: a rank that
    // waits in its send for a late peer pays it once the peer is there, as both ranks' pulls
    // of a two-way exchange do at once. An eager message is handed to the network that much
    // later. zero(): none, and no bookkeeping.
    OverheadSpec fresh_send;
    Bandwidth fresh_write_rate = kInfiniteBandwidth;
    // Cold fresh sends (<mpi-overhead><cold-send after="…"> with a size → time curve): a
    // fresh send whose rank computed at least cold_after since its previous bulk send (long
    // enough to have replaced its core's cache: both copies' other ends miss it) costs
    // cold_send.at(s) more (added to fresh_send's). zero(): none. Needs <fresh-send>.
    OverheadSpec cold_send;
    Time cold_after;
    // <collectives comm-create="14us">: communicator creation (comm_dup, comm_split, the
    // topology constructors) is modelled: an 8-byte allreduce over the parent communicator
    // (the new context id's agreement), then `comm_create_local` on each member's core
    // (Runtime::comm_create_step). Absent: creation only synchronises, at no cost.
    bool comm_create_modelled = false;
    Time comm_create_local;
    // <collectives comm-free="2us">: MPI_Comm_free costs this on the rank's core, and nothing
    // else: Open MPI and MPICH free a communicator without its other members (no agreement,
    // no message). Zero (absent): free and immediate.
    Time comm_free;
    // <collectives first-topology="300us">: a rank's first communicator with a topology
    // (MPI_Cart_create, MPI_Dist_graph_create*) adds this to comm_create_local (Open MPI
    // loads its topo framework then). Needs comm-create. Zero (absent): nothing.
    Time first_topology;
    // <collectives barrier="0.9us">: what the library spends in MPI_Barrier beyond the
    // messages of its algorithm (Open MPI's flag round trips in shared memory), charged on
    // each member's core after the algorithm's last step. Zero (absent): no cost and no event.
    Time barrier_cost;
};

// The model file's <collectives> and <mpi-overhead>: the costs (MpiCosts), and what the run
// turns into the runtime's form (rate curves, collective curves) or uses elsewhere (rules,
// profile: the selection; lines: messages).
struct MpiSettings : MpiCosts {
    std::vector<CollectiveRule> collectives;
    // <collectives profile="openmpi_4.1">: choose like that library (collectives/selection.hpp
    // checks the name); "" = none.
    std::string profile;
    int profile_line = 0;
    // <reduce-rate>/<copy-rate> children: the rates against the size (sizes strictly rising);
    // they win over the attributes.
    std::vector<std::pair<std::uint64_t, Bandwidth>> reduce_curve, copy_curve;
    int overhead_line = 0;  // the <mpi-overhead> element's line (0: none)
    // <collective-curve> children of <collectives>: a blocking collective that matches one
    // (operation, communicator size, placement) costs the curve's time from its last member's
    // entry instead of its algorithm's messages. <collectives curves="off"> keeps them unused
    // (`collective_curves_on` false), so a model compares algorithms with its curves in it.
    std::vector<CollectiveCurveSpec> collective_curves;
    bool collective_curves_on = true;
};

// The <collectives> and <mpi-overhead> elements' part (read with <network>), filling `out`
// (which must outlive the reader it is added to).
topo::SchemaPart mpi_part(MpiSettings& out);

// What `clustersim validate` says of the <mpi-overhead> costs: "o_s 83 ns at 8 B .. 219 ns
// at 1 KiB (3 points); o_r ...; post ... per message, on the cores; peer setup 10 us before
// a rank's message 16 to each peer" ("" for none).
std::string describe_overheads(const MpiSettings& mpi);

}  // namespace clustersim::mpi
