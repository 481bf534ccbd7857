// Model XML (topologies/model_xml.cpp and every folder's schema part, run/model.hpp), from
// memory.
#include "fuzz_common.hpp"
#include "run/model.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_model_xml) {
    const std::string_view xml(reinterpret_cast<const char*>(data), size);
    clustersim::fuzz::expect_clean([&] { (void)clustersim::run::parse_model(xml, "fuzz.xml"); });
    return 0;
}
