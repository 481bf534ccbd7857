// clustersim-sweep-mpi: the MPI engine of `clustersim sweep`, which execs this program when
// it finds itself started by mpirun (sweep/mpi_engine.hpp). Not meant to be called by hand.
#include <unistd.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "simulator/error.hpp"
#include "sweep/mpi_engine.hpp"

int main(int argc, char** argv) {
    using namespace clustersim;
    CLI::App app{
        "clustersim-sweep-mpi: the MPI engine of `clustersim sweep` (run it as "
        "`mpirun -np K clustersim sweep FILE`)"};
    sweep::SweepOptions o;
    app.add_option("FILE", o.file, "sweep file")->required();
    app.add_option("--clustersim", o.clustersim, "the clustersim binary")->required();
    app.add_option("--out", o.out, "output folder");
    app.add_option("--jobs", o.jobs, "points at once per rank");
    app.add_flag("--retry-failed", o.retry_failed, "rerun points that failed on bad input");
    app.add_option("--time-limit", o.time_limit, "wall-time limit of one point");
    app.add_option("--memory-limit", o.memory_limit, "memory limit of one point");
    app.add_flag("--progress", o.progress, "progress lines on stderr");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    o.progress_lines = !::isatty(2);
    return sweep::run_mpi(o);
}
