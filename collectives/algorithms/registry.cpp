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

AlgorithmRegistry& collective_algorithms() {
    static AlgorithmRegistry registry("collective algorithm");
    static const bool filled = [] {
        CollectiveRegistry builtins;
        register_builtin_collectives(builtins);
        for (const AlgorithmInfo& a : builtins.all()) registry.add(a);
        return true;
    }();
    (void)filled;
    return registry;
}

CollectiveRegistry registered_collectives() {
    CollectiveRegistry out;
    for (AlgorithmInfo& a : collective_algorithms().entries()) out.add(std::move(a));
    return out;
}

}  // namespace clustersim::mpi
