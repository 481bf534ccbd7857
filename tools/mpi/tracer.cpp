// libclustersim-trace.so: a PMPI interposition library that records every MPI and MPI-IO
// call of a running application, per rank, for `clustersim trace merge` (PSINS §1.1: wrappers
// around the MPI routines, timers at their beginning and end so the compute burst between
// two calls is known, per-task memory buffers written when full, one file per task, a
// serial consolidation step afterwards).
//
// Use it by linking (`mpicxx app.o -lclustersim-trace`, before the MPI library) or with
// `mpirun -x LD_PRELOAD=/path/libclustersim-trace.so ./app`. Environment:
//   CLUSTERSIM_TRACE_DIR     folder of the rank files (default: the working directory)
//   CLUSTERSIM_TRACE_NAME    their base name (default: the executable's name)
//   CLUSTERSIM_TRACE_BUFFER  per-rank buffer size in bytes (default 4 MiB, at least 4 KiB)
//   CLUSTERSIM_TRACE_POLLS   `fold` (default): a failed MPI_Test/Testany/Testsome/Testall,
//                            MPI_Iprobe or MPI_Improbe is not recorded but counted, its time
//                            left in the compute around it; `all`: recorded as `unmodeled`
// Rank r writes `DIR/NAME.r<r>.csrank` (format: traces/rank_file.hpp).
//
// Assumes MPI_THREAD_SINGLE or FUNNELED use (one thread calls MPI). Calls on communicators
// the tracer does not know (MPI_COMM_SELF, ones made by unwrapped calls) and requests it did
// not start are recorded as `unmodeled`, never dropped.
#include <fcntl.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "traces/rank_file.hpp"

namespace {

// mkdir -p: makes `path` and its missing parents. Returns "" on success (or if it exists),
// else "; cannot make folder P: reason" for the warning line.
std::string make_directories(const std::string& path) {
    std::string partial;
    std::size_t pos = 0;
    while (pos != std::string::npos) {
        pos = path.find('/', pos + 1);
        partial = path.substr(0, pos);
        if (partial.empty() || partial == "/") continue;
        if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
            return "; cannot make folder " + partial + ": " + std::strerror(errno);
    }
    return "";
}

namespace rf = clustersim::traces::rankfile;

// mpi::CollOp values (collectives/collective.hpp).
enum Coll : std::uint8_t {
    CBarrier,
    CBcast,
    CReduce,
    CAllreduce,
    CGather,
    CScatter,
    CAllgather,
    CAlltoall,
    CReduceScatter,
    CGatherv,
    CScatterv,
    CAllgatherv,
    CAlltoallv,
    CScan,
    CExscan,
    CReduceScatterBlock,
    CAlltoallw,
    CNeighborAllgather,
    CNeighborAllgatherv,
    CNeighborAlltoall,
    CNeighborAlltoallv,
    CNeighborAlltoallw
};

std::int64_t mono_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// consteval: every call's index is found at compile time (the polling path is hot).
consteval std::uint16_t idx(std::string_view name) {
    return rf::call_index(name);
}

struct Tracer {
    bool active = false;
    int fd = -1;
    std::string path;
    std::int64_t t0 = 0;
    std::uint64_t records = 0;
    std::vector<std::uint64_t> buf;  // words; flushed when full
    std::size_t used = 0;
    // Handles: requests and communicators and files get small per-rank numbers.
    std::unordered_map<MPI_Request, std::uint32_t> requests;
    std::vector<std::uint32_t> free_handles;
    std::uint32_t next_handle = 0;
    std::unordered_map<MPI_Comm, std::int32_t> comms;
    std::int32_t next_comm = 1;
    std::unordered_map<MPI_File, std::uint32_t> files;
    std::unordered_map<MPI_File, std::uint64_t> etype_size;  // for offsets in etypes
    std::uint32_t next_file = 1;
    // Request handles the application called MPI_Cancel on (until their completion).
    std::unordered_set<std::uint32_t> cancelled;
    // Failed polls folded into the compute around them, by index in kCallNames: how many
    // and their summed time (written as kPolls records by MPI_Finalize).
    struct Polls {
        std::uint64_t count = 0;
        std::uint64_t ns = 0;
    };
    std::array<Polls, rf::kCallNames.size()> polls{};  // by call index
    bool fold_polls = true;  // CLUSTERSIM_TRACE_POLLS=fold (else every failed poll recorded)

    int depth = 0;  // wrapped calls in progress (an MPI call the library makes inside one)
    std::int64_t now() const { return mono_ns() - t0; }
    // Whether a call is recorded: tracing, and not from inside another recorded call (ROMIO,
    // for one, calls MPI_ functions inside MPI_File_open; those are part of the outer call).
    bool recording() const { return active && depth == 0; }

    // Copies a record and its extra words into the buffer (put() made room).
    void append_words(const void* rec, std::size_t rec_words, const std::uint64_t* extra,
                      std::size_t extra_words) {
        std::memcpy(buf.data() + used, rec, rec_words * 8);
        used += rec_words;
        if (extra_words > 0) std::memcpy(buf.data() + used, extra, extra_words * 8);
        used += extra_words;
    }

    // Writes the buffer out (put() records the time it took as a kFlush record).
    void flush_raw() {
        if (fd < 0) return;
        const char* p = reinterpret_cast<const char*>(buf.data());
        std::size_t left = used * sizeof(std::uint64_t);
        while (left > 0) {
            const ssize_t n = ::write(fd, p, left);
            if (n < 0) {
                if (errno == EINTR) continue;
                std::fprintf(stderr, "clustersim-trace: cannot write %s: %s; tracing stops\n",
                             path.c_str(), std::strerror(errno));
                ::close(fd);
                fd = -1;
                active = false;
                return;
            }
            p += n;
            left -= static_cast<std::size_t>(n);
        }
        used = 0;
    }

    // Appends a record. When the buffer is full it is written out first; that write happens
    // after the record's call ended (its times are taken), in the gap before the next call,
    // so its flush record goes after the record: merge takes it out of that gap's compute
    // burst. (Before the trailer, whose count must be last, the flush record goes first.)
    void put(rf::RawRecord& r, const std::uint64_t* extra = nullptr, std::size_t n = 0) {
        if (!active) return;
        r.extra = static_cast<std::uint32_t>(n);
        constexpr std::size_t kRecordWords = sizeof(rf::RawRecord) / 8;
        const std::size_t need = kRecordWords + n;
        if (used + need > buf.size()) {
            const std::int64_t s = now();
            flush_raw();
            if (!active) return;  // the write failed: tracing stopped
            if (kRecordWords + need > buf.size()) buf.resize(kRecordWords + need);  // huge record
            rf::RawRecord f;
            f.kind = rf::kFlush;
            f.start_ns = s;
            f.end_ns = now();
            if (r.kind == rf::kEnd) {
                append_words(&f, kRecordWords, nullptr, 0);
                ++records;
            } else {
                append_words(&r, kRecordWords, extra, n);
                append_words(&f, kRecordWords, nullptr, 0);
                records += 2;
                return;
            }
        }
        // The end-of-trace record counts every record before it, the flush record just
        // written included (MPI_Finalize's count, taken before, would miss it).
        if (r.kind == rf::kEnd) r.bytes = records;
        append_words(&r, kRecordWords, extra, n);
        ++records;
    }

    std::uint32_t new_request(MPI_Request req) {
        std::uint32_t h;
        if (!free_handles.empty()) {
            h = free_handles.back();
            free_handles.pop_back();
        } else {
            h = next_handle++;
        }
        requests[req] = h;
        cancelled.erase(h);
        return h;
    }
    // The handle of a request, or -1 (not one the tracer saw started).
    std::int64_t take_request(MPI_Request req) {
        auto it = requests.find(req);
        if (it == requests.end()) return -1;
        const std::uint32_t h = it->second;
        requests.erase(it);
        free_handles.push_back(h);
        return h;
    }
    std::int64_t request_handle(MPI_Request req) const {
        auto it = requests.find(req);
        return it == requests.end() ? -1 : it->second;
    }
    // A poll that found nothing: its time stays in the compute gap, only counted.
    void fold(std::uint16_t call, std::int64_t start);
    std::int32_t comm_id(MPI_Comm c) const {
        if (c == MPI_COMM_WORLD) return 0;
        auto it = comms.find(c);
        return it == comms.end() ? -1 : it->second;
    }
};

Tracer g;

// Marks a wrapped call in progress for as long as it lives.
struct Nest {
    Nest() { ++g.depth; }
    ~Nest() { --g.depth; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
};

std::uint64_t type_size(MPI_Datatype t) {
    int s = 0;
    if (t == MPI_DATATYPE_NULL) return 0;
    PMPI_Type_size(t, &s);
    return static_cast<std::uint64_t>(s < 0 ? 0 : s);
}
std::uint64_t bytes_of(int count, MPI_Datatype t) {
    return count <= 0 ? 0 : static_cast<std::uint64_t>(count) * type_size(t);
}

rf::RawRecord make(std::uint8_t kind, std::uint16_t call, std::int64_t start) {
    rf::RawRecord r;
    r.kind = kind;
    r.call = call;
    r.start_ns = start;
    r.end_ns = g.now();
    return r;
}

void unmodeled(std::uint16_t call, std::int64_t start) {
    rf::RawRecord r = make(rf::kUnmodeled, call, start);
    g.put(r);
}

void Tracer::fold(std::uint16_t call, std::int64_t start) {
    if (!fold_polls) return unmodeled(call, start);
    Polls& p = polls[call];  // call < kCallNames.size(): idx() values only
    ++p.count;
    p.ns += static_cast<std::uint64_t>(std::max<std::int64_t>(0, now() - start));
}

// A modeled point-to-point or collective record on communicator `c`: unmodeled when the
// tracer does not know `c`.
bool on_comm(rf::RawRecord& r, MPI_Comm c) {
    r.comm = g.comm_id(c);
    if (r.comm >= 0) return true;
    r.kind = rf::kUnmodeled;
    r.comm = 0;
    return false;
}

int peer_of(int p) {
    return p == MPI_ANY_SOURCE ? -1 : p;
}
int tag_of(int t) {
    return t == MPI_ANY_TAG ? -1 : t;
}

bool is_test(std::uint16_t call) {
    return call == idx("MPI_Test") || call == idx("MPI_Testany") || call == idx("MPI_Testsome") ||
           call == idx("MPI_Testall");
}

// Completion calls (Wait*, Test*): the requests that completed are the ones the call set to
// MPI_REQUEST_NULL. One → wait, several → waitall (handles in extra); none → a Test* that
// completed nothing is a failed poll, folded into the compute (counted); a call that
// completed only requests the tracer did not see started (persistent, MPI-IO) is unmodeled.
// `status_cancelled`: 1 the (single) status says cancelled, 0 it says not, -1 not known. A
// completed request that was cancelled sets kFlagCancelled.
void completed(std::uint16_t call, std::int64_t start, int n, const MPI_Request* before,
               const MPI_Request* after, int status_cancelled = -1) {
    static std::vector<std::uint64_t> done;  // reused: no allocation per poll (one MPI thread)
    done.clear();
    bool cancelled = false;
    bool any = false;  // some request completed (one the tracer may not have seen started)
    for (int i = 0; i < n; ++i) {
        if (before[i] == MPI_REQUEST_NULL || after[i] != MPI_REQUEST_NULL) continue;
        any = true;
        const std::int64_t h = g.take_request(before[i]);
        if (h < 0) continue;
        done.push_back(static_cast<std::uint64_t>(h));
        if (g.cancelled.erase(static_cast<std::uint32_t>(h)) > 0 && status_cancelled != 0)
            cancelled = true;
    }
    if (done.empty()) {
        if (is_test(call) && !any) return g.fold(call, start);
        return unmodeled(call, start);
    }
    rf::RawRecord r = make(done.size() == 1 ? rf::kWait : rf::kWaitall, call, start);
    if (cancelled) r.flags = rf::kFlagCancelled;
    r.handle = static_cast<std::uint32_t>(done[0]);
    r.count = static_cast<std::uint32_t>(done.size());
    if (done.size() == 1) return g.put(r);
    g.put(r, done.data(), done.size());
}

// Per-rank counts of a v-collective, in bytes, completed across the communicator with PMPI
// (outside the recorded interval): gatherv/scatterv take the root's list, allgatherv every
// rank's, alltoallv the matrix from every rank's send row.
std::vector<std::uint64_t> vcounts(MPI_Comm comm, int root, const int* counts, MPI_Datatype type,
                                   bool is_root_list) {
    int size = 0, me = 0;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &me);
    std::vector<std::uint64_t> out(static_cast<std::size_t>(size));
    const std::uint64_t ts = type_size(type);
    if (counts != nullptr && (!is_root_list || me == root))
        for (int i = 0; i < size; ++i)
            out[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(counts[i]) * ts;
    if (is_root_list) PMPI_Bcast(out.data(), size, MPI_UINT64_T, root, comm);
    return out;
}

// `end`: the call's end when the tracer did more work after it (v-collectives' counts).
void collective(std::uint16_t call, std::int64_t start, std::uint8_t coll, MPI_Comm comm,
                std::uint64_t bytes, int root, bool nonblocking = false,
                MPI_Request* request = nullptr, const std::vector<std::uint64_t>* counts = nullptr,
                std::int64_t end = -1) {
    rf::RawRecord r = make(rf::kCollective, call, start);
    if (end >= 0) r.end_ns = end;
    r.coll = coll;
    r.bytes = bytes;
    r.root = root;
    if (!on_comm(r, comm)) return g.put(r);
    if (nonblocking) {
        r.flags = rf::kFlagNonblocking;
        r.handle = g.new_request(*request);
    }
    if (counts != nullptr) return g.put(r, counts->data(), counts->size());
    g.put(r);
}

void start_tracing() {
    int rank = 0, size = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    rf::RawHeader h;
    std::uint64_t id = 0;
    if (rank == 0) {
        std::random_device rd;
        id =
            (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^
            static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
        if (id == 0) id = 1;
    }
    PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    h.run_id = id;
    h.rank = rank;
    h.size = size;
    int len = 0;
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    PMPI_Get_processor_name(host, &len);
    std::snprintf(h.host.data(), h.host.size(), "%s", host);
    // The executable's name (not /proc/self/comm: the kernel cuts that to 15 characters).
    std::string program = "app";
    char exe[4096] = {};
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        program.assign(exe, static_cast<std::size_t>(n));
        program = program.substr(program.find_last_of('/') + 1);
    }
    const char* env_name = std::getenv("CLUSTERSIM_TRACE_NAME");
    if (env_name != nullptr && *env_name != '\0') program = env_name;
    std::snprintf(h.program.data(), h.program.size(), "%s", program.c_str());
    const char* dir = std::getenv("CLUSTERSIM_TRACE_DIR");
    g.path = std::string(dir != nullptr && *dir != '\0' ? dir : ".") + "/" + program + ".r" +
             std::to_string(rank) + rf::kExtension;
    std::size_t buffer = 4u << 20;
    if (const char* b = std::getenv("CLUSTERSIM_TRACE_BUFFER")) {
        char* end = nullptr;
        const unsigned long long v = std::strtoull(b, &end, 10);
        if (end != b && *end == '\0' && v >= 4096)
            buffer = static_cast<std::size_t>(v);
        else
            std::fprintf(stderr,
                         "clustersim-trace: CLUSTERSIM_TRACE_BUFFER: expected a byte count "
                         ">= 4096, got '%s'; using 4194304\n",
                         b);
    }
    if (const char* p = std::getenv("CLUSTERSIM_TRACE_POLLS")) {
        if (std::strcmp(p, "all") == 0)
            g.fold_polls = false;
        else if (std::strcmp(p, "fold") != 0)
            std::fprintf(stderr,
                         "clustersim-trace: CLUSTERSIM_TRACE_POLLS: expected fold or all, got "
                         "'%s'; folding failed polls\n",
                         p);
    }
    g.buf.assign(buffer / 8, 0);
    // The folder is made if it does not exist (every rank tries; one wins, the others see it).
    std::string made_error;
    if (dir != nullptr && *dir != '\0') made_error = make_directories(dir);
    g.fd = ::open(g.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int open_errno = errno;
    // Every rank takes part in the barrier, traced or not, so that one rank that cannot write
    // does not leave the others waiting in it.
    PMPI_Barrier(MPI_COMM_WORLD);
    if (g.fd < 0) {
        std::fprintf(stderr, "clustersim-trace: rank %d cannot create %s: %s%s; not tracing\n",
                     rank, g.path.c_str(), std::strerror(open_errno), made_error.c_str());
        return;
    }
    g.t0 = mono_ns();
    h.t0_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
    g.active = true;
    const auto* p = reinterpret_cast<const std::uint64_t*>(&h);
    std::memcpy(g.buf.data(), p, sizeof h);
    g.used = sizeof h / 8;
}

}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
    const int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) start_tracing();
    return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
    const int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) start_tracing();
    return rc;
}

int MPI_Finalize() {
    if (g.active) {
        for (std::size_t call = 0; call < g.polls.size(); ++call) {
            const Tracer::Polls& p = g.polls[call];
            if (p.count == 0) continue;
            rf::RawRecord f;
            f.kind = rf::kPolls;
            f.call = static_cast<std::uint16_t>(call);
            f.start_ns = f.end_ns = g.now();
            f.bytes = p.count;
            f.bytes2 = p.ns;
            g.put(f);
        }
        rf::RawRecord r;
        r.kind = rf::kEnd;
        r.start_ns = r.end_ns = g.now();
        g.put(r);  // put() sets the record count
        g.flush_raw();
        g.active = false;
    }
    if (g.fd >= 0) {
        ::close(g.fd);
        g.fd = -1;
    }
    return PMPI_Finalize();
}

// ---- point to point --------------------------------------------------------------------

#define CS_SEND(NAME, PNAME)                                                                    \
    int NAME(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) { \
        if (!g.recording()) return PNAME(buf, count, type, dest, tag, comm);                    \
        const Nest nest;                                                                        \
        const std::int64_t s = g.now();                                                         \
        const int rc = PNAME(buf, count, type, dest, tag, comm);                                \
        rf::RawRecord r = make(rf::kSend, idx(#NAME), s);                                       \
        r.peer = dest;                                                                          \
        r.tag = tag;                                                                            \
        r.bytes = bytes_of(count, type);                                                        \
        if (dest != MPI_PROC_NULL) {                                                            \
            on_comm(r, comm);                                                                   \
        } else {                                                                                \
            r.kind = rf::kUnmodeled;                                                            \
        }                                                                                       \
        g.put(r);                                                                               \
        return rc;                                                                              \
    }
CS_SEND(MPI_Send, PMPI_Send)
CS_SEND(MPI_Ssend, PMPI_Ssend)
CS_SEND(MPI_Bsend, PMPI_Bsend)
CS_SEND(MPI_Rsend, PMPI_Rsend)
#undef CS_SEND

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
    if (!g.recording()) return PMPI_Recv(buf, count, type, source, tag, comm, status);
    const Nest nest;
    MPI_Status st;
    const std::int64_t s = g.now();
    const int rc = PMPI_Recv(buf, count, type, source, tag, comm, &st);
    rf::RawRecord r = make(rf::kRecv, idx("MPI_Recv"), s);
    // The matched source and size (what replay needs to reproduce the matching); the
    // posted ones would be ANY_SOURCE and the buffer's capacity.
    int got = 0;
    PMPI_Get_count(&st, type, &got);
    r.peer = source == MPI_ANY_SOURCE ? st.MPI_SOURCE : source;
    r.tag = tag == MPI_ANY_TAG ? st.MPI_TAG : tag;
    r.bytes = bytes_of(got == MPI_UNDEFINED ? count : got, type);
    if (source != MPI_PROC_NULL)
        on_comm(r, comm);
    else
        r.kind = rf::kUnmodeled;
    g.put(r);
    if (status != MPI_STATUS_IGNORE) *status = st;
    return rc;
}

#define CS_ISEND(NAME, PNAME)                                                                 \
    int NAME(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
             MPI_Request* request) {                                                          \
        if (!g.recording()) return PNAME(buf, count, type, dest, tag, comm, request);         \
        const Nest nest;                                                                      \
        const std::int64_t s = g.now();                                                       \
        const int rc = PNAME(buf, count, type, dest, tag, comm, request);                     \
        rf::RawRecord r = make(rf::kIsend, idx(#NAME), s);                                    \
        r.peer = dest;                                                                        \
        r.tag = tag;                                                                          \
        r.bytes = bytes_of(count, type);                                                      \
        if (dest != MPI_PROC_NULL && on_comm(r, comm))                                        \
            r.handle = g.new_request(*request);                                               \
        else                                                                                  \
            r.kind = rf::kUnmodeled;                                                          \
        g.put(r);                                                                             \
        return rc;                                                                            \
    }
CS_ISEND(MPI_Isend, PMPI_Isend)
CS_ISEND(MPI_Issend, PMPI_Issend)
CS_ISEND(MPI_Ibsend, PMPI_Ibsend)
CS_ISEND(MPI_Irsend, PMPI_Irsend)
#undef CS_ISEND

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
    if (!g.recording()) return PMPI_Irecv(buf, count, type, source, tag, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
    rf::RawRecord r = make(rf::kIrecv, idx("MPI_Irecv"), s);
    r.peer = peer_of(source);
    r.tag = tag_of(tag);
    r.bytes = bytes_of(count, type);
    if (source != MPI_PROC_NULL && on_comm(r, comm))
        r.handle = g.new_request(*request);
    else
        r.kind = rf::kUnmodeled;
    g.put(r);
    return rc;
}

int MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf,
                 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status* status) {
    if (!g.recording())
        return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                             comm, status);
    const Nest nest;
    MPI_Status st;
    const std::int64_t s = g.now();
    const int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                                 comm, &st);
    rf::RawRecord r = make(rf::kSendrecv, idx("MPI_Sendrecv"), s);
    int got = 0;
    PMPI_Get_count(&st, rtype, &got);
    r.peer = dest;
    r.tag = stag;
    r.bytes = bytes_of(scount, stype);
    r.peer2 = source == MPI_ANY_SOURCE ? st.MPI_SOURCE : source;
    r.tag2 = rtag == MPI_ANY_TAG ? st.MPI_TAG : rtag;
    r.bytes2 = bytes_of(got == MPI_UNDEFINED ? rcount : got, rtype);
    if (dest != MPI_PROC_NULL && source != MPI_PROC_NULL)
        on_comm(r, comm);
    else
        r.kind = rf::kUnmodeled;
    g.put(r);
    if (status != MPI_STATUS_IGNORE) *status = st;
    return rc;
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int stag, int source,
                         int rtag, MPI_Comm comm, MPI_Status* status) {
    if (!g.recording())
        return PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, status);
    const Nest nest;
    MPI_Status st;
    const std::int64_t s = g.now();
    const int rc = PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, &st);
    rf::RawRecord r = make(rf::kSendrecv, idx("MPI_Sendrecv_replace"), s);
    r.peer = dest;
    r.tag = stag;
    r.bytes = r.bytes2 = bytes_of(count, type);
    r.peer2 = source == MPI_ANY_SOURCE ? st.MPI_SOURCE : source;
    r.tag2 = rtag == MPI_ANY_TAG ? st.MPI_TAG : rtag;
    if (dest != MPI_PROC_NULL && source != MPI_PROC_NULL)
        on_comm(r, comm);
    else
        r.kind = rf::kUnmodeled;
    g.put(r);
    if (status != MPI_STATUS_IGNORE) *status = st;
    return rc;
}

// ---- completion --------------------------------------------------------------------------

// Whether a completed request's status says it was cancelled (1) or not (0).
int status_cancelled(const MPI_Status* st) {
    int c = 0;
    PMPI_Test_cancelled(st, &c);
    return c != 0 ? 1 : 0;
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
    if (!g.recording()) return PMPI_Wait(request, status);
    const Nest nest;
    const MPI_Request before = *request;
    MPI_Status mine;  // the status, also when the application ignores it (for cancellation)
    const std::int64_t s = g.now();
    const int rc = PMPI_Wait(request, status == MPI_STATUS_IGNORE ? &mine : status);
    const MPI_Status* st = status == MPI_STATUS_IGNORE ? &mine : status;
    completed(idx("MPI_Wait"), s, 1, &before, request,
              rc == MPI_SUCCESS ? status_cancelled(st) : -1);
    return rc;
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
    if (!g.recording()) return PMPI_Test(request, flag, status);
    const Nest nest;
    const MPI_Request before = *request;
    MPI_Status mine;
    const std::int64_t s = g.now();
    const int rc = PMPI_Test(request, flag, status == MPI_STATUS_IGNORE ? &mine : status);
    const MPI_Status* st = status == MPI_STATUS_IGNORE ? &mine : status;
    completed(idx("MPI_Test"), s, 1, &before, request,
              rc == MPI_SUCCESS && *flag != 0 ? status_cancelled(st) : -1);
    return rc;
}

#define CS_COMPLETE_ARRAY(NAME, CALL)                                                \
    {                                                                                \
        if (!g.recording()) return CALL;                                             \
        const Nest nest;                                                             \
        static std::vector<MPI_Request> before; /* reused: no allocation per poll */ \
        before.assign(requests, requests + (count > 0 ? count : 0));                 \
        const std::int64_t s = g.now();                                              \
        const int rc = CALL;                                                         \
        completed(idx(NAME), s, count, before.data(), requests);                     \
        return rc;                                                                   \
    }

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) CS_COMPLETE_ARRAY(
    "MPI_Waitall",
    PMPI_Waitall(count, requests, statuses)) int MPI_Waitany(int count, MPI_Request requests[],
                                                             int* index, MPI_Status* status)
    CS_COMPLETE_ARRAY("MPI_Waitany", PMPI_Waitany(count, requests, index, status)) int MPI_Waitsome(
        int count, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[])
        CS_COMPLETE_ARRAY("MPI_Waitsome",
                          PMPI_Waitsome(count, requests, outcount, indices,
                                        statuses)) int MPI_Testall(int count,
                                                                   MPI_Request requests[],
                                                                   int* flag, MPI_Status statuses[])
            CS_COMPLETE_ARRAY("MPI_Testall",
                              PMPI_Testall(count, requests, flag,
                                           statuses)) int MPI_Testany(int count,
                                                                      MPI_Request requests[],
                                                                      int* index, int* flag,
                                                                      MPI_Status* status)
                CS_COMPLETE_ARRAY("MPI_Testany",
                                  PMPI_Testany(count, requests, index, flag,
                                               status)) int MPI_Testsome(int count,
                                                                         MPI_Request requests[],
                                                                         int* outcount,
                                                                         int indices[],
                                                                         MPI_Status statuses[])
                    CS_COMPLETE_ARRAY("MPI_Testsome",
                                      PMPI_Testsome(count, requests, outcount, indices, statuses))
#undef CS_COMPLETE_ARRAY

    // ---- collectives ---------------------------------------------------------------------------

    int MPI_Barrier(MPI_Comm comm) {
    if (!g.recording()) return PMPI_Barrier(comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Barrier(comm);
    collective(idx("MPI_Barrier"), s, CBarrier, comm, 0, 0);
    return rc;
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    if (!g.recording()) return PMPI_Bcast(buf, count, type, root, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Bcast(buf, count, type, root, comm);
    collective(idx("MPI_Bcast"), s, CBcast, comm, bytes_of(count, type), root);
    return rc;
}

int MPI_Reduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) {
    if (!g.recording()) return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
    collective(idx("MPI_Reduce"), s, CReduce, comm, bytes_of(count, type), root);
    return rc;
}

int MPI_Allreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
    if (!g.recording()) return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    collective(idx("MPI_Allreduce"), s, CAllreduce, comm, bytes_of(count, type), 0);
    return rc;
}

// Gather-like: the block one rank contributes (the receive side where the send side is
// MPI_IN_PLACE or, at a scatter's non-root, where only the receive side is meaningful).
int MPI_Gather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm) {
    if (!g.recording()) return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    collective(idx("MPI_Gather"), s, CGather, comm,
               sbuf == MPI_IN_PLACE ? bytes_of(rcount, rtype) : bytes_of(scount, stype), root);
    return rc;
}

int MPI_Scatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm) {
    if (!g.recording()) return PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    collective(idx("MPI_Scatter"), s, CScatter, comm,
               rbuf == MPI_IN_PLACE ? bytes_of(scount, stype) : bytes_of(rcount, rtype), root);
    return rc;
}

int MPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm) {
    if (!g.recording()) return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    collective(idx("MPI_Allgather"), s, CAllgather, comm,
               sbuf == MPI_IN_PLACE ? bytes_of(rcount, rtype) : bytes_of(scount, stype), 0);
    return rc;
}

int MPI_Alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm) {
    if (!g.recording()) return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    collective(idx("MPI_Alltoall"), s, CAlltoall, comm,
               sbuf == MPI_IN_PLACE ? bytes_of(rcount, rtype) : bytes_of(scount, stype), 0);
    return rc;
}

int MPI_Reduce_scatter_block(const void* sbuf, void* rbuf, int rcount, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm) {
    if (!g.recording()) return PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm);
    collective(idx("MPI_Reduce_scatter_block"), s, CReduceScatterBlock, comm,
               bytes_of(rcount, type), 0);
    return rc;
}

int MPI_Scan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    if (!g.recording()) return PMPI_Scan(sbuf, rbuf, count, type, op, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Scan(sbuf, rbuf, count, type, op, comm);
    collective(idx("MPI_Scan"), s, CScan, comm, bytes_of(count, type), 0);
    return rc;
}

int MPI_Exscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm) {
    if (!g.recording()) return PMPI_Exscan(sbuf, rbuf, count, type, op, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Exscan(sbuf, rbuf, count, type, op, comm);
    collective(idx("MPI_Exscan"), s, CExscan, comm, bytes_of(count, type), 0);
    return rc;
}

// MPI_Reduce_scatter with equal counts is reduce_scatter; unequal counts are not modeled.
int MPI_Reduce_scatter(const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm) {
    if (!g.recording()) return PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm);
    int size = 0;
    PMPI_Comm_size(comm, &size);
    bool equal = true;
    for (int i = 1; i < size; ++i) equal = equal && rcounts[i] == rcounts[0];
    if (!equal) {
        unmodeled(idx("MPI_Reduce_scatter"), s);
        return rc;
    }
    collective(idx("MPI_Reduce_scatter"), s, CReduceScatter, comm, bytes_of(rcounts[0], type), 0);
    return rc;
}

int MPI_Gatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm) {
    if (!g.recording())
        return PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
    if (g.comm_id(comm) < 0) {
        unmodeled(idx("MPI_Gatherv"), s);
        return rc;
    }
    const std::int64_t e = g.now();
    // The root knows every block (its receive counts); a non-root only its own.
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    std::vector<std::uint64_t> counts =
        vcounts(comm, root, me == root ? rcounts : nullptr, rtype, true);
    collective(idx("MPI_Gatherv"), s, CGatherv, comm, 0, root, false, nullptr, &counts, e);
    return rc;
}

int MPI_Scatterv(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                 void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
    if (!g.recording())
        return PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
    if (g.comm_id(comm) < 0) {
        unmodeled(idx("MPI_Scatterv"), s);
        return rc;
    }
    const std::int64_t e = g.now();
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    std::vector<std::uint64_t> counts =
        vcounts(comm, root, me == root ? scounts : nullptr, stype, true);
    collective(idx("MPI_Scatterv"), s, CScatterv, comm, 0, root, false, nullptr, &counts, e);
    return rc;
}

int MPI_Allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm) {
    if (!g.recording())
        return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
    const std::int64_t e = g.now();
    std::vector<std::uint64_t> counts = vcounts(comm, 0, rcounts, rtype, false);
    collective(idx("MPI_Allgatherv"), s, CAllgatherv, comm, 0, 0, false, nullptr, &counts, e);
    return rc;
}

int MPI_Alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                  void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                  MPI_Comm comm) {
    if (!g.recording())
        return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc =
        PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    if (g.comm_id(comm) < 0 || sbuf == MPI_IN_PLACE) {
        unmodeled(idx("MPI_Alltoallv"), s);
        return rc;
    }
    const std::int64_t e = g.now();
    // The matrix: every rank's send row, gathered (outside the recorded interval).
    std::vector<std::uint64_t> row = vcounts(comm, 0, scounts, stype, false);
    std::vector<std::uint64_t> matrix(row.size() * row.size());
    PMPI_Allgather(row.data(), static_cast<int>(row.size()), MPI_UINT64_T, matrix.data(),
                   static_cast<int>(row.size()), MPI_UINT64_T, comm);
    collective(idx("MPI_Alltoallv"), s, CAlltoallv, comm, 0, 0, false, nullptr, &matrix, e);
    return rc;
}

// The nonblocking v-collectives: counts as their blocking forms gather them (after the
// call, outside the recorded interval; MPI orders these collectives as the program's).
int MPI_Igatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                 const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
    if (!g.recording())
        return PMPI_Igatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm,
                             request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc =
        PMPI_Igatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, request);
    if (g.comm_id(comm) < 0) {
        unmodeled(idx("MPI_Igatherv"), s);
        return rc;
    }
    const std::int64_t e = g.now();
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    std::vector<std::uint64_t> counts =
        vcounts(comm, root, me == root ? rcounts : nullptr, rtype, true);
    collective(idx("MPI_Igatherv"), s, CGatherv, comm, 0, root, true, request, &counts, e);
    return rc;
}

int MPI_Iscatterv(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                  void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                  MPI_Request* request) {
    if (!g.recording())
        return PMPI_Iscatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm,
                              request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc =
        PMPI_Iscatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, request);
    if (g.comm_id(comm) < 0) {
        unmodeled(idx("MPI_Iscatterv"), s);
        return rc;
    }
    const std::int64_t e = g.now();
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    std::vector<std::uint64_t> counts =
        vcounts(comm, root, me == root ? scounts : nullptr, stype, true);
    collective(idx("MPI_Iscatterv"), s, CScatterv, comm, 0, root, true, request, &counts, e);
    return rc;
}

int MPI_Iallgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                    const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm,
                    MPI_Request* request) {
    if (!g.recording())
        return PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc =
        PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, request);
    const std::int64_t e = g.now();
    std::vector<std::uint64_t> counts = vcounts(comm, 0, rcounts, rtype, false);
    collective(idx("MPI_Iallgatherv"), s, CAllgatherv, comm, 0, 0, true, request, &counts, e);
    return rc;
}

int MPI_Ialltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                   void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                   MPI_Comm comm, MPI_Request* request) {
    if (!g.recording())
        return PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm,
                               request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,
                                   comm, request);
    if (g.comm_id(comm) < 0 || sbuf == MPI_IN_PLACE) {
        unmodeled(idx("MPI_Ialltoallv"), s);
        return rc;
    }
    const std::int64_t e = g.now();
    std::vector<std::uint64_t> row = vcounts(comm, 0, scounts, stype, false);
    std::vector<std::uint64_t> matrix(row.size() * row.size());
    PMPI_Allgather(row.data(), static_cast<int>(row.size()), MPI_UINT64_T, matrix.data(),
                   static_cast<int>(row.size()), MPI_UINT64_T, comm);
    collective(idx("MPI_Ialltoallv"), s, CAlltoallv, comm, 0, 0, true, request, &matrix, e);
    return rc;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
    if (!g.recording()) return PMPI_Ibarrier(comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Ibarrier(comm, request);
    collective(idx("MPI_Ibarrier"), s, CBarrier, comm, 0, 0, true, request);
    return rc;
}

int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request) {
    if (!g.recording()) return PMPI_Ibcast(buf, count, type, root, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Ibcast(buf, count, type, root, comm, request);
    collective(idx("MPI_Ibcast"), s, CBcast, comm, bytes_of(count, type), root, true, request);
    return rc;
}

int MPI_Ireduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request* request) {
    if (!g.recording()) return PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, request);
    collective(idx("MPI_Ireduce"), s, CReduce, comm, bytes_of(count, type), root, true, request);
    return rc;
}

int MPI_Iscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              MPI_Request* request) {
    if (!g.recording()) return PMPI_Iscan(sbuf, rbuf, count, type, op, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Iscan(sbuf, rbuf, count, type, op, comm, request);
    collective(idx("MPI_Iscan"), s, CScan, comm, bytes_of(count, type), 0, true, request);
    return rc;
}

int MPI_Iexscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, MPI_Request* request) {
    if (!g.recording()) return PMPI_Iexscan(sbuf, rbuf, count, type, op, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Iexscan(sbuf, rbuf, count, type, op, comm, request);
    collective(idx("MPI_Iexscan"), s, CExscan, comm, bytes_of(count, type), 0, true, request);
    return rc;
}

int MPI_Ireduce_scatter_block(const void* sbuf, void* rbuf, int rcount, MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm, MPI_Request* request) {
    if (!g.recording())
        return PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, type, op, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, type, op, comm, request);
    collective(idx("MPI_Ireduce_scatter_block"), s, CReduceScatterBlock, comm,
               bytes_of(rcount, type), 0, true, request);
    return rc;
}

int MPI_Iallreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
    if (!g.recording()) return PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, request);
    collective(idx("MPI_Iallreduce"), s, CAllreduce, comm, bytes_of(count, type), 0, true, request);
    return rc;
}

int MPI_Igather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* request) {
    if (!g.recording())
        return PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, request);
    collective(idx("MPI_Igather"), s, CGather, comm,
               sbuf == MPI_IN_PLACE ? bytes_of(rcount, rtype) : bytes_of(scount, stype), root, true,
               request);
    return rc;
}

int MPI_Iscatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* request) {
    if (!g.recording())
        return PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, request);
    collective(idx("MPI_Iscatter"), s, CScatter, comm,
               rbuf == MPI_IN_PLACE ? bytes_of(scount, stype) : bytes_of(rcount, rtype), root, true,
               request);
    return rc;
}

int MPI_Iallgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                   MPI_Datatype rtype, MPI_Comm comm, MPI_Request* request) {
    if (!g.recording())
        return PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, request);
    collective(idx("MPI_Iallgather"), s, CAllgather, comm,
               sbuf == MPI_IN_PLACE ? bytes_of(rcount, rtype) : bytes_of(scount, stype), 0, true,
               request);
    return rc;
}

int MPI_Ialltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm, MPI_Request* request) {
    if (!g.recording())
        return PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, request);
    collective(idx("MPI_Ialltoall"), s, CAlltoall, comm,
               sbuf == MPI_IN_PLACE ? bytes_of(rcount, rtype) : bytes_of(scount, stype), 0, true,
               request);
    return rc;
}

// ---- communicators -------------------------------------------------------------------------

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
    if (!g.recording()) return PMPI_Comm_dup(comm, newcomm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Comm_dup(comm, newcomm);
    rf::RawRecord r = make(rf::kCommDup, idx("MPI_Comm_dup"), s);
    if (on_comm(r, comm) && rc == MPI_SUCCESS) {
        r.newcomm = static_cast<std::uint32_t>(g.next_comm);
        g.comms[*newcomm] = g.next_comm++;
    }
    g.put(r);
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
    if (!g.recording()) return PMPI_Comm_split(comm, color, key, newcomm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Comm_split(comm, color, key, newcomm);
    rf::RawRecord r = make(rf::kCommSplit, idx("MPI_Comm_split"), s);
    r.color = color == MPI_UNDEFINED ? -32766 : color;  // mpi::kUndefined
    r.key = key;
    if (on_comm(r, comm) && rc == MPI_SUCCESS) {
        r.newcomm = static_cast<std::uint32_t>(g.next_comm);
        if (*newcomm != MPI_COMM_NULL) g.comms[*newcomm] = g.next_comm;
        ++g.next_comm;
    }
    g.put(r);
    return rc;
}

// ---- process topologies -------------------------------------------------------------------------
// The new communicator gets a handle like a split's (ranks outside a Cartesian grid get
// MPI_COMM_NULL); the arguments go in the extra words as mpi::encode_topo_spec lays them out.

void topology(std::uint8_t kind, std::uint16_t call, std::int64_t start, MPI_Comm comm, int rc,
              MPI_Comm* newcomm, const std::vector<std::uint64_t>& words) {
    rf::RawRecord r = make(kind, call, start);
    if (!on_comm(r, comm) || rc != MPI_SUCCESS) {
        r.kind = rf::kUnmodeled;
        return g.put(r);
    }
    r.newcomm = static_cast<std::uint32_t>(g.next_comm);
    if (*newcomm != MPI_COMM_NULL) g.comms[*newcomm] = g.next_comm;
    ++g.next_comm;
    g.put(r, words.data(), words.size());
}

int MPI_Cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm* cart) {
    if (!g.recording()) return PMPI_Cart_create(old, ndims, dims, periods, reorder, cart);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Cart_create(old, ndims, dims, periods, reorder, cart);
    std::vector<std::uint64_t> w{static_cast<std::uint64_t>(std::max(ndims, 0))};
    for (int i = 0; i < ndims; ++i) w.push_back(static_cast<std::uint64_t>(dims[i]));
    for (int i = 0; i < ndims; ++i) w.push_back(periods[i] != 0 ? 1 : 0);
    w.push_back(reorder != 0 ? 1 : 0);
    topology(rf::kCartCreate, idx("MPI_Cart_create"), s, old, rc, cart, w);
    return rc;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* graph) {
    if (!g.recording())
        return PMPI_Dist_graph_create_adjacent(old, indegree, sources, sourceweights, outdegree,
                                               destinations, destweights, info, reorder, graph);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Dist_graph_create_adjacent(old, indegree, sources, sourceweights, outdegree,
                                                   destinations, destweights, info, reorder, graph);
    std::vector<std::uint64_t> w{static_cast<std::uint64_t>(std::max(indegree, 0))};
    for (int i = 0; i < indegree; ++i) w.push_back(static_cast<std::uint64_t>(sources[i]));
    for (int i = 0; i < outdegree; ++i) w.push_back(static_cast<std::uint64_t>(destinations[i]));
    w.push_back(reorder != 0 ? 1 : 0);
    topology(rf::kDistGraphCreateAdjacent, idx("MPI_Dist_graph_create_adjacent"), s, old, rc, graph,
             w);
    return rc;
}

int MPI_Dist_graph_create(MPI_Comm old, int n, const int nodes[], const int degrees[],
                          const int targets[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm* graph) {
    if (!g.recording())
        return PMPI_Dist_graph_create(old, n, nodes, degrees, targets, weights, info, reorder,
                                      graph);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc =
        PMPI_Dist_graph_create(old, n, nodes, degrees, targets, weights, info, reorder, graph);
    std::vector<std::uint64_t> from, to;
    for (int i = 0, k = 0; i < n; ++i)
        for (int j = 0; j < degrees[i]; ++j, ++k) {
            from.push_back(static_cast<std::uint64_t>(nodes[i]));
            to.push_back(static_cast<std::uint64_t>(targets[k]));
        }
    std::vector<std::uint64_t> w{from.size()};
    w.insert(w.end(), from.begin(), from.end());
    w.insert(w.end(), to.begin(), to.end());
    w.push_back(reorder != 0 ? 1 : 0);
    topology(rf::kDistGraphCreate, idx("MPI_Dist_graph_create"), s, old, rc, graph, w);
    return rc;
}

// ---- neighbourhood collectives ---------------------------------------------------------------
// Their counts are the rank's own (no gathering): neighbor_allgatherv its send block, then its
// receive blocks; alltoallv/w its blocks to its out-neighbours, then from its in-neighbours.

// The rank's in- and out-degree in `comm`'s topology; false if it has none the simulator
// models (MPI_Graph_create's).
bool degrees(MPI_Comm comm, int& in, int& out) {
    int status = MPI_UNDEFINED;
    if (PMPI_Topo_test(comm, &status) != MPI_SUCCESS) return false;
    if (status == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        in = out = 2 * nd;
        return true;
    }
    if (status == MPI_DIST_GRAPH) {
        int weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
        return true;
    }
    return false;
}

// One neighbourhood collective; `counts` as above (null: not a v/w-form).
void neighbor(std::uint16_t call, std::int64_t start, std::uint8_t coll, MPI_Comm comm,
              std::uint64_t bytes, bool nonblocking, MPI_Request* request,
              const std::vector<std::uint64_t>* counts) {
    int in = 0, out = 0;
    if (g.comm_id(comm) < 0 || !degrees(comm, in, out)) return unmodeled(call, start);
    collective(call, start, coll, comm, bytes, 0, nonblocking, request, counts);
}

std::vector<std::uint64_t> neighbor_counts(MPI_Comm comm, const int* scounts,
                                           const MPI_Datatype* stypes, MPI_Datatype stype,
                                           const int* rcounts, const MPI_Datatype* rtypes,
                                           MPI_Datatype rtype) {
    int in = 0, out = 0;
    std::vector<std::uint64_t> c;
    if (!degrees(comm, in, out)) return c;
    for (int i = 0; i < out; ++i) c.push_back(bytes_of(scounts[i], stypes ? stypes[i] : stype));
    for (int i = 0; i < in; ++i) c.push_back(bytes_of(rcounts[i], rtypes ? rtypes[i] : rtype));
    return c;
}

// neighbor_allgatherv: its send block, then what it receives from each in-neighbour.
std::vector<std::uint64_t> allgatherv_counts(MPI_Comm comm, int scount, MPI_Datatype stype,
                                             const int* rcounts, MPI_Datatype rtype) {
    int in = 0, out = 0;
    std::vector<std::uint64_t> c;
    if (!degrees(comm, in, out)) return c;
    c.push_back(bytes_of(scount, stype));
    for (int i = 0; i < in; ++i) c.push_back(bytes_of(rcounts[i], rtype));
    return c;
}

int MPI_Neighbor_allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm) {
    if (!g.recording())
        return PMPI_Neighbor_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Neighbor_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    neighbor(idx("MPI_Neighbor_allgather"), s, CNeighborAllgather, comm, bytes_of(scount, stype),
             false, nullptr, nullptr);
    return rc;
}

int MPI_Ineighbor_allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* request) {
    if (!g.recording())
        return PMPI_Ineighbor_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc =
        PMPI_Ineighbor_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, request);
    neighbor(idx("MPI_Ineighbor_allgather"), s, CNeighborAllgather, comm, bytes_of(scount, stype),
             true, request, nullptr);
    return rc;
}

int MPI_Neighbor_allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                            const int rcounts[], const int displs[], MPI_Datatype rtype,
                            MPI_Comm comm) {
    if (!g.recording())
        return PMPI_Neighbor_allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc =
        PMPI_Neighbor_allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
    const std::vector<std::uint64_t> c = allgatherv_counts(comm, scount, stype, rcounts, rtype);
    neighbor(idx("MPI_Neighbor_allgatherv"), s, CNeighborAllgatherv, comm, bytes_of(scount, stype),
             false, nullptr, &c);
    return rc;
}

int MPI_Ineighbor_allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                             const int rcounts[], const int displs[], MPI_Datatype rtype,
                             MPI_Comm comm, MPI_Request* request) {
    if (!g.recording())
        return PMPI_Ineighbor_allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm,
                                         request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc =
        PMPI_Ineighbor_allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, request);
    const std::vector<std::uint64_t> c = allgatherv_counts(comm, scount, stype, rcounts, rtype);
    neighbor(idx("MPI_Ineighbor_allgatherv"), s, CNeighborAllgatherv, comm, bytes_of(scount, stype),
             true, request, &c);
    return rc;
}

int MPI_Neighbor_alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm) {
    if (!g.recording())
        return PMPI_Neighbor_alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Neighbor_alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    neighbor(idx("MPI_Neighbor_alltoall"), s, CNeighborAlltoall, comm, bytes_of(scount, stype),
             false, nullptr, nullptr);
    return rc;
}

int MPI_Ineighbor_alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm, MPI_Request* request) {
    if (!g.recording())
        return PMPI_Ineighbor_alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Ineighbor_alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, request);
    neighbor(idx("MPI_Ineighbor_alltoall"), s, CNeighborAlltoall, comm, bytes_of(scount, stype),
             true, request, nullptr);
    return rc;
}

int MPI_Neighbor_alltoallv(const void* sbuf, const int scounts[], const int sdispls[],
                           MPI_Datatype stype, void* rbuf, const int rcounts[], const int rdispls[],
                           MPI_Datatype rtype, MPI_Comm comm) {
    if (!g.recording())
        return PMPI_Neighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,
                                       comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc =
        PMPI_Neighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    const std::vector<std::uint64_t> c =
        neighbor_counts(comm, scounts, nullptr, stype, rcounts, nullptr, rtype);
    neighbor(idx("MPI_Neighbor_alltoallv"), s, CNeighborAlltoallv, comm, 0, false, nullptr, &c);
    return rc;
}

int MPI_Ineighbor_alltoallv(const void* sbuf, const int scounts[], const int sdispls[],
                            MPI_Datatype stype, void* rbuf, const int rcounts[],
                            const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                            MPI_Request* request) {
    if (!g.recording())
        return PMPI_Ineighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls,
                                        rtype, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Ineighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls,
                                            rtype, comm, request);
    const std::vector<std::uint64_t> c =
        neighbor_counts(comm, scounts, nullptr, stype, rcounts, nullptr, rtype);
    neighbor(idx("MPI_Ineighbor_alltoallv"), s, CNeighborAlltoallv, comm, 0, true, request, &c);
    return rc;
}

int MPI_Neighbor_alltoallw(const void* sbuf, const int scounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype stypes[], void* rbuf, const int rcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm) {
    if (!g.recording())
        return PMPI_Neighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls,
                                       rtypes, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Neighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls,
                                           rtypes, comm);
    const std::vector<std::uint64_t> c =
        neighbor_counts(comm, scounts, stypes, MPI_BYTE, rcounts, rtypes, MPI_BYTE);
    neighbor(idx("MPI_Neighbor_alltoallw"), s, CNeighborAlltoallw, comm, 0, false, nullptr, &c);
    return rc;
}

int MPI_Ineighbor_alltoallw(const void* sbuf, const int scounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype stypes[], void* rbuf, const int rcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                            MPI_Request* request) {
    if (!g.recording())
        return PMPI_Ineighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls,
                                        rtypes, comm, request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Ineighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls,
                                            rtypes, comm, request);
    const std::vector<std::uint64_t> c =
        neighbor_counts(comm, scounts, stypes, MPI_BYTE, rcounts, rtypes, MPI_BYTE);
    neighbor(idx("MPI_Ineighbor_alltoallw"), s, CNeighborAlltoallw, comm, 0, true, request, &c);
    return rc;
}

// MPI_Alltoallw: each rank's send row in bytes (its per-peer datatypes' sizes), gathered
// into the matrix outside the recorded interval, as MPI_Alltoallv's.
std::vector<std::uint64_t> alltoallw_matrix(MPI_Comm comm, const int* scounts,
                                            const MPI_Datatype* stypes) {
    int size = 0;
    PMPI_Comm_size(comm, &size);
    std::vector<std::uint64_t> row(static_cast<std::size_t>(size));
    for (int j = 0; j < size; ++j)
        row[static_cast<std::size_t>(j)] = bytes_of(scounts[j], stypes[j]);
    std::vector<std::uint64_t> matrix(row.size() * row.size());
    PMPI_Allgather(row.data(), size, MPI_UINT64_T, matrix.data(), size, MPI_UINT64_T, comm);
    return matrix;
}

int MPI_Alltoallw(const void* sbuf, const int scounts[], const int sdispls[],
                  const MPI_Datatype stypes[], void* rbuf, const int rcounts[], const int rdispls[],
                  const MPI_Datatype rtypes[], MPI_Comm comm) {
    if (!g.recording())
        return PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc =
        PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
    if (g.comm_id(comm) < 0 || sbuf == MPI_IN_PLACE) {
        unmodeled(idx("MPI_Alltoallw"), s);
        return rc;
    }
    const std::int64_t e = g.now();
    const std::vector<std::uint64_t> matrix = alltoallw_matrix(comm, scounts, stypes);
    collective(idx("MPI_Alltoallw"), s, CAlltoallw, comm, 0, 0, false, nullptr, &matrix, e);
    return rc;
}

int MPI_Ialltoallw(const void* sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype stypes[], void* rbuf, const int rcounts[],
                   const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                   MPI_Request* request) {
    if (!g.recording())
        return PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm,
                               request);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                                   comm, request);
    if (g.comm_id(comm) < 0 || sbuf == MPI_IN_PLACE) {
        unmodeled(idx("MPI_Ialltoallw"), s);
        return rc;
    }
    const std::int64_t e = g.now();
    const std::vector<std::uint64_t> matrix = alltoallw_matrix(comm, scounts, stypes);
    collective(idx("MPI_Ialltoallw"), s, CAlltoallw, comm, 0, 0, true, request, &matrix, e);
    return rc;
}

// MPI_Comm_create(comm, group) is recorded as the MPI_Comm_split it equals: a member of
// `group` takes colour = the lowest rank in `comm` among the group's members (so disjoint
// groups, MPI-3, get different colours) and key = its rank in the group; the others
// MPI_UNDEFINED. Worked out after the call (local group calls, outside its interval).
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
    if (!g.recording()) return PMPI_Comm_create(comm, group, newcomm);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Comm_create(comm, group, newcomm);
    rf::RawRecord r = make(rf::kCommSplit, idx("MPI_Comm_create"), s);
    int grank = MPI_UNDEFINED;
    PMPI_Group_rank(group, &grank);
    r.color = -32766;  // mpi::kUndefined
    if (grank != MPI_UNDEFINED) {
        int n = 0;
        PMPI_Group_size(group, &n);
        MPI_Group parent;
        PMPI_Comm_group(comm, &parent);
        std::vector<int> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i;
        PMPI_Group_translate_ranks(group, n, in.data(), parent, out.data());
        PMPI_Group_free(&parent);
        int lowest = -1;
        for (int x : out)
            if (x != MPI_UNDEFINED && (lowest < 0 || x < lowest)) lowest = x;
        r.color = lowest;
        r.key = grank;
    }
    if (on_comm(r, comm) && rc == MPI_SUCCESS) {
        r.newcomm = static_cast<std::uint32_t>(g.next_comm);
        if (*newcomm != MPI_COMM_NULL) g.comms[*newcomm] = g.next_comm;
        ++g.next_comm;
    }
    g.put(r);
    return rc;
}

// ---- MPI-IO ----------------------------------------------------------------------------------

int MPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
    if (!g.recording()) return PMPI_File_open(comm, filename, amode, info, fh);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_File_open(comm, filename, amode, info, fh);
    rf::RawRecord r = make(rf::kFileOpen, idx("MPI_File_open"), s);
    if (!on_comm(r, comm) || rc != MPI_SUCCESS) {
        r.kind = rf::kUnmodeled;
        g.put(r);
        return rc;
    }
    r.file = g.next_file++;
    g.files[*fh] = r.file;
    g.etype_size[*fh] = 1;
    const std::string name = filename;
    r.count = static_cast<std::uint32_t>(name.size());
    std::vector<std::uint64_t> words((name.size() + 7) / 8, 0);
    if (!name.empty()) std::memcpy(words.data(), name.data(), name.size());
    g.put(r, words.data(), words.size());
    return rc;
}

namespace {
// A file record: unmodeled when the handle is not one the tracer saw opened.
bool on_file(rf::RawRecord& r, MPI_File fh) {
    auto it = g.files.find(fh);
    if (it != g.files.end()) {
        r.file = it->second;
        return true;
    }
    r.kind = rf::kUnmodeled;
    return false;
}
std::uint64_t etype_of(MPI_File fh) {
    auto it = g.etype_size.find(fh);
    return it == g.etype_size.end() ? 1 : it->second;
}
}  // namespace

int MPI_File_close(MPI_File* fh) {
    if (!g.recording()) return PMPI_File_close(fh);
    const Nest nest;
    const MPI_File before = *fh;
    const std::int64_t s = g.now();
    const int rc = PMPI_File_close(fh);
    rf::RawRecord r = make(rf::kFileClose, idx("MPI_File_close"), s);
    if (on_file(r, before)) {
        g.files.erase(before);
        g.etype_size.erase(before);
    }
    g.put(r);
    return rc;
}

int MPI_File_sync(MPI_File fh) {
    if (!g.recording()) return PMPI_File_sync(fh);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_File_sync(fh);
    rf::RawRecord r = make(rf::kFileSync, idx("MPI_File_sync"), s);
    on_file(r, fh);
    g.put(r);
    return rc;
}

// The view's displacement, and for a non-contiguous filetype its layout as one block of the
// type's size every extent (a vector or subarray of one block per extent; richer layouts
// are approximated by their density).
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char* datarep, MPI_Info info) {
    if (!g.recording()) return PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    rf::RawRecord r = make(rf::kFileSetView, idx("MPI_File_set_view"), s);
    if (on_file(r, fh)) {
        g.etype_size[fh] = std::max<std::uint64_t>(1, type_size(etype));
        r.offset = static_cast<std::uint64_t>(disp < 0 ? 0 : disp);
        MPI_Aint lb = 0, extent = 0;
        PMPI_Type_get_extent(filetype, &lb, &extent);
        const std::uint64_t size = type_size(filetype);
        if (extent > 0 && static_cast<std::uint64_t>(extent) != size) {
            r.view_block = size;
            r.view_stride = static_cast<std::uint64_t>(extent);
        }
    }
    g.put(r);
    return rc;
}

int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
    if (!g.recording()) return PMPI_File_seek(fh, offset, whence);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_File_seek(fh, offset, whence);
    rf::RawRecord r = make(rf::kFileSeek, idx("MPI_File_seek"), s);
    if (on_file(r, fh)) {
        r.offset = static_cast<std::uint64_t>(offset) * etype_of(fh);
        r.whence = whence == MPI_SEEK_CUR ? 1 : whence == MPI_SEEK_END ? 2 : 0;
    }
    g.put(r);
    return rc;
}

#define CS_FILE_IO(NAME, PNAME, KIND, BUFQ)                                                   \
    int NAME(MPI_File fh, BUFQ void* buf, int count, MPI_Datatype type, MPI_Status* status) { \
        if (!g.recording()) return PNAME(fh, buf, count, type, status);                       \
        const Nest nest;                                                                      \
        const std::int64_t s = g.now();                                                       \
        const int rc = PNAME(fh, buf, count, type, status);                                   \
        rf::RawRecord r = make(KIND, idx(#NAME), s);                                          \
        if (on_file(r, fh)) r.bytes = bytes_of(count, type);                                  \
        g.put(r);                                                                             \
        return rc;                                                                            \
    }
#define CS_FILE_IO_AT(NAME, PNAME, KIND, BUFQ)                                             \
    int NAME(MPI_File fh, MPI_Offset offset, BUFQ void* buf, int count, MPI_Datatype type, \
             MPI_Status* status) {                                                         \
        if (!g.recording()) return PNAME(fh, offset, buf, count, type, status);            \
        const Nest nest;                                                                   \
        const std::int64_t s = g.now();                                                    \
        const int rc = PNAME(fh, offset, buf, count, type, status);                        \
        rf::RawRecord r = make(KIND, idx(#NAME), s);                                       \
        if (on_file(r, fh)) {                                                              \
            r.bytes = bytes_of(count, type);                                               \
            r.offset = static_cast<std::uint64_t>(offset) * etype_of(fh);                  \
        }                                                                                  \
        g.put(r);                                                                          \
        return rc;                                                                         \
    }
CS_FILE_IO(MPI_File_write, PMPI_File_write, rf::kFileWrite, const)
CS_FILE_IO(MPI_File_read, PMPI_File_read, rf::kFileRead, )
CS_FILE_IO(MPI_File_write_all, PMPI_File_write_all, rf::kFileWriteAll, const)
CS_FILE_IO(MPI_File_read_all, PMPI_File_read_all, rf::kFileReadAll, )
CS_FILE_IO_AT(MPI_File_write_at, PMPI_File_write_at, rf::kFileWriteAt, const)
CS_FILE_IO_AT(MPI_File_read_at, PMPI_File_read_at, rf::kFileReadAt, )
CS_FILE_IO_AT(MPI_File_write_at_all, PMPI_File_write_at_all, rf::kFileWriteAtAll, const)
CS_FILE_IO_AT(MPI_File_read_at_all, PMPI_File_read_at_all, rf::kFileReadAtAll, )
#undef CS_FILE_IO
#undef CS_FILE_IO_AT

// ---- wrapped, not modeled: recorded as `unmodeled` with their time -----------------------

#define CS_UNMODELED(NAME, PARAMS, ARGS)         \
    int NAME PARAMS {                            \
        if (!g.recording()) return P##NAME ARGS; \
        const Nest nest;                         \
        const std::int64_t s = g.now();          \
        const int rc = P##NAME ARGS;             \
        unmodeled(idx(#NAME), s);                \
        return rc;                               \
    }
CS_UNMODELED(MPI_Probe, (int source, int tag, MPI_Comm comm, MPI_Status* status),
             (source, tag, comm, status))
CS_UNMODELED(MPI_Comm_split_type,
             (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* newcomm),
             (comm, type, key, info, newcomm))
CS_UNMODELED(MPI_Send_init,
             (const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request),
             (buf, count, type, dest, tag, comm, request))
CS_UNMODELED(MPI_Recv_init,
             (void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request),
             (buf, count, type, source, tag, comm, request))
CS_UNMODELED(MPI_Start, (MPI_Request * request), (request))
CS_UNMODELED(MPI_Startall, (int count, MPI_Request requests[]), (count, requests))
CS_UNMODELED(MPI_File_iwrite_at,
             (MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype type,
              MPI_Request* request),
             (fh, offset, buf, count, type, request))
CS_UNMODELED(MPI_File_iread_at,
             (MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype type,
              MPI_Request* request),
             (fh, offset, buf, count, type, request))
CS_UNMODELED(MPI_Abort, (MPI_Comm comm, int errorcode), (comm, errorcode))
CS_UNMODELED(MPI_Comm_rank, (MPI_Comm comm, int* rank), (comm, rank))
CS_UNMODELED(MPI_Comm_size, (MPI_Comm comm, int* size), (comm, size))
#undef CS_UNMODELED

int MPI_Get_count(const MPI_Status* status, MPI_Datatype type, int* count) {
    // Called by the tracer itself (through PMPI) as well; the application's calls are
    // cheap and frequent, recorded all the same.
    if (!g.recording()) return PMPI_Get_count(status, type, count);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Get_count(status, type, count);
    unmodeled(idx("MPI_Get_count"), s);
    return rc;
}

// Probes that find nothing are folded into the compute (counted); one that finds a message
// is recorded (unmodeled: the simulator has no probe).
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
    if (!g.recording()) return PMPI_Iprobe(source, tag, comm, flag, status);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Iprobe(source, tag, comm, flag, status);
    if (rc == MPI_SUCCESS && *flag == 0)
        g.fold(idx("MPI_Iprobe"), s);
    else
        unmodeled(idx("MPI_Iprobe"), s);
    return rc;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                MPI_Status* status) {
    if (!g.recording()) return PMPI_Improbe(source, tag, comm, flag, message, status);
    const Nest nest;
    const std::int64_t s = g.now();
    const int rc = PMPI_Improbe(source, tag, comm, flag, message, status);
    if (rc == MPI_SUCCESS && *flag == 0)
        g.fold(idx("MPI_Improbe"), s);
    else
        unmodeled(idx("MPI_Improbe"), s);
    return rc;
}

// A cancel of a request the tracer started is a `cancel` record (replay withdraws the
// request if no peer matched it); its completion carries kFlagCancelled. Others: unmodeled.
int MPI_Cancel(MPI_Request* request) {
    if (!g.recording()) return PMPI_Cancel(request);
    const Nest nest;
    const std::int64_t h = g.request_handle(*request);
    const std::int64_t s = g.now();
    const int rc = PMPI_Cancel(request);
    if (h < 0) {
        unmodeled(idx("MPI_Cancel"), s);
        return rc;
    }
    g.cancelled.insert(static_cast<std::uint32_t>(h));
    rf::RawRecord r = make(rf::kCancel, idx("MPI_Cancel"), s);
    r.handle = static_cast<std::uint32_t>(h);
    g.put(r);
    return rc;
}

// A communicator the tracer knows becomes a comm_free record (its handle is taken before the
// call sets it to MPI_COMM_NULL); any other stays unmodeled.
int MPI_Comm_free(MPI_Comm* comm) {
    if (!g.recording()) return PMPI_Comm_free(comm);
    const Nest nest;
    const MPI_Comm freed = *comm;
    const std::int64_t s = g.now();
    const int rc = PMPI_Comm_free(comm);
    rf::RawRecord r = make(rf::kCommFree, idx("MPI_Comm_free"), s);
    if (!on_comm(r, freed) || rc != MPI_SUCCESS) r.kind = rf::kUnmodeled;
    g.comms.erase(freed);
    g.put(r);
    return rc;
}

int MPI_Request_free(MPI_Request* request) {
    if (!g.recording()) return PMPI_Request_free(request);
    const Nest nest;
    const std::int64_t h = g.take_request(*request);
    if (h >= 0) g.cancelled.erase(static_cast<std::uint32_t>(h));
    const std::int64_t s = g.now();
    const int rc = PMPI_Request_free(request);
    unmodeled(idx("MPI_Request_free"), s);
    return rc;
}

}  // extern "C"
