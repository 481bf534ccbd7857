#include "collectives/program.hpp"

namespace clustersim::mpi {

void MultiProgram::add(Program& program, std::uint32_t ranks) {
    const auto index = static_cast<std::uint32_t>(programs_.size());
    programs_.push_back(&program);
    sizes_.push_back(ranks);
    for (std::uint32_t i = 0; i < ranks; ++i) {
        owner_.push_back(index);
        local_.push_back(static_cast<std::int32_t>(i));
    }
}

ProgramProgress MultiProgram::progress() const {
    ProgramProgress sum;
    for (const Program* p : programs_) {
        const ProgramProgress one = p->progress();
        if (one.total == 0) return {};
        sum.done += one.done;
        sum.total += one.total;
    }
    return sum;
}

bool MultiProgram::next(std::int32_t rank, mpi::Op& op) {
    const auto r = static_cast<std::size_t>(rank);
    if (r >= owner_.size()) return false;
    return programs_[owner_[r]]->next(local_[r], op);
}

}  // namespace clustersim::mpi
