#include "topologies/model_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "simulator/units.hpp"

namespace clustersim::topo {

namespace {

// value / divisor as an exact decimal without trailing zeros ("3456.7", "52.428801").
std::string exact_decimal(std::uint64_t value, std::uint64_t divisor) {
    std::string out = std::to_string(value / divisor);
    std::uint64_t rest = value % divisor;
    if (rest == 0) return out;
    out += '.';
    for (std::uint64_t d = divisor / 10; rest != 0 && d != 0; d /= 10) {
        out += static_cast<char>('0' + rest / d);
        rest %= d;
    }
    return out;
}

}  // namespace

std::string model_time(Time t) {
    // Beyond the canonical form: a time of whole picoseconds from 1 ns up in ns with a
    // fraction ("123.4ns" rather than "123400ps").
    const std::int64_t ps = t.ps();
    if (ps >= 1000 && ps % 1000 != 0)
        return exact_decimal(static_cast<std::uint64_t>(ps), 1000) + "ns";
    return canonical_time(t);
}

std::string model_size(std::uint64_t bytes) {
    return canonical_size(bytes);
}

std::string model_bandwidth(Bandwidth bw) {
    const std::uint64_t b = bw.bytes_per_s;
    if (b % 1'000'000 == 0 || b % (1ULL << 30) == 0) return canonical_bandwidth(bw);
    if (b % (1ULL << 20) == 0) return fmt::format("{}MiB/s", b >> 20);
    if (b % (1ULL << 10) == 0) return fmt::format("{}KiB/s", b >> 10);
    if (b >= 1'000'000) return exact_decimal(b, 1'000'000) + "MB/s";
    return canonical_bandwidth(bw);
}

std::string model_speed(std::uint64_t per_second) {
    return canonical_speed(per_second);
}

std::string xml_attribute_text(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20)
                    out += fmt::format("&#{};", static_cast<int>(c));
                else
                    out += c;
        }
    }
    return out;
}

std::string xml_comment_text(std::string_view s) {
    std::string out(s);
    for (std::size_t p; (p = out.find("--")) != std::string::npos;) out.replace(p, 2, "- -");
    if (!out.empty() && out.back() == '-') out += ' ';
    return out;
}

std::string xml_pi_text(std::string_view s) {
    std::string out(s);
    for (std::size_t p; (p = out.find("?>")) != std::string::npos;) out.insert(p + 1, " ");
    return out;
}

// ---- XmlElement ------------------------------------------------------------------------------

const std::string* XmlElement::attribute(std::string_view key) const {
    for (const auto& [k, v] : attributes_)
        if (k == key) return &v;
    return nullptr;
}

XmlElement& XmlElement::set(std::string_view key, std::string value) {
    for (auto& [k, v] : attributes_) {
        if (k == key) {
            v = std::move(value);
            return *this;
        }
    }
    attributes_.emplace_back(std::string(key), std::move(value));
    return *this;
}

XmlElement& XmlElement::text(std::string_view key, std::string_view value) {
    return set(key, std::string(value));
}
XmlElement& XmlElement::count(std::string_view key, std::uint64_t n) {
    return set(key, std::to_string(n));
}
XmlElement& XmlElement::time(std::string_view key, Time t) {
    return set(key, model_time(t));
}
XmlElement& XmlElement::size(std::string_view key, std::uint64_t bytes) {
    return set(key, model_size(bytes));
}
XmlElement& XmlElement::size_or_message(std::string_view key, std::uint64_t bytes) {
    return set(key, bytes == 0 ? std::string("message") : model_size(bytes));
}
XmlElement& XmlElement::bandwidth(std::string_view key, Bandwidth bw) {
    return set(key, model_bandwidth(bw));
}
XmlElement& XmlElement::bandwidth_if_limited(std::string_view key, Bandwidth bw) {
    return bw.infinite() ? *this : bandwidth(key, bw);
}
XmlElement& XmlElement::speed(std::string_view key, std::uint64_t per_second) {
    return set(key, model_speed(per_second));
}
XmlElement& XmlElement::list(std::string_view key, const std::vector<std::uint64_t>& values) {
    return set(key, fmt::format("{}", fmt::join(values, ",")));
}
XmlElement& XmlElement::link(std::string_view prefix, Time latency, Bandwidth bw) {
    time(fmt::format("{}-latency", prefix), latency);
    return bandwidth(fmt::format("{}-bandwidth", prefix), bw);
}

XmlElement& XmlElement::add(std::string name) {
    return children_.emplace_back(std::move(name));
}
XmlElement& XmlElement::adopt(XmlElement element) {
    return children_.emplace_back(std::move(element));
}
void XmlElement::add_comment(std::string_view text) {
    children_.emplace_back(std::string(text)).comment_ = true;
}

XmlElement& XmlElement::add_network() {
    return add("network");
}
XmlElement& XmlElement::add_node_type(std::string_view name, std::uint64_t memory) {
    return add("node-type").text("name", name).size("memory", memory);
}
XmlElement& XmlElement::add_socket(std::string_view name, std::uint64_t cores,
                                   std::uint64_t speed_per_core) {
    return add("socket").text("name", name).count("cores", cores).speed("speed", speed_per_core);
}
XmlElement& XmlElement::add_memory_node(std::string_view name) {
    return add("memory-node").text("name", name);
}
XmlElement& XmlElement::add_switch(std::string_view name, Bandwidth relay) {
    return add("switch").text("name", name).bandwidth_if_limited("bandwidth", relay);
}
XmlElement& XmlElement::add_nic(std::string_view name, Bandwidth relay) {
    return add("nic").text("name", name).bandwidth_if_limited("bandwidth", relay);
}
XmlElement& XmlElement::add_link(std::string_view element, std::string_view from,
                                 std::string_view to, Time latency, Bandwidth bw) {
    return add(std::string(element))
        .text("from", from)
        .text("to", to)
        .time("latency", latency)
        .bandwidth("bandwidth", bw);
}
XmlElement& XmlElement::add_cable(std::string_view from, std::string_view to, Time latency,
                                  Bandwidth bw) {
    return add_link("cable", from, to, latency, bw);
}
XmlElement& XmlElement::add_edge(std::string_view from, std::string_view to, Time latency,
                                 Bandwidth bw) {
    return add_link("edge", from, to, latency, bw);
}
XmlElement& XmlElement::add_node(std::string_view name, std::string_view type) {
    return add("node").text("name", name).text("type", type);
}
XmlElement& XmlElement::add_jitter() {
    return add("jitter");
}
XmlElement& XmlElement::add_generator(std::string_view kind, std::string_view type,
                                      std::string_view prefix) {
    return add(std::string(kind)).text("type", type).text("prefix", prefix);
}
XmlElement& XmlElement::add_comm_model(std::string_view model) {
    return add("comm-model").text("model", model);
}
XmlElement& XmlElement::add_collectives() {
    return add("collectives");
}
XmlElement& XmlElement::add_algorithm(std::string_view operation, std::string_view name) {
    return add("algorithm").text("operation", operation).text("name", name);
}
XmlElement& XmlElement::add_mpi_overhead() {
    return add("mpi-overhead");
}
XmlElement& XmlElement::add_point(std::uint64_t bytes, Bandwidth bw) {
    return add("point").size("size", bytes).bandwidth("bandwidth", bw);
}
XmlElement& XmlElement::add_point(std::uint64_t bytes, Time t) {
    return add("point").size("size", bytes).time("time", t);
}
XmlElement& XmlElement::add_io_server(std::string_view node) {
    return add("io-server").text("node", node);
}
XmlElement& XmlElement::add_component(
    std::string_view kind, std::string_view model,
    const std::vector<std::pair<std::string, std::string>>& params) {
    XmlElement& e = add(std::string(kind)).text("model", model);
    for (const auto& [k, v] : params) e.text(k, v);
    return e;
}
XmlElement& XmlElement::add_file_system() {
    return add("file-system");
}

void XmlElement::render(std::string& out, int depth) const {
    const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
    if (comment_) {
        out += indent + "<!-- " + xml_comment_text(name_) + " -->\n";
        return;
    }
    out += indent + "<" + name_;
    for (const auto& [k, v] : attributes_) out += " " + k + "=\"" + xml_attribute_text(v) + "\"";
    if (children_.empty()) {
        out += "/>\n";
        return;
    }
    out += ">\n";
    for (const XmlElement& c : children_) c.render(out, depth + 1);
    out += indent + "</" + name_ + ">\n";
}

// ---- ModelDocument ---------------------------------------------------------------------------

ModelDocument::ModelDocument(std::string_view cluster_name) : root_("cluster") {
    root_.text("name", cluster_name);
}

void ModelDocument::add_comment(std::string_view text) {
    prolog_.push_back("<!-- " + xml_comment_text(text) + " -->\n");
}

void ModelDocument::add_processing_instruction(std::string_view target, std::string_view data) {
    prolog_.push_back(fmt::format("<?{} {}?>\n", target, xml_pi_text(data)));
}

std::string ModelDocument::str() const {
    std::string out = encoding_.empty()
                          ? std::string("<?xml version=\"1.0\"?>\n")
                          : fmt::format("<?xml version=\"1.0\" encoding=\"{}\"?>\n", encoding_);
    for (const std::string& p : prolog_) out += p;
    root_.render(out, 0);
    return out;
}

}  // namespace clustersim::topo
