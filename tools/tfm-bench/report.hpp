// What every tfm-bench subcommand shares: the common flags, the header with this machine's
// sgemm throughput, and how a table of points (with its notes, fits and plot) is printed.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/bench.hpp"
#include "bench/table.hpp"
#include "pictures/plot.hpp"

namespace tfm::bench_tool {

struct Common {
    std::string format = "table";
    int reps = 5, warmup = 1, threads = 0;
    std::size_t sgemm_n = 1024;
    TimingOptions timing() const { return {warmup, reps, 0.0}; }
};

// --format, --reps, --warmup, --threads, --sgemm-n on a subcommand.
void add_common(CLI::App* sub, Common& c);

// Sets the threads, measures the reference sgemm and prints the header (not for JSON, whose
// document carries it); returns the sgemm GFLOP/s every figure is divided by.
double print_header(const Common& c);

// "a,b,c" -> {"a", "b", "c"}.
std::vector<std::string> split_commas(const std::string& list);

// What a sweep reports besides its points: every repetition, fits, crossovers. Notes are
// the human lines ("# fit: ..."): after the table, on stderr for CSV (which stays one table),
// and as their tables in JSON.
struct Extras {
    std::vector<std::pair<std::string, Table>> tables;
    std::vector<std::string> notes;
    std::string text_plot;  // --plot -: after the notes (stderr with csv and json)
};

// One curve of a sweep for --plot, with its own power law drawn over the points of at least
// min_ms it was fitted on.
void add_series(std::vector<PlotSeries>& plot, const std::string& name, const std::vector<double>& n,
                const std::vector<double>& seconds, double min_ms);

// The --plot option of a sweep; the extension is checked before anything is measured.
void add_plot_option(CLI::App* sub, std::string& path);

// --plot FILE: .svg or .png written now; "-" becomes the text plot of the output.
void write_plot(const std::string& path, const std::vector<PlotSeries>& series, const PlotOptions& opt,
                Extras& extra);

// Every timed repetition of a point, for the JSON document.
void add_repetitions(Table& reps, const std::vector<std::string>& key, const Timing& t);

// The power law of median time against n and D over the points of at least min_ms, as a
// note and a row of the fits table.
void add_fit(Extras& extra, Table& fits, const std::string& what, const std::vector<std::vector<double>>& x,
             const std::vector<double>& seconds, double min_ms);

// The points table (and in JSON the machine and the extra tables) on stdout.
void emit(const Common& c, double ref, const Table& t, const Extras& extra = {});

// A D % H != 0 from the flags is a usage error, found before anything is measured.
void check_heads(std::size_t d, std::size_t heads);

// One subcommand: adds itself (name, help, options) to the app and returns what runs it.
using Subcommand = std::function<void()>;
Subcommand add_sgemm(CLI::App& app, Common& common);
Subcommand add_attention(CLI::App& app, Common& common);
Subcommand add_layers(CLI::App& app, Common& common);
Subcommand add_breakdown(CLI::App& app, Common& common);
Subcommand add_decode_step(CLI::App& app, Common& common);
Subcommand add_translate(CLI::App& app, Common& common);
Subcommand add_train(CLI::App& app, Common& common);

}  // namespace tfm::bench_tool
