/* Concurrent transfers between two ranks (issue 23, docs/validation.md "Concurrent transfers
 * (1125a)"): k = 1, 2, 4 MPI_Isend of s bytes (64 KiB .. 8 MiB) posted at once from rank 0 to
 * rank 1 (dir=1), or from each rank to the other (dir=2), the receives posted first, each
 * message its own buffer; per case the time per group (slowest rank, after a barrier), its
 * median, p10 and p90 over the repetitions, and for dir=1 the receiver's time to its first
 * completed message (MPI_Waitany). Built and run by bench/concurrent.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    const size_t sizes[] = {65536, 262144, 1048576, 2097152, 4194304, 8388608};
    const int ks[] = {1, 2, 4};
    const size_t maxs = 8388608;
    char* sb = malloc(4 * maxs);
    char* rb = malloc(4 * maxs);
    if (sb == NULL || rb == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
    memset(sb, 1, 4 * maxs);
    memset(rb, 2, 4 * maxs);
    for (int dir = 1; dir <= 2; dir++)
        for (int si = 0; si < 6; si++)
            for (int ki = 0; ki < 3; ki++) {
                const size_t s = sizes[si];
                const int k = ks[ki], reps = s >= 2097152 ? 15 : 41;
                double t[64], f[64];
                for (int it = 0; it < reps + 2; it++) {
                    MPI_Request q[8];
                    int n = 0;
                    MPI_Barrier(MPI_COMM_WORLD);
                    const double t0 = MPI_Wtime();
                    for (int j = 0; j < k; j++)
                        if (r == 1 || dir == 2)
                            MPI_Irecv(rb + j * s, (int)s, MPI_BYTE, 1 - r, j, MPI_COMM_WORLD,
                                      &q[n++]);
                    for (int j = 0; j < k; j++)
                        if (r == 0 || dir == 2)
                            MPI_Isend(sb + j * s, (int)s, MPI_BYTE, 1 - r, j, MPI_COMM_WORLD,
                                      &q[n++]);
                    double first = 0, fr = 0, mx = 0;
                    if (dir == 1 && r == 1 && k > 1) {
                        int idx = 0;
                        MPI_Waitany(n, q, &idx, MPI_STATUS_IGNORE);
                        first = MPI_Wtime() - t0;
                    }
                    MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
                    const double dt = MPI_Wtime() - t0;
                    if (dir == 1 && k > 1) {
                        if (r == 1)
                            MPI_Send(&first, 1, MPI_DOUBLE, 0, 99, MPI_COMM_WORLD);
                        else
                            MPI_Recv(&fr, 1, MPI_DOUBLE, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    }
                    MPI_Reduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                    if (it >= 2) t[it - 2] = mx, f[it - 2] = fr;
                }
                if (r == 0) {
                    qsort(t, reps, sizeof(double), cmp);
                    qsort(f, reps, sizeof(double), cmp);
                    printf(
                        "dir=%d s=%zu k=%d med_us=%.2f p10=%.2f p90=%.2f first_recv_med_us=%.2f\n",
                        dir, s, k, t[reps / 2] * 1e6, t[reps / 10] * 1e6, t[reps * 9 / 10] * 1e6,
                        f[reps / 2] * 1e6);
                }
            }
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
