#include "mpi/stats.hpp"

#include <cctype>
#include <mutex>
#include <set>

namespace clustersim::mpi {

const char* intern(const std::string& s) {
    static std::mutex lock;
    static std::set<std::string> strings;  // nodes never move: their c_str() stay valid
    const std::lock_guard<std::mutex> guard(lock);
    return strings.insert(s).first->c_str();
}

std::string stat_name(int kind) {
    if (kind < kOpKinds) return to_string(static_cast<OpKind>(kind));
    const bool nonblocking = kind >= kOpKinds + kCollOps;
    std::string name = to_string(static_cast<CollOp>((kind - kOpKinds) % kCollOps));
    name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
    return nonblocking
               ? "I" + std::string(1, static_cast<char>(std::tolower(name[0]))) + name.substr(1)
               : name;
}

int stat_kind(OpKind kind, CollOp coll, bool nonblocking) {
    if (kind != OpKind::Collective) return static_cast<int>(kind);
    return kOpKinds + (nonblocking ? kCollOps : 0) + static_cast<int>(coll);
}

void OpStatColumns::flush(std::vector<RankResult>& results) {
    for (int kind = 0; kind < kStatKinds; ++kind) {
        std::vector<OpStats>& column = columns_[static_cast<std::size_t>(kind)];
        for (std::size_t rank = 0; rank < column.size(); ++rank) {
            OpStats& from = column[rank];
            if (from.count == 0) continue;  // a table holds the kinds its rank used
            OpStats& to = results[rank].ops[kind];
            to.count += from.count;
            to.time += from.time;
            to.bytes += from.bytes;
            from = OpStats{};
        }
    }
}

}  // namespace clustersim::mpi
