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
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/params.hpp"
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
};

struct ForwardingEntry {
    std::string name;
    std::string doc;  // one line
    std::vector<ParamInfo> params;
    // The rule with these parameters (each key already checked against `params`); throws
    // std::invalid_argument("key: what was expected") for a bad value.
    std::function<ForwardRule(const std::vector<KeyValue>&)> make;
};

class ForwardingRegistry {
  public:
    // Throws std::logic_error if the name is empty or taken, or the factory is missing.
    void add(ForwardingEntry entry);
    std::vector<ForwardingEntry> entries() const;
    // The model "NAME[:key=value,...]" names, as an id (the same text, the same id). Throws
    // std::invalid_argument ("'x' is not valid; expected cut-through or store-and-forward",
    // "unknown parameter 'k' ...").
    Forwarding select(std::string_view spec);
    // The text select() was given; stable for the program's life.
    const char* spec(Forwarding id) const;
    // The rule of the configured model `id` (>= 0).
    ForwardRule rule(Forwarding id) const;

  private:
    struct Configured {
        std::string spec;
        ForwardRule rule;
    };
    mutable std::mutex mutex_;
    std::vector<ForwardingEntry> entries_;
    std::deque<Configured> configured_;  // index = Forwarding id
};
ForwardingRegistry& forwarding_models();

}  // namespace clustersim::topo
