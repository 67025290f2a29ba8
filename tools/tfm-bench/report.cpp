#include "report.hpp"

#include <algorithm>
#include <cstdio>

#include "bench/fit.hpp"
#include "common/checks.hpp"
#include "common/shared_options.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/io/io.hpp"
#include "tfm/nn/attention.hpp"

namespace tfm::bench_tool {

using tool::in_range, tool::kMaxThreads;

void add_common(CLI::App* sub, Common& c) {
    sub->add_option("--format", c.format, "Output format: table (default), csv, json or markdown")
        ->check(CLI::IsMember({"table", "csv", "json", "markdown"}));
    sub->add_option("--reps", c.reps, "Timed repetitions per point (default 5)")->check(in_range(1, 1e6));
    sub->add_option("--warmup", c.warmup, "Untimed runs first (default 1)")->check(in_range(0, 1e6));
    tool::add_threads_option(*sub, c.threads);
    sub->add_option("--sgemm-n", c.sgemm_n, "Size of the reference sgemm (default 1024)")->check(in_range(1, 16384));
}

// The header every run prints: the machine and its sgemm GFLOP/s measured in this run.
double print_header(const Common& c) {
    set_num_threads(c.threads);
    MachineInfo m = machine_info();
    double ref = sgemm_gflops(c.sgemm_n, c.timing());
    std::string prefix = c.format == "json" ? "" : "# ";
    if (c.format == "json") return ref;  // the JSON document carries the header itself
    std::printf("%smachine: %s, %u cores, %d threads, %s, %s\n", prefix.c_str(), m.cpu.c_str(), m.cores,
                m.threads, m.blas.c_str(), m.packed.c_str());
    std::printf("%ssgemm n=%zu: %.1f GFLOP/s\n", prefix.c_str(), c.sgemm_n, ref);
    std::fflush(stdout);
    return ref;
}

namespace {
Table machine_table(const Common& c, double ref) {
    MachineInfo m = machine_info();
    Table t({"cpu", "cores", "threads", "blas", "sgemm_n", "sgemm_gflops"});
    t.add({m.cpu, std::to_string(m.cores), std::to_string(m.threads), m.blas, std::to_string(c.sgemm_n),
           Table::num(ref, 1)});
    return t;
}
}  // namespace

// "a,b,c" -> {"a", "b", "c"}.
std::vector<std::string> split_commas(const std::string& list) {
    std::vector<std::string> out;
    for (std::size_t pos = 0; pos <= list.size();) {
        const std::size_t c = std::min(list.find(',', pos), list.size());
        out.push_back(list.substr(pos, c - pos));
        pos = c + 1;
    }
    return out;
}

// One curve of a sweep for --plot, with its own power law drawn over the points it was fitted on.
void add_series(std::vector<PlotSeries>& plot, const std::string& name, const std::vector<double>& n,
                const std::vector<double>& seconds, double min_ms) {
    PlotSeries ps{name, n, seconds, {}, {}};
    std::vector<std::vector<double>> fx;
    std::vector<double> fy;
    for (std::size_t i = 0; i < n.size(); ++i)
        if (seconds[i] * 1e3 >= min_ms) fx.push_back({n[i]}), fy.push_back(seconds[i]);
    if (fx.size() >= 2) {
        try {
            const PowerFit f = fit_power_law(fx, fy);
            for (const auto& x : fx) ps.fit_x.push_back(x[0]), ps.fit_y.push_back(f.predict(x));
            char buf[32];
            std::snprintf(buf, sizeof buf, " (n^%.2f)", f.exponents[0]);
            ps.name += buf;
        } catch (const Error&) {  // n does not vary: no line
        }
    }
    plot.push_back(std::move(ps));
}

// --plot FILE: .svg or .png written now; "-" becomes the text plot of the output.
void write_plot(const std::string& path, const std::vector<PlotSeries>& series, const PlotOptions& opt,
                Extras& extra) {
    if (path.empty()) return;
    if (path == "-") {
        extra.text_plot = plot_text(series, opt);
        return;
    }
    const std::string bytes =
        path.size() > 4 && path.compare(path.size() - 4, 4, ".svg") == 0 ? plot_svg(series, opt)
                                                                          : encode_png(plot_image(series, opt));
    write_file_atomic(path, bytes);
}

// The --plot option of a sweep; the extension is checked before anything is measured.
void add_plot_option(CLI::App* sub, std::string& path) {
    sub->add_option("--plot", path, "Log-log plot of time against n with the fitted lines: FILE.svg, FILE.png, or - (text)")
        ->check([](const std::string& v) -> std::string {
            const auto ends = [&](const char* e) { return v.size() > 4 && v.compare(v.size() - 4, 4, e) == 0; };
            return v == "-" || ends(".svg") || ends(".png") ? "" : "--plot takes FILE.svg, FILE.png or -";
        });
}

void emit(const Common& c, double ref, const Table& t, const Extras& extra) {
    Output out(1);
    if (c.format == "json") {
        std::vector<std::pair<std::string, Table>> all = {{"machine", machine_table(c, ref)}, {"points", t}};
        all.insert(all.end(), extra.tables.begin(), extra.tables.end());
        out.write(tables_to_json(all));
        std::fputs(extra.text_plot.c_str(), stderr);
        return;
    }
    std::string text = t.render(parse_table_format(c.format));
    for (const auto& n : extra.notes) {
        if (c.format == "csv") std::fprintf(stderr, "tfm-bench: %s\n", n.c_str());
        else text += "# " + n + "\n";
    }
    if (c.format == "csv") std::fputs(extra.text_plot.c_str(), stderr);
    else text += extra.text_plot;
    out.write(text);
}

// Every timed repetition of every point, for the JSON document.
void add_repetitions(Table& reps, const std::vector<std::string>& key, const Timing& t) {
    for (std::size_t r = 0; r < t.seconds.size(); ++r) {
        std::vector<std::string> row = key;
        row.push_back(std::to_string(r));
        row.push_back(Table::num(t.seconds[r], 9));
        reps.add(row);
    }
}

// The power law of median time against n and D over the points of at least min_ms, as a
// note and a row of the fits table.
void add_fit(Extras& extra, Table& fits, const std::string& what, const std::vector<std::vector<double>>& x,
             const std::vector<double>& seconds, double min_ms) {
    std::vector<std::vector<double>> fx;
    std::vector<double> fy;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (seconds[i] * 1e3 >= min_ms) fx.push_back(x[i]), fy.push_back(seconds[i]);
    const std::string label = what.empty() ? "fit" : "fit " + what;
    if (fx.size() < 3) {
        extra.notes.push_back(label + ": " + std::to_string(fx.size()) + " points with median >= " +
                              Table::num(min_ms, 3) + " ms, 3 needed (see --fit-min-ms)");
        return;
    }
    try {
        PowerFit f = fit_power_law(fx, fy);
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s: time ~ %s (R^2 %.4f, %zu points with median >= %g ms)", label.c_str(),
                      format_power_law(f, {"n", "D"}).c_str(), f.r2, f.points, min_ms);
        extra.notes.push_back(buf);
        fits.add({what.empty() ? "attention" : what, Table::num(f.exponents[0], 3),
                  Table::num(f.exponents[1], 3), Table::num(f.r2, 4), std::to_string(f.points)});
    } catch (const Error& e) {
        extra.notes.push_back(label + ": no fit (" + std::string(e.what()) + ")");
    }
}

void check_heads(std::size_t d, std::size_t heads) {
    try {
        head_size(d, heads);
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
}

}  // namespace tfm::bench_tool
