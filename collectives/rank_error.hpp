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
    // An error between two ranks (they disagree on a collective call): `other` is the world
    // rank the message compares `rank` with, `other_mark` where its operation came from
    // (Program::mark, taken when it entered the call; 0: its current operation).
    RankError(std::int32_t rank, const std::string& message, std::int32_t other,
              std::uint64_t other_mark)
        : InputError("app", 0, message), rank_(rank), other_(other), other_mark_(other_mark) {}
    std::int32_t rank() const { return rank_; }
    std::int32_t other() const { return other_; }  // -1: none
    std::uint64_t other_mark() const { return other_mark_; }

  private:
    std::int32_t rank_;
    std::int32_t other_ = -1;
    std::uint64_t other_mark_ = 0;
};

}  // namespace clustersim::mpi
