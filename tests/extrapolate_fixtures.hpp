// Synthetic SPMD programs as traces at any rank count, for the extrapolation tests
// (test_trace_extrapolate.cpp, test_cli_extrapolate.cpp): each is written the way the program
// would run at p ranks, so a trace extrapolated from a few of them can be compared record by
// record with the one written at the target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traces/extrapolate.hpp"
#include "traces/trace.hpp"

namespace clustersim::traces::testing {

inline Record compute_time(Time t) {
    Record r;
    r.kind = mpi::OpKind::Compute;
    r.compute_time = t;
    return r;
}

inline Record compute_instr(std::uint64_t n) {
    Record r;
    r.kind = mpi::OpKind::Compute;
    r.instructions = n;
    return r;
}

inline Record p2p(mpi::OpKind k, std::int32_t peer, std::uint64_t bytes, std::uint32_t handle = 0,
                  std::int32_t tag = 1) {
    Record r;
    r.kind = k;
    r.peer = peer;
    r.bytes = bytes;
    r.handle = handle;
    r.tag = tag;
    return r;
}

inline Record waitall(std::uint32_t first, std::uint32_t count) {
    Record r;
    r.kind = mpi::OpKind::Waitall;
    r.handle = first;
    r.count = count;
    return r;
}

inline Record coll(mpi::CollOp op, std::uint64_t bytes, std::int32_t root = 0) {
    Record r;
    r.kind = mpi::OpKind::Collective;
    r.coll = op;
    r.bytes = bytes;
    r.root = root;
    return r;
}

// A ring: 100 us of compute, 1 MiB to rank + 1 and from rank - 1 (mod p), an 8-byte
// allreduce; `iterations` times (weak scaling: nothing depends on p).
inline Trace ring(std::uint32_t p, int iterations = 3) {
    Trace t;
    t.name = "ring";
    t.resize(p);
    for (std::uint32_t r = 0; r < p; ++r)
        for (int it = 0; it < iterations; ++it) {
            t.append(r, compute_time(Time::us(100)));
            t.append(
                r, p2p(mpi::OpKind::Irecv, static_cast<std::int32_t>((r + p - 1) % p), 1 << 20, 0));
            t.append(r,
                     p2p(mpi::OpKind::Isend, static_cast<std::int32_t>((r + 1) % p), 1 << 20, 1));
            t.append(r, waitall(0, 2));
            t.append(r, coll(mpi::CollOp::Allreduce, 8));
        }
    return t;
}

// A 2-D halo on MPI_Dims_create's grid of p, N x N points split over it (strong scaling): per
// iteration N^2 / p x 10 instructions, then an exchange with the four neighbours (periodic:
// wrapped around; else only those that exist) of the block's edge, N / n_other x 8 bytes,
// and an 8-byte allreduce. Ranks are numbered as MPI_Cart_create's (last dimension fastest).
inline Trace halo2d(std::uint32_t p, bool periodic, std::uint64_t n = 1440, int iterations = 2) {
    const std::vector<std::uint32_t> dims = dims_create(p, 2);
    Trace t;
    t.name = "halo2d";
    t.resize(p);
    for (std::uint32_t r = 0; r < p; ++r) {
        const std::int64_t x = r / dims[1], y = r % dims[1];
        const std::int64_t nx = dims[0], ny = dims[1];
        for (int it = 0; it < iterations; ++it) {
            t.append(r, compute_instr(n * n / p * 10));
            std::uint32_t handle = 0;
            const std::int64_t step[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
            for (const auto& s : step) {
                std::int64_t px = x + s[0], py = y + s[1];
                if (!periodic && (px < 0 || px >= nx || py < 0 || py >= ny)) continue;
                px = (px + nx) % nx;
                py = (py + ny) % ny;
                const auto peer = static_cast<std::int32_t>(px * ny + py);
                // Along dimension 0 the edge is a row of the block: N / n_1 points.
                const std::uint64_t bytes = (s[0] != 0 ? n / dims[1] : n / dims[0]) * 8;
                t.append(r, p2p(mpi::OpKind::Irecv, peer, bytes, handle++));
                t.append(r, p2p(mpi::OpKind::Isend, peer, bytes, handle++));
            }
            t.append(r, waitall(0, handle));
            t.append(r, coll(mpi::CollOp::Allreduce, 8));
        }
    }
    return t;
}

// A 1-D row decomposition with file output (Jacobi's): rows N / p each, halo rows with the
// ranks above and below (none at the ends), compute of 2 ms / p (strong scaling), a checkpoint
// of the rank's rows at offset rank x rows x N x 8 through a collective write.
inline Trace rows1d(std::uint32_t p, std::uint64_t n = 960, int iterations = 2) {
    Trace t;
    t.name = "rows1d";
    t.resize(p);
    const std::int32_t path = t.intern("/tmp/rows1d.ckpt");
    const std::uint64_t rows = n / p;
    for (std::uint32_t r = 0; r < p; ++r) {
        for (int it = 0; it < iterations; ++it) {
            std::uint32_t handle = 0;
            if (r > 0) {
                t.append(r, p2p(mpi::OpKind::Irecv, static_cast<std::int32_t>(r - 1), n * 8,
                                handle++, 7));
                t.append(r, p2p(mpi::OpKind::Isend, static_cast<std::int32_t>(r - 1), n * 8,
                                handle++, 7));
            }
            if (r + 1 < p) {
                t.append(r, p2p(mpi::OpKind::Irecv, static_cast<std::int32_t>(r + 1), n * 8,
                                handle++, 7));
                t.append(r, p2p(mpi::OpKind::Isend, static_cast<std::int32_t>(r + 1), n * 8,
                                handle++, 7));
            }
            t.append(r, waitall(0, handle));
            t.append(r, compute_time(Time::ps(Time::ms(2).ps() / p)));
            t.append(r, coll(mpi::CollOp::Allreduce, 8));
        }
        Record open;
        open.kind = mpi::OpKind::FileOpen;
        open.path = path;
        t.append(r, open);
        Record write;
        write.kind = mpi::OpKind::FileWriteAtAll;
        write.bytes = rows * n * 8;
        write.offset = r * rows * n * 8;
        t.append(r, write);
        Record close;
        close.kind = mpi::OpKind::FileClose;
        t.append(r, close);
        t.append(r, coll(mpi::CollOp::Reduce, 16, 0));
    }
    return t;
}

// Collectives whose sizes scale: a 4 KiB bcast from rank 0, an allgather of a 64 KiB array
// split over the ranks (64 KiB / p a block), a gather of 8 p bytes to rank 0 (a + b p,
// b = 8: what a list of every rank's entries at the root grows as), and log2 p-long tags.
inline Trace colls(std::uint32_t p, int iterations = 2) {
    Trace t;
    t.name = "colls";
    t.resize(p);
    const auto log2p = static_cast<std::int32_t>(std::bit_width(p) - 1);
    for (std::uint32_t r = 0; r < p; ++r)
        for (int it = 0; it < iterations; ++it) {
            t.append(r, coll(mpi::CollOp::Bcast, 4096, 0));
            t.append(r, compute_time(Time::us(50)));
            t.append(r, coll(mpi::CollOp::Allgather, 65536 / p));
            t.append(r, coll(mpi::CollOp::Gather, 8 * p + 16, 0));
            Record b = coll(mpi::CollOp::Barrier, 0);
            b.tag = log2p;  // unused by a barrier, but a field as any: fitted as log2 p
            t.append(r, b);
        }
    return t;
}

inline std::vector<ExtrapolationInput> inputs(Trace (*make)(std::uint32_t),
                                              const std::vector<std::uint32_t>& scales) {
    std::vector<ExtrapolationInput> in;
    for (std::uint32_t p : scales) in.push_back({make(p), "synthetic@" + std::to_string(p)});
    return in;
}

}  // namespace clustersim::traces::testing
