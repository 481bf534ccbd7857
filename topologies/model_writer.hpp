// The one writer of model XML files (topologies/README.md, "Model XML format"): `clustersim
// generate`, `clustersim import simgrid`, `clustersim import piosimhd` and
// `clustersim-calibrate` build a ModelDocument and render it; nothing else writes model XML
// by hand.
//
// A document is a tree of elements; every attribute value goes in through a typed setter, so
// a time, size, bandwidth or speed is always written in the one form below (exact: it parses
// back to the same integer), and every text is escaped. Rendering: one element per line,
// two spaces of indentation per level, attributes in the order they were set, `<x .../>`
// for an element without children.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "simulator/time.hpp"

namespace clustersim::topo {

// The forms every written model uses: simulator/units.hpp's canonical_* forms, except that a
// bandwidth that is not a whole number of MB/s or GiB/s is written in MiB/s or KiB/s when
// exact (PIOsimHD's 1024-based rates), else from 1 MB/s up as a decimal of MB/s
// ("3456.7MB/s"), and a time below whole ns from 1 ns up as a decimal of ns ("123.4ns").
// Each parses back to exactly the same integer.
std::string model_time(Time t);
std::string model_size(std::uint64_t bytes);
std::string model_bandwidth(Bandwidth bw);
std::string model_speed(std::uint64_t per_second);

// XML escaping: an attribute value (& < > " and control characters as character
// references), the text of a comment (no "--", no trailing '-') and of a processing
// instruction (no "?>").
std::string xml_attribute_text(std::string_view s);
std::string xml_comment_text(std::string_view s);
std::string xml_pi_text(std::string_view s);

class XmlElement {
  public:
    explicit XmlElement(std::string name) : name_(std::move(name)) {}

    const std::string& name() const { return name_; }
    // The value of an attribute as it will be written (unescaped), or nullptr.
    const std::string* attribute(std::string_view key) const;
    const std::vector<XmlElement>& children() const { return children_; }
    bool is_comment() const { return comment_; }

    // ---- attributes (in the order set; setting a key again replaces its value) ----
    XmlElement& text(std::string_view key, std::string_view value);
    XmlElement& count(std::string_view key, std::uint64_t n);
    XmlElement& time(std::string_view key, Time t);
    XmlElement& size(std::string_view key, std::uint64_t bytes);
    // A granularity-like size where 0 means "message" (the whole message).
    XmlElement& size_or_message(std::string_view key, std::uint64_t bytes);
    // Written as given (0, the unlimited Bandwidth{}, as "0GB/s", which the reader refuses);
    // bandwidth_if_limited leaves the attribute out for 0, where the element's default is
    // "unlimited".
    XmlElement& bandwidth(std::string_view key, Bandwidth bw);
    XmlElement& bandwidth_if_limited(std::string_view key, Bandwidth bw);
    XmlElement& speed(std::string_view key, std::uint64_t per_second);
    XmlElement& list(std::string_view key, const std::vector<std::uint64_t>& values);
    // "<prefix>-latency" and "<prefix>-bandwidth" (a generator's link, local, chassis and
    // global cables).
    XmlElement& link(std::string_view prefix, Time latency, Bandwidth bw);

    // ---- children (document order) ----
    XmlElement& add(std::string name);
    XmlElement& adopt(XmlElement element);
    void add_comment(std::string_view text);

    // ---- model elements (the attributes every one of them needs; add others after) ----
    XmlElement& add_network();
    XmlElement& add_node_type(std::string_view name, std::uint64_t memory);
    XmlElement& add_socket(std::string_view name, std::uint64_t cores, std::uint64_t speed);
    XmlElement& add_memory_node(std::string_view name);
    // Switches and NICs: `relay` infinite = unlimited (no bandwidth attribute).
    XmlElement& add_switch(std::string_view name, Bandwidth relay = Bandwidth{});
    XmlElement& add_nic(std::string_view name, Bandwidth relay = Bandwidth{});
    XmlElement& add_cable(std::string_view from, std::string_view to, Time latency, Bandwidth bw);
    XmlElement& add_edge(std::string_view from, std::string_view to, Time latency, Bandwidth bw);
    // `element` "cable" or "edge": add_cable or add_edge.
    XmlElement& add_link(std::string_view element, std::string_view from, std::string_view to,
                         Time latency, Bandwidth bw);
    XmlElement& add_node(std::string_view name, std::string_view type);
    XmlElement& add_jitter();
    // A generator block (<star>, <fat-tree>, <torus>, <dragonfly>): kind, type and prefix;
    // the shape and the link attributes follow.
    XmlElement& add_generator(std::string_view kind, std::string_view type,
                              std::string_view prefix);
    XmlElement& add_comm_model(std::string_view model);
    XmlElement& add_collectives();
    XmlElement& add_algorithm(std::string_view operation, std::string_view name);
    XmlElement& add_mpi_overhead();
    // A curve point: <point size=".." bandwidth=".."/> or <point size=".." time=".."/>.
    XmlElement& add_point(std::uint64_t bytes, Bandwidth bw);
    XmlElement& add_point(std::uint64_t bytes, Time t);
    XmlElement& add_io_server(std::string_view node);
    // <cache model=".."/> or <disk model=".."/> with parameters written as given (they are
    // the component's own text: iosys reads them by its registry).
    XmlElement& add_component(std::string_view kind, std::string_view model,
                              const std::vector<std::pair<std::string, std::string>>& params = {});
    XmlElement& add_file_system();

    void render(std::string& out, int depth) const;

  private:
    XmlElement& set(std::string_view key, std::string value);

    std::string name_;  // the comment's text for a comment
    bool comment_ = false;
    std::vector<std::pair<std::string, std::string>> attributes_;
    std::vector<XmlElement> children_;
};

// A model file: the XML declaration, comments and processing instructions before the root,
// and the <cluster name=".."> root.
class ModelDocument {
  public:
    explicit ModelDocument(std::string_view cluster_name);

    // `encoding` empty: <?xml version="1.0"?>.
    void set_encoding(std::string encoding) { encoding_ = std::move(encoding); }
    // Before the root, in order. A multi-line comment keeps its lines as given.
    void add_comment(std::string_view text);
    void add_processing_instruction(std::string_view target, std::string_view data);

    XmlElement& cluster() { return root_; }
    const XmlElement& cluster() const { return root_; }

    std::string str() const;

  private:
    std::string encoding_;
    std::vector<std::string> prolog_;  // rendered lines
    XmlElement root_;
};

}  // namespace clustersim::topo
