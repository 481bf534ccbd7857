// `clustersim record [options] -- LAUNCHER ARGS...`: runs an MPI program with the tracer
// preloaded and merges its rank files into one trace (the recording workflow in one command).
#pragma once

#include <string>
#include <vector>

namespace clustersim::cli {

struct RecordFlags {
    std::vector<std::string> command;  // what to run: "mpirun -np 2 ./app", or "./app"
    std::string output = "recorded.cstrace";
    std::string dir;     // rank files' folder (default: OUTPUT.ranks)
    std::string tracer;  // libclustersim-trace.so (default: found beside this program)
    std::string to, name, traced_speed;
};

// The tracer library: $CLUSTERSIM_TRACER, else next to the executable (build tree:
// tools/mpi/, installed: ../lib/...); "" if none is found.
std::string find_tracer();

int cmd_record(const RecordFlags& f);

}  // namespace clustersim::cli
