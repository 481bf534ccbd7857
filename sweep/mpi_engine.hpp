// The MPI engine (built with CLUSTERSIM_MPI=ON, linked only into clustersim-sweep-mpi):
// rank 0 prepares the sweep and hands out points one at a time, longest first, to every rank
// (itself included) as they free a slot; each rank runs its points as child processes and
// sends the outcome back; rank 0 writes the journal and the results.
#pragma once

#include "sweep/sweep_engine.hpp"

namespace clustersim::sweep {

// MPI_Init .. MPI_Finalize around the whole sweep; returns the exit code (on every rank:
// rank 0's results code, 0 on the others).
int run_mpi(const SweepOptions& o);

}  // namespace clustersim::sweep
