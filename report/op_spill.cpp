#include "report/op_spill.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "simulator/error.hpp"

namespace clustersim::traces {

namespace {

constexpr std::size_t kWindowOps = 2048;  // 128 KiB per run when reading back

bool before(const OpSpill::Packed& a, const OpSpill::Packed& b) {
    return std::tie(a.rank, a.start, a.end, a.index) < std::tie(b.rank, b.start, b.end, b.index);
}

}  // namespace

OpSpill::OpSpill(std::string path) : path_(std::move(path)) {
    out_.open(path_, std::ios::binary | std::ios::trunc);
    if (!out_) throw InputError(path_, 0, fmt::format("cannot write: {}", std::strerror(errno)));
    run_.reserve(kRunOps);
}

OpSpill::~OpSpill() {
    out_.close();
    in_.close();
    std::error_code ec;
    std::filesystem::remove(path_, ec);
}

void OpSpill::add(const mpi::OpEvent& e) {
    Packed p;
    p.start = e.start.ps();
    p.end = e.end.ps();
    const std::int64_t dur = std::max<std::int64_t>(p.end - p.start, 0);
    p.wait = std::clamp<std::int64_t>(e.wait.ps(), 0, dur);
    p.bytes = e.bytes;
    p.index = ops_++;
    p.rank = e.rank;
    p.kind = e.kind;
    p.peer = e.peer;
    p.comm = e.comm;
    p.seq = e.seq;
    if (e.algorithm != nullptr) {
        auto it = std::find(algorithms_.begin(), algorithms_.end(), e.algorithm);
        if (it == algorithms_.end()) it = algorithms_.insert(it, e.algorithm);
        p.algorithm = static_cast<std::uint32_t>(it - algorithms_.begin()) + 1;
    }
    if (e.rank >= 0) ranks_ = std::max(ranks_, static_cast<std::size_t>(e.rank) + 1);
    if (!is_grouped_kind(e.kind)) {
        settle(p);
        return;
    }
    const auto key = std::tuple(e.comm, e.seq, e.kind);
    auto [it, fresh] = open_.try_emplace(key);
    Group& g = it->second;
    g.latest = fresh ? e.start : max(g.latest, e.start);
    for (const Packed& m : g.members)
        if (m.rank == p.rank) g.numbered = false;
    g.members.push_back(p);
    if (e.comm_size == 0 || g.members.size() < e.comm_size) return;
    for (Packed& m : g.members) {
        if (g.numbered) {
            const std::int64_t dur_m = std::max<std::int64_t>(m.end - m.start, 0);
            m.wait = std::max(m.wait, std::min(g.latest.ps() - m.start, dur_m));
        }
        settle(m);
    }
    open_.erase(it);
}

void OpSpill::settle(Packed p) {
    stats_.add(event_of(p), Time::ps(p.wait));
    run_.push_back(p);
    if (run_.size() >= kRunOps) write_run();
}

void OpSpill::write_run() {
    if (run_.empty()) return;
    std::sort(run_.begin(), run_.end(), before);
    out_.write(reinterpret_cast<const char*>(run_.data()),
               static_cast<std::streamsize>(run_.size() * sizeof(Packed)));
    if (!out_) throw InputError(path_, 0, fmt::format("cannot write: {}", std::strerror(errno)));
    run_sizes_.push_back(run_.size());
    run_.clear();
}

void OpSpill::finish() {
    if (finished_) return;
    finished_ = true;
    // Calls some members never finished (a run that ended in a deadlock): the members there.
    for (auto& [key, g] : open_) {
        for (Packed& m : g.members) {
            if (g.numbered) {
                const std::int64_t dur_m = std::max<std::int64_t>(m.end - m.start, 0);
                m.wait = std::max(m.wait, std::min(g.latest.ps() - m.start, dur_m));
            }
            settle(m);
        }
    }
    open_.clear();
    write_run();
    run_.clear();
    run_.shrink_to_fit();
    out_.close();
    if (!out_) throw InputError(path_, 0, fmt::format("cannot write: {}", std::strerror(errno)));
    rewind();
}

mpi::OpEvent OpSpill::event_of(const Packed& p) const {
    mpi::OpEvent e;
    e.rank = p.rank;
    e.kind = p.kind;
    e.start = Time::ps(p.start);
    e.end = Time::ps(p.end);
    e.wait = Time::ps(p.wait);
    e.bytes = p.bytes;
    e.peer = p.peer;
    e.comm = p.comm;
    e.seq = p.seq;
    e.algorithm = p.algorithm == 0 ? nullptr : algorithms_[p.algorithm - 1];
    return e;
}

bool OpSpill::fill(Cursor& c) {
    if (c.at < c.window.size()) return true;
    if (c.left == 0) return false;
    const std::uint64_t k = std::min<std::uint64_t>(c.left, kWindowOps);
    c.window.resize(static_cast<std::size_t>(k));
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(c.offset * sizeof(Packed)));
    in_.read(reinterpret_cast<char*>(c.window.data()),
             static_cast<std::streamsize>(k * sizeof(Packed)));
    if (static_cast<std::uint64_t>(in_.gcount()) != k * sizeof(Packed))
        throw InputError(path_, 0, "cannot read back the recorded operations");
    c.offset += k;
    c.left -= k;
    c.at = 0;
    return true;
}

void OpSpill::rewind() {
    if (!finished_) return;
    if (!in_.is_open()) {
        in_.open(path_, std::ios::binary);
        if (!in_) throw InputError(path_, 0, fmt::format("cannot read: {}", std::strerror(errno)));
    }
    cursors_.assign(run_sizes_.size(), Cursor{});
    heap_.clear();
    std::uint64_t offset = 0;
    for (std::size_t i = 0; i < run_sizes_.size(); ++i) {
        cursors_[i].offset = offset;
        cursors_[i].left = run_sizes_[i];
        offset += run_sizes_[i];
    }
    auto greater = [this](std::size_t a, std::size_t b) {
        return before(cursors_[b].window[cursors_[b].at], cursors_[a].window[cursors_[a].at]);
    };
    for (std::size_t i = 0; i < cursors_.size(); ++i)
        if (fill(cursors_[i])) heap_.push_back(i);
    std::make_heap(heap_.begin(), heap_.end(), greater);
}

bool OpSpill::next(mpi::OpEvent& e, Time& effective_wait) {
    if (heap_.empty()) return false;
    auto greater = [this](std::size_t a, std::size_t b) {
        return before(cursors_[b].window[cursors_[b].at], cursors_[a].window[cursors_[a].at]);
    };
    std::pop_heap(heap_.begin(), heap_.end(), greater);
    const std::size_t i = heap_.back();
    Cursor& c = cursors_[i];
    const Packed p = c.window[c.at++];
    e = event_of(p);
    effective_wait = Time::ps(p.wait);
    if (fill(c)) {
        std::push_heap(heap_.begin(), heap_.end(), greater);
    } else {
        heap_.pop_back();
        c.window.clear();
        c.window.shrink_to_fit();
    }
    return true;
}

}  // namespace clustersim::traces
