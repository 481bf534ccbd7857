// Small text helpers the trace readers and importers share (internal to traces/).
#pragma once

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "simulator/error.hpp"

namespace clustersim::traces {

// ASCII white space, as std::isspace in the "C" locale: space, \t, \n, \v, \f, \r.
inline constexpr bool is_ascii_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// `s` without leading and trailing ASCII white space.
inline std::string_view trim(std::string_view s) {
    while (!s.empty() && is_ascii_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_ascii_space(s.back())) s.remove_suffix(1);
    return s;
}

// `s` with A-Z as a-z (names in traces and models are ASCII; other bytes are kept).
inline std::string ascii_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

// The whole file at `path`; a directory or a file that cannot be opened is an InputError.
inline std::string read_whole_file(const std::string& path) {
    refuse_non_file(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, fmt::format("cannot open: {}", std::strerror(errno)));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace clustersim::traces
