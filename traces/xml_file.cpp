#include "traces/xml_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "simulator/error.hpp"

namespace clustersim::traces {

XmlFile::XmlFile(std::string path, const std::string& expected) : path_(std::move(path)) {
    refuse_non_file(path_);
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw InputError(path_, 0, fmt::format("cannot read file: {}", std::strerror(errno)));
    std::ostringstream ss;
    ss << in.rdbuf();
    text_ = ss.str();
    for (std::size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\n') newlines_.push_back(i);
    const pugi::xml_parse_result res =
        doc_.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!res)
        throw InputError(path_, line_at(res.offset),
                         expected.empty()
                             ? fmt::format("malformed XML: {}", res.description())
                             : fmt::format("malformed XML: {}; {}", res.description(), expected));
    // The readers walk elements recursively: refuse a nesting deeper than kMaxXmlDepth
    // here, with a walk that does not recurse itself (a million nested elements overflowed
    // the stack of the SimGrid importer, the HDTrace reader and the PIOsimHD importer).
    int depth = 0;
    for (pugi::xml_node n = doc_.first_child(); n;) {
        if (n.first_child()) {
            n = n.first_child();
            if (++depth > kMaxXmlDepth)
                fail(n, fmt::format("<{}> is nested {} elements deep; at most {} (docs/limits.md)",
                                    n.name(), depth, kMaxXmlDepth));
            continue;
        }
        while (n && !n.next_sibling()) {
            n = n.parent();
            --depth;
        }
        if (n) n = n.next_sibling();
    }
}

int XmlFile::line_at(std::ptrdiff_t offset) const {
    if (offset < 0) return 0;
    const auto it =
        std::lower_bound(newlines_.begin(), newlines_.end(), static_cast<std::size_t>(offset));
    return static_cast<int>(it - newlines_.begin()) + 1;
}

void XmlFile::fail(pugi::xml_node n, const std::string& what) const {
    throw InputError(path_, line(n), what);
}

}  // namespace clustersim::traces
