#include "tools/extrapolate_command.hpp"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "simulator/text.hpp"
#include "simulator/units.hpp"
#include "tools/run_command.hpp"
#include "tools/trace_commands.hpp"
#include "traces/extrapolate.hpp"
#include "traces/reader.hpp"

namespace clustersim::cli {
namespace {

// "a.cstrace@8" -> ("a.cstrace", 8); no '@' followed by digits only: (text, 0).
std::pair<std::string, std::uint32_t> split_scale(const std::string& text) {
    const std::size_t at = text.rfind('@');
    if (at == std::string::npos || at + 1 == text.size() ||
        text.find_first_not_of("0123456789", at + 1) != std::string::npos)
        return {text, 0};
    const std::string digits = text.substr(at + 1);
    if (digits.size() > 9 || std::stoul(digits) == 0)
        throw InputError(text, 0,
                         fmt::format("'@{}': expected the trace's rank count, 1 to {}", digits,
                                     traces::kMaxRanks));
    return {text.substr(0, at), static_cast<std::uint32_t>(std::stoul(digits))};
}

std::string laws_text(const traces::ParamFit& f) {
    std::string s;
    for (const auto& [name, n] : f.laws)
        s += fmt::format("{}{} {}", s.empty() ? "" : ", ", name, with_commas(n));
    return s.empty() ? "no other law" : s;
}

void print_report(const ExtrapolateFlags& f, const std::vector<traces::ExtrapolationInput>& in,
                  const traces::Extrapolation& x, const std::string& to) {
    std::vector<std::uint32_t> ps;
    for (const auto& i : in) ps.push_back(i.trace.ranks());
    std::sort(ps.begin(), ps.end());
    std::string scales, grids;
    for (std::size_t k = 0; k < ps.size(); ++k) scales += (k ? ", " : "") + std::to_string(ps[k]);
    for (const auto& g : x.input_grids) grids += (grids.empty() ? "" : ", ") + traces::grid_text(g);
    const std::string target = traces::grid_text(x.grid);
    std::cout << fmt::format(
        "extrapolated {} from {} traces ({} ranks) to {} ranks: {} ({}, {} "
        "records)\n",
        x.trace.name.empty() ? "the program" : x.trace.name, in.size(), scales, f.ranks, f.output,
        to, with_commas(x.trace.total_events()));
    std::string classes;
    for (const auto& [name, n] : x.classes)
        classes += fmt::format("{}{} ({} rank{})", classes.empty() ? "" : ", ", name,
                               with_commas(n), n == 1 ? "" : "s");
    std::cout << fmt::format("grid: {}-D, {} -> {}; rank classes {}: {}\n", x.dims, grids, target,
                             x.by_position ? "by grid position" : "none (every rank alike)",
                             classes);
    const auto line = [](const char* what, const traces::ParamFit& p, const std::string& tail) {
        std::cout << fmt::format("{:<8} {} fitted, {} constant; {}{}\n", what,
                                 with_commas(p.fitted), with_commas(p.constant), laws_text(p),
                                 tail);
    };
    line("counts:", x.counts,
         fmt::format("; residual rms {:.3g}, largest {:.3g}", x.counts.rms, x.counts.worst));
    line("sizes:", x.sizes,
         fmt::format("; residual rms {:.3g} B, largest {:.3g} B", x.sizes.rms, x.sizes.worst));
    line("peers:", x.peers, "; all exact");
    line("compute:", x.compute,
         x.compute.fitted == x.compute.constant
             ? std::string()
             : fmt::format("; relative residual rms {:.2f} %, largest {:.2f} % ({})",
                           100 * x.compute.rms, 100 * x.compute.worst, x.compute.worst_where));
    for (const std::string& n : x.notes) std::cout << "note: " << n << "\n";
}

int cmd_extrapolate(const ExtrapolateFlags& f) {
    const std::string to = merged_trace_format(f.output, f.to);  // --to checked first
    traces::check_trace_format(f.format);
    if (f.ranks == 0 || f.ranks > traces::kMaxRanks)
        throw InputError("--ranks", 0,
                         fmt::format("{}: expected 1 to {}", f.ranks, traces::kMaxRanks));
    if (f.dims < 0 || f.dims > 3)
        throw InputError("--dims", 0, fmt::format("{}: expected 1, 2 or 3", f.dims));
    check_output_file("--out", f.output);
    std::vector<traces::ExtrapolationInput> in;
    for (const std::string& arg : f.inputs) {
        const auto [path, scale] = split_scale(arg);
        traces::ReadReport report;
        traces::ExtrapolationInput x{traces::load_trace(path, f.format, {}, report), arg};
        if (scale != 0 && x.trace.ranks() != scale)
            throw InputError(arg, 0,
                             fmt::format("the trace has {} ranks, not {}", x.trace.ranks(), scale));
        if (scale == 0) x.label = fmt::format("{}@{}", path, x.trace.ranks());
        in.push_back(std::move(x));
    }
    traces::ExtrapolateOptions o;
    o.ranks = f.ranks;
    o.dims = f.dims;
    const traces::Extrapolation x = traces::extrapolate(in, o);
    if (to == "text")
        traces::write_text(x.trace, f.output);
    else
        traces::write_binary(x.trace, f.output);
    print_report(f, in, x, to);
    return 0;
}

}  // namespace

void add_extrapolate_command(CLI::App& app, ExtrapolateFlags& f) {
    auto* x = app.add_subcommand(
        "extrapolate",
        "Write a trace of an SPMD program at --ranks P from its traces at a few rank counts "
        "(counts, sizes, peers and compute fitted as laws of p)");
    x->add_option("TRACE", f.inputs,
                  "traces of one program at two or more rank counts, each TRACE or TRACE@P (P: "
                  "its rank count, checked)")
        ->required();
    x->add_option("--ranks", f.ranks, "the rank count of the trace to write")->required();
    x->add_option("-o,--out", f.output, "trace file to write")->required();
    x->add_option("--to", f.to, "text or binary (default: by the output's extension: .txt = text)");
    x->add_option("--format", f.format,
                  "format of the input traces: auto (default), native_text, native_binary, "
                  "simgrid_ti, hdtrace, otf2, dumpi, goal");
    x->add_option("--dims", f.dims,
                  "dimensions of the process grid (MPI_Dims_create's): 1, 2 or 3 (default: the "
                  "first of 1, 2, 3 that fits)");
    f.command = x;
}

bool run_extrapolate_command(const ExtrapolateFlags& f, int& code) {
    if (f.command == nullptr || !*f.command) return false;
    code = cmd_extrapolate(f);
    return true;
}

}  // namespace clustersim::cli
