// The progress line of long runs on stderr.
//
//  - auto (the default): on a terminal, one line rewritten in place about once a second once
//    the run has lasted a second; nothing when stderr is not a terminal (a batch job's log
//    stays clean).
//  - periodic (--progress): a full line every `interval` (--progress-interval, default 10 s),
//    terminal or not, so a batch job's log shows how far the run has got.
//  - quiet (--quiet): nothing.
//
// The run's header (model, apps, placement: set_header) comes before the first line, so a
// long run says what it simulates at once; and once the run is over, finish() shows its
// final state (100.0% when every operation completed) if any line was shown.
//
// A line shows the fraction done and an estimate of the time left where the total is known
// (trace records, app operations), otherwise the event rate; and always events, the
// simulated time reached, what the network model has done (messages delivered of those
// sent, bytes delivered and the model's own work: packet hops or flow rate recomputations,
// which advance while a flow model solves a large component and no operation ends) and the
// wall time so far:
//   "  progress  42.3% (1,234,567 of 2,919,000 records), about 34 s left; 12,345,678 events
//    (3.4 M events/s), simulated 1.234 s, 1,024 of 65,280 messages delivered (64 MiB),
//    1,234,567 rate recomputations, 25 s wall"
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "simulator/time.hpp"

namespace clustersim::cli {

enum class ProgressMode { Auto, Periodic, Quiet };

// The network model's counters a progress line shows (models/transport.hpp NetworkStats);
// `work_unit` empty: no work counter (the analytic models).
struct NetworkProgress {
    std::uint64_t messages_sent = 0, messages_delivered = 0, bytes_delivered = 0, work = 0;
    std::string_view work_unit;
};

class ProgressLine {
  public:
    // `terminal`: whether `out` is a terminal (auto mode prints only then).
    ProgressLine(ProgressMode mode, double interval_s, bool terminal, std::ostream& out,
                 std::string unit);
    // Called often (every engine chunk); prints when a line is due. `total` 0: unknown.
    void update(std::uint64_t events, Time simulated, std::uint64_t done, std::uint64_t total,
                const NetworkProgress& network = {});
    // Printed (as given, ending with a newline) before the first progress line.
    void set_header(std::string header) { header_ = std::move(header); }
    // Once the run is over: if a line was shown, shows the last update's state (the run's
    // final state: the simulation reports once more after its last event), then ends an
    // in-place line with a newline.
    void finish();
    bool active() const { return mode_ != ProgressMode::Quiet; }
    std::uint64_t lines() const { return lines_; }

    // The text of one line (without the leading carriage return or the newline).
    static std::string format(double elapsed_s, std::uint64_t events, Time simulated,
                              std::uint64_t done, std::uint64_t total, const std::string& unit,
                              const NetworkProgress& network = {});

  private:
    ProgressMode mode_;
    double interval_s_;
    bool terminal_;
    std::ostream& out_;
    std::string unit_;
    std::chrono::steady_clock::time_point start_;
    double next_at_s_;
    bool in_place_shown_ = false;
    std::uint64_t lines_ = 0;
    std::string header_;
    // The last update's state, for finish() (the network's work unit copied: the caller's
    // view may not outlive the run).
    struct Last {
        std::uint64_t events = 0, done = 0, total = 0;
        Time simulated;
        NetworkProgress network;
        std::string work_unit;
        bool any = false;
    } last_;
    void show(const std::string& line);
};

}  // namespace clustersim::cli
