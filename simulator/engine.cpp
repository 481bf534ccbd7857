#include "simulator/engine.hpp"

namespace clustersim {

std::uint64_t Engine::run(Time until) {
    stopped_ = false;
    const std::uint64_t start = processed_;
    while (!heap_.empty() && !stopped_) {
        const Event ev = heap_.top();
        if (ev.time > until) break;
        heap_.pop();
        assert(ev.time >= now_ && "time went backwards");
        now_ = ev.time;
        ++processed_;
        components_[ev.component]->handle(*this, ev);
    }
    return processed_ - start;
}

}  // namespace clustersim
