#include "collectives/program.hpp"

#include <fmt/format.h>

namespace clustersim::mpi {

const char* to_string(OpKind kind) {
    switch (kind) {
        case OpKind::Compute:
            return "Compute";
        case OpKind::Send:
            return "Send";
        case OpKind::Recv:
            return "Recv";
        case OpKind::Isend:
            return "Isend";
        case OpKind::Irecv:
            return "Irecv";
        case OpKind::Wait:
            return "Wait";
        case OpKind::Waitall:
            return "Waitall";
        case OpKind::Sendrecv:
            return "Sendrecv";
        case OpKind::Collective:
            return "Collective";
        case OpKind::CommDup:
            return "Comm_dup";
        case OpKind::CommSplit:
            return "Comm_split";
        case OpKind::FileOpen:
            return "File_open";
        case OpKind::FileClose:
            return "File_close";
        case OpKind::FileSetView:
            return "File_set_view";
        case OpKind::FileSeek:
            return "File_seek";
        case OpKind::FileWrite:
            return "File_write";
        case OpKind::FileRead:
            return "File_read";
        case OpKind::FileWriteAt:
            return "File_write_at";
        case OpKind::FileReadAt:
            return "File_read_at";
        case OpKind::FileWriteAll:
            return "File_write_all";
        case OpKind::FileReadAll:
            return "File_read_all";
        case OpKind::FileWriteAtAll:
            return "File_write_at_all";
        case OpKind::FileReadAtAll:
            return "File_read_at_all";
        case OpKind::FileSync:
            return "File_sync";
        case OpKind::Unmodeled:
            return "Unmodeled";
        case OpKind::CartCreate:
            return "Cart_create";
        case OpKind::DistGraphCreateAdjacent:
            return "Dist_graph_create_adjacent";
        case OpKind::DistGraphCreate:
            return "Dist_graph_create";
        case OpKind::Cancel:
            return "Cancel";
        case OpKind::CommFree:
            return "Comm_free";
        case OpKind::WinCreate:
            return "Win_create";
        case OpKind::WinFree:
            return "Win_free";
        case OpKind::Put:
            return "Put";
        case OpKind::Get:
            return "Get";
        case OpKind::Accumulate:
            return "Accumulate";
        case OpKind::GetAccumulate:
            return "Get_accumulate";
        case OpKind::WinFence:
            return "Win_fence";
        case OpKind::WinLock:
            return "Win_lock";
        case OpKind::WinUnlock:
            return "Win_unlock";
        case OpKind::WinFlush:
            return "Win_flush";
    }
    return "?";
}

std::vector<std::uint64_t> encode_topo_spec(OpKind kind, const TopoSpec& t) {
    std::vector<std::uint64_t> out;
    auto put = [&](std::int32_t x) { out.push_back(static_cast<std::uint64_t>(x)); };
    if (kind == OpKind::CartCreate) {
        out.push_back(t.dims.size());
        for (const std::int32_t d : t.dims) put(d);
        for (const std::uint8_t p : t.periods) out.push_back(p);
    } else {
        out.push_back(t.sources.size());
        for (const std::int32_t x : t.sources) put(x);
        for (const std::int32_t x : t.destinations) put(x);
    }
    out.push_back(t.reorder ? 1 : 0);
    return out;
}

std::string decode_topo_spec(OpKind kind, const std::vector<std::uint64_t>& c, TopoSpec& t) {
    t = TopoSpec{};
    if (c.size() < 2) return fmt::format("{} topology values, expected at least 2", c.size());
    const std::uint64_t n = c[0];
    auto rank = [](std::uint64_t x, std::int32_t& out) {
        if (x > static_cast<std::uint64_t>(INT32_MAX)) return false;
        out = static_cast<std::int32_t>(x);
        return true;
    };
    if (c.back() > 1) return fmt::format("reorder is {}, expected 0 or 1", c.back());
    t.reorder = c.back() == 1;
    if (kind == OpKind::CartCreate) {
        if (n > (c.size() - 2) / 2 || c.size() != 2 * n + 2)
            return fmt::format("{} topology values for {} dimensions, expected {}", c.size(), n,
                               2 * n + 2);
        for (std::uint64_t i = 0; i < n; ++i) {
            std::int32_t d = 0;
            if (!rank(c[1 + i], d)) return fmt::format("dimension of size {}", c[1 + i]);
            t.dims.push_back(d);
            if (c[1 + n + i] > 1)
                return fmt::format("period {} of dimension {}, expected 0 or 1", c[1 + n + i], i);
            t.periods.push_back(static_cast<std::uint8_t>(c[1 + n + i]));
        }
        return "";
    }
    if (n > c.size() - 2 ||
        (kind == OpKind::DistGraphCreate && (n > (c.size() - 2) / 2 || c.size() != 2 * n + 2)))
        return fmt::format("{} topology values for {} {}", c.size(), n,
                           kind == OpKind::DistGraphCreate ? "edges" : "sources");
    for (std::size_t i = 1; i + 1 < c.size(); ++i) {
        std::int32_t x = 0;
        if (!rank(c[i], x)) return fmt::format("neighbour {} is not a rank", c[i]);
        (i <= n ? t.sources : t.destinations).push_back(x);
    }
    return "";
}

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

std::uint64_t MultiProgram::traffic_hint() const {
    std::uint64_t sum = 0;
    for (const Program* p : programs_) sum += p->traffic_hint();
    return sum;
}

bool MultiProgram::next(std::int32_t rank, mpi::Op& op) {
    const auto r = static_cast<std::size_t>(rank);
    if (r >= owner_.size()) return false;
    return programs_[owner_[r]]->next(local_[r], op);
}

void MultiProgram::request_done(std::int32_t rank, std::uint32_t handle) {
    const auto r = static_cast<std::size_t>(rank);
    if (r < owner_.size()) programs_[owner_[r]]->request_done(local_[r], handle);
}

std::uint64_t MultiProgram::mark(std::int32_t rank) const {
    const auto r = static_cast<std::size_t>(rank);
    if (r >= owner_.size()) return 0;
    return programs_[owner_[r]]->mark(local_[r]);
}

std::string handle_beyond_limit(const char* what, std::uint32_t handle) {
    if (handle <= kMaxHandle) return "";
    return fmt::format("{} handle {} is beyond the largest a program may use ({}, docs/limits.md)",
                       what, handle, kMaxHandle);
}

}  // namespace clustersim::mpi
