// The runtime's settings (Runtime's constructor takes one): the model's MPI costs as read
// (MpiCosts, shared with MpiSettings), the protocol (eager threshold, envelope, progress)
// and the curves in the runtime's form. run/simulation.cpp fills it from the model.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/coll_curve.hpp"
#include "collectives/mpi_settings.hpp"
#include "models/comm_model.hpp"
#include "simulator/time.hpp"

namespace clustersim::mpi {

// The model's MPI costs as they are (MpiCosts, collectives/mpi_settings.hpp), and what the
// run derives for the runtime: the protocol, the rate curves fitted, the collective curves
// parsed.
struct RuntimeConfig : MpiCosts {
    std::uint64_t eager_threshold = 64 * 1024;
    // Bytes the network carries with every message's payload on top of it (eager messages
    // and rendezvous data; not the zero-byte control messages): SimGrid's SMPI adds a 16-byte
    // MPI envelope (tag, destination, communicator) to each message (--mpi simgrid).
    std::uint64_t envelope_bytes = 0;
    comm::FittedCurve reduce_curve, copy_curve;  // non-empty: win over the bandwidths
    // <network progress="in_mpi">: a rendezvous request-to-send that meets a posted receive
    // while the receiver computes (an OpKind::Compute of its program) is answered (its
    // clear-to-send sent) when the receiver's next operation that is not a Compute starts,
    // or when its program ends; false: at once.
    bool progress_in_mpi = false;
    // Measured collective curves (<collective-curve>, issue 23): a blocking collective whose
    // operation and communicator size match a rule and whose members are all placed as its
    // scope says costs the curve's time from its last member's entry; its algorithm does not
    // run (Runtime::curve_for). Empty: every collective runs its algorithm.
    std::vector<CollectiveCurveRule> collective_curves;
};

}  // namespace clustersim::mpi
