#include "topologies/forwarding.hpp"

namespace clustersim::topo {

namespace {

Time whole_packet(const ForwardRule&, Time, Time, Time tail) {
    return tail;
}
Time head_after_latency(const ForwardRule&, Time start, Time latency, Time) {
    return start + latency;
}

}  // namespace

ForwardingRegistry& forwarding_models() {
    // At most 127 configured models (Forwarding is a signed byte).
    static ForwardingRegistry registry("forwarding model", 127);
    static const bool builtins = [] {
        ForwardingRegistry& r = registry;
        // Listed in this order, so the error of an unknown name reads "expected cut-through
        // or store-and-forward".
        r.add({"cut_through",
               "the next vertex forwards a packet's head after the link's latency",
               {},
               [](const std::vector<KeyValue>&) {
                   return ForwardRule{&head_after_latency, {}};
               }});
        r.add({"store_and_forward",
               "the next vertex forwards a packet once its last byte has arrived",
               {},
               [](const std::vector<KeyValue>&) {
                   return ForwardRule{&whole_packet, {}};
               }});
        // Their ids are kStoreAndForward and kCutThrough.
        r.select("store_and_forward");
        r.select("cut_through");
        return true;
    }();
    (void)builtins;
    return registry;
}

}  // namespace clustersim::topo
