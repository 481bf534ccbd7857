// The <comm-model> element (an analytic communication model, models/comm_model.hpp) as the
// model file gives it, and its schema part: models/ reads its own element
// (topologies/schema_part.hpp). Its attributes are described once, by comm_attributes(): the
// XML reader and `--network NAME:key=value` (run/network_models.cpp) both set them through
// that table, so a new attribute is one table row plus its CommModelSpec field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "simulator/params.hpp"
#include "simulator/time.hpp"
#include "topologies/schema_part.hpp"

namespace clustersim::comm {

// <comm-model>: an analytic communication model in the manner of PSINS (models/comm_model.hpp)
// instead of moving messages through the graph. The part reader keeps what the XML says; the
// model name and collective operation names are checked when a run starts (models/ and
// collectives/ know the valid ones). Values left out are derived from the graph: the latency
// and bottleneck bandwidth of the route between the two sockets.
struct CommCollectiveSpec {
    std::string operation;  // "allreduce", ... (checked by collectives/)
    std::string scaling;    // "constant", "linear", "logarithmic"; empty: the model's default
    // Measured bandwidth of the operation against the size a rank passes, at `ranks` ranks
    // (PSINS's PMaC collectives; clustersim-calibrate writes these). Sizes strictly rising.
    std::vector<std::pair<std::uint64_t, Bandwidth>> points;
    std::uint32_t ranks = 0;  // ranks the points were measured at; 0: no points
    int line = 0;
};

// <node-type name=...> inside <comm-model>: the links and node-local costs of one node type
// (heterogeneous machines). Zero / unset values fall back to the <comm-model>'s own.
struct CommNodeSpec {
    std::string node_type;
    std::uint32_t in_links = 0, out_links = 0;  // 0: the model's default
    bool has_latency = false, has_bandwidth = false;
    Time latency;         // between two processes of one node
    Bandwidth bandwidth;  // between two processes of one node
    int line = 0;
};

struct CommModelSpec {
    bool present = false;        // a <comm-model> element was given
    std::string model;           // "simple", "bus_only", ... (checked by models/)
    bool has_latency = false;    // inter-node latency given (else: from the graph)
    bool has_bandwidth = false;  // inter-node bandwidth given (else: from the graph)
    Time latency;
    Bandwidth bandwidth;
    bool has_intra_latency = false, has_intra_bandwidth = false;  // default for every node type
    Time intra_latency;
    Bandwidth intra_bandwidth;
    std::uint32_t buses = 1;                    // global buses (contention models)
    std::uint32_t in_links = 1, out_links = 1;  // per node, default for every node type
    bool collectives_as_messages = false;       // collectives="messages": run their algorithms
    // <point-to-point scope="intra-node|inter-node">: measured transfer bandwidth of one
    // message against its size (sizes strictly rising); empty: latency + size / bandwidth.
    // A message of s bytes then takes s / curve(s) plus the pair's latency.
    std::vector<std::pair<std::uint64_t, Bandwidth>> intra_curve, inter_curve;
    int intra_curve_line = 0, inter_curve_line = 0;
    // <point-to-point scope="…" direction="both">: the transfer bandwidth of one direction
    // of a two-way exchange (a message whose sender is receiving, or whose receiver is
    // sending, at the same time); empty: such a message takes the one-way curve (issue 23).
    std::vector<std::pair<std::uint64_t, Bandwidth>> intra_two_way, inter_two_way;
    int intra_two_way_line = 0, inter_two_way_line = 0;
    // <point-to-point scope="…" direction="concurrent">: the bandwidth a receiver's
    // concurrent incoming messages share (Open MPI's shared-memory transport copies every
    // message into the receiver with the receiver's core, one after another): while n >= 2
    // messages of a kind of pair with this curve are in transfer to one rank, each of s
    // bytes takes at least n s / Bc(s); empty: concurrent messages do not slow each other.
    std::vector<std::pair<std::uint64_t, Bandwidth>> intra_concurrent, inter_concurrent;
    int intra_concurrent_line = 0, inter_concurrent_line = 0;
    std::vector<CommNodeSpec> node_types;
    std::vector<CommCollectiveSpec> collectives;
    int line = 0;
};

// One attribute of <comm-model> that is also an analytic model's --network parameter, in
// the order `clustersim list models` prints them and an unknown key's error lists them (the
// XML's unknown-attribute error lists "model", then the times and bandwidths, the counts and
// the choice). One more such attribute: a CommModelSpec field and one row here.
struct CommAttribute {
    enum class Kind : std::uint8_t {
        Count,       // a count >= 1 that fits 32 bits (`unit` names one in the XML's errors)
        Time,        // a time
        Bandwidth,   // a finite positive bandwidth
        Collectives  // analytic | messages
    };
    struct Value {
        std::uint32_t count = 0;
        clustersim::Time time;
        clustersim::Bandwidth bandwidth;
        bool messages = false;
    };
    ParamInfo info;
    Kind kind;
    const char* unit;  // Count: "bus", "link"
    void (*set)(CommModelSpec& spec, const Value& value);
};
const std::vector<CommAttribute>& comm_attributes();
// The parameters every analytic model takes (--network simple:latency=2us, and the
// <comm-model> attributes of the same names): comm_attributes()' ParamInfo.
const std::vector<ParamInfo>& analytic_params();
// --network's `key=value` for an analytic model: sets the attribute `key` (one of
// comm_attributes(); others are ignored, the caller checked them) on `spec`. Throws
// std::invalid_argument("what was expected") for a bad value.
void set_attribute(CommModelSpec& spec, std::string_view key, const std::string& value);

// What `clustersim validate` says of the model after "analytic": " (MODEL; N buses, ...;
// latency ..., bandwidth ...; collectives ...)".
std::string describe(const CommModelSpec& spec);

// The <comm-model> element's part (read once every <node-type> is: its <node-type> entries
// name them), filling `out`. `out` must outlive the reader it is added to.
topo::SchemaPart comm_model_part(CommModelSpec& out);

}  // namespace clustersim::comm
