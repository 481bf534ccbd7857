// Traced by SimGrid 3.32 (Debian 12's libsimgrid-dev) into every-call.txt and every-call_files/:
//   smpicc -o every-call every-call.c
//   smpirun -np 4 -platform cluster_crossbar.xml -hostfile HOSTS -trace-ti \
//       --cfg=tracing/filename:every-call ./every-call
// (HOSTS: node-0.simgrid.org ... node-3.simgrid.org; the rank files renamed rank-N.txt and the
// index's paths made relative to it). tests/test_cli_smpi_written.cpp reads and replays it.
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int r, n; MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &n);
  double a[64] = {0}, b[256] = {0};
  int counts[4] = {8, 8, 8, 8}, displs[4] = {0, 8, 16, 24};
  MPI_Request q[4]; MPI_Status st;
  int nxt = (r + 1) % n, prv = (r + n - 1) % n;
  MPI_Send(a, 4, MPI_DOUBLE, nxt, 1, MPI_COMM_WORLD); MPI_Recv(b, 4, MPI_DOUBLE, prv, 1, MPI_COMM_WORLD, &st);
  MPI_Sendrecv(a, 4, MPI_DOUBLE, nxt, 2, b, 4, MPI_DOUBLE, prv, 2, MPI_COMM_WORLD, &st);
  MPI_Irecv(b, 4, MPI_DOUBLE, prv, 3, MPI_COMM_WORLD, &q[0]); MPI_Isend(a, 4, MPI_DOUBLE, nxt, 3, MPI_COMM_WORLD, &q[1]);
  int flag; MPI_Test(&q[0], &flag, &st); MPI_Wait(&q[0], &st); MPI_Wait(&q[1], &st);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Bcast(a, 8, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  MPI_Reduce(a, b, 8, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD);
  MPI_Allreduce(a, b, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Gather(a, 8, MPI_DOUBLE, b, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Scatter(b, 8, MPI_DOUBLE, a, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Allgather(a, 8, MPI_DOUBLE, b, 8, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Alltoall(a, 8, MPI_DOUBLE, b, 8, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Gatherv(a, 8, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Scatterv(b, counts, displs, MPI_DOUBLE, a, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Allgatherv(a, 8, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Alltoallv(a, counts, displs, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Reduce_scatter(a, b, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Scan(a, b, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan(a, b, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm c; MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &c); MPI_Barrier(c); MPI_Comm_free(&c);
  MPI_Comm d; MPI_Comm_dup(MPI_COMM_WORLD, &d); MPI_Comm_free(&d);
  MPI_Irecv(b, 4, MPI_DOUBLE, prv, 4, MPI_COMM_WORLD, &q[0]); MPI_Isend(a, 4, MPI_DOUBLE, nxt, 4, MPI_COMM_WORLD, &q[1]);
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  MPI_Finalize();
  return 0;
}
