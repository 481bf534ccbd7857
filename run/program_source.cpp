#include "run/program_source.hpp"

#include <fmt/format.h>

#include "iosys/ior.hpp"
#include "simulator/error.hpp"

namespace clustersim::run {

void ProgramSources::add(std::string prefix, std::unique_ptr<ProgramSource> source) {
    if (prefix.empty()) throw std::invalid_argument("ProgramSources::add: empty prefix");
    for (const auto& [p, s] : by_prefix_)
        if (p == prefix)
            throw std::invalid_argument(
                fmt::format("ProgramSources::add: '{}' is registered twice", prefix));
    by_prefix_.emplace_back(std::move(prefix), std::move(source));
}

void ProgramSources::set_default(std::unique_ptr<ProgramSource> source) {
    default_ = std::move(source);
}

const ProgramSource& ProgramSources::source_for(std::string_view spec) const {
    for (const auto& [prefix, source] : by_prefix_)
        if (spec.starts_with(prefix)) return *source;
    if (default_ == nullptr)
        throw InputError("--app", 0, fmt::format("'{}': no program source reads it", spec));
    return *default_;
}

std::vector<std::pair<std::string_view, const ProgramSource*>> ProgramSources::all() const {
    std::vector<std::pair<std::string_view, const ProgramSource*>> out;
    for (const auto& [prefix, source] : by_prefix_) out.emplace_back(prefix, source.get());
    if (default_) out.emplace_back("", default_.get());
    return out;
}

namespace {

class LoadedApp final : public LoadedProgram {
  public:
    LoadedApp(std::string spec, std::unique_ptr<mpi::App> app, std::uint32_t ranks)
        : spec_(std::move(spec)), app_(std::move(app)), ranks_(ranks) {}
    std::uint32_t ranks() const override { return ranks_; }
    std::vector<io::FileDecl> files() const override {
        if (const auto* io_app = dynamic_cast<const io::IoApp*>(app_.get())) return io_app->files();
        return {};
    }
    mpi::Program& bind(std::vector<std::uint64_t> core_speeds) override {
        app_->set_core_speeds(core_speeds);
        return *app_;
    }
    std::string name() const override { return spec_; }
    std::string describe() const override { return spec_; }
    std::vector<mpi::AppResult> summarize(Time simulated,
                                          const std::vector<Time>& finish) const override {
        return app_->summarize_ranks(simulated, finish);
    }

  private:
    std::string spec_;
    std::unique_ptr<mpi::App> app_;
    std::uint32_t ranks_;
};

}  // namespace

std::unique_ptr<LoadedProgram> AppSource::load(const std::string& spec, std::uint32_t ranks,
                                               const SourceOptions& options) const {
    (void)options;
    return std::make_unique<LoadedApp>(spec, registry_.create(spec, ranks), ranks);
}

void add_app_source(Sources& sources) {
    io::add_io_apps();
    sources.programs.set_default(std::make_unique<AppSource>(mpi::registered_apps()));
}

}  // namespace clustersim::run
