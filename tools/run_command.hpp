// `clustersim run`: simulate built-in applications and traces on a model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clustersim::cli {

struct RunFlags {
    std::string model, placement = "round-robin";
    std::vector<std::string> apps;
    std::vector<std::uint32_t> ranks;
    bool json = false, per_rank = false, oversubscribe = false, skip_unknown = false;
    std::vector<std::string> algorithms;
    std::string mpi;  // --mpi: decision profile (openmpi-4.1, mpich-4)
    std::string network;
    std::string cache;
    std::uint64_t seed = 1;
    std::string out, timeline_detail = "ranks", format = "auto", traced_speed;
};

int cmd_run(const RunFlags& f);

}  // namespace clustersim::cli
