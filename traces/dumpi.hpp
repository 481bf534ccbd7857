// DUMPI (SST's binary MPI trace format): one .bin file per rank plus a .meta file. The
// decoder is exposed for tests (rank 0 of the shared trace against SST's dumpi2ascii output);
// the `dumpi` TraceReader (dumpi_reader.cpp) maps decoded calls to records.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace clustersim::traces {

// One MPI call as DUMPI stored it.
struct DumpiCall {
    std::string name;  // "MPI_Isend"
    std::uint16_t label = 0;
    std::uint64_t offset = 0;  // byte offset of the record in the file (errors)
    bool has_wall = false, has_cpu = false;
    // Absolute times in nanoseconds (seconds since the epoch for wall times).
    std::int64_t wall_start = 0, wall_end = 0, cpu_start = 0, cpu_end = 0;
    std::uint16_t thread = 0;
    // Scalar arguments in record order, by DUMPI's names ("count", "datatype", "dest",
    // "tag", "comm", "request", "root", "op", "color", "key", "newcomm", "file", "offset"...).
    std::vector<std::pair<std::string, std::int64_t>> args;
    // Array arguments ("requests", "recvcounts", "sendcounts", "displs", "indices"...).
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> arrays;
    std::vector<std::pair<std::string, std::string>> strings;  // "filename", "datarep"
    std::vector<std::int32_t> status_bytes;                    // statuses written, if any

    bool has(const std::string& arg) const;
    std::int64_t arg(const std::string& arg) const;  // throws std::out_of_range if absent
    const std::vector<std::int64_t>* array(const std::string& name) const;
};

struct DumpiFile {
    std::uint8_t version[3] = {0, 0, 0};
    std::string hostname, username;
    std::vector<std::uint32_t> datatype_sizes;  // by DUMPI datatype id; empty if absent
    std::vector<DumpiCall> calls;
};

// Decodes one rank's .bin file. Bad input: InputError(path, 0, "... at byte offset N
// (record R, MPI_X)").
DumpiFile read_dumpi_file(const std::string& path);

}  // namespace clustersim::traces
