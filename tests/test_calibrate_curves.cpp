// clustersim-calibrate's collective curves (issue 23; tools/mpi/calibrate/coll_curves.cpp):
// the measured medians become the model's <collective-curve> elements at the run's
// communicator size and placement, rows of the CSV, and survive --save-measured / --from;
// files saved before have none.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model_text.hpp"
#include "run/model.hpp"
#include "tools/mpi/calibrate/calibrate.hpp"

namespace CLUSTERSIM_TEST_FILE {

namespace cal = clustersim::calibrate;
using clustersim::Time;

const std::string kData = std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/data/calibrate/";

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

cal::Stats stat(double v, double lo, double hi) {
    cal::Stats s;
    s.value = s.median_all = v;
    s.min = s.p10 = lo;
    s.max = s.p90 = hi;
    s.samples = 15;
    s.passes = 5;
    return s;
}

// A real 2-rank calibration of one host (tests/data/calibrate/measured.json), with curves.
cal::Measured with_curves() {
    cal::Measured m = cal::measured_from_json(slurp(kData + "measured.json"), "measured.json");
    m.coll_curves = {
        {"barrier", {{0, stat(1.25e-6, 1.1e-6, 3e-6)}}},
        {"allreduce", {{1024, stat(2e-6, 1.9e-6, 2.5e-6)}, {16384, stat(8e-6, 7e-6, 9e-6)}}}};
    return m;
}

TEST(CalibrateCurves, SizesAreTheGridsWholeDoublesForReductions) {
    const std::vector<std::uint64_t> grid{0, 1, 4, 16, 20, 1024};
    EXPECT_EQ(cal::coll_curve_sizes("barrier", grid), std::vector<std::uint64_t>{0});
    // And one point at twice the grid's largest size.
    EXPECT_EQ(cal::coll_curve_sizes("bcast", grid),
              (std::vector<std::uint64_t>{0, 1, 4, 16, 20, 1024, 2048}));
    EXPECT_EQ(cal::coll_curve_sizes("reduce", grid),
              (std::vector<std::uint64_t>{0, 16, 1024, 2048}));
    EXPECT_EQ(cal::coll_curve_sizes("allreduce", grid),
              (std::vector<std::uint64_t>{0, 16, 1024, 2048}));
    EXPECT_EQ(cal::coll_curve_sizes("reduce", std::vector<std::uint64_t>{0, 20}),
              (std::vector<std::uint64_t>{0, 16, 40}));
}

// The medians are the model's points, for the run's communicator size, in the placement the
// run had (one host: intra-node); the model reads them back as written.
TEST(CalibrateCurves, ModelCarriesTheMedianPerOperationAndSize) {
    const cal::Measured m = with_curves();
    ASSERT_EQ(cal::coll_curve_scope(m), "intra_node");
    const std::string xml = cal::write_model(m, cal::derive(m, false), "curves", false);
    EXPECT_EQ(clustersim::testing::rewritten(xml), xml);
    const auto model = clustersim::run::parse_model(xml, "curves.xml");
    const auto& curves = model.mpi.collective_curves;
    ASSERT_EQ(curves.size(), 2u);
    EXPECT_EQ(curves[0].operation, "barrier");
    EXPECT_EQ(curves[0].ranks, 2u);
    EXPECT_EQ(curves[0].scope, "intra_node");
    EXPECT_EQ(curves[0].points,
              (std::vector<std::pair<std::uint64_t, Time>>{{0, Time::ps(1'250'000)}}));
    EXPECT_EQ(curves[1].operation, "allreduce");
    EXPECT_EQ(curves[1].points, (std::vector<std::pair<std::uint64_t, Time>>{
                                    {1024, Time::us(2)}, {16384, Time::us(8)}}));
    EXPECT_TRUE(model.mpi.collective_curves_on);
    // The CSV: one row per point, the median and the spread in microseconds.
    const std::string csv = cal::write_csv(m);
    EXPECT_NE(csv.find("collective_allreduce,intra_node,-1,-1,16384,,5,15,8.0000,8.0000,7.0000,"
                       "7.0000,9.0000,9.0000,,\n"),
              std::string::npos)
        << csv;
    EXPECT_NE(csv.find("collective_barrier,intra_node,-1,-1,0,"), std::string::npos);
    // Ranks on several hosts, some sharing one: no placement the simulator could match.
    cal::Measured mixed = m;
    mixed.hosts.push_back(mixed.hosts[0]);
    mixed.hosts[0].ranks = {0, 1};
    mixed.hosts[1].ranks = {2};
    EXPECT_EQ(cal::coll_curve_scope(mixed), "");
    mixed.hosts[0].ranks = {0};
    EXPECT_EQ(cal::coll_curve_scope(mixed), "inter_node");
}

// --save-measured / --from keep the curves; a file saved before them (the fixture) has none,
// and its model none either (the fixture's model is rewritten byte for byte elsewhere).
TEST(CalibrateCurves, SavedMeasurementKeepsThemAndOldFilesHaveNone) {
    const cal::Measured m = with_curves();
    const std::string json = cal::measured_to_json(m);
    const cal::Measured back = cal::measured_from_json(json, "saved.json");
    EXPECT_EQ(cal::measured_to_json(back), json);
    EXPECT_EQ(cal::write_model(back, cal::derive(back, false), "x", true),
              cal::write_model(m, cal::derive(m, false), "x", true));
    EXPECT_EQ(cal::write_csv(back), cal::write_csv(m));
    const cal::Measured old =
        cal::measured_from_json(slurp(kData + "measured.json"), "measured.json");
    EXPECT_TRUE(old.coll_curves.empty());
    EXPECT_EQ(cal::write_model(old, cal::derive(old, false), "x", false).find("collective-curve"),
              std::string::npos);
    // Bad curves: one line naming the field.
    auto bad = [&](auto edit) {
        nlohmann::json j = nlohmann::json::parse(json);
        edit(j);
        try {
            cal::measured_from_json(j.dump(), "bad.json");
        } catch (const cal::BadMeasured& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    EXPECT_EQ(bad([](auto& j) { j["collective_curves"][0]["operation"] = "gather"; }),
              "bad.json: field 'collective_curves[0].operation': expected barrier, bcast, reduce "
              "or allreduce");
    EXPECT_EQ(bad([](auto& j) { j["collective_curves"][1]["points"][1]["bytes"] = 1024; }),
              "bad.json: field 'collective_curves[1].points[1].bytes': expected sizes in "
              "increasing order");
    EXPECT_EQ(bad([](auto& j) { j["collective_curves"][1]["points"][0]["time"]["value"] = -1; }),
              "bad.json: field 'collective_curves[1].points[0].time.value': expected a finite "
              "time >= 0");
}

}  // namespace CLUSTERSIM_TEST_FILE
