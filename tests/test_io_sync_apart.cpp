// Concurrent syncs of one file (issue 23): <file-system sync-apart="A"> makes the ranks'
// MPI_File_syncs end one after another, A apart, in the order they entered (Linux's fsyncs of
// one file by two processes ended 0.2-0.3 ms apart in LAMMPS's recorded dumps). Closed form:
// with no dirty data, every rank's sync ends at (the last entry) + sync + k A, k the rank's
// place in the order of entry; absent, every rank ends at (the last entry) + sync.
#include <gtest/gtest.h>

#include "io_fixtures.hpp"
#include "sim_fixtures.hpp"

namespace clustersim::testing {
namespace CLUSTERSIM_TEST_FILE {

using mpi::OpKind;
const std::string kFile = "data.bin";

run::Model model(const std::string& extra) {
    return io_model(3, "1GB/s",
                    R"(<io-server node="n2"><disk model="simple" rate="1GB/s"/></io-server>
        <file-system open="10us" sync="100us" )" +
                        extra + "/>");
}

// Rank r opens the file, computes work[r] instructions (1 G instructions/s) and syncs it.
std::vector<Time> finishes(const run::Model& t, const std::vector<std::uint64_t>& work) {
    std::vector<std::vector<mpi::Op>> script;
    for (const std::uint64_t w : work)
        script.push_back({file_open(0, &kFile), compute(w), file_op(OpKind::FileSync)});
    ScriptProgram prog(script);
    const auto res = simulate_io(t, ranks_on(t, static_cast<int>(work.size())), prog);
    std::vector<Time> out;
    for (const auto& r : res.ranks) out.push_back(r.finish);
    return out;
}

TEST(IoSyncApart, EachRankEndsItsPlaceInTheEntryOrderTimesApartAfterTheFirst) {
    // Ranks enter at 40, 20 and 30 us (after the 10 us open): rank 1 first, then 2, then 0;
    // the last enters at 40 us.
    const std::vector<std::uint64_t> work{30'000, 10'000, 20'000};
    const Time last = Time::us(40), sync = Time::us(100);
    const auto plain = finishes(model(""), work);
    EXPECT_EQ(plain, (std::vector<Time>{last + sync, last + sync, last + sync}));
    const auto t = model(R"(sync-apart="7us")");
    EXPECT_EQ(t.io.fs.sync_apart, Time::us(7));
    EXPECT_EQ(finishes(t, work), (std::vector<Time>{last + sync + Time::us(14), last + sync,
                                                    last + sync + Time::us(7)}));
    // One rank alone pays the sync only.
    EXPECT_EQ(finishes(t, {5'000}), (std::vector<Time>{Time::us(15) + sync}));
}

TEST(IoSyncApart, ANegativeOrUnitlessTimeIsOneErrorNamingTheAttribute) {
    for (const std::string bad : {R"(sync-apart="-1us")", R"(sync-apart="3")"}) {
        SCOPED_TRACE(bad);
        try {
            model(bad);
            ADD_FAILURE() << "accepted";
        } catch (const std::exception& e) {
            EXPECT_NE(std::string(e.what()).find("sync-apart"), std::string::npos) << e.what();
        }
    }
}

}  // namespace CLUSTERSIM_TEST_FILE
}  // namespace clustersim::testing
