// Trace writers for `clustersim convert --to NAME`: the native text and binary formats, OTF2
// and GOAL, kept in one NamedRegistry (simulator/registry.hpp). Adding a format is one
// function and one line: `trace_writers().add(WriterEntry{...})`, from any translation unit;
// `convert --to`, its choice by OUTPUT's extension, its error for an unknown name and the
// shell completion then know it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "simulator/params.hpp"
#include "simulator/registry.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {

struct WriterEntry {
    std::string name;               // "text"
    std::string doc;                // one line
    std::vector<ParamInfo> params;  // what it reads besides the trace and the path (none yet)
    // The extensions of OUTPUT that choose it when --to is not given (".txt"); OUTPUT with
    // none of the registered ones is written in the native binary format.
    std::vector<std::string> extensions;
    // An extension OUTPUT must have (OTF2's anchor, ".otf2"): appended when missing.
    std::string required_extension;
    // Writes `trace` to `path`; InputError naming the path when it cannot.
    std::function<void(const Trace& trace, const std::string& path)> write;
    // Bytes it wrote for `path`, with the files beside it (OTF2's definitions and folder);
    // null: the size of `path`.
    std::function<std::uint64_t(const std::string& path)> bytes_written;
};

using WriterRegistry = NamedRegistry<WriterEntry>;

// Every trace writer: text, binary, otf2, goal on first use, then whatever is added.
WriterRegistry& trace_writers();

// The writer chosen by OUTPUT's extension ("binary" when no writer claims it).
std::string writer_for_output(const std::string& output);

}  // namespace clustersim::traces
