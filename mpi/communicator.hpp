// A communicator as the runtime keeps it: its members (comm rank -> world rank), the way back,
// and the process topology of one made by MPI_Cart_create or MPI_Dist_graph_create*.
// Runtime::comms_ holds them by id (0: MPI_COMM_WORLD; set_apps: one world per application);
// a rank's handles map to ids (mpi/communicators.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "collectives/collective.hpp"

namespace clustersim::mpi {

struct Comm {
    std::vector<std::int32_t> members;                       // comm rank -> world rank
    std::unordered_map<std::int32_t, std::int32_t> rank_of;  // world -> comm rank (not for world)
    bool world = false;
    std::shared_ptr<const Topology> topo;  // MPI_Cart_create, MPI_Dist_graph_create*
    std::int32_t comm_rank(std::int32_t world_rank) const {
        return world ? world_rank : rank_of.at(world_rank);
    }
};

}  // namespace clustersim::mpi
