// What a rank runs: a Program hands the runtime one MPI operation at a time.
// Built-in apps, trace replay and (later) collectives all speak this interface.
#pragma once

#include <cstdint>

namespace clustersim::mpi {

inline constexpr std::int32_t kAnySource = -1;
inline constexpr std::int32_t kAnyTag = -1;
inline constexpr std::int32_t kCommWorld = 0;

enum class OpKind : std::uint8_t {
    Compute,   // `instructions` on the rank's core (processor-shared with its other ranks)
    Send,      // blocking send of `bytes` to `peer`
    Recv,      // blocking receive from `peer` (or kAnySource), `tag` (or kAnyTag)
    Isend,     // nonblocking send; completes request `handle`
    Irecv,     // nonblocking receive; completes request `handle`
    Wait,      // waits for request `handle`
    Waitall,   // waits for requests [handle, handle + count)
    Sendrecv,  // send (peer, tag, bytes) and receive (peer2, tag2, bytes2) concurrently
};
inline constexpr int kOpKinds = 8;
const char* to_string(OpKind kind);

struct Op {
    OpKind kind = OpKind::Compute;
    std::int32_t peer = 0;
    std::int32_t tag = 0;
    std::int32_t comm = kCommWorld;
    std::uint64_t bytes = 0;
    std::int32_t peer2 = 0;  // Sendrecv: the receive side
    std::int32_t tag2 = 0;
    std::uint64_t bytes2 = 0;
    std::uint64_t instructions = 0;  // Compute
    std::uint32_t handle = 0;        // Isend, Irecv, Wait, Waitall: request handle (program-chosen)
    std::uint32_t count = 0;         // Waitall
};

class Program {
public:
    virtual ~Program() = default;
    // Fills `op` with rank's next operation; false when the rank has finished.
    virtual bool next(std::int32_t rank, Op& op) = 0;
};

}  // namespace clustersim::mpi
