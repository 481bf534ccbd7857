// Sizes, times and rates as text for the tables (with units), and the measured figures as
// the model's integer quantities (the model writer writes them).

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tools/mpi/calibrate/calibrate.hpp"

namespace clustersim::calibrate {

// 0 B, 1 B, 4 KiB, 64 MiB, 1.5 KiB, 1000 B
std::string size_text(std::uint64_t b) {
    const std::pair<std::uint64_t, const char*> units[] = {
        {GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}};
    for (const auto& [f, name] : units)
        if (b >= f) {
            if (b % f == 0) return strf("%llu %s", static_cast<unsigned long long>(b / f), name);
            if ((b * 10) % f == 0) return strf("%.1f %s", static_cast<double>(b) / f, name);
        }
    return strf("%llu B", static_cast<unsigned long long>(b));
}

// A time with its unit: 312.4 ns, 1.234 µs, 56.78 ms, 1.234 s.
std::string time_text(double s) {
    if (s < 1e-6) return strf("%.1f ns", s * 1e9);
    if (s < 1e-3) return strf("%.3f µs", s * 1e6);
    if (s < 1) return strf("%.3f ms", s * 1e3);
    return strf("%.3f s", s);
}

std::string us_text(double s) {
    return strf("%.3f µs", s * 1e6);
}
std::string mbps_text(double bytes_per_s) {
    return strf("%.1f MB/s", bytes_per_s / 1e6);
}
std::string gbps_text(double bytes_per_s) {
    return strf("%.3f GB/s", bytes_per_s / 1e9);
}

// The model's quantities (calibrate.hpp): the grid the figures are kept on.
Time model_time_of(double s) {
    s = std::max(0.0, s);
    if (s < 1e-6) return Time::ps(std::llround(s * 1e9 * 10) * 100);   // 0.1 ns
    if (s < 1e-3) return Time::ps(std::llround(s * 1e6 * 1e4) * 100);  // 0.1 ns
    return Time::ps(std::llround(s * 1e3 * 1e4) * 100'000);            // 100 ns
}
Bandwidth model_bandwidth_of(double bytes_per_s) {
    return Bandwidth{static_cast<std::uint64_t>(std::llround(std::max(0.1e6, bytes_per_s) / 1e5)) *
                     100'000};
}
std::uint64_t model_speed_of(double per_s) {
    return static_cast<std::uint64_t>(std::llround(std::max(1.0, per_s / 1e6))) * 1'000'000;
}

}  // namespace clustersim::calibrate
