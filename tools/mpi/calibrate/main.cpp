// clustersim-calibrate: measures the machine it runs on and writes a clustersim cluster model of
// it (tools/mpi/README.md, "clustersim-calibrate"). With --from it measures nothing and does not
// start MPI: it derives and writes the model from measurements saved by --save-measured.

// Open MPI and MPICH pull their C++ bindings into C++ code from mpi.h; only the C API is used.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <string_view>

#include "tools/mpi/calibrate/calibrate.hpp"

using namespace clustersim::calibrate;

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--from" || arg.substr(0, 7) == "--from=") return main_from(argc, argv);
    }
    MPI_Init(&argc, &argv);
    int rank = 0, world = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    int code = 0;
    try {
        const Options opt = parse_options(argc, argv);
        if (opt.help) {
            if (rank == 0) std::fputs(kUsage, stdout);
        } else if (world < 2) {
            throw UsageError("needs at least 2 MPI ranks (e.g. mpirun -np 2 clustersim-calibrate)");
        } else {
            code = run(rank, world, opt);
        }
    } catch (const UsageError& e) {
        if (rank == 0) std::fprintf(stderr, "%s: error: %s\n", kProgram, e.what());
        code = rank == 0 ? kUsageExit : 0;
    }
    MPI_Finalize();
    return code;
}
