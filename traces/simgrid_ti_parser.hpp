// The SimGrid TI reader's parser (simgrid_ti.cpp: input, first pass, arguments, read;
// simgrid_ti_actions.cpp: the actions mapped to records, v-collectives). Internal to the
// reader: namespace simgrid_ti_in, not an anonymous one, because two files share it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "traces/call_mapper.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces::simgrid_ti_in {

using mpi::CollOp;
using mpi::OpKind;

// Sizes of SimGrid's predefined datatypes by id (smpi_datatype.cpp; x86-64 sizes).
constexpr std::array<std::uint8_t, 38> kDatatypeSizes{8,  4,  1, 2, 8, 4,  1,  8, 1, 1, 2,  4, 8,
                                                      8,  16, 4, 1, 1, 2,  4,  8, 1, 2, 4,  8, 8,
                                                      16, 32, 8, 8, 8, 16, 16, 8, 8, 8, 16, 16};

// A v-collective whose counts come from every rank's k-th call of it.
enum VKind : std::uint8_t { VAlltoallv, VGatherv, VAllgatherv, VScatterv, kVKinds };
bool v_kind(std::string_view action, VKind& k);
// An S4U replay I/O action (open, read, write, close): refused, with why.
bool io_action(std::string_view word);
// An S4U actor-replay actor name: `p<N>` (SimGrid's examples/cpp/replay-comm), rank N.
bool parse_actor_field(std::string_view tok, std::int64_t& out);

// One line of an action file, tokenized.
struct Line {
    const std::string* file = nullptr;
    int number = 0;
    std::int32_t rank = 0;
    std::string action;                  // lower case
    std::vector<std::string_view> args;  // after the action
};

// What a rank contributes to a v-collective's counts, in bytes: alltoallv its send counts
// (one row of the matrix), gatherv/allgatherv its send size, scatterv its receive size. `own`
// is the rank's own view of the whole vector (fallback when the ranks' calls do not match).
struct Contribution {
    bool valid = false;
    std::vector<std::uint64_t> row;  // alltoallv: size entries; others: one entry
    std::vector<std::uint64_t> own;  // alltoallv: own column (receive counts); others: size
};

// Raw v-collective lines kept by the first pass: (text, file index, line number, dtype).
struct RawV {
    std::string text;
    std::size_t file = 0;
    int number = 0;
    std::uint64_t default_dtype = 1;
};

// The outstanding nonblocking requests of one rank.
struct Request {
    std::int32_t src = 0, dst = 0, tag = 0;
    std::uint32_t handle = 0;
};

struct RankState {
    std::uint64_t dtype = 1;  // MPI_BYTE until `init <x>`
    // In order of posting. SimGrid TI names no request ids: a wait names (source,
    // destination, tag), or nothing (the latest request), so the decoder keeps the list and
    // takes the handles from the shared request table (call_mapper.hpp).
    std::vector<Request> outstanding;
    RequestTable handles;
    std::array<std::uint32_t, kVKinds> v_seen{};
};

class Parser {
  public:
    Parser(const std::string& source, const ReadOptions& options, ReadReport& report)
        : source_(source), options_(options), report_(report) {}

    Trace read();

  private:
    // ---- input -----------------------------------------------------------------------------
    void open_inputs();
    template <class F>
    void for_each_line(F&& f);
    void first_pass();

    // ---- argument parsing ------------------------------------------------------------------
    [[noreturn]] void fail(const Line& l, const std::string& what) const {
        throw InputError(*l.file, l.number, what);
    }
    void arity(const Line& l, std::size_t min, std::size_t max, const char* usage) const;
    std::int64_t integer(const Line& l, std::size_t i, const char* what) const;
    std::int32_t rank_arg(const Line& l, std::size_t i, const char* what, bool any = false) const;
    std::int32_t tag_arg(const Line& l, std::size_t i, bool any) const;
    double real(const Line& l, std::size_t i, const char* what) const;
    std::uint64_t amount(const Line& l, std::size_t i, const char* what) const;
    std::uint64_t dtype(const Line& l, std::size_t i, std::uint64_t fallback) const;
    std::uint64_t bytes(const Line& l, std::uint64_t count, std::uint64_t dtype_size) const;

    // ---- mapping ---------------------------------------------------------------------------
    void map(const Line& l);
    bool collective_action(const Line& l);
    void p2p(const Line& l, bool send, bool nonblocking);
    void sendrecv(const Line& l);
    void reduction_compute(const Line& l, std::size_t i);
    bool s4u(const Line& l);
    std::int32_t actor_arg(const Line& l, std::size_t i, const char* what) const;
    void wait(const Line& l);
    void wait_all(std::int32_t rank);
    void collective(const Line& l, CollOp op, std::uint64_t bytes, std::int32_t root = 0,
                    std::int32_t counts = kNone);
    void v_collective(const Line& l, VKind kind);
    Contribution contribution(const Line& l, VKind kind, std::uint64_t default_dtype) const;
    std::int32_t v_counts(const Line& l, VKind kind, std::uint32_t k, const Contribution& own,
                          std::int32_t root);
    void append(std::int32_t rank, const Record& r) {
        trace_.append(static_cast<std::uint32_t>(rank), r);
    }
    void note(const std::string& key, const std::string& text) {
        if (noted_.insert(key).second) report_.notes.push_back(text);
    }

    const std::string& source_;
    const ReadOptions& options_;
    ReadReport& report_;
    bool index_ = false;
    bool actors_ = false;  // S4U actor-replay form: `p<N> <action> ...`
    int pass_ = 1;
    std::uint64_t foreign_lines_ = 0;  // index: lines of another rank, skipped (as SimGrid)
    // S4U form: the sizes of each (sender, receiver) pair's sends, in order; a `recv <src>`
    // names no size and takes the next one.
    std::map<std::pair<std::int32_t, std::int32_t>, std::vector<std::uint64_t>> s4u_sends_;
    std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> s4u_taken_;
    std::vector<std::string> files_;  // index mode: rank i's file; else the one file
    std::int32_t ranks_ = 0;
    std::int64_t comm_size_ = 0;  // the largest comm_size seen
    std::vector<RankState> state_;
    // First pass: raw v-collective lines per kind, per rank, in order.
    // Keyed by rank: what is allocated follows the lines, not the rank numbers they name.
    std::array<std::map<std::size_t, std::vector<RawV>>, kVKinds> raw_;
    std::array<std::vector<std::vector<Contribution>>, kVKinds> contrib_;
    std::map<std::pair<int, std::uint32_t>, std::int32_t> v_cache_;
    std::set<std::string> noted_;
    std::uint64_t unmatched_waits_ = 0, zero_computes_ = 0, tests_ = 0, end_waits_ = 0;
    bool double_default_ = false;
    Trace trace_;
};

}  // namespace clustersim::traces::simgrid_ti_in
