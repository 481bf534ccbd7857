#include "tools/progress.hpp"

#include <cmath>

#include <fmt/format.h>

#include "simulator/units.hpp"
#include "tools/cli_util.hpp"

namespace clustersim::cli {

ProgressLine::ProgressLine(ProgressMode mode, double interval_s, bool terminal, std::ostream& out,
                           std::string unit)
    : mode_(mode),
      interval_s_(interval_s),
      terminal_(terminal),
      out_(out),
      unit_(std::move(unit)),
      start_(std::chrono::steady_clock::now()),
      next_at_s_(mode == ProgressMode::Periodic ? interval_s : 1.0) {
    if (mode_ == ProgressMode::Auto && !terminal_) mode_ = ProgressMode::Quiet;
}

namespace {

std::string duration(double s) {
    if (s < 60) return fmt::format("{:.0f} s", std::ceil(s));
    if (s < 3600) return fmt::format("{:.0f} min {:02.0f} s", std::floor(s / 60), std::fmod(s, 60));
    return fmt::format("{:.0f} h {:02.0f} min", std::floor(s / 3600), std::fmod(s / 60, 60));
}

}  // namespace

std::string ProgressLine::format(double elapsed_s, std::uint64_t events, Time simulated,
                                 std::uint64_t done, std::uint64_t total, const std::string& unit,
                                 const NetworkProgress& network) {
    const double rate = elapsed_s > 0 ? static_cast<double>(events) / elapsed_s : 0.0;
    std::string head;
    if (total > 0) {
        const double f = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
        const std::string left =
            f > 0 && f < 1 ? fmt::format(", about {} left", duration(elapsed_s * (1 - f) / f))
                           : std::string();
        head = fmt::format("{:5.1f}% ({} of {} {}){}; ", 100.0 * f, with_commas(done),
                           with_commas(total), unit, left);
    }
    std::string net;
    if (network.messages_sent > 0)
        net = fmt::format(", {} of {} messages delivered ({})",
                          with_commas(network.messages_delivered),
                          with_commas(network.messages_sent), format_size(network.bytes_delivered));
    if (!network.work_unit.empty())
        net += fmt::format(", {} {}", with_commas(network.work), network.work_unit);
    return fmt::format("  progress  {}{} events ({:.2f} M events/s), simulated {}{}, {} wall", head,
                       with_commas(events), rate / 1e6, format_time(simulated), net,
                       duration(elapsed_s));
}

void ProgressLine::update(std::uint64_t events, Time simulated, std::uint64_t done,
                          std::uint64_t total, const NetworkProgress& network) {
    if (mode_ == ProgressMode::Quiet) return;
    last_.events = events, last_.simulated = simulated, last_.done = done, last_.total = total;
    last_.network = network;
    last_.work_unit = network.work_unit;
    last_.any = true;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed < next_at_s_) return;
    show(format(elapsed, events, simulated, done, total, unit_, network));
    if (mode_ == ProgressMode::Periodic)
        next_at_s_ = interval_s_ > 0 ? (std::floor(elapsed / interval_s_) + 1) * interval_s_ : 0;
    else
        next_at_s_ = elapsed + 1.0;
}

void ProgressLine::show(const std::string& line) {
    if (lines_ == 0) out_ << header_;
    if (mode_ == ProgressMode::Periodic) {
        out_ << line << "\n" << std::flush;
    } else {
        out_ << "\r" << line << "   " << std::flush;
        in_place_shown_ = true;
    }
    ++lines_;
}

void ProgressLine::finish() {
    if (lines_ > 0 && last_.any) {
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        NetworkProgress n = last_.network;
        n.work_unit = last_.work_unit;
        show(format(elapsed, last_.events, last_.simulated, last_.done, last_.total, unit_, n));
    }
    if (in_place_shown_) out_ << "\n" << std::flush;
    in_place_shown_ = false;
}

}  // namespace clustersim::cli
