#include "collectives/collective.hpp"

#include <array>

namespace clustersim::mpi {

namespace {
constexpr std::array<const char*, kCollOps> kNames{
    "barrier",  "bcast",          "reduce",  "allreduce", "gather",     "scatter",  "allgather",
    "alltoall", "reduce_scatter", "gatherv", "scatterv",  "allgatherv", "alltoallv"};
}  // namespace

const char* to_string(CollOp op) {
    return kNames[static_cast<std::size_t>(op)];
}

bool parse_coll_op(const std::string& name, CollOp& op) {
    for (std::size_t i = 0; i < kNames.size(); ++i) {
        if (name == kNames[i]) {
            op = static_cast<CollOp>(i);
            return true;
        }
    }
    return false;
}

std::uint64_t CollArgs::blocks(std::int32_t first_relative, std::int32_t n) const {
    if (counts == nullptr) return bytes * static_cast<std::uint64_t>(n);
    std::uint64_t sum = 0;
    for (std::int32_t i = 0; i < n; ++i) sum += block(absolute(first_relative + i));
    return sum;
}

void CollectiveRegistry::add(CollOp op, std::string name, std::string help,
                             std::shared_ptr<const Algorithm> impl) {
    algorithms_.push_back(AlgorithmInfo{op, std::move(name), std::move(help), std::move(impl)});
}

const Algorithm* CollectiveRegistry::find(CollOp op, const std::string& name) const {
    for (const auto& a : algorithms_)
        if (a.op == op && a.name == name) return a.impl.get();
    return nullptr;
}

std::vector<std::string> CollectiveRegistry::names(CollOp op) const {
    std::vector<std::string> out;
    for (const auto& a : algorithms_)
        if (a.op == op) out.push_back(a.name);
    return out;
}

std::string CollectiveRegistry::names_list(CollOp op) const {
    std::string out;
    for (const auto& n : names(op)) out += (out.empty() ? "" : ", ") + n;
    return out;
}

std::uint32_t count_steps(const Algorithm& alg, const CollArgs& args) {
    Step s;
    std::uint32_t k = 0;
    while (true) {
        s.clear();
        if (!alg.step(args, k, s)) return k;
        ++k;
    }
}

}  // namespace clustersim::mpi
