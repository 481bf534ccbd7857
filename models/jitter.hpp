// OS jitter as jitSim sees it (De & Mann, §3.1–3.5): a trace of tuples
// <jitter_duration, cycles_to_next_jitter> in CPU cycles. A task that runs through the trace
// gets the compute segments for its work and loses the jitter segments it meets.
//
// Layout of one pass: tuple i occupies [tuple_start(i), tuple_start(i+1)): first its jitter
// (jitter[i] units), then its compute segment (compute[i] units). A position is absolute and
// unwrapped: position p stands for p mod length() (a trace repeats when a task runs past its
// end). A position exactly on a tuple boundary is in that tuple's jitter.
//
// The same Timeline serves the fast predictor (units = trace cycles) and the event
// simulator's CPU model (units = picoseconds, see in_picoseconds()).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clustersim::jitter {

struct JitterTrace {
    double frequency_hz = 0;             // clock of the cycles; 0 = unknown (cycles only)
    std::vector<std::uint64_t> jitter;   // jitter_duration of tuple i, cycles
    std::vector<std::uint64_t> compute;  // cycles_to_next_jitter of tuple i
    std::string source;                  // file name or generator spec, for messages
    std::size_t size() const { return jitter.size(); }
};

class Timeline {
  public:
    // Units = the trace's cycles. Throws std::invalid_argument (message names trace.source)
    // if the trace is empty, the two columns differ in length, or it has no compute cycles.
    explicit Timeline(const JitterTrace& trace);
    // Units = picoseconds: the tuple boundary at cumulative cycle c lies at
    // round(c * 10^12 / frequency) ps. Throws std::invalid_argument without a frequency.
    static Timeline in_picoseconds(const JitterTrace& trace);

    std::uint64_t length() const { return starts_.back(); }  // one pass, units
    std::uint64_t compute_total() const { return compute_total_; }
    std::uint64_t jitter_total() const { return length() - compute_total_; }
    std::size_t tuples() const { return starts_.size() - 1; }
    std::uint64_t tuple_start(std::size_t i) const { return starts_[i]; }
    std::uint64_t compute_start(std::size_t i) const { return compute_starts_[i]; }
    const std::string& source() const { return source_; }
    double frequency_hz() const { return frequency_hz_; }

    struct Step {
        std::uint64_t elapsed = 0;  // work + jitter met
        std::uint64_t jitter = 0;   // jitter met (including the rest of one started at pos)
    };
    // Runs `work` compute units from `pos`: waits out the jitter segment pos is in (if any),
    // then takes compute segments, adding each jitter segment crossed on the way, and stops
    // as soon as the work is done (a phase ending exactly at the end of a compute segment
    // does not take the next jitter). work == 0 takes no time. `hint` is the tuple index
    // last returned for this task (any value is valid; nearby values are fast); it is
    // updated to the tuple holding the end position.
    Step run(std::uint64_t pos, std::uint64_t work, std::uint32_t& hint) const;
    // Compute units available in [pos, pos + span).
    std::uint64_t available(std::uint64_t pos, std::uint64_t span, std::uint32_t& hint) const;

  private:
    Timeline() = default;
    void build(const JitterTrace& trace, std::uint64_t num, std::uint64_t den);
    // Tuple holding offset `off` (0 <= off < length()), searching from `hint`.
    std::uint32_t locate(std::uint64_t off, std::uint32_t hint) const;

    std::vector<std::uint64_t> starts_;          // tuples() + 1 entries; starts_[0] = 0
    std::vector<std::uint64_t> compute_starts_;  // tuples() entries
    std::vector<std::uint64_t> compute_before_;  // compute units before tuple i; tuples() + 1
    std::uint64_t compute_total_ = 0;
    double frequency_hz_ = 0;
    std::string source_;
};

// Where tasks start in the trace (jitSim §3.3, §3.5).
enum class StartPolicy {
    Unsynchronized,  // each task: the compute segment of its own random tuple
    Synchronized,    // every task: the compute segment of one random tuple
    Coscheduled,     // each task: the start of a random high-priority window
    Explicit,        // task k: the compute segment of tuple indices[k % indices.size()]
};

struct StartSpec {
    StartPolicy policy = StartPolicy::Unsynchronized;
    // Coscheduled: windows repeat every window_high + window_low units from position 0, the
    // high-priority window first.
    std::uint64_t window_high = 0;
    std::uint64_t window_low = 0;
    std::vector<std::uint64_t> indices;  // Explicit (0-based tuple indices)
    std::uint64_t seed = 1;
};

// Parses "unsynchronized" | "synchronized" | "coscheduled"; throws std::invalid_argument.
StartPolicy parse_start_policy(const std::string& name);
const std::vector<std::string>& start_policy_names();  // the names it reads
const char* to_string(StartPolicy policy);

// Checks `spec` against `timeline`; throws std::invalid_argument saying what is wrong: an
// index beyond the trace, a coscheduled window pair longer than the trace or of length 0.
void check_start(const Timeline& timeline, const StartSpec& spec);

// Start position of task `task` (deterministic for a seed: task k's position depends only
// on seed, policy and k, so any subset of tasks can be computed in any order or thread).
std::uint64_t start_position(const Timeline& timeline, const StartSpec& spec, std::uint64_t task);

}  // namespace clustersim::jitter
