// The switch forwarding models, by name: when a vertex may forward a packet that is arriving
// on a link. Chosen in the model XML (`forwarding="NAME[:key=value,...]"` on <network>,
// <switch>, <nic>, ...) with the entry's documented parameters; `clustersim list models`
// prints them. Built in: store-and-forward (the whole packet first) and cut-through (its
// head, after the link's latency).
//
// A model resolves once, when the packet network is built, to a ForwardRule: a plain
// function and two constants, called once per packet per hop (no string, no virtual call;
// the network inlines the two built-ins by their fixed ids).
//
// Adding a forwarding model is one function plus one registration:
//     topo::forwarding_models().add({"mine", "one line of help", {/* ParamInfo... */},
//                                    [](const std::vector<KeyValue>& params) {
//                                        return topo::ForwardRule{&mine_at, {...}};
//                                    }});
#pragma once

#include <array>
#include <cstdint>

#include "simulator/configured_registry.hpp"
#include "simulator/time.hpp"

namespace clustersim::topo {

// A configured forwarding model, as an id: -1 unset (the vertex follows <network>'s), then
// the index select() gave. The built-ins without parameters have fixed ids.
using Forwarding = std::int8_t;
inline constexpr Forwarding kForwardingUnset = -1;
inline constexpr Forwarding kStoreAndForward = 0;
inline constexpr Forwarding kCutThrough = 1;

// One packet crossing one link: its first bit left at `start`, its last bit arrives at `tail`
// (= the end of its transmission + `latency`).
struct ForwardRule {
    Time (*at)(const ForwardRule& rule, Time start, Time latency, Time tail) = nullptr;
    std::array<Time, 2> k{};  // the model's own constants
    Time operator()(Time start, Time latency, Time tail) const {
        return at(*this, start, latency, tail);
    }
    explicit operator bool() const { return at != nullptr; }
};

// A registered forwarding model: name, one line, parameters, and a factory of its rule.
using ForwardingEntry = ConfiguredEntry<ForwardRule>;

// select("NAME[:key=value,...]") gives a Forwarding id (the same text, the same id; at most
// 127). Errors read "'x' is not valid; expected cut-through or store-and-forward",
// "'m:k=v': forwarding model 'm' has no parameter 'k'; expected ...". made(id) is the rule of
// the configured model `id` (>= 0).
using ForwardingRegistry = ConfiguredRegistry<ForwardRule, Forwarding>;
ForwardingRegistry& forwarding_models();

}  // namespace clustersim::topo
