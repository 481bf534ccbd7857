// Disk models. All arithmetic is in integer picoseconds; transfer_time(bytes, rate) rounds
// bytes * 10^12 / rate to the nearest picosecond.
//
// simple   service = latency + bytes / rate
//          latency (time, default 0), rate (bandwidth, required)
//
// hdd      PIOsimHD's RefinedDiskModel. Each file's object lies sequentially on the disk, so
//          the seek depends on the distance from the end of the previous access (last_end):
//            none            same file and offset == last_end (a continuation)
//            track-to-track  same file and |offset - last_end| <= close (either direction)
//            average         another file (even at the same offset), farther, or the first
//                            access
//          service = seek + rotation + bytes / rate, where rotation is half a revolution,
//          round(30 * 10^12 / rpm) ps (4'166'666'667 ps at 7200 rpm), added to track-to-track
//          and average accesses but not to a continuation. Afterwards last = (file, offset +
//          bytes). Reads and writes behave alike.
//          rate (bandwidth, required), average-seek (default 10ms), track-to-track (default
//          1ms), rpm (default 7200), close (size, default 5MB)
//
// ssd      service = latency(direction) + bytes / rate(direction); no position dependence.
//          channels() requests are served at once, each at the full per-channel rate.
//          read-latency (default 50us), write-latency (default 50us), read-rate (required),
//          write-rate (default read-rate), channels (default 4, >= 1)
#include "iosys/disk.hpp"

#include <utility>

namespace clustersim::io {

SeekKind hdd_seek(bool has_last, std::uint32_t last_file, std::uint64_t last_end,
                  std::uint32_t file, std::uint64_t offset, std::uint64_t close) {
    if (!has_last || file != last_file) return SeekKind::Average;
    if (offset == last_end) return SeekKind::None;
    const std::uint64_t distance = offset > last_end ? offset - last_end : last_end - offset;
    return distance <= close ? SeekKind::TrackToTrack : SeekKind::Average;
}

namespace {

class SimpleDisk final : public Disk {
  public:
    SimpleDisk(Time latency, Bandwidth rate) : latency_(latency), rate_(rate) {}
    Time service(const DiskRequest& r) override {
        const Time t = latency_ + transfer_time(r.bytes, rate_);
        count(r, t);
        return t;
    }

  private:
    Time latency_;
    Bandwidth rate_;
};

// Half a revolution, 30 s / rpm, rounded to the nearest picosecond.
Time half_rotation(std::uint64_t rpm) {
    const uint128 ps = (static_cast<uint128>(30'000'000'000'000ULL) + rpm / 2) / rpm;
    return Time::ps(static_cast<std::int64_t>(ps));
}

class HddDisk final : public Disk {
  public:
    HddDisk(Bandwidth rate, Time average, Time track, std::uint64_t rpm, std::uint64_t close)
        : rate_(rate),
          average_(average),
          track_(track),
          half_rotation_(half_rotation(rpm)),
          close_(close) {}

    Time service(const DiskRequest& r) override {
        Time t = transfer_time(r.bytes, rate_);
        switch (hdd_seek(has_last_, last_file_, last_end_, r.file, r.offset, close_)) {
            case SeekKind::None:
                break;
            case SeekKind::TrackToTrack:
                t += track_ + half_rotation_;
                ++stats_.track_seeks;
                break;
            case SeekKind::Average:
                t += average_ + half_rotation_;
                ++stats_.average_seeks;
                break;
        }
        has_last_ = true;
        last_file_ = r.file;
        last_end_ = r.offset + r.bytes;
        count(r, t);
        return t;
    }

  private:
    Bandwidth rate_;
    Time average_;
    Time track_;
    Time half_rotation_;
    std::uint64_t close_;
    bool has_last_ = false;
    std::uint32_t last_file_ = 0;
    std::uint64_t last_end_ = 0;
};

class SsdDisk final : public Disk {
  public:
    SsdDisk(Time read_latency, Time write_latency, Bandwidth read_rate, Bandwidth write_rate,
            std::uint32_t channels)
        : read_latency_(read_latency),
          write_latency_(write_latency),
          read_rate_(read_rate),
          write_rate_(write_rate),
          channels_(channels) {}
    std::uint32_t channels() const override { return channels_; }
    Time service(const DiskRequest& r) override {
        const Time t = r.write ? write_latency_ + transfer_time(r.bytes, write_rate_)
                               : read_latency_ + transfer_time(r.bytes, read_rate_);
        count(r, t);
        return t;
    }

  private:
    Time read_latency_;
    Time write_latency_;
    Bandwidth read_rate_;
    Bandwidth write_rate_;
    std::uint32_t channels_;
};

}  // namespace

void register_builtin_disks(DiskRegistry& registry) {
    registry.add(
        Entry<Disk>{"simple",
                    "a fixed latency plus the transfer at a constant rate: latency + bytes / rate",
                    {{"latency", "time", "s", "0s", "time every request waits before its transfer"},
                     {"rate", "bandwidth", "B/s", "", "transfer rate"}},
                    [](const Params& p) -> std::unique_ptr<Disk> {
                        const Time latency = p.time("latency");
                        const Bandwidth rate = p.bandwidth("rate");
                        return std::make_unique<SimpleDisk>(latency, rate);
                    }});
    registry.add(Entry<Disk>{
        "hdd",
        "PIOsimHD's hard disk: no seek when continuing the previous access of the file, a "
        "track-to-track seek plus half a rotation when within `close` bytes of it, else an "
        "average seek plus half a rotation; then bytes / rate",
        {{"rate", "bandwidth", "B/s", "", "sequential transfer rate"},
         {"average-seek", "time", "s", "10ms",
          "average seek time, for another file or a far position"},
         {"track-to-track", "time", "s", "1ms", "seek time to a close position"},
         {"rpm", "count", "", "7200", "rotations per minute; a seek adds half a rotation"},
         {"close", "size", "B", "5MB", "distance from the previous access considered close"}},
        [](const Params& p) -> std::unique_ptr<Disk> {
            const Bandwidth rate = p.bandwidth("rate");
            const Time average = p.time("average-seek");
            const Time track = p.time("track-to-track");
            const std::uint64_t rpm = p.count("rpm");
            const std::uint64_t close = p.size("close");
            if (rpm == 0) p.fail("parameter 'rpm' must be at least 1");
            return std::make_unique<HddDisk>(rate, average, track, rpm, close);
        }});
    registry.add(Entry<Disk>{
        "ssd",
        "flash: a per-direction latency plus bytes / rate, serving `channels` requests at once",
        {{"read-latency", "time", "s", "50us", "latency of a read"},
         {"write-latency", "time", "s", "50us", "latency of a write"},
         {"read-rate", "bandwidth", "B/s", "", "read transfer rate per channel"},
         {"write-rate", "bandwidth", "B/s", "read-rate", "write transfer rate per channel"},
         {"channels", "count", "", "4", "requests served at the same time"}},
        [](const Params& p) -> std::unique_ptr<Disk> {
            const Time read_latency = p.time("read-latency");
            const Time write_latency = p.time("write-latency");
            const Bandwidth read_rate = p.bandwidth("read-rate");
            const Bandwidth write_rate = p.bandwidth("write-rate", read_rate);  // documented
            const std::uint64_t channels = p.count("channels");
            if (channels == 0 || channels > 1'000'000)
                p.fail("parameter 'channels' must be between 1 and 1000000");
            return std::make_unique<SsdDisk>(read_latency, write_latency, read_rate, write_rate,
                                             static_cast<std::uint32_t>(channels));
        }});
}

DiskRegistry& disk_models() {
    static DiskRegistry registry("disk");
    static const bool filled = (register_builtin_disks(registry), true);
    (void)filled;
    return registry;
}

}  // namespace clustersim::io
