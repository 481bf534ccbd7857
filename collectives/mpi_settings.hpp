// The MPI library's settings from the model file (<collectives>, <mpi-overhead>) and their
// schema part: collectives/ reads its own elements (topologies/schema_part.hpp), registered
// by the run layer (run/model.cpp). Adding an attribute is one MpiSettings field plus its
// lines in mpi_settings.cpp's reader.
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
// (collectives/runtime.hpp says where). Either `time` + size / `bandwidth` (bandwidth
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

struct MpiSettings {
    std::vector<CollectiveRule> collectives;
    // <collectives profile="openmpi_4.1">: choose like that library (collectives/selection.hpp
    // checks the name); "" = none.
    std::string profile;
    int profile_line = 0;
    std::uint64_t reduce_instructions_per_byte = 1;  // CPU cost of combining reduced data
    // Measured rates instead (clustersim-calibrate): combining reduced data runs at
    // `reduce_bandwidth` (wins over instructions per byte); a rank copying its own block
    // (gather/scatter root, allgather, alltoall) costs it / `copy_bandwidth`. Infinite
    // (the default): instructions per byte, and no copy cost.
    Bandwidth reduce_bandwidth = kInfiniteBandwidth;
    Bandwidth copy_bandwidth = kInfiniteBandwidth;
    // <reduce-rate>/<copy-rate> children: the rates against the size (sizes strictly rising);
    // they win over the attributes.
    std::vector<std::pair<std::uint64_t, Bandwidth>> reduce_curve, copy_curve;
    // <collectives buffer-copies="yes">: the collective algorithms' own buffer copies (Open
    // MPI 4.1's: an allreduce's send buffer into its receive buffer or a temporary,
    // recursive doubling's result back) cost their bytes at the copy rate. Off by default.
    bool buffer_copies = false;
    // <collectives buffer-footprint="yes">: a collective's rendezvous transfer is priced at
    // the lower of the point-to-point curve's bandwidths at its size and at the size of the
    // receive buffer it lands in (RuntimeConfig::buffer_footprint). Off by default.
    bool buffer_footprint = false;
    // <mpi-overhead>: per-message software costs. `send` (o_s) before a message leaves,
    // `recv` (o_r) after it has arrived and before its receive completes, `post` when a
    // receive is posted; all zero unless the model says otherwise.
    OverheadSpec send_overhead, recv_overhead, post_overhead;
    // <mpi-overhead><gap>: LogGP's g, the least time from a message leaving (after o_s) to
    // its send's completion (RuntimeConfig::send_gap); zero: none.
    OverheadSpec send_gap;
    // <mpi-overhead><peer-setup after="16" time="10us"/>: the library sets up a connection
    // to a peer lazily: the after-th message a rank hands to the network for one peer waits
    // `peer_setup_time` first (RuntimeConfig::peer_setup_after). 0: no such cost.
    std::uint32_t peer_setup_after = 0;
    Time peer_setup_time;
    // <mpi-overhead><connect round-trips="N"/>: a connection-oriented transport (MPICH2's
    // ch3:sock over TCP) connects two ranks on their first message in either direction:
    // N round trips of empty messages through the network first (RuntimeConfig::
    // connect_round_trips). 0: no such cost.
    std::uint32_t connect_round_trips = 0;
    // <mpi-overhead><fresh-send write-rate="…"> with a size → time curve: a send whose buffer
    // its rank has just written (Open MPI's single-copy pull of lines dirty in the sender's
    // cache) is handed to the network `fresh_send.at(bytes)` later (RuntimeConfig::fresh_send).
    // zero(): no such cost.
    OverheadSpec fresh_send;
    Bandwidth fresh_write_rate = kInfiniteBandwidth;
    // <mpi-overhead><cold-send after="…"> with a size → time curve: a fresh send whose rank
    // computed at least `cold_after` since its previous bulk send (long enough to have
    // replaced its core's cache: both copies' other ends miss it) costs `cold_send.at(bytes)`
    // more than a fresh one (RuntimeConfig::cold_send). zero(): no such cost. Needs
    // <fresh-send>.
    OverheadSpec cold_send;
    Time cold_after;
    int overhead_line = 0;  // the <mpi-overhead> element's line (0: none)
    // <collectives comm-create="14us">: communicator creation (comm_dup, comm_split) is
    // modelled: an allreduce of 8 bytes over the parent communicator (the new context id's
    // agreement), then this local cost on each member's core. Absent: creation only
    // synchronises, at no cost.
    bool comm_create_modelled = false;
    Time comm_create_local;
    // <collectives comm-free="2us">: MPI_Comm_free costs this on the rank's core, and nothing
    // else: Open MPI and MPICH free a communicator without its other members (no agreement,
    // no message). Zero (absent): free and immediate.
    Time comm_free;
    // <collectives first-topology="300us">: a rank's first communicator with a topology
    // (MPI_Cart_create, MPI_Dist_graph_create*) costs this more on its core (Open MPI loads
    // its topo framework then). Needs comm-create. Zero (absent): nothing.
    Time first_topology;
    // <collectives barrier="0.9us">: what the library spends in MPI_Barrier beyond the
    // messages of its algorithm (Open MPI's flag round trips in shared memory), charged on
    // each member's core after the algorithm's last step. Zero (absent): nothing.
    Time barrier_cost;
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
