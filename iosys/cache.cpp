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
//               done at once; otherwise the whole chunk is read from disk (a miss). Read misses
//               and write-throughs are served FIFO and before any flush (clients wait for them;
//               flushes are background work).
//               Without read-ahead (read-ahead 0B, the default) the data read is not cached.
//               With it, a miss at `offset` reads [offset, offset + max(bytes, read-ahead))
//               clipped to the chunk's object_end (never shorter than the chunk itself), and
//               stopped early where data already cached or being read begins (it is not read
//               twice). Once the read finishes the chunk is done and the range is cached as
//               clean data (the parts not cached already), evicting clean data oldest-first to
//               make room; if it does not fit even with all clean data evicted, only the
//               lowest part that fits is cached (possibly nothing). Until then the range is
//               "being read": not counted in memory, and a read chunk wholly covered by data
//               cached or being read waits for the read(s) it needs and is done when they
//               finish (stats.readahead_waits; neither a hit nor a miss); a chunk only partly
//               covered is a miss. A write over data being read replaces it: the read's end
//               caches only what is still marked as being read by it, so newer data wins.
//               dirty_bytes(file) = bytes written to memory not yet on disk (dirty + being
//               flushed); chunks waiting for memory are not counted (not acknowledged).
//               With a copy-rate, a write stored in memory is acknowledged only once it has
//               been copied there: bytes / copy-rate after the previous copy ended (one copy
//               engine per server, writes in the order they are stored; a write admitted
//               after waiting for memory is copied then). Its data counts as dirty, and may
//               be flushed, from the moment it is stored. Write-throughs and reads are not
//               charged.
//               memory (size, default node memory), max-request (size, default 10MiB),
//               read-ahead (size, default 0B: off), copy-rate (bandwidth, default none: a
//               write is safe the moment it arrives)
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
    WriteBehindLayer(std::uint64_t memory, std::uint64_t max_request, std::uint64_t read_ahead,
                     Bandwidth copy_rate)
        : memory_(memory),
          max_request_(max_request),
          read_ahead_(read_ahead),
          copy_rate_(copy_rate) {}

    void submit(const Chunk& c) override {
        std::vector<std::uint64_t> done;
        bool work = false;
        if (c.bytes == 0) {
            done.push_back(c.id);  // nothing to store or read
        } else if (!c.write) {
            std::vector<std::uint64_t> tokens;
            switch (lookup(c.file, c.offset, c.offset + c.bytes, tokens)) {
                case Cover::Cached:
                    ++stats_.hits;
                    stats_.hit_bytes += c.bytes;
                    done.push_back(c.id);
                    break;
                case Cover::Reading:
                    ++stats_.readahead_waits;
                    wait_left_.emplace(c.id, tokens.size());
                    for (const std::uint64_t t : tokens) jobs_.at(t).waiters.push_back(c.id);
                    break;
                case Cover::No:
                    ++stats_.misses;
                    read_miss(c);
                    work = true;
                    break;
            }
        } else if (c.bytes > memory_) {
            // Write-through; the cached copy of the range is superseded.
            erase_range(c.file, c.offset, c.offset + c.bytes);
            queue_direct(Job{Kind::Direct, c.id, c.file, c.offset, c.offset + c.bytes, true, {}});
            work = true;
            admit_waiting(done);
        } else if (waiting_.empty() && store(c)) {
            stored(c, done);
            work = true;
        } else {
            ++stats_.write_stalls;
            waiting_.push_back(c);
        }
        for (const std::uint64_t id : done) host().chunk_done(id);
        report_copies();
        if (work) host().wake();
    }

    bool next(DiskRequest& out, std::uint64_t& token) override {
        if (!direct_.empty()) {
            token = direct_.front();
            direct_.pop_front();
            const Job& job = jobs_.at(token);
            out = DiskRequest{job.file, job.lo, job.hi - job.lo, job.write};
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
        jobs_.emplace(token, Job{Kind::Flush, 0, file, lo, hi, true, {}});
        out = DiskRequest{file, lo, hi - lo, true};
        return true;
    }

    void disk_done(std::uint64_t token) override {
        const auto jit = jobs_.find(token);
        assert(jit != jobs_.end());
        const Job job = std::move(jit->second);
        jobs_.erase(jit);
        std::vector<std::uint64_t> done;
        switch (job.kind) {
            case Kind::Direct:
                done.push_back(job.chunk);
                break;
            case Kind::ReadAhead:
                cache_read(token, job);
                done.push_back(job.chunk);
                for (const std::uint64_t id : job.waiters) {
                    const auto w = wait_left_.find(id);
                    assert(w != wait_left_.end() && w->second > 0);
                    if (--w->second == 0) {
                        wait_left_.erase(w);
                        done.push_back(id);
                    }
                }
                break;
            case Kind::Flush:
                // What this flush wrote is clean now, unless it was rewritten in the meantime.
                for (auto it = first_overlapping(job.file, job.lo);
                     it != segs_.end() && it->first.first == job.file && it->first.second < job.hi;
                     ++it)
                    if (it->second.state == State::Flushing && it->second.token == token)
                        set_state(it, State::Clean, 0);
                admit_waiting(done);
                break;
        }
        for (const std::uint64_t id : done) host().chunk_done(id);
        report_copies();
        if (!direct_.empty() || !dirty_order_.empty()) host().wake();
    }

    std::uint64_t dirty_bytes(std::uint32_t file) const override {
        const auto it = dirty_by_file_.find(file);
        return it == dirty_by_file_.end() ? 0 : it->second;
    }

  private:
    // Reading: being read from disk by the read-ahead `token`; not in memory yet (not counted
    // in used_, not evictable, not a hit).
    enum class State : std::uint8_t { Dirty, Flushing, Clean, Reading };
    struct Seg {
        std::uint64_t end = 0;
        State state = State::Dirty;
        std::uint64_t seq = 0;    // when cached (FIFO flush order, oldest-first eviction)
        std::uint64_t token = 0;  // the flush carrying it (Flushing), the read bringing it
                                  // (Reading)
    };
    using Key = std::pair<std::uint32_t, std::uint64_t>;  // file, start
    using SegMap = std::map<Key, Seg>;
    using Order = std::set<std::tuple<std::uint64_t, std::uint32_t, std::uint64_t>>;
    // Direct: a read miss without read-ahead or a write-through, done when on disk.
    // ReadAhead: a read miss extended by read-ahead; its range is cached when it finishes.
    enum class Kind : std::uint8_t { Direct, ReadAhead, Flush };
    struct Job {
        Kind kind;
        std::uint64_t chunk;  // Direct, ReadAhead: the chunk it serves
        std::uint32_t file;   // the range read or written
        std::uint64_t lo, hi;
        bool write;
        std::vector<std::uint64_t> waiters;  // ReadAhead: read chunks waiting for it
    };
    enum class Cover : std::uint8_t { No, Cached, Reading };

    // --- the extent map and its indexes; every change goes through these three
    void insert_seg(const Key& k, const Seg& s) {
        segs_.emplace(k, s);
        index(k, s, true);
    }
    void erase_seg(SegMap::iterator it) {
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
        if (s.state == State::Reading) return;  // not in memory yet
        const std::uint64_t len = s.end - k.second;
        if (add) {
            used_ += len;
            stats_.peak_memory = std::max(stats_.peak_memory, used_);
        } else {
            used_ -= len;
        }
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
    // Whether [lo, hi) is wholly in memory (Cached), wholly in memory or being read (Reading:
    // `tokens` gets the reads it waits for), or not (No).
    Cover lookup(std::uint32_t file, std::uint64_t lo, std::uint64_t hi,
                 std::vector<std::uint64_t>& tokens) {
        std::uint64_t pos = lo;
        for (auto it = first_overlapping(file, lo); pos < hi; ++it) {
            if (it == segs_.end() || it->first.first != file || it->first.second > pos)
                return Cover::No;
            if (it->second.state == State::Reading) tokens.push_back(it->second.token);
            pos = it->second.end;
        }
        if (tokens.empty()) return Cover::Cached;
        std::sort(tokens.begin(), tokens.end());
        tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
        return Cover::Reading;
    }

    void queue_direct(Job job) {
        const std::uint64_t token = next_token_++;
        jobs_.emplace(token, std::move(job));
        direct_.push_back(token);
    }
    // A read miss: the chunk's range, extended by read-ahead to read_ahead_ bytes from its
    // start, but not past object_end nor into data cached or being read already. The parts
    // of the range not cached are marked Reading until the read finishes.
    void read_miss(const Chunk& c) {
        const std::uint64_t lo = c.offset, end = c.offset + c.bytes;
        if (read_ahead_ == 0) {
            queue_direct(Job{Kind::Direct, c.id, c.file, lo, end, false, {}});
            return;
        }
        std::uint64_t hi = end;
        if (c.object_end > lo)
            hi = std::max(end, lo + std::min(std::max(c.bytes, read_ahead_), c.object_end - lo));
        const auto after = first_overlapping(c.file, end);
        if (after != segs_.end() && after->first.first == c.file && after->first.second < hi)
            hi = std::max(end, after->first.second);
        const std::uint64_t token = next_token_;
        queue_direct(Job{Kind::ReadAhead, c.id, c.file, lo, hi, false, {}});
        std::uint64_t pos = lo;
        for (auto it = first_overlapping(c.file, lo); pos < hi; ++it) {
            const std::uint64_t gap_end = it == segs_.end() || it->first.first != c.file
                                              ? hi
                                              : std::min(hi, it->first.second);
            if (gap_end > pos) insert_seg(Key{c.file, pos}, Seg{gap_end, State::Reading, 0, token});
            if (gap_end == hi) break;
            pos = std::max(pos, it->second.end);
        }
    }
    // Read-ahead `token` finished: its Reading extents become clean, evicting clean data
    // oldest-first to make room. What does not fit even then is not cached: the extents are
    // kept in offset order (nearest the chunk first) up to the room there is.
    void cache_read(std::uint64_t token, const Job& job) {
        std::vector<SegMap::iterator> mine;
        std::uint64_t bytes = 0;
        for (auto it = first_overlapping(job.file, job.lo);
             it != segs_.end() && it->first.first == job.file && it->first.second < job.hi; ++it)
            if (it->second.state == State::Reading && it->second.token == token) {
                mine.push_back(it);
                bytes += it->second.end - it->first.second;
            }
        const std::uint64_t pinned = used_ - clean_bytes_;  // dirty and flushing
        std::uint64_t keep = memory_ > pinned ? std::min(bytes, memory_ - pinned) : 0;
        while (used_ + keep > memory_) {
            assert(!clean_order_.empty());
            const auto [seq, file, start] = *clean_order_.begin();
            (void)seq;
            erase_seg(segs_.find(Key{file, start}));
        }
        const std::uint64_t seq = next_seq_++;
        for (const auto it : mine) {
            const Key k = it->first;
            const std::uint64_t len = it->second.end - k.second;
            if (len <= keep) {
                it->second.seq = seq;
                set_state(it, State::Clean, 0);
                keep -= len;
            } else {
                erase_seg(it);
                if (keep > 0) insert_seg(k, Seg{k.second + keep, State::Clean, seq, 0});
                keep = 0;
            }
        }
    }

    // Stores write `c` as dirty if it fits, evicting clean data oldest-first; false if it
    // does not fit even with all clean data (outside its own range) evicted.
    bool store(const Chunk& c) {
        const std::uint64_t lo = c.offset, hi = c.offset + c.bytes;
        split(c.file, lo);
        split(c.file, hi);
        std::uint64_t old = 0, old_clean = 0;  // bytes of the range in memory already
        for (auto it = segs_.lower_bound(Key{c.file, lo});
             it != segs_.end() && it->first.first == c.file && it->first.second < hi; ++it) {
            if (it->second.state == State::Reading) continue;
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
        // A range being read ahead is replaced too: the newer data wins when the read ends.
        erase_range(c.file, lo, hi);
        insert_seg(Key{c.file, lo}, Seg{hi, State::Dirty, next_seq_++, 0});
        return true;
    }
    // Stores waiting writes, in order, while they fit; appends the admitted chunk ids.
    void admit_waiting(std::vector<std::uint64_t>& done) {
        while (!waiting_.empty() && store(waiting_.front())) {
            stored(waiting_.front(), done);
            waiting_.pop_front();
        }
    }
    // A write just stored in memory: safe at once without a copy rate, else once copied
    // (after the copies before it).
    void stored(const Chunk& c, std::vector<std::uint64_t>& done) {
        if (copy_rate_.infinite()) {
            done.push_back(c.id);
            return;
        }
        copy_free_ = max(host().now(), copy_free_) + transfer_time(c.bytes, copy_rate_);
        copies_.emplace_back(c.id, copy_free_);
    }
    void report_copies() {
        if (copies_.empty()) return;
        const std::vector<std::pair<std::uint64_t, Time>> copies = std::move(copies_);
        copies_.clear();
        for (const auto& [id, at] : copies) host().chunk_done_at(id, at);
    }

    std::uint64_t memory_;
    std::uint64_t max_request_;
    std::uint64_t read_ahead_;
    SegMap segs_;  // non-overlapping extents of each file
    Order dirty_order_;
    Order clean_order_;
    std::uint64_t used_ = 0;  // bytes in memory: dirty, flushing, clean (not Reading)
    std::uint64_t clean_bytes_ = 0;
    std::unordered_map<std::uint32_t, std::uint64_t> dirty_by_file_;  // dirty + flushing
    std::deque<std::uint64_t> direct_;             // tokens of read misses and write-throughs, FIFO
    std::deque<Chunk> waiting_;                    // writes waiting for memory
    std::unordered_map<std::uint64_t, Job> jobs_;  // queued in direct_ or in service
    std::unordered_map<std::uint64_t, std::size_t> wait_left_;  // chunk -> reads it waits for
    std::uint64_t next_token_ = 1;
    std::uint64_t next_seq_ = 1;
    Bandwidth copy_rate_;                                 // infinite: no copy cost
    Time copy_free_;                                      // when the copy engine is free
    std::vector<std::pair<std::uint64_t, Time>> copies_;  // chunk, safe at (to report)
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
        "flushed in the background; reads of cached data are hits, read misses optionally "
        "read ahead",
        {{"memory", "size", "B", "the server node's memory", "bytes of cached data at most"},
         {"max-request", "size", "B", "10MiB", "largest merged flush"},
         {"read-ahead", "size", "B", "0B",
          "a read miss reads this many bytes from its start (not past the object's end) and "
          "caches them (0B: off)"},
         {"copy-rate", "bandwidth", "B/s", "none: at once",
          "a write is safe once copied into memory at this rate, one copy after another"}},
        [](const Params& p) -> std::unique_ptr<CacheLayer> {
            const std::uint64_t memory = p.size("memory", p.node_memory());  // documented
            const std::uint64_t max_request = p.size("max-request");
            const std::uint64_t read_ahead = p.size("read-ahead");
            const Bandwidth copy_rate = p.bandwidth("copy-rate", kInfiniteBandwidth);
            return std::make_unique<WriteBehindLayer>(memory, max_request, read_ahead, copy_rate);
        }});
    registry.add(Entry<CacheLayer>{
        "aggregation",
        "arrival order, each request merged with the pending contiguous chunks of its file",
        {{"max-request", "size", "B", "10MiB", "largest merged request"}},
        [](const Params& p) -> std::unique_ptr<CacheLayer> {
            return std::make_unique<AggregationLayer>(p.size("max-request"));
        }});
    registry.add(Entry<CacheLayer>{
        "reorder",
        "elevator (C-SCAN) over file and offset, merging contiguous pending chunks",
        {{"max-request", "size", "B", "10MiB", "largest merged request"}},
        [](const Params& p) -> std::unique_ptr<CacheLayer> {
            return std::make_unique<ReorderLayer>(p.size("max-request"));
        }});
}

CacheRegistry& cache_models() {
    static CacheRegistry registry("cache");
    static const bool filled = (register_builtin_caches(registry), true);
    (void)filled;
    return registry;
}

}  // namespace clustersim::io
