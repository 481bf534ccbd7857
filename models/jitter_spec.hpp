// OS jitter on a node type's cores as the model file gives it (<jitter> in a <node-type>),
// and its schema part: models/ reads its own element (topologies/schema_part.hpp),
// registered by the run layer (run/model.cpp). The simulation (run/simulation.cpp) loads or
// generates the trace and places each core in it. Adding an attribute is one JitterSpec
// field plus its lines in jitter_spec.cpp's reader.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simulator/time.hpp"
#include "topologies/schema_part.hpp"

namespace clustersim::jitter {

// <jitter> in a <node-type>: OS noise on that type's cores (issue 6). The reader keeps the
// spec only; the simulation loads the trace (through a callback: this folder reads no jitter
// files) or runs the generator, and places each core in it with the start policy.
struct JitterSpec {
    enum class Start : std::uint8_t { Unsynchronized, Synchronized, Coscheduled, Explicit };
    std::string node_type;     // the <node-type> it belongs to
    std::int32_t core = -1;    // core within the node (sockets in order, then cores); -1 = all
    std::string trace;         // trace file, resolved against the model's directory; or empty
    std::string generator;     // or a models/noise_gen.hpp spec ("periodic:period=10ms,...")
    Time length = Time::s(1);  // generator: length of the trace it makes
    double frequency_hz = 0;   // 0: not given (trace: its header; generator: core speed)
    bool has_seed = false;     // seed given (else the run's seed)
    std::uint64_t seed = 1;    // generator and random start positions
    Start start = Start::Unsynchronized;
    Time window_high, window_low;              // Coscheduled
    std::vector<std::uint64_t> start_indices;  // Explicit: core k starts at tuple [k % size]
    int line = 0;
};

// The <jitter> children of <node-type>: their part, appending to `out` in document order
// (which must outlive the reader it is added to).
topo::SchemaPart jitter_part(std::vector<JitterSpec>& out);

}  // namespace clustersim::jitter
