// The in-memory trace: per-rank record streams in the compact binary encoding
// (traces/README.md, "Native trace format": kind byte, field mask, LEB128 varints).
#include "traces/trace.hpp"

#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "simulator/error.hpp"

namespace clustersim::traces {

namespace {

// ---- kind codes --------------------------------------------------------------------------
// 0..39 (except 8): the mpi::OpKind value. Collectives: 0x40 + CollOp (blocking),
// 0x60 + CollOp (nonblocking). Every other byte value is invalid.
constexpr std::uint8_t kCollCode = 0x40;
constexpr std::uint8_t kNonblockingBit = 0x20;

// ---- fields ------------------------------------------------------------------------------
// Every optional field of a Record, in the global order. `Timed` stands for start and end.
enum Field : std::uint8_t {
    FTimed,
    FInstructions,
    FComputeTime,
    FPeer,
    FTag,
    FComm,
    FBytes,
    FPeer2,
    FTag2,
    FBytes2,
    FHandle,
    FCount,
    FRoot,
    FCounts,
    FColor,
    FKey,
    FNewcomm,
    FFile,
    FPath,
    FOffset,
    FViewBlock,
    FViewStride,
    FWhence,
    FWin,  // added last: an older trace's masks read the same
    kFields
};

// Layouts: one per OpKind (the collectives share one). A layout's field order is its
// primary fields (at most 7, so the mask of a typical record is one byte) followed by the
// remaining fields in the global order; bit i of the mask is the i-th field of that order.
using Order = std::array<std::uint8_t, kFields>;

constexpr Order make_order(std::initializer_list<std::uint8_t> primary) {
    Order o{};
    std::array<bool, kFields> used{};
    std::size_t n = 0;
    for (auto f : primary) {
        o[n++] = f;
        used[f] = true;
    }
    for (std::uint8_t f = 0; f < kFields; ++f)
        if (!used[f]) o[n++] = f;
    return o;
}

constexpr std::array<Order, mpi::kOpKinds> kOrders{{
    make_order({FTimed, FInstructions, FComputeTime}),                  // Compute
    make_order({FTimed, FPeer, FTag, FBytes, FComm, FHandle}),          // Send
    make_order({FTimed, FPeer, FTag, FBytes, FComm, FHandle}),          // Recv
    make_order({FTimed, FPeer, FTag, FBytes, FComm, FHandle}),          // Isend
    make_order({FTimed, FPeer, FTag, FBytes, FComm, FHandle}),          // Irecv
    make_order({FTimed, FHandle}),                                      // Wait
    make_order({FTimed, FHandle, FCount}),                              // Waitall
    make_order({FTimed, FPeer, FTag, FBytes, FPeer2, FTag2, FBytes2}),  // Sendrecv
    make_order({FTimed, FBytes, FRoot, FComm, FHandle, FCounts}),       // Collective
    make_order({FTimed, FComm, FNewcomm}),                              // CommDup
    make_order({FTimed, FComm, FColor, FKey, FNewcomm}),                // CommSplit
    make_order({FTimed, FFile, FPath, FComm}),                          // FileOpen
    make_order({FTimed, FFile}),                                        // FileClose
    make_order({FTimed, FFile, FOffset, FViewBlock, FViewStride}),      // FileSetView
    make_order({FTimed, FFile, FOffset, FWhence}),                      // FileSeek
    make_order({FTimed, FFile, FBytes, FOffset}),                       // FileWrite
    make_order({FTimed, FFile, FBytes, FOffset}),                       // FileRead
    make_order({FTimed, FFile, FBytes, FOffset}),                       // FileWriteAt
    make_order({FTimed, FFile, FBytes, FOffset}),                       // FileReadAt
    make_order({FTimed, FFile, FBytes, FOffset}),                       // FileWriteAll
    make_order({FTimed, FFile, FBytes, FOffset}),                       // FileReadAll
    make_order({FTimed, FFile, FBytes, FOffset}),                       // FileWriteAtAll
    make_order({FTimed, FFile, FBytes, FOffset}),                       // FileReadAtAll
    make_order({FTimed, FFile}),                                        // FileSync
    make_order({FTimed, FPath, FComputeTime}),                          // Unmodeled
    make_order({FTimed, FComm, FNewcomm, FCounts}),                     // CartCreate
    make_order({FTimed, FComm, FNewcomm, FCounts}),                     // DistGraphCreateAdjacent
    make_order({FTimed, FComm, FNewcomm, FCounts}),                     // DistGraphCreate
    make_order({FTimed, FHandle}),                                      // Cancel
    make_order({FTimed, FComm}),                                        // CommFree
    make_order({FTimed, FComm, FWin, FBytes}),                          // WinCreate
    make_order({FTimed, FWin}),                                         // WinFree
    make_order({FTimed, FPeer, FBytes, FWin}),                          // Put
    make_order({FTimed, FPeer, FBytes, FWin}),                          // Get
    make_order({FTimed, FPeer, FBytes, FWin}),                          // Accumulate
    make_order({FTimed, FPeer, FBytes, FBytes2, FWin}),                 // GetAccumulate
    make_order({FTimed, FWin}),                                         // WinFence
    make_order({FTimed, FPeer, FWin, FCount}),                          // WinLock
    make_order({FTimed, FPeer, FWin}),                                  // WinUnlock
    make_order({FTimed, FPeer, FWin}),                                  // WinFlush
}};

// What a kind code decodes to.
struct KindInfo {
    bool valid = false;
    mpi::OpKind kind = mpi::OpKind::Compute;
    mpi::CollOp coll = mpi::CollOp::Barrier;
    bool nonblocking = false;
};

constexpr std::array<KindInfo, 256> make_kind_table() {
    std::array<KindInfo, 256> t{};
    for (int k = 0; k < mpi::kOpKinds; ++k) {
        if (k == static_cast<int>(mpi::OpKind::Collective)) continue;
        t[static_cast<std::size_t>(k)] =
            KindInfo{true, static_cast<mpi::OpKind>(k), mpi::CollOp::Barrier, false};
    }
    for (int c = 0; c < mpi::kCollOps; ++c) {
        t[static_cast<std::size_t>(kCollCode + c)] =
            KindInfo{true, mpi::OpKind::Collective, static_cast<mpi::CollOp>(c), false};
        t[static_cast<std::size_t>(kCollCode + kNonblockingBit + c)] =
            KindInfo{true, mpi::OpKind::Collective, static_cast<mpi::CollOp>(c), true};
    }
    return t;
}
constexpr std::array<KindInfo, 256> kKinds = make_kind_table();

std::uint8_t kind_code(const Record& r) {
    if (r.kind != mpi::OpKind::Collective) return static_cast<std::uint8_t>(r.kind);
    return static_cast<std::uint8_t>(kCollCode | (r.nonblocking ? kNonblockingBit : 0) |
                                     static_cast<std::uint8_t>(r.coll));
}

constexpr std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
constexpr std::int64_t unzigzag(std::uint64_t v) {
    return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
}

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<std::uint8_t>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<std::uint8_t>(v));
}

bool present(const Record& r, std::uint8_t f) {
    switch (f) {
        case FTimed:
            return r.timed;
        case FInstructions:
            return r.instructions != 0;
        case FComputeTime:
            return r.compute_time != Time::zero();
        case FPeer:
            return r.peer != 0;
        case FTag:
            return r.tag != 0;
        case FComm:
            return r.comm != 0;
        case FBytes:
            return r.bytes != 0;
        case FPeer2:
            return r.peer2 != 0;
        case FTag2:
            return r.tag2 != 0;
        case FBytes2:
            return r.bytes2 != 0;
        case FHandle:
            return r.handle != 0;
        case FCount:
            return r.count != 0;
        case FRoot:
            return r.root != 0;
        case FCounts:
            return r.counts != kNone;
        case FColor:
            return r.color != 0;
        case FKey:
            return r.key != 0;
        case FNewcomm:
            return r.newcomm != 0;
        case FFile:
            return r.file != 0;
        case FPath:
            return r.path != kNone;
        case FOffset:
            return r.offset != 0;
        case FViewBlock:
            return r.view_block != 0;
        case FViewStride:
            return r.view_stride != 0;
        case FWhence:
            return r.whence != mpi::kSeekSet;
        case FWin:
            return r.win != 0;
        default:
            return false;
    }
}

// Appends the encoding of `r`; `last` is the rank's previous timed end (updated).
void encode(std::vector<std::uint8_t>& out, const Record& r, std::int64_t& last) {
    const std::uint8_t code = kind_code(r);
    out.push_back(code);
    const Order& order = kOrders[static_cast<std::size_t>(r.kind)];
    std::uint64_t mask = 0;
    for (std::size_t i = 0; i < kFields; ++i)
        if (present(r, order[i])) mask |= std::uint64_t{1} << i;
    put_varint(out, mask);
    for (std::uint64_t m = mask; m != 0; m &= m - 1) {
        switch (order[static_cast<std::size_t>(std::countr_zero(m))]) {
            case FTimed: {
                // Wrapping differences: lossless for any pair of int64 values.
                const auto start = static_cast<std::uint64_t>(r.start.ps());
                const auto end = static_cast<std::uint64_t>(r.end.ps());
                put_varint(
                    out,
                    zigzag(static_cast<std::int64_t>(start - static_cast<std::uint64_t>(last))));
                put_varint(out, zigzag(static_cast<std::int64_t>(end - start)));
                last = r.end.ps();
                break;
            }
            case FInstructions:
                put_varint(out, r.instructions);
                break;
            case FComputeTime:
                put_varint(out, zigzag(r.compute_time.ps()));
                break;
            case FPeer:
                put_varint(out, zigzag(r.peer));
                break;
            case FTag:
                put_varint(out, zigzag(r.tag));
                break;
            case FComm:
                put_varint(out, zigzag(r.comm));
                break;
            case FBytes:
                put_varint(out, r.bytes);
                break;
            case FPeer2:
                put_varint(out, zigzag(r.peer2));
                break;
            case FTag2:
                put_varint(out, zigzag(r.tag2));
                break;
            case FBytes2:
                put_varint(out, r.bytes2);
                break;
            case FHandle:
                put_varint(out, r.handle);
                break;
            case FCount:
                put_varint(out, r.count);
                break;
            case FRoot:
                put_varint(out, zigzag(r.root));
                break;
            case FCounts:
                put_varint(out, zigzag(r.counts));
                break;
            case FColor:
                put_varint(out, zigzag(r.color));
                break;
            case FKey:
                put_varint(out, zigzag(r.key));
                break;
            case FNewcomm:
                put_varint(out, r.newcomm);
                break;
            case FFile:
                put_varint(out, r.file);
                break;
            case FPath:
                put_varint(out, zigzag(r.path));
                break;
            case FOffset:
                put_varint(out, r.offset);
                break;
            case FViewBlock:
                put_varint(out, r.view_block);
                break;
            case FViewStride:
                put_varint(out, r.view_stride);
                break;
            case FWhence:
                put_varint(out, r.whence);
                break;
            case FWin:
                put_varint(out, r.win);
                break;
            default:
                break;
        }
    }
}

// Byte sources for the one decoder: Fast trusts the stream (validated when it was set),
// Checked bounds-checks every byte and every value and remembers the first problem.
struct FastInput {
    const std::uint8_t* p;
    std::uint64_t varint() {
        std::uint64_t b = *p++;
        if (b < 0x80) return b;
        std::uint64_t v = b & 0x7f;
        for (unsigned shift = 7;; shift += 7) {
            b = *p++;
            v |= (b & 0x7f) << shift;
            if (b < 0x80) return v;
        }
    }
    std::uint8_t byte() { return *p++; }
    template <class T>
    T fit(std::uint64_t v, const char*) {
        return static_cast<T>(v);
    }
    template <class T>
    T fit_signed(std::int64_t v, const char*) {
        return static_cast<T>(v);
    }
    void fail(const char*) {}
};

struct CheckedInput {
    const std::uint8_t* p;
    const std::uint8_t* end;
    const char* problem = nullptr;  // first problem, null if none
    bool truncated = false;

    void fail(const char* what) {
        if (problem == nullptr) problem = what;
    }
    std::uint8_t byte() {
        if (p >= end) {
            truncated = true;
            fail("truncated record");
            return 0;
        }
        return *p++;
    }
    std::uint64_t varint() {
        std::uint64_t v = 0;
        for (unsigned shift = 0;; shift += 7) {
            const std::uint64_t b = byte();
            if (problem != nullptr) return 0;
            if (shift == 63 && (b & 0x7e) != 0) fail("varint overflows 64 bits");
            if (shift > 63) {
                fail("varint longer than 10 bytes");
                return 0;
            }
            v |= (b & 0x7f) << shift;
            if (b < 0x80) return v;
        }
    }
    template <class T>
    T fit(std::uint64_t v, const char* what) {
        if (v > std::numeric_limits<T>::max()) fail(what);
        return static_cast<T>(v);
    }
    template <class T>
    T fit_signed(std::int64_t v, const char* what) {
        if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) fail(what);
        return static_cast<T>(v);
    }
};

// Where decode puts a record. The two targets share the names of their plain fields
// (peer, tag, bytes, ...), which decode writes through fields(); the fields whose form
// differs go through the target's own functions. RecordOut keeps everything as stored;
// OpOut makes the mpi::Op that to_op would (table indices become pointers, recorded times
// are dropped), so replay does not build, clear and copy a Record per event.
// Defaults to clear the targets with: copying a constant compiles to a few vector moves,
// where assigning Record{} or mpi::Op{} becomes a `rep stos`, slow to start for a 128-byte
// object cleared once per record.
const Record kEmptyRecord{};
const mpi::Op kEmptyOp{};

struct RecordOut {
    Record& r;
    void begin(const KindInfo& k) {
        r = kEmptyRecord;
        r.kind = k.kind;
        r.coll = k.coll;
        r.nonblocking = k.nonblocking;
    }
    Record& fields() { return r; }
    void win(std::uint32_t w) { r.win = w; }
    void file(std::uint32_t v) { r.file = v; }
    void timed(Time start, Time end) {
        r.timed = true;
        r.start = start;
        r.end = end;
    }
    void instructions(std::uint64_t v) { r.instructions = v; }
    void compute_time(Time t) { r.compute_time = t; }
    void counts(std::int32_t i) { r.counts = i; }
    void path(std::int32_t i) { r.path = i; }
};

// Records that run as a CPU burst at replay: compute, and unmodeled MPI calls.
constexpr bool is_burst(mpi::OpKind k) {
    return k == mpi::OpKind::Compute || k == mpi::OpKind::Unmodeled;
}

struct OpOut {
    mpi::Op& op;
    Time& compute;
    const Trace& trace;
    void begin(const KindInfo& k) {
        op = kEmptyOp;
        compute = Time::zero();
        op.kind = k.kind;
        op.coll = k.coll;
        op.nonblocking = k.nonblocking;
    }
    mpi::Op& fields() { return op; }
    void win(std::uint32_t w) { op.file = w; }  // an Op's window handle (program.hpp)
    void file(std::uint32_t v) {
        if (!mpi::is_onesided(op.kind)) op.file = v;  // a one-sided Op's file is its window
    }
    void timed(Time, Time) {}
    void instructions(std::uint64_t v) {
        if (is_burst(op.kind)) op.instructions = v;  // to_op: others get none
    }
    void compute_time(Time t) {
        if (is_burst(op.kind)) compute = t;
    }
    void counts(std::int32_t i) {
        op.counts = i == kNone ? nullptr : &trace.count_lists[static_cast<std::size_t>(i)];
    }
    void path(std::int32_t i) {
        op.path = i == kNone ? nullptr : &trace.strings[static_cast<std::size_t>(i)];
    }
};

// Decodes one record (the caller knows there is at least one byte left).
template <class In, class Out>
inline void decode(In& in, Out& out, std::int64_t& last) {
    const std::uint8_t code = in.byte();
    const KindInfo& k = kKinds[code];
    if (!k.valid) in.fail("unknown kind code");
    out.begin(k);
    auto& f = out.fields();
    std::uint64_t mask = in.varint();
    if (mask >> kFields) {
        in.fail("unknown field bits in the mask");
        mask &= (std::uint64_t{1} << kFields) - 1;
    }
    const Order& order = kOrders[static_cast<std::size_t>(k.kind)];
    for (; mask != 0; mask &= mask - 1) {
        switch (order[static_cast<std::size_t>(std::countr_zero(mask))]) {
            case FTimed: {
                const std::uint64_t ds = static_cast<std::uint64_t>(unzigzag(in.varint()));
                const std::uint64_t de = static_cast<std::uint64_t>(unzigzag(in.varint()));
                const std::uint64_t start = static_cast<std::uint64_t>(last) + ds;
                out.timed(Time::ps(static_cast<std::int64_t>(start)),
                          Time::ps(static_cast<std::int64_t>(start + de)));
                last = static_cast<std::int64_t>(start + de);
                break;
            }
            case FInstructions:
                out.instructions(in.varint());
                break;
            case FComputeTime: {
                const Time t = Time::ps(unzigzag(in.varint()));
                if (t < Time::zero()) in.fail("negative compute time");
                out.compute_time(t);
                break;
            }
            case FPeer:
                f.peer = in.template fit_signed<std::int32_t>(unzigzag(in.varint()),
                                                              "peer out of range");
                break;
            case FTag:
                f.tag =
                    in.template fit_signed<std::int32_t>(unzigzag(in.varint()), "tag out of range");
                break;
            case FComm:
                f.comm = in.template fit_signed<std::int32_t>(unzigzag(in.varint()),
                                                              "comm out of range");
                break;
            case FBytes:
                f.bytes = in.varint();
                break;
            case FPeer2:
                f.peer2 = in.template fit_signed<std::int32_t>(unzigzag(in.varint()),
                                                               "peer2 out of range");
                break;
            case FTag2:
                f.tag2 = in.template fit_signed<std::int32_t>(unzigzag(in.varint()),
                                                              "tag2 out of range");
                break;
            case FBytes2:
                f.bytes2 = in.varint();
                break;
            case FHandle:
                f.handle = in.template fit<std::uint32_t>(in.varint(), "handle out of range");
                break;
            case FCount:
                f.count = in.template fit<std::uint32_t>(in.varint(), "count out of range");
                break;
            case FRoot:
                f.root = in.template fit_signed<std::int32_t>(unzigzag(in.varint()),
                                                              "root out of range");
                break;
            case FCounts:
                out.counts(in.template fit_signed<std::int32_t>(unzigzag(in.varint()),
                                                                "counts out of range"));
                break;
            case FColor:
                f.color = in.template fit_signed<std::int32_t>(unzigzag(in.varint()),
                                                               "color out of range");
                break;
            case FKey:
                f.key =
                    in.template fit_signed<std::int32_t>(unzigzag(in.varint()), "key out of range");
                break;
            case FNewcomm:
                f.newcomm = in.template fit<std::uint32_t>(in.varint(), "newcomm out of range");
                break;
            case FFile:
                out.file(in.template fit<std::uint32_t>(in.varint(), "file out of range"));
                break;
            case FPath:
                out.path(in.template fit_signed<std::int32_t>(unzigzag(in.varint()),
                                                              "path out of range"));
                break;
            case FOffset:
                f.offset = in.varint();
                break;
            case FViewBlock:
                f.view_block = in.varint();
                break;
            case FViewStride:
                f.view_stride = in.varint();
                break;
            case FWhence:
                f.whence = in.template fit<std::uint8_t>(in.varint(), "whence out of range");
                if (f.whence > mpi::kSeekEnd) in.fail("whence out of range (0 set, 1 cur, 2 end)");
                break;
            case FWin:
                out.win(in.template fit<std::uint32_t>(in.varint(), "window handle out of range"));
                break;
            default:
                break;
        }
    }
}

std::uint64_t hash_bytes(const void* data, std::size_t n) {
    // FNV-1a, 64 bits.
    std::uint64_t h = 1469598103934665603ULL;
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}
std::uint64_t hash_of(const std::string& s) {
    return hash_bytes(s.data(), s.size());
}
std::uint64_t hash_of(const std::vector<std::uint64_t>& v) {
    return hash_bytes(v.data(), v.size() * sizeof(std::uint64_t)) ^ v.size();
}

// Index of `value` in `values` via `index` (rebuilt if `values` was changed directly);
// appends it if new.
template <class T>
std::int32_t intern_in(std::vector<T>& values,
                       std::unordered_multimap<std::uint64_t, std::int32_t>& index, T value) {
    if (index.size() != values.size()) {
        index.clear();
        for (std::size_t i = 0; i < values.size(); ++i)
            index.emplace(hash_of(values[i]), static_cast<std::int32_t>(i));
    }
    const std::uint64_t h = hash_of(value);
    auto [first, last] = index.equal_range(h);
    for (auto it = first; it != last; ++it) {
        const auto i = static_cast<std::size_t>(it->second);
        if (i < values.size() && values[i] == value) return it->second;
    }
    const auto i = static_cast<std::int32_t>(values.size());
    values.push_back(std::move(value));
    index.emplace(h, i);
    return i;
}

}  // namespace

// ---- Trace --------------------------------------------------------------------------------

void Trace::resize(std::uint32_t ranks) {
    streams_.resize(ranks);
    counts_.resize(ranks, 0);
    last_end_.resize(ranks, 0);
}

void Trace::append(std::uint32_t rank, const Record& r) {
    encode(streams_[rank], r, last_end_[rank]);
    ++counts_[rank];
}

std::uint64_t Trace::total_events() const {
    return std::accumulate(counts_.begin(), counts_.end(), std::uint64_t{0});
}

std::int32_t Trace::intern(const std::string& s) {
    return intern_in(strings, string_index_, s);
}

std::int32_t Trace::add_counts(std::vector<std::uint64_t> counts) {
    return intern_in(count_lists, counts_index_, std::move(counts));
}

bool Trace::Cursor::next(Record& out) {
    if (pos_ >= size_) return false;
    const std::uint8_t* data = data_;
    FastInput in{data + pos_};
    RecordOut sink{out};
    decode(in, sink, last_);
    pos_ = static_cast<std::uint64_t>(in.p - data);
    return true;
}

bool Trace::Cursor::next(mpi::Op& op, Time& compute_time) {
    if (pos_ >= size_) return false;
    const std::uint8_t* data = data_;
    FastInput in{data + pos_};
    OpOut sink{op, compute_time, *trace_};
    decode(in, sink, last_);
    pos_ = static_cast<std::uint64_t>(in.p - data);
    return true;
}

void Trace::set_stream(std::uint32_t rank, std::vector<std::uint8_t> bytes, std::uint64_t events,
                       bool check_references) {
    CheckedInput in{bytes.data(), bytes.data() + bytes.size()};
    std::int64_t last = 0;
    Record r;
    std::uint64_t decoded = 0;
    while (in.p < in.end && in.problem == nullptr) {
        const std::uint8_t* record_start = in.p;
        RecordOut sink{r};
        decode(in, sink, last);
        if (in.problem != nullptr) {
            const auto at = static_cast<std::uint64_t>(record_start - bytes.data());
            throw InputError(
                source, 0,
                fmt::format("rank {}: {} at byte {} (expected {} records, decoded {})", rank,
                            in.truncated ? "truncated record" : in.problem, at, events, decoded));
        }
        // References into the trace's tables must exist (they are read before the streams).
        if (check_references && r.path != kNone &&
            (r.path < 0 || static_cast<std::size_t>(r.path) >= strings.size()))
            throw InputError(source, 0,
                             fmt::format("rank {} record {}: path {} is not in the string table "
                                         "({} strings)",
                                         rank, decoded, r.path, strings.size()));
        if (check_references && r.counts != kNone &&
            (r.counts < 0 || static_cast<std::size_t>(r.counts) >= count_lists.size()))
            throw InputError(source, 0,
                             fmt::format("rank {} record {}: counts {} is not in the count lists "
                                         "({} lists)",
                                         rank, decoded, r.counts, count_lists.size()));
        ++decoded;
    }
    if (decoded != events)
        throw InputError(source, 0,
                         fmt::format("rank {}: {} bytes hold {} records, expected {}", rank,
                                     bytes.size(), decoded, events));
    streams_[rank] = std::move(bytes);
    counts_[rank] = events;
    last_end_[rank] = last;
}

// ---- names --------------------------------------------------------------------------------

namespace {
constexpr std::array<const char*, mpi::kOpKinds> kKindNames{"compute",
                                                            "send",
                                                            "recv",
                                                            "isend",
                                                            "irecv",
                                                            "wait",
                                                            "waitall",
                                                            "sendrecv",
                                                            "",
                                                            "comm_dup",
                                                            "comm_split",
                                                            "file_open",
                                                            "file_close",
                                                            "file_set_view",
                                                            "file_seek",
                                                            "file_write",
                                                            "file_read",
                                                            "file_write_at",
                                                            "file_read_at",
                                                            "file_write_all",
                                                            "file_read_all",
                                                            "file_write_at_all",
                                                            "file_read_at_all",
                                                            "file_sync",
                                                            "unmodeled",
                                                            "cart_create",
                                                            "dist_graph_create_adjacent",
                                                            "dist_graph_create",
                                                            "cancel",
                                                            "comm_free",
                                                            "win_create",
                                                            "win_free",
                                                            "put",
                                                            "get",
                                                            "accumulate",
                                                            "get_accumulate",
                                                            "win_fence",
                                                            "win_lock",
                                                            "win_unlock",
                                                            "win_flush"};
}  // namespace

std::string record_name(const Record& r) {
    if (r.kind == mpi::OpKind::Collective) {
        std::string name = r.nonblocking ? "i" : "";
        return name + mpi::to_string(r.coll);
    }
    return kKindNames[static_cast<std::size_t>(r.kind)];
}

bool parse_record_name(std::string_view name, Record& r) {
    for (std::size_t k = 0; k < kKindNames.size(); ++k) {
        if (k != static_cast<std::size_t>(mpi::OpKind::Collective) && name == kKindNames[k]) {
            r.kind = static_cast<mpi::OpKind>(k);
            return true;
        }
    }
    mpi::CollOp op{};
    if (mpi::parse_coll_op(std::string(name), op)) {
        r.kind = mpi::OpKind::Collective;
        r.coll = op;
        r.nonblocking = false;
        return true;
    }
    if (name.size() > 1 && name.front() == 'i' &&
        mpi::parse_coll_op(std::string(name.substr(1)), op)) {
        r.kind = mpi::OpKind::Collective;
        r.coll = op;
        r.nonblocking = true;
        return true;
    }
    return false;
}

}  // namespace clustersim::traces
