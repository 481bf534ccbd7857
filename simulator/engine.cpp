#include "simulator/engine.hpp"

namespace clustersim {

std::uint64_t Engine::run(Time until, std::uint64_t max_events) {
    stopped_ = false;
    const std::uint64_t start = processed_;
    const std::uint64_t last = max_events > UINT64_MAX - start ? UINT64_MAX : start + max_events;
    while (!heap_.empty() && !stopped_ && processed_ < last) {
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
