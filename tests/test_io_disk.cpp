// Disk models against their closed forms (integer picoseconds), the hdd seek choice, and the
// errors for bad disk parameters (with file:line).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "iosys/disk.hpp"
#include "simulator/error.hpp"

namespace clustersim::io {
namespace CLUSTERSIM_TEST_FILE {

using ::testing::HasSubstr;

constexpr int kLine = 7;
const std::string kFile = "model.xml";

std::unique_ptr<Disk> make_disk(const std::string& model,
                                std::vector<std::pair<std::string, std::string>> params) {
    DiskRegistry registry("disk");
    register_builtin_disks(registry);
    io::ComponentSpec spec;
    spec.model = model;
    spec.params = std::move(params);
    spec.line = kLine;
    return registry.make(spec, kFile, 1ULL << 30);
}

std::string error_of(const std::string& model,
                     std::vector<std::pair<std::string, std::string>> params) {
    try {
        make_disk(model, std::move(params));
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

DiskRequest req(std::uint32_t file, std::uint64_t offset, std::uint64_t bytes, bool write = false) {
    return DiskRequest{file, offset, bytes, write};
}

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGiB = 1ULL << 30;
// 2^20 B / (50 * 10^6 B/s) = 0.02097152 s.
constexpr Time kMiBAt50MB = Time::ps(20'971'520'000);
// Half a rotation at 7200 rpm: 30 s / 7200 = 4.1666... ms, rounded to the picosecond.
constexpr Time kHalfRotation7200 = Time::ps(4'166'666'667);

TEST(IoDisk, SimpleIsLatencyPlusTransfer) {
    auto disk = make_disk("simple", {{"rate", "50MB/s"}, {"latency", "5us"}});
    // 2^30 B at 50 MB/s = 21.47483648 s exactly.
    EXPECT_EQ(disk->service(req(0, 0, kGiB)), Time::ps(21'474'836'480'000) + Time::us(5));
    EXPECT_EQ(disk->service(req(3, 12345, kMiB, true)), kMiBAt50MB + Time::us(5));
    EXPECT_EQ(disk->channels(), 1u);
    EXPECT_EQ(disk->stats().requests, 2u);
    EXPECT_EQ(disk->stats().bytes_read, kGiB);
    EXPECT_EQ(disk->stats().bytes_written, kMiB);
    EXPECT_EQ(disk->stats().busy, Time::ps(21'474'836'480'000) + kMiBAt50MB + Time::us(10));

    auto no_latency = make_disk("simple", {{"rate", "1GB/s"}});
    EXPECT_EQ(no_latency->service(req(0, 0, 1'000'000)), Time::ms(1));
}

TEST(IoDisk, HddSeekChoice) {
    const std::uint64_t close = 5'000'000;
    EXPECT_EQ(hdd_seek(false, 0, 0, 0, 0, close), SeekKind::Average);  // first access
    EXPECT_EQ(hdd_seek(true, 1, 4096, 1, 4096, close), SeekKind::None);
    EXPECT_EQ(hdd_seek(true, 1, 4096, 1, 4096 + close, close), SeekKind::TrackToTrack);
    EXPECT_EQ(hdd_seek(true, 1, 4096, 1, 4097 + close, close), SeekKind::Average);
    EXPECT_EQ(hdd_seek(true, 1, close + 10, 1, 10, close), SeekKind::TrackToTrack);  // backward
    EXPECT_EQ(hdd_seek(true, 1, close + 10, 1, 9, close), SeekKind::Average);
    EXPECT_EQ(hdd_seek(true, 1, 0, 1, 1, close), SeekKind::TrackToTrack);
    EXPECT_EQ(hdd_seek(true, 1, 4096, 2, 4096, close), SeekKind::Average);  // other file
}

TEST(IoDisk, HddServiceTimes) {
    auto disk = make_disk("hdd", {{"rate", "50MB/s"}});
    const Time average = Time::ms(10) + kHalfRotation7200;
    const Time track = Time::ms(1) + kHalfRotation7200;
    // First access: average seek + half a rotation + transfer.
    EXPECT_EQ(disk->service(req(0, 0, kMiB, true)), average + kMiBAt50MB);
    // Continuation of the same file: the transfer alone.
    EXPECT_EQ(disk->service(req(0, kMiB, kMiB, true)), kMiBAt50MB);
    // Backward within 5 MB of the last end (2 MiB): track-to-track.
    EXPECT_EQ(disk->service(req(0, 0, kMiB)), track + kMiBAt50MB);
    // Forward within 5 MB of the last end (1 MiB): track-to-track.
    EXPECT_EQ(disk->service(req(0, kMiB + 5'000'000, kMiB)), track + kMiBAt50MB);
    // Far in the same file: average.
    EXPECT_EQ(disk->service(req(0, 100 * kMiB, kMiB)), average + kMiBAt50MB);
    // Another file, at exactly the offset where the head is: average.
    EXPECT_EQ(disk->service(req(1, 101 * kMiB, kMiB)), average + kMiBAt50MB);
    // ... and its continuation is free of seeks again.
    EXPECT_EQ(disk->service(req(1, 102 * kMiB, kMiB)), kMiBAt50MB);

    const DiskStats& s = disk->stats();
    EXPECT_EQ(s.requests, 7u);
    EXPECT_EQ(s.average_seeks, 3u);
    EXPECT_EQ(s.track_seeks, 2u);
    EXPECT_EQ(s.bytes_written, 2 * kMiB);
    EXPECT_EQ(s.bytes_read, 5 * kMiB);
    EXPECT_EQ(s.busy, 7 * kMiBAt50MB + 3 * average + 2 * track);
}

TEST(IoDisk, HddParameters) {
    auto disk = make_disk("hdd", {{"rate", "100MB/s"},
                                  {"rpm", "15000"},
                                  {"average-seek", "4ms"},
                                  {"track-to-track", "0.5ms"},
                                  {"close", "1MiB"}});
    // 30 s / 15000 = 2 ms exactly; 1 MB at 100 MB/s = 10 ms.
    EXPECT_EQ(disk->service(req(0, 0, 1'000'000)), Time::ms(4) + Time::ms(2) + Time::ms(10));
    EXPECT_EQ(disk->service(req(0, 1'000'000 + kMiB, 1'000'000)),
              Time::us(500) + Time::ms(2) + Time::ms(10));
    EXPECT_EQ(disk->service(req(0, 2'000'000 + 2 * kMiB + 1, 1'000'000)),
              Time::ms(4) + Time::ms(2) + Time::ms(10));
    EXPECT_EQ(disk->stats().track_seeks, 1u);
    EXPECT_EQ(disk->stats().average_seeks, 2u);
}

TEST(IoDisk, SsdLatenciesRatesAndChannels) {
    auto disk = make_disk("ssd", {{"read-rate", "1GB/s"},
                                  {"write-rate", "500MB/s"},
                                  {"read-latency", "20us"},
                                  {"channels", "8"}});
    EXPECT_EQ(disk->channels(), 8u);
    EXPECT_EQ(disk->service(req(0, 0, 1'000'000)), Time::us(20) + Time::ms(1));
    EXPECT_EQ(disk->service(req(0, 0, 1'000'000, true)), Time::us(50) + Time::ms(2));
    // Position does not matter.
    EXPECT_EQ(disk->service(req(5, 999 * kGiB, 1'000'000)), Time::us(20) + Time::ms(1));

    auto defaults = make_disk("ssd", {{"read-rate", "2GB/s"}});
    EXPECT_EQ(defaults->channels(), 4u);
    EXPECT_EQ(defaults->service(req(0, 0, 2'000'000, true)), Time::us(50) + Time::ms(1));
    EXPECT_EQ(defaults->service(req(0, 0, 2'000'000)), Time::us(50) + Time::ms(1));
}

TEST(IoDisk, EveryModelDocumentsItsParameters) {
    DiskRegistry registry("disk");
    register_builtin_disks(registry);
    EXPECT_EQ(registry.names_list(), "simple, hdd, ssd");
    for (const auto& e : registry.entries()) {
        EXPECT_FALSE(e.doc.empty()) << e.name;
        EXPECT_FALSE(e.params.empty()) << e.name;
        for (const auto& p : e.params)
            EXPECT_THAT(describe_io_param(p),
                        ::testing::AnyOf(HasSubstr("default"), HasSubstr("required")))
                << e.name << " " << p.name;
    }
}

TEST(IoDisk, UnknownModelListsValidOnes) {
    EXPECT_EQ(error_of("foo", {}),
              "model.xml:7: unknown disk model 'foo'; valid: simple, hdd, ssd");
}

TEST(IoDisk, UnknownParameterListsValidOnes) {
    EXPECT_EQ(error_of("hdd", {{"rate", "50MB/s"}, {"rpmm", "7200"}}),
              "model.xml:7: <disk model=\"hdd\"> has no parameter 'rpmm'; valid: rate, "
              "average-seek, track-to-track, rpm, close");
    // A misspelt name is reported even when it makes a required parameter missing.
    EXPECT_THAT(error_of("simple", {{"rat", "50MB/s"}}),
                HasSubstr("model.xml:7: <disk model=\"simple\"> has no parameter 'rat'; valid: "
                          "latency, rate"));
}

TEST(IoDisk, MissingRequiredParameter) {
    EXPECT_EQ(error_of("hdd", {}),
              "model.xml:7: <disk model=\"hdd\"> needs parameter 'rate' (sequential transfer "
              "rate)");
    EXPECT_THAT(error_of("ssd", {{"write-rate", "1GB/s"}}),
                HasSubstr("model.xml:7: <disk model=\"ssd\"> needs parameter 'read-rate'"));
}

TEST(IoDisk, BadUnitNamesTheParameter) {
    const std::string e = error_of("hdd", {{"rate", "50"}});
    EXPECT_THAT(e, HasSubstr("model.xml:7: <disk model=\"hdd\"> parameter 'rate': '50'"));
    EXPECT_THAT(e, HasSubstr("missing unit"));
    EXPECT_THAT(error_of("hdd", {{"rate", "50MB/s"}, {"average-seek", "10"}}),
                HasSubstr("model.xml:7: <disk model=\"hdd\"> parameter 'average-seek': '10'"));
    EXPECT_THAT(error_of("hdd", {{"rate", "50MB/s"}, {"rpm", "7.2k"}}),
                HasSubstr("model.xml:7: <disk model=\"hdd\"> parameter 'rpm'"));
    EXPECT_THAT(error_of("simple", {{"rate", "0MB/s"}}),
                HasSubstr("model.xml:7: <disk model=\"simple\"> parameter 'rate'"));
}

TEST(IoDisk, BadValues) {
    EXPECT_THAT(error_of("ssd", {{"read-rate", "1GB/s"}, {"channels", "0"}}),
                HasSubstr("model.xml:7: <disk model=\"ssd\">: parameter 'channels' must be"));
    EXPECT_THAT(error_of("hdd", {{"rate", "1GB/s"}, {"rpm", "0"}}),
                HasSubstr("model.xml:7: <disk model=\"hdd\">: parameter 'rpm' must be"));
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::io
