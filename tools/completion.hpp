// The command line walked as a tree (each command's path, each option's key) and the bash
// completion generated from it and the flag-values table (tools/flag_values.hpp).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace clustersim::cli {

// The command path of `sub` below the app ("run", "trace merge").
std::string command_path(const CLI::App& sub);

// How an option is named in the flag-values table: "--out" (its first long name) or a
// positional's name ("MODEL").
std::string option_key(const CLI::Option& o);

// Calls f(path, subcommand) for every subcommand below `app`, depth first.
template <class F>
void each_command(const CLI::App& app, F&& f) {
    for (const CLI::App* s : app.get_subcommands({})) {
        f(command_path(*s), *s);
        each_command(*s, f);
    }
}

// Bash completion for every command, its flags and their values (names, files, folders).
std::string bash_completion(const CLI::App& app);

}  // namespace clustersim::cli
