#include "iosys/layout.hpp"

#include <algorithm>

namespace clustersim::io {

namespace {
void push_merged(std::vector<Extent>& out, std::uint64_t offset, std::uint64_t bytes) {
    if (bytes == 0) return;
    if (!out.empty() && out.back().end() == offset)
        out.back().bytes += bytes;
    else
        out.push_back(Extent{offset, bytes});
}
}  // namespace

void view_extents(const View& view, std::uint64_t pos, std::uint64_t bytes,
                  std::vector<Extent>& out) {
    if (bytes == 0) return;
    if (view.block == 0 || view.block >= view.stride) {  // contiguous
        push_merged(out, view.disp + pos, bytes);
        return;
    }
    std::uint64_t k = pos / view.block;
    std::uint64_t in = pos % view.block;
    while (bytes > 0) {
        const std::uint64_t take = std::min(view.block - in, bytes);
        push_merged(out, view.disp + k * view.stride + in, take);
        bytes -= take;
        in = 0;
        ++k;
    }
}

std::uint64_t clip_extents(std::vector<Extent>& extents, std::uint64_t size) {
    std::uint64_t kept = 0;
    std::size_t n = 0;
    for (const Extent& e : extents) {
        if (e.offset >= size) continue;
        const Extent c{e.offset, std::min(e.bytes, size - e.offset)};
        kept += c.bytes;
        extents[n++] = c;
    }
    extents.resize(n);
    return kept;
}

void merge_extents(std::vector<Extent>& extents) {
    if (extents.size() < 2) return;
    std::sort(extents.begin(), extents.end(),
              [](const Extent& a, const Extent& b) { return a.offset < b.offset; });
    std::size_t n = 0;
    for (std::size_t i = 1; i < extents.size(); ++i) {
        if (extents[i].offset <= extents[n].end()) {
            extents[n].bytes = std::max(extents[n].end(), extents[i].end()) - extents[n].offset;
        } else {
            extents[++n] = extents[i];
        }
    }
    extents.resize(n + 1);
}

void SimpleStriping::map(const Extent& e, std::vector<Piece>& out) const {
    std::uint64_t off = e.offset;
    std::uint64_t left = e.bytes;
    while (left > 0) {
        const std::uint64_t k = off / stripe_;
        const std::uint64_t in = off % stripe_;
        const std::uint64_t take = std::min(stripe_ - in, left);
        out.push_back(Piece{static_cast<std::uint32_t>(k % n_), (k / n_) * stripe_ + in, take});
        off += take;
        left -= take;
    }
}

std::uint64_t SimpleStriping::object_size(std::uint32_t server, std::uint64_t size) const {
    const std::uint64_t chunks = size / stripe_;  // whole chunks
    const std::uint64_t rest = size % stripe_;
    std::uint64_t bytes = (chunks / n_) * stripe_;  // full rounds over all servers
    const std::uint64_t extra = chunks % n_;        // whole chunks of the last round
    if (server < extra)
        bytes += stripe_;
    else if (server == extra)
        bytes += rest;
    return bytes;
}

}  // namespace clustersim::io
