// SimGrid's side of bench/fluid_vs_simgrid.sh: the ring allgather of bench_models on the
// same star, run by SimGrid's flow model (S4U). Compiled only by that script, against the
// installed SimGrid (Debian libsimgrid-dev); the normal build never needs SimGrid.
//
//   simgrid_ring N BYTES [--cfg=network/model:CM02 ...]
//
// The platform: N hosts around one star centre, each with a split-duplex link (one shared
// resource per direction, like clustersim's one-way links) of 1.25 GB/s and 5 us; a
// message from host a to host b crosses a's up link and b's down link. Rank i runs N - 1
// steps: send BYTES to rank i + 1 (asynchronously), receive BYTES from rank i - 1, wait for
// the send. The same messages as clustersim's ring allgather (collectives/), one per rank
// and step. Prints the simulated time and the wall time of the whole run (platform
// creation included, as bench_models counts its model build), each with its unit.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace {

void rank_main(int rank, int ranks, double bytes) {
    sg4::Mailbox* mine = sg4::Mailbox::by_name("rank-" + std::to_string(rank));
    sg4::Mailbox* next = sg4::Mailbox::by_name("rank-" + std::to_string((rank + 1) % ranks));
    static char payload = 0;  // the contents do not matter; only the size is simulated
    for (int step = 0; step + 1 < ranks; ++step) {
        sg4::CommPtr out = next->put_async(&payload, static_cast<uint64_t>(bytes));
        mine->get<char>();
        out->wait();
    }
}

}  // namespace

int main(int argc, char** argv) {
    const auto t0 = std::chrono::steady_clock::now();
    sg4::Engine engine(&argc, argv);  // consumes the --cfg= arguments
    if (argc < 3) {
        std::fprintf(stderr, "usage: simgrid_ring N BYTES [--cfg=...]\n");
        return 2;
    }
    char* end = nullptr;
    const long ranks = std::strtol(argv[1], &end, 10);
    if (*end != '\0' || ranks < 2 || ranks > (1 << 20)) {
        std::fprintf(stderr, "simgrid_ring: N must be an integer in 2..1048576, got '%s'\n",
                     argv[1]);
        return 2;
    }
    const double bytes = std::strtod(argv[2], &end);
    if (*end != '\0' || !(bytes > 0)) {
        std::fprintf(stderr, "simgrid_ring: BYTES must be a positive number, got '%s'\n", argv[2]);
        return 2;
    }

    auto* zone = sg4::create_star_zone("star");
    std::vector<sg4::Host*> hosts;
    hosts.reserve(static_cast<std::size_t>(ranks));
    for (long i = 0; i < ranks; ++i) {
        const std::string name = "node-" + std::to_string(i);
        sg4::Host* host = zone->create_host(name, 1e9);
        sg4::Link* link = zone->create_split_duplex_link("link-" + name, 1.25e9);
        link->set_latency(5e-6);
        zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                        {{link, sg4::LinkInRoute::Direction::UP}}, true);
        hosts.push_back(host);
    }
    zone->seal();
    for (long i = 0; i < ranks; ++i)
        sg4::Actor::create("rank-" + std::to_string(i), hosts[static_cast<std::size_t>(i)],
                           rank_main, static_cast<int>(i), static_cast<int>(ranks), bytes);
    engine.run();
    const auto t1 = std::chrono::steady_clock::now();
    std::printf("simgrid %ld ranks ring %g B: simulated %.6f ms  wall %.3f s\n", ranks, bytes,
                sg4::Engine::get_clock() * 1e3, std::chrono::duration<double>(t1 - t0).count());
    return 0;
}
