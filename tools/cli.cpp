#include "tools/cli.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "collectives/apps.hpp"
#include "collectives/collective.hpp"
#include "collectives/selection.hpp"
#include "import/import.hpp"
#include "iosys/cache.hpp"
#include "iosys/disk.hpp"
#include "iosys/file_system.hpp"
#include "iosys/ior.hpp"
#include "models/cpu.hpp"
#include "run/network_models.hpp"
#include "run/simulation.hpp"
#include "simulator/error.hpp"
#include "simulator/params.hpp"
#include "simulator/spelling.hpp"
#include "simulator/suggest.hpp"
#include "simulator/units.hpp"
#include "tools/cli_util.hpp"
#include "tools/completion.hpp"
#include "tools/extrapolate_command.hpp"
#include "tools/flag_values.hpp"
#include "tools/jitter_command.hpp"
#include "tools/model_commands.hpp"
#include "tools/record_command.hpp"
#include "tools/run_command.hpp"
#include "tools/sweep_command.hpp"
#include "tools/trace_commands.hpp"
#include "tools/version.hpp"
#include "tools/whole_number.hpp"
#include "topologies/forwarding.hpp"
#include "topologies/generators.hpp"
#include "topologies/model_xml.hpp"
#include "topologies/nic_models.hpp"
#include "topologies/routing.hpp"
#include "topologies/summary.hpp"
#include "traces/reader.hpp"
#include "traces/writer.hpp"

namespace clustersim::cli {
namespace {

constexpr int kBadInput = 2;

// The deepest subcommand the parser entered (the app itself if none).
const CLI::App* selected(const CLI::App& app) {
    for (const CLI::App* sub : app.get_subcommands())
        if (sub->parsed()) return selected(*sub);
    return &app;
}

// One line for a parse error, with a suggestion where a flag or subcommand is misspelt.
std::string explain(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
    const CLI::App* where = selected(app);
    const std::string path = where == &app ? "clustersim" : "clustersim " + where->get_name();
    std::string line = e.what();
    std::vector<std::string> subs;
    for (const CLI::App* s : app.get_subcommands({})) subs.push_back(s->get_name());
    if (where == &app && argc > 1 && argv[1][0] != '-' &&
        std::find(subs.begin(), subs.end(), argv[1]) == subs.end())
        return fmt::format("unknown command '{}'{} (see clustersim --help)", argv[1],
                           did_you_mean(argv[1], subs));
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
        // "The following argument(s) were not expected: --rank 16"
        const std::string text = e.what();
        const std::size_t colon = text.find(": ");
        std::vector<std::string> extras;
        if (colon != std::string::npos) {
            std::size_t pos = colon + 2;
            while (pos < text.size()) {
                const std::size_t sp = text.find(' ', pos);
                extras.push_back(text.substr(pos, sp == std::string::npos ? sp : sp - pos));
                if (sp == std::string::npos) break;
                pos = sp + 1;
            }
        }
        for (const std::string& x : extras) {
            if (x.rfind("-", 0) == 0) {
                std::vector<std::string> flags;
                for (const CLI::Option* o : where->get_options()) {
                    for (const std::string& l : o->get_lnames())
                        flags.push_back(fmt::format("--{}", l));
                    for (const std::string& s : o->get_snames())
                        flags.push_back(fmt::format("-{}", s));
                }
                const std::string name = x.substr(0, x.find('='));
                return fmt::format("{}unknown flag '{}'{} (see {} --help)",
                                   where == &app ? "" : where->get_name() + ": ", name,
                                   did_you_mean(name, flags), path);
            }
        }
        if (where == &app && !extras.empty()) {
            return fmt::format("unknown command '{}'{} (see clustersim --help)", extras.front(),
                               did_you_mean(extras.front(), subs));
        }
        return fmt::format("{}unexpected argument(s) '{}' (see {} --help)",
                           where == &app ? "" : where->get_name() + ": ",
                           text.substr(colon == std::string::npos ? 0 : colon + 2), path);
    }
    return fmt::format("{} (see {} --help)", line, path);
}

}  // namespace

// The first option or positional given an empty value ("--out ''", an empty OUTPUT), on the
// command line's parsed subcommands; "" when none. A traced program's own arguments (record's
// COMMAND) may be empty.
std::string empty_value(const CLI::App& app) {
    for (const CLI::Option* o : app.get_options()) {
        if (o->count() == 0 || o->get_expected_min() == 0 || o->get_name() == "COMMAND") continue;
        for (const std::string& v : o->results())
            if (v.empty()) return o->get_name();
    }
    for (const CLI::App* s : app.get_subcommands())
        if (std::string n = empty_value(*s); !n.empty()) return n;
    return {};
}

namespace {

CLI::App* add_run(CLI::App& app, RunFlags& r) {
    auto* run =
        app.add_subcommand("run", "Simulate applications (built-in or traces) on a cluster model");
    run->add_option("MODEL", r.model, "cluster model XML file")->required();
    run->add_option("--app", r.apps,
                    "application: pingpong:size=1MiB,iterations=10, bcast:size=100MiB, "
                    "io:op=write,size=1GiB, ..., or trace:PATH (a trace file, index or project); "
                    "repeat to run several applications at once, each with its own ranks")
        ->required();
    run->add_option("--ranks", r.ranks,
                    "ranks of each built-in app, in --app order (default: the app's minimum; a "
                    "trace brings its own)");
    run->add_option("--placement", r.placement,
                    "round_robin, sequential, or map:FILE (lines: RANK NODE [SOCKET [CORE]])");
    run->add_flag("--oversubscribe", r.oversubscribe,
                  "allow more ranks than cores (ranks then share cores)");
    run->add_option("--algorithm", r.algorithms,
                    "collective algorithm override, e.g. bcast=binomial, "
                    "bcast=pipeline:segment=64KiB, write_all=two_phase (repeatable)");
    run->add_option(
        "--mpi", r.mpi,
        fmt::format("choose collective algorithms (and segment sizes) per call as an MPI "
                    "library's default decision rules do: {} (--algorithm still wins)",
                    fmt::join(mpi::profile_names(), ", ")));
    run->add_option("--network", r.network,
                    "network model: packet, cut_through, fluid, or an analytic communication "
                    "model: simple, bus_only, incoming_link_only, outgoing_link_only, "
                    "contention, pmac, with optional parameters, e.g. bus_only:buses=4 "
                    "(default: the model's)");
    run->add_option("--cpu", r.cpu,
                    "CPU model of every core: processor_sharing or run_to_completion, or one "
                    "registered later, NAME[:key=value,...] (default: the model's)");
    run->add_option("--seed", r.seed, "seed of random choices (Valiant and UGAL routing)")
        ->check(whole_number(UINT64_MAX));
    run->add_option("--cache", r.cache,
                    "cache layer (I/O scheduler) for every I/O server, replacing the model's: " +
                        io::cache_models().names_list());
    run->add_option("--format", r.format,
                    "trace format of trace: apps: auto, " + traces::trace_readers().names());
    run->add_flag("--skip-unknown", r.skip_unknown,
                  "skip trace records clustersim does not support (counted per kind) instead "
                  "of stopping");
    run->add_option("--traced-speed", r.traced_speed,
                    "instructions/s of a core of the traced machine (e.g. 2.8G): compute "
                    "times are projected by the ratio to the target cores (default: the "
                    "trace's, else times are kept)");
    run->add_option("--out", r.out,
                    "write the timeline (Chrome trace JSON and OTF2), statistics (CSV, summary) "
                    "and the simulated trace to this folder");
    run->add_option("--timeline-detail", r.timeline_detail, "ranks (default) or hardware");
    auto* json_flag =
        run->add_flag("--json", r.json, "print one JSON object instead of the summary");
    run->add_flag("--per-rank", r.per_rank, "with --json: add per-rank results")->needs(json_flag);
    run->add_flag("--progress", r.progress,
                  "print a progress line (fraction done, time left, event rate) to stderr every "
                  "--progress-interval, also when stderr is not a terminal (batch jobs)");
    run->add_option("--progress-interval", r.progress_interval,
                    "time between progress lines with --progress (default 10s; 0s: after "
                    "every chunk of events, from 64 up to 262,144, shorter while events are "
                    "slow)");
    run->add_flag("-q,--quiet", r.quiet, "no progress line, not even on a terminal");
    {
        // Every name the flags accept, at the end of `run --help`.
        const Catalogue c = catalogue();
        auto names = [](const std::vector<std::pair<std::string, std::string>>& items) {
            std::string s;
            for (const auto& [n, h] : items)
                s += (s.empty() ? "" : ", ") + n.substr(0, n.find(':'));
            return s;
        };
        std::string algs;
        for (const auto& [n, h] : c.algorithms) algs += (algs.empty() ? "" : ", ") + n;
        run->footer(
            fmt::format("Apps: {}\n\nCollective algorithms: {}\n\nNetwork models: {}\n\n"
                        "Trace formats: auto, {}\n\nCache layers: {}\n\n"
                        "'clustersim list' prints each with its parameters.",
                        names(c.apps), algs, names(c.networks), names(c.formats), names(c.caches)));
    }

    return run;
}

CLI::App* add_convert(CLI::App& app, ConvertFlags& cv) {
    auto* convert = app.add_subcommand(
        "convert", "Convert a trace to the native text or binary format, OTF2 or GOAL");
    convert->add_option("INPUT", cv.input, "trace (any readable format)")->required();
    convert->add_option("OUTPUT", cv.output, "file to write")->required();
    {
        // Every registered writer, and the extensions that choose each (traces/writer.hpp).
        std::string by_extension;
        for (const traces::WriterEntry& w : traces::trace_writers().entries())
            for (const std::string& e : w.extensions)
                by_extension +=
                    fmt::format("{}{} = {}", by_extension.empty() ? "" : ", ", e, w.name);
        convert->add_option("--to", cv.to,
                            fmt::format("{} (default: by OUTPUT's extension: {}; any other: "
                                        "binary; otf2: OUTPUT is the anchor file, NAME.def and "
                                        "NAME/ go beside it)",
                                        traces::trace_writers().names(), by_extension));
    }
    convert->add_option("--format", cv.format,
                        "format of INPUT: auto (default), " + traces::trace_readers().names());
    convert->add_flag("--skip-unknown", cv.skip_unknown, "skip unsupported records");
    convert->add_option("--model", cv.model,
                        "goal: the model whose <collectives> rules choose each collective's "
                        "algorithm and whose reduction, copy and barrier costs become calcs");
    convert->add_option("--algorithm", cv.algorithms,
                        "goal: collective algorithm override, e.g. bcast=binomial (repeatable)");
    convert->add_option("--mpi", cv.mpi,
                        "goal: choose collective algorithms as an MPI library's decision rules "
                        "do: openmpi_4.1, mpich_4, simgrid");

    return convert;
}

// `trace merge`: returns `merge`.
CLI::App* add_trace_merge(CLI::App& app, MergeFlags& mf) {
    auto* trace = app.add_subcommand("trace", "Work with traces recorded by the MPI tracer");
    trace->require_subcommand(1);
    auto* merge = trace->add_subcommand(
        "merge", "Merge the rank files of a run traced with libclustersim-trace.so into one trace");
    merge->add_option("INPUT", mf.inputs, "rank files (*.csrank), or folders holding them")
        ->required();
    merge->add_option("-o,--out", mf.output, "trace file to write")->required();
    merge->add_option("--to", mf.to,
                      "text or binary (default: by the output's extension: .txt = text)");
    merge->add_option("--name", mf.name, "trace name (default: the traced program's)");
    merge->add_option("--traced-speed", mf.traced_speed,
                      "instructions/s of a core of the traced machine (e.g. 2.8G; from "
                      "clustersim-calibrate): stored in the trace for projection at replay");

    return merge;
}

CLI::App* add_import(CLI::App& app, ImportFlags& im) {
    auto* import = app.add_subcommand(
        "import",
        "Convert a PIOsimHD model or a SimGrid platform into a clustersim model (stdout)");
    import->add_option("KIND", im.kind, traces::importers().names())->required();
    import->add_option("FILE", im.input, "the model or platform XML")->required();
    import->add_option("--placement-out", im.placement_out,
                       "also write the source's process placement as a map file "
                       "(for run --placement map:FILE)");
    import->add_option("--file-system", im.file_system,
                       "piosimhd: pvfs2 = the servers run PVFS2: add its request handshake, "
                       "small I/O and the open's metadata lookup (traces/README.md)");
    import->add_option("--mpi-channel", im.mpi_channel,
                       "piosimhd: sock = the ranks ran MPICH2's ch3:sock (TCP): each pair of "
                       "ranks connects on its first message, 2 round trips (traces/README.md)");

    return import;
}

CLI::App* add_compare(CLI::App& app, CompareFlags& cf) {
    auto* compare = app.add_subcommand(
        "compare", "Compare a recorded run (trace with times) with a simulated one");
    compare->add_option("RECORDED", cf.recorded, "trace with recorded times")->required();
    compare->add_option("SIMULATED", cf.simulated, "a run --out folder, or its simulated.cstrace")
        ->required();
    compare->add_option(
        "--out", cf.out,
        "write the side-by-side timelines (JSON and SVG), a CSV and a per-rank SVG bar chart here");
    compare->add_option("--format", cf.format,
                        "format of RECORDED: auto (default), " + traces::trace_readers().names());
    compare->add_flag("--skip-unknown", cf.skip_unknown, "skip unsupported records");
    compare->add_flag("--json", cf.json,
                      "print one JSON object instead of the tables: runtime, the split "
                      "(replayed, modelled, no record), ranks, operations (and by size)");
    compare->add_flag("--by-size", cf.by_size,
                      "also compare per operation and message size class (0 B, up to 64 B, "
                      "1 KiB, 16 KiB, 256 KiB, 4 MiB, 64 MiB, above): calls, recorded and "
                      "simulated time, error, time per call (and in compare.csv with --out)");
    compare->add_option("--timeline-window", cf.timeline_window,
                        "FROM,TO: the excerpt compare_timeline.svg draws (e.g. 0s,50ms; "
                        "default: the whole run)");

    return compare;
}

CLI::App* add_record(CLI::App& app, RecordFlags& rec) {
    auto* record = app.add_subcommand(
        "record",
        "Run an MPI program with the tracer preloaded and merge its rank files into one trace: "
        "clustersim record [-o OUT] -- mpirun -np 4 ./app ARGS (as root, Open MPI's mpirun "
        "needs --allow-run-as-root)");
    record->add_option("-o,--out", rec.output, "trace file to write (default recorded.cstrace)");
    record->add_option("--dir", rec.dir, "folder of the rank files (default: OUT.ranks)");
    record->add_option("--tracer", rec.tracer,
                       "libclustersim-trace.so (default: $CLUSTERSIM_TRACER, else the one "
                       "installed beside clustersim)");
    record->add_option("--to", rec.to, "text or binary (default: by OUT's extension)");
    record->add_option("--name", rec.name, "trace name (default: the traced program's)");
    record->add_option("--traced-speed", rec.traced_speed,
                       "instructions/s of a core of the traced machine (e.g. 2.8G)");
    record->add_option("COMMAND", rec.command, "the command after --, e.g. mpirun -np 2 ./app")
        ->required();
    record->positionals_at_end();

    return record;
}

// The command line, for a generated file's first comment: from `generate` on, arguments that a
// shell would split or expand quoted.
std::string generate_command_line(int argc, char** argv) {
    std::string command = "clustersim";
    bool after = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (!after && a != "generate") continue;
        after = true;
        const bool plain = !a.empty() && a.find_first_not_of(
                                             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
                                             "TUVWXYZ0123456789-_.,:/=+@%") == std::string::npos;
        command += " " + (plain ? a : "'" + a + "'");
    }
    return command;
}

// `clustersim help [COMMAND]`.
int print_help(CLI::App& app, const std::vector<std::string>& help_topic) {
    if (help_topic.empty()) {
        std::cout << app.get_formatter()->make_help(&app, "clustersim", CLI::AppFormatMode::Normal);
        return 0;
    }
    CLI::App* topic = nullptr;
    std::vector<std::string> names;
    for (CLI::App* s : app.get_subcommands({})) {
        names.push_back(s->get_name());
        if (s->get_name() == help_topic.front()) topic = s;
    }
    if (topic == nullptr) {
        std::cerr << fmt::format(
            "clustersim: error: help: unknown command '{}'{} (see "
            "clustersim --help)\n",
            help_topic.front(), did_you_mean(help_topic.front(), names));
        return kBadInput;
    }
    std::cout << topic->help();
    return 0;
}

// `clustersim completion SHELL`.
int print_completion(CLI::App& app, const std::string& completion_shell) {
    if (completion_shell != "bash") {
        std::cerr << fmt::format("clustersim: error: completion: '{}'{}: only bash is supported\n",
                                 completion_shell, did_you_mean(completion_shell, {"bash"}));
        return kBadInput;
    }
    std::cout << bash_completion(app);
    return 0;
}

// Runs a command; its errors become one line on stderr and an exit code: 2 for bad input
// (and for memory the input asked for), 1 for a bug.
template <typename F>
int guarded(F command) {
    try {
        return command();
    } catch (const InputError& e) {
        std::cerr << "clustersim: error: " << e.what() << "\n";
        return kBadInput;
    } catch (const std::bad_alloc&) {
        std::cerr << "clustersim: error: out of memory: the run needs more memory than this "
                     "process may use (the machine's, or a limit such as ulimit -v)\n";
        return kBadInput;
    } catch (const std::filesystem::filesystem_error& e) {
        // A path the system refuses (too long, a loop of links, no permission) where a
        // reader asked std::filesystem about it: the path and the system's reason.
        std::cerr << fmt::format("clustersim: error: {}: {}\n", e.path1().string(),
                                 e.code().message());
        return kBadInput;
    } catch (const std::exception& e) {  // a bug, not the user's input: say so
        std::cerr << "clustersim: internal error: " << e.what() << " (please report it)\n";
        return 1;
    }
}

// The whole command line: every command, the flags it fills, and the parser.
struct CommandLine {
    CLI::App app{"clustersim: predict how MPI applications perform on a described cluster"};
    std::string validate_model;
    GenerateFlags g;
    RunFlags r;
    ConvertFlags cv;
    MergeFlags mf;
    ImportFlags im;
    CompareFlags cf;
    JitterCommands jc;
    RecordFlags rec;
    std::vector<std::string> list_kinds;
    std::string completion_shell;
    std::vector<std::string> help_topic;
    SweepFlags sw;
    ExtrapolateFlags ex;
    CLI::App* validate = nullptr;
    CLI::App* generate = nullptr;
    CLI::App* run = nullptr;
    CLI::App* convert = nullptr;
    CLI::App* merge = nullptr;
    CLI::App* import = nullptr;
    CLI::App* compare = nullptr;
    CLI::App* record = nullptr;
    CLI::App* list = nullptr;
    CLI::App* completion = nullptr;
    CLI::App* help = nullptr;

    CommandLine() {
        app.require_subcommand(1);
        app.set_version_flag("--version", version_line(), "print the version and git revision");
        app.footer(
            "Run 'clustersim list' for every app, algorithm, network model and trace format, "
            "and 'clustersim COMMAND --help' for a command's flags.");
        validate =
            app.add_subcommand("validate", "Build a model and print what was built, or its errors");
        validate->add_option("MODEL", validate_model, "cluster model XML file")->required();
        generate = add_generate(app, g);
        run = add_run(app, r);
        convert = add_convert(app, cv);
        merge = add_trace_merge(app, mf);
        import = add_import(app, im);
        compare = add_compare(app, cf);
        add_jitter_commands(app, jc);
        record = add_record(app, rec);
        list = app.add_subcommand(
            "list",
            "Print every app, collective algorithm, network model, trace format, cache layer, "
            "disk model, trace writer, platform importer, MPI decision profile, output of a "
            "run and jitter trace format, with its parameters");
        list->add_option("KIND", list_kinds,
                         "apps, algorithms, models (network models, caches and disks with "
                         "their parameters), networks, formats, caches, disks, writers, importers, "
                         "profiles, outputs or jitter "
                         "(default: apps, algorithms, models, formats)");
        completion = app.add_subcommand("completion",
                                        "Print a shell completion script: clustersim "
                                        "completion bash > /etc/bash_completion.d/clustersim");
        completion->add_option("SHELL", completion_shell, "bash")->required();
        app.add_subcommand("version", "Print the version and git revision");
        help = app.add_subcommand("help", "Print the help of clustersim or of one command");
        help->add_option("COMMAND", help_topic, "a command, e.g. run");
        add_sweep_command(app, sw);
        add_extrapolate_command(app, ex);
    }
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;
};

}  // namespace

std::vector<std::pair<std::string, std::string>> text_options() {
    const CommandLine cl;
    std::vector<std::pair<std::string, std::string>> out;
    each_command(cl.app, [&](const std::string& path, const CLI::App& s) {
        for (const CLI::Option* o : s.get_options())
            if (o->get_type_size() != 0 && o->get_type_name().rfind("TEXT", 0) == 0)
                out.emplace_back(path, option_key(*o));
    });
    return out;
}

int main(int argc, char** argv) {
    // A registered name given with the other separator ('-' for '_') is read with a note.
    set_spelling_notes(&std::cerr);
    CommandLine cl;
    CLI::App& app = cl.app;

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "clustersim: error: " << explain(app, e, argc, argv) << "\n";
        return kBadInput;
    }
    // An empty value is bad input (issue 53), never "not given" (`run --out ''` wrote nothing
    // in silence) nor a path the system names without the flag (`convert TRACE ''`: "cannot
    // write: No such file or directory").
    if (const std::string flag = empty_value(app); !flag.empty()) {
        std::cerr << "clustersim: error: " << flag
                  << ": an empty value; give one, or leave the flag out\n";
        return kBadInput;
    }
    if (app.got_subcommand("version")) {
        std::cout << version_line() << "\n";
        return 0;
    }
    if (*cl.help) return print_help(app, cl.help_topic);
    if (*cl.completion) return print_completion(app, cl.completion_shell);

    return guarded([&] {
        if (*cl.validate) return cmd_validate(cl.validate_model);
        if (*cl.generate) {
            for (const CLI::Option* opt : cl.generate->get_options())
                if (opt->count() > 0) cl.g.given.push_back(opt->get_name());
            cl.g.command = generate_command_line(argc, argv);
            return cmd_generate(cl.g);
        }
        if (*cl.run) return cmd_run(cl.r);
        if (*cl.convert) return cmd_convert(cl.cv);
        if (*cl.import) return cmd_import(cl.im);
        if (*cl.merge) return cmd_trace_merge(cl.mf);
        if (*cl.compare) return cmd_compare(cl.cf);
        if (*cl.record) return cmd_record(cl.rec);
        if (*cl.list) return cmd_list(cl.list_kinds);
        if (int code = 0; run_jitter_commands(cl.jc, code)) return code;
        if (int code = 0; run_sweep_command(cl.sw, code)) return code;
        if (int code = 0; run_extrapolate_command(cl.ex, code)) return code;
        return 0;
    });
}

}  // namespace clustersim::cli
