// The HDTrace reader's parts: the project file (.proj: the application's name, its files, the
// rank topology, one .trc per rank, and the communicator list; hdtrace_project.cpp), one rank's
// .trc read into events (hdtrace_rank.cpp), and the number forms they share (seconds to
// picoseconds exactly, whole numbers, named MPI type sizes). hdtrace.cpp matches the ranks'
// events and makes the records. Internal to the reader: namespace hdtrace_in.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

#include "iosys/file_system.hpp"
#include "traces/reader.hpp"
#include "traces/trace.hpp"
#include "traces/xml_file.hpp"

namespace clustersim::traces::hdtrace_in {

__extension__ typedef __int128 Ps;  // picoseconds since the epoch: wider than int64

// "[+-]digits[.digits]" seconds -> picoseconds, exactly. Digits below a picosecond must be 0.
std::optional<Ps> parse_seconds(std::string_view s);
std::optional<std::int64_t> parse_int(std::string_view s);

struct Communicator {
    std::string name;
    int line = 0;
    std::map<std::int32_t, std::int32_t> local_of;  // world rank -> rank in the communicator
    std::vector<std::int32_t> world_of;             // rank in the communicator -> world rank
};

struct RankTrace {
    std::string file;  // full path of the .trc
    int line = 0;      // line of its topology leaf in the .proj
};

struct Project {
    std::string name;
    std::vector<io::FileDecl> files;
    std::vector<RankTrace> ranks;
    std::map<std::int32_t, Communicator> comms;  // cid -> members
    std::int32_t world_cid = 0;
    pugi::xml_node datatypes;  // <Datatypes>, read when a file view needs it
};

Project read_project(const XmlFile& x);
// Size in bytes of an MPI named type (the traced machine's sizes are not recorded; these are
// the usual LP64 ones, and only file views use them); 0 if unknown.
std::uint64_t named_size(const std::string& n);

// ---- per-rank events before they become records ----------------------------------------------

enum class Fix : std::uint8_t { None, RecvBytes, SendrecvBytes, VCounts };

struct HdEvent {
    Record rec;
    Ps start = 0, end = 0;
    bool local = false;  // a local call: replayed as compute of its duration
    int line = 0;
    Fix fix = Fix::None;
    // p2p matching (world ranks): the send side, or the receive side to fill in
    std::int32_t cid = -1;  // the call's communicator (-1: none)
    std::int32_t src = -1, dst = -1, tag = 0;
    bool sends = false;
    // v-collectives: which occurrence on the communicator, and this rank's block(s)
    std::uint64_t occurrence = 0;
    std::vector<std::uint64_t> row;  // alltoallv: this rank's sends per communicator rank
};

// One rank's top-level calls from its .trc `trc` (`proj` is the project file, for errors):
// the events, the names of the files it opens (HdEvent::rec.path indexes them), whether a
// File_write/File_read logged its byte offset (`used_offsets`); `nested_skipped` counts the
// calls inside <Nested> blocks.
std::vector<HdEvent> read_rank_events(const Project& p, const XmlFile& proj, const XmlFile& trc,
                                      std::int32_t rank, const ReadOptions& options,
                                      ReadReport& report, std::uint64_t& nested_skipped,
                                      std::vector<std::string>& path_names, bool& used_offsets);

}  // namespace clustersim::traces::hdtrace_in
