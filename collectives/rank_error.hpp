// An error in the program one rank runs (a communicator it does not have, a peer or root out
// of range, a request handle never started or reused, counts that do not fit): thrown by the
// runtime while it works on that rank's current operation, with the rank, so whoever knows
// where the rank's operations come from (a trace's records) can name the place.
#pragma once

#include <cstdint>
#include <string>

#include "simulator/error.hpp"

namespace clustersim::mpi {

// Reads as the InputError("app", 0, message) it replaces; `rank` is the world rank whose
// operation failed.
class RankError : public InputError {
  public:
    RankError(std::int32_t rank, const std::string& message)
        : InputError("app", 0, message), rank_(rank) {}
    std::int32_t rank() const { return rank_; }

  private:
    std::int32_t rank_;
};

}  // namespace clustersim::mpi
