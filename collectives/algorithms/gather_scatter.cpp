// Being written (issue 3).
#include "collectives/algorithms/common.hpp"
#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi::alg {

void register_gather_scatter(CollectiveRegistry&) {}

}  // namespace clustersim::mpi::alg
