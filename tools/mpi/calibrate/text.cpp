// Sizes, times and rates as text: for the tables (with units) and for the model XML (units
// the model reader parses exactly).

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

// Model XML quantities (units the model reader parses exactly).
std::string xml_time(double s) {
    s = std::max(0.0, s);
    if (s < 1e-6) return strf("%.1fns", s * 1e9);
    if (s < 1e-3) return strf("%.4fus", s * 1e6);
    return strf("%.4fms", s * 1e3);
}
std::string xml_bandwidth(double bytes_per_s) {
    return strf("%.1fMB/s", std::max(0.1e6, bytes_per_s) / 1e6);
}
// A size in the largest binary unit that divides it: 1KiB, 64MiB, 1B, 1000B.
std::string xml_size(std::uint64_t b) {
    for (const auto& [f, name] :
         {std::pair<std::uint64_t, const char*>{GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}})
        if (b >= f && b % f == 0)
            return strf("%llu%s", static_cast<unsigned long long>(b / f), name);
    return strf("%lluB", static_cast<unsigned long long>(b));
}
std::string xml_speed(double per_s) {
    return strf("%.0fM", std::max(1.0, per_s / 1e6));
}

// Text for an XML comment, which must not contain "--" (nor end in "-").
std::string comment_safe(std::string s) {
    std::string out;  // "--" -> "- -", as often as it occurs
    for (const char c : s) {
        if (c == '-' && !out.empty() && out.back() == '-') out += ' ';
        out += c;
    }
    if (!out.empty() && out.back() == '-') out += ' ';
    return out;
}

std::string xml_escape(std::string_view s) {
    std::string out;
    for (const char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

}  // namespace clustersim::calibrate
