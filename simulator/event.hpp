// An engine event and the id of the component it goes to (simulator/engine.hpp).
#pragma once

#include <cstdint>

#include "simulator/time.hpp"

namespace clustersim {

using ComponentId = std::uint32_t;

struct Event {
    Time time;
    ComponentId component = 0;
    std::uint32_t kind = 0;
    std::uint64_t data = 0;
};
// 24 bytes (32 with the sequence number it no longer carries, issue 25): events are copied
// between the radix heap's buckets (about once per event in bench_replay 1024 10000 packet
// before whole one-time buckets were traded, simulator/engine.hpp), so their size is memory
// traffic.
static_assert(sizeof(Event) == 24, "events stay small");

}  // namespace clustersim
