// Small helpers shared by the command implementations.
#pragma once

#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "run/model.hpp"
#include "simulator/configured_registry.hpp"
#include "simulator/error.hpp"
#include "simulator/text.hpp"
#include "simulator/units.hpp"
#include "traces/reader.hpp"

namespace clustersim::cli {

// Parses a unit-bearing flag value, turning a UnitError into an InputError naming the flag.
template <typename F>
auto flag_value(const std::string& flag, const std::string& text, F parse) {
    try {
        return parse(text);
    } catch (const UnitError& e) {
        throw InputError(flag, 0, e.what());
    }
}

using clustersim::with_commas;  // simulator/text.hpp

using clustersim::select_flag;  // simulator/configured_registry.hpp

// One stderr line: the MPI calls a reader kept as unmodeled records (OTF2, DUMPI), by name.
inline void print_unmodeled(const traces::ReadReport& report, const std::string& path) {
    std::cerr << traces::unmodeled_line(report, path);
}

// A command that writes a model (generate, import) reads it back before printing it, so it
// never prints what `validate` and `run` would refuse: the error names `source` (the flags or
// the input file that describe the impossible model) and the model's own line.
inline void check_written_model(const std::string& xml, const std::string& source) {
    try {
        (void)run::parse_model(xml, "model");
    } catch (const InputError& e) {
        throw InputError(
            source, 0,
            fmt::format("the model it describes is not valid ({}{}: {})",
                        e.line() > 0 ? "line " : "",
                        e.line() > 0 ? std::to_string(e.line()) : std::string(), e.message()));
    }
}

}  // namespace clustersim::cli
