// OTF2 output: a trace as an OTF2 archive (the otf2 reader, otf2_reader.cpp, reads it back).
#pragma once

#include <string>

#include "traces/trace.hpp"

namespace clustersim::traces {

struct Otf2WriteOptions {
    // The clustersim:* attributes, compute regions and archive properties that make the
    // archive read back record for record. Without them the archive holds only what other
    // OTF2 writers (Score-P) write: MPI regions with their events, I/O events, definitions;
    // compute is the time between regions (the reader's tests use this).
    bool clustersim_extensions = true;
};

// Writes `t` as the OTF2 archive whose anchor file is `anchor_path` (DIR/NAME.otf2, with
// DIR/NAME.def and DIR/NAME/ beside it; an archive of that name is replaced). Throws
// InputError(anchor_path, 0, ...) if it cannot be written.
void write_otf2(const Trace& t, const std::string& anchor_path,
                const Otf2WriteOptions& options = {});

}  // namespace clustersim::traces
