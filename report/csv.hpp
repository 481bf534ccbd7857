// A CSV field as the report's CSV files write it (statistics, comparison): quoted (RFC 4180)
// when it holds a comma, a quote or a line break, a quote inside doubled. One definition: the
// library compiles as one unity file, where two files' file-local copies collided.
#pragma once

#include <string>

namespace clustersim::traces {

inline std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (const char ch : text) {
        if (ch == '"') out += '"';
        out += ch;
    }
    return out + "\"";
}

}  // namespace clustersim::traces
