// The DUMPI reader: SST's traces (NAME.meta and one NAME-NNNN.bin per rank, decoded by
// dumpi_decode.cpp's read_dumpi_file), each rank's calls mapped to records through the shared
// CallMapper (call_mapper.hpp). Semantics: traces/README.md, "DUMPI".
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "traces/call_mapper.hpp"
#include "traces/dumpi.hpp"
#include "traces/otf2_common.hpp"
#include "traces/reader.hpp"

namespace clustersim::traces {

namespace {

namespace fs = std::filesystem;

// ---- mapping to records -------------------------------------------------------------------

struct Meta {
    std::string prefix;
    std::uint32_t ranks = 0;
};

Meta read_meta(const std::string& path) {
    refuse_non_file(path);
    std::ifstream in(path);
    if (!in) throw InputError(path, 0, "cannot open for reading");
    Meta m;
    std::string line;
    int n = 0;
    bool have_ranks = false;
    while (std::getline(in, line)) {
        ++n;
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        const std::string k = line.substr(0, eq), v = line.substr(eq + 1);
        if (k == "numprocs") {
            try {
                std::size_t used = 0;
                const long x = std::stol(v, &used);
                if (used != v.size() || x <= 0 || x > (1 << 22)) throw std::invalid_argument(v);
                m.ranks = static_cast<std::uint32_t>(x);
                have_ranks = true;
            } catch (const std::exception&) {
                throw InputError(path, n,
                                 fmt::format("numprocs: expected a positive rank "
                                             "count, got '{}'",
                                             v));
            }
        } else if (k == "fileprefix") {
            m.prefix = v;
        }
    }
    if (!have_ranks) throw InputError(path, 0, "no 'numprocs=' line");
    if (m.prefix.empty()) throw InputError(path, 0, "no 'fileprefix=' line");
    return m;
}

// One rank's DUMPI calls as MpiCalls for its CallMapper (call_mapper.hpp): DUMPI's argument
// names, datatype sizes, MPI_COMM_WORLD (2), MPI_COMM_SELF (3) and MPI_COMM_NULL (1) are
// DUMPI's; the request and communicator tables, waits, compute gaps and count lists are the
// mapper's.
class DumpiRankDecoder {
  public:
    DumpiRankDecoder(CallMapper& m, const DumpiFile& f, const std::string& path,
                     std::int64_t origin_ns, std::map<std::string, std::uint64_t>& notes)
        : m_(m), f_(f), path_(path), origin_(origin_ns), notes_(notes) {
        m_.comms().bind(2, 0);  // MPI_COMM_WORLD
        m_.on_failure([this](const std::string& what) {
            return InputError(
                path_, 0, fmt::format("record {} ({}): {}", index_, f_.calls[index_].name, what));
        });
    }

    void run() {
        for (std::size_t i = 0; i < f_.calls.size(); ++i) {
            const DumpiCall& c = f_.calls[i];
            index_ = i;
            if (c.name == "function_enter" || c.name == "function_exit") {
                // markers of profiled user functions: part of the compute between calls
                ++notes_["user-function enter/exit markers: part of the compute"];
                continue;
            }
            if (c.has_wall)
                m_.timed_call(Time::ps((c.wall_start - origin_) * 1000),
                              Time::ps((c.wall_end - origin_) * 1000));
            map(c);
        }
    }

  private:
    std::uint64_t dsize(std::int64_t dt) const {
        if (dt < 0 || static_cast<std::size_t>(dt) >= f_.datatype_sizes.size())
            m_.fail(fmt::format("datatype {} has no size in the file's datatype table ({} entries)",
                                dt, f_.datatype_sizes.size()));
        return f_.datatype_sizes[static_cast<std::size_t>(dt)];
    }
    std::uint64_t bytes(const DumpiCall& c, const char* count, const char* type) const {
        const std::int64_t n = c.arg(count);
        if (n < 0) m_.fail(fmt::format("negative {} {}", count, n));
        return static_cast<std::uint64_t>(n) * dsize(c.arg(type));
    }
    // The call with its times, as the mapper takes it.
    MpiCall call(const DumpiCall& c, mpi::OpKind kind) const {
        MpiCall m;
        m.rec.kind = kind;
        m.name = c.name;
        if (c.has_wall) {
            m.timed = true;
            m.start = Time::ps((c.wall_start - origin_) * 1000);
            m.end = Time::ps((c.wall_end - origin_) * 1000);
        }
        return m;
    }
    void unmodeled(const DumpiCall& c) { m_.map_unmodeled(call(c, mpi::OpKind::Unmodeled)); }
    void map_or_unmodeled(const DumpiCall& c, const MpiCall& m) {
        if (m_.map(m) != CallMapper::Mapped::Yes) unmodeled(c);
    }
    // The rank's handle of the call's communicator `arg`; false (noted) if the trace did not
    // create it on this rank: the call is unmodeled.
    bool comm(const DumpiCall& c, const char* arg, std::int32_t& out) {
        const auto h = m_.comms().find(c.arg(arg));
        if (!h) {
            ++notes_[c.arg(arg) == 3 ? "calls on MPI_COMM_SELF: unmodeled"
                                     : "calls on a communicator the trace did not create: "
                                       "unmodeled"];
            return false;
        }
        out = *h;
        return true;
    }
    // A completion of `requests` (a Wait, or a Waitall when `all`); unmodeled if none is open.
    void waits(const DumpiCall& c, std::vector<std::int64_t> requests, bool all) {
        MpiCall m = call(c, mpi::OpKind::Wait);
        m.completes = std::move(requests);
        m.all = all;
        map_or_unmodeled(c, m);
    }

    void map(const DumpiCall& c) {
        const std::string& n = c.name;
        // point-to-point
        if (n == "MPI_Send" || n == "MPI_Bsend" || n == "MPI_Ssend" || n == "MPI_Rsend")
            return p2p(c, mpi::OpKind::Send, "dest");
        if (n == "MPI_Recv") return p2p(c, mpi::OpKind::Recv, "source");
        if (n == "MPI_Isend" || n == "MPI_Ibsend" || n == "MPI_Issend" || n == "MPI_Irsend")
            return p2p(c, mpi::OpKind::Isend, "dest");
        if (n == "MPI_Irecv") return p2p(c, mpi::OpKind::Irecv, "source");
        if (n == "MPI_Sendrecv") return sendrecv(c);
        // waits and tests
        if (n == "MPI_Wait") return waits(c, {c.arg("request")}, false);
        if (n == "MPI_Waitall") return waits(c, *c.array("requests"), true);
        if (n == "MPI_Waitany" || n == "MPI_Testany") return wait_any(c);
        if (n == "MPI_Waitsome" || n == "MPI_Testsome") return wait_some(c);
        if (n == "MPI_Test") {
            if (c.arg("flag") == 0) return unmodeled(c);
            return waits(c, {c.arg("request")}, false);
        }
        if (n == "MPI_Testall") {
            if (c.arg("flag") == 0) return unmodeled(c);
            return waits(c, *c.array("requests"), true);
        }
        // communicators
        if (n == "MPI_Comm_split" || n == "MPI_Comm_dup" || n == "MPI_Comm_create")
            return comm_create(c);
        if (n == "MPI_Comm_free") return comm_free(c);
        if (n == "MPI_Cart_create") return cart_create(c);
        // collectives
        mpi::CollOp op{};
        bool nb = false;
        if (coll_from_mpi_name(n, op, nb) && !nb) return collective(c, op);
        // MPI-IO
        if (n.rfind("MPI_File_", 0) == 0 && c.has("file")) return file_io(c);
        unmodeled(c);
    }

    void p2p(const DumpiCall& c, mpi::OpKind k, const char* peer) {
        std::int32_t cm = 0;
        if (!comm(c, "comm", cm)) return unmodeled(c);
        MpiCall m = call(c, k);
        m.comm = c.arg("comm");
        // -1 is DUMPI's MPI_ANY_SOURCE (receives only); other negative peers are
        // MPI_PROC_NULL, whose value the traced MPI chose: no transfer
        const std::int64_t p = c.arg(peer);
        const bool receive = k == mpi::OpKind::Recv || k == mpi::OpKind::Irecv;
        if (p < (receive ? -1 : 0)) return unmodeled(c);
        Record& r = m.rec;
        r.peer = static_cast<std::int32_t>(p);
        r.tag = static_cast<std::int32_t>(c.arg("tag"));
        if (r.tag < 0) r.tag = mpi::kAnyTag;
        r.bytes = bytes(c, "count", "datatype");
        if (k == mpi::OpKind::Isend || k == mpi::OpKind::Irecv) m.request = c.arg("request");
        map_or_unmodeled(c, m);
    }
    void sendrecv(const DumpiCall& c) {
        std::int32_t cm = 0;
        if (!comm(c, "comm", cm)) return unmodeled(c);
        MpiCall m = call(c, mpi::OpKind::Sendrecv);
        m.comm = c.arg("comm");
        Record& r = m.rec;
        r.peer = static_cast<std::int32_t>(c.arg("dest"));
        r.tag = static_cast<std::int32_t>(c.arg("sendtag"));
        r.bytes = bytes(c, "sendcount", "sendtype");
        r.peer2 = static_cast<std::int32_t>(c.arg("source"));
        r.tag2 = static_cast<std::int32_t>(c.arg("recvtag"));
        r.bytes2 = bytes(c, "recvcount", "recvtype");
        map_or_unmodeled(c, m);
    }

    // MPI_Waitany, MPI_Testany
    void wait_any(const DumpiCall& c) {
        const auto& reqs = *c.array("requests");
        const std::int64_t i = c.arg("index");
        if ((c.name == "MPI_Testany" && c.arg("flag") == 0) || i < 0 ||
            static_cast<std::size_t>(i) >= reqs.size())
            return unmodeled(c);
        waits(c, {reqs[static_cast<std::size_t>(i)]}, false);
    }
    // MPI_Waitsome, MPI_Testsome
    void wait_some(const DumpiCall& c) {
        const auto& reqs = *c.array("requests");
        std::vector<std::int64_t> done;
        for (std::int64_t i : *c.array("indices"))
            if (i >= 0 && static_cast<std::size_t>(i) < reqs.size())
                done.push_back(reqs[static_cast<std::size_t>(i)]);
        waits(c, std::move(done), false);
    }

    // MPI_Comm_split, MPI_Comm_dup, MPI_Comm_create
    void comm_create(const DumpiCall& c) {
        const std::string& n = c.name;
        std::int32_t cm = 0;
        if (!comm(c, "oldcomm", cm)) return unmodeled(c);
        MpiCall m = call(c, mpi::OpKind::CommDup);
        m.comm = c.arg("oldcomm");
        Record& r = m.rec;
        const std::int64_t nc = c.arg("newcomm");
        if (n != "MPI_Comm_dup") {
            r.kind = mpi::OpKind::CommSplit;
            if (n == "MPI_Comm_split") {
                r.color = static_cast<std::int32_t>(c.arg("color"));
                r.key = static_cast<std::int32_t>(c.arg("key"));
                if (r.color < 0) r.color = mpi::kUndefined;
            } else {
                // Comm_create: the group is not in the trace; members are the ranks
                // that got a communicator (COMM_NULL is 1).
                r.color = nc == 1 ? mpi::kUndefined : 0;
                r.key = static_cast<std::int32_t>(m_.rank());
                ++notes_
                    ["MPI_Comm_create: split by whether the rank got a "
                     "communicator, ordered by world rank"];
            }
        }
        if (nc != 1 && r.color != mpi::kUndefined) m.newcomm = nc;
        map_or_unmodeled(c, m);
    }
    void comm_free(const DumpiCall& c) {
        std::int32_t cm = 0;
        if (!comm(c, "comm", cm)) return unmodeled(c);
        MpiCall m = call(c, mpi::OpKind::CommFree);
        m.comm = c.arg("comm");  // the id may be reused for a later communicator
        map_or_unmodeled(c, m);
    }
    void cart_create(const DumpiCall& c) {  // DUMPI is MPI-2: no dist graphs, no neighbour calls
        std::int32_t cm = 0;
        if (!comm(c, "oldcomm", cm)) return unmodeled(c);
        const auto& dims = *c.array("dims");
        const auto& periods = *c.array("periods");
        if (dims.empty() || dims.size() != periods.size()) return unmodeled(c);
        mpi::TopoSpec spec;
        for (std::size_t i = 0; i < dims.size(); ++i) {
            if (dims[i] <= 0 || dims[i] > INT32_MAX) return unmodeled(c);
            spec.dims.push_back(static_cast<std::int32_t>(dims[i]));
            spec.periods.push_back(periods[i] != 0 ? 1 : 0);
        }
        spec.reorder = c.arg("reorder") != 0;
        MpiCall m = call(c, mpi::OpKind::CartCreate);
        m.comm = c.arg("oldcomm");
        m.rec.counts = m_.trace().add_counts(mpi::encode_topo_spec(m.rec.kind, spec));
        const std::int64_t nc = c.arg("newcomm");
        if (nc != 1) m.newcomm = nc;  // 1: MPI_COMM_NULL
        map_or_unmodeled(c, m);
    }

    // A blocking collective.
    void collective(const DumpiCall& c, mpi::CollOp op) {
        std::int32_t cm = 0;
        if (!comm(c, "comm", cm)) return unmodeled(c);
        MpiCall m = call(c, mpi::OpKind::Collective);
        m.comm = c.arg("comm");
        Record& r = m.rec;
        r.coll = op;
        if (c.has("root")) r.root = static_cast<std::int32_t>(c.arg("root"));
        using mpi::CollOp;
        switch (op) {
            case CollOp::Barrier:
                break;
            case CollOp::Bcast:
            case CollOp::Reduce:
            case CollOp::Allreduce:
            case CollOp::Scan:
            case CollOp::Exscan:
                r.bytes = bytes(c, "count", "datatype");
                break;
            case CollOp::ReduceScatterBlock:
                r.bytes = bytes(c, "recvcount", "datatype");
                break;
            case CollOp::Alltoallw:
                // per-pair datatypes: the sizes need every type's size and the receive
                // side; kept as its recorded duration
                return unmodeled(c);
            case CollOp::NeighborAllgather:  // not in DUMPI's (MPI-2) call table
            case CollOp::NeighborAllgatherv:
            case CollOp::NeighborAlltoall:
            case CollOp::NeighborAlltoallv:
            case CollOp::NeighborAlltoallw:
                return unmodeled(c);
            case CollOp::Gather:
            case CollOp::Allgather:
            case CollOp::Alltoall:
                r.bytes = bytes(c, "sendcount", "sendtype");
                break;
            case CollOp::Scatter:
                r.bytes = bytes(c, "recvcount", "recvtype");
                break;
            case CollOp::ReduceScatter: {
                const auto& rc = *c.array("recvcounts");
                std::uint64_t sum = 0;
                for (auto x : rc) sum += static_cast<std::uint64_t>(std::max<std::int64_t>(x, 0));
                const std::uint64_t k = rc.empty() ? 0 : (sum + rc.size() - 1) / rc.size();
                r.bytes = k * dsize(c.arg("datatype"));
                break;
            }
            case CollOp::Gatherv:
            case CollOp::Scatterv:
            case CollOp::Allgatherv:
                r.counts = v_counts(c, op);
                break;
            case CollOp::Alltoallv:
                r.counts = alltoallv_counts(c, cm);
                break;
        }
        map_or_unmodeled(c, m);
    }
    // The count list of a Gatherv, Scatterv or Allgatherv: every rank's count where the call
    // has them, else this rank's.
    std::int32_t v_counts(const DumpiCall& c, mpi::CollOp op) {
        using mpi::CollOp;
        const auto size = static_cast<std::size_t>(c.arg("commsize"));
        const std::int32_t counts = m_.count_list(c.arg("comm"), op, size);
        auto& l = m_.counts(counts);
        const char* arr = op == CollOp::Scatterv ? "sendcounts" : "recvcounts";
        const char* type = op == CollOp::Scatterv ? "sendtype" : "recvtype";
        if (const auto* all = c.array(arr); all && all->size() == size) {
            for (std::size_t i = 0; i < size; ++i)
                l[i] = static_cast<std::uint64_t>(std::max<std::int64_t>((*all)[i], 0)) *
                       dsize(c.arg(type));
        } else if (c.has("commrank")) {
            const auto me = static_cast<std::size_t>(c.arg("commrank"));
            if (me < size)
                l[me] = op == CollOp::Scatterv ? bytes(c, "recvcount", "recvtype")
                                               : bytes(c, "sendcount", "sendtype");
        }
        return counts;
    }
    // The count matrix of an Alltoallv on the rank's communicator `cm`: this rank's row.
    std::int32_t alltoallv_counts(const DumpiCall& c, std::int32_t cm) {
        const auto size = static_cast<std::size_t>(c.arg("commsize"));
        const std::int32_t counts =
            m_.count_list(c.arg("comm"), mpi::CollOp::Alltoallv, size * size);
        auto& l = m_.counts(counts);
        const auto* sc = c.array("sendcounts");
        // the row of this rank: its rank in the communicator is known for
        // MPI_COMM_WORLD only
        const std::size_t me = cm == 0 ? m_.rank() : 0;
        if (cm != 0)
            ++notes_
                ["MPI_Alltoallv on a split communicator: its row "
                 "is written as row 0"];
        if (sc && sc->size() == size && me < size)
            for (std::size_t j = 0; j < size; ++j)
                l[me * size + j] = static_cast<std::uint64_t>(std::max<std::int64_t>((*sc)[j], 0)) *
                                   dsize(c.arg("sendtype"));
        return counts;
    }

    // MPI_File_* on a file
    void file_io(const DumpiCall& c) {
        const std::string& n = c.name;
        MpiCall m = call(c, mpi::OpKind::FileOpen);
        Record& r = m.rec;
        std::int32_t cm = 0;
        if (n == "MPI_File_open") {
            if (!comm(c, "comm", cm)) return unmodeled(c);
            m.comm = c.arg("comm");
            r.file = static_cast<std::uint32_t>(c.arg("file"));
            for (const auto& [k, v] : c.strings)
                if (k == "filename") r.path = m_.trace().intern(v);
            return map_or_unmodeled(c, m);
        }
        r.file = static_cast<std::uint32_t>(c.arg("file"));
        if (n == "MPI_File_close")
            r.kind = mpi::OpKind::FileClose;
        else if (n == "MPI_File_sync")
            r.kind = mpi::OpKind::FileSync;
        else if (n == "MPI_File_seek") {
            r.kind = mpi::OpKind::FileSeek;
            r.offset = static_cast<std::uint64_t>(c.arg("offset"));
            const std::int64_t w = c.arg("whence");
            // DUMPI whences: 1 set, 2 cur, 3 end (0 is its error value)
            if (w < 1 || w > 3) return unmodeled(c);
            r.whence = w == 1 ? mpi::kSeekSet : w == 2 ? mpi::kSeekCur : mpi::kSeekEnd;
        } else if (n == "MPI_File_set_view") {
            r.kind = mpi::OpKind::FileSetView;
            r.offset = static_cast<std::uint64_t>(c.arg("offset"));
            ++notes_
                ["MPI_File_set_view: the filetype's layout is not in DUMPI traces: "
                 "a contiguous view"];
        } else {
            static const std::map<std::string, mpi::OpKind> rw = {
                {"MPI_File_read", mpi::OpKind::FileRead},
                {"MPI_File_write", mpi::OpKind::FileWrite},
                {"MPI_File_read_all", mpi::OpKind::FileReadAll},
                {"MPI_File_write_all", mpi::OpKind::FileWriteAll},
                {"MPI_File_read_at", mpi::OpKind::FileReadAt},
                {"MPI_File_write_at", mpi::OpKind::FileWriteAt},
                {"MPI_File_read_at_all", mpi::OpKind::FileReadAtAll},
                {"MPI_File_write_at_all", mpi::OpKind::FileWriteAtAll}};
            auto it = rw.find(n);
            if (it == rw.end()) return unmodeled(c);
            r.kind = it->second;
            r.bytes = bytes(c, "count", "datatype");
            if (c.has("offset")) r.offset = static_cast<std::uint64_t>(c.arg("offset"));
        }
        map_or_unmodeled(c, m);
    }

    CallMapper& m_;
    const DumpiFile& f_;
    std::string path_;
    std::int64_t origin_;
    std::map<std::string, std::uint64_t>& notes_;
    std::size_t index_ = 0;
};

std::string meta_of(const std::string& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        std::string found;
        for (const auto& e : fs::directory_iterator(path, ec))
            // Hidden files are not the trace's: a folder unpacked from a tarball made on macOS
            // holds AppleDouble "._NAME.meta" companions beside NAME.meta.
            if (e.path().extension() == ".meta" &&
                e.path().filename().string().rfind('.', 0) != 0) {
                if (!found.empty())
                    throw InputError(path, 0, "the folder holds more than one DUMPI .meta file");
                found = e.path().string();
            }
        if (found.empty()) throw InputError(path, 0, "the folder holds no DUMPI .meta file");
        return found;
    }
    // one rank's file NAME-NNNN.bin: the trace is NAME.meta beside it
    const fs::path p(path);
    const std::string stem = p.stem().string();
    const auto dash = stem.rfind('-');
    if (p.extension() == ".bin" && dash != std::string::npos && dash + 1 < stem.size() &&
        stem.find_first_not_of("0123456789", dash + 1) == std::string::npos) {
        const fs::path meta = p.parent_path() / (stem.substr(0, dash) + ".meta");
        std::error_code ec2;
        if (!fs::exists(meta, ec2))
            throw InputError(
                path, 0,
                fmt::format("a DUMPI rank file: its trace's '{}' is missing", meta.string()));
        return meta.string();
    }
    return path;
}

class DumpiReader final : public TraceReader {
  public:
    std::string name() const override { return "dumpi"; }
    std::string description() const override {
        return "DUMPI trace (SST): NAME.meta with one NAME-NNNN.bin per rank";
    }
    bool sniff(const std::string& path, const std::string& head) const override {
        // A folder holding one trace is read through its .meta (meta_of): it is the .meta's
        // sniff, so found without --format.
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            try {
                const std::string meta = meta_of(path);
                return !fs::is_directory(meta, ec) && sniff(meta, read_head(meta));
            } catch (const InputError&) {
                return false;
            }
        }
        if (head.size() >= 8 && static_cast<unsigned char>(head[0]) == 0xff &&
            head.compare(4, 4, "UMPI") == 0)
            return true;  // one rank's .bin: the whole trace is read through its .meta
        return fs::path(path).extension() == ".meta" &&
               head.find("numprocs=") != std::string::npos &&
               head.find("fileprefix=") != std::string::npos;
    }
    Trace read(const std::string& given, const ReadOptions&, ReadReport& report) const override {
        const std::string meta_path = meta_of(given);
        const Meta meta = read_meta(meta_path);
        report.inputs.push_back(meta_path);
        const fs::path dir = fs::path(meta_path).parent_path();
        std::vector<DumpiFile> files;
        std::vector<std::string> paths;
        std::int64_t origin = std::numeric_limits<std::int64_t>::max();
        bool untimed = false;
        for (std::uint32_t r = 0; r < meta.ranks; ++r) {
            const std::string p = (dir / fmt::format("{}-{:04d}.bin", meta.prefix, r)).string();
            std::error_code ec;
            if (!fs::exists(p, ec))
                throw InputError(meta_path, 0,
                                 fmt::format("rank {} of numprocs={}: its file '{}' is missing", r,
                                             meta.ranks, p));
            files.push_back(read_dumpi_file(p));
            paths.push_back(p);
            report.inputs.push_back(p);
            for (const DumpiCall& c : files.back().calls) {
                if (c.has_wall) {
                    origin = std::min(origin, c.wall_start);
                    break;
                }
                untimed = true;
            }
        }
        if (origin == std::numeric_limits<std::int64_t>::max()) origin = 0;
        Trace t;
        t.resize(meta.ranks);
        t.name = meta.prefix;
        t.source = given;
        SharedCountLists lists(t);
        std::map<std::string, std::uint64_t> notes;
        for (std::uint32_t r = 0; r < meta.ranks; ++r) {
            CallMapper mapper(t, report, r, lists);
            DumpiRankDecoder(mapper, files[r], paths[r], origin, notes).run();
        }
        report.notes.push_back(fmt::format(
            "times: wall clock, origin the earliest call start ({} ns since the epoch)", origin));
        if (untimed) report.notes.push_back("some calls carry no wall time: untimed records");
        for (const auto& [what, n] : notes)
            report.notes.push_back(fmt::format("{} ({} calls)", what, n));
        return t;
    }
};

}  // namespace

std::unique_ptr<TraceReader> make_dumpi_reader() {
    return std::make_unique<DumpiReader>();
}

}  // namespace clustersim::traces
