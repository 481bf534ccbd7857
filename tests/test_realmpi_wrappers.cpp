// The tracer's PMPI wrappers come from one table (tools/mpi/wrappers.def) through
// gen_wrappers: every entry becomes one wrapper, signatures in a row share their lines, and a
// malformed table is one line `TABLE:LINE: reason` with exit code 2 (never a half-written
// wrapper file that fails later in the compiler).
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "cli_fixtures.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

Result generate(const std::string& table, const std::string& out) {
    return run_shell(std::string(CLUSTERSIM_GEN_WRAPPERS) + " " + table + " " + out);
}

std::size_t count(const std::string& text, const std::regex& re) {
    return static_cast<std::size_t>(
        std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

TEST(RealMpiWrappers, TheShippedTableMakesOneWrapperPerSignature) {
    const std::string table = std::string(CLUSTERSIM_SOURCE_DIR) + "/tools/mpi/wrappers.def";
    const std::string out = temp_path("w.inc");
    const Result r = generate(table, out);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string def = slurp(table), inc = slurp(out);
    const std::size_t signatures = count(def, std::regex("(^|\n)MPI_\\w+\\("));
    EXPECT_GT(signatures, 90u);
    EXPECT_EQ(count(inc, std::regex("\nint MPI_\\w+\\(")), signatures);
    // Each wrapper times exactly one PMPI call of its own name, and falls back to it.
    EXPECT_EQ(count(inc, std::regex("const int rc = PMPI_")), signatures);
    EXPECT_EQ(count(inc, std::regex("if \\(!g.recording\\(\\)\\) return PMPI_")), signatures);
}

TEST(RealMpiWrappers, SignaturesInARowShareTheirLines) {
    const std::string table =
        write_temp("t.def",
                   "# two sends\n"
                   "MPI_Send(const void* buf, int count,\n"
                   "         MPI_Datatype type, int dest, int tag, MPI_Comm comm)\n"
                   "MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, "
                   "MPI_Comm comm)\n"
                   "  < int before = 1;\n"
                   "    record(call, s, dest, before);\n"
                   "\n"
                   "MPI_Start(MPI_Request* request)\n"
                   "  = request\n"
                   "    unmodeled(call, s);\n");
    const std::string out = temp_path("t.inc");
    const Result r = generate(table, out);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string inc = slurp(out);
    EXPECT_EQ(count(inc, std::regex("record\\(call, s, dest, before\\);")), 2u) << inc;
    EXPECT_EQ(count(inc, std::regex("int before = 1;")), 2u);
    EXPECT_NE(inc.find("// two sends\nint MPI_Send(const void* buf, int count, MPI_Datatype type, "
                       "int dest, int tag, MPI_Comm comm) {"),
              std::string::npos)
        << inc;
    EXPECT_NE(inc.find("return PMPI_Ssend(buf, count, type, dest, tag, comm);"), std::string::npos);
    EXPECT_NE(inc.find("constexpr std::uint16_t call = idx(\"MPI_Start\");"), std::string::npos);
}

TEST(RealMpiWrappers, AMalformedTableIsOneLineWithItsPlace) {
    struct Case {
        std::string table, needle;
    };
    const Case cases[] = {
        {"MPI_Send(int a\n    x;\n", ":1: the signature's parentheses never close"},
        {"MPI_Send(int a)\n    x;\n\nMPI_Send(int b)\n    y;\n", ":4: MPI_Send is wrapped twice"},
        {"MPI_Send(int a)\n\n", ":1: MPI_Send records nothing"},
        {"MPI_Send(int a)\n  x;\n", ":2: expected '  < ', '  = ' or a 4-space"},
        {"    x;\n", ":1: expected a signature"},
        {"MPI_Send(int a)\n    x;\n  < y;\n", ":3: a '<' line after the record lines"},
        {"MPI_Send(int)\n    x;\n", ":1: parameter 'int' has no type and name"},
        {"MPI_Send(int a)\n    x;\nMPI_Recv(int a)\n", ":3: a new signature inside an entry"},
    };
    for (const Case& c : cases) {
        const std::string table = write_temp("bad.def", c.table);
        const std::string out = temp_path("bad.inc");
        std::remove(out.c_str());
        const Result r = generate(table, out);
        EXPECT_EQ(r.code, 2) << c.table;
        EXPECT_NE(r.err.find(table + c.needle), std::string::npos) << c.table << "\n" << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_TRUE(slurp(out).empty()) << "nothing written for " << c.table;
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
