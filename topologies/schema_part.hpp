// The model reader's part registry: each folder reads its own elements of the model XML.
//
// topologies/ reads the graph and the placement (<network>, <node-type>, <node>, <nodes>,
// vertices, links, generators). Every other element belongs to a *schema part*, defined by
// the folder that owns its settings (models/: <comm-model>, <jitter>; collectives/:
// <collectives>, <mpi-overhead>; iosys/: <io-server>, <io-forwarder>, <file-system>) and
// registered with a ModelReader by the run layer (run/model.hpp), one line each. A part
// writes into its own settings struct; Topology keeps only the graph and the placement.
//
// A part is a value registered explicitly, never by a static initialiser (a static library's
// unused object files, and their initialisers, are dropped by the linker).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pugixml.hpp>

#include "simulator/error.hpp"
#include "simulator/time.hpp"
#include "simulator/units.hpp"
#include "topologies/topology.hpp"

namespace clustersim::topo {

// "a, b, c": a list of element or attribute names, for the readers' errors.
template <class Names>
std::string join_names(const Names& names) {
    std::string s;
    for (std::string_view n : names) {
        if (!s.empty()) s += ", ";
        s += n;
    }
    return s;
}

// Whether `name` is one of `names`.
template <class Names>
bool has_name(const Names& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

// What every element reader needs: the file and line of an element, one-line errors in the
// model reader's wording, and the checked attribute parsers. Errors throw InputError(file,
// line of the element, what).
class ElementReader {
  public:
    using Attrs = std::initializer_list<std::string_view>;

    ElementReader(std::string_view text, const std::string& file);
    virtual ~ElementReader() = default;
    ElementReader(const ElementReader&) = delete;
    ElementReader& operator=(const ElementReader&) = delete;

    const std::string& file() const { return file_; }
    std::string_view text() const { return text_; }
    int line_at(std::ptrdiff_t offset) const;
    int line_of(pugi::xml_node n) const;
    [[noreturn]] void fail(pugi::xml_node n, const std::string& what) const {
        throw InputError(file_, line_of(n), what);
    }
    static std::string tag(pugi::xml_node n);

    // ---- structure -------------------------------------------------------------------
    // Only `allowed` attributes, none twice.
    void check_attributes(pugi::xml_node n, Attrs allowed) const;
    void check_attributes(pugi::xml_node n, const std::vector<std::string_view>& allowed) const;
    void check_unique_attributes(pugi::xml_node n) const;
    // An element that takes attributes only.
    void check_empty(pugi::xml_node n) const;

    // ---- attributes ------------------------------------------------------------------
    std::optional<std::string_view> optional(pugi::xml_node n, const char* name) const {
        const pugi::xml_attribute a = n.attribute(name);
        if (!a) return std::nullopt;
        return std::string_view(a.value());
    }
    std::string_view required(pugi::xml_node n, const char* name) const;
    // "yes" (true) or "no" (false); absent: nullopt; anything else is one line naming the
    // element and the attribute.
    std::optional<bool> yes_no(pugi::xml_node n, const char* name) const;
    // A name: non-empty, without '.', ',' or white space ('.' separates node and vertex).
    std::string name_attr(pugi::xml_node n, const char* attr) const {
        return checked_name(n, attr, required(n, attr));
    }
    std::string checked_name(pugi::xml_node n, const char* attr, std::string_view v) const;
    // `parse(v)`, its UnitError turned into "<el> attribute 'attr': what".
    template <class Parse>
    auto with_unit(pugi::xml_node n, const char* attr, std::string_view v, Parse parse) const {
        try {
            return parse(v);
        } catch (const UnitError& e) {
            fail(n, unit_error(n, attr, e.what()));
        }
    }
    Time time_attr(pugi::xml_node n, const char* attr) const {
        return with_unit(n, attr, required(n, attr), parse_time);
    }
    Bandwidth bandwidth_attr(pugi::xml_node n, const char* attr) const {
        return with_unit(n, attr, required(n, attr), parse_bandwidth);
    }
    Bandwidth optional_bandwidth(pugi::xml_node n, const char* attr) const {
        const auto v = optional(n, attr);
        return v ? with_unit(n, attr, *v, parse_bandwidth) : kInfiniteBandwidth;
    }
    // A bandwidth something divides by: finite and positive (a bare 0 and the words for
    // unlimited get their own message).
    Bandwidth finite_bandwidth(pugi::xml_node n, const char* attr, std::string_view v) const;
    // A count of at least 1 (`what` names one of them in the error).
    std::uint64_t count_attr(pugi::xml_node n, const char* attr, std::string_view v,
                             const char* what) const;
    std::uint64_t count_attr(pugi::xml_node n, const char* attr, const char* what) const {
        return count_attr(n, attr, required(n, attr), what);
    }
    // A count of at least 1 that fits 32 bits.
    std::uint32_t count32_attr(pugi::xml_node n, const char* attr, std::string_view v,
                               const char* what) const;
    // A size of at least 1 B (`what` names the quantity in the error).
    std::uint64_t positive_size(pugi::xml_node n, const char* attr, std::string_view v,
                                const char* what) const;
    // <point size=... bandwidth=.../> children of `n` (nothing else), sizes > 0 and strictly
    // rising; `parent` names `n` in the errors.
    std::vector<std::pair<std::uint64_t, Bandwidth>> read_points(pugi::xml_node n,
                                                                 const char* parent) const;

  private:
    static std::string unit_error(pugi::xml_node n, const char* attr, const char* what);

    std::string_view text_;
    const std::string& file_;
    std::vector<std::size_t> newlines_;
};

// A <node-type> as a part reading its children sees it.
struct NodeTypeInfo {
    std::string_view name;
    std::uint64_t cores = 0;  // over its sockets
    int line = 0;
};

// What a part's reader gets: the element helpers, and read-only access to what the core
// reader has read so far (node-types from ReadStage::AfterNodeTypes on, nodes at
// ReadStage::AfterGraph).
class PartContext : public ElementReader {
  public:
    using ElementReader::ElementReader;
    // The declared <node-type> names, in document order.
    virtual const std::vector<std::string>& node_type_names() const = 0;
    // The nodes built so far, in order (Topology::nodes).
    virtual const std::vector<NodeInfo>& nodes() const = 0;
    // The index of the node named `name`, or -1.
    virtual std::int32_t find_node(std::string_view name) const = 0;
};

// When a part's `read` runs, relative to the core reader's passes.
enum class ReadStage : std::uint8_t {
    WithNetwork,     // after <network>, before any <node-type>: settings naming nothing
    AfterNodeTypes,  // every <node-type> read: it may name node-types
    AfterGraph,      // every node, vertex and link built: it may name nodes
};

struct SchemaPart {
    std::string name;                   // "collectives", "comm-model", ...
    std::vector<std::string> elements;  // top-level elements it owns
    ReadStage stage = ReadStage::WithNetwork;
    // Reads its elements from <cluster>, once, whether or not any is present (empty for a
    // part that owns only <node-type> children).
    std::function<void(pugi::xml_node cluster, const PartContext&)> read;
    // Children of <node-type> it owns, and their reader: once per <node-type>, after the
    // type's vertices and links (may be empty).
    std::vector<std::string> node_type_elements;
    std::function<void(pugi::xml_node node_type, const NodeTypeInfo&, const PartContext&)>
        read_node_type;
};

// The model reader: the graph and placement, plus the registered parts. Without parts it
// reads a graph-only model; an element no part owns is "unknown element <x> in <cluster>"
// (the list of expected elements: the core's, then each part's in registration order).
class ModelReader {
  public:
    // Throws std::logic_error if the part has no name, no reader for what it owns, or one of
    // its elements is already owned by the core or another part.
    void add(SchemaPart part);
    const std::vector<SchemaPart>& parts() const { return parts_; }

    // Parses `xml`; `file_name` is used in error messages and as Topology::source.
    Topology parse(std::string_view xml, const std::string& file_name) const;
    // Reads and parses the file; an unreadable file is InputError(path, 0, "cannot read
    // file: ...").
    Topology load(const std::string& path) const;

  private:
    std::vector<SchemaPart> parts_;
};

// The elements the core reader owns: top level, and children of <node-type>.
const std::vector<std::string_view>& core_elements();
const std::vector<std::string_view>& core_node_type_elements();

}  // namespace clustersim::topo
