#include "topologies/schema_part.hpp"
#include "simulator/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <unordered_set>

#include <fmt/format.h>

namespace clustersim::topo {

namespace {}  // namespace

ElementReader::ElementReader(std::string_view text, const std::string& file)
    : text_(text), file_(file) {
    for (std::size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\n') newlines_.push_back(i);
}

int ElementReader::line_at(std::ptrdiff_t offset) const {
    if (offset < 0) return 0;
    const auto it =
        std::lower_bound(newlines_.begin(), newlines_.end(), static_cast<std::size_t>(offset));
    return static_cast<int>(it - newlines_.begin()) + 1;
}

int ElementReader::line_of(pugi::xml_node n) const {
    std::ptrdiff_t off = n.offset_debug();
    if (off >= 0 && (n.type() == pugi::node_pcdata || n.type() == pugi::node_cdata)) {
        // Text starts with the white space after the previous tag: point at the text.
        while (static_cast<std::size_t>(off) < text_.size() &&
               std::isspace(static_cast<unsigned char>(text_[off])))
            ++off;
    }
    return line_at(off);
}

std::string ElementReader::tag(pugi::xml_node n) {
    return fmt::format("<{}>", n.name());
}

std::string ElementReader::unit_error(pugi::xml_node n, const char* attr, const char* what) {
    return fmt::format("{} attribute '{}': {}", tag(n), attr, what);
}

void ElementReader::check_attributes(pugi::xml_node n, Attrs allowed) const {
    check_attributes(n, std::vector<std::string_view>(allowed));
}

void ElementReader::check_attributes(pugi::xml_node n,
                                     const std::vector<std::string_view>& allowed) const {
    for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute()) {
        if (std::find(allowed.begin(), allowed.end(), std::string_view(a.name())) ==
            allowed.end()) {
            std::vector<std::string> names(allowed.begin(), allowed.end());
            fail(n, fmt::format("{} has unknown attribute '{}'{}; valid attributes: {}", tag(n),
                                a.name(), did_you_mean(a.name(), names), join_names(allowed)));
        }
    }
    check_unique_attributes(n);
}

// Linear in the attributes (pairwise comparison took 15 s for 50,000 on one <disk>).
void ElementReader::check_unique_attributes(pugi::xml_node n) const {
    std::unordered_set<std::string_view> seen;
    for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute())
        if (!seen.insert(a.name()).second)
            fail(n, fmt::format("{} has attribute '{}' twice", tag(n), a.name()));
}

void ElementReader::check_empty(pugi::xml_node n) const {
    if (const pugi::xml_node c = n.first_child()) {
        fail(c, fmt::format("unexpected content in {}; expected an empty element (attributes "
                            "only)",
                            tag(n)));
    }
}

std::optional<bool> ElementReader::yes_no(pugi::xml_node n, const char* name) const {
    const std::optional<std::string_view> v = optional(n, name);
    if (!v) return std::nullopt;
    if (*v == "yes") return true;
    if (*v != "no")
        // No suggestion: 'on' is one swap from 'no' and means the opposite.
        fail(n, fmt::format("<{}> attribute '{}': '{}' is not valid; expected yes or no", n.name(),
                            name, *v));
    return false;
}

std::string_view ElementReader::required(pugi::xml_node n, const char* name) const {
    const pugi::xml_attribute a = n.attribute(name);
    if (!a) fail(n, fmt::format("{} is missing required attribute '{}'", tag(n), name));
    return a.value();
}

std::string ElementReader::checked_name(pugi::xml_node n, const char* attr,
                                        std::string_view v) const {
    if (v.empty()) fail(n, fmt::format("{} attribute '{}' must not be empty", tag(n), attr));
    for (char c : v) {
        if (c == '.' || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            fail(n, fmt::format("{} attribute '{}': '{}' is not a valid name; expected a "
                                "name without '.', ',' or spaces ('.' joins a node and "
                                "its vertices)",
                                tag(n), attr, v));
        }
    }
    return std::string(v);
}

Bandwidth ElementReader::finite_bandwidth(pugi::xml_node n, const char* attr,
                                          std::string_view v) const {
    std::string word(v);
    std::transform(word.begin(), word.end(), word.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const bool zero = !word.empty() && word.find_first_not_of("0.") == std::string::npos &&
                      word.find('0') != std::string::npos;
    if (zero || word == "unlimited" || word == "infinite" || word == "infinity" || word == "inf") {
        fail(n, fmt::format("{} attribute '{}': '{}' is not valid; expected a finite positive "
                            "bandwidth (e.g. 1.25GB/s)",
                            tag(n), attr, v));
    }
    return with_unit(n, attr, v, parse_bandwidth);
}

std::uint64_t ElementReader::count_attr(pugi::xml_node n, const char* attr, std::string_view v,
                                        const char* what) const {
    const std::uint64_t c = with_unit(n, attr, v, parse_count);
    if (c == 0) {
        fail(n,
             fmt::format("{} attribute '{}': expected at least 1 {}, got 0", tag(n), attr, what));
    }
    return c;
}

std::uint32_t ElementReader::count32_attr(pugi::xml_node n, const char* attr, std::string_view v,
                                          const char* what) const {
    const std::uint64_t c = count_attr(n, attr, v, what);
    if (c > UINT32_MAX) fail(n, fmt::format("{} attribute '{}': {} is too many", tag(n), attr, c));
    return static_cast<std::uint32_t>(c);
}

std::uint64_t ElementReader::positive_size(pugi::xml_node n, const char* attr, std::string_view v,
                                           const char* what) const {
    const std::uint64_t b = with_unit(n, attr, v, parse_size);
    if (b == 0) {
        fail(n, fmt::format("{} attribute '{}': the {} must be at least 1 B", tag(n), attr, what));
    }
    return b;
}

std::vector<std::pair<std::uint64_t, Bandwidth>> ElementReader::read_points(
    pugi::xml_node n, const char* parent) const {
    std::vector<std::pair<std::uint64_t, Bandwidth>> points;
    pugi::xml_node previous;
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
        if (c.type() != pugi::node_element || std::strcmp(c.name(), "point") != 0)
            fail(c,
                 fmt::format("unexpected content in <{}>; expected only <point> elements", parent));
        check_attributes(c, {"size", "bandwidth"});
        check_empty(c);
        const std::string_view size_text = required(c, "size");
        const std::uint64_t size = with_unit(c, "size", size_text, parse_size);
        if (size == 0) fail(c, "<point> attribute 'size': expected a size larger than 0B");
        if (previous && size <= points.back().first) {
            fail(c, fmt::format("<point> attribute 'size': '{}' is not larger than the previous "
                                "point's '{}' (line {}); expected sizes strictly rising",
                                size_text, previous.attribute("size").value(), line_of(previous)));
        }
        points.emplace_back(size, finite_bandwidth(c, "bandwidth", required(c, "bandwidth")));
        previous = c;
    }
    return points;
}

void ModelReader::add(SchemaPart part) {
    if (part.name.empty() || (!part.read && !part.read_node_type))
        throw std::logic_error("a schema part needs a name and a reader");
    if (!part.elements.empty() && !part.read)
        throw std::logic_error(fmt::format(
            "schema part '{}' owns top-level elements but has no reader for them", part.name));
    if (!part.node_type_elements.empty() && !part.read_node_type)
        throw std::logic_error(fmt::format(
            "schema part '{}' owns <node-type> children but has no reader for them", part.name));
    auto owner = [&](std::string_view el, bool in_type) -> std::string {
        const auto& core = in_type ? core_node_type_elements() : core_elements();
        if (std::find(core.begin(), core.end(), el) != core.end()) return "the core reader";
        for (const SchemaPart& p : parts_) {
            const auto& els = in_type ? p.node_type_elements : p.elements;
            if (std::find(els.begin(), els.end(), el) != els.end()) return "part '" + p.name + "'";
        }
        return {};
    };
    for (const auto& [list, in_type] :
         {std::pair{&part.elements, false}, std::pair{&part.node_type_elements, true}})
        for (const std::string& el : *list)
            if (const std::string other = owner(el, in_type); !other.empty())
                throw std::logic_error(fmt::format("schema part '{}': <{}> is already read by {}",
                                                   part.name, el, other));
    parts_.push_back(std::move(part));
}

Topology ModelReader::load(const std::string& path) const {
    refuse_non_file(path);
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr)
        throw InputError(path, 0, fmt::format("cannot read file: {}", std::strerror(errno)));
    std::string data;
    char buf[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, got);
    const bool failed = std::ferror(f) != 0;
    const int err = errno;
    std::fclose(f);
    if (failed) throw InputError(path, 0, fmt::format("cannot read file: {}", std::strerror(err)));
    return parse(data, path);
}

}  // namespace clustersim::topo
