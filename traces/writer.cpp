// The trace writers' registry (traces/writer.hpp) and its four built-ins.
#include "traces/writer.hpp"

#include <filesystem>
#include <system_error>

#include "traces/goal.hpp"
#include "traces/otf2.hpp"

namespace clustersim::traces {
namespace {

std::uint64_t size_of(const std::filesystem::path& path) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(path, ec);
    return ec ? 0 : n;
}

// An OTF2 archive: the anchor, NAME.def and the folder NAME/ of per-location files.
std::uint64_t otf2_bytes(const std::string& anchor_path) {
    const std::filesystem::path anchor(anchor_path);
    const std::filesystem::path stem = anchor.parent_path() / anchor.stem();
    std::uint64_t out = size_of(anchor) + size_of(stem.string() + ".def");
    std::error_code ec;
    if (std::filesystem::is_directory(stem, ec))
        for (const auto& e : std::filesystem::recursive_directory_iterator(stem, ec))
            if (e.is_regular_file(ec)) out += size_of(e.path());
    return out;
}

void register_builtin_writers(WriterRegistry& r) {
    r.add(WriterEntry{"text",
                      "the native text format, one line per record",
                      {},
                      {".txt", ".cstrace-text"},
                      "",
                      [](const Trace& t, const std::string& path) { write_text(t, path); },
                      nullptr});
    r.add(WriterEntry{"binary",
                      "the native binary format (CSTRACE1), what OUTPUT of any other extension "
                      "gets",
                      {},
                      {},
                      "",
                      [](const Trace& t, const std::string& path) { write_binary(t, path); },
                      nullptr});
    r.add(WriterEntry{"otf2",
                      "an OTF2 archive: OUTPUT.otf2 (the anchor), OUTPUT.def and OUTPUT/",
                      {},
                      {".otf2"},
                      ".otf2",
                      [](const Trace& t, const std::string& path) { write_otf2(t, path); },
                      &otf2_bytes});
    r.add(WriterEntry{"goal",
                      "a GOAL schedule (LogGOPSim's input)",
                      {},
                      {".goal"},
                      "",
                      [](const Trace& t, const std::string& path) { write_goal(t, path); },
                      nullptr});
}

}  // namespace

WriterRegistry& trace_writers() {
    static WriterRegistry registry("trace writer");
    static const bool filled = (register_builtin_writers(registry), true);
    (void)filled;
    return registry;
}

std::string writer_for_output(const std::string& output) {
    const std::string ext = std::filesystem::path(output).extension().string();
    for (const WriterEntry& w : trace_writers().entries())
        for (const std::string& e : w.extensions)
            if (!ext.empty() && e == ext) return w.name;
    return "binary";
}

}  // namespace clustersim::traces
