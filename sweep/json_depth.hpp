// How deep a JSON text nests, found by a SAX pass that builds no document (issue 53): a sweep
// file, a results line or a journal nested 200,000 deep was parsed into a document whose
// recursive walks (copy, dump, destruction of deep values) overflowed the stack (a
// segmentation fault in `sweep plot`). Every reader of input JSON parses through
// parse_json_input(), which runs that pass first and refuses the text at the line where it
// goes past kMaxJsonDepth; sweep files, records and measurements nest a few levels.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "simulator/error.hpp"

namespace clustersim::sweep {

// Deeper than this is refused: the project's JSON files nest at most about 6 levels.
inline constexpr std::size_t kMaxJsonDepth = 256;

namespace detail {
// Counts nesting; gives up (false) past the limit or at a syntax error (the parser that
// follows reports that in its own words).
class DepthSax final : public nlohmann::json_sax<nlohmann::json> {
  public:
    explicit DepthSax(std::size_t limit) : limit_(limit) {}
    bool too_deep() const { return too_deep_; }
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return enter(); }
    bool key(string_t&) override { return true; }
    bool end_object() override { return leave(); }
    bool start_array(std::size_t) override { return enter(); }
    bool end_array() override { return leave(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        return false;
    }

  private:
    bool enter() {
        if (++depth_ > limit_) too_deep_ = true;
        return !too_deep_;
    }
    bool leave() {
        --depth_;
        return true;
    }
    std::size_t limit_, depth_ = 0;
    bool too_deep_ = false;
};
}  // namespace detail

// True when `text` nests objects and arrays deeper than `limit` (no document is built).
inline bool json_too_deep(std::string_view text, std::size_t limit = kMaxJsonDepth) {
    detail::DepthSax sax(limit);
    (void)nlohmann::json::sax_parse(text.begin(), text.end(), &sax,
                                    nlohmann::json::input_format_t::json, false);
    return sax.too_deep();
}

// The message of the refusal (the caller names the file and line).
inline std::string json_depth_message(std::size_t limit = kMaxJsonDepth) {
    return "JSON nested more than " + std::to_string(limit) +
           " levels deep (this file's JSON nests a few levels; refused before it is read)";
}

// The line (from 1) of the bracket at which `text` first nests deeper than `limit`, 0 if it
// never does. A scan of brackets outside strings: asked only once the SAX pass has found the
// text too deep, so the text is JSON up to that bracket and the scan counts as the parser does.
inline int json_too_deep_line(std::string_view text, std::size_t limit = kMaxJsonDepth) {
    std::size_t depth = 0;
    int line = 1;
    bool in_string = false, escaped = false;
    for (const char ch : text) {
        if (ch == '\n') ++line;
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (ch == '\\')
                escaped = true;
            else if (ch == '"')
                in_string = false;
        } else if (ch == '"') {
            in_string = true;
        } else if (ch == '[' || ch == '{') {
            if (++depth > limit) return line;
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            --depth;
        }
    }
    return 0;
}

// Refuses `text`, read from `file` starting at line `first_line`, if it nests deeper than
// kMaxJsonDepth: InputError "FILE:LINE: JSON nested more than 256 levels deep (...)" at the
// line of the bracket that goes past the limit. No document is built.
inline void check_json_depth(std::string_view text, const std::string& file, int first_line = 1) {
    if (!json_too_deep(text)) return;
    const int line = json_too_deep_line(text);
    throw InputError(file, line > 0 ? first_line + line - 1 : first_line, json_depth_message());
}

// The one way input JSON becomes a document: check_json_depth, then `Json::parse`, whose
// exceptions (a syntax error, a number out of range) the caller reports in its own words.
template <class Json = nlohmann::json>
Json parse_json_input(std::string_view text, const std::string& file, int first_line = 1) {
    check_json_depth(text, file, first_line);
    return Json::parse(text.begin(), text.end());
}

}  // namespace clustersim::sweep
