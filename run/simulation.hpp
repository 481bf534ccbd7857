// One simulation run: a cluster model, a placement of ranks, and a program per rank.
// Owns the engine, router, network, CPUs and MPI runtime for the duration of the run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectives/io_service.hpp"
#include "collectives/placement.hpp"
#include "models/cpu.hpp"
#include "models/jitter.hpp"
#include "models/network.hpp"
#include "mpi/runtime.hpp"
#include "run/model.hpp"
#include "topologies/topology.hpp"

namespace clustersim::mpi {

struct SimulationResult {
    Time simulated;             // when the last rank finished
    std::uint64_t events = 0;   // engine events processed
    double set_up_seconds = 0;  // wall-clock time from simulate()'s start to its event loop
    double wall_seconds = 0;    // wall-clock time of the event loop
    double cpu_seconds = 0;     // CPU time of the process during the event loop (user + system)
    std::vector<RankResult> ranks;
    std::vector<RankLocation> placement;
    net::NetworkStats network;
    std::uint64_t bytes_on_edges = 0;       // sum over edges of payload bytes that crossed them
    std::vector<std::uint64_t> edge_bytes;  // payload bytes per one-way edge, by edge id
    bool has_io = false;                    // the run had an I/O system
    IoReport io;                            // its servers, disks and caches
    // Collective calls by "operation/algorithm" (each call counted once, by its
    // communicator's rank 0; calls timed as a whole by an analytic model are not).
    std::map<std::string, std::uint64_t> algorithms;
};

// Checks that every rank's socket can reach every other rank's socket (via rank 0's, both
// ways); throws InputError naming the model file, the node's line and both nodes otherwise.
void check_routes(const topo::Topology& topology, topo::Router& router,
                  const std::vector<RankLocation>& ranks);

struct SimulationOptions {
    // The process ends after this run: leave the simulator's state (runtime, network, engine,
    // routes) to its exit instead of freeing it (clustersim run; never under the sanitizers).
    bool leave_state_to_exit = false;
    std::vector<std::string> algorithm_overrides;  // "bcast=binomial" (--algorithm)
    std::string mpi_profile;  // --mpi: openmpi_4.1, mpich_4, simgrid ("": the model's, or none)
    std::uint64_t seed = 1;   // random choices (Valiant routing)
    // The registered network model to build, "NAME[:key=value,...]" as choose_network()
    // accepted and returned it (run/network_models.hpp); empty: the one the model's
    // settings select.
    std::string network;
    // The configured CPU model (--cpu, as cpu::cpu_models().select() gave it); unset: the
    // one the model's <network cpu> names, else processor sharing.
    std::optional<cpu::CpuModelId> cpu;
    // Builds the parallel file system (iosys::io_factory()); empty: no MPI-IO in this run.
    IoFactory io;
    // Told about every finished operation (timelines, statistics).
    OpObserver* observer = nullptr;
    // Several applications at once (Runtime::set_apps); empty: one.
    std::vector<std::uint32_t> app_sizes;
    // Hardware activity for detailed timelines: link busy intervals (track = edge id; only
    // the packet model records them) and disk service intervals (track = server index).
    std::vector<net::Activity>* link_activity = nullptr;
    std::vector<net::Activity>* disk_activity = nullptr;
    // Called with the events so far, the simulated time and the network model's own
    // counters (messages and bytes delivered, and its work: packet hops or flow rate
    // recomputations), at most `progress_every` events apart and about every
    // `progress_wall_s` seconds of wall time when events are slow (a flow model's solve of a
    // large component can take a second per event: the chunk of events between calls then
    // shrinks, down to one event).
    // `ops_in_progress`: ranks inside an operation (Runtime::ops_in_progress), so that what
    // the programs handed out less these is what has completed.
    std::function<void(std::uint64_t events, Time now, const net::NetworkStats& network,
                       std::uint64_t ops_in_progress)>
        progress;
    std::uint64_t progress_every = std::uint64_t{1} << 18;
    double progress_wall_s = 0.1;
    // Reads the jitter trace file of a model's <jitter trace="..."> (traces::read_jitter_trace;
    // this folder reads no trace files). `frequency_hz` is the element's frequency= (0: not
    // given). Empty: a model with a trace= jitter is an error. Generators need no loader.
    std::function<jitter::JitterTrace(const std::string& path, double frequency_hz)> jitter_loader;
};

// Switches the model's network to the registered network model `name`
// (run/network_models.hpp): "packet" (store-and-forward switches), "cut-through" (packet
// model, cut-through switches), "fluid", one of the analytic communication models
// (models/comm_model.hpp: simple, bus_only, incoming_link_only, outgoing_link_only,
// contention, pmac), or a model registered later, optionally with parameters checked
// against the entry's documented ones: "bus_only:buses=4,latency=2us" (the analytic models:
// buses, in-links, out-links, latency, bandwidth, intra-latency, intra-bandwidth,
// collectives=analytic|messages). The built-in models are selected through the topology's
// settings; returns `name`, which SimulationOptions::network takes for any model (a model
// registered later has no setting of its own and reads its parameters when it is built). Throws
// InputError naming --network otherwise.
std::string choose_network(topo::NetworkSettings& settings, comm::CommModelSpec& comm,
                           const std::string& name);
inline std::string choose_network(run::Model& model, const std::string& name) {
    return choose_network(model.topology.settings, model.comm, name);
}
// The names choose_network() accepts: "packet, cut-through, fluid, simple, bus_only, ...".
std::string network_names();

// The CPU model the topology's <network cpu="..."> names (processor sharing without one), as
// the id cpu::cpu_models().select() gives it. Throws InputError naming the model file and the
// <network> element's line for an unknown model or a bad parameter.
cpu::CpuModelId cpu_model_of(const topo::Topology& topology);

// Runs `program` on `ranks` placed on `topology`. Throws InputError on a deadlock (the
// program's ranks wait for each other forever), naming the blocked ranks and operations.
// When `program` is an App (apps.hpp) it is told the ranks' core speeds first.
//
// OS jitter: every core that hosts a rank and whose node type has a <jitter> for it (a
// core="N" element, else the type-wide one) runs in its noise timeline (see models/cpu.hpp).
// Cores are numbered in the order ranks first use them (rank 0's core is 0); that number is
// the task index given to jitter::start_position, so `synchronized` puts every core at one
// position and start-index="i" puts each at the compute segment of tuple i. Identical specs
// (same file or generator, length, seed and frequency) share one timeline. A problem with a
// jitter spec (unreadable trace, bad generator, start index beyond the trace, no frequency)
// is an InputError at the <jitter> element's line of the model file.
//
// The cores run the CPU model options.cpu names, else cpu_model_of(topology); a model that
// does not model OS jitter refuses a <jitter> with an InputError at its line.
// `parts` are the model's other settings (run/model.hpp); without them, every part's
// defaults (a model of the graph alone).
SimulationResult simulate(const topo::Topology& topology, const run::ModelParts& parts,
                          const std::vector<RankLocation>& ranks, Program& program,
                          const SimulationOptions& options = {});
inline SimulationResult simulate(const run::Model& model, const std::vector<RankLocation>& ranks,
                                 Program& program, const SimulationOptions& options = {}) {
    return simulate(model.topology, model, ranks, program, options);
}
SimulationResult simulate(const topo::Topology& topology, const std::vector<RankLocation>& ranks,
                          Program& program, const SimulationOptions& options = {});

}  // namespace clustersim::mpi
