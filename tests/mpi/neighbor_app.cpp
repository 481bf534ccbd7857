// A small MPI program for the neighbourhood collectives' end-to-end test
// (tests/test_realmpi_neighbor.cpp): a periodic 2 x (p/2) Cartesian grid (its first
// dimension of size 2, where a rank's -1 and +1 neighbours are the same rank) with
// MPI_Neighbor_alltoall and MPI_Ineighbor_allgather, then a distributed graph (each rank
// receives from its two predecessors and sends to its two successors, made with
// MPI_Dist_graph_create_adjacent) with MPI_Neighbor_alltoallv of per-neighbour sizes, then
// the same graph made with MPI_Dist_graph_create (rank 0 names every edge) and
// MPI_Neighbor_allgatherv, and an MPI_Alltoallw. Checks the data it receives: exit code 1
// on a wrong value. Usage: neighbor_app [ITERATIONS]
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
// About `n` microseconds of arithmetic that the compiler cannot drop.
double work(int n) {
    volatile double x = 1.0;
    for (int i = 0; i < n * 300; ++i) x = x * 1.0000001 + 1e-9;
    return x;
}
int bad = 0;
void expect(bool ok, const char* what, int rank) {
    if (!ok && bad++ == 0) std::fprintf(stderr, "neighbor_app: rank %d: wrong %s\n", rank, what);
}
}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int iterations = argc > 1 ? std::atoi(argv[1]) : 5;
    if (size % 2 != 0 || size < 4) {
        if (rank == 0) std::fprintf(stderr, "neighbor_app: needs an even number >= 4 of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double sink = 0;
    // The grid: 2 x (p/2), periodic in both dimensions.
    const int dims[2] = {2, size / 2}, periods[2] = {1, 1};
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    const int block = 1024;  // doubles per neighbour
    std::vector<double> out(4 * block), in(4 * block), gathered(4 * block);
    for (int it = 0; it < iterations; ++it) {
        sink += work(100);
        for (int k = 0; k < 4; ++k)
            for (int i = 0; i < block; ++i) out[k * block + i] = rank * 10 + k;
        MPI_Neighbor_alltoall(out.data(), block, MPI_DOUBLE, in.data(), block, MPI_DOUBLE, cart);
        // Block 2d comes from the -1 neighbour's block 2d+1, block 2d+1 from the +1's block 2d.
        for (int d = 0; d < 2; ++d) {
            int minus = 0, plus = 0;
            MPI_Cart_shift(cart, d, 1, &minus, &plus);
            expect(in[(2 * d) * block] == minus * 10 + 2 * d + 1, "alltoall block", rank);
            expect(in[(2 * d + 1) * block] == plus * 10 + 2 * d, "alltoall block", rank);
        }
        MPI_Request req;
        MPI_Ineighbor_allgather(out.data(), block, MPI_DOUBLE, gathered.data(), block, MPI_DOUBLE,
                                cart, &req);
        sink += work(50);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    // The graph: from r-1 and r-2, to r+1 and r+2.
    const int sources[2] = {(rank + size - 1) % size, (rank + size - 2) % size};
    const int dests[2] = {(rank + 1) % size, (rank + 2) % size};
    MPI_Comm graph;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2, dests,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    // r sends (r + k + 1) * 256 doubles to its k-th destination.
    auto count = [&](int from, int k) { return ((from + k) % 3 + 1) * 256; };
    const int scounts[2] = {count(rank, 0), count(rank, 1)};
    const int sdispls[2] = {0, scounts[0]};
    // from r-1 (its destination 0), from r-2 (its destination 1)
    const int rcounts[2] = {count(sources[0], 0), count(sources[1], 1)};
    const int rdispls[2] = {0, rcounts[0]};
    std::vector<double> vout(scounts[0] + scounts[1], rank), vin(rcounts[0] + rcounts[1]);
    for (int it = 0; it < iterations; ++it) {
        sink += work(100);
        MPI_Neighbor_alltoallv(vout.data(), scounts, sdispls, MPI_DOUBLE, vin.data(), rcounts,
                               rdispls, MPI_DOUBLE, graph);
        expect(vin[0] == sources[0] && vin[rcounts[0]] == sources[1], "alltoallv block", rank);
    }
    // The same graph, every edge named by rank 0.
    std::vector<int> nodes, degrees, targets;
    if (rank == 0)
        for (int r = 0; r < size; ++r) {
            nodes.push_back(r);
            degrees.push_back(2);
            targets.push_back((r + 1) % size);
            targets.push_back((r + 2) % size);
        }
    MPI_Comm graph2;
    MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? size : 0, nodes.data(), degrees.data(),
                          targets.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph2);
    int indeg = 0, outdeg = 0, weighted = 0;
    MPI_Dist_graph_neighbors_count(graph2, &indeg, &outdeg, &weighted);
    std::vector<int> gsrc(indeg), gdst(outdeg), gcounts(indeg), gdispls(indeg);
    MPI_Dist_graph_neighbors(graph2, indeg, gsrc.data(), MPI_UNWEIGHTED, outdeg, gdst.data(),
                             MPI_UNWEIGHTED);
    for (int i = 0; i < indeg; ++i) {
        gcounts[i] = (gsrc[i] % 2 + 1) * 128;
        gdispls[i] = i == 0 ? 0 : gdispls[i - 1] + gcounts[i - 1];
    }
    std::vector<double> gin(indeg > 0 ? gdispls[indeg - 1] + gcounts[indeg - 1] : 0);
    std::vector<double> gout((rank % 2 + 1) * 128, rank);
    MPI_Neighbor_allgatherv(gout.data(), static_cast<int>(gout.size()), MPI_DOUBLE, gin.data(),
                            gcounts.data(), gdispls.data(), MPI_DOUBLE, graph2);
    for (int i = 0; i < indeg; ++i) expect(gin[gdispls[i]] == gsrc[i], "allgatherv block", rank);
    // MPI_Alltoallw: 64 doubles to every rank.
    std::vector<int> wc(size, 64), wd(size);
    std::vector<MPI_Datatype> wt(size, MPI_DOUBLE);
    for (int r = 0; r < size; ++r) wd[r] = r * 64 * 8;
    std::vector<double> wout(64 * size, rank), win(64 * size);
    MPI_Alltoallw(wout.data(), wc.data(), wd.data(), wt.data(), win.data(), wc.data(), wd.data(),
                  wt.data(), MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r) expect(win[r * 64] == r, "alltoallw block", rank);
    MPI_Comm_free(&graph2);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&cart);
    if (rank == 0)
        std::printf("neighbor_app: %d ranks, %d iterations, %s (%g)\n", size, iterations,
                    bad == 0 ? "data right" : "DATA WRONG", sink > 0 ? 1.0 : 0.0);
    MPI_Finalize();
    return bad == 0 ? 0 : 1;
}
