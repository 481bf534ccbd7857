// Analytic communication models in the manner of PSINS (Tikir et al., section 2).
//
// Instead of moving a message through the graph, a model looks at the message, the model
// parameters and the current state of the machine (messages in flight on the global buses
// and on each node's incoming and outgoing links) and says when the message can start,
// which resources it holds and for how long, and how long its transfer takes. The engine
// glue (models/analytic.hpp) does the rest: it holds the resources, queues the messages
// that cannot start, and tells the MPI layer when the last byte has left and arrived.
//
// The machine (PSINS Figure 2): nodes joined by `buses` global buses; each node has
// `in_links` incoming and `out_links` outgoing links to them. A message between two nodes
// may use one bus, one outgoing link of its source node and one incoming link of its
// destination node; a message within a node uses none (it goes through the node's memory).
//
// Timing of one message of `bytes` between a pair with latency L and bandwidth B: it
// starts at s >= the time it was sent (s - sent is its wait for resources), holds its
// resources for the transfer x = bytes / B_eff, its last byte leaves the sender at s + x
// and arrives at s + x + L. B_eff = B except in the PMaC model.
//
// Collective calls are timed as one global operation: when the last member has entered,
// the call completes for every member after collective_time(): PSINS's description of each
// operation as constant, linear or logarithmic in the number of ranks (for its message
// rounds; see Scaling), or (PMaC) the operation's measured bandwidth-versus-size curve.
//
// Adding a model is one class deriving from CommModel, plus one registration line
// (CommModelRegistry below).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "simulator/time.hpp"

namespace clustersim::comm {

// How a collective's number of message rounds grows with the number of ranks P: 1, P - 1 or
// ceil(log2 P) (0 for P = 1). The simple and contention models time a call as
//     T = rounds(P) * L + volume / B
// where volume is the least data some member must send or receive whatever the algorithm
// (mpi::collective_volume): the scaling describes the latency part, as in PSINS's
// description of each operation, and the bandwidth part is the unavoidable data, so with
// the default scalings the simple model stays a lower bound at every message size.
enum class Scaling : std::uint8_t { Constant, Linear, Logarithmic };
const char* to_string(Scaling s);
bool parse_scaling(std::string_view text, Scaling& out);
double scaling_factor(Scaling s, std::uint32_t ranks);

// A bandwidth-versus-size curve through measured points (size in bytes, bandwidth in
// bytes/s): monotone cubic Hermite interpolation (Fritsch-Carlson) of log(bandwidth)
// against log(size). It passes through every point exactly, and between two neighbouring
// points it stays between their bandwidths (no overshoot), so it is monotone there.
// Below the smallest size the call takes the smallest point's time (latency-bound); above
// the largest size the bandwidth stays at the largest point's.
class FittedCurve {
  public:
    FittedCurve() = default;
    // Throws std::invalid_argument unless sizes are positive and strictly rising and
    // bandwidths positive.
    explicit FittedCurve(std::vector<std::pair<std::uint64_t, double>> points);
    // From a model's measured points (size, bandwidth); no points: the empty curve. Throws
    // as the constructor does.
    static FittedCurve from(const std::vector<std::pair<std::uint64_t, Bandwidth>>& points);
    bool empty() const { return x_.empty(); }
    double bandwidth(double bytes) const;  // bytes/s
    Time time(std::uint64_t bytes) const;  // bytes / bandwidth(bytes), with the rules above
    // A transfer of `bytes` that lands in a buffer of `buffer` bytes (a segment or block of a
    // collective's buffer): bytes / min(bandwidth(bytes), bandwidth(buffer)). The curve's
    // rise at small sizes is the message's own fixed cost, which a segment pays alone; its
    // fall at large sizes is the cache working set, which is the whole buffer's. `buffer`
    // at most `bytes`: time(bytes).
    Time time_within(std::uint64_t bytes, std::uint64_t buffer) const;

  private:
    std::vector<double> x_, y_, m_;  // log size, log bandwidth, slopes at the points
    std::vector<std::pair<std::uint64_t, double>> points_;
};

// What a model may say about one operation (its rounds, and PMaC's measured curve).
struct CollectiveRule {
    std::string operation;  // "allreduce", as collectives/ names it
    Scaling scaling = Scaling::Logarithmic;
    FittedCurve curve;        // PMaC: measured bandwidth vs size
    std::uint32_t ranks = 0;  // ranks the curve was measured at
};

// The default scaling of an operation without a rule: logarithmic (a single-port lower
// bound on the rounds: information from or for every rank must spread), except gather and
// scatter (and their v-variants), constant: a root may take or give every block at once.
Scaling default_scaling(std::string_view operation);

// A pair's best achievable (uncontended) costs.
struct PairCost {
    Time latency;
    Bandwidth bandwidth;
};

struct NodeParams {
    std::uint32_t in_links = 1, out_links = 1;
};

// Resources, as pool indices: 0 = the buses; 1 + 2n = node n's outgoing links; 2 + 2n =
// node n's incoming links. `units` never changes; `in_use` counts the messages holding
// (contention models) or sharing (PMaC) a pool right now.
struct Resources {
    std::vector<std::uint32_t> units;
    std::vector<std::uint32_t> in_use;
    static constexpr std::uint32_t bus() { return 0; }
    static constexpr std::uint32_t out_link(std::int32_t node) {
        return 1 + 2 * static_cast<std::uint32_t>(node);
    }
    static constexpr std::uint32_t in_link(std::int32_t node) {
        return 2 + 2 * static_cast<std::uint32_t>(node);
    }
    bool free(std::uint32_t pool) const { return in_use[pool] < units[pool]; }
};

struct Message {
    std::int32_t src_node = 0, dst_node = 0;  // node indices
    std::uint64_t bytes = 0;
    PairCost cost;  // the pair's latency and bandwidth (within a node: the node's own)
    // The measured transfer curve for this kind of pair (<point-to-point>), or null: then
    // the transfer is bytes / cost.bandwidth.
    const FittedCurve* curve = nullptr;
    // The buffer the message lands in (a collective's receive buffer, of which it is a
    // segment or block), 0: the message itself; priced by FittedCurve::time_within.
    std::uint64_t buffer = 0;
    // Uncontended transfer time: bytes / curve(bytes) (time_within with `buffer`), else
    // bytes / cost.bandwidth.
    Time transfer() const;
};

// A model's answer for one message at the current time.
struct Plan {
    bool start = true;                     // false: not now, ask again when a resource frees
    std::array<std::uint32_t, 3> pools{};  // held from the start for `transfer`
    std::uint8_t num_pools = 0;
    Time transfer;  // bytes over the effective bandwidth
    Time latency;   // after the transfer, until the last byte has arrived
};

// One collective call, when its last member has entered.
struct CollectiveCall {
    std::string_view operation;  // "allreduce", ...
    std::uint32_t ranks = 0;
    std::uint64_t bytes = 0;             // the largest size a member passed
    std::uint64_t volume = 0;            // the least data some member must send or receive
    PairCost cost;                       // the slowest pair among the members (one node: its own)
    const FittedCurve* curve = nullptr;  // that pair's measured transfer curve, if any
};

class CommModel {
  public:
    virtual ~CommModel() = default;
    virtual std::string_view name() const = 0;
    // When `m` can start (now or later), what it holds and for how long.
    virtual Plan plan(const Message& m, const Resources& state) const = 0;
    // Time from the last member's entry to the call's completion. The default:
    // rounds(P) * latency + volume / bandwidth.
    virtual Time collective_time(const CollectiveCall& call) const;
    // Whether a blocked message can start now (false lets the glue stop scanning its queue
    // early, e.g. when every bus is taken).
    virtual bool anything_free(const Resources& state) const {
        (void)state;
        return true;
    }

    void set_rules(std::vector<CollectiveRule> rules) { rules_ = std::move(rules); }
    const CollectiveRule* rule(std::string_view operation) const;

  protected:
    Time scaled_time(const CollectiveCall& call) const;

  private:
    std::vector<CollectiveRule> rules_;
};

// A registered analytic communication model: its name (the <comm-model model="..."> and
// --network name), one line of help and its factory. Every analytic model takes the same
// parameters (the <comm-model> attributes and --network's key=value list; run/README.md).
struct CommModelEntry {
    std::string name;
    std::string doc;
    std::function<std::unique_ptr<CommModel>()> make;
};

// The analytic communication models by name, built-in ones first (simple, bus_only,
// incoming_link_only, outgoing_link_only, contention, pmac), then those added later in
// registration order. Adding a model is one class deriving from CommModel plus one
// comm_models().add({name, doc, factory}) (from any file, before the run that uses it).
class CommModelRegistry {
  public:
    // Throws std::logic_error if the name is taken or empty, or the factory missing.
    void add(CommModelEntry entry);
    // `name`, or the one equal up to '-' and '_' (simulator/spelling.hpp); null if none.
    const CommModelEntry* find(std::string_view name) const;
    const CommModelEntry* find_exact(std::string_view name) const;  // `name` as written only
    const std::vector<CommModelEntry>& entries() const { return entries_; }

  private:
    std::vector<CommModelEntry> entries_;
};
CommModelRegistry& comm_models();

// Builds a registered model by name. Throws std::invalid_argument naming the valid names
// otherwise.
std::unique_ptr<CommModel> make_comm_model(std::string_view name);
// The registered names, in registration order.
std::vector<std::string> comm_model_names();

}  // namespace clustersim::comm
