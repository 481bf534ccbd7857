// A model file as a run uses it: the graph and placement (topo::Topology) and every folder's
// own part of the file, each read by that folder's schema part (topologies/schema_part.hpp).
// This is where the parts are registered with the model reader, one line each
// (model_reader() in model.cpp); functions below take only the part they need.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectives/mpi_settings.hpp"
#include "iosys/io_settings.hpp"
#include "models/comm_spec.hpp"
#include "models/jitter_spec.hpp"
#include "topologies/routing.hpp"
#include "topologies/schema_part.hpp"
#include "topologies/summary.hpp"
#include "topologies/topology.hpp"

namespace clustersim::run {

// Every folder's settings from the model file; each default-constructed when its elements
// are absent (a run with the defaults is exactly a model without those elements).
struct ModelParts {
    mpi::MpiSettings mpi;                    // <collectives>, <mpi-overhead> (collectives/)
    io::IoSettings io;                       // <io-server>, <io-forwarder>, <file-system> (iosys/)
    comm::CommModelSpec comm;                // <comm-model> (models/comm_spec.hpp)
    std::vector<jitter::JitterSpec> jitter;  // <jitter> in <node-type>s, in document order
};

struct Model : ModelParts {
    Model() = default;
    // A graph built in code, with every part's defaults.
    explicit Model(topo::Topology graph) : topology(std::move(graph)) {}
    topo::Topology topology;
};

// The model reader with every folder's part registered, each writing into `parts` (which
// must outlive the reader).
topo::ModelReader model_reader(ModelParts& parts);

// Reads a whole model. A <comm-model> selects the analytic network model
// (topology.settings.model; `clustersim run --network` overrides it).
Model parse_model(std::string_view xml, const std::string& file_name);
Model load_model(const std::string& path);

// `clustersim validate`'s summary: the graph's (topo::summarize) and the parts'.
topo::ModelSummary summarize(const Model& model, topo::Router& router);

}  // namespace clustersim::run
