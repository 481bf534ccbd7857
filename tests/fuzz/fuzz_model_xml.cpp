// Model XML (topologies/model_xml.cpp), from memory, then routed as `validate` does.
#include "fuzz_common.hpp"
#include "topologies/model_xml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view xml(reinterpret_cast<const char*>(data), size);
    clustersim::fuzz::expect_clean([&] { (void)clustersim::topo::parse_model(xml, "fuzz.xml"); });
    return 0;
}
