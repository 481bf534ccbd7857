// Synthetic OS-jitter traces for the noise families studied in the literature (periodic
// daemons, Poisson/exponential arrivals, heavy-tailed Pareto, Bernoulli per scheduling
// quantum, and mixes of these). A generator produces a JitterTrace of a given length in
// cycles at a given frequency; deterministic for a seed.
//
// Spec grammar (used on the command line as `gen:SPEC` and in model XML `generator=`):
//   spec    := family ':' param (',' param)*  ( '+' spec )*
//   param   := key '=' value            values take units: times (10us, 1ms, 2.5ns),
//                                       plain numbers for probabilities and shapes
//   periodic:period=10ms,duration=50us[,phase=0]          one event every period
//   exponential:mean_interval=1ms,duration=20us           Poisson arrivals, fixed duration
//      (duration may be given as mean_duration=… for exponentially distributed durations)
//   pareto:mean_interval=1ms,scale=5us,shape=1.5          Poisson arrivals, Pareto(scale,
//                                                         shape) durations (heavy tail)
//   bernoulli:quantum=1ms,probability=0.01,duration=100us each quantum starts with a
//                                                         jitter event with that probability
//   a+b+…: the union of the events of each part (overlaps merge into one event).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/jitter.hpp"

namespace clustersim::jitter {

struct NoiseEvent {
    double start_s = 0;     // seconds from the start of the trace
    double duration_s = 0;  // seconds
};

struct GeneratorPart {
    std::string family;  // periodic | exponential | pareto | bernoulli
    // Parameters in seconds (times) or plain numbers; 0 when not given.
    double period = 0, duration = 0, phase = 0, mean_interval = 0, mean_duration = 0, scale = 0,
           shape = 0, quantum = 0, probability = 0;
};

struct GeneratorSpec {
    std::vector<GeneratorPart> parts;
    std::string text;  // the spec as given
};

// Parses a spec; throws std::invalid_argument with a message naming the bad part/key/value
// (unknown family, unknown, repeated or missing key, bad unit, probability outside [0,1],
// shape <= 1 for pareto (its mean must exist), duration >= period or phase >= period for
// periodic, duration >= quantum for bernoulli, neither or both of duration/mean_duration
// for exponential, a zero time, an empty spec or part around '+'). Messages about one part
// start with "generator part '<part>': ".
GeneratorSpec parse_generator(const std::string& text);

// Events of the spec over [0, length_s), sorted, overlaps (and touching events) merged, the
// last one cut at length_s. Deterministic for a seed; each part draws from its own stream
// (seeded from seed and the part's index), so adding a part leaves the others' events as
// they were. Throws std::invalid_argument if length_s <= 0.
std::vector<NoiseEvent> generate_events(const GeneratorSpec& spec, double length_s,
                                        std::uint64_t seed);

// Turns events into a trace at `frequency_hz` (> 0): tuple boundaries are rounded to whole
// cycles; the first tuple's jitter is 0 when the first event does not start at 0; the
// trace ends with the compute up to length_s. source = "gen:" + spec.text. An event shorter
// than half a cycle vanishes. Throws std::invalid_argument (message starts with `source`)
// for frequency_hz <= 0, length_s <= 0, or events leaving no compute cycle.
JitterTrace events_to_trace(const std::vector<NoiseEvent>& events, double length_s,
                            double frequency_hz, const std::string& source);

// generate_events + events_to_trace.
JitterTrace generate_trace(const GeneratorSpec& spec, double length_s, double frequency_hz,
                           std::uint64_t seed);

}  // namespace clustersim::jitter
