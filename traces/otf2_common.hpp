// What the OTF2 reader and writer share: the names of clustersim's own regions and
// attributes in an OTF2 archive, and MPI function names -> collective operations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectives/collective.hpp"

namespace clustersim::traces {

// OTF2_UNDEFINED_UINT32 (otf2_reader.cpp checks the value), for the
// reader and the writer without the OTF2 headers here.
inline constexpr std::uint32_t kOtf2Undef32 = 0xFFFFFFFFu;

// A compute record written as a region, so that records adjacent in time stay separate.
inline constexpr const char* kOtf2ComputeRegion = "clustersim:compute";
// Attributes the writer adds to a region's ENTER for record fields OTF2 events do not carry
// (instructions, handles, colors, keys, count lists, file fields); other tools ignore them.
inline constexpr const char* kOtf2AttrPrefix = "clustersim:";

// "MPI_Allreduce" -> Allreduce, "MPI_Ialltoallv" -> Alltoallv nonblocking; false if the
// name is not a collective clustersim models.
bool coll_from_mpi_name(const std::string& mpi_name, mpi::CollOp& op, bool& nonblocking);
// The MPI name of a collective ("MPI_Ibcast").
std::string mpi_name_of_coll(mpi::CollOp op, bool nonblocking);

// "1,2,3" <-> {1, 2, 3} (count lists in an attribute).
std::string format_counts_attr(const std::vector<std::uint64_t>& counts);
std::vector<std::uint64_t> parse_counts_attr(const std::string& text);

// Lines of text in one OTF2 property value: '\\' and '\n' inside a line are escaped.
std::string join_property_lines(const std::vector<std::string>& lines);
std::vector<std::string> split_property_lines(const std::string& value);

// Archive properties the writer sets (the trace's metadata and tables).
inline constexpr const char* kOtf2PropName = "CLUSTERSIM::NAME";
inline constexpr const char* kOtf2PropSpeed = "CLUSTERSIM::TRACED_SPEED";
inline constexpr const char* kOtf2PropStrings = "CLUSTERSIM::STRINGS";
inline constexpr const char* kOtf2PropCounts = "CLUSTERSIM::COUNTS";
inline constexpr const char* kOtf2PropFiles = "CLUSTERSIM::FILES";  // "size stripe name"

}  // namespace clustersim::traces
