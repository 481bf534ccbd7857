// Model XML (topologies/model_xml.cpp and every folder's schema part, run/model.hpp), from
// memory.
#include "fuzz_common.hpp"
#include "run/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view xml(reinterpret_cast<const char*>(data), size);
    clustersim::fuzz::expect_clean([&] { (void)clustersim::run::parse_model(xml, "fuzz.xml"); });
    return 0;
}
