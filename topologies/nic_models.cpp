#include "topologies/nic_models.hpp"

namespace clustersim::topo {

namespace {

class PacketNic final : public NicBehaviour {
  public:
    void inject(NicPort& port, std::uint32_t pkt) const override { port.hop_by_hop(pkt); }
};

class AnalyticalNic final : public NicBehaviour {
  public:
    void inject(NicPort& port, std::uint32_t pkt) const override { port.reserve_route(pkt); }
};

}  // namespace

NicModelRegistry& nic_models() {
    static NicModelRegistry registry("NIC model", 256);  // NicModel is one byte
    static const bool builtins = [] {
        NicModelRegistry& r = registry;
        r.add({"packet",
               "every packet is routed hop by hop: two events per packet per hop",
               {},
               [](const std::vector<KeyValue>&) { return std::make_shared<PacketNic>(); }});
        r.add({"analytical",
               "the route is reserved once per packet at injection: one event per packet",
               {},
               [](const std::vector<KeyValue>&) { return std::make_shared<AnalyticalNic>(); }});
        // Their ids are NicModel::Packet and NicModel::Analytical.
        r.select("packet");
        r.select("analytical");
        return true;
    }();
    (void)builtins;
    return registry;
}

}  // namespace clustersim::topo
