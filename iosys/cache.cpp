// Cache layers (server I/O schedulers). The server calls submit(chunk) for every client chunk,
// next() whenever a disk channel is free, and disk_done(token) when the disk finishes. A layer
// calls host().chunk_done(id) exactly once per chunk (possibly inside submit, for a hit) and
// host().wake() when it has new disk work. Host callbacks are made last, after the layer's
// state is consistent, so a host may re-enter the layer from them.
//
// none          FIFO: each chunk is one disk request; done when the disk finishes it.
//
// aggregation   FIFO, but the head chunk is handed out together with every other pending
//               chunk of the same file and direction that extends its range contiguously at
//               either end (repeatedly), as long as the merged request stays <= max-request
//               bytes (the head alone may be larger). All folded chunks complete when the
//               merged request does; stats.merged counts the folded ones. Only exact
//               adjacency merges: no holes are read over, overlaps are not merged.
//               max-request (size, default 10MiB)
//
// reorder       An elevator (C-SCAN) over (file, offset): requests at or after the end of the
//               last served request are served in ascending order; when none is left the
//               sweep wraps to the lowest. Two Boost.Heap min-heaps hold the current sweep and
//               the next one: a request arriving behind the head goes to the next sweep. Like
//               a real block-layer scheduler it also merges: the request taken is extended by
//               contiguous same-file same-direction pending chunks exactly as in aggregation.
//               max-request (size, default 10MiB)
//
// write_behind  Server memory as a write-back cache of `memory` bytes (default: the server
//               node's memory).
//               Writes: a chunk that fits (used + bytes <= memory, after evicting clean data
//               oldest-written-first) is stored dirty and acknowledged at once (chunk_done in
//               submit). Dirty data is flushed in the order it was written, each flush merged
//               with contiguous dirty data of the same file up to max-request bytes (an
//               extent larger than that is flushed whole); once on disk it stays cached as
//               clean, evictable data. A chunk that does not fit even after evicting all clean
//               data waits (stats.write_stalls) and later writes queue behind it (FIFO); they
//               are admitted as flushes complete. A chunk larger than `memory` is written
//               through: one disk request, done when on disk (its range is dropped from the
//               cache, which it supersedes).
//               Cached data is a set of non-overlapping byte ranges per file, so rewriting a
//               range (exactly or partly) replaces the old bytes and memory is never counted
//               twice; a rewritten range that is being flushed is flushed again afterwards.
//               (The memory of an in-flight flush of data since overwritten is not counted.)
//               Reads: a chunk whose whole range is cached (dirty, flushing or clean) is a hit,
//               done at once; otherwise the whole chunk is read from disk (a miss) and the
//               data read is not cached. Read misses and write-throughs are served FIFO and
//               before any flush (clients wait for them; flushes are background work).
//               dirty_bytes(file) = bytes written to memory not yet on disk (dirty + being
//               flushed); chunks waiting for memory are not counted (not acknowledged).
//               memory (size, default node memory), max-request (size, default 10MiB)
//
// Every layer counts read chunks that go to the disk as stats.misses.
#include "iosys/cache.hpp"

#include <algorithm>
#include <cassert>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <boost/heap/d_ary_heap.hpp>

namespace clustersim::io {
namespace {

constexpr std::uint64_t kDefaultMaxRequest = 10ULL << 20;  // 10 MiB

DiskRequest request_of(const Chunk& c) {
    return DiskRequest{c.file, c.offset, c.bytes, c.write};
}

// ---------------------------------------------------------------------------------------------
// none

class NoneLayer final : public CacheLayer {
  public:
    void submit(const Chunk& c) override {
        if (!c.write) ++stats_.misses;
        queue_.push_back(c);
        host().wake();
    }
    bool next(DiskRequest& out, std::uint64_t& token) override {
        if (queue_.empty()) return false;
        const Chunk c = queue_.front();
        queue_.pop_front();
        out = request_of(c);
        token = next_token_++;
        in_service_.emplace(token, c.id);
        return true;
    }
    void disk_done(std::uint64_t token) override {
        const auto it = in_service_.find(token);
        assert(it != in_service_.end());
        const std::uint64_t id = it->second;
        in_service_.erase(it);
        host().chunk_done(id);
    }

  private:
    std::deque<Chunk> queue_;
    std::unordered_map<std::uint64_t, std::uint64_t> in_service_;  // token -> chunk id
    std::uint64_t next_token_ = 1;
};

// ---------------------------------------------------------------------------------------------
// Pending chunks indexed by arrival order and by where they start and end, so that the
// contiguous neighbours of a range are found in O(log n).

class PendingIndex {
  public:
    // Returns the chunk's sequence number (arrival order).
    std::uint64_t add(const Chunk& c) {
        const std::uint64_t seq = next_seq_++;
        by_seq_.emplace(seq, c);
        by_start_.emplace(c.file, c.write, c.offset, seq);
        by_end_.emplace(c.file, c.write, c.offset + c.bytes, seq);
        return seq;
    }
    bool empty() const { return by_seq_.empty(); }
    bool contains(std::uint64_t seq) const { return by_seq_.count(seq) != 0; }
    std::uint64_t oldest() const { return by_seq_.begin()->first; }

    // Removes `head` and every pending chunk that extends its range contiguously (same file
    // and direction), at the end first and then at the front, as long as the total stays
    // <= max_bytes (the head itself is always taken). Returns the merged request; the chunk
    // ids taken are appended to `ids`, the head's first.
    DiskRequest take_merged(std::uint64_t head, std::uint64_t max_bytes,
                            std::vector<std::uint64_t>& ids) {
        const Chunk c = by_seq_.at(head);
        remove(head);
        ids.push_back(c.id);
        std::uint64_t lo = c.offset, hi = c.offset + c.bytes;
        for (;;) {  // extend at the end
            const auto it = by_start_.lower_bound(Key{c.file, c.write, hi, 0});
            if (it == by_start_.end() || std::get<0>(*it) != c.file ||
                std::get<1>(*it) != c.write || std::get<2>(*it) != hi)
                break;
            const std::uint64_t seq = std::get<3>(*it);
            const Chunk& n = by_seq_.at(seq);
            if (hi - lo + n.bytes > max_bytes) break;
            hi += n.bytes;
            ids.push_back(n.id);
            remove(seq);
        }
        for (;;) {  // extend at the front
            const auto it = by_end_.lower_bound(Key{c.file, c.write, lo, 0});
            if (it == by_end_.end() || std::get<0>(*it) != c.file || std::get<1>(*it) != c.write ||
                std::get<2>(*it) != lo)
                break;
            const std::uint64_t seq = std::get<3>(*it);
            const Chunk& p = by_seq_.at(seq);
            if (hi - lo + p.bytes > max_bytes) break;
            lo -= p.bytes;
            ids.push_back(p.id);
            remove(seq);
        }
        return DiskRequest{c.file, lo, hi - lo, c.write};
    }

  private:
    using Key = std::tuple<std::uint32_t, bool, std::uint64_t, std::uint64_t>;  // file, write,
                                                                                // pos, seq
    void remove(std::uint64_t seq) {
        const auto it = by_seq_.find(seq);
        const Chunk& c = it->second;
        by_start_.erase(Key{c.file, c.write, c.offset, seq});
        by_end_.erase(Key{c.file, c.write, c.offset + c.bytes, seq});
        by_seq_.erase(it);
    }
    std::map<std::uint64_t, Chunk> by_seq_;
    std::set<Key> by_start_;
    std::set<Key> by_end_;
    std::uint64_t next_seq_ = 1;
};

// Merged disk requests in service: token -> the chunks that complete with it.
class InService {
  public:
    std::uint64_t add(std::vector<std::uint64_t> ids) {
        const std::uint64_t token = next_token_++;
        jobs_.emplace(token, std::move(ids));
        return token;
    }
    std::vector<std::uint64_t> take(std::uint64_t token) {
        const auto it = jobs_.find(token);
        assert(it != jobs_.end());
        std::vector<std::uint64_t> ids = std::move(it->second);
        jobs_.erase(it);
        return ids;
    }

  private:
    std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> jobs_;
    std::uint64_t next_token_ = 1;
};

// ---------------------------------------------------------------------------------------------
// aggregation

class AggregationLayer final : public CacheLayer {
  public:
    explicit AggregationLayer(std::uint64_t max_request) : max_request_(max_request) {}
    void submit(const Chunk& c) override {
        if (!c.write) ++stats_.misses;
        pending_.add(c);
        host().wake();
    }
    bool next(DiskRequest& out, std::uint64_t& token) override {
        if (pending_.empty()) return false;
        std::vector<std::uint64_t> ids;
        out = pending_.take_merged(pending_.oldest(), max_request_, ids);
        stats_.merged += ids.size() - 1;
        token = in_service_.add(std::move(ids));
        return true;
    }
    void disk_done(std::uint64_t token) override {
        for (const std::uint64_t id : in_service_.take(token)) host().chunk_done(id);
    }

  private:
    std::uint64_t max_request_;
    PendingIndex pending_;
    InService in_service_;
};

// ---------------------------------------------------------------------------------------------
// reorder

class ReorderLayer final : public CacheLayer {
  public:
    explicit ReorderLayer(std::uint64_t max_request) : max_request_(max_request) {}
    void submit(const Chunk& c) override {
        if (!c.write) ++stats_.misses;
        const std::uint64_t seq = pending_.add(c);
        const Item item{c.file, c.offset, seq};
        // At or after the end of the last request served: still in this sweep.
        if (std::make_pair(c.file, c.offset) >= cursor_)
            current_.push(item);
        else
            upcoming_.push(item);
        host().wake();
    }
    bool next(DiskRequest& out, std::uint64_t& token) override {
        for (;;) {
            // Entries of chunks already folded into an earlier request are stale.
            while (!current_.empty() && !pending_.contains(std::get<2>(current_.top())))
                current_.pop();
            if (!current_.empty()) break;
            if (upcoming_.empty()) return false;
            current_.swap(upcoming_);  // wrap to the lowest position
        }
        const std::uint64_t head = std::get<2>(current_.top());
        current_.pop();
        std::vector<std::uint64_t> ids;
        out = pending_.take_merged(head, max_request_, ids);
        stats_.merged += ids.size() - 1;
        cursor_ = {out.file, out.offset + out.bytes};
        token = in_service_.add(std::move(ids));
        return true;
    }
    void disk_done(std::uint64_t token) override {
        for (const std::uint64_t id : in_service_.take(token)) host().chunk_done(id);
    }

  private:
    using Item = std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>;  // file, offset, seq
    // boost::heap is a max-heap for its comparison: std::greater makes the lowest on top.
    using Heap = boost::heap::d_ary_heap<Item, boost::heap::arity<4>,
                                         boost::heap::compare<std::greater<Item>>>;
    std::uint64_t max_request_;
    PendingIndex pending_;
    Heap current_;
    Heap upcoming_;
    std::pair<std::uint32_t, std::uint64_t> cursor_{0, 0};  // (file, end of the last request)
    InService in_service_;
};

// ---------------------------------------------------------------------------------------------
// write_behind

class WriteBehindLayer final : public CacheLayer {
  public:
    WriteBehindLayer(std::uint64_t memory, std::uint64_t max_request)
        : memory_(memory), max_request_(max_request) {}

    void submit(const Chunk& c) override {
        std::vector<std::uint64_t> done;
        bool work = false;
        if (c.bytes == 0) {
            done.push_back(c.id);  // nothing to store or read
        } else if (!c.write) {
            if (covered(c.file, c.offset, c.offset + c.bytes)) {
                ++stats_.hits;
                stats_.hit_bytes += c.bytes;
                done.push_back(c.id);
            } else {
                ++stats_.misses;
                direct_.push_back(c);
                work = true;
            }
        } else if (c.bytes > memory_) {
            // Write-through; the cached copy of the range is superseded.
            erase_range(c.file, c.offset, c.offset + c.bytes);
            direct_.push_back(c);
            work = true;
            admit_waiting(done);
        } else if (waiting_.empty() && store(c)) {
            done.push_back(c.id);
            work = true;
        } else {
            ++stats_.write_stalls;
            waiting_.push_back(c);
        }
        for (const std::uint64_t id : done) host().chunk_done(id);
        if (work) host().wake();
    }

    bool next(DiskRequest& out, std::uint64_t& token) override {
        if (!direct_.empty()) {
            const Chunk c = direct_.front();
            direct_.pop_front();
            out = request_of(c);
            token = next_token_++;
            jobs_.emplace(token, Job{c.id, false, 0, 0, 0});
            return true;
        }
        if (dirty_order_.empty()) return false;
        // The oldest dirty extent, merged with contiguous dirty ones of its file.
        const auto [seq, file, start] = *dirty_order_.begin();
        (void)seq;
        const auto head = segs_.find(Key{file, start});
        assert(head != segs_.end() && head->second.state == State::Dirty);
        std::vector<SegMap::iterator> taken{head};
        std::uint64_t lo = start, hi = head->second.end;
        for (auto it = std::next(head);
             it != segs_.end() && it->first.first == file && it->first.second == hi &&
             it->second.state == State::Dirty && hi - lo + (it->second.end - hi) <= max_request_;
             ++it) {
            hi = it->second.end;
            taken.push_back(it);
        }
        for (auto it = head; it != segs_.begin();) {
            --it;
            if (it->first.first != file || it->second.end != lo ||
                it->second.state != State::Dirty ||
                hi - lo + (lo - it->first.second) > max_request_)
                break;
            lo = it->first.second;
            taken.push_back(it);
        }
        token = next_token_++;
        for (const auto& it : taken) set_state(it, State::Flushing, token);
        stats_.merged += taken.size() - 1;
        jobs_.emplace(token, Job{0, true, file, lo, hi});
        out = DiskRequest{file, lo, hi - lo, true};
        return true;
    }

    void disk_done(std::uint64_t token) override {
        const auto jit = jobs_.find(token);
        assert(jit != jobs_.end());
        const Job job = jit->second;
        jobs_.erase(jit);
        std::vector<std::uint64_t> done;
        if (!job.flush) {
            done.push_back(job.chunk);
        } else {
            // What this flush wrote is clean now, unless it was rewritten in the meantime.
            for (auto it = first_overlapping(job.file, job.lo);
                 it != segs_.end() && it->first.first == job.file && it->first.second < job.hi;
                 ++it)
                if (it->second.state == State::Flushing && it->second.token == token)
                    set_state(it, State::Clean, 0);
            admit_waiting(done);
        }
        for (const std::uint64_t id : done) host().chunk_done(id);
        if (!direct_.empty() || !dirty_order_.empty()) host().wake();
    }

    std::uint64_t dirty_bytes(std::uint32_t file) const override {
        const auto it = dirty_by_file_.find(file);
        return it == dirty_by_file_.end() ? 0 : it->second;
    }

  private:
    enum class State : std::uint8_t { Dirty, Flushing, Clean };
    struct Seg {
        std::uint64_t end = 0;
        State state = State::Dirty;
        std::uint64_t seq = 0;    // when written (FIFO flush order, oldest-first eviction)
        std::uint64_t token = 0;  // the flush carrying it (Flushing)
    };
    using Key = std::pair<std::uint32_t, std::uint64_t>;  // file, start
    using SegMap = std::map<Key, Seg>;
    using Order = std::set<std::tuple<std::uint64_t, std::uint32_t, std::uint64_t>>;
    struct Job {
        std::uint64_t chunk;  // direct request: the chunk it serves
        bool flush;
        std::uint32_t file;  // flush: the range written
        std::uint64_t lo, hi;
    };

    // --- the extent map and its indexes; every change goes through these three
    void insert_seg(const Key& k, const Seg& s) {
        segs_.emplace(k, s);
        used_ += s.end - k.second;
        index(k, s, true);
        stats_.peak_memory = std::max(stats_.peak_memory, used_);
    }
    void erase_seg(SegMap::iterator it) {
        used_ -= it->second.end - it->first.second;
        index(it->first, it->second, false);
        segs_.erase(it);
    }
    void set_state(SegMap::iterator it, State state, std::uint64_t token) {
        index(it->first, it->second, false);
        it->second.state = state;
        it->second.token = token;
        index(it->first, it->second, true);
    }
    void index(const Key& k, const Seg& s, bool add) {
        const std::uint64_t len = s.end - k.second;
        const auto entry = std::make_tuple(s.seq, k.first, k.second);
        if (s.state == State::Clean) {
            if (add) {
                clean_order_.insert(entry);
                clean_bytes_ += len;
            } else {
                clean_order_.erase(entry);
                clean_bytes_ -= len;
            }
            return;
        }
        if (s.state == State::Dirty)
            add ? (void)dirty_order_.insert(entry) : (void)dirty_order_.erase(entry);
        std::uint64_t& d = dirty_by_file_[k.first];
        d = add ? d + len : d - len;
        if (d == 0) dirty_by_file_.erase(k.first);
    }

    // The first extent of `file` that ends after `pos` (or the first after it).
    SegMap::iterator first_overlapping(std::uint32_t file, std::uint64_t pos) {
        auto it = segs_.upper_bound(Key{file, pos});
        if (it != segs_.begin()) {
            const auto prev = std::prev(it);
            if (prev->first.first == file && prev->second.end > pos) return prev;
        }
        return it;
    }
    // Splits the extent strictly containing `pos` in two (memory unchanged).
    void split(std::uint32_t file, std::uint64_t pos) {
        const auto it = first_overlapping(file, pos);
        if (it == segs_.end() || it->first.first != file || it->first.second >= pos) return;
        const Key left = it->first;
        Seg s = it->second;
        const std::uint64_t end = s.end;
        erase_seg(it);
        s.end = pos;
        insert_seg(left, s);
        s.end = end;
        insert_seg(Key{file, pos}, s);
    }
    void erase_range(std::uint32_t file, std::uint64_t lo, std::uint64_t hi) {
        split(file, lo);
        split(file, hi);
        auto it = segs_.lower_bound(Key{file, lo});
        while (it != segs_.end() && it->first.first == file && it->first.second < hi)
            erase_seg(it++);
    }
    bool covered(std::uint32_t file, std::uint64_t lo, std::uint64_t hi) {
        std::uint64_t pos = lo;
        for (auto it = first_overlapping(file, lo); pos < hi; ++it) {
            if (it == segs_.end() || it->first.first != file || it->first.second > pos)
                return false;
            pos = it->second.end;
        }
        return true;
    }

    // Stores write `c` as dirty if it fits, evicting clean data oldest-first; false if it
    // does not fit even with all clean data (outside its own range) evicted.
    bool store(const Chunk& c) {
        const std::uint64_t lo = c.offset, hi = c.offset + c.bytes;
        split(c.file, lo);
        split(c.file, hi);
        std::uint64_t old = 0, old_clean = 0;  // bytes of the range cached already
        for (auto it = segs_.lower_bound(Key{c.file, lo});
             it != segs_.end() && it->first.first == c.file && it->first.second < hi; ++it) {
            old += it->second.end - it->first.second;
            if (it->second.state == State::Clean) old_clean += it->second.end - it->first.second;
        }
        const std::uint64_t after = used_ - old + c.bytes;
        if (after > memory_) {
            if (after - memory_ > clean_bytes_ - old_clean) return false;
            for (auto it = clean_order_.begin(); used_ - old + c.bytes > memory_;) {
                assert(it != clean_order_.end());
                const auto [seq, file, start] = *it++;
                (void)seq;
                if (file == c.file && start >= lo && start < hi) continue;  // replaced anyway
                erase_seg(segs_.find(Key{file, start}));
            }
        }
        erase_range(c.file, lo, hi);
        insert_seg(Key{c.file, lo}, Seg{hi, State::Dirty, next_seq_++, 0});
        return true;
    }
    // Stores waiting writes, in order, while they fit; appends the admitted chunk ids.
    void admit_waiting(std::vector<std::uint64_t>& done) {
        while (!waiting_.empty() && store(waiting_.front())) {
            done.push_back(waiting_.front().id);
            waiting_.pop_front();
        }
    }

    std::uint64_t memory_;
    std::uint64_t max_request_;
    SegMap segs_;  // non-overlapping extents of each file
    Order dirty_order_;
    Order clean_order_;
    std::uint64_t used_ = 0;
    std::uint64_t clean_bytes_ = 0;
    std::unordered_map<std::uint32_t, std::uint64_t> dirty_by_file_;  // dirty + flushing
    std::deque<Chunk> direct_;   // read misses and write-throughs
    std::deque<Chunk> waiting_;  // writes waiting for memory
    std::unordered_map<std::uint64_t, Job> jobs_;
    std::uint64_t next_token_ = 1;
    std::uint64_t next_seq_ = 1;
};

}  // namespace

void register_builtin_caches(CacheRegistry& registry) {
    registry.add(
        Entry<CacheLayer>{"none",
                          "no cache: every chunk is one disk request, served in arrival order",
                          {},
                          [](const Params&) -> std::unique_ptr<CacheLayer> {
                              return std::make_unique<NoneLayer>();
                          }});
    registry.add(Entry<CacheLayer>{
        "write_behind",
        "server memory as a write-back cache: writes that fit are acknowledged at once and "
        "flushed in the background; reads of cached data are hits",
        {{"memory", "bytes of cached data at most (size, default the server node's memory)"},
         {"max-request", "largest merged flush (size, default 10MiB)"}},
        [](const Params& p) -> std::unique_ptr<CacheLayer> {
            const std::uint64_t memory = p.size("memory", p.node_memory());
            const std::uint64_t max_request = p.size("max-request", kDefaultMaxRequest);
            return std::make_unique<WriteBehindLayer>(memory, max_request);
        }});
    registry.add(Entry<CacheLayer>{
        "aggregation",
        "arrival order, each request merged with the pending contiguous chunks of its file",
        {{"max-request", "largest merged request (size, default 10MiB)"}},
        [](const Params& p) -> std::unique_ptr<CacheLayer> {
            return std::make_unique<AggregationLayer>(p.size("max-request", kDefaultMaxRequest));
        }});
    registry.add(Entry<CacheLayer>{
        "reorder",
        "elevator (C-SCAN) over file and offset, merging contiguous pending chunks",
        {{"max-request", "largest merged request (size, default 10MiB)"}},
        [](const Params& p) -> std::unique_ptr<CacheLayer> {
            return std::make_unique<ReorderLayer>(p.size("max-request", kDefaultMaxRequest));
        }});
}

}  // namespace clustersim::io
