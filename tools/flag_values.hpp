// What every option of every `clustersim` command takes, in one table: the names an
// enumerated flag accepts (from the registries that read them), or that it takes a file, a
// folder, or free text (a quantity, a list, a spec). The shell completion offers these
// names and paths, and tests/test_flagvalues_cli.cpp checks the table against the command
// line: every option that takes text is in it, and every name it lists is accepted and, one
// letter off, suggested ("did you mean ...?").
//
// Adding a flag that takes text: one row in flag_values.cpp. An enumerated one names the
// function its command reads the names from, so the table and the check cannot drift apart.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace clustersim::cli {

// What `clustersim list` prints and `run --help` ends with: every name a flag accepts, with
// its one line of help.
struct Catalogue {
    std::vector<std::pair<std::string, std::string>> apps, algorithms, networks, formats, caches,
        disks, writers, importers, profiles, outputs, jitter;
};
Catalogue catalogue();

// The names of the enumerated flags whose commands keep them in tools/ (the others come from
// their registries): each command's check and the table below read the same list.
const std::vector<std::string>& fabric_kinds();      // generate KIND
const std::vector<std::string>& timeline_details();  // run --timeline-detail
std::vector<std::string> convert_formats();          // convert --to: traces::trace_writers()
const std::vector<std::string>& merged_formats();    // trace merge --to, record --to
std::vector<std::string> import_kinds();             // import KIND: traces::importers()
const std::vector<std::string>& jitter_models();     // jitter --model
const std::vector<std::string>& jitter_barriers();   // jitter --barrier

// `clustersim list KIND`'s kinds, and the ones it prints without a KIND.
const std::vector<std::string>& list_kinds();
const std::vector<std::string>& default_list_kinds();

enum class ValueKind {
    Names,   // one of `names` (a flag may also take more, e.g. NAME:key=value or a size)
    File,    // a file path
    Folder,  // a folder path
    Text,    // anything else: a quantity, a list, a spec, a field name
};

struct FlagValues {
    std::string command;  // "run", "trace merge", "jitter-trace convert"
    std::string option;   // "--network", or a positional's name ("KIND")
    ValueKind kind = ValueKind::Text;
    std::vector<std::string> names;  // Names: every name it accepts
};

// Every option of every command that takes text, in command order.
std::vector<FlagValues> flag_values();

// The row of `command`'s `option`, or nullptr.
const FlagValues* find_flag_values(const std::vector<FlagValues>& table, std::string_view command,
                                   std::string_view option);

}  // namespace clustersim::cli
