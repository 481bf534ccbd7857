// Disk models: how long a request of the server's local storage takes. A file's part on a
// server (its "object") lies sequentially on that server's disk; offsets here are offsets
// within that object (the distribution maps file offsets to them).
#pragma once

#include <cstdint>
#include <memory>

#include "iosys/component.hpp"

namespace clustersim::io {

struct DiskRequest {
    std::uint32_t file = 0;    // file id (objects of different files are far apart)
    std::uint64_t offset = 0;  // within the file's object on this server
    std::uint64_t bytes = 0;
    bool write = false;
};

enum class SeekKind : std::uint8_t { None, TrackToTrack, Average };

struct DiskStats {
    std::uint64_t requests = 0;
    std::uint64_t bytes_read = 0;
    std::uint64_t bytes_written = 0;
    std::uint64_t track_seeks = 0;    // hdd: track-to-track seeks
    std::uint64_t average_seeks = 0;  // hdd: average accesses (other file, far, first access)
    Time busy;                        // sum of service times
};

class Disk {
  public:
    virtual ~Disk() = default;
    // Requests the disk serves at the same time (ssd channels); the server keeps at most
    // this many in service.
    virtual std::uint32_t channels() const { return 1; }
    // Service time of `r`, started now. Call in the order the disk serves requests: it
    // updates the head position (hdd) and the statistics.
    virtual Time service(const DiskRequest& r) = 0;
    const DiskStats& stats() const { return stats_; }

  protected:
    void count(const DiskRequest& r, Time t) {
        ++stats_.requests;
        (r.write ? stats_.bytes_written : stats_.bytes_read) += r.bytes;
        stats_.busy += t;
    }
    DiskStats stats_;
};

using DiskRegistry = Registry<Disk>;
// simple, hdd, ssd (see iosys/README.md for their formulas).
void register_builtin_disks(DiskRegistry& registry);
// Every disk model <disk model=...> may name: the built-ins on first use, then whatever any
// translation unit adds: `io::disk_models().add(io::Entry<io::Disk>{...})`.
DiskRegistry& disk_models();

// The hdd model's choice for an access at `offset` of `file` when the head last accessed
// `last_file` up to byte `last_end` (exclusive): none if it continues exactly there,
// track-to-track if within `close` bytes (either direction), else average. `has_last` is
// false before the first access.
SeekKind hdd_seek(bool has_last, std::uint32_t last_file, std::uint64_t last_end,
                  std::uint32_t file, std::uint64_t offset, std::uint64_t close);

}  // namespace clustersim::io
