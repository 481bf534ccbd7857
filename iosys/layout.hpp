// Where file data lies: MPI file views (what part of the file a rank's data stream covers)
// and distributions (which server holds which bytes, and where in its object).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clustersim::io {

struct Extent {
    std::uint64_t offset = 0;
    std::uint64_t bytes = 0;
    std::uint64_t end() const { return offset + bytes; }
    friend bool operator==(const Extent&, const Extent&) = default;
};

// An MPI file view: the rank's data starts at byte `disp` of the file; with block > 0 it
// sees `block` bytes, skips to `stride` bytes after the block's start, and so on (a vector
// filetype); block == 0 is the contiguous view.
struct View {
    std::uint64_t disp = 0;
    std::uint64_t block = 0;
    std::uint64_t stride = 0;
};

// Appends the file extents of `bytes` view bytes from view position `pos`, ascending,
// adjacent ones merged.
void view_extents(const View& view, std::uint64_t pos, std::uint64_t bytes,
                  std::vector<Extent>& out);

// Cuts `extents` (ascending) at `size`: the part a read can return (MPI: a short read).
// Returns the bytes kept.
std::uint64_t clip_extents(std::vector<Extent>& extents, std::uint64_t size);

// Sorts and merges adjacent or overlapping extents in place.
void merge_extents(std::vector<Extent>& extents);

// A piece of a file extent on one server: `local` is its offset in the server's object.
struct Piece {
    std::uint32_t server = 0;  // position in the file's server list
    std::uint64_t local = 0;
    std::uint64_t bytes = 0;
};

// Simple striping (PVFS's simple_stripe, PIOsimHD's SimpleStripe): chunk k of `stripe`
// bytes lies on server k mod n, at offset (k div n) * stripe of that server's object, so
// each server's share of a file is contiguous there.
class SimpleStriping {
  public:
    SimpleStriping(std::uint64_t stripe, std::uint32_t servers) : stripe_(stripe), n_(servers) {}
    // Appends the pieces of `e`, in file order.
    void map(const Extent& e, std::vector<Piece>& out) const;
    // Bytes of a file of `size` bytes that lie on `server` (the length of its object there).
    std::uint64_t object_size(std::uint32_t server, std::uint64_t size) const;
    std::uint64_t stripe() const { return stripe_; }
    std::uint32_t servers() const { return n_; }

  private:
    std::uint64_t stripe_;
    std::uint32_t n_;
};

// Names of the distributions a <file-system> may choose.
inline const char* distribution_names() {
    return "simple-striping";
}

}  // namespace clustersim::io
