// Helpers for tests of trace readers: skipping when ../shared/external is absent, reading with
// one reader, and listing a rank's records.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "traces/reader.hpp"
#include "traces/trace.hpp"

// The external inputs live next to the source tree (../shared/external); a checkout without
// them skips the tests that need them instead of failing.
#define SKIP_WITHOUT_EXTERNAL()                                                         \
    do {                                                                                \
        if (!std::filesystem::exists(std::string(CLUSTERSIM_SHARED_DIR) + "/external")) \
            GTEST_SKIP() << "no " CLUSTERSIM_SHARED_DIR "/external in this tree";       \
    } while (0)

namespace clustersim::traces::testing {

inline Trace read_with(const TraceReader& reader, const std::string& path, ReadReport& report,
                       bool skip_unknown = false) {
    ReadOptions o;
    o.skip_unknown = skip_unknown;
    return reader.read(path, o, report);
}

inline std::vector<Record> records(const Trace& t, std::uint32_t rank) {
    std::vector<Record> out;
    Trace::Cursor c = t.cursor(rank);
    for (Record r; c.next(r);) out.push_back(r);
    return out;
}

// How many records of each kind (by record_name()) a rank has; compute optionally left out.
inline std::map<std::string, int> kinds(const Trace& t, std::uint32_t rank,
                                        bool with_compute = true) {
    std::map<std::string, int> out;
    for (const Record& r : records(t, rank))
        if (with_compute || r.kind != mpi::OpKind::Compute) ++out[record_name(r)];
    return out;
}

}  // namespace clustersim::traces::testing
