// A process's first MPI_File_open (issue 23): <file-system first-open="T"> adds T to each
// rank's first open only (the MPI library sets up its I/O components once: Open MPI 4.1's
// OMPIO took 1.3-5 ms in the first open of a process, 0.1-0.9 ms in later ones). Closed
// forms: open + close of P ranks, k times, cost k (open + (P - 1) open-per-rank + close + ...)
// plus T once; absent, nothing changes.
#include <gtest/gtest.h>

#include "io_fixtures.hpp"
#include "sim_fixtures.hpp"
#include "simulator/error.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

using mpi::OpKind;
const std::string kFile = "data.bin", kOther = "other.bin";

run::Model model(const std::string& extra) {
    return io_model(4, "1GB/s",
                    R"(<io-server node="n3"><disk model="simple" rate="1GB/s"/></io-server>
        <file-system open="10us" close="4us" open-per-rank="2us" close-per-rank="1us" )" +
                        extra + "/>");
}

TEST(IoFirstOpen, OnlyEachRanksFirstOpenCostsIt) {
    for (const int p : {1, 2, 3}) {
        for (const int k : {1, 2, 3}) {
            SCOPED_TRACE(::testing::Message() << p << " ranks, " << k << " opens");
            std::vector<std::vector<mpi::Op>> script(static_cast<std::size_t>(p));
            for (auto& ops : script)
                for (int i = 0; i < k; ++i) {
                    ops.push_back(file_open(0, i % 2 == 0 ? &kFile : &kOther));
                    ops.push_back(file_op(OpKind::FileClose));
                }
            const Time one = Time::us(10 + 2 * (p - 1)) + Time::us(4 + (p - 1));
            {
                const auto t = model("");
                ScriptProgram prog(script);
                EXPECT_EQ(simulate_io(t, ranks_on(t, p), prog).simulated, one * k);
            }
            const auto t = model(R"(first-open="1.5ms")");
            EXPECT_EQ(t.io.fs.first_open, Time::us(1500));
            ScriptProgram prog(script);
            EXPECT_EQ(simulate_io(t, ranks_on(t, p), prog).simulated, one * k + Time::us(1500));
        }
    }
}

TEST(IoFirstOpen, ANegativeOrUnitlessTimeIsOneErrorNamingTheAttribute) {
    for (const std::string bad : {R"(first-open="-1ms")", R"(first-open="3")"}) {
        SCOPED_TRACE(bad);
        try {
            model(bad);
            ADD_FAILURE() << "accepted";
        } catch (const std::exception& e) {
            EXPECT_NE(std::string(e.what()).find("first-open"), std::string::npos) << e.what();
        }
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
