// The native binary trace format (traces/README.md, "Native trace format"): the magic
// CSTRACE1, a varint header, then per rank its event count, byte length and the encoded
// record stream exactly as Trace holds it in memory.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "traces/reader.hpp"
#include "traces/text.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces {

namespace {

constexpr std::string_view kBinaryMagic = "CSTRACE1";

void put_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

void put_string(std::string& out, const std::string& s) {
    put_varint(out, s.size());
    out += s;
}

// Reads the file's bytes with errors that name the file, the byte offset and the part.
class BinaryInput {
  public:
    BinaryInput(const std::string& path, std::string data) : path_(path), data_(std::move(data)) {}

    void set_part(std::string part) { part_ = std::move(part); }
    std::size_t offset() const { return pos_; }
    std::size_t left() const { return data_.size() - pos_; }

    [[noreturn]] void truncated(std::uint64_t more) const {
        throw InputError(path_, 0,
                         fmt::format("truncated: expected {} more bytes at byte offset {} ({}); "
                                     "the file has {} bytes",
                                     more, pos_, part_, data_.size()));
    }
    [[noreturn]] void corrupt(const std::string& what) const {
        throw InputError(path_, 0,
                         fmt::format("corrupt: {} at byte offset {} ({})", what, pos_, part_));
    }

    std::uint64_t varint() {
        std::uint64_t v = 0;
        const std::size_t start = pos_;
        for (unsigned shift = 0;; shift += 7) {
            if (pos_ >= data_.size()) truncated(1);
            const auto b = static_cast<std::uint8_t>(data_[pos_++]);
            if (shift > 63 || (shift == 63 && (b & 0x7e) != 0)) {
                pos_ = start;
                corrupt("a varint that overflows 64 bits");
            }
            v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
            if (b < 0x80) return v;
        }
    }
    // A length or count: each of the `n` things takes at least `min_bytes` bytes.
    std::uint64_t count(std::uint64_t min_bytes) {
        const std::uint64_t n = varint();
        if (min_bytes != 0 && n > left() / min_bytes) truncated(n * min_bytes - left());
        return n;
    }
    std::string_view bytes(std::uint64_t n) {
        if (n > left()) truncated(n - left());
        const std::string_view s(data_.data() + pos_, n);
        pos_ += n;
        return s;
    }
    std::string string() { return std::string(bytes(count(1))); }

  private:
    const std::string& path_;
    std::string data_;
    std::size_t pos_ = 0;
    std::string part_ = "header";
};

class NativeBinaryReader final : public TraceReader {
  public:
    std::string name() const override { return "native_binary"; }
    std::string description() const override {
        return "clustersim's own binary trace (magic CSTRACE1)";
    }
    bool sniff(const std::string&, const std::string& head) const override {
        return head.substr(0, kBinaryMagic.size()) == kBinaryMagic;
    }
    Trace read(const std::string& path, const ReadOptions&, ReadReport&) const override {
        return read_binary(path);
    }
};

}  // namespace

std::string binary_header(const Trace& t) {
    std::string out(kBinaryMagic);
    put_string(out, t.name);
    put_varint(out, t.traced_speed);
    put_varint(out, t.strings.size());
    for (const auto& s : t.strings) put_string(out, s);
    put_varint(out, t.count_lists.size());
    for (const auto& list : t.count_lists) {
        put_varint(out, list.size());
        for (const auto c : list) put_varint(out, c);
    }
    put_varint(out, t.files.size());
    for (const auto& f : t.files) {
        put_string(out, f.name);
        put_varint(out, f.size);
        put_varint(out, f.stripe);
    }
    put_varint(out, t.ranks());
    return out;
}

std::string binary_rank_prefix(std::uint64_t events, std::uint64_t length) {
    std::string out;
    put_varint(out, events);
    put_varint(out, length);
    return out;
}

void write_binary(const Trace& t, const std::string& path) {
    std::string out = binary_header(t);
    for (std::uint32_t r = 0; r < t.ranks(); ++r) {
        const auto& s = t.stream(r);
        out += binary_rank_prefix(t.events(r), s.size());
        out.append(reinterpret_cast<const char*>(s.data()), s.size());
    }
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file) throw InputError(path, 0, fmt::format("cannot write: {}", std::strerror(errno)));
    file.write(out.data(), static_cast<std::streamsize>(out.size()));
    file.close();
    if (!file) throw InputError(path, 0, fmt::format("cannot write: {}", std::strerror(errno)));
}

Trace read_binary(const std::string& path) {
    std::string data = read_whole_file(path);
    if (data.substr(0, kBinaryMagic.size()) != kBinaryMagic) {
        std::string got;
        for (std::size_t i = 0; i < std::min(data.size(), kBinaryMagic.size()); ++i) {
            const auto c = static_cast<unsigned char>(data[i]);
            got += c >= 0x20 && c < 0x7f ? std::string(1, static_cast<char>(c))
                                         : fmt::format("\\x{:02x}", c);
        }
        throw InputError(path, 0,
                         fmt::format("not a native binary trace: expected the magic '{}' at byte "
                                     "offset 0, got '{}'",
                                     kBinaryMagic, got));
    }
    BinaryInput in(path, std::move(data));
    in.bytes(kBinaryMagic.size());
    Trace t;
    t.source = path;
    in.set_part("header: name");
    t.name = in.string();
    in.set_part("header: traced speed");
    t.traced_speed = in.varint();
    in.set_part("header: strings");
    const std::uint64_t strings = in.count(1);
    t.strings.reserve(strings);
    for (std::uint64_t i = 0; i < strings; ++i) t.strings.push_back(in.string());
    in.set_part("header: count lists");
    const std::uint64_t lists = in.count(1);
    t.count_lists.reserve(lists);
    for (std::uint64_t i = 0; i < lists; ++i) {
        const std::uint64_t n = in.count(1);
        std::vector<std::uint64_t> list;
        list.reserve(n);
        for (std::uint64_t k = 0; k < n; ++k) list.push_back(in.varint());
        t.count_lists.push_back(std::move(list));
    }
    in.set_part("header: files");
    const std::uint64_t files = in.count(3);
    for (std::uint64_t i = 0; i < files; ++i) {
        io::FileDecl f;
        f.name = in.string();
        f.size = in.varint();
        f.stripe = in.varint();
        t.files.push_back(std::move(f));
    }
    in.set_part("header: rank count");
    const std::uint64_t ranks = in.count(2);
    if (ranks > std::numeric_limits<std::uint32_t>::max())
        in.corrupt(fmt::format("{} ranks", ranks));
    t.resize(static_cast<std::uint32_t>(ranks));
    for (std::uint32_t r = 0; r < ranks; ++r) {
        in.set_part(fmt::format("rank {}", r));
        const std::uint64_t events = in.varint();
        const std::uint64_t length = in.varint();
        const std::string_view bytes = in.bytes(length);
        if (events > length) in.corrupt(fmt::format("{} events in {} bytes", events, length));
        // Decodes every record once, checking it and its references into the tables above.
        t.set_stream(r, std::vector<std::uint8_t>(bytes.begin(), bytes.end()), events, true);
    }
    if (in.left() != 0) {
        in.set_part("after the last rank");
        in.corrupt(fmt::format("{} unexpected trailing bytes", in.left()));
    }
    return t;
}

std::unique_ptr<TraceReader> make_native_binary_reader() {
    return std::make_unique<NativeBinaryReader>();
}

}  // namespace clustersim::traces
