// The flag-values table (tools/flag_values.hpp) against the command line itself: every option
// that takes text has a row, no row names an option that is gone, and every name an
// enumerated option lists is accepted and, one letter off, suggested back ("did you mean
// '<name>'?") with exit 2. A new enumerated flag without a row, or without a suggestion,
// fails here; so does a name the table lists that the command refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_fixtures.hpp"
#include "simulator/suggest.hpp"
#include "tools/cli.hpp"
#include "tools/flag_values.hpp"

namespace clustersim::testing {
namespace {

using cli::FlagValues;
using cli::ValueKind;

TEST(FlagValues, EveryOptionThatTakesTextHasARowAndEveryRowAnOption) {
    const std::vector<FlagValues> table = cli::flag_values();
    const auto options = cli::text_options();
    ASSERT_GT(options.size(), 80u);  // the walk found the commands' options
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto& [command, option] : options) {
        EXPECT_NE(cli::find_flag_values(table, command, option), nullptr)
            << "'" << command << " " << option
            << "' takes text but has no row in tools/flag_values.cpp: names, a file, a folder "
               "or free text?";
        seen.emplace(command, option);
    }
    for (const FlagValues& f : table) {
        EXPECT_TRUE(seen.count({f.command, f.option}))
            << "tools/flag_values.cpp has a row for '" << f.command << " " << f.option
            << "', which no command has";
        if (f.kind == ValueKind::Names)
            EXPECT_FALSE(f.names.empty()) << f.command << f.option;
        else
            EXPECT_TRUE(f.names.empty()) << f.command << f.option;
    }
}

TEST(FlagValues, HelpNamesEveryCommand) {
    const Result r = run("--help");
    ASSERT_EQ(r.code, 0);
    std::vector<std::string> commands;
    std::istringstream in(r.out.substr(r.out.find("Subcommands:")));
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line) && line.rfind("  ", 0) == 0) {
        std::istringstream words(line);
        std::string w;
        words >> w;
        commands.push_back(w);
    }
    const std::vector<FlagValues> table = cli::flag_values();
    const FlagValues* help = cli::find_flag_values(table, "help", "COMMAND");
    ASSERT_NE(help, nullptr);
    EXPECT_EQ(help->names, commands);
}

// A misspelling of `name`, one edit away, that suggests `name` among `names`; "" if none does.
std::string misspell(const std::string& name, const std::vector<std::string>& names) {
    std::vector<std::string> tries;
    const std::size_t mid = name.size() / 2;
    if (name.size() >= 4) tries.push_back(name.substr(0, mid) + name.substr(mid + 1));
    if (name.size() >= 3) {
        std::string s = name;
        std::swap(s[mid - 1], s[mid]);
        tries.push_back(s);
    }
    tries.push_back(name + "x");
    for (const std::string& t : tries)
        if (std::find(names.begin(), names.end(), t) == names.end() &&
            closest_name(t, names) == name)
            return t;
    return {};
}

// Each enumerated option's command line, with {} for the value. Paths are the repository's
// examples; outputs go into the test's own temporary names.
std::string base_command(const FlagValues& f) {
    const std::string src = CLUSTERSIM_SOURCE_DIR;
    const std::string io_model = example("figure5-io-8.xml");
    const std::string trace = src + "/tests/data/traces/every-kind.trace";
    const std::string jtr = src + "/traces/examples/jitter/this-machine.core0.jtr";
    const std::string piosimhd = std::string(CLUSTERSIM_SHARED_DIR) +
                                 "/external/hdtrace-partdiff-mpi-io/pvs-cluster-model.xml";
    const std::string out = temp_path("out");
    const std::string jitter = "jitter --trace " + jtr + " --work 1ms --phases 2 --tasks 1,2 ";
    const std::map<std::string, std::string> bases{
        {"generate KIND", "generate {} --nodes 4"},
        {"generate", "generate star --nodes 4 OPT {}"},
        {"run --app", "run " + io_model + " --app {} --ranks 2 -q"},
        {"run --timeline-detail",
         "run " + io_model + " --app barrier --ranks 2 -q --out " + out + " OPT {}"},
        {"run", "run " + io_model + " --app barrier --ranks 2 -q OPT {}"},
        {"convert", "convert " + trace + " " + out + ".cstrace OPT {}"},
        {"trace merge", "trace merge " + out + "-none -o " + out + ".cstrace OPT {}"},
        {"extrapolate",
         "extrapolate " + trace + " " + trace + " --ranks 8 -o " + out + ".cstrace OPT {}"},
        {"import KIND", "import {} " + piosimhd},
        {"import", "import piosimhd " + piosimhd + " OPT {}"},
        {"compare", "compare " + trace + " " + out + "-none OPT {}"},
        {"jitter", jitter + "OPT {}"},
        {"jitter --policy", jitter + "--policy {}"},
        {"jitter-trace generate",
         "jitter-trace generate --spec periodic:period=10ms,duration=50us --frequency 1GHz --out " +
             out + ".jtr OPT {}"},
        {"jitter-trace convert", "jitter-trace convert " + jtr + " " + out + ".jtr OPT {}"},
        {"jitter-trace info", "jitter-trace info " + jtr + " OPT {}"},
        // The tracer must be a file; the program must never run with a bad flag.
        {"record", "record -o " + out + ".cstrace --tracer " + io_model + " OPT {} -- true"},
        {"list KIND", "list {}"},
        {"completion SHELL", "completion {}"},
        {"help COMMAND", "help {}"},
    };
    auto it = bases.find(f.command + " " + f.option);
    if (it == bases.end()) it = bases.find(f.command);
    if (it == bases.end()) return {};
    std::string b = it->second;
    if (const auto at = b.find("OPT"); at != std::string::npos) b.replace(at, 3, f.option);
    return b;
}

std::string with_value(std::string base, const std::string& value) {
    return base.replace(base.find("{}"), 2, value);
}

TEST(FlagValues, EveryNameIsAcceptedAndOneLetterOffSuggested) {
    std::size_t checked = 0;
    for (const FlagValues& f : cli::flag_values()) {
        if (f.kind != ValueKind::Names) continue;
        const std::string base = base_command(f);
        ASSERT_FALSE(base.empty()) << "no command line for " << f.command << " " << f.option;
        // OPERATION=ALGORITHM: the operation is the name misspelt.
        std::vector<std::string> words;
        for (const std::string& n : f.names) {
            const std::string w = n.substr(0, n.find('='));
            if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
        }
        for (const std::string& name : f.names) {
            const std::string word = name.substr(0, name.find('='));
            const std::string rest = name.substr(word.size());
            const std::string typo = misspell(word, words);
            ASSERT_FALSE(typo.empty()) << f.command << " " << f.option << ": '" << word
                                       << "' has no misspelling that suggests it (names too alike)";
            const Result bad = run(with_value(base, typo + rest));
            EXPECT_EQ(bad.code, 2) << with_value(base, typo + rest) << "\n" << bad.err;
            EXPECT_NE(bad.err.find("(did you mean '" + word + "'?)"), std::string::npos)
                << with_value(base, typo + rest) << "\n"
                << bad.err;
            EXPECT_EQ(bad.err.find("running"), std::string::npos) << "ran with a bad flag";
            ++checked;
            // Each app's own run is its own test; the registry that lists it reads it.
            if (f.option == "--app") continue;
            const Result good = run(with_value(base, name));
            EXPECT_EQ(good.err.find("did you mean"), std::string::npos)
                << with_value(base, name) << "\n"
                << good.err;
            for (const std::string& refused : std::vector<std::string>{
                     "'" + name + "': expected", "unknown", "'" + name + "' is not valid"})
                EXPECT_EQ(good.err.find(refused), std::string::npos)
                    << with_value(base, name) << "\n"
                    << good.err;
        }
    }
    EXPECT_GT(checked, 150u);
}

// What bash offers after the words typed so far (the last one being completed; '' for an
// empty word), with the script `clustersim completion bash` prints, run from `dir`.
std::string complete(const std::string& script, const std::string& dir, const std::string& words) {
    const std::string driver = write_temp(
        "driver.bash",
        "source \"$1\"; shift; COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _clustersim\n"
        "[ ${#COMPREPLY[@]} -gt 0 ] && printf '%s\\n' \"${COMPREPLY[@]}\" | sort | tr '\\n' ' '\n"
        "exit 0\n");
    return run_shell("cd " + dir + " && bash " + driver + " " + script + " " + words).out;
}

TEST(FlagValues, BashCompletesEachFlagsNamesFilesAndFolders) {
    const Result r = run("completion bash");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string script = write_temp("completion.bash", r.out);
    const std::string dir = temp_path("dir");
    ASSERT_EQ(run_shell("mkdir -p " + dir + "/models && touch " + dir + "/mine.xml").code, 0);
    EXPECT_EQ(complete(script, dir, "clustersim ru"), "run ");
    EXPECT_EQ(complete(script, dir, "clustersim run m.xml --network f"), "fluid ");
    EXPECT_EQ(complete(script, dir, "clustersim run m.xml --placement ''"),
              "round_robin sequential ");
    EXPECT_EQ(complete(script, dir, "clustersim run m.xml --timeline-detail h"), "hardware ");
    EXPECT_EQ(complete(script, dir, "clustersim run m.xml --out ''"), "models ");
    EXPECT_EQ(complete(script, dir, "clustersim run m"), "mine.xml models ");
    EXPECT_EQ(complete(script, dir, "clustersim run m.xml --progress-interval ''"), "");
    EXPECT_EQ(complete(script, dir, "clustersim generate d"), "dragonfly ");
    EXPECT_EQ(complete(script, dir, "clustersim trace ''"), "merge ");
    EXPECT_EQ(complete(script, dir, "clustersim trace merge x -o y --to b"), "binary ");
    EXPECT_EQ(complete(script, dir, "clustersim jitter-trace convert a b --to l"), "loggopsim ");
    EXPECT_EQ(complete(script, dir, "clustersim list c"), "caches ");
    EXPECT_EQ(complete(script, dir, "clustersim help j"), "jitter jitter-trace ");
    EXPECT_EQ(complete(script, dir, "clustersim run m.xml --pl"), "--placement ");
}

}  // namespace
}  // namespace clustersim::testing
