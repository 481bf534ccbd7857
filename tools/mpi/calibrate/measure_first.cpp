// MEASURE of a process's first uses (issue 23; calibrate.hpp, FirstUse): the first and the
// second MPI_Cart_create, then the first and the second MPI_File_open on MPI_COMM_WORLD,
// every rank; rank 0 keeps its times.
#include <mpi.h>
#include <unistd.h>

#include <string>

#include "tools/mpi/calibrate/calibrate.hpp"

namespace clustersim::calibrate {

void measure_first_uses(const Settings& s, int rank, Measured& m) {
    int world = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    double cart[2] = {0, 0}, open[2] = {0, 0};
    MPI_Comm made[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
    int dims[1] = {world}, periods[1] = {1};
    for (int i = 0; i < 2; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &made[i]);
        cart[i] = MPI_Wtime() - t0;
    }
    for (MPI_Comm& c : made) MPI_Comm_free(&c);
    long pid = static_cast<long>(::getpid());
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    bool opened = true;
    for (int i = 0; i < 2 && opened; ++i) {
        const std::string path = s.io_dir + strf("/clustersim-calibrate-first-%ld-%d.tmp", pid, i);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File fh = MPI_FILE_NULL;
        const double t0 = MPI_Wtime();
        const int rc =
            MPI_File_open(MPI_COMM_WORLD, path.c_str(),
                          MPI_MODE_CREATE | MPI_MODE_APPEND | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        open[i] = MPI_Wtime() - t0;
        int ok = rc == MPI_SUCCESS ? 1 : 0, all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS) MPI_File_close(&fh);
        opened = all != 0;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0 && rc == MPI_SUCCESS) MPI_File_delete(path.c_str(), MPI_INFO_NULL);
    }
    if (rank != 0 || !opened) return;
    m.first_use.measured = true;
    m.first_use.cart_first = cart[0];
    m.first_use.cart_second = cart[1];
    m.first_use.open_first = open[0];
    m.first_use.open_second = open[1];
}

}  // namespace clustersim::calibrate
