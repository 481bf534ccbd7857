// The MPI-3.1 census of tools/README.md (issue 54) kept true: its table has one row per
// function the installed mpi.h declares, `traced` is `yes` exactly for the calls
// tools/mpi/wrappers.def wraps (and MPI_Init, MPI_Init_thread, MPI_Finalize, written in
// tracer.cpp), `simulated` is `yes` exactly for wrapped calls whose record lines make a
// modelled record, and the counts the section states are the table's.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

struct Row {
    std::string traced, simulated, why;
};

std::map<std::string, Row> census_rows(const std::string& readme) {
    std::map<std::string, Row> rows;
    const std::regex row(R"(\n\| `(MPI_\w+)` \| [^|]+ \| (yes|no) \| (yes|no|-) \| ([^|\n]*) \|)");
    for (auto it = std::sregex_iterator(readme.begin(), readme.end(), row);
         it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[1];
        EXPECT_EQ(rows.count(name), 0u) << name << " has two rows";
        rows[name] = Row{(*it)[2], (*it)[3], (*it)[4]};
    }
    return rows;
}

// Every MPI_ function mpi.h declares (Open MPI's `OMPI_DECLSPEC int MPI_Name(`, MPICH's
// `int MPI_Name(`), not the PMPI_ ones.
std::set<std::string> declared(const std::string& header) {
    std::set<std::string> out;
    const std::regex decl(
        R"((?:^|\n)\s*(?:OMPI_DECLSPEC\s+)?(?:int|double|MPI_\w+)\s+(MPI_\w+)\s*\()");
    for (auto it = std::sregex_iterator(header.begin(), header.end(), decl);
         it != std::sregex_iterator(); ++it)
        out.insert((*it)[1]);
    return out;
}

// wrappers.def: each wrapped call and whether its shared record lines make a modelled record
// (a record of a modelled kind, or a call of one of tracer.cpp's helpers that make them).
// Lines that make neither a modelled nor an unmodeled or folded record are a helper this
// list does not know: the test says so rather than count the call as not simulated.
std::map<std::string, bool> wrapped(const std::string& table) {
    std::map<std::string, bool> out;
    std::vector<std::string> group;
    bool lines = false, modelled = false, recorded = false;
    const std::regex makes(
        R"(make\(rf::k(?!Unmodeled)|\b(collective|topology|neighbor|split_by_result|matched_receive|completed|rma|win_made)\()");
    const std::regex unmodeled(R"(\b(unmodeled|g\.fold)\()");
    auto end_group = [&] {
        EXPECT_TRUE(group.empty() || modelled || recorded)
            << group.front() << ": its lines in wrappers.def make no record this test knows; "
            << "add the helper they call to `makes`";
        for (const std::string& n : group) out[n] = modelled;
        group.clear();
        lines = modelled = recorded = false;
    };
    std::stringstream in(table);
    for (std::string l; std::getline(in, l);) {
        if (l.rfind("MPI_", 0) == 0) {
            if (lines) end_group();
            group.push_back(l.substr(0, l.find('(')));
        } else if (l.rfind("    ", 0) == 0) {
            lines = true;
            modelled = modelled || std::regex_search(l, makes);
            recorded = recorded || std::regex_search(l, unmodeled);
        }
    }
    end_group();
    return out;
}

TEST(MpiCensus, TheTableListsEveryFunctionOfMpiHOnce) {
    const std::map<std::string, Row> rows =
        census_rows(slurp(std::string(CLUSTERSIM_SOURCE_DIR) + "/tools/README.md"));
    const std::set<std::string> mpi_h = declared(slurp(CLUSTERSIM_MPI_H));
    ASSERT_GT(mpi_h.size(), 300u) << CLUSTERSIM_MPI_H;
    for (const std::string& f : mpi_h)
        EXPECT_EQ(rows.count(f), 1u) << f << " (in " << CLUSTERSIM_MPI_H << ") has no census row";
    for (const auto& [f, row] : rows)
        EXPECT_EQ(mpi_h.count(f), 1u) << f << " has a row but is not declared in mpi.h";
}

TEST(MpiCensus, TracedAndSimulatedFollowTheWrapperTable) {
    const std::string readme = slurp(std::string(CLUSTERSIM_SOURCE_DIR) + "/tools/README.md");
    const std::map<std::string, Row> rows = census_rows(readme);
    std::map<std::string, bool> wrap =
        wrapped(slurp(std::string(CLUSTERSIM_SOURCE_DIR) + "/tools/mpi/wrappers.def"));
    ASSERT_GT(wrap.size(), 100u);
    for (const char* f : {"MPI_Init", "MPI_Init_thread", "MPI_Finalize"}) {
        ASSERT_EQ(rows.count(f), 1u) << f;
        EXPECT_EQ(rows.at(f).traced, "yes") << f;
        EXPECT_EQ(rows.at(f).simulated, "-") << f;
    }
    int traced = 0, simulated = 0, recorded = 0, untraced = 0;
    for (const auto& [f, row] : rows) {
        if (f == "MPI_Init" || f == "MPI_Init_thread" || f == "MPI_Finalize") {
            ++traced;
            continue;
        }
        auto it = wrap.find(f);
        EXPECT_EQ(row.traced, it != wrap.end() ? "yes" : "no") << f;
        const bool sim = it != wrap.end() && it->second;
        EXPECT_EQ(row.simulated, sim ? "yes" : "no") << f;
        EXPECT_FALSE(row.why.empty() && row.traced == "no") << f << ": say why it is not traced";
        if (it != wrap.end()) {
            ++traced;
            ++(sim ? simulated : recorded);
        } else {
            ++untraced;
        }
    }
    for (const auto& [f, m] : wrap) EXPECT_EQ(rows.count(f), 1u) << f << " is wrapped, no row";
    // The counts the section states.
    std::smatch counts;
    ASSERT_TRUE(std::regex_search(
        readme, counts,
        std::regex(
            R"(Counts: (\d+) traced, of which (\d+) simulated, (\d+) replayed as recorded,[^;]*; (\d+) not traced)")));
    EXPECT_EQ(std::stoi(counts[1]), traced);
    EXPECT_EQ(std::stoi(counts[2]), simulated);
    EXPECT_EQ(std::stoi(counts[3]), recorded);
    EXPECT_EQ(std::stoi(counts[4]), untraced);
    std::smatch all;
    ASSERT_TRUE(std::regex_search(readme, all, std::regex(R"(MPI-3.1: (\d+) functions\))")));
    EXPECT_EQ(std::stoul(all[1]), rows.size());
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
