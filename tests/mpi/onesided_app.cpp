// A small MPI program for the tracer's one-sided test (tests/test_realmpi_onesided.cpp):
// a 2-D Cartesian grid whose rows (MPI_Cart_sub) reduce, then one-sided communication on a
// window: per iteration, under active-target synchronisation (MPI_Win_fence) an MPI_Put to
// the right neighbour and an MPI_Get from the left, and under passive-target synchronisation
// (MPI_Win_lock / MPI_Win_unlock) an MPI_Accumulate to rank 0 and an MPI_Fetch_and_op on a
// counter there; then MPI_Win_lock_all, MPI_Get_accumulate, MPI_Win_flush_all,
// MPI_Win_unlock_all; then MPI_Comm_dup_with_info, on it rank 1 takes rank 0's two messages
// with MPI_Mprobe + MPI_Mrecv and MPI_Improbe + MPI_Imrecv, and an MPI_Ireduce_scatter.
// Usage: onesided_app [ITERATIONS]; rank 0 prints the counter and the sum.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int iterations = argc > 1 ? std::atoi(argv[1]) : 10;

    int dims[2] = {0, 0}, periods[2] = {1, 1}, remain[2] = {0, 1};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm cart = MPI_COMM_NULL, row = MPI_COMM_NULL;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_sub(cart, remain, &row);
    double mine = rank + 1, row_sum = 0;
    MPI_Allreduce(&mine, &row_sum, 1, MPI_DOUBLE, MPI_SUM, row);

    constexpr int n = 1024;
    std::vector<double> local(n, rank), got(n);
    double* base = nullptr;
    MPI_Win win;
    MPI_Win_allocate(static_cast<MPI_Aint>((n + 2) * sizeof(double)), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < n + 2; ++i) base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double one = 1, fetched = 0;
    for (int it = 0; it < iterations; ++it) {
        MPI_Win_fence(0, win);
        MPI_Put(local.data(), n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, win);
        MPI_Win_fence(0, win);
        MPI_Get(got.data(), n, MPI_DOUBLE, left, 0, n, MPI_DOUBLE, win);
        MPI_Win_fence(0, win);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, n, 1, MPI_DOUBLE, MPI_SUM, win);
        MPI_Fetch_and_op(&one, &fetched, MPI_DOUBLE, 0, n + 1, MPI_SUM, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_lock_all(0, win);
    // (Not MPI_Compare_and_swap: Open MPI 4.1.4's osc/rdma over btl/vader ends in a
    // segmentation fault there, traced or not.)
    double add = 2, before = 0;
    MPI_Get_accumulate(&add, 1, MPI_DOUBLE, &before, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE,
                       MPI_SUM, win);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("onesided_app: %d ranks, counter %.0f, row sum %.0f\n", size, base[n + 1],
                    row_sum);
    MPI_Win_free(&win);

    // Matched probes and receives, a duplicate with info, a nonblocking reduce-scatter.
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &dup);
    if (rank == 0) {
        MPI_Send(local.data(), 16, MPI_DOUBLE, 1, 7, dup);
        MPI_Send(local.data(), 32, MPI_DOUBLE, 1, 8, dup);
    } else if (rank == 1) {
        MPI_Message m;
        MPI_Status st;
        MPI_Mprobe(0, 7, dup, &m, &st);
        MPI_Mrecv(got.data(), 16, MPI_DOUBLE, &m, MPI_STATUS_IGNORE);
        int flag = 0;
        while (flag == 0) MPI_Improbe(0, 8, dup, &flag, &m, MPI_STATUS_IGNORE);
        MPI_Request r;
        MPI_Imrecv(got.data(), 32, MPI_DOUBLE, &m, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    std::vector<int> counts(static_cast<std::size_t>(size), 4);
    std::vector<double> all(4 * static_cast<std::size_t>(size), 1.0), part(4);
    MPI_Request rs;
    MPI_Ireduce_scatter(all.data(), part.data(), counts.data(), MPI_DOUBLE, MPI_SUM, dup, &rs);
    MPI_Wait(&rs, MPI_STATUS_IGNORE);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&row);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
