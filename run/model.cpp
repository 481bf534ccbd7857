#include "run/model.hpp"

namespace clustersim::run {

namespace {

// What the parts decide about the graph's settings once they are read.
void settle(Model& m) {
    if (m.comm.present) m.topology.settings.model = topo::NetworkModel::Analytic;
}

}  // namespace

topo::ModelReader model_reader(ModelParts& parts) {
    // One line per part. The order is that of "unknown element" errors' lists of the elements
    // a <cluster> may hold (after the core's) and of <node-type>'s children.
    topo::ModelReader reader;
    reader.add(io::io_part(parts.io));
    reader.add(comm::comm_model_part(parts.comm));
    reader.add(jitter::jitter_part(parts.jitter));
    reader.add(mpi::mpi_part(parts.mpi));
    return reader;
}

Model parse_model(std::string_view xml, const std::string& file_name) {
    Model m;
    m.topology = model_reader(m).parse(xml, file_name);
    settle(m);
    return m;
}

Model load_model(const std::string& path) {
    Model m;
    m.topology = model_reader(m).load(path);
    settle(m);
    return m;
}

topo::ModelSummary summarize(const Model& m, topo::Router& router) {
    topo::ModelSummary s = topo::summarize(m.topology, router);
    if (m.topology.settings.model == topo::NetworkModel::Analytic)
        s.network += comm::describe(m.comm);
    s.overheads = mpi::describe_overheads(m.mpi);
    io::summarize_io(m.io, m.topology.nodes, s);
    return s;
}

}  // namespace clustersim::run
