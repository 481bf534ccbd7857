// One rank's MPI calls as records: what the MPI trace readers share once a decoder has read a
// call from its format (traces/README.md, "Decoders and the call mapper").
//
// A decoder (DUMPI's, OTF2's, SimGrid TI's, HDTrace's) reads a call in its format's terms
// and hands the mapper the parts every format has: the request ids a nonblocking call starts
// and a wait completes, the communicator ids it names and creates, the v-collective count
// lists the members share, the recorded times of the call. The mapper owns the tables that
// turn those into the record's own terms (request handles, communicator handles, count-list
// indexes), makes the compute record of the time between two timed calls, the `unmodeled`
// record of a call the simulator does not model and the Wait/Waitall records of a
// completion, and appends the records to the rank's stream (or keeps them for the decoder to
// finish describing, OTF2: an Irecv's peer is known at its completion).
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "simulator/error.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {

// Request ids (as the format names them: DUMPI's and OTF2's request numbers) -> the record
// handles of Isend/Irecv/nonblocking collectives and their Wait/Waitall. A handle is the
// lowest one not in use (so a trace of millions of requests, few open at once, keeps small
// handles); it is free again once released.
class RequestTable {
  public:
    // The lowest free handle, now in use (SimGrid TI: requests without ids).
    std::uint32_t take();
    void release(std::uint32_t handle) { free_.insert(handle); }
    // take(), and `request` names that handle until it is closed (a request id still open
    // names the new handle: MPI reuses a completed request's id).
    std::uint32_t open(std::int64_t request) { return bind(request, take()); }
    // `request` names `handle`, which the caller chose (clustersim's OTF2 attributes).
    std::uint32_t bind(std::int64_t request, std::uint32_t handle) {
        open_[request] = handle;
        return handle;
    }
    // The handle `request` names; nullopt if it is not open (MPI_REQUEST_NULL, a persistent
    // request, a request started before the trace began or completed already).
    std::optional<std::uint32_t> find(std::int64_t request) const;
    // Forgets `request` and returns its handle, still in use until released; nullopt as find.
    std::optional<std::uint32_t> close(std::int64_t request);
    // close() and release() of each request in order: the handles of the open ones.
    std::vector<std::uint32_t> complete(const std::vector<std::int64_t>& requests);
    std::size_t open_requests() const { return open_.size(); }

  private:
    std::unordered_map<std::int64_t, std::uint32_t> open_;
    std::set<std::uint32_t> free_;
    std::uint32_t next_ = 0;
};

// A format's communicator ids -> the rank's communicator handles (0: MPI_COMM_WORLD, new
// ones numbered from 1 in creation order, as the records' `newcomm`).
class CommTable {
  public:
    std::optional<std::int32_t> find(std::int64_t id) const;
    void bind(std::int64_t id, std::int32_t handle) { handles_[id] = handle; }
    void erase(std::int64_t id) { handles_.erase(id); }  // MPI_Comm_free: the id may come back
    // The next new communicator's handle.
    std::uint32_t create() { return next_++; }
    // A handle the trace chose (clustersim's OTF2 attributes): later ones come after it.
    void reserve(std::uint32_t handle) {
        if (handle + 1 > next_) next_ = handle + 1;
    }

  private:
    std::unordered_map<std::int64_t, std::int32_t> handles_;
    std::uint32_t next_ = 1;
};

// The count lists of v-collectives, shared by the ranks of one trace: the k-th call of one
// v-collective on one communicator (as the format names it) is one list every member fills
// its part of.
class SharedCountLists {
  public:
    explicit SharedCountLists(Trace& trace) : trace_(trace) {}
    // The index in trace.count_lists of call `k`'s list of `n` counts (made, all 0, on its
    // first use; reset to n zeros if a member names another size).
    std::int32_t list(std::int64_t comm, mpi::CollOp op, std::uint64_t k, std::size_t n);

  private:
    Trace& trace_;
    std::map<std::tuple<std::int64_t, int, std::uint64_t>, std::int32_t> index_;
};

// The records of a completion of `handles` (in the call's order): one Waitall when `all`
// and they are two or more consecutive handles, else one Wait per handle. `push(record,
// last)` is called for each; a decoder ends all but the last Wait where the call starts (the
// call's time is the last one's).
template <class Push>
void push_waits(const std::vector<std::uint32_t>& handles, bool all, Push&& push) {
    std::vector<std::uint32_t> sorted = handles;
    std::sort(sorted.begin(), sorted.end());
    bool consecutive = sorted.size() > 1;
    for (std::size_t i = 1; i < sorted.size() && consecutive; ++i)
        consecutive = sorted[i] == sorted[i - 1] + 1;
    if (all && consecutive) {
        Record r;
        r.kind = mpi::OpKind::Waitall;
        r.handle = sorted.front();
        r.count = static_cast<std::uint32_t>(sorted.size());
        push(r, true);
        return;
    }
    for (std::size_t i = 0; i < handles.size(); ++i) {
        Record r;
        r.kind = mpi::OpKind::Wait;
        r.handle = handles[i];
        push(r, i + 1 == handles.size());
    }
}

// A communicator id no communicator has (MpiCall::newcomm: the rank got MPI_COMM_NULL).
inline constexpr std::int64_t kNoComm = INT64_MIN;

// One MPI call as a decoder hands it to the mapper: the operation in the simulator's terms
// (`rec`: kind, collective, peers as ranks of the communicator, tags, bytes, root, counts,
// file fields), the handles in the format's own terms (the mapper resolves them), and the
// call's recorded times.
struct MpiCall {
    Record rec;
    std::string_view name;  // the MPI function ("MPI_Isend"): unmodeled records
    // The communicator the call is on (kinds with a `comm` field), as the format names it.
    std::int64_t comm = 0;
    // Isend, Irecv, nonblocking collectives: the request the call starts.
    std::int64_t request = 0;
    // Wait (completes, all = false) or Waitall (all = true): the requests it completes, in
    // the call's order; ids not open are skipped.
    std::vector<std::int64_t> completes;
    bool all = false;
    // Communicator creation: the new communicator's id (kNoComm: none on this rank).
    std::int64_t newcomm = kNoComm;
    bool timed = false;
    Time start, end;
};

// One rank's mapper.
class CallMapper {
  public:
    // `fail(what)` makes the decoder's error for the call being mapped (its file, line or
    // record); the mapper throws it.
    using Failure = std::function<InputError(const std::string& what)>;
    // `buffered`: records are kept until flush() (the decoder may still change them through
    // record()); else each is appended to the trace at once.
    CallMapper(Trace& trace, ReadReport& report, std::uint32_t rank, SharedCountLists& lists,
               bool buffered = false)
        : trace_(trace), report_(report), rank_(rank), lists_(lists), buffered_(buffered) {}

    std::uint32_t rank() const { return rank_; }
    Trace& trace() { return trace_; }
    RequestTable& requests() { return requests_; }
    CommTable& comms() { return comms_; }
    void on_failure(Failure fail) { fail_ = std::move(fail); }
    [[noreturn]] void fail(const std::string& what) const;

    // What map() did with a call.
    enum class Mapped {
        Yes,
        UnknownComm,  // the call's communicator is not in the table: nothing pushed
        NoneOpen,     // a completion of no open request: nothing pushed
    };
    // The call's records, pushed: its communicator (and, for CommFree, its id forgotten), the
    // request it starts, the requests it completes (wait()), the communicator it creates.
    Mapped map(const MpiCall& c);
    // The `unmodeled` record of `c` (unmodeled(c.name)), its duration the call's, pushed.
    void map_unmodeled(const MpiCall& c);

    // ---- records ----
    void push(const Record& r) {
        if (buffered_)
            records_.push_back(r);
        else
            trace_.append(rank_, r);
    }
    // Buffered records: the i-th since the last flush, their number, and their append.
    Record& record(std::size_t i) { return records_[i]; }
    std::size_t buffered() const { return records_.size(); }
    void flush();

    // ---- time between calls ----
    // A call recorded over [start, end]: first the compute record of the time since the
    // previous timed call ended (since 0 before the first), if any and if `gap`; then `end`
    // is where the next gap starts (the latest end so far).
    void timed_call(Time start, Time end, bool gap = true);

    // ---- unmodeled calls ----
    // The `unmodeled` record of MPI function `name` (the path names it unless `named` is
    // false), counted in the report (and MPI_Finalize as the rank's); the caller sets its
    // duration and times and pushes it.
    Record unmodeled(const std::string& name, bool named = true);

    // ---- completions ----
    // Completes `requests` (the open ones: unknown ids are skipped) and pushes their waits
    // (push_waits). `timed`: the records get [start, end], all but the last ending at start.
    // False, and nothing pushed, if none was open.
    bool wait(const std::vector<std::int64_t>& requests, bool all, bool timed, Time start,
              Time end);

    // ---- v-collectives ----
    // The shared count list of this rank's next `op` on communicator `comm` (the format's id),
    // `n` counts long.
    std::int32_t count_list(std::int64_t comm, mpi::CollOp op, std::size_t n);
    std::vector<std::uint64_t>& counts(std::int32_t list) {
        return trace_.count_lists[static_cast<std::size_t>(list)];
    }

  private:
    Trace& trace_;
    ReadReport& report_;
    std::uint32_t rank_;
    SharedCountLists& lists_;
    bool buffered_;
    Failure fail_;
    std::vector<Record> records_;
    RequestTable requests_;
    CommTable comms_;
    Time last_end_;
    bool have_last_ = false;
    std::map<std::pair<std::int64_t, int>, std::uint64_t> calls_;  // v-collectives so far
};

}  // namespace clustersim::traces
