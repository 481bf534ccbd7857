#include "traces/merge.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "collectives/program.hpp"
#include "simulator/error.hpp"
#include "traces/rank_file.hpp"

namespace clustersim::traces {

namespace rf = rankfile;
namespace fs = std::filesystem;

namespace {

// The raw kinds are mpi::OpKind values: check they agree.
static_assert(rf::kSend == static_cast<int>(mpi::OpKind::Send));
static_assert(rf::kWaitall == static_cast<int>(mpi::OpKind::Waitall));
static_assert(rf::kCollective == static_cast<int>(mpi::OpKind::Collective));
static_assert(rf::kCommSplit == static_cast<int>(mpi::OpKind::CommSplit));
static_assert(rf::kCartCreate == static_cast<int>(mpi::OpKind::CartCreate));
static_assert(rf::kDistGraphCreateAdjacent ==
              static_cast<int>(mpi::OpKind::DistGraphCreateAdjacent));
static_assert(rf::kDistGraphCreate == static_cast<int>(mpi::OpKind::DistGraphCreate));
static_assert(rf::kFileOpen == static_cast<int>(mpi::OpKind::FileOpen));
static_assert(rf::kFileSync == static_cast<int>(mpi::OpKind::FileSync));
static_assert(rf::kUnmodeled == static_cast<int>(mpi::OpKind::Unmodeled));
static_assert(rf::kCancel == static_cast<int>(mpi::OpKind::Cancel));
static_assert(rf::kCommFree == static_cast<int>(mpi::OpKind::CommFree));
static_assert(rf::kWinCreate == static_cast<int>(mpi::OpKind::WinCreate));
static_assert(rf::kWinFlush == static_cast<int>(mpi::OpKind::WinFlush));

// A rank file's header and size (the records are read later, a piece at a time).
struct RankFile {
    std::string path;
    rf::RawHeader header;
    std::uint64_t size = 0;
};

std::string text_of(const std::array<char, 64>& a) {
    return std::string(a.data(), strnlen(a.data(), a.size()));
}

RankFile read_rank_header(const std::string& path) {
    refuse_non_file(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "cannot open the rank file");
    RankFile f;
    f.path = path;
    std::error_code ec;
    f.size = fs::file_size(path, ec);
    if (ec) throw InputError(path, 0, "cannot open the rank file: " + ec.message());
    std::array<char, sizeof(rf::RawHeader)> head{};
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got < sizeof(rf::RawHeader)) {
        if (got >= rf::kMagic.size() &&
            std::memcmp(head.data(), rf::kMagic.data(), rf::kMagic.size()) != 0)
            throw InputError(path, 0, "not a clustersim rank file (expected magic CSRANK01)");
        throw InputError(path, 0,
                         fmt::format("truncated: the header needs {} bytes, the file has {}",
                                     sizeof(rf::RawHeader), got));
    }
    std::memcpy(&f.header, head.data(), sizeof f.header);
    if (f.header.magic != rf::kMagic)
        throw InputError(path, 0, "not a clustersim rank file (expected magic CSRANK01)");
    if (f.header.endian != rf::kEndianMark)
        throw InputError(path, 0, "written on a host of the other byte order");
    if (f.header.version != rf::kVersion)
        throw InputError(path, 0,
                         fmt::format("rank file version {}; this clustersim reads version {}",
                                     f.header.version, rf::kVersion));
    if (f.header.size <= 0 || f.header.rank < 0 || f.header.rank >= f.header.size)
        throw InputError(
            path, 0, fmt::format("bad header: rank {} of {} ranks", f.header.rank, f.header.size));
    return f;
}

// Reads a rank file's bytes after the header through a fixed buffer (kChunk), so merging
// holds a constant amount of each file whatever its length.
class RankFileReader {
  public:
    static constexpr std::size_t kChunk = 1 << 20;
    explicit RankFileReader(const RankFile& f)
        : f_(f), in_(f.path, std::ios::binary), buf_(kChunk) {
        if (!in_) throw InputError(f.path, 0, "cannot open the rank file");
        in_.seekg(static_cast<std::streamoff>(sizeof(rf::RawHeader)));
        at_ = sizeof(rf::RawHeader);
    }
    std::uint64_t at() const { return at_; }
    std::uint64_t left() const { return f_.size - at_; }
    // Copies the next `n` bytes (the caller checked left() >= n).
    void read(void* dst, std::size_t n) {
        char* out = static_cast<char*>(dst);
        while (n > 0) {
            if (pos_ == len_) fill();
            const std::size_t k = std::min(n, len_ - pos_);
            std::memcpy(out, buf_.data() + pos_, k);
            pos_ += k;
            out += k;
            n -= k;
            at_ += k;
        }
    }

  private:
    void fill() {
        in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        len_ = static_cast<std::size_t>(in_.gcount());
        pos_ = 0;
        if (len_ == 0)  // the file shrank under us
            throw InputError(f_.path, 0, fmt::format("cannot read at byte {}", at_));
    }
    const RankFile& f_;
    std::ifstream in_;
    std::vector<char> buf_;
    std::size_t pos_ = 0, len_ = 0;
    std::uint64_t at_ = 0;
};

std::vector<std::string> expand(const std::vector<std::string>& inputs) {
    std::vector<std::string> files;
    for (const std::string& in : inputs) {
        std::error_code ec;
        if (fs::is_directory(in, ec)) {
            std::vector<std::string> found;
            for (const auto& e : fs::directory_iterator(in, ec))
                if (e.path().extension() == rf::kExtension) found.push_back(e.path().string());
            if (found.empty())
                throw InputError(in, 0,
                                 fmt::format("no rank files (*{}) in this folder", rf::kExtension));
            std::sort(found.begin(), found.end());
            files.insert(files.end(), found.begin(), found.end());
        } else if (fs::exists(in, ec)) {
            files.push_back(in);
        } else {
            throw InputError(in, 0, "no such rank file or folder");
        }
    }
    if (files.empty()) throw InputError("trace merge", 0, "no rank files given");
    return files;
}

// The largest time in ns a record may carry: the simulated-time horizon (2^63-1 ps).
constexpr std::int64_t kMaxTraceNs = INT64_MAX / 1000;

void set_time(Record& r, std::int64_t start_ns, std::int64_t end_ns) {
    r.timed = true;
    r.start = Time::ns(start_ns);
    r.end = Time::ns(std::max(start_ns, end_ns));
}

// The next raw record of `f` and its extra words, checked (after the end-of-trace record:
// nothing; whole; times within the horizon); `n` counts it. Returns its byte offset.
std::uint64_t read_raw_record(RankFileReader& in, const RankFile& f, bool ended, std::uint64_t& n,
                              rf::RawRecord& r, std::vector<std::uint64_t>& extra,
                              MergeReport& report) {
    const std::uint64_t at0 = in.at();
    if (ended)
        throw InputError(
            f.path, 0,
            fmt::format("{} bytes after the end-of-trace record (at byte {})", f.size - at0, at0));
    if (in.left() < sizeof(rf::RawRecord))
        throw InputError(f.path, 0,
                         fmt::format("truncated at byte {}: record {} needs {} bytes, {} left", at0,
                                     n + 1, sizeof(rf::RawRecord), in.left()));
    in.read(&r, sizeof r);
    const std::uint64_t at = in.at();
    const std::size_t extra_bytes = std::size_t{r.extra} * 8;
    if (in.left() < extra_bytes)
        throw InputError(f.path, 0,
                         fmt::format("truncated at byte {}: record {} carries {} more bytes, "
                                     "{} left",
                                     at, n + 1, extra_bytes, in.left()));
    extra.resize(r.extra);
    if (extra_bytes > 0) in.read(extra.data(), extra_bytes);
    ++n;
    ++report.raw_records;
    // Times in ns become picoseconds: past the horizon they would saturate (and a
    // difference of two far-apart ones overflow), so they are refused here.
    if (r.start_ns > kMaxTraceNs || r.start_ns < -kMaxTraceNs || r.end_ns > kMaxTraceNs ||
        r.end_ns < -kMaxTraceNs)
        throw InputError(
            f.path, 0,
            fmt::format(
                "record {} at byte {}: time {} ns passes the simulated-time horizon "
                "(2^63-1 ps, about {:.2f} days)",
                n, at0,
                r.start_ns > kMaxTraceNs || r.start_ns < -kMaxTraceNs ? r.start_ns : r.end_ns,
                Time::horizon_days()));
    return at0;
}

// The fields of record `n` (`call`) its kind keeps in the raw record's extra words `extra`
// (count lists, topology arguments, a path, a Waitall's requests) into `out`. False if it was
// appended here instead (a Waitall of requests that are not consecutive: one Wait each, in
// handle order, all but the last taking no time). The tracer writes its own request and
// communicator handles: no table maps them (traces/call_mapper.hpp is for foreign formats).
bool finish_record(const RankFile& f, std::uint64_t n, const std::string& call,
                   const rf::RawRecord& r, const std::vector<std::uint64_t>& extra, Trace& t,
                   std::uint32_t rank, Record& out, MergeReport& report) {
    switch (r.kind) {
        case rf::kCollective:
            if (r.coll >= mpi::kCollOps)
                throw InputError(f.path, 0,
                                 fmt::format("record {}: unknown collective {}", n, r.coll));
            out.coll = static_cast<mpi::CollOp>(r.coll);
            out.nonblocking = (r.flags & rf::kFlagNonblocking) != 0;
            if (!extra.empty()) out.counts = t.add_counts(extra);
            break;
        case rf::kCartCreate:
        case rf::kDistGraphCreateAdjacent:
        case rf::kDistGraphCreate: {
            mpi::TopoSpec spec;
            if (const std::string e = mpi::decode_topo_spec(out.kind, extra, spec); !e.empty())
                throw InputError(f.path, 0, fmt::format("record {}: {}: {}", n, call, e));
            out.counts = t.add_counts(extra);
            break;
        }
        case rf::kFileOpen: {
            if (std::size_t{r.count} > extra.size() * 8)
                throw InputError(f.path, 0,
                                 fmt::format("record {}: a path of {} bytes in {} bytes", n,
                                             r.count, extra.size() * 8));
            std::string path(r.count, '\0');
            if (r.count > 0) std::memcpy(path.data(), extra.data(), r.count);
            out.path = t.intern(path);
            break;
        }
        case rf::kWaitall: {
            if (extra.size() != r.count || extra.empty())
                throw InputError(f.path, 0,
                                 fmt::format("record {}: a Waitall of {} requests lists {}", n,
                                             r.count, extra.size()));
            std::vector<std::uint64_t> h = extra;
            std::sort(h.begin(), h.end());
            bool contiguous = true;
            for (std::size_t i = 1; i < h.size(); ++i) contiguous &= h[i] == h[i - 1] + 1;
            if (contiguous) {
                out.handle = static_cast<std::uint32_t>(h.front());
                out.count = static_cast<std::uint32_t>(h.size());
                break;
            }
            ++report.waitalls_split;
            for (std::size_t i = 0; i < h.size(); ++i) {
                Record w;
                w.kind = mpi::OpKind::Wait;
                w.handle = static_cast<std::uint32_t>(h[i]);
                set_time(w, r.start_ns, i + 1 == h.size() ? r.end_ns : r.start_ns);
                t.append(rank, w);
            }
            return false;
        }
        default:
            break;
    }
    return true;
}

// One rank file's records into the trace. `drain`, if set, is called with the rank whenever
// its encoded stream in `t` has grown past kDrainBytes (a streaming writer takes it out).
constexpr std::size_t kDrainBytes = 1 << 20;
void merge_rank(const RankFile& f, Trace& t, MergeReport& report,
                const std::function<void(std::uint32_t)>& drain) {
    const auto rank = static_cast<std::uint32_t>(f.header.rank);
    RankFileReader in(f);
    std::uint64_t n = 0;
    std::int64_t prev_end = 0;  // end of the previous call
    std::int64_t flushed = 0;   // tracer flush time since then
    bool ended = false;
    std::vector<std::uint64_t> extra;
    // The compute burst from the previous call's end to `start`, less the buffer writes.
    auto compute_until = [&](std::int64_t start) {
        const std::int64_t burst = start - prev_end - flushed;
        if (burst <= 0) return;
        Record c;
        c.kind = mpi::OpKind::Compute;
        c.compute_time = Time::ns(burst);
        set_time(c, prev_end, start);
        t.append(rank, c);
    };
    while (in.left() > 0) {
        if (drain && t.stream(rank).size() >= kDrainBytes) drain(rank);
        rf::RawRecord r;
        const std::uint64_t at0 = read_raw_record(in, f, ended, n, r, extra, report);
        if (r.kind == rf::kEnd) {
            if (r.bytes != n - 1)
                throw InputError(f.path, 0,
                                 fmt::format("the end-of-trace record counts {} records, the file "
                                             "holds {}",
                                             r.bytes, n - 1));
            compute_until(r.start_ns);  // the last burst: up to MPI_Finalize
            ended = true;
            continue;
        }
        if (r.kind == rf::kFlush) {
            ++report.flushes;
            report.flush_ns +=
                static_cast<std::uint64_t>(std::max<std::int64_t>(0, r.end_ns - r.start_ns));
            flushed += r.end_ns - r.start_ns;
            continue;
        }
        if (r.call >= rf::kCallNames.size())
            throw InputError(
                f.path, 0,
                fmt::format("record {} at byte {}: unknown call number {}", n, at0, r.call));
        const std::string call(rf::kCallNames[r.call]);
        if (r.kind == rf::kPolls) {  // failed polls: their time is in the compute gaps
            // Local queries are calls the program made (the `calls` line names them); a
            // failed poll is not counted as one.
            if (rf::is_local_query(call)) report.calls[call] += r.bytes;
            PollCount& p =
                rf::is_local_query(call) ? report.local_queries[call] : report.failed_polls[call];
            p.calls += r.bytes;
            p.ns += r.bytes2;
            continue;
        }
        ++report.calls[call];
        const bool known = (r.kind >= rf::kSend && r.kind <= rf::kWinFlush);
        if (!known)
            throw InputError(
                f.path, 0,
                fmt::format("record {} at byte {}: unknown record kind {}", n, at0, r.kind));
        compute_until(r.start_ns);
        prev_end = std::max(prev_end, r.end_ns);
        flushed = 0;

        if ((r.flags & rf::kFlagCancelled) != 0 && (r.kind == rf::kWait || r.kind == rf::kWaitall))
            ++report.cancelled_completions;

        Record out;
        out.kind = static_cast<mpi::OpKind>(r.kind);
        set_time(out, r.start_ns, r.end_ns);
        if (r.kind == rf::kUnmodeled) {
            ++report.unmodeled[call];
            report.unmodeled_ns +=
                static_cast<std::uint64_t>(std::max<std::int64_t>(0, r.end_ns - r.start_ns));
            out.path = t.intern(call);
            out.compute_time = Time::ns(std::max<std::int64_t>(0, r.end_ns - r.start_ns));
            t.append(rank, out);
            continue;
        }
        out.peer = r.peer;
        out.tag = r.tag;
        out.peer2 = r.peer2;
        out.tag2 = r.tag2;
        out.comm = r.comm;
        out.root = r.root;
        out.color = r.color;
        out.key = r.key;
        out.handle = r.handle;
        out.newcomm = r.newcomm;
        out.file = r.file;
        out.bytes = r.bytes;
        out.bytes2 = r.bytes2;
        out.offset = r.offset;
        out.view_block = r.view_block;
        out.view_stride = r.view_stride;
        out.whence = r.whence;
        if (mpi::is_onesided(out.kind)) {  // the raw record's `file` is the window handle
            out.win = r.file;
            out.file = 0;
            out.count = r.count;
        }
        if (!finish_record(f, n, call, r, extra, t, rank, out, report)) continue;
        t.append(rank, out);
    }
    if (!ended)
        throw InputError(f.path, 0,
                         fmt::format("truncated: {} records and no end-of-trace record (the run "
                                     "did not reach MPI_Finalize, or the file was cut)",
                                     n));
}

}  // namespace

namespace {

// The rank files of `inputs`, checked to be one complete run (headers only), by rank; and
// the trace's metadata in `t`, the report's run fields.
struct Run {
    std::vector<RankFile> files;
    std::vector<const RankFile*> by_rank;
};

void open_run(const std::vector<std::string>& inputs, const MergeOptions& options,
              MergeReport& report, Run& run, Trace& t) {
    const std::vector<std::string> paths = expand(inputs);
    std::vector<RankFile>& files = run.files;
    files.reserve(paths.size());
    for (const std::string& p : paths) files.push_back(read_rank_header(p));
    const RankFile& first = files.front();
    if (static_cast<std::size_t>(first.header.size) > files.size()) {
        // The header declares more ranks than there are files: name the first missing one
        // without allocating a slot per declared rank (2^31 of them took 16 GiB).
        std::set<std::int32_t> present;
        for (const RankFile& f : files) present.insert(f.header.rank);
        std::int32_t r = 0;
        while (present.count(r)) ++r;
        throw InputError(
            first.path, 0,
            fmt::format("rank {} of the run's {} ranks is missing (expected "
                        "its file {}.r{}{} next to this one)",
                        r, first.header.size, text_of(first.header.program), r, rf::kExtension));
    }
    std::vector<const RankFile*>& by_rank = run.by_rank;
    by_rank.assign(static_cast<std::size_t>(first.header.size), nullptr);
    for (const RankFile& f : files) {
        if (f.header.run_id != first.header.run_id)
            throw InputError(
                f.path, 0,
                fmt::format("from run {:016x}, but {} is from run {:016x}: rank files of two "
                            "different runs",
                            f.header.run_id, first.path, first.header.run_id));
        if (f.header.size != first.header.size)
            throw InputError(f.path, 0,
                             fmt::format("a run of {} ranks, but {} is of {} ranks", f.header.size,
                                         first.path, first.header.size));
        const RankFile*& slot = by_rank[static_cast<std::size_t>(f.header.rank)];
        if (slot != nullptr)
            throw InputError(
                f.path, 0, fmt::format("rank {} twice: here and in {}", f.header.rank, slot->path));
        slot = &f;
    }
    for (std::size_t r = 0; r < by_rank.size(); ++r)
        if (by_rank[r] == nullptr)
            throw InputError(
                first.path, 0,
                fmt::format("rank {} of the run's {} ranks is missing (expected "
                            "its file {}.r{}{} next to this one)",
                            r, by_rank.size(), text_of(first.header.program), r, rf::kExtension));

    report = MergeReport{};
    report.run_id = first.header.run_id;
    report.ranks = static_cast<std::uint32_t>(by_rank.size());
    report.program = text_of(first.header.program);
    t.name = options.name.empty() ? report.program : options.name;
    t.source = paths.size() == 1 ? paths.front() : inputs.front();
    t.format = "native_binary";
    t.traced_speed = options.traced_speed;
    t.resize(report.ranks);
    for (const RankFile* f : by_rank) {
        report.files.push_back(f->path);
        report.hosts.push_back(text_of(f->header.host));
        report.raw_bytes += f->size;
    }
}

}  // namespace

Trace merge_rank_files(const std::vector<std::string>& inputs, const MergeOptions& options,
                       MergeReport& report) {
    Run run;
    Trace t;
    open_run(inputs, options, report, run, t);
    for (const RankFile* f : run.by_rank) merge_rank(*f, t, report, {});
    report.records = t.total_events();
    return t;
}

void merge_rank_files_to_binary(const std::vector<std::string>& inputs, const MergeOptions& options,
                                const std::string& output, MergeReport& report) {
    Run run;
    Trace t;
    open_run(inputs, options, report, run, t);
    struct Count {  // report.records, also when an error ends the merge early
        MergeReport& report;
        const Trace& t;
        ~Count() { report.records = t.total_events(); }
    } count{report, t};
    // The ranks' streams go to a scratch file next to the output as they are encoded; the
    // header (which holds the strings and count lists met on the way) is known at the end.
    const std::string part = output + ".part";
    struct Remove {
        std::string path;
        ~Remove() {
            std::error_code ec;
            fs::remove(path, ec);
        }
    } remove_part{part};
    std::ofstream scratch(part, std::ios::binary | std::ios::trunc);
    if (!scratch) throw InputError(part, 0, fmt::format("cannot write: {}", std::strerror(errno)));
    std::vector<std::uint64_t> length(run.by_rank.size(), 0);
    auto drain = [&](std::uint32_t rank) {
        const std::vector<std::uint8_t> bytes = t.take_stream(rank);
        scratch.write(reinterpret_cast<const char*>(bytes.data()),
                      static_cast<std::streamsize>(bytes.size()));
        length[rank] += bytes.size();
        if (!scratch)
            throw InputError(part, 0, fmt::format("cannot write: {}", std::strerror(errno)));
    };
    for (const RankFile* f : run.by_rank) {
        merge_rank(*f, t, report, drain);
        drain(static_cast<std::uint32_t>(f->header.rank));
    }
    scratch.close();
    if (!scratch) throw InputError(part, 0, fmt::format("cannot write: {}", std::strerror(errno)));
    std::ofstream out(output, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(output, 0, fmt::format("cannot write: {}", std::strerror(errno)));
    const std::string header = binary_header(t);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    std::ifstream in(part, std::ios::binary);
    std::vector<char> buf(RankFileReader::kChunk);
    for (std::uint32_t r = 0; r < t.ranks(); ++r) {
        const std::string prefix = binary_rank_prefix(t.events(r), length[r]);
        out.write(prefix.data(), static_cast<std::streamsize>(prefix.size()));
        for (std::uint64_t left = length[r]; left > 0;) {
            const auto k = static_cast<std::size_t>(std::min<std::uint64_t>(left, buf.size()));
            in.read(buf.data(), static_cast<std::streamsize>(k));
            if (static_cast<std::size_t>(in.gcount()) != k)
                throw InputError(part, 0, "cannot read back the merged streams");
            out.write(buf.data(), static_cast<std::streamsize>(k));
            left -= k;
        }
    }
    out.close();
    if (!out) throw InputError(output, 0, fmt::format("cannot write: {}", std::strerror(errno)));
}

}  // namespace clustersim::traces
