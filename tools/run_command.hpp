// `clustersim run`: simulate built-in applications and traces on a model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clustersim::cli {

struct RunFlags {
    std::string model, placement = "round_robin";
    std::vector<std::string> apps;
    std::vector<std::uint32_t> ranks;
    bool json = false, per_rank = false, oversubscribe = false, skip_unknown = false;
    std::vector<std::string> algorithms;
    std::string mpi;  // --mpi: decision profile (openmpi_4.1, mpich_4, simgrid)
    std::string network;
    std::string cpu;  // --cpu: CPU model, NAME[:key=value,...]
    std::string cache;
    std::uint64_t seed = 1;
    std::string out, timeline_detail = "ranks", format = "auto", traced_speed;
    bool progress = false, quiet = false;  // tools/progress.hpp
    std::string progress_interval = "10s";
};

// Makes `dir` (and its parents) and checks that files can be written in it; InputError
// naming `flag` otherwise. Every command that writes a folder calls it before its work.
void prepare_output_dir(const std::string& flag, const std::string& dir);
// Checks that `file` can be created: its folder exists and is writable, and it is not a folder.
void check_output_file(const std::string& flag, const std::string& file);

int cmd_run(const RunFlags& f);

}  // namespace clustersim::cli
