// Cache layers, the I/O schedulers of a server: they receive the chunks clients write and
// read, decide when a write is safe (acknowledged) and a read's data is ready, and choose
// which request the disk serves next. Adding one is one class and one registry entry.
#pragma once

#include <cstdint>
#include <vector>

#include "iosys/component.hpp"
#include "iosys/disk.hpp"

namespace clustersim::io {

// A piece of a client's request at one server: contiguous in the file's object there.
struct Chunk {
    std::uint64_t id = 0;  // the server's handle, given back in CacheHost::chunk_done
    std::uint32_t file = 0;
    std::uint64_t offset = 0;  // within the file's object on this server
    std::uint64_t bytes = 0;
    bool write = false;
    // Reads: bytes of the file's object on this server when the read started (a read-ahead
    // stops there). Writes: unused.
    std::uint64_t object_end = UINT64_MAX;
};

// What a cache layer calls on its server.
class CacheHost {
  public:
    virtual ~CacheHost() = default;
    // A write chunk is safe (in server memory or on disk), or a read chunk's data is ready
    // to be sent. Call once per chunk; may be called from inside submit() (a cache hit).
    virtual void chunk_done(std::uint64_t chunk_id) = 0;
    // New disk work may be available: the server will call next() while a channel is free.
    virtual void wake() = 0;
    // The current simulated time.
    virtual Time now() const = 0;
    // As chunk_done, but at simulated time `at` (>= now()): a write that is safe once copied
    // into server memory (write_behind's copy-rate).
    virtual void chunk_done_at(std::uint64_t chunk_id, Time at) = 0;
};

struct CacheStats {
    std::uint64_t hits = 0;  // read chunks served from memory
    std::uint64_t hit_bytes = 0;
    std::uint64_t misses = 0;        // read chunks that went to disk
    std::uint64_t merged = 0;        // chunks folded into another disk request
    std::uint64_t write_stalls = 0;  // write chunks that waited for memory (write_behind)
    std::uint64_t peak_memory = 0;   // bytes of cached data at most (write_behind)
    // Read chunks wholly covered by data being read ahead, done when it arrives
    // (write_behind); neither hits nor misses.
    std::uint64_t readahead_waits = 0;
};

class CacheLayer {
  public:
    virtual ~CacheLayer() = default;
    void attach(CacheHost& host) { host_ = &host; }
    // A chunk arrived from a client (write: its data has arrived; read: the request).
    virtual void submit(const Chunk& c) = 0;
    // A disk channel is free: the next request to serve and its token; false if none.
    virtual bool next(DiskRequest& out, std::uint64_t& token) = 0;
    // The disk finished the request handed out with `token`.
    virtual void disk_done(std::uint64_t token) = 0;
    // Bytes of written data not yet on disk for `file` (MPI_File_sync waits for 0).
    virtual std::uint64_t dirty_bytes(std::uint32_t file) const {
        (void)file;
        return 0;
    }
    const CacheStats& stats() const { return stats_; }

  protected:
    CacheHost& host() { return *host_; }
    CacheStats stats_;

  private:
    CacheHost* host_ = nullptr;
};

using CacheRegistry = Registry<CacheLayer>;
// none, write_behind, aggregation, reorder (see iosys/README.md).
void register_builtin_caches(CacheRegistry& registry);
// Every cache layer / I/O scheduler <cache model=...> and --cache may name: the built-ins on
// first use, then whatever any translation unit adds: `io::cache_models().add(...)`.
CacheRegistry& cache_models();

}  // namespace clustersim::io
