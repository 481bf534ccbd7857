// Which algorithm runs a collective call: the model's <collectives> rules (by operation
// and size range, first match wins), overridden per operation on the command line
// (--algorithm bcast=binomial), then the decision profile of a real MPI library when one is
// named (--mpi openmpi_4.1 / mpich_4 / simgrid, or <collectives profile="...">), falling back to
// the default table below (MPICH-like).
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
#include "collectives/mpi_settings.hpp"
#include "simulator/params.hpp"
#include "simulator/registry.hpp"
#include "topologies/topology.hpp"

namespace clustersim::mpi {

struct Choice {
    const Algorithm* algorithm = nullptr;
    std::string name;
    std::uint64_t segment = 0;  // 0: the CollArgs default
};

// What a library's default decision rules choose for a call of `op` where one rank passes
// `bytes` on a communicator of `comm_size` ranks: our algorithm's name and segment size (0:
// the CollArgs default). Profiles (collectives/README.md has their tables):
//   openmpi_4.1  coll/tuned's fixed decision rules of Open MPI 4.1 (commutative operations),
//                each Open MPI algorithm number mapped to ours; Open MPI passes segment size
//                0 (no segmentation) from these rules, so a segmented algorithm runs whole.
//   mpich-4      MPICH 4's default selection (its built-in coll_selection.json) for
//                intra-communicators and commutative built-in operations.
//   simgrid      SimGrid 3.32 SMPI's `default` collective selector (smpi_default_selector.cpp):
//                linear algorithms, binomial bcast, Open MPI's rules for alltoall; its protocol
//                (eager sends, a 16-byte envelope) is profile_protocol's.
struct ProfileChoice {
    std::string name;
    std::uint64_t segment = 0;
};
ProfileChoice profile_choice(const std::string& profile, CollOp op, std::uint64_t bytes,
                             std::int32_t comm_size);
// What a profile changes in the point-to-point protocol besides its algorithm choices
// (defaults: the model's own settings). `simgrid`: every message eager (SimGrid has no
// rendezvous handshake), a 16-byte envelope on each, and no reduction work inside
// collectives (SimGrid's replay reduces with MPI_OP_NULL; a TI trace's reduction flops are
// compute records of their own, traces/simgrid_ti.cpp).
struct ProfileProtocol {
    bool eager_only = false;
    std::uint64_t envelope_bytes = 0;
    bool reduction_work = true;
};
ProfileProtocol profile_protocol(const std::string& profile);

// One decision profile (`--mpi NAME`, <collectives profile="NAME">): its choice function (a
// plain function: Selection keeps the pointer, so a call costs what it did before profiles
// were registered) and what it changes in the protocol.
using ProfileChooser = ProfileChoice (*)(CollOp op, std::uint64_t bytes, std::int32_t comm_size);
struct ProfileEntry {
    std::string name;               // "openmpi_4.1"
    std::string doc;                // one line
    std::vector<ParamInfo> params;  // none: a profile is chosen by name alone
    ProfileChooser choose = nullptr;
    ProfileProtocol protocol;
};
// Every decision profile: openmpi_4.1, mpich_4 and simgrid on first use, then whatever any
// translation unit adds: `mpi::mpi_profiles().add(mpi::ProfileEntry{...})`.
NamedRegistry<ProfileEntry>& mpi_profiles();
// The profiles' names in registration order: "openmpi_4.1", "mpich_4", "simgrid", ...
std::vector<std::string> profile_names();
// A Markdown table of what `profile` chooses for bcast, allreduce, alltoall and allgather at
// 2, 16, 128 and 1024 ranks and 8 B, 64 KiB and 8 MiB per rank (collectives/README.md shows
// it; tests/test_coll_profiles.cpp checks the README against it).
std::string profile_table(const std::string& profile);

class Selection {
  public:
    // Checks every rule and override against the registry; throws InputError naming the
    // model file and line (or the --algorithm flag) and listing the valid names.
    // `profile` ("" = none): a decision profile (--mpi), winning over the model's
    // <collectives profile="...">; an unknown name is an InputError naming --mpi or the
    // model line.
    // `mpi` is the model's <collectives> (its rules and profile), `source` the model file
    // its lines are in.
    Selection(const CollectiveRegistry& registry, const MpiSettings& mpi, const std::string& source,
              const std::vector<std::string>& overrides, const std::string& profile = "");
    Choice choose(CollOp op, std::uint64_t bytes, std::int32_t comm_size) const;
    // An algorithm is named for this call (an --algorithm override for `op`, or a model rule
    // whose size range holds `bytes`): a measured collective curve does not replace it
    // (collectives/README.md, "Measured collective curves").
    bool forced(CollOp op, std::uint64_t bytes) const;
    static std::string default_algorithm(CollOp op, std::uint64_t bytes, std::int32_t comm_size);

  private:
    struct Rule {
        std::uint64_t min_bytes, max_bytes, segment;
        Choice choice;
    };
    const CollectiveRegistry& registry_;
    std::string profile_;
    ProfileChooser profile_choose_ = nullptr;  // profile_'s, looked up once
    std::array<std::vector<Rule>, kCollOps> rules_;
    std::array<Choice, kCollOps> overrides_{};
};

}  // namespace clustersim::mpi
