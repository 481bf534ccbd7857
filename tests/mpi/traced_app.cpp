// A small MPI program for the tracer's end-to-end test (tests/CMakeLists.txt): compute bursts
// between calls, every kind of record the tracer models (blocking and nonblocking point to
// point, Sendrecv, collectives and v-collectives, nonblocking collectives, scans, communicator
// split, MPI-IO with a collective write), and unmodeled calls (MPI_Comm_rank/size,
// MPI_Iprobe). Usage: traced_app [ITERATIONS] [CHECKPOINT_PATH]
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
// About `n` microseconds of arithmetic that the compiler cannot drop.
double work(int n) {
    volatile double x = 1.0;
    for (int i = 0; i < n * 300; ++i) x = x * 1.0000001 + 1e-9;
    return x;
}
}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int iterations = argc > 1 ? std::atoi(argv[1]) : 20;
    const std::string path = argc > 2 ? argv[2] : "/tmp/clustersim-traced-app.dat";
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    std::vector<double> a(16384, rank), b(16384);
    double sink = 0;
    for (int it = 0; it < iterations; ++it) {
        sink += work(200);
        MPI_Sendrecv(a.data(), 4096, MPI_DOUBLE, right, 1, b.data(), 4096, MPI_DOUBLE, left, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request req[2];
        MPI_Irecv(b.data(), 8192, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(a.data(), 8192, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
        sink += work(50);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        if (rank == 0) {
            MPI_Send(a.data(), 1024, MPI_DOUBLE, size - 1, 3, MPI_COMM_WORLD);
        } else if (rank == size - 1) {
            MPI_Recv(b.data(), 1024, MPI_DOUBLE, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
        double local = a[0] + it, global = 0;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(a.data(), 2048, MPI_DOUBLE, it % size, MPI_COMM_WORLD);
        int flag = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    // v-collectives: rank r contributes r + 1 doubles.
    std::vector<int> counts(size), displs(size);
    for (int r = 0; r < size; ++r) {
        counts[r] = r + 1;
        displs[r] = r * (r + 1) / 2;
    }
    std::vector<double> all(size * (size + 1) / 2);
    MPI_Allgatherv(a.data(), rank + 1, MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                   MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Gatherv(a.data(), rank + 1, MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Request ib;
    MPI_Ibarrier(MPI_COMM_WORLD, &ib);
    MPI_Wait(&ib, MPI_STATUS_IGNORE);
    // A scan and a nonblocking exscan.
    double mine = a[0], prefix = 0;
    MPI_Scan(&mine, &prefix, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Request ix;
    MPI_Iexscan(&mine, &prefix, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &ix);
    MPI_Wait(&ix, MPI_STATUS_IGNORE);
    // A communicator of the even and of the odd ranks.
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Barrier(half);
    MPI_Comm_free(&half);
    // A checkpoint: every rank writes its block collectively.
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                  &fh);
    MPI_File_write_at_all(fh, static_cast<MPI_Offset>(rank) * 65536, a.data(), 8192, MPI_DOUBLE,
                          MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    if (rank == 0)
        std::printf("traced_app: %d ranks, %d iterations, %.3f\n", size, iterations,
                    std::fmod(sink, 1.0));
    MPI_Finalize();
    return 0;
}
