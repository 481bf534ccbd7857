#include "collectives/algorithms/registry.hpp"

namespace clustersim::mpi {

void register_builtin_collectives(CollectiveRegistry& r) {
    alg::register_barrier(r);
    alg::register_bcast(r);
    alg::register_reduce(r);
    alg::register_allreduce(r);
    alg::register_gather_scatter(r);
    alg::register_allgather(r);
    alg::register_alltoall(r);
    alg::register_reduce_scatter(r);
    alg::register_scan(r);
    alg::register_neighbor(r);
}

}  // namespace clustersim::mpi
