// Names shared by the OTF2 reader and writer (and the DUMPI reader's collective names).
#include "traces/otf2_common.hpp"

#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace clustersim::traces {

bool coll_from_mpi_name(const std::string& mpi_name, mpi::CollOp& op, bool& nonblocking) {
    if (mpi_name.size() < 5 || mpi_name.compare(0, 4, "MPI_") != 0) return false;
    std::string n = mpi_name.substr(4);
    for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (mpi::parse_coll_op(n, op)) {
        nonblocking = false;
        return true;
    }
    if (n.size() > 1 && n[0] == 'i' && mpi::parse_coll_op(n.substr(1), op)) {
        nonblocking = true;
        return true;
    }
    return false;
}

std::string mpi_name_of_coll(mpi::CollOp op, bool nonblocking) {
    std::string n = mpi::to_string(op);
    n[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(n[0])));
    return std::string(nonblocking ? "MPI_I" : "MPI_") +
           (nonblocking ? std::string(mpi::to_string(op)) : n);
}

std::string format_counts_attr(const std::vector<std::uint64_t>& counts) {
    std::string s;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (i > 0) s += ',';
        s += std::to_string(counts[i]);
    }
    return s;
}

std::vector<std::uint64_t> parse_counts_attr(const std::string& text) {
    std::vector<std::uint64_t> out;
    const char* p = text.data();
    const char* end = p + text.size();
    while (p < end) {
        std::uint64_t v = 0;
        auto [q, ec] = std::from_chars(p, end, v);
        if (ec != std::errc()) break;
        out.push_back(v);
        p = q;
        if (p < end && *p == ',') ++p;
    }
    return out;
}

std::string join_property_lines(const std::vector<std::string>& lines) {
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (i > 0) out += '\n';
        for (char c : lines[i]) {
            if (c == '\\')
                out += "\\\\";
            else if (c == '\n')
                out += "\\n";
            else
                out += c;
        }
    }
    return out;
}

std::vector<std::string> split_property_lines(const std::string& value) {
    std::vector<std::string> out(1);
    for (std::size_t i = 0; i < value.size(); ++i) {
        const char c = value[i];
        if (c == '\n') {
            out.emplace_back();
        } else if (c == '\\' && i + 1 < value.size()) {
            out.back() += value[i + 1] == 'n' ? '\n' : value[i + 1];
            ++i;
        } else {
            out.back() += c;
        }
    }
    if (value.empty()) out.clear();
    return out;
}

}  // namespace clustersim::traces
