// clustersim-jacobi: a Jacobi solver for the 2D Poisson equation with periodic MPI-IO
// checkpoints, in the style of partdiff-par, the validation application of PIOsimHD (Kunkel,
// section 5.3). It runs on a real machine (MPI's C API only) and under the PMPI tracer.
//
// The problem: -Δu = f on the unit square, u = 0 on the boundary, f(x, y) = 2π² sin(πx)
// sin(πy) (exact solution sin(πx) sin(πy)), discretized on N × N interior points with
// spacing h = 1 / (N + 1); the start value is u = 0. A Jacobi sweep sets every interior point
// to the mean of its four neighbours plus h² f / 4.
//
// Decomposition: rows are split into contiguous blocks over the ranks (the first N mod P
// ranks get one row more). Each rank keeps its rows plus one halo row above and below. Every
// iteration starts with the halo exchange: each rank posts MPI_Irecv for the halo rows it
// has neighbours for, MPI_Isend of its first row to the rank above and of its last row to the
// rank below (N doubles each, MPI_DOUBLE), then MPI_Waitall; then the sweep.
//
// Residual: in the first, every K-th and the last iteration the sweep also sums (u_new - u_old)²
// over its rows; one MPI_Allreduce (MPI_SUM, one double) gives the root mean square over the grid,
// and the residual printed is RMS(f + Δ_h u) = 4 / h² × RMS(u_new - u_old) of the iterate the sweep
// started from. For Jacobi it falls monotonically.
//
// Checkpoints: after every C-th iteration all ranks call MPI_File_open (MPI_COMM_WORLD,
// create + write-only) on --checkpoint, MPI_File_write_at_all of their rows (rows × N doubles
// at byte offset first_row × N × 8, so the file is the N × N interior in row-major order, as
// native doubles, overwritten by each checkpoint), optionally MPI_File_sync, and
// MPI_File_close. Rank 0 deletes an old file at start-up (before the first barrier) so that
// its size is always N² × 8 bytes. --verify reads the last checkpoint back with
// MPI_File_read_at_all and compares it with the grid.
//
// Timing: MPI_Barrier, t0, the iterations (halo exchange, sweep, residual allreduce,
// checkpoints), t1; the times printed are the max over ranks (one MPI_Reduce after t1, which
// is traced too).
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "tools/mpi/program_common.hpp"

namespace {

using namespace clustersim::mpiprog;

constexpr const char* kProgram = "clustersim-jacobi";

struct Options {
    int size = 1000;
    int iterations = 200;
    int checkpoint_every = 50;
    int residual_every = 10;
    std::string checkpoint = "/tmp/clustersim-jacobi.ckpt";
    bool no_checkpoint = false;
    bool sync = false;
    bool verify = false;
};

Options parse_options(int argc, char** argv, bool& help, std::string& usage) {
    const Flags flags(
        {{"--size", "N", "interior grid points per dimension (default 1000)"},
         {"--iterations", "I", "Jacobi iterations (default 200)"},
         {"--checkpoint-every", "C", "checkpoint after every C-th iteration (default 50)"},
         {"--residual-every", "K",
          "MPI_Allreduce of the residual every K-th iteration and after the last (default 10)"},
         {"--checkpoint", "PATH",
          "checkpoint file, written with MPI-IO (default /tmp/clustersim-jacobi.ckpt)"},
         {"--no-checkpoint", "", "write no checkpoints"},
         {"--sync", "", "MPI_File_sync before closing each checkpoint"},
         {"--verify", "", "read the last checkpoint back (MPI_File_read_at_all) and compare"}},
        argc, argv);
    help = flags.help();
    usage = flags.usage(kProgram,
                        "Jacobi solver for -Δu = 2π² sin(πx) sin(πy) on an N × N grid, row "
                        "blocks over the ranks, halo exchange, MPI-IO checkpoints.");
    Options o;
    if (flags.has("--size"))
        o.size = static_cast<int>(parse_count("--size", flags.get("--size", ""), 1, 1 << 20));
    if (flags.has("--iterations"))
        o.iterations =
            static_cast<int>(parse_count("--iterations", flags.get("--iterations", ""), 1));
    if (flags.has("--checkpoint-every"))
        o.checkpoint_every = static_cast<int>(
            parse_count("--checkpoint-every", flags.get("--checkpoint-every", ""), 1));
    if (flags.has("--residual-every"))
        o.residual_every =
            static_cast<int>(parse_count("--residual-every", flags.get("--residual-every", ""), 1));
    o.no_checkpoint = flags.has("--no-checkpoint");
    if (o.no_checkpoint) {
        for (const char* f : {"--checkpoint", "--checkpoint-every", "--sync", "--verify"})
            if (flags.has(f))
                throw UsageError(std::string(f) +
                                 ": cannot be combined with --no-checkpoint, expected one of them");
    }
    if (flags.has("--checkpoint")) {
        o.checkpoint = flags.get("--checkpoint", "");
        if (o.checkpoint.empty())
            throw UsageError("--checkpoint: empty path, expected a file name");
    }
    o.sync = flags.has("--sync");
    o.verify = flags.has("--verify");
    if (o.verify && o.iterations < o.checkpoint_every)
        throw UsageError("--verify: no checkpoint is written with --iterations " +
                         std::to_string(o.iterations) + " < --checkpoint-every " +
                         std::to_string(o.checkpoint_every) + ", expected at least one checkpoint");
    return o;
}

std::string mpi_error(int code) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    return std::string(text, static_cast<std::size_t>(len));
}

class Solver {
  public:
    Solver(const Options& o, int rank, int ranks) : rank_(rank), ranks_(ranks), n_(o.size) {
        const int base = n_ / ranks_, extra = n_ % ranks_;
        rows_ = base + (rank_ < extra ? 1 : 0);
        first_ = rank_ * base + std::min(rank_, extra);
        const std::size_t cells = static_cast<std::size_t>(rows_ + 2) * width();
        u_.assign(cells, 0.0);
        v_.assign(cells, 0.0);
        rhs_.assign(static_cast<std::size_t>(rows_) * static_cast<std::size_t>(n_), 0.0);
        const double h = 1.0 / (n_ + 1);
        h2_ = h * h;
        const double pi = std::numbers::pi;
        for (int i = 0; i < rows_; ++i) {
            const double y = (first_ + i + 1) * h;
            for (int j = 0; j < n_; ++j) {
                const double x = (j + 1) * h;
                rhs_[static_cast<std::size_t>(i) * static_cast<std::size_t>(n_) +
                     static_cast<std::size_t>(j)] =
                    h2_ / 4.0 * 2.0 * pi * pi * std::sin(pi * x) * std::sin(pi * y);
            }
        }
    }

    int rows() const { return rows_; }

    void exchange_halo() {
        MPI_Request req[4];
        int n = 0;
        const int tag = 7;
        if (rows_ == 0) return;  // more ranks than rows: this rank holds nothing
        const int above = rank_ - 1;
        const int below = last_active_rank() > rank_ ? rank_ + 1 : -1;
        if (above >= 0) {
            MPI_Irecv(row(u_, 0), n_, MPI_DOUBLE, above, tag, MPI_COMM_WORLD, &req[n++]);
            MPI_Isend(row(u_, 1), n_, MPI_DOUBLE, above, tag, MPI_COMM_WORLD, &req[n++]);
        }
        if (below >= 0) {
            MPI_Irecv(row(u_, rows_ + 1), n_, MPI_DOUBLE, below, tag, MPI_COMM_WORLD, &req[n++]);
            MPI_Isend(row(u_, rows_), n_, MPI_DOUBLE, below, tag, MPI_COMM_WORLD, &req[n++]);
        }
        if (n > 0) MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    }

    // One Jacobi sweep u -> v, then swap; returns the sum of squared changes.
    double sweep(bool want_change) {
        double sum = 0;
        const std::size_t w = width();
        for (int i = 1; i <= rows_; ++i) {
            const double* up = u_.data() + static_cast<std::size_t>(i - 1) * w;
            const double* mid = u_.data() + static_cast<std::size_t>(i) * w;
            const double* down = u_.data() + static_cast<std::size_t>(i + 1) * w;
            double* out = v_.data() + static_cast<std::size_t>(i) * w;
            const double* f =
                rhs_.data() + static_cast<std::size_t>(i - 1) * static_cast<std::size_t>(n_);
            if (want_change) {
                for (int j = 1; j <= n_; ++j) {
                    const double next =
                        0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]) + f[j - 1];
                    const double d = next - mid[j];
                    sum += d * d;
                    out[j] = next;
                }
            } else {
                for (int j = 1; j <= n_; ++j)
                    out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]) + f[j - 1];
            }
        }
        u_.swap(v_);
        return sum;
    }

    // RMS(f + Δ_h u) from the global sum of squared changes.
    double residual(double global_sum) const {
        const double cells = static_cast<double>(n_) * static_cast<double>(n_);
        return 4.0 / h2_ * std::sqrt(global_sum / cells);
    }

    // Largest |u - sin(πx) sin(πy)| over this rank's rows.
    double max_error() const {
        const double h = 1.0 / (n_ + 1), pi = std::numbers::pi;
        double worst = 0;
        for (int i = 0; i < rows_; ++i)
            for (int j = 0; j < n_; ++j) {
                const double exact =
                    std::sin(pi * (j + 1) * h) * std::sin(pi * (first_ + i + 1) * h);
                worst = std::max(worst, std::fabs(value(i, j) - exact));
            }
        return worst;
    }

    // Collective: writes the interior rows to the checkpoint file. Returns the MPI error
    // code of the first call that failed (MPI_SUCCESS otherwise); MPI-IO errors are
    // returned, not fatal (MPI_ERRORS_RETURN is the default for files).
    int checkpoint(const std::string& path, bool sync) {
        pack();
        MPI_File fh;
        int rc = MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                               MPI_INFO_NULL, &fh);
        if (rc != MPI_SUCCESS) return rc;
        rc = MPI_File_write_at_all(fh, offset(), packed_.data(), packed_count(), MPI_DOUBLE,
                                   MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && sync) rc = MPI_File_sync(fh);
        const int close_rc = MPI_File_close(&fh);
        return rc != MPI_SUCCESS ? rc : close_rc;
    }

    // Collective: reads the checkpoint back; `mismatches` counts values that differ.
    int verify(const std::string& path, double& mismatches) {
        pack();
        std::vector<double> back(packed_.size(), -1.0);
        MPI_File fh;
        int rc = MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        if (rc != MPI_SUCCESS) return rc;
        rc = MPI_File_read_at_all(fh, offset(), back.data(), packed_count(), MPI_DOUBLE,
                                  MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
        mismatches = 0;
        for (std::size_t k = 0; k < back.size(); ++k)
            if (back[k] != packed_[k]) ++mismatches;
        return rc;
    }

  private:
    std::size_t width() const { return static_cast<std::size_t>(n_) + 2; }
    double* row(std::vector<double>& g, int i) {
        return g.data() + static_cast<std::size_t>(i) * width() + 1;
    }
    double value(int i, int j) const {
        return u_[static_cast<std::size_t>(i + 1) * width() + static_cast<std::size_t>(j) + 1];
    }
    int last_active_rank() const { return std::min(ranks_, n_) - 1; }
    MPI_Offset offset() const {
        return static_cast<MPI_Offset>(first_) * n_ * static_cast<MPI_Offset>(sizeof(double));
    }
    int packed_count() const { return static_cast<int>(packed_.size()); }
    void pack() {
        packed_.resize(static_cast<std::size_t>(rows_) * static_cast<std::size_t>(n_));
        for (int i = 0; i < rows_; ++i)
            for (int j = 0; j < n_; ++j)
                packed_[static_cast<std::size_t>(i) * static_cast<std::size_t>(n_) +
                        static_cast<std::size_t>(j)] = value(i, j);
    }

    int rank_, ranks_, n_;
    int rows_ = 0, first_ = 0;
    double h2_ = 0;
    std::vector<double> u_, v_, rhs_, packed_;
};

int jacobi_main(int rank, int argc, char** argv) {
    bool help = false;
    std::string usage;
    const Options o = parse_options(argc, argv, help, usage);
    if (help) {
        if (rank == 0) std::fputs(usage.c_str(), stdout);
        return 0;
    }
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    // One rank's rows go through one MPI call (an int count of doubles).
    const long long largest_block =
        (static_cast<long long>(o.size) + ranks - 1) / ranks * static_cast<long long>(o.size);
    if (largest_block > 0x7fffffffLL)
        throw UsageError("--size: " + std::to_string(o.size) + " gives " +
                         std::to_string(largest_block) +
                         " values on one rank, more than one MPI call can pass; expected a "
                         "smaller grid or more ranks");

    Solver solver(o, rank, ranks);
    const bool checkpoints = !o.no_checkpoint;
    if (checkpoints && rank == 0) std::remove(o.checkpoint.c_str());
    if (rank == 0) {
        std::printf(
            "%s: %d × %d grid (%s of doubles), %d ranks (%d to %d rows each), %d "
            "iterations\n",
            kProgram, o.size, o.size,
            format_bytes(static_cast<std::uint64_t>(o.size) * static_cast<std::uint64_t>(o.size) *
                         sizeof(double))
                .c_str(),
            ranks, o.size / ranks, (o.size + ranks - 1) / ranks, o.iterations);
        if (checkpoints)
            std::printf("checkpoint every %d iterations to %s%s; residual every %d iterations\n",
                        o.checkpoint_every, o.checkpoint.c_str(), o.sync ? " (with sync)" : "",
                        o.residual_every);
        else
            std::printf("no checkpoints; residual every %d iterations\n", o.residual_every);
        std::fflush(stdout);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    double checkpoint_time = 0;
    int checkpoints_written = 0;
    double first_residual = -1, last_residual = -1, previous = -1;
    bool monotone = true;
    int io_error = MPI_SUCCESS;
    for (int it = 1; it <= o.iterations; ++it) {
        solver.exchange_halo();
        const bool want = it % o.residual_every == 0 || it == o.iterations || it == 1;
        const double local = solver.sweep(want);
        if (want) {
            double global = 0;
            MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            last_residual = solver.residual(global);
            if (first_residual < 0) first_residual = last_residual;
            if (previous >= 0 && last_residual > previous * (1 + 1e-9)) monotone = false;
            previous = last_residual;
            if (rank == 0 && (it == 1 || it % (o.residual_every * 10) == 0 || it == o.iterations))
                std::printf("  iteration %6d  residual %.6e (%.4g %% of the first)\n", it,
                            last_residual, 100.0 * last_residual / first_residual);
        }
        if (checkpoints && it % o.checkpoint_every == 0) {
            const double c0 = MPI_Wtime();
            io_error = solver.checkpoint(o.checkpoint, o.sync);
            checkpoint_time += MPI_Wtime() - c0;
            if (io_error != MPI_SUCCESS) break;
            ++checkpoints_written;
        }
    }
    const double t1 = MPI_Wtime();
    // MPI-IO errors come back on every rank of the collective call alike.
    if (io_error != MPI_SUCCESS)
        throw UsageError("--checkpoint: cannot write '" + o.checkpoint + "' (" +
                         mpi_error(io_error) + "), expected a writable path");

    double mine[2] = {t1 - t0, checkpoint_time}, slowest[2] = {0, 0};
    MPI_Reduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    const double local_error = solver.max_error();
    double error = 0;
    MPI_Reduce(&local_error, &error, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    double mismatches = 0, all_mismatches = 0;
    if (o.verify) {
        const int rc = solver.verify(o.checkpoint, mismatches);
        if (rc != MPI_SUCCESS)
            throw UsageError("--verify: cannot read '" + o.checkpoint + "' (" + mpi_error(rc) +
                             ")");
        MPI_Reduce(&mismatches, &all_mismatches, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    }
    if (rank == 0) {
        const std::uint64_t file_bytes = static_cast<std::uint64_t>(o.size) *
                                         static_cast<std::uint64_t>(o.size) * sizeof(double);
        std::printf("\niterations done     %d\n", o.iterations);
        std::printf(
            "final residual      %.6e (RMS of f + Δu, dimensionless; %.4g %% of the "
            "first, %s)\n",
            last_residual, 100.0 * last_residual / first_residual,
            monotone ? "decreasing" : "NOT decreasing");
        std::printf("max error           %.6e (vs the exact solution, dimensionless)\n", error);
        std::printf("total time          %s (max over ranks)\n",
                    format_seconds(slowest[0]).c_str());
        std::printf("time per iteration  %s\n", format_seconds(slowest[0] / o.iterations).c_str());
        if (checkpoints) {
            std::printf(
                "checkpoint time     %s (max over ranks; %d checkpoints of %s, %.3g %% of "
                "the total)\n",
                format_seconds(slowest[1]).c_str(), checkpoints_written,
                format_bytes(file_bytes).c_str(), 100.0 * slowest[1] / slowest[0]);
            if (checkpoints_written > 0 && slowest[1] > 0)
                std::printf("checkpoint rate     %s\n",
                            format_bandwidth(static_cast<double>(file_bytes) * checkpoints_written /
                                             slowest[1])
                                .c_str());
        }
        if (o.verify)
            std::printf("checkpoint check    %s (%.0f of %.0f values differ)\n",
                        all_mismatches == 0 ? "ok" : "FAILED", all_mismatches,
                        static_cast<double>(o.size) * o.size);
    }
    return (rank == 0 && (!monotone || all_mismatches != 0)) ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    return run_program(kProgram, argc, argv,
                       [&](int rank) { return jacobi_main(rank, argc, argv); });
}
