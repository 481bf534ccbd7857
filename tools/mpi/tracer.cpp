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
//   CLUSTERSIM_TRACE_BINDINGS the libraries of MPI's Fortran bindings whose calls to PMPI_Name
//                            are sent through the wrappers (names before ".so", ':' between
//                            them; `none`: not done; default: tools/mpi/bindings.hpp's list)
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
#include <iterator>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tools/mpi/bindings.hpp"
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
    // Messages a matched probe (MPI_Mprobe, MPI_Improbe) found, until their MPI_Mrecv or
    // MPI_Imrecv: where they came from and their size in bytes.
    struct Probed {
        MPI_Comm comm;
        int source = 0, tag = 0;
        std::uint64_t bytes = 0;
    };
    std::unordered_map<MPI_Message, Probed> messages;
    // Windows the tracer saw created, and their handles (from 1).
    std::unordered_map<MPI_Win, std::uint32_t> wins;
    std::uint32_t next_win = 1;
    void probed(MPI_Message m, MPI_Comm c, const MPI_Status& st) {
        if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC) return;
        int n = 0;
        PMPI_Get_count(&st, MPI_BYTE, &n);
        messages[m] = Probed{c, st.MPI_SOURCE, st.MPI_TAG,
                             n == MPI_UNDEFINED || n < 0 ? 0 : static_cast<std::uint64_t>(n)};
    }
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
    if (!fold_polls && !rf::is_local_query(rf::kCallNames[call])) return unmodeled(call, start);
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

// Whether a completed request's status says it was cancelled (1) or not (0).
int status_cancelled(const MPI_Status* st) {
    int c = 0;
    PMPI_Test_cancelled(st, &c);
    return c != 0 ? 1 : 0;
}

// Process topologies: the new communicator gets a handle like a split's (ranks outside a
// Cartesian grid get MPI_COMM_NULL); the arguments go in the extra words as
// mpi::encode_topo_spec lays them out.
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

// A window made over `comm` (MPI_Win_create, _allocate, _allocate_shared, _create_dynamic):
// a win_create record with the window's new handle in `file` and its size in `bytes`;
// unmodeled on a communicator the tracer does not know.
void win_made(std::uint16_t call, std::int64_t start, MPI_Comm comm, int rc, MPI_Win* win,
              std::uint64_t size) {
    rf::RawRecord r = make(rf::kWinCreate, call, start);
    r.bytes = size;
    if (on_comm(r, comm) && rc == MPI_SUCCESS) {
        r.file = g.next_win++;
        g.wins[*win] = r.file;
    } else {
        r.kind = rf::kUnmodeled;
    }
    g.put(r);
}

// A one-sided call on `win`: `kind` with the target rank (-1: all), the bytes it sends and
// fetches, and `count` (1: an exclusive lock); unmodeled on a window the tracer did not see
// created or to MPI_PROC_NULL.
void rma(std::uint8_t kind, std::uint16_t call, std::int64_t start, MPI_Win win, int target,
         std::uint64_t bytes, std::uint64_t bytes2, std::uint32_t count) {
    rf::RawRecord r = make(kind, call, start);
    auto it = g.wins.find(win);
    if (it == g.wins.end() || target == MPI_PROC_NULL) {
        r.kind = rf::kUnmodeled;
        return g.put(r);
    }
    r.file = it->second;
    r.peer = target;
    r.bytes = bytes;
    r.bytes2 = bytes2;
    r.count = count;
    g.put(r);
}

// MPI_Mrecv (request null) or MPI_Imrecv of a message a wrapped matched probe found: a
// recv (irecv) from the probed source and tag, of the probed size, on the probe's
// communicator; unmodeled for a message the tracer did not see probed (MPI_MESSAGE_NO_PROC,
// a probe made before tracing started).
void matched_receive(std::uint16_t call, std::int64_t start, MPI_Message msg, MPI_Request* request,
                     int rc) {
    rf::RawRecord r = make(request != nullptr ? rf::kIrecv : rf::kRecv, call, start);
    auto it = g.messages.find(msg);
    if (it == g.messages.end() || rc != MPI_SUCCESS) {
        if (it != g.messages.end()) g.messages.erase(it);
        r.kind = rf::kUnmodeled;
        return g.put(r);
    }
    const Tracer::Probed p = it->second;
    g.messages.erase(it);
    r.peer = p.source;
    r.tag = p.tag;
    r.bytes = p.bytes;
    if (on_comm(r, p.comm) && request != nullptr) r.handle = g.new_request(*request);
    g.put(r);
}

// The lowest rank in `parent` among the members of `members` (-1 if none is in it): the
// colour of the MPI_Comm_split a communicator creation equals.
int lowest_parent_rank(MPI_Group members, MPI_Comm parent) {
    int n = 0;
    PMPI_Group_size(members, &n);
    MPI_Group p;
    PMPI_Comm_group(parent, &p);
    std::vector<int> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i;
    PMPI_Group_translate_ranks(members, n, in.data(), p, out.data());
    PMPI_Group_free(&p);
    int lowest = -1;
    for (int x : out)
        if (x != MPI_UNDEFINED && (lowest < 0 || x < lowest)) lowest = x;
    return lowest;
}

// Records split record `r` on `comm`: the new communicator's handle when the call made one
// on a communicator the tracer knows (else unmodeled).
void put_split(rf::RawRecord& r, MPI_Comm comm, int rc, MPI_Comm* newcomm) {
    if (on_comm(r, comm) && rc == MPI_SUCCESS) {
        r.newcomm = static_cast<std::uint32_t>(g.next_comm);
        if (*newcomm != MPI_COMM_NULL) g.comms[*newcomm] = g.next_comm;
        ++g.next_comm;
    }
    g.put(r);
}

// A call that splits `comm` into disjoint communicators (MPI_Cart_sub, MPI_Comm_split_type),
// recorded as the MPI_Comm_split it equals, worked out from its result after the call
// (outside its interval): colour = the lowest rank in `comm` among the new communicator's
// members (so each part has its own), key = the rank in the new communicator (so the
// split orders the ranks as the call did); MPI_UNDEFINED where the call gave no
// communicator.
void split_by_result(std::uint16_t call, std::int64_t start, MPI_Comm comm, int rc,
                     MPI_Comm* newcomm) {
    rf::RawRecord r = make(rf::kCommSplit, call, start);
    r.color = -32766;  // mpi::kUndefined
    if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL) {
        PMPI_Comm_rank(*newcomm, &r.key);
        MPI_Group mine;
        PMPI_Comm_group(*newcomm, &mine);
        r.color = lowest_parent_rank(mine, comm);
        PMPI_Group_free(&mine);
    }
    put_split(r, comm, rc, newcomm);
}

// Neighbourhood collectives: their counts are the rank's own (no gathering):
// neighbor_allgatherv its send block, then its receive blocks; alltoallv/w its blocks to its
// out-neighbours, then from its in-neighbours.

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

// Every other wrapper: generated from wrappers.def by gen_wrappers (tools/mpi/CMakeLists.txt).
#include "tracer_wrappers.inc"

}  // extern "C"

namespace {

// MPI's Fortran bindings call PMPI_Name: at load, before the program's first MPI call, their
// references are pointed at the wrappers (bindings.hpp), so a Fortran program is traced as a
// C one is. CLUSTERSIM_TRACE_BINDINGS: the binding libraries by name, ':' between them, or
// "none" (default: bindings.hpp's list).
__attribute__((constructor)) void trace_language_bindings() {
    namespace ct = clustersim::tracer;
    std::vector<std::string> libraries = ct::default_binding_libraries();
    if (const char* env = std::getenv("CLUSTERSIM_TRACE_BINDINGS")) {
        libraries.clear();
        std::string list = env;
        if (list != "none") {
            std::size_t from = 0;
            while (from <= list.size()) {
                const std::size_t to = std::min(list.find(':', from), list.size());
                if (to > from) libraries.push_back(list.substr(from, to - from));
                from = to + 1;
            }
        }
    }
    if (libraries.empty()) return;
    std::vector<ct::Redirect> table(std::begin(kGeneratedRedirects), std::end(kGeneratedRedirects));
    table.push_back({"PMPI_Init", reinterpret_cast<void*>(&MPI_Init)});
    table.push_back({"PMPI_Init_thread", reinterpret_cast<void*>(&MPI_Init_thread)});
    table.push_back({"PMPI_Finalize", reinterpret_cast<void*>(&MPI_Finalize)});
    const ct::RedirectReport rep = ct::redirect_bindings(libraries, table.data(), table.size());
    if (!rep.error.empty())
        std::fprintf(stderr, "clustersim-trace: warning: %s; Fortran calls may go unrecorded\n",
                     rep.error.c_str());
}

}  // namespace
