// OS-jitter traces (traces/jitter_io.cpp): the input read as text, binary (.jtb) and
// LogGOPSim noise, each with the format detection the command uses.
#include "fuzz_common.hpp"
#include "traces/jitter_io.hpp"

CLUSTERSIM_FUZZ_HARNESS(fuzz_jitter) {
    using namespace clustersim::traces;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    for (const char* name : {"input.jtr", "input.noise"}) {
        const std::string path = clustersim::fuzz::write_input(name, bytes);
        clustersim::fuzz::expect_clean([&] { (void)read_jitter_trace(path); });
    }
    for (JitterFormat f : {JitterFormat::Text, JitterFormat::Binary, JitterFormat::LogGOPSim}) {
        const std::string path = clustersim::fuzz::write_input("input.any", bytes);
        clustersim::fuzz::expect_clean([&] { (void)read_jitter_trace(path, f, 2.4e9); });
    }
    return 0;
}
