// An XML document read whole, with the line of every node for error messages (pugixml gives
// byte offsets). Used by the readers and importers of other tools' XML (HDTrace, PIOsimHD,
// SimGrid).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <pugixml.hpp>

namespace clustersim::traces {

// The deepest element nesting an XML input may have (the root is depth 0).
inline constexpr int kMaxXmlDepth = 256;

class XmlFile {
  public:
    // Reads and parses `path`; InputError naming the file (and the line of a syntax error,
    // with `expected` appended: "expected a SimGrid <platform> document"), or the line of an
    // element nested deeper than kMaxXmlDepth.
    explicit XmlFile(std::string path, const std::string& expected = "");
    const std::string& path() const { return path_; }
    const pugi::xml_document& doc() const { return doc_; }
    int line_at(std::ptrdiff_t offset) const;  // 1-based; 0 if unknown
    int line(pugi::xml_node n) const { return line_at(n.offset_debug()); }
    [[noreturn]] void fail(pugi::xml_node n, const std::string& what) const;

  private:
    std::string path_;
    std::string text_;
    std::vector<std::size_t> newlines_;
    pugi::xml_document doc_;
};

}  // namespace clustersim::traces
