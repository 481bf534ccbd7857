// MEASURE's file I/O probes: one rank's pass (cached, small synced and synced writes into
// --io-dir through MPI-IO on MPI_COMM_SELF), the collective open and close on MPI_COMM_WORLD, and
// the file system's type (measure_parts.hpp).

// Open MPI and MPICH pull their C++ bindings into C++ code from mpi.h; only the C API is used.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <sched.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "simulator/quantity.hpp"

#include "tools/mpi/calibrate/calibrate.hpp"
#include "tools/mpi/calibrate/measure_parts.hpp"

namespace clustersim::calibrate {

namespace {

std::string mpi_error_text(int rc) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) return strf("MPI error %d", rc);
    return std::string(text, static_cast<std::size_t>(std::max(0, len)));
}

}  // namespace

std::string io_file(const Settings& s) {
    return s.io_dir + strf("/clustersim-calibrate-%ld.tmp", static_cast<long>(::getpid()));
}

// Writes `bytes` at offset 0 of a fresh `path` in `transfer`-byte calls, optionally syncs,
// closes and deletes the file; the times of the phases go to `open`, `write`, `sync`,
// `close`. Returns an error text, empty on success.
std::string io_write_file(const std::string& path, std::uint64_t bytes, std::uint64_t transfer,
                          bool sync, const std::vector<char>& buffer, double& open, double& write,
                          double& synced, double& close) {
    MPI_File_delete(path.c_str(), MPI_INFO_NULL);  // a leftover of an interrupted run
    MPI_File fh = MPI_FILE_NULL;
    const double t0 = MPI_Wtime();
    int rc = MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                           MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) return "MPI_File_open: " + mpi_error_text(rc);
    const double t1 = MPI_Wtime();
    for (std::uint64_t at = 0; at < bytes && rc == MPI_SUCCESS; at += transfer) {
        const int count = static_cast<int>(std::min(transfer, bytes - at));
        rc = MPI_File_write_at(fh, static_cast<MPI_Offset>(at), buffer.data(), count, MPI_BYTE,
                               MPI_STATUS_IGNORE);
    }
    const double t2 = MPI_Wtime();
    if (rc == MPI_SUCCESS && sync) rc = MPI_File_sync(fh);
    const double t3 = MPI_Wtime();
    const int rc_close = MPI_File_close(&fh);
    const double t4 = MPI_Wtime();
    MPI_File_delete(path.c_str(), MPI_INFO_NULL);
    if (rc != MPI_SUCCESS)
        return (sync ? "MPI_File_write_at / MPI_File_sync: " : "MPI_File_write_at: ") +
               mpi_error_text(rc);
    if (rc_close != MPI_SUCCESS) return "MPI_File_close: " + mpi_error_text(rc_close);
    open = t1 - t0;
    write = t2 - t1;
    synced = t3 - t2;
    close = t4 - t3;
    return {};
}

IoPass io_pass(const Settings& s, const std::vector<char>& buffer) {
    IoPass p;
    const std::string path = io_file(s);
    double ignore = 0;
    p.error = io_write_file(path, s.io_size, s.io_transfer, false, buffer, p.open, p.write_cached,
                            ignore, p.close);
    for (int i = 0; i < kSmallSyncs && p.error.empty(); ++i) {
        double write = 0, sync = 0;
        p.error = io_write_file(path, s.io_transfer, s.io_transfer, true, buffer, ignore, write,
                                sync, ignore);
        p.write_small.push_back(write);
        p.sync_small.push_back(sync);
    }
    if (p.error.empty())
        p.error = io_write_file(path, s.io_size, s.io_transfer, true, buffer, ignore,
                                p.write_synced, p.sync, ignore);
    if (p.error.empty()) {
        double write = 0;
        p.error = io_write_file(path, kSmallWrites * kSmallWriteBytes, kSmallWriteBytes, false,
                                buffer, ignore, write, ignore, ignore);
        p.small_write = write / kSmallWrites;
    }
    return p;
}

// io_world: measure_parts.hpp.

IoWorld io_world(const Settings& s, int rank) {
    IoWorld w;
    const std::string path = s.io_dir + "/clustersim-calibrate-world.tmp";
    for (int i = 0; i < 2 * kWorldOpens; ++i) {
        const bool late = i >= kWorldOpens;
        if (rank == 0) MPI_File_delete(path.c_str(), MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File fh = MPI_FILE_NULL;
        const double t0 = MPI_Wtime();
        int rc = MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                               MPI_INFO_NULL, &fh);
        const double t1 = MPI_Wtime();
        int ok = rc == MPI_SUCCESS ? 1 : 0, all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all == 0) {
            if (rc == MPI_SUCCESS) MPI_File_close(&fh);
            w.error = "MPI_File_open on MPI_COMM_WORLD failed";
            return w;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (late && rank != 0) {
            const double until = MPI_Wtime() + kLateClose;
            while (MPI_Wtime() < until) {
            }
        }
        const double t2 = MPI_Wtime();
        MPI_File_close(&fh);
        const double t3 = MPI_Wtime();
        if (late) {
            w.late_close.push_back(t3 - t2);
        } else {
            w.open.push_back(t1 - t0);
            w.close.push_back(t3 - t2);
        }
    }
    // Concurrent syncs of one file: every rank writes its block, then all sync at once. A
    // pass's figure is (the end of the last rank to enter the sync - the end of the first to
    // enter) / (world - 1), on MPI_Wtime: the model's k-th rank to enter ends k sync-apart
    // after the first, however late it entered. It needs one clock, so it is measured only
    // when every rank runs on one host (the same processor name).
    int world = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    std::vector<char> names(static_cast<std::size_t>(world) * MPI_MAX_PROCESSOR_NAME);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME,
               MPI_CHAR, 0, MPI_COMM_WORLD);
    int one_host = 1;
    if (rank == 0)
        for (int r = 1; r < world; ++r)
            if (std::strncmp(names.data(), names.data() + r * MPI_MAX_PROCESSOR_NAME,
                             MPI_MAX_PROCESSOR_NAME) != 0)
                one_host = 0;
    MPI_Bcast(&one_host, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (world < 2 || one_host == 0) return w;
    if (rank == 0) MPI_File_delete(path.c_str(), MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh = MPI_FILE_NULL;
    int rc = MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                           MPI_INFO_NULL, &fh);
    int ok = rc == MPI_SUCCESS ? 1 : 0, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all == 0) {
        if (rc == MPI_SUCCESS) MPI_File_close(&fh);
        w.error = "MPI_File_open on MPI_COMM_WORLD failed (concurrent syncs)";
        return w;
    }
    std::vector<char> block(kSyncApartBytes, 'x');
    std::vector<double> times(2 * static_cast<std::size_t>(world));
    for (int pass = 0; pass < kSyncApartPasses && ok != 0; ++pass) {
        const auto at = static_cast<MPI_Offset>(
            (static_cast<std::uint64_t>(pass) * static_cast<std::uint64_t>(world) +
             static_cast<std::uint64_t>(rank)) *
            kSyncApartBytes);
        rc = MPI_File_write_at(fh, at, block.data(), static_cast<int>(block.size()), MPI_BYTE,
                               MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        double t[2] = {MPI_Wtime(), 0};
        if (rc == MPI_SUCCESS) rc = MPI_File_sync(fh);
        t[1] = MPI_Wtime();
        ok = rc == MPI_SUCCESS ? 1 : 0;
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Gather(t, 2, MPI_DOUBLE, times.data(), 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0 && ok != 0) {
            std::size_t first = 0, last = 0;  // by entry
            for (std::size_t r = 1; r < static_cast<std::size_t>(world); ++r) {
                if (times[2 * r] < times[2 * first]) first = r;
                if (times[2 * r] >= times[2 * last]) last = r;
            }
            // A pass where the first to enter ended last counts as no apart (the model has none).
            w.sync_apart.push_back(
                std::max(0.0, (times[2 * last + 1] - times[2 * first + 1]) / (world - 1)));
        }
    }
    MPI_File_close(&fh);
    if (ok == 0) w.sync_apart.clear();  // a failed write or sync: not measured
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) MPI_File_delete(path.c_str(), MPI_INFO_NULL);
    return w;
}

// The file system type of `dir` (statfs), as a name where it is a common one.
std::string fs_type(const std::string& dir) {
    struct statfs st {};
    if (::statfs(dir.c_str(), &st) != 0) return "unknown";
    const auto magic = static_cast<unsigned long>(st.f_type);
    const std::pair<unsigned long, const char*> known[] = {
        {0xEF53, "ext2/3/4"},  {0x58465342, "xfs"},     {0x9123683E, "btrfs"},
        {0x01021994, "tmpfs"}, {0x794C7630, "overlay"}, {0x6969, "nfs"},
        {0x65735546, "fuse"},  {0x2FC12FC1, "zfs"},     {0x47504653, "gpfs"},
        {0x0BD00BD0, "lustre"}};
    for (const auto& [m, name] : known)
        if (m == magic) return name;
    return strf("type 0x%lx", magic);
}

}  // namespace clustersim::calibrate
