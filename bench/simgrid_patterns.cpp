// SimGrid's side of bench/flow_dense.sh: dense traffic patterns of clustersim's collective
// algorithms (collectives/algorithms/) on the star of bench/simgrid_ring.cpp, run by SimGrid's
// flow model (S4U). Compiled only by that script, against the installed SimGrid (Debian
// libsimgrid-dev); the normal build never needs SimGrid.
//
//   simgrid_patterns PATTERN N BYTES [--eager-threshold=BYTES] [--cfg=network/model:CM02 ...]
//
// The platform: N hosts around one star centre, each with a split-duplex link (one shared
// resource per direction, like clustersim's one-way links) of 1.25 GB/s and 5 us; a
// message from host a to host b crosses a's up link and b's down link. Rank i runs on host
// i. PATTERN (the same messages, in the same steps, as clustersim's algorithm of that name):
//   ring_allgather     allgather=ring: p - 1 steps; step k sends BYTES to r + 1 and receives
//                      BYTES from r - 1 (p (p - 1) messages)
//   alltoall_pairwise  alltoall=pairwise: p - 1 steps; step k (k = 1 .. p - 1) sends BYTES to
//                      r + k and receives BYTES from r - k (mod p)
//   alltoall_linear    alltoall=linear: one step; every rank posts its p - 1 sends (to r + 1,
//                      r + 2, ...) and its p - 1 receives at once, then waits for all of them
//   gather_linear      gather=linear, root 0: every other rank sends BYTES to rank 0 at once;
//                      rank 0 posts its p - 1 receives at once
// A step ends when all its sends and receives have completed; the next starts then.
//
// Protocol, as clustersim's MPI runtime (mpi/runtime.hpp): a message of at most the
// eager threshold (default 64 KiB, the `eager-threshold` of `clustersim generate star`) is
// sent at once. A larger one is a rendezvous: a zero-byte request-to-send to the receiver, a
// zero-byte clear-to-send back once the receiver has the request (its receive is posted at the
// start of the step in every pattern here), then the data. Here a rank answers the step's
// requests-to-send once all of them have arrived, and sends its data once all its
// clear-to-sends have arrived (clustersim answers each one as it comes): the same time in
// these patterns, where a step's control messages all take the route's latency alone and
// arrive together. --eager-threshold=0 makes every non-empty message a rendezvous; a large one
// (e.g. 1e18) makes every message eager, as SimGrid's own SMPI would not.
//
// Matching: each rank has one mailbox per message kind, matched in arrival order, not by
// source as MPI does. Every message of a pattern has the same size and a message's route is
// fixed by its sender and receiver, so which posted receive it completes changes no time.
// S4U starts a transfer once both its put and its get are posted; clustersim sends an eager
// message at once. Every receive here is posted when its sender's send is (the ranks run the
// steps in lockstep), so that changes no time either.
//
// Prints one line: the pattern, the simulated time and the wall time of the whole run
// (platform creation included, as clustersim's wall time includes its model load), each with
// its unit, and the number of communications SimGrid simulated.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace {

enum class Pattern { RingAllgather, AlltoallPairwise, AlltoallLinear, GatherLinear };

struct Setup {
    Pattern pattern;
    int ranks;
    uint64_t bytes;
    uint64_t eager_threshold;
};

Setup setup;
std::vector<int> rank_ids;      // rank_ids[i] == i: the payload of control messages
std::vector<sg4::Mailbox*> data_box, rts_box, cts_box;
uint64_t comms = 0;             // communications issued (data and control)
char payload = 0;               // the contents do not matter; only the size is simulated

// One step of rank `me`: send `bytes` to each of the `nto` ranks `to` and receive `bytes` from
// `nfrom` ranks (the senders are matched in arrival order), then wait for all of them.
void exchange(int me, const int* to, std::size_t nto, std::size_t nfrom, uint64_t bytes) {
    if (bytes <= setup.eager_threshold) {
        comms += nto;
        if (nto == 1 && nfrom == 1) {  // one partner each way: simgrid_ring's step, no vectors
            sg4::CommPtr out = data_box[to[0]]->put_async(&payload, bytes);
            data_box[me]->get<char>();
            out->wait();
            return;
        }
        std::vector<sg4::CommPtr> pending;
        pending.reserve(nto + nfrom);
        std::vector<char*> got(nfrom);
        for (std::size_t i = 0; i < nto; ++i)
            pending.push_back(data_box[to[i]]->put_async(&payload, bytes));
        for (std::size_t i = 0; i < nfrom; ++i)
            pending.push_back(data_box[me]->get_async<char>(&got[i]));
        sg4::Comm::wait_all(pending);
        return;
    }
    // Rendezvous: request-to-send, clear-to-send, data.
    comms += 3 * nto;
    std::vector<sg4::CommPtr> pending, rts_in, cts_in;
    pending.reserve(2 * (nto + nfrom));
    std::vector<int*> rts_from(nfrom), cts_from(nto);
    std::vector<char*> got(nfrom);
    for (std::size_t i = 0; i < nto; ++i)
        pending.push_back(rts_box[to[i]]->put_async(&rank_ids[me], 0));
    for (std::size_t i = 0; i < nfrom; ++i)
        rts_in.push_back(rts_box[me]->get_async<int>(&rts_from[i]));
    for (std::size_t i = 0; i < nto; ++i)
        cts_in.push_back(cts_box[me]->get_async<int>(&cts_from[i]));
    sg4::Comm::wait_all(rts_in);  // every request of the step has arrived: clear them all
    for (std::size_t i = 0; i < nfrom; ++i) {
        pending.push_back(cts_box[*rts_from[i]]->put_async(&rank_ids[me], 0));
        pending.push_back(data_box[me]->get_async<char>(&got[i]));
    }
    sg4::Comm::wait_all(cts_in);  // every send of the step is cleared: send the data
    for (std::size_t i = 0; i < nto; ++i)
        pending.push_back(data_box[*cts_from[i]]->put_async(&payload, bytes));
    sg4::Comm::wait_all(pending);
}

void rank_main(int me) {
    const int p = setup.ranks;
    const uint64_t m = setup.bytes;
    switch (setup.pattern) {
        case Pattern::RingAllgather: {
            const int next = (me + 1) % p;
            for (int k = 0; k + 1 < p; ++k) exchange(me, &next, 1, 1, m);
            break;
        }
        case Pattern::AlltoallPairwise:
            for (int k = 1; k < p; ++k) {
                const int to = (me + k) % p;  // receives from me - k
                exchange(me, &to, 1, 1, m);
            }
            break;
        case Pattern::AlltoallLinear: {
            std::vector<int> to;  // pairwise order: r + 1, r + 2, ...; receives from all others
            for (int d = 1; d < p; ++d) to.push_back((me + d) % p);
            exchange(me, to.data(), to.size(), static_cast<std::size_t>(p - 1), m);
            break;
        }
        case Pattern::GatherLinear: {
            const int root = 0;
            if (me == root)
                exchange(me, nullptr, 0, static_cast<std::size_t>(p - 1), m);
            else
                exchange(me, &root, 1, 0, m);
            break;
        }
    }
}

[[noreturn]] void bad(const std::string& what) {
    std::fprintf(stderr, "simgrid_patterns: %s\n", what.c_str());
    std::exit(2);
}

bool parse_u64(const char* s, uint64_t& out) {
    char* end = nullptr;
    const double v = std::strtod(s, &end);  // 1e18 too
    if (end == s || *end != '\0' || !(v >= 0) || v > 1.8e19) return false;
    out = static_cast<uint64_t>(v);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    const auto t0 = std::chrono::steady_clock::now();
    sg4::Engine engine(&argc, argv);  // consumes the --cfg= and --log= arguments
    setup.eager_threshold = 64 * 1024;
    std::vector<const char*> pos;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (std::strncmp(a, "--eager-threshold=", 18) == 0) {
            if (!parse_u64(a + 18, setup.eager_threshold))
                bad(std::string("--eager-threshold= needs a number of bytes, got '") + (a + 18) +
                    "'");
        } else {
            pos.push_back(a);
        }
    }
    if (pos.size() != 3)
        bad("usage: simgrid_patterns ring_allgather|alltoall_pairwise|alltoall_linear|"
            "gather_linear N BYTES [--eager-threshold=BYTES] [--cfg=...]");
    const std::string name = pos[0];
    if (name == "ring_allgather")
        setup.pattern = Pattern::RingAllgather;
    else if (name == "alltoall_pairwise")
        setup.pattern = Pattern::AlltoallPairwise;
    else if (name == "alltoall_linear")
        setup.pattern = Pattern::AlltoallLinear;
    else if (name == "gather_linear")
        setup.pattern = Pattern::GatherLinear;
    else
        bad("PATTERN must be ring_allgather, alltoall_pairwise, alltoall_linear or "
            "gather_linear, got '" + name + "'");
    char* end = nullptr;
    const long ranks = std::strtol(pos[1], &end, 10);
    if (*end != '\0' || ranks < 2 || ranks > (1 << 20))
        bad(std::string("N must be an integer in 2..1048576, got '") + pos[1] + "'");
    setup.ranks = static_cast<int>(ranks);
    if (!parse_u64(pos[2], setup.bytes) || setup.bytes == 0)
        bad(std::string("BYTES must be a positive number, got '") + pos[2] + "'");

    auto* zone = sg4::create_star_zone("star");
    std::vector<sg4::Host*> hosts;
    hosts.reserve(static_cast<std::size_t>(ranks));
    for (long i = 0; i < ranks; ++i) {
        const std::string host_name = "node-" + std::to_string(i);
        sg4::Host* host = zone->create_host(host_name, 1e9);
        sg4::Link* link = zone->create_split_duplex_link("link-" + host_name, 1.25e9);
        link->set_latency(5e-6);
        zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                        {{link, sg4::LinkInRoute::Direction::UP}}, true);
        hosts.push_back(host);
    }
    zone->seal();
    for (long i = 0; i < ranks; ++i) {
        rank_ids.push_back(static_cast<int>(i));
        data_box.push_back(sg4::Mailbox::by_name("data-" + std::to_string(i)));
        if (setup.bytes > setup.eager_threshold) {
            rts_box.push_back(sg4::Mailbox::by_name("rts-" + std::to_string(i)));
            cts_box.push_back(sg4::Mailbox::by_name("cts-" + std::to_string(i)));
        }
    }
    for (long i = 0; i < ranks; ++i)
        sg4::Actor::create("rank-" + std::to_string(i), hosts[static_cast<std::size_t>(i)],
                           rank_main, static_cast<int>(i));
    engine.run();
    const auto t1 = std::chrono::steady_clock::now();
    std::printf("simgrid %ld ranks %s %llu B (%s): simulated %.6f ms  wall %.3f s  comms %llu\n",
                ranks, name.c_str(), static_cast<unsigned long long>(setup.bytes),
                setup.bytes <= setup.eager_threshold ? "eager" : "rendezvous",
                sg4::Engine::get_clock() * 1e3, std::chrono::duration<double>(t1 - t0).count(),
                static_cast<unsigned long long>(comms));
    return 0;
}
