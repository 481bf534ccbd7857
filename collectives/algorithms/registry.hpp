// One registration function per algorithm file, called by register_builtin_collectives.
#pragma once

#include <cstdint>
#include <memory>

#include "collectives/collective.hpp"

namespace clustersim::mpi::alg {

void register_barrier(CollectiveRegistry& r);         // barrier.cpp
void register_bcast(CollectiveRegistry& r);           // bcast.cpp
void register_reduce(CollectiveRegistry& r);          // reduce.cpp
void register_allreduce(CollectiveRegistry& r);       // allreduce.cpp
void register_gather_scatter(CollectiveRegistry& r);  // gather_scatter.cpp (+ gatherv, scatterv)
void register_allgather(CollectiveRegistry& r);       // allgather.cpp (+ allgatherv)
void register_alltoall(CollectiveRegistry& r);        // alltoall.cpp (+ alltoallv)
void register_reduce_scatter(CollectiveRegistry& r);  // reduce_scatter.cpp (+ _block)
void register_scan(CollectiveRegistry& r);            // scan.cpp (+ exscan)
void register_neighbor(CollectiveRegistry& r);        // neighbor.cpp (neighbor_*)

// Algorithms other families compose (allreduce/reduce_bcast).
std::shared_ptr<const Algorithm> make_binomial_reduce();  // reduce.cpp
std::shared_ptr<const Algorithm> make_binomial_bcast();   // bcast.cpp
std::shared_ptr<const Algorithm> make_linear_reduce();    // reduce.cpp
std::shared_ptr<const Algorithm> make_linear_bcast();     // bcast.cpp
std::shared_ptr<const Algorithm> make_knomial_reduce();   // reduce.cpp
std::shared_ptr<const Algorithm> make_knomial_bcast();    // bcast.cpp

// Binomial tree from the root down (bcast, scatter): step k of a.rank. what(a,
// child_relative_rank, subtree_size) is what moves to that child's subtree (offset in the
// data space, bytes).
bool binomial_down(const CollArgs& a, std::uint32_t k, Step& s,
                   Piece (*what)(const CollArgs&, std::int32_t, std::int32_t));

}  // namespace clustersim::mpi::alg
