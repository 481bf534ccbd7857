#include "simulator/spelling.hpp"

#include <mutex>
#include <ostream>
#include <set>
#include <utility>

namespace clustersim {
namespace {

struct Notes {
    std::mutex mutex;
    std::ostream* out = nullptr;
    std::set<std::pair<std::string, std::string>> told;
};
Notes& notes() {
    static Notes n;
    return n;
}

}  // namespace

void set_spelling_notes(std::ostream* out) {
    Notes& n = notes();
    const std::lock_guard lock(n.mutex);
    n.out = out;
}

void note_spelling(std::string_view given, std::string_view registered) {
    Notes& n = notes();
    const std::lock_guard lock(n.mutex);
    if (n.out == nullptr || !n.told.emplace(given, registered).second) return;
    *n.out << "clustersim: note: '" << given << "' is read as '" << registered
           << "', its registered spelling\n";
}

}  // namespace clustersim
