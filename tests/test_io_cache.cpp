// Cache layers driven by a small harness (no engine): a fake host records when each chunk is
// done, and a fake clock serves the disk requests the layer hands out while channels are free,
// completing them in time order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "iosys/cache.hpp"
#include "iosys/disk.hpp"
#include "simulator/error.hpp"
#include "simulator/units.hpp"

namespace clustersim::io {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Params = std::vector<std::pair<std::string, std::string>>;

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t k64K = 64 * kKiB;
constexpr std::uint64_t kMiB = 1024 * kKiB;

io::ComponentSpec spec_of(const std::string& model, Params params) {
    io::ComponentSpec spec;
    spec.model = model;
    spec.params = std::move(params);
    spec.line = 12;
    return spec;
}

std::unique_ptr<Disk> make_disk(const std::string& model, Params params) {
    DiskRegistry registry("disk");
    register_builtin_disks(registry);
    return registry.make(spec_of(model, std::move(params)), "model.xml", 0);
}

std::unique_ptr<CacheLayer> make_cache(const std::string& model, Params params,
                                       std::uint64_t node_memory = 1ULL << 30) {
    CacheRegistry registry("cache");
    register_builtin_caches(registry);
    return registry.make(spec_of(model, std::move(params)), "model.xml", node_memory);
}

class FakeHost final : public CacheHost {
  public:
    explicit FakeHost(const Time& clock) : clock_(clock) {}
    void chunk_done(std::uint64_t id) override {
        done.push_back(id);
        done_at[id] = clock_;
    }
    void wake() override { ++wakes; }
    Time now() const override { return clock_; }
    void chunk_done_at(std::uint64_t id, Time at) override {
        done.push_back(id);
        done_at[id] = at;
    }
    std::vector<std::uint64_t> done;        // in completion order
    std::map<std::uint64_t, Time> done_at;  // chunk id -> time
    int wakes = 0;

  private:
    const Time& clock_;
};

// A server without network: chunks are submitted at the current time; run() serves the disk.
struct Rig {
    Rig(std::unique_ptr<Disk> d, std::unique_ptr<CacheLayer> c)
        : disk(std::move(d)), cache(std::move(c)), host(now) {
        cache->attach(host);
    }
    void submit(std::uint64_t id, std::uint32_t file, std::uint64_t offset, std::uint64_t bytes,
                bool write) {
        cache->submit(Chunk{id, file, offset, bytes, write});
    }
    void read(std::uint64_t id, std::uint32_t file, std::uint64_t offset, std::uint64_t bytes,
              std::uint64_t object_end) {
        cache->submit(Chunk{id, file, offset, bytes, false, object_end});
    }
    // Hands out requests while a channel is free.
    void pump() {
        DiskRequest r;
        std::uint64_t token = 0;
        while (in_service.size() < disk->channels() && cache->next(r, token)) {
            served.push_back(r);
            in_service.emplace(now + disk->service(r), token);
        }
    }
    // Serves the disk, completing requests in time order, until idle or past `until`.
    void run(Time until = Time::max()) {
        pump();
        while (!in_service.empty() && in_service.begin()->first <= until) {
            const auto it = in_service.begin();
            now = it->first;
            const std::uint64_t token = it->second;
            in_service.erase(it);
            cache->disk_done(token);
            pump();
        }
        if (until != Time::max()) now = max(now, until);
    }
    // Completes the disk request that finishes first; false if the disk is idle.
    bool step() {
        pump();
        if (in_service.empty()) return false;
        const auto it = in_service.begin();
        now = it->first;
        const std::uint64_t token = it->second;
        in_service.erase(it);
        cache->disk_done(token);
        pump();
        return true;
    }
    std::vector<std::uint64_t> offsets() const {
        std::vector<std::uint64_t> out;
        for (const auto& r : served) out.push_back(r.offset);
        return out;
    }

    std::unique_ptr<Disk> disk;
    std::unique_ptr<CacheLayer> cache;
    Time now;
    FakeHost host;
    std::multimap<Time, std::uint64_t> in_service;  // finish time -> token
    std::vector<DiskRequest> served;
};

// 64 KiB take exactly 1 ms at this rate.
const Params kSimple64KPerMs{{"rate", "65536000B/s"}};

Rig simple_rig(const std::string& cache, Params params = {}) {
    return Rig(make_disk("simple", kSimple64KPerMs), make_cache(cache, std::move(params)));
}

TEST(IoCache, NoneIsFifo) {
    Rig rig = simple_rig("none");
    const std::uint64_t order[] = {3, 0, 2, 1};
    for (std::uint64_t i = 0; i < 4; ++i) rig.submit(i + 1, 0, order[i] * k64K, k64K, true);
    EXPECT_TRUE(rig.host.done.empty());
    rig.run();
    EXPECT_THAT(rig.offsets(), ElementsAre(3 * k64K, 0, 2 * k64K, k64K));
    EXPECT_THAT(rig.host.done, ElementsAre(1, 2, 3, 4));
    for (std::uint64_t i = 1; i <= 4; ++i)
        EXPECT_EQ(rig.host.done_at[i], Time::ms(static_cast<std::int64_t>(i)));
    EXPECT_EQ(rig.disk->stats().requests, 4u);
    EXPECT_EQ(rig.cache->stats().merged, 0u);
}

TEST(IoCache, SsdChannelsServeRequestsConcurrently) {
    Rig rig(make_disk("ssd", {{"read-rate", "1GB/s"}, {"channels", "4"}}), make_cache("none", {}));
    for (std::uint64_t i = 0; i < 8; ++i) rig.submit(i, 0, i * 1'000'000, 1'000'000, false);
    rig.run();
    const Time one = Time::us(50) + Time::ms(1);
    for (std::uint64_t i = 0; i < 8; ++i) EXPECT_EQ(rig.host.done_at[i], i < 4 ? one : 2 * one);
    EXPECT_EQ(rig.cache->stats().misses, 8u);
}

TEST(IoCache, AggregationMergesAdjacentChunks) {
    Rig rig = simple_rig("aggregation");
    const std::uint64_t order[] = {3, 0, 7, 1, 5, 2, 6, 4};
    for (std::uint64_t i = 0; i < 8; ++i) rig.submit(i, 0, order[i] * k64K, k64K, true);
    rig.submit(8, 0, 8 * k64K, k64K, false);  // a read: not merged with writes
    rig.submit(9, 1, 8 * k64K, k64K, true);   // another file: not merged
    rig.run();
    ASSERT_EQ(rig.served.size(), 3u);
    EXPECT_EQ(rig.served[0].offset, 0u);
    EXPECT_EQ(rig.served[0].bytes, 8 * k64K);
    EXPECT_TRUE(rig.served[0].write);
    EXPECT_EQ(rig.cache->stats().merged, 7u);
    for (std::uint64_t i = 0; i < 8; ++i) EXPECT_EQ(rig.host.done_at[i], Time::ms(8));
    EXPECT_EQ(rig.host.done_at[8], Time::ms(9));
    EXPECT_EQ(rig.host.done_at[9], Time::ms(10));
    EXPECT_EQ(rig.host.done.size(), 10u);
}

TEST(IoCache, AggregationRespectsMaxRequest) {
    Rig rig = simple_rig("aggregation", {{"max-request", "256KiB"}});
    const std::uint64_t order[] = {3, 0, 7, 1, 5, 2, 6, 4};
    for (std::uint64_t i = 0; i < 8; ++i) rig.submit(i, 0, order[i] * k64K, k64K, true);
    rig.run();
    // Head 3 takes 4, 5, 6 (256 KiB); then the oldest left, 0, takes 1 and 2; then 7.
    ASSERT_EQ(rig.served.size(), 3u);
    EXPECT_THAT(rig.offsets(), ElementsAre(3 * k64K, 0, 7 * k64K));
    EXPECT_EQ(rig.served[0].bytes, 4 * k64K);
    EXPECT_EQ(rig.served[1].bytes, 3 * k64K);
    EXPECT_EQ(rig.served[2].bytes, k64K);
    EXPECT_EQ(rig.cache->stats().merged, 5u);
    EXPECT_EQ(rig.host.done.size(), 8u);
}

TEST(IoCache, ReorderIsCScan) {
    auto cache = make_cache("reorder", {});
    Time clock;
    FakeHost host(clock);
    cache->attach(host);
    DiskRequest r;
    std::uint64_t token = 0;
    auto next_offset = [&]() -> std::uint64_t {
        EXPECT_TRUE(cache->next(r, token));
        return r.offset;
    };
    cache->submit(Chunk{1, 0, 50 * kMiB, k64K, true});
    cache->submit(Chunk{2, 0, 10 * kMiB, k64K, true});
    cache->submit(Chunk{3, 0, 30 * kMiB, k64K, true});
    EXPECT_EQ(next_offset(), 10 * kMiB);
    cache->submit(Chunk{4, 0, 20 * kMiB, k64K, true});  // ahead of the head: this sweep
    cache->submit(Chunk{5, 0, 5 * kMiB, k64K, true});   // behind it: next sweep
    EXPECT_EQ(next_offset(), 20 * kMiB);
    EXPECT_EQ(next_offset(), 30 * kMiB);
    cache->submit(Chunk{6, 1, 0, k64K, true});  // file 1 sorts after file 0: this sweep
    cache->submit(Chunk{7, 0, 1 * kMiB, k64K, true});
    EXPECT_EQ(next_offset(), 50 * kMiB);
    EXPECT_EQ(r.file, 0u);
    EXPECT_EQ(next_offset(), 0u);
    EXPECT_EQ(r.file, 1u);
    EXPECT_EQ(next_offset(), 1 * kMiB);  // wrapped to the lowest
    EXPECT_EQ(next_offset(), 5 * kMiB);
    EXPECT_FALSE(cache->next(r, token));
    EXPECT_EQ(cache->stats().merged, 0u);
}

TEST(IoCache, ReorderMergesContiguousNeighbours) {
    Rig rig = simple_rig("reorder");
    const std::uint64_t order[] = {5, 2, 9, 3, 4};  // 2..5 contiguous, 9 apart
    for (std::uint64_t i = 0; i < 5; ++i) rig.submit(i, 0, order[i] * k64K, k64K, false);
    rig.run();
    ASSERT_EQ(rig.served.size(), 2u);
    EXPECT_EQ(rig.served[0].offset, 2 * k64K);
    EXPECT_EQ(rig.served[0].bytes, 4 * k64K);
    EXPECT_EQ(rig.served[1].offset, 9 * k64K);
    EXPECT_EQ(rig.cache->stats().merged, 3u);
    EXPECT_EQ(rig.cache->stats().misses, 5u);
}

// 4 clients each write 16 strided 64 KiB chunks (client c: blocks 4i + c), client by client.
void submit_strided(Rig& rig) {
    std::uint64_t id = 0;
    for (std::uint64_t c = 0; c < 4; ++c)
        for (std::uint64_t i = 0; i < 16; ++i) rig.submit(id++, 0, (4 * i + c) * k64K, k64K, true);
}

TEST(IoCache, StridedWritesOnHddSeekUnlessScheduled) {
    const Params hdd{{"rate", "50MB/s"}};
    const Time t64k = transfer_time(k64K, Bandwidth{50'000'000});
    const Time half = Time::ps(4'166'666'667);

    Rig none(make_disk("hdd", hdd), make_cache("none", {}));
    submit_strided(none);
    none.run();
    // Every chunk but the first jumps within 5 MB: 63 track-to-track seeks.
    EXPECT_EQ(none.disk->stats().requests, 64u);
    EXPECT_EQ(none.disk->stats().average_seeks, 1u);
    EXPECT_EQ(none.disk->stats().track_seeks, 63u);
    EXPECT_EQ(none.now, 64 * t64k + Time::ms(10) + 63 * Time::ms(1) + 64 * half);

    Rig elevator(make_disk("hdd", hdd), make_cache("reorder", {{"max-request", "64KiB"}}));
    submit_strided(elevator);
    elevator.run();
    // In ascending order, one sequential pass: only the first access seeks.
    EXPECT_EQ(elevator.disk->stats().requests, 64u);
    EXPECT_EQ(elevator.disk->stats().average_seeks, 1u);
    EXPECT_EQ(elevator.disk->stats().track_seeks, 0u);
    EXPECT_EQ(elevator.now, 64 * t64k + Time::ms(10) + half);
    for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(elevator.served[i].offset, i * k64K);

    Rig merged(make_disk("hdd", hdd), make_cache("reorder", {}));
    submit_strided(merged);
    merged.run();
    EXPECT_EQ(merged.disk->stats().requests, 1u);
    EXPECT_EQ(merged.disk->stats().track_seeks, 0u);
    EXPECT_EQ(merged.cache->stats().merged, 63u);

    Rig aggregation(make_disk("hdd", hdd), make_cache("aggregation", {}));
    submit_strided(aggregation);
    aggregation.run();
    EXPECT_EQ(aggregation.disk->stats().requests, 1u);
    EXPECT_EQ(aggregation.disk->stats().average_seeks, 1u);
    EXPECT_EQ(aggregation.disk->stats().track_seeks, 0u);
    EXPECT_EQ(aggregation.now,
              transfer_time(64 * k64K, Bandwidth{50'000'000}) + Time::ms(10) + half);
    EXPECT_EQ(aggregation.host.done.size(), 64u);
}

TEST(IoCache, WriteBehindAcknowledgesAtOnceAndFlushesLater) {
    Rig rig = simple_rig("write_behind", {{"memory", "1MiB"}});
    for (std::uint64_t i = 0; i < 4; ++i) rig.submit(i, 7, i * k64K, k64K, true);
    // Acknowledged inside submit, before the disk did anything.
    EXPECT_THAT(rig.host.done, ElementsAre(0, 1, 2, 3));
    EXPECT_TRUE(rig.served.empty());
    EXPECT_GT(rig.host.wakes, 0);
    EXPECT_EQ(rig.cache->dirty_bytes(7), 4 * k64K);
    EXPECT_EQ(rig.cache->dirty_bytes(8), 0u);
    rig.run();
    for (std::uint64_t i = 0; i < 4; ++i) EXPECT_EQ(rig.host.done_at[i], Time::zero());
    // One merged flush of the four.
    ASSERT_EQ(rig.served.size(), 1u);
    EXPECT_EQ(rig.served[0].bytes, 4 * k64K);
    EXPECT_TRUE(rig.served[0].write);
    EXPECT_EQ(rig.now, Time::ms(4));
    EXPECT_EQ(rig.cache->dirty_bytes(7), 0u);
    EXPECT_EQ(rig.cache->stats().peak_memory, 4 * k64K);
    EXPECT_EQ(rig.cache->stats().write_stalls, 0u);
}

TEST(IoCache, WriteBehindDirtyBytesDuringFlush) {
    Rig rig = simple_rig("write_behind", {{"memory", "1MiB"}, {"max-request", "64KiB"}});
    for (std::uint64_t i = 0; i < 3; ++i) rig.submit(i, 1, i * k64K, k64K, true);
    rig.run(Time::us(1500));  // first flush done, second in service
    EXPECT_EQ(rig.cache->dirty_bytes(1), 2 * k64K);
    rig.run();
    EXPECT_EQ(rig.served.size(), 3u);
    EXPECT_EQ(rig.cache->dirty_bytes(1), 0u);
}

TEST(IoCache, WriteBehindStallsUntilFlushesFreeMemory) {
    Rig rig = simple_rig("write_behind", {{"memory", "256KiB"}, {"max-request", "64KiB"}});
    for (std::uint64_t i = 0; i < 4; ++i) rig.submit(i, 0, i * k64K, k64K, true);  // full
    rig.submit(4, 0, kMiB, 2 * k64K, true);  // needs two flushed chunks
    EXPECT_THAT(rig.host.done, ElementsAre(0, 1, 2, 3));
    rig.run(Time::us(1500));
    // Chunk 0 is clean now: chunk 5 would fit, but waits behind chunk 4 (FIFO).
    rig.submit(5, 0, 2 * kMiB, k64K, true);
    EXPECT_THAT(rig.host.done, ElementsAre(0, 1, 2, 3));
    EXPECT_EQ(rig.cache->stats().write_stalls, 2u);
    rig.run();
    // Flushes take 1 ms each: chunk 0 clean at 1 ms (64 KiB free: not enough for chunk 4),
    // chunk 1 at 2 ms (chunk 4 in), chunk 2 at 3 ms (chunk 5 in).
    EXPECT_EQ(rig.host.done_at[4], Time::ms(2));
    EXPECT_EQ(rig.host.done_at[5], Time::ms(3));
    // Chunk 4's 128 KiB extent is flushed whole (larger than max-request).
    EXPECT_THAT(rig.offsets(), ElementsAre(0, k64K, 2 * k64K, 3 * k64K, kMiB, 2 * kMiB));
    EXPECT_EQ(rig.now, Time::ms(7));
    EXPECT_EQ(rig.cache->stats().peak_memory, 256 * kKiB);
    EXPECT_EQ(rig.cache->dirty_bytes(0), 0u);
}

// copy-rate (issue 23): a cached write is safe bytes / copy-rate after it was stored, the
// copies one after another; without it at once (the tests above).
TEST(IoCache, WriteBehindCopyRateChargesSizeOverRate) {
    // 64 KiB at 65,536,000 B/s: exactly 1 ms per chunk.
    Rig rig =
        simple_rig("write_behind",
                   {{"memory", "256KiB"}, {"copy-rate", "65536000B/s"}, {"max-request", "64KiB"}});
    for (std::uint64_t i = 0; i < 3; ++i) rig.submit(i, 0, i * k64K, k64K, true);
    EXPECT_EQ(rig.host.done_at[0], Time::ms(1));
    EXPECT_EQ(rig.host.done_at[1], Time::ms(2));  // after the first copy
    EXPECT_EQ(rig.host.done_at[2], Time::ms(3));
    // 160 B at the same rate: 160 / 65,536,000 s = 2,441,406.25 ps, rounded.
    rig.run(Time::ms(10));
    rig.submit(3, 1, 0, 160, true);
    EXPECT_EQ(rig.host.done_at[3], Time::ms(10) + Time::ps(2'441'406));
    // The data is dirty (and flushed) from the moment it is stored.
    EXPECT_EQ(rig.cache->dirty_bytes(1), 160u);
    rig.run();
    EXPECT_EQ(rig.cache->dirty_bytes(0), 0u);
    EXPECT_EQ(rig.cache->stats().write_stalls, 0u);
    // Reads (hits) are not charged.
    rig.read(9, 0, 0, k64K, 3 * k64K);
    EXPECT_EQ(rig.host.done_at[9], rig.now);
}

TEST(IoCache, WriteBehindCopyAfterAStall) {
    Rig rig = simple_rig("write_behind", {{"memory", "64KiB"}, {"copy-rate", "65536000B/s"}});
    rig.submit(0, 0, 0, k64K, true);         // copied by 1 ms; flushed from 0 to 1 ms
    rig.submit(1, 0, 4 * k64K, k64K, true);  // waits for memory: admitted at 1 ms, copied by 2
    EXPECT_EQ(rig.host.done_at[0], Time::ms(1));
    EXPECT_EQ(rig.host.done_at.count(1), 0u);
    rig.run();
    EXPECT_EQ(rig.host.done_at[1], Time::ms(2));
    EXPECT_EQ(rig.cache->stats().write_stalls, 1u);
}

TEST(IoCache, WriteBehindCopyRateMustBeABandwidth) {
    EXPECT_THROW((void)make_cache("write_behind", {{"copy-rate", "fast"}}), InputError);
}

TEST(IoCache, WriteBehindWritesThroughWhatExceedsMemory) {
    Rig rig = simple_rig("write_behind", {{"memory", "64KiB"}});
    rig.submit(1, 0, 0, 2 * k64K, true);
    EXPECT_TRUE(rig.host.done.empty());
    EXPECT_EQ(rig.cache->dirty_bytes(0), 0u);
    rig.run();
    EXPECT_EQ(rig.host.done_at[1], Time::ms(2));
}

TEST(IoCache, WriteBehindDefaultsToNodeMemory) {
    Rig rig(make_disk("simple", kSimple64KPerMs), make_cache("write_behind", {}, 128 * kKiB));
    rig.submit(1, 0, 0, 2 * k64K, true);     // fits
    rig.submit(2, 0, kMiB, 3 * k64K, true);  // larger than the node's memory: through
    EXPECT_THAT(rig.host.done, ElementsAre(1));
    rig.run();
    EXPECT_EQ(rig.host.done_at[2], Time::ms(3));  // write-through first, then the flush
}

TEST(IoCache, WriteBehindReadHitsAndMisses) {
    Rig rig = simple_rig("write_behind", {{"memory", "1MiB"}});
    rig.submit(1, 0, 0, 2 * k64K, true);
    rig.submit(2, 0, 32 * kKiB, k64K, false);  // inside the written range: hit
    EXPECT_THAT(rig.host.done, ElementsAre(1, 2));
    rig.submit(3, 0, 100 * kKiB, k64K, false);  // partly beyond it: miss
    rig.submit(4, 1, 0, k64K, false);           // another file: miss
    EXPECT_THAT(rig.host.done, ElementsAre(1, 2));
    rig.run();
    // Read misses go before the flush.
    ASSERT_EQ(rig.served.size(), 3u);
    EXPECT_FALSE(rig.served[0].write);
    EXPECT_EQ(rig.served[0].offset, 100 * kKiB);
    EXPECT_FALSE(rig.served[1].write);
    EXPECT_TRUE(rig.served[2].write);
    EXPECT_EQ(rig.host.done_at[3], Time::ms(1));
    EXPECT_EQ(rig.host.done_at[4], Time::ms(2));
    // Flushed data stays cached (clean): still a hit. Read data is not cached: still a miss.
    rig.submit(5, 0, 0, 2 * k64K, false);
    rig.submit(6, 1, 0, k64K, false);
    EXPECT_THAT(rig.host.done, ElementsAre(1, 2, 3, 4, 5));
    rig.run();
    const CacheStats& s = rig.cache->stats();
    EXPECT_EQ(s.hits, 2u);
    EXPECT_EQ(s.hit_bytes, 3 * k64K);
    EXPECT_EQ(s.misses, 3u);
    EXPECT_EQ(rig.host.done.size(), 6u);
}

TEST(IoCache, WriteBehindRewritesDoNotDoubleCount) {
    Rig rig = simple_rig("write_behind", {{"memory", "192KiB"}});
    rig.submit(1, 0, 0, 2 * k64K, true);
    rig.submit(2, 0, 0, 2 * k64K, true);     // the same range again
    rig.submit(3, 0, k64K, 2 * k64K, true);  // half overlapping: 64 KiB more
    EXPECT_THAT(rig.host.done, ElementsAre(1, 2, 3));
    EXPECT_EQ(rig.cache->stats().write_stalls, 0u);
    EXPECT_EQ(rig.cache->stats().peak_memory, 3 * k64K);
    EXPECT_EQ(rig.cache->dirty_bytes(0), 3 * k64K);
    rig.run();
    EXPECT_EQ(rig.cache->dirty_bytes(0), 0u);
    // Clean data is evicted for new writes.
    rig.submit(4, 0, kMiB, 3 * k64K, true);
    EXPECT_THAT(rig.host.done, ElementsAre(1, 2, 3, 4));
    EXPECT_EQ(rig.cache->stats().write_stalls, 0u);
}

TEST(IoCache, WriteBehindRewriteDuringFlushIsFlushedAgain) {
    Rig rig = simple_rig("write_behind", {{"memory", "1MiB"}});
    rig.submit(1, 0, 0, k64K, true);
    rig.run(Time::us(500));  // the flush is in service
    EXPECT_EQ(rig.served.size(), 1u);
    rig.submit(2, 0, 0, k64K, true);
    rig.run();
    EXPECT_EQ(rig.served.size(), 2u);
    EXPECT_EQ(rig.now, Time::ms(2));
    EXPECT_EQ(rig.cache->dirty_bytes(0), 0u);
}

// Random mixes of reads and writes, overlapping and not, arriving while the disk works: every
// chunk completes exactly once, and write_behind stays within its memory and ends clean.
TEST(IoCache, RandomWorkloadsCompleteEveryChunkOnce) {
    const std::vector<std::pair<std::string, Params>> layers{
        {"none", {}},
        {"aggregation", {{"max-request", "128KiB"}}},
        {"reorder", {{"max-request", "128KiB"}}},
        {"write_behind", {{"memory", "512KiB"}, {"max-request", "128KiB"}}},
        {"write_behind", {{"memory", "48KiB"}}},
        {"write_behind", {{"memory", "512KiB"}, {"read-ahead", "256KiB"}}},
        {"write_behind", {{"memory", "96KiB"}, {"read-ahead", "1MiB"}}}};
    for (const auto& [model, params] : layers) {
        for (const char* disk : {"hdd", "ssd"}) {
            Rig rig(std::string(disk) == "hdd" ? make_disk("hdd", {{"rate", "50MB/s"}})
                                               : make_disk("ssd", {{"read-rate", "1GB/s"}}),
                    make_cache(model, params));
            std::mt19937_64 rng(42);
            std::uint64_t chunk_bytes = 0;
            const std::uint64_t n = 600;
            for (std::uint64_t id = 0; id < n; ++id) {
                const auto file = static_cast<std::uint32_t>(rng() % 3);
                const std::uint64_t offset = (rng() % 64) * 16 * kKiB;
                const std::uint64_t bytes = (1 + rng() % 8) * 16 * kKiB;
                rig.submit(id, file, offset, bytes, rng() % 3 != 0);
                chunk_bytes += bytes;
                if (rng() % 4 == 0)
                    rig.run(rig.now + Time::us(static_cast<std::int64_t>(rng() % 3000)));
            }
            rig.run();
            SCOPED_TRACE(model + " on " + disk);
            ASSERT_EQ(rig.host.done.size(), n);
            EXPECT_EQ(rig.host.done_at.size(), n);  // each id once
            EXPECT_TRUE(rig.in_service.empty());
            DiskRequest r;
            std::uint64_t token = 0;
            EXPECT_FALSE(rig.cache->next(r, token));
            for (std::uint32_t f = 0; f < 3; ++f) EXPECT_EQ(rig.cache->dirty_bytes(f), 0u);
            const DiskStats& d = rig.disk->stats();
            if (model == "write_behind") {
                EXPECT_LE(rig.cache->stats().peak_memory, parse_size(params[0].second));
            } else {
                EXPECT_EQ(d.bytes_read + d.bytes_written, chunk_bytes);
            }
        }
    }
}

TEST(IoCache, WriteBehindRewriteOverCleanDataNeedsOtherCleanData) {
    Rig rig = simple_rig("write_behind", {{"memory", "128KiB"}, {"max-request", "64KiB"}});
    rig.submit(1, 0, 0, k64K, true);
    rig.submit(2, 0, kMiB, k64K, true);
    rig.run(Time::us(1500));  // chunk 1 clean, chunk 2 being flushed
    // Replaces chunk 1's clean bytes and needs 64 KiB more: only chunk 2, once clean.
    rig.submit(3, 0, 0, 2 * k64K, true);
    EXPECT_EQ(rig.cache->stats().write_stalls, 1u);
    rig.run();
    EXPECT_EQ(rig.host.done_at[3], Time::ms(2));
    EXPECT_EQ(rig.now, Time::ms(4));
    EXPECT_EQ(rig.cache->stats().peak_memory, 2 * k64K);
}

TEST(IoCache, WriteBehindOldFlushDoesNotCleanANewerOne) {
    // Two channels: a rewrite's flush runs while the flush of the old data is still going.
    Rig rig(make_disk("ssd", {{"read-rate", "65536000B/s"}, {"channels", "2"}}),
            make_cache("write_behind", {{"memory", "1MiB"}}));
    rig.submit(1, 0, 0, k64K, true);
    rig.run(Time::us(500));  // flush A: 0 .. 1.05 ms
    rig.submit(2, 0, 0, k64K, true);
    rig.run(Time::us(600));  // flush B: 0.5 .. 1.55 ms
    ASSERT_EQ(rig.served.size(), 2u);
    rig.run(Time::us(1200));  // A done: the newer data is still not on disk
    EXPECT_EQ(rig.cache->dirty_bytes(0), k64K);
    rig.run();
    EXPECT_EQ(rig.cache->dirty_bytes(0), 0u);
    EXPECT_EQ(rig.now, Time::us(1550));
}

// `streams` blocking clients each read their own region of file 0 (stream s from s * region)
// sequentially in `chunk` pieces: round_robin, each submitting its next chunk only once its
// previous one is done. Returns the number of chunks.
std::uint64_t read_streams(Rig& rig, std::uint64_t streams, std::uint64_t region,
                           std::uint64_t bytes, std::uint64_t chunk, std::uint64_t object_end) {
    constexpr std::uint64_t kNone = UINT64_MAX;
    std::vector<std::uint64_t> pos(streams, 0), last(streams, kNone);
    std::uint64_t id = 0;
    for (;;) {
        bool submitted = false;
        for (std::uint64_t s = 0; s < streams; ++s) {
            if (pos[s] >= bytes || (last[s] != kNone && rig.host.done_at.count(last[s]) == 0))
                continue;
            last[s] = id;
            rig.read(id++, 0, s * region + pos[s], std::min(chunk, bytes - pos[s]), object_end);
            pos[s] += chunk;
            submitted = true;
        }
        if (!submitted && !rig.step()) break;
    }
    return id;
}

TEST(IoCache, WriteBehindReadAheadSavesSeeksOfInterleavedStreams) {
    const Params hdd{{"rate", "50MB/s"}};
    const std::uint64_t streams = 8, region = 128 * kMiB, bytes = 16 * kMiB;
    const std::uint64_t object_end = streams * region;

    Rig off(make_disk("hdd", hdd), make_cache("write_behind", {{"read-ahead", "0B"}}));
    const std::uint64_t chunks = read_streams(off, streams, region, bytes, k64K, object_end);
    ASSERT_EQ(chunks, streams * bytes / k64K);
    EXPECT_EQ(off.host.done.size(), chunks);
    // Every chunk is a disk request, and every one jumps to another region.
    const DiskStats& d0 = off.disk->stats();
    EXPECT_EQ(d0.requests, chunks);
    EXPECT_EQ(d0.average_seeks + d0.track_seeks, chunks);
    EXPECT_EQ(off.cache->stats().misses, chunks);
    EXPECT_EQ(off.cache->stats().hits, 0u);
    EXPECT_EQ(off.cache->stats().peak_memory, 0u);

    Rig ra(make_disk("hdd", hdd), make_cache("write_behind", {{"read-ahead", "4MiB"}}));
    ASSERT_EQ(read_streams(ra, streams, region, bytes, k64K, object_end), chunks);
    EXPECT_EQ(ra.host.done.size(), chunks);
    // One 4 MiB request per stream and 4 MiB: at most one seek each, plus one per stream.
    const std::uint64_t windows = streams * (bytes / (4 * kMiB));
    const DiskStats& d = ra.disk->stats();
    EXPECT_EQ(d.requests, windows);
    EXPECT_LE(d.average_seeks + d.track_seeks, windows + streams);
    EXPECT_EQ(d.bytes_read, streams * bytes);
    const CacheStats& s = ra.cache->stats();
    EXPECT_EQ(s.misses, windows);
    EXPECT_EQ(s.hits, chunks - windows);
    EXPECT_EQ(s.hit_bytes, (chunks - windows) * k64K);
    EXPECT_EQ(s.readahead_waits, 0u);  // blocking streams: the window is in before the next
    EXPECT_EQ(s.peak_memory, streams * bytes);
    EXPECT_LT(5 * ra.now, off.now);
}

TEST(IoCache, WriteBehindReadAheadStopsAtObjectEnd) {
    const std::uint64_t object = 3 * kMiB + 20 * kKiB;
    Rig rig = simple_rig("write_behind", {{"read-ahead", "16MiB"}});
    const std::uint64_t chunks = read_streams(rig, 1, 0, object, k64K, object);
    EXPECT_EQ(chunks, 49u);  // 48 whole ones and 20 KiB
    EXPECT_EQ(rig.host.done.size(), chunks);
    ASSERT_EQ(rig.served.size(), 1u);
    EXPECT_EQ(rig.served[0].offset, 0u);
    EXPECT_EQ(rig.disk->stats().bytes_read, object);
    EXPECT_EQ(rig.cache->stats().misses, 1u);
    EXPECT_EQ(rig.cache->stats().hits, chunks - 1);

    // A chunk reaching past object_end is still read whole, and no further.
    Rig past = simple_rig("write_behind", {{"read-ahead", "1MiB"}});
    past.read(1, 0, k64K, k64K, 100 * kKiB);
    past.read(2, 1, 0, k64K, 0);  // an empty object (a read-through without read-ahead)
    past.run();
    ASSERT_EQ(past.served.size(), 2u);
    EXPECT_EQ(past.served[0].offset, k64K);
    EXPECT_EQ(past.served[0].bytes, k64K);
    EXPECT_EQ(past.served[1].bytes, k64K);
    EXPECT_THAT(past.host.done, ElementsAre(1, 2));
}

TEST(IoCache, WriteBehindReadCoveredByReadAheadInFlightWaitsForIt) {
    Rig rig = simple_rig("write_behind", {{"read-ahead", "1MiB"}});  // 1 MiB: 16 ms
    rig.read(1, 0, 0, k64K, UINT64_MAX);                             // reads [0, 1M)
    rig.read(2, 0, k64K, k64K, UINT64_MAX);                          // covered: waits
    rig.read(3, 0, kMiB - k64K, k64K, UINT64_MAX);                   // covered: waits
    rig.read(4, 0, kMiB - 32 * kKiB, k64K, UINT64_MAX);       // partly: reads [1M-32K, 2M-32K)
    rig.read(5, 0, kMiB - 16 * kKiB, 32 * kKiB, UINT64_MAX);  // needs both reads
    EXPECT_TRUE(rig.host.done.empty());
    rig.run();
    ASSERT_EQ(rig.served.size(), 2u);
    EXPECT_EQ(rig.served[0].offset, 0u);
    EXPECT_EQ(rig.served[0].bytes, kMiB);
    EXPECT_EQ(rig.served[1].offset, kMiB - 32 * kKiB);
    EXPECT_EQ(rig.served[1].bytes, kMiB);
    for (const std::uint64_t id : {1, 2, 3}) EXPECT_EQ(rig.host.done_at[id], Time::ms(16));
    for (const std::uint64_t id : {4, 5}) EXPECT_EQ(rig.host.done_at[id], Time::ms(32));
    EXPECT_EQ(rig.host.done.size(), 5u);
    const CacheStats& s = rig.cache->stats();
    EXPECT_EQ(s.misses, 2u);
    EXPECT_EQ(s.readahead_waits, 3u);
    EXPECT_EQ(s.hits, 0u);
    // Both ranges are cached now (the overlap once).
    rig.read(6, 0, 0, 2 * kMiB - 32 * kKiB, UINT64_MAX);
    EXPECT_THAT(rig.host.done, ::testing::Contains(6u));
    EXPECT_EQ(s.hits, 1u);
    EXPECT_EQ(s.peak_memory, 2 * kMiB - 32 * kKiB);
}

TEST(IoCache, WriteBehindReadAheadRespectsMemory) {
    Rig rig = simple_rig("write_behind", {{"memory", "256KiB"}, {"read-ahead", "256KiB"}});
    for (std::uint64_t i = 0; i < 3; ++i) rig.submit(i, 0, 10 * kMiB + i * k64K, k64K, true);
    rig.read(3, 0, kMiB, k64K, UINT64_MAX);  // reads 256 KiB first (4 ms), flushes after
    rig.run(Time::us(4500));
    EXPECT_EQ(rig.host.done_at[3], Time::ms(4));
    // 192 KiB dirty: only the lowest 64 KiB read fit.
    EXPECT_EQ(rig.cache->stats().peak_memory, 256 * kKiB);
    rig.read(4, 0, kMiB, k64K, UINT64_MAX);
    EXPECT_EQ(rig.host.done_at.count(4), 1u);
    rig.read(5, 0, kMiB + k64K, k64K, UINT64_MAX);
    EXPECT_EQ(rig.host.done_at.count(5), 0u);
    rig.run();
    EXPECT_EQ(rig.cache->stats().hits, 1u);
    EXPECT_EQ(rig.cache->stats().misses, 2u);
    EXPECT_EQ(rig.cache->dirty_bytes(0), 0u);
    // All clean now: a read-ahead evicts the oldest clean data and is cached whole.
    rig.read(6, 0, 5 * kMiB, k64K, UINT64_MAX);
    rig.run();
    for (std::uint64_t i = 0; i < 4; ++i) rig.read(7 + i, 0, 5 * kMiB + i * k64K, k64K, UINT64_MAX);
    EXPECT_EQ(rig.cache->stats().hits, 5u);
    EXPECT_EQ(rig.host.done.size(), 11u);
    EXPECT_EQ(rig.cache->stats().peak_memory, 256 * kKiB);

    // Interleaved streams through a small cache: the budget holds, every chunk completes.
    Rig streams(make_disk("hdd", {{"rate", "50MB/s"}}),
                make_cache("write_behind", {{"memory", "1MiB"}, {"read-ahead", "512KiB"}}));
    const std::uint64_t chunks = read_streams(streams, 8, 64 * kMiB, 2 * kMiB, k64K, 1ULL << 30);
    EXPECT_EQ(streams.host.done.size(), chunks);
    EXPECT_EQ(streams.host.done_at.size(), chunks);
    EXPECT_LE(streams.cache->stats().peak_memory, kMiB);
    EXPECT_LT(streams.disk->stats().requests, chunks);
}

TEST(IoCache, WriteBehindWriteDuringReadAheadWins) {
    Rig rig = simple_rig("write_behind", {{"memory", "4MiB"}, {"read-ahead", "1MiB"}});
    rig.read(1, 0, 0, k64K, UINT64_MAX);     // reads [0, 1M): 16 ms
    rig.submit(2, 0, 2 * k64K, k64K, true);  // newer data inside the range being read
    EXPECT_THAT(rig.host.done, ElementsAre(2));
    rig.read(3, 0, 2 * k64K, k64K, UINT64_MAX);  // the new data: a hit
    EXPECT_THAT(rig.host.done, ElementsAre(2, 3));
    rig.run(Time::us(16500));  // the read is done; the write's flush is in service
    EXPECT_EQ(rig.host.done_at[1], Time::ms(16));
    EXPECT_EQ(rig.cache->dirty_bytes(0), k64K);
    EXPECT_EQ(rig.cache->stats().peak_memory, kMiB);  // counted once
    rig.run();
    ASSERT_EQ(rig.served.size(), 2u);
    EXPECT_TRUE(rig.served[1].write);
    EXPECT_EQ(rig.served[1].offset, 2 * k64K);
    EXPECT_EQ(rig.cache->dirty_bytes(0), 0u);
    rig.read(4, 0, 0, kMiB, UINT64_MAX);
    EXPECT_EQ(rig.host.done.size(), 4u);
    EXPECT_EQ(rig.cache->stats().hits, 2u);
    EXPECT_EQ(rig.cache->stats().misses, 1u);
}

TEST(IoCache, UnknownModelAndParameters) {
    try {
        make_cache("lru", {});
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_STREQ(e.what(),
                     "model.xml:12: unknown cache model 'lru'; valid: none, write_behind, "
                     "aggregation, reorder");
    }
    try {
        make_cache("none", {{"memory", "1GiB"}});
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("model.xml:12: <cache model=\"none\"> has no parameter "
                                        "'memory'"));
    }
    try {
        make_cache("write_behind", {{"memory", "lots"}});
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("model.xml:12: <cache model=\"write_behind\"> parameter "
                                        "'memory': 'lots'"));
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::io
