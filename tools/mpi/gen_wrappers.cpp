// gen_wrappers: writes the tracer's PMPI wrappers (tracer.cpp includes the output) from one
// table, tools/mpi/wrappers.def, so each wrapped MPI call is written once: its C signature and
// what it records. A CMake step runs it at build time (tools/mpi/CMakeLists.txt).
//
//   gen_wrappers TABLE OUTPUT
//
// The table, one entry per wrapped call, entries separated by blank lines:
//   # text                   a comment (copied into the output as // text)
//   MPI_Name(params)         the signature as in mpi.h (it may go on over several lines
//                            until its parentheses close); each parameter ends in its name.
//                            Several signatures in a row share the lines that follow (calls
//                            recorded alike: MPI_Send, MPI_Ssend, ...)
//     < statement            (2 spaces, '<') runs before the call, outside its interval
//     = arguments            (2 spaces, '=') the arguments passed to PMPI_Name, if not
//                            the parameters in order (a local status, say)
//       statement            (4 spaces) records the call; it sees the parameters, `call`
//                            (the call's index in rankfile::kCallNames), `s` (the start, ns)
//                            and `rc` (what PMPI_Name returned)
// Each generated wrapper: when not recording (before MPI_Init, inside another wrapped call)
// it is PMPI_Name itself; otherwise it marks the nesting, runs the `<` lines, times PMPI_Name
// and runs the record lines. After the wrappers comes kGeneratedRedirects: each wrapper
// under the PMPI name that MPI's Fortran bindings call (tools/mpi/bindings.hpp). A malformed
// table is one line `TABLE:LINE: reason`, exit 2.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Entry {
    int line = 0;
    std::vector<std::string> comments;
    std::string name, params, args, call_args;
    std::vector<std::string> before, record;
};

[[noreturn]] void fail(const std::string& file, int line, const std::string& why) {
    std::cerr << file << ':' << line << ": " << why << '\n';
    std::exit(2);
}

std::string trim(const std::string& s) {
    std::size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

// The names of a parameter list ("const int counts[], MPI_Comm comm" -> "counts, comm").
std::string names_of(const std::string& params, const std::string& file, int line) {
    std::string out;
    std::stringstream in(params);
    std::string p;
    while (std::getline(in, p, ',')) {
        p = trim(p);
        if (p.size() >= 2 && p.compare(p.size() - 2, 2, "[]") == 0)
            p = trim(p.substr(0, p.size() - 2));
        std::size_t e = p.size();
        std::size_t b = e;
        while (b > 0 && (std::isalnum(static_cast<unsigned char>(p[b - 1])) || p[b - 1] == '_'))
            --b;
        if (b == e || b == 0) fail(file, line, "parameter '" + p + "' has no type and name");
        out += (out.empty() ? "" : ", ") + p.substr(b);
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: gen_wrappers TABLE OUTPUT\n";
        return 2;
    }
    const std::string file = argv[1];
    std::ifstream in(file);
    if (!in) fail(file, 0, "cannot be read");
    std::vector<Entry> entries;
    std::vector<std::string> pending;  // comments before the next entry
    std::set<std::string> names;
    Entry* cur = nullptr;
    std::size_t group_start = 0;  // the first entry of the signatures that share lines
    std::string sig;              // a signature still open
    int sig_line = 0;
    // The signatures of a group take the lines written after the last of them.
    auto end_group = [&entries](std::size_t first) {
        if (entries.empty() || first >= entries.size()) return;
        const Entry& last = entries.back();
        for (std::size_t i = first; i + 1 < entries.size(); ++i) {
            entries[i].before = last.before;
            entries[i].record = last.record;
            if (!last.call_args.empty()) entries[i].call_args = last.call_args;
        }
    };
    std::string text;
    for (int n = 1; std::getline(in, text); ++n) {
        if (!sig.empty()) {
            sig += ' ' + trim(text);
        } else if (trim(text).empty()) {
            end_group(group_start);
            cur = nullptr;
            continue;
        } else if (text[0] == '#') {
            if (cur != nullptr)
                fail(file, n, "a comment inside an entry (end it with a blank line)");
            pending.push_back(trim(text.substr(1)));
            continue;
        } else if (text.rfind("MPI_", 0) == 0) {
            if (cur != nullptr &&
                (!cur->record.empty() || !cur->before.empty() || !cur->call_args.empty()))
                fail(file, n, "a new signature inside an entry (end it with a blank line)");
            if (cur == nullptr) group_start = entries.size();
            sig = trim(text);
            sig_line = n;
        } else if (cur == nullptr) {
            fail(file, n, "expected a signature (MPI_Name(...)), a comment or a blank line");
        } else if (text.rfind("    ", 0) == 0) {
            cur->record.push_back(text.substr(4));
            continue;
        } else if (text.rfind("  < ", 0) == 0) {
            if (!cur->record.empty()) fail(file, n, "a '<' line after the record lines");
            cur->before.push_back(text.substr(4));
            continue;
        } else if (text.rfind("  = ", 0) == 0) {
            if (!cur->call_args.empty()) fail(file, n, "a second '=' line");
            cur->call_args = trim(text.substr(4));
            continue;
        } else {
            fail(file, n, "expected '  < ', '  = ' or a 4-space indented record line");
        }
        // A signature: complete once its parentheses close.
        int depth = 0;
        for (char c : sig) depth += c == '(' ? 1 : c == ')' ? -1 : 0;
        if (depth > 0) continue;
        const std::size_t open = sig.find('(');
        if (depth < 0 || open == std::string::npos || sig.back() != ')')
            fail(file, sig_line, "a signature must be MPI_Name(parameters)");
        entries.emplace_back();
        cur = &entries.back();
        cur->line = sig_line;
        cur->comments.swap(pending);
        cur->name = trim(sig.substr(0, open));
        cur->params = trim(sig.substr(open + 1, sig.size() - open - 2));
        for (char c : cur->name)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
                fail(file, sig_line, "'" + cur->name + "' is not a function name");
        if (entries.size() - 1 > group_start) cur->comments.clear();
        if (!names.insert(cur->name).second) fail(file, sig_line, cur->name + " is wrapped twice");
        cur->args = cur->params.empty() ? "" : names_of(cur->params, file, sig_line);
        sig.clear();
    }
    if (!sig.empty()) fail(file, sig_line, "the signature's parentheses never close");
    end_group(group_start);
    for (const Entry& e : entries)
        if (e.record.empty()) fail(file, e.line, e.name + " records nothing (no 4-space lines)");

    std::ostringstream o;
    o << "// Generated by gen_wrappers from " << file << ": do not edit.\n";
    for (const Entry& e : entries) {
        o << '\n';
        for (const std::string& c : e.comments) o << "// " << c << '\n';
        const std::string& call_args = e.call_args.empty() ? e.args : e.call_args;
        o << "int " << e.name << '(' << e.params << ") {\n"
          << "    if (!g.recording()) return P" << e.name << '(' << e.args << ");\n"
          << "    const Nest nest;\n"
          << "    constexpr std::uint16_t call = idx(\"" << e.name << "\");\n";
        for (const std::string& l : e.before) o << "    " << l << '\n';
        o << "    const std::int64_t s = g.now();\n"
          << "    const int rc = P" << e.name << '(' << call_args << ");\n";
        for (const std::string& l : e.record) o << "    " << l << '\n';
        o << "    return rc;\n}\n";
    }
    // Each wrapper under the PMPI name a language binding calls (tracer.cpp hands this to
    // redirect_bindings, tools/mpi/bindings.hpp).
    o << "\n// What a binding library's calls to PMPI_Name reach instead: the wrapper above.\n"
      << "const clustersim::tracer::Redirect kGeneratedRedirects[] = {\n";
    for (const Entry& e : entries)
        o << "    {\"P" << e.name << "\", reinterpret_cast<void*>(&" << e.name << ")},\n";
    o << "};\n";
    // Written only when it changed, so an unchanged table rebuilds nothing.
    const std::string out = argv[2];
    std::ifstream old(out);
    std::stringstream have;
    have << old.rdbuf();
    if (old && have.str() == o.str()) return 0;
    std::ofstream w(out);
    w << o.str();
    if (!w) fail(out, 0, "cannot be written");
    std::cout << "gen_wrappers: " << entries.size() << " wrappers\n";
    return 0;
}
