// Which algorithm runs a collective call: the model's <collectives> rules (by operation
// and size range, first match wins), overridden per operation on the command line
// (--algorithm bcast=binomial), falling back to the default table below (MPICH-like).
//
// Default table (size = what one rank passes, p = communicator size):
//   barrier         dissemination
//   bcast           binomial if size < 12 KiB or p < 8, else scatter_allgather
//   reduce          binomial
//   allreduce       recursive_doubling if size <= 2 KiB, else ring
//   gather, scatter, gatherv, scatterv           binomial
//   allgather, allgatherv   p * size < 512 KiB: recursive_doubling if p is a power of two,
//                           else bruck; larger: ring
//   alltoall, alltoallv     linear if size < 32 KiB, else pairwise
//   reduce_scatter  recursive_halving if p is a power of two, else ring
#pragma once

#include <array>
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "topologies/topology.hpp"

namespace clustersim::mpi {

struct Choice {
    const Algorithm* algorithm = nullptr;
    std::string name;
    std::uint64_t segment = 0;  // 0: the CollArgs default
};

class Selection {
  public:
    // Checks every rule and override against the registry; throws InputError naming the
    // model file and line (or the --algorithm flag) and listing the valid names.
    Selection(const CollectiveRegistry& registry, const topo::Topology& topology,
              const std::vector<std::string>& overrides);
    Choice choose(CollOp op, std::uint64_t bytes, std::int32_t comm_size) const;
    static std::string default_algorithm(CollOp op, std::uint64_t bytes, std::int32_t comm_size);

  private:
    struct Rule {
        std::uint64_t min_bytes, max_bytes, segment;
        Choice choice;
    };
    const CollectiveRegistry& registry_;
    std::array<std::vector<Rule>, kCollOps> rules_;
    std::array<Choice, kCollOps> overrides_{};
};

}  // namespace clustersim::mpi
