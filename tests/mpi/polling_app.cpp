// An MPI program for the polling end-to-end test (tests/test_realmpi_polling.cpp): it waits
// by polling, as real codes do (HPCC's RandomAccess, most task-based codes), with MPI_Testany,
// MPI_Test and MPI_Iprobe loops; it cancels a posted any-source receive and waits for it;
// it calls MPI_Scan after an uneven compute phase, MPI_Comm_split, MPI_Comm_create and
// MPI_Cart_create, and writes a checkpoint collectively. Usage: polling_app [ITERATIONS]
// [CHECKPOINT_PATH]
//
// Per rank and iteration the polls that succeed are fixed (two MPI_Testany, one MPI_Test, one
// MPI_Iprobe); how often they fail first depends on timing: rank 0 computes before sending,
// so rank 1's polls fail until its messages come. At the end rank 0 prints, per rank, the
// successful polls and the cancelled receive's status.
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
    const std::string path = argc > 2 ? argv[2] : "/tmp/clustersim-polling-app.dat";
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    std::vector<double> a(8192, rank), b(8192), c(1024);
    double sink = 0;
    long successes = 0;
    for (int it = 0; it < iterations; ++it) {
        // An exchange with the neighbours, completed by polling MPI_Testany.
        MPI_Request req[2];
        MPI_Irecv(b.data(), 1024, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
        if (rank == 0) sink += work(100);
        MPI_Isend(a.data(), 1024, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
        for (int done = 0; done < 2;) {
            int index = MPI_UNDEFINED, flag = 0;
            MPI_Testany(2, req, &index, &flag, MPI_STATUS_IGNORE);
            if (flag != 0 && index != MPI_UNDEFINED) {
                ++done;
                ++successes;
            } else {
                sink += work(1);
            }
        }
        // Rank 0 sends to the last rank after computing; that rank polls MPI_Test meanwhile.
        if (rank == 0) {
            sink += work(100);
            MPI_Send(c.data(), 256, MPI_DOUBLE, size - 1, 2, MPI_COMM_WORLD);
        } else if (rank == size - 1) {
            MPI_Request r;
            MPI_Irecv(c.data(), 256, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, &r);
            for (int flag = 0; flag == 0;) {
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
                if (flag == 0) sink += work(1);
            }
            ++successes;
        }
        // And back, found by polling MPI_Iprobe, then received.
        if (rank == size - 1) {
            sink += work(100);
            MPI_Send(c.data(), 128, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
        } else if (rank == 0) {
            MPI_Status st;
            for (int flag = 0; flag == 0;) {
                MPI_Iprobe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &flag, &st);
                if (flag == 0) sink += work(1);
            }
            ++successes;
            MPI_Recv(c.data(), 128, MPI_DOUBLE, st.MPI_SOURCE, 3, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
    }
    // A posted any-source receive, cancelled and waited for (RandomAccess's ending). The
    // barrier keeps the later message from matching it before the cancel.
    MPI_Request pending;
    MPI_Irecv(c.data(), 1, MPI_DOUBLE, MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &pending);
    MPI_Cancel(&pending);
    MPI_Status cst;
    MPI_Wait(&pending, &cst);
    int cancelled = 0;
    MPI_Test_cancelled(&cst, &cancelled);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Send(c.data(), 1, MPI_DOUBLE, size - 1, 42, MPI_COMM_WORLD);
    } else if (rank == size - 1) {
        MPI_Recv(c.data(), 1, MPI_DOUBLE, MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    // Rank 0 computes 2 ms more: the others wait for it in the scan.
    if (rank == 0) sink += work(2000);
    double mine = a[0] + 1, prefix = 0;
    MPI_Scan(&mine, &prefix, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    // Communicators: a split, a one-dimensional periodic Cartesian grid.
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Barrier(half);
    MPI_Comm_free(&half);
    // MPI_Comm_create of the group of the even ranks (the odd ones get MPI_COMM_NULL).
    MPI_Group world_group, evens;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int even_range[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(world_group, 1, even_range, &evens);
    MPI_Comm even_comm;
    MPI_Comm_create(MPI_COMM_WORLD, evens, &even_comm);
    if (even_comm != MPI_COMM_NULL) {
        MPI_Barrier(even_comm);
        MPI_Comm_free(&even_comm);
    }
    MPI_Group_free(&evens);
    MPI_Group_free(&world_group);
    MPI_Comm cart;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Comm_free(&cart);
    // A checkpoint: every rank writes its block collectively.
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                  &fh);
    MPI_File_write_at_all(fh, static_cast<MPI_Offset>(rank) * 65536, a.data(), 8192, MPI_DOUBLE,
                          MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    std::vector<long> all_successes(static_cast<std::size_t>(size));
    std::vector<int> all_cancelled(static_cast<std::size_t>(size));
    MPI_Gather(&successes, 1, MPI_LONG, all_successes.data(), 1, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Gather(&cancelled, 1, MPI_INT, all_cancelled.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        std::printf("polling_app: %d ranks, %d iterations, %.3f\n", size, iterations,
                    std::fmod(sink, 1.0));
        for (int r = 0; r < size; ++r)
            std::printf("rank %d: %ld successful polls, receive cancelled %s\n", r,
                        all_successes[static_cast<std::size_t>(r)],
                        all_cancelled[static_cast<std::size_t>(r)] != 0 ? "yes" : "no");
    }
    MPI_Finalize();
    return 0;
}
