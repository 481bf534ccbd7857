// Connection set-up over a connection-oriented transport (MPICH2's ch3:sock over TCP, PVFS2's
// BMI over TCP): a pair of endpoints connects on its first message, and every message between
// the two handed over before the set-up ends waits for it, in order. One table per user: the
// MPI runtime's pairs of ranks (<mpi-overhead><connect>, mpi/protocols.cpp) and the file
// system's client-server pairs (<file-system connect-round-trips>, iosys/file_system.cpp).
// The set-up's own messages (round trips of empty messages through the network) are the
// user's: the table only says when to start one and hands back what waited for it.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace clustersim::net {

template <class Waiting>
class ConnectionTable {
  public:
    // What a message of the pair `key` finds.
    enum class State : std::uint8_t {
        Ready,   // connected: the message goes now
        Start,   // the pair's first message: it waits, and its sender starts the set-up
        Queued,  // the set-up is under way: it waits
    };
    // The message `w` wants to go between the pair `key`: queued unless connected.
    State send(std::uint64_t key, Waiting w) {
        Connection& c = table_[key];
        if (c.ready) return State::Ready;
        c.waiting.push_back(std::move(w));
        return c.waiting.size() == 1 ? State::Start : State::Queued;
    }
    // The pair's set-up has ended: it is connected from now on; the messages that waited,
    // in the order they came.
    std::vector<Waiting> connected(std::uint64_t key) {
        Connection& c = table_[key];
        c.ready = true;
        std::vector<Waiting> waiting;
        waiting.swap(c.waiting);
        return waiting;
    }

  private:
    struct Connection {
        bool ready = false;
        std::vector<Waiting> waiting;
    };
    std::unordered_map<std::uint64_t, Connection> table_;
};

}  // namespace clustersim::net
