// An application trace: what every rank did, one record per MPI call or compute burst, in
// the simulator's own operation vocabulary (mpi::OpKind), optionally with the recorded start
// and end time of each record.
//
// In memory a trace keeps each rank's records encoded in the compact binary form (see
// traces/README.md: a kind byte, a flags byte, then LEB128 varints, PSINS's scheme: 7 bits a
// byte, the top bit says more follows), so 1,024 ranks x 10,000 events fit in tens of MiB,
// a binary trace file loads by copying bytes, and replay decodes one record at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collectives/program.hpp"
#include "iosys/file_system.hpp"
#include "simulator/time.hpp"

namespace clustersim::traces {

inline constexpr std::int32_t kNone = -1;

// One record, decoded. Fields not used by `kind` are zero / kNone. Peers, roots and tags
// follow the mpi::Op conventions (ranks within `comm`, mpi::kAnySource, mpi::kAnyTag).
struct Record {
    mpi::OpKind kind = mpi::OpKind::Compute;
    // Compute: either `instructions`, or a duration on the traced machine (`compute_time`,
    // projected by the CPU speed ratio at replay); exactly one is non-zero.
    std::uint64_t instructions = 0;
    Time compute_time;
    std::int32_t peer = 0, tag = 0, comm = 0;
    std::uint64_t bytes = 0;
    std::int32_t peer2 = 0, tag2 = 0;  // Sendrecv: the receive side
    std::uint64_t bytes2 = 0;
    std::uint32_t handle = 0, count = 0;  // requests (Isend/Irecv/Wait/Waitall/nonblocking coll)
    mpi::CollOp coll = mpi::CollOp::Barrier;
    bool nonblocking = false;
    std::int32_t root = 0;
    std::int32_t counts = kNone;  // v-collectives: index into Trace::count_lists
    std::int32_t color = 0, key = 0;
    std::uint32_t newcomm = 0;
    std::uint32_t file = 0;     // MPI-IO file handle
    std::int32_t path = kNone;  // FileOpen: index into Trace::strings
    std::uint64_t offset = 0, view_block = 0, view_stride = 0;
    std::uint8_t whence = mpi::kSeekSet;
    std::uint32_t win = 0;  // one-sided: the window handle
    // Recorded times (absolute, from the trace's time origin), if the trace has them.
    bool timed = false;
    Time start, end;

    friend bool operator==(const Record&, const Record&) = default;
};

// The most ranks a run or a trace may have (2^24 = 16,777,216, the most nodes a model may
// have). Readers refuse a trace naming more; `run` refuses --ranks summing to more
// (docs/limits.md).
inline constexpr std::uint32_t kMaxRanks = mpi::kMaxRanks;
// The most ranks a trace may have without any record (a SimGrid TI trace: without actions).
// Such a rank costs a few bytes of input and a few KiB of run state (docs/limits.md), so a
// file of 2 MB could otherwise ask for gigabytes; load_trace refuses more.
inline constexpr std::int64_t kMaxIdleRanks = 65536;

class Trace {
  public:
    // ---- metadata ----
    std::string name;    // for outputs ("partdiff-par")
    std::string source;  // the file or folder it was read from (errors)
    std::string format;  // the reader that produced it ("native_text", "simgrid_ti", ...)
    // Instructions per second of one core of the traced machine; compute_time records are
    // projected with it (0: unknown, the target core's speed is used: times are kept).
    std::uint64_t traced_speed = 0;
    std::vector<std::string> strings;                     // file names
    std::vector<std::vector<std::uint64_t>> count_lists;  // v-collective counts
    std::vector<io::FileDecl> files;                      // files that exist before the run

    // ---- records ----
    void resize(std::uint32_t ranks);
    std::uint32_t ranks() const { return static_cast<std::uint32_t>(streams_.size()); }
    void append(std::uint32_t rank, const Record& r);  // encodes
    std::uint64_t events(std::uint32_t rank) const { return counts_[rank]; }
    std::uint64_t total_events() const;
    // Index of `s` in strings (added if new); likewise for count lists.
    std::int32_t intern(const std::string& s);
    std::int32_t add_counts(std::vector<std::uint64_t> counts);

    // Decodes one rank's records in order.
    class Cursor {
      public:
        Cursor() = default;
        // False at the end of the rank's records.
        bool next(Record& out);
        // The replay hot path: decodes the next record straight into the mpi::Op that
        // traces::to_op makes of it, without the intermediate Record. A Compute record's
        // `instructions` are in op.instructions and its traced duration in `compute_time`
        // (zero if none; the caller projects it); other kinds get zero instructions. False
        // at the end of the rank's records (op is left alone).
        bool next(mpi::Op& op, Time& compute_time);
        std::uint64_t position() const { return pos_; }  // bytes consumed
        // What position() and the timed records' delta base are, to come back to them
        // with seek() (a replay keeps the place before each record it hands out).
        std::int64_t time_base() const { return last_; }
        void seek(std::uint64_t position, std::int64_t time_base) {
            pos_ = position;
            last_ = time_base;
        }
        // Starts loading the next record's first bytes into the cache; changes nothing
        // (TraceProgram::next calls it for the rank after the one it decoded for).
        void prefetch() const { __builtin_prefetch(data_ + pos_); }

      private:
        friend class Trace;
        Cursor(const Trace* trace, const std::uint8_t* data, std::uint64_t size)
            : trace_(trace), data_(data), size_(size) {}
        const Trace* trace_ = nullptr;        // count lists and strings, for next(mpi::Op&)
        const std::uint8_t* data_ = nullptr;  // the rank's bytes (raw: no vector to load)
        std::uint64_t size_ = 0;
        std::uint64_t pos_ = 0;
        std::int64_t last_ = 0;  // end (ps) of the previous timed record: start deltas
    };
    Cursor cursor(std::uint32_t rank) const {
        return Cursor(this, streams_[rank].data(), streams_[rank].size());
    }
    // A cursor over `copy`, a copy of stream(rank)'s bytes elsewhere (traces::TraceProgram
    // keeps all ranks' bytes in one buffer of huge pages); it decodes what cursor(rank) does.
    Cursor cursor(std::uint32_t rank, const std::uint8_t* copy) const {
        return Cursor(this, copy, streams_[rank].size());
    }

    // The encoded bytes of one rank (binary format I/O).
    const std::vector<std::uint8_t>& stream(std::uint32_t rank) const { return streams_[rank]; }
    // Replaces a rank's bytes with `bytes` holding `events` records (binary reader). Throws
    // InputError(source, 0, ...) if they do not decode into exactly `events` records, or, with
    // `check_references`, if a record names a path or count list that `strings` /
    // `count_lists` do not hold (fill those first). One decoding pass does both.
    void set_stream(std::uint32_t rank, std::vector<std::uint8_t> bytes, std::uint64_t events,
                    bool check_references = false);
    // Streaming writers (trace merge): moves out the bytes appended to `rank` so far; the
    // rank's record count and time deltas go on, so later appends continue the same stream
    // (the concatenation of the pieces is the rank's stream).
    std::vector<std::uint8_t> take_stream(std::uint32_t rank) {
        std::vector<std::uint8_t> out;
        out.swap(streams_[rank]);
        return out;
    }

  private:
    std::vector<std::vector<std::uint8_t>> streams_;
    std::vector<std::uint64_t> counts_;
    std::vector<std::int64_t> last_end_;  // per rank: end (ps) of the last timed record
    // intern/add_counts lookups (content hash -> index), rebuilt when the public vectors
    // were changed directly.
    std::unordered_multimap<std::uint64_t, std::int32_t> string_index_, counts_index_;
};

// Record <-> its name in text traces and tables ("send", "bcast", "ibcast", "file_write_at").
std::string record_name(const Record& r);
// The inverse: sets r.kind (and r.coll, r.nonblocking for collectives); false if `name` is
// not a record name.
bool parse_record_name(std::string_view name, Record& r);

// Native formats (traces/README.md). Writers throw InputError if the file cannot be written.
void write_text(const Trace& t, const std::string& path);
void write_binary(const Trace& t, const std::string& path);
// The binary layout's parts, for writers that stream the ranks' bytes: everything before the
// first rank (magic, name, speed, strings, count lists, files, the rank count; `t`'s own
// streams are not used), and a rank's prefix (its record count and stream length).
std::string binary_header(const Trace& t);
std::string binary_rank_prefix(std::uint64_t events, std::uint64_t length);
Trace read_text(const std::string& path);
Trace read_binary(const std::string& path);

}  // namespace clustersim::traces
