// MEASURE of the real library's collective curves (issue 23; calibrate.hpp, CollCurveMeasured):
// every rank takes part; rank 0 keeps the figures.
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tools/mpi/calibrate/calibrate.hpp"

namespace clustersim::calibrate {

namespace {
void call(const std::string& op, std::uint64_t bytes, std::vector<double>& send,
          std::vector<double>& recv) {
    const int doubles = static_cast<int>(bytes / 8);
    if (op == "barrier")
        MPI_Barrier(MPI_COMM_WORLD);
    else if (op == "bcast")
        MPI_Bcast(send.data(), static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (op == "reduce")
        MPI_Reduce(send.data(), recv.data(), doubles, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    else
        MPI_Allreduce(send.data(), recv.data(), doubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
}  // namespace

void measure_coll_curves(const Settings& s, int rank, int /*world*/, Measured& m) {
    std::vector<std::vector<std::uint64_t>> sizes;
    std::vector<std::vector<Samples>> samples;
    std::uint64_t largest = 0;
    for (const char* op : kCurveOps) {
        sizes.push_back(coll_curve_sizes(op, s.sizes));
        samples.emplace_back(sizes.back().size());
        largest = std::max(largest, sizes.back().back());
    }
    std::vector<double> send(largest / 8 + 1, 1.0), recv(largest / 8 + 1, 0.0);
    // Passes outermost, so that a drift of the machine's speed meets every operation alike.
    for (std::uint64_t pass = 0; pass < s.passes; ++pass)
        for (std::size_t o = 0; o < kCurveOps.size(); ++o) {
            const std::string op = kCurveOps[o];
            for (std::size_t i = 0; i < sizes[o].size(); ++i) {
                const std::uint64_t bytes = sizes[o][i];
                const std::uint64_t reps = std::max<std::uint64_t>(1, s.reps(bytes) / kCurveRuns);
                for (std::uint64_t k = 0; k < Settings::warmup(reps); ++k)
                    call(op, bytes, send, recv);
                std::vector<double> pass;
                for (int run = 0; run < kCurveRuns; ++run) {
                    MPI_Barrier(MPI_COMM_WORLD);
                    const double t0 = MPI_Wtime();
                    for (std::uint64_t k = 0; k < reps; ++k) call(op, bytes, send, recv);
                    const double mine = (MPI_Wtime() - t0) / static_cast<double>(reps);
                    double slowest = 0;
                    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                    pass.push_back(slowest);
                }
                if (rank == 0) add_pass(samples[o][i], pass);
            }
        }
    if (rank != 0) return;
    m.coll_curves.clear();
    for (std::size_t o = 0; o < kCurveOps.size(); ++o) {
        CollCurveMeasured c;
        c.operation = kCurveOps[o];
        for (std::size_t i = 0; i < sizes[o].size(); ++i)
            c.points.emplace_back(sizes[o][i], summarize(samples[o][i]));
        m.coll_curves.push_back(std::move(c));
    }
}

}  // namespace clustersim::calibrate
