#include "iosys/ior.hpp"

#include <algorithm>
#include <mutex>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim::io {
namespace {

using mpi::Op;
using mpi::OpKind;

[[noreturn]] void fail(const std::string& spec, const std::string& what) {
    throw InputError("--app", 0, fmt::format("'{}': {}", spec, what));
}

// Like IOR: every rank opens the file (shared: one file on MPI_COMM_WORLD; per-rank: its own
// on a communicator of its own), moves `size` bytes in calls of `transfer` bytes, and closes
// it. Contiguous: rank r owns bytes [r*size, (r+1)*size) of a shared file. Strided: the
// ranks' transfers interleave (transfer i of rank r at (i*P + r)*transfer), set up as an
// MPI vector file view. Collective mode uses MPI_File_write_all/read_all.
class Ior final : public IoApp {
  public:
    struct Config {
        bool write = true;
        std::uint64_t size = 0, transfer = 0;
        bool strided = false, collective = false, shared = true, sync = false;
    };
    Ior(Config c, std::uint32_t ranks) : c_(c), p_(ranks), step_(ranks, 0) {
        if (c_.shared) {
            names_.push_back("ior.dat");
        } else {
            for (std::uint32_t r = 0; r < ranks; ++r)
                names_.push_back(fmt::format("ior.dat.{}", r));
        }
    }
    std::vector<FileDecl> files() const override {
        if (c_.write) return {};
        std::vector<FileDecl> out;
        for (const auto& n : names_)
            out.push_back(FileDecl{n, c_.shared ? c_.size * p_ : c_.size, 0});
        return out;
    }
    bool next(std::int32_t rank, Op& op) override {
        std::uint64_t& k = step_[static_cast<std::size_t>(rank)];
        const std::uint64_t calls = c_.size / c_.transfer;
        op = Op{};
        op.file = 0;
        // Steps: [split], open, set_view, calls..., [sync], close.
        std::uint64_t s = k++;
        if (!c_.shared) {
            if (s == 0) {
                op.kind = OpKind::CommSplit;
                op.color = rank;
                op.newcomm = 1;
                return true;
            }
            --s;
        }
        if (s == 0) {
            op.kind = OpKind::FileOpen;
            op.comm = c_.shared ? mpi::kCommWorld : 1;
            op.path = &names_[c_.shared ? 0 : static_cast<std::size_t>(rank)];
            return true;
        }
        if (s == 1) {
            op.kind = OpKind::FileSetView;
            if (c_.shared && c_.strided) {
                op.offset = static_cast<std::uint64_t>(rank) * c_.transfer;
                op.view_block = c_.transfer;
                op.view_stride = c_.transfer * p_;
            } else if (c_.shared) {
                op.offset = static_cast<std::uint64_t>(rank) * c_.size;
            }
            return true;
        }
        s -= 2;
        if (s < calls) {
            op.kind = c_.write ? (c_.collective ? OpKind::FileWriteAll : OpKind::FileWrite)
                               : (c_.collective ? OpKind::FileReadAll : OpKind::FileRead);
            op.bytes = c_.transfer;
            return true;
        }
        s -= calls;
        if (c_.sync && c_.write) {
            if (s == 0) {
                op.kind = OpKind::FileSync;
                return true;
            }
            --s;
        }
        if (s == 0) {
            op.kind = OpKind::FileClose;
            return true;
        }
        return false;
    }
    // The data moved; the run's I/O throughput is the I/O summary's one (run/report.cpp).
    std::vector<mpi::AppResult> summarize(Time) const override {
        const std::uint64_t total = c_.size * p_;
        return {{c_.write ? "data written" : "data read", format_size(total),
                 c_.write ? "data_written_bytes" : "data_read_bytes", static_cast<double>(total)}};
    }
    // Steps handed out of [split], open, set_view, calls, [sync], close per rank.
    mpi::ProgramProgress progress() const override {
        const std::uint64_t per_rank =
            (c_.shared ? 0 : 1) + 2 + c_.size / c_.transfer + (c_.sync && c_.write ? 1 : 0) + 1;
        mpi::ProgramProgress p;
        for (const std::uint64_t k : step_) p.done += std::min(k, per_rank);
        p.total = per_rank * step_.size();
        return p;
    }

  private:
    Config c_;
    std::uint64_t p_;
    std::vector<std::uint64_t> step_;
    std::vector<std::string> names_;
};

}  // namespace

void register_io_apps(mpi::AppRegistry& registry) {
    registry.add(mpi::AppInfo{
        "io",
        "IOR-like MPI-IO benchmark: every rank writes or reads `size` bytes in `transfer` calls",
        {
            mpi::app_param("op", "write|read", "write",
                           "write, or read (the file exists before the run, full size)"),
            mpi::app_param("size", "size", "1GiB", "bytes per rank"),
            mpi::app_param("transfer", "size", "1MiB", "bytes per call (size must be a multiple)"),
            mpi::app_param(
                "pattern", "contiguous|strided", "contiguous",
                "contiguous: each rank a block of the file; strided: transfers interleave"),
            mpi::app_param("mode", "independent|collective", "independent",
                           "MPI_File_write/read or the _all collective forms"),
            mpi::app_param("files", "shared|per-rank", "shared",
                           "one shared file, or one file per rank"),
            mpi::app_param("sync", "yes|no", "no", "MPI_File_sync before closing (writes)"),
        },
        1,
        [](const mpi::AppArgs& a, std::uint32_t ranks) -> std::unique_ptr<mpi::App> {
            auto choice = [&](const std::string& key, const char* x, const char* y) {
                const std::string& v = a.values().at(key);
                if (v != x && v != y)
                    fail(a.spec(),
                         fmt::format("parameter '{}' is '{}'; expected {} or {}", key, v, x, y));
                return v == x;
            };
            Ior::Config c;
            c.write = choice("op", "write", "read");
            c.size = a.size("size");
            c.transfer = a.size("transfer");
            c.strided = !choice("pattern", "contiguous", "strided");
            c.collective = !choice("mode", "independent", "collective");
            c.shared = choice("files", "shared", "per-rank");
            c.sync = choice("sync", "yes", "no");
            if (c.transfer == 0) fail(a.spec(), "transfer must be at least 1 B");
            if (c.size % c.transfer != 0)
                fail(a.spec(), fmt::format("size {} is not a multiple of transfer {}",
                                           format_size(c.size), format_size(c.transfer)));
            if (c.strided && !c.shared)
                fail(a.spec(),
                     "pattern=strided interleaves ranks in one file: it needs files=shared");
            return std::make_unique<Ior>(c, ranks);
        }});
}

void add_io_apps() {
    static std::once_flag once;
    std::call_once(once, [] {
        mpi::AppRegistry io_apps;
        register_io_apps(io_apps);
        for (const mpi::AppInfo& a : io_apps.apps()) mpi::apps().add(a);
    });
}

}  // namespace clustersim::io
