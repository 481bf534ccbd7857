// The MPI runtime: runs one Program per rank on the CPU and network models.
//
// Point-to-point semantics: matching on (source, tag, communicator) with kAnySource and
// kAnyTag, MPI's non-overtaking order between a pair of ranks, posted-receive and
// unexpected-message queues searched in order. Messages up to the model's eager threshold
// are sent at once (the send completes when its last byte has left the sender); larger ones
// use rendezvous: a zero-byte request-to-send, a zero-byte clear-to-send once a matching
// receive is posted, then the data.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "collectives/placement.hpp"
#include "collectives/program.hpp"
#include "models/cpu.hpp"
#include "models/network.hpp"
#include "simulator/pool.hpp"

namespace clustersim::mpi {

struct OpStats {
    std::uint64_t count = 0;
    Time time;               // time ranks spent blocked in the operation
    std::uint64_t bytes = 0; // payload bytes sent and received by it
};

struct RankResult {
    Time finish;
    std::uint64_t bytes_sent = 0;
    std::uint64_t bytes_received = 0;
    std::array<OpStats, kOpKinds> ops{};
};

class Runtime final : public net::NetworkClient, public cpu::CpuClient {
public:
    Runtime(Engine& engine, net::Network& network, cpu::Cpus& cpus, std::vector<RankLocation> ranks,
            std::vector<std::uint32_t> rank_core, std::uint64_t eager_threshold, Program& program);

    // Starts every rank at the current time.
    void start();
    bool all_finished() const { return finished_ == ranks_.size(); }
    // One line per rank that has not finished: what it is blocked in.
    std::vector<std::string> blocked_ranks() const;
    const std::vector<RankResult>& results() const { return results_; }
    std::size_t size() const { return ranks_.size(); }

    void message_delivered(std::uint64_t cookie) override;
    void message_injected(std::uint64_t cookie) override;
    void compute_done(std::uint64_t cookie) override;

private:
    static constexpr std::uint32_t kNil = UINT32_MAX;
    enum class MsgKind : std::uint8_t { Eager, Rts, Cts, Data };
    struct Msg {
        MsgKind kind;
        std::int32_t src, dst, tag, comm;
        std::uint64_t bytes;
        std::uint64_t seq;
        std::uint32_t send_req, recv_req;
        bool send_done, recv_done;
    };
    struct Request {
        bool is_send;
        bool done;
        bool waited;
        std::int32_t rank;
        std::int32_t peer, tag, comm;
        std::uint64_t bytes;
    };
    struct Rank {
        RankLocation where;
        std::uint32_t core = 0;
        Op op;
        Time op_start;
        std::uint32_t waiting = 0;  // requests the current blocking op still waits for
        bool finished = false;
        std::array<std::uint32_t, 2> blocking{};  // requests of a blocking Send/Recv/Sendrecv
        std::vector<std::uint32_t> handles;  // program handle -> request
        std::deque<std::uint32_t> posted;      // receive requests, in posting order
        std::deque<std::uint32_t> unexpected;  // messages (Eager or Rts), in arrival order
        std::unordered_map<std::int32_t, std::uint64_t> send_seq;   // per destination
        std::unordered_map<std::int32_t, std::uint64_t> recv_seq;   // per source: next expected
        std::unordered_map<std::uint64_t, std::uint32_t> early;     // (src, seq) -> msg, out of order
    };

    void advance(std::int32_t rank);
    void finish_op(std::int32_t rank);
    void record(std::int32_t rank);  // statistics and request release for the rank's current op
    std::uint32_t handle_request(std::int32_t rank, std::uint32_t handle) const;
    std::uint32_t post_send(std::int32_t rank, std::int32_t dst, std::int32_t tag, std::int32_t comm,
                            std::uint64_t bytes);
    std::uint32_t post_recv(std::int32_t rank, std::int32_t src, std::int32_t tag, std::int32_t comm,
                            std::uint64_t bytes);
    void envelope_arrived(std::uint32_t msg);
    void match_arrival(std::uint32_t msg);
    void bind(std::uint32_t msg, std::uint32_t recv_req);
    void complete(std::uint32_t req);
    void maybe_free_msg(std::uint32_t msg);
    void check_peer(std::int32_t rank, std::int32_t peer, bool allow_any) const;
    static bool matches(const Request& r, const Msg& m) {
        return r.comm == m.comm && (r.peer == kAnySource || r.peer == m.src) &&
               (r.tag == kAnyTag || r.tag == m.tag);
    }

    Engine& engine_;
    net::Network& network_;
    cpu::Cpus& cpus_;
    std::uint64_t eager_threshold_;
    Program& program_;
    std::vector<Rank> ranks_;
    std::vector<RankResult> results_;
    Pool<Request> requests_;
    Pool<Msg> msgs_;
    std::size_t finished_ = 0;
};

}  // namespace clustersim::mpi
