// The check that a model file is exactly the model writer's rendering
// (topologies/model_writer.hpp): parse it, rebuild every element, comment and processing
// instruction through ModelDocument / XmlElement, render, compare with the text.
#pragma once

#include <string>
#include <string_view>

#include <pugixml.hpp>

#include "topologies/model_writer.hpp"

namespace clustersim::testing {

inline void copy_children(pugi::xml_node from, topo::XmlElement& to) {
    for (pugi::xml_node c = from.first_child(); c; c = c.next_sibling()) {
        if (c.type() == pugi::node_comment) {
            std::string_view text = c.value();
            // The writer frames a comment with one space each side.
            if (text.size() >= 2) text = text.substr(1, text.size() - 2);
            to.add_comment(text);
        } else if (c.type() == pugi::node_element) {
            topo::XmlElement& e = to.add(c.name());
            for (pugi::xml_attribute a = c.first_attribute(); a; a = a.next_attribute())
                e.text(a.name(), a.value());
            copy_children(c, e);
        }
    }
}

// The writer's rendering of `xml`'s content; equal to `xml` if the writer wrote it.
inline std::string rewritten(const std::string& xml) {
    pugi::xml_document doc;
    const unsigned flags =
        pugi::parse_default | pugi::parse_comments | pugi::parse_pi | pugi::parse_declaration;
    if (!doc.load_string(xml.c_str(), flags)) return "(not XML)";
    const pugi::xml_node root = doc.document_element();
    topo::ModelDocument out(root.attribute("name").value());
    for (pugi::xml_node c = doc.first_child(); c && c != root; c = c.next_sibling()) {
        if (c.type() == pugi::node_declaration && c.attribute("encoding"))
            out.set_encoding(c.attribute("encoding").value());
        if (c.type() == pugi::node_comment) {
            std::string_view text = c.value();
            if (text.size() >= 2) text = text.substr(1, text.size() - 2);
            out.add_comment(text);
        }
        if (c.type() == pugi::node_pi) out.add_processing_instruction(c.name(), c.value());
    }
    for (pugi::xml_attribute a = root.first_attribute(); a; a = a.next_attribute())
        out.cluster().text(a.name(), a.value());
    copy_children(root, out.cluster());
    return out.str();
}

}  // namespace clustersim::testing
