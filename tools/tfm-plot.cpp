// tfm-plot: heatmaps of tensor records read from stdin: attention weights [Tq,Tk] or
// [H,Tq,Tk] (one panel per head; [B,H,Tq,Tk] gives B*H panels), positional encodings [T,D].

#include "common/checks.hpp"
#include "common/labels.hpp"
#include "common/tool.hpp"
#include "tfm/base/error.hpp"
#include "pictures/heatmap.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/line_reader.hpp"
#include "tfm/io/stream.hpp"

namespace {

// "attn.png" -> "attn-3.png" for the third of several records.
std::string numbered(const std::string& path, std::size_t n) {
    const std::size_t dot = path.rfind('.'), slash = path.rfind('/');
    const std::size_t at = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? path.size() : dot;
    return path.substr(0, at) + "-" + std::to_string(n) + path.substr(at);
}


}  // namespace

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-plot", "Heatmaps (PNG or SVG) of attention weights and positional encodings read from stdin.",
        "  tfm-posenc -n 100 -d 128 | tfm-plot -o pe.png\n"
        "  tfm-posenc -n 8 -d 16 | tfm-attend --heads 4 --causal --weights-out | tfm-plot -o attn.svg   # attn-1.svg attn-2.svg\n"
        "  echo 'Ein Hund rennt.' | tfm-encode -m model --attention-out att.npy >/dev/null; tfm-plot -o att.png < att.npy\n");
    CLI::App& app = tool.app();
    std::string out, labels_file;
    tfm::HeatmapOptions opt;
    std::vector<double> range;
    app.add_option("-o,--output", out, "File to write: .png or .svg (several records: name-1.png, name-2.png, ...)")
        ->required();
    app.add_option("--cell", opt.cell, "Pixels per matrix cell (default: about 360 pixels per panel)")
        ->check(tfm::tool::in_range(1, 256));
    app.add_option("--range", range, "Colour range LO HI (default: the data's minimum and maximum)")
        ->expected(2)->check(tfm::tool::in_range(-3e38, 3e38));
    app.add_option("--labels", labels_file,
                   "Token labels, one line per record: the columns' labels, and the rows' when the counts match "
                   "(read once stdin has ended, so the tool upstream may write it)");
    bool bare = false;
    app.add_flag("--bare", bare, "PNG: the cells alone, one cell a block of pixels (no titles, labels or colour scale)");
    return tool.run(argc, argv, [&] {
        const bool svg = out.size() > 4 && out.compare(out.size() - 4, 4, ".svg") == 0;
        const bool png = out.size() > 4 && out.compare(out.size() - 4, 4, ".png") == 0;
        if (!svg && !png) throw tfm::UsageError(out + ": the output must end in .png or .svg");
        if (!range.empty()) {
            if (!(range[0] < range[1])) throw tfm::UsageError("--range needs LO < HI");
            opt.lo = range[0], opt.hi = range[1];
        }
        // All records first, then the labels: in a pipeline the labels file is written by the
        // same upstream tool, and is complete only once stdin has ended.
        tfm::Input in(0);
        tfm::TensorReader reader(in);
        std::vector<tfm::FloatArray> records;
        while (auto rec = reader.next()) {
            const std::size_t index = reader.records_read() - 1;
            tfm::FloatArray a = tfm::as_float(std::move(*rec));
            if (a.dimension() < 2 || a.dimension() > 4)
                throw tfm::record_error(index, "a heatmap needs [R,C], [H,R,C] or [B,H,R,C], got " + tfm::shape_of(a));
            if (a.size() == 0) throw tfm::record_error(index, "an empty tensor " + tfm::shape_of(a));
            records.push_back(std::move(a));
        }
        std::unique_ptr<tfm::LineReader> labels;
        if (!labels_file.empty()) labels = std::make_unique<tfm::LineReader>(labels_file);
        std::vector<std::pair<std::string, std::string>> files;  // written at the end: all or nothing
        for (const tfm::FloatArray& a : records) {
            const std::size_t rank = a.dimension();
            const std::size_t r = a.shape(rank - 2), c = a.shape(rank - 1), panels = a.size() / (r * c);
            std::vector<tfm::ConstMat> mats;
            tfm::HeatmapOptions o = opt;
            for (std::size_t k = 0; k < panels; ++k) {
                mats.push_back(tfm::mat(a.data() + k * r * c, r, c));
                if (panels > 1)
                    o.titles.push_back(rank == 4 ? "row " + std::to_string(k / a.shape(1)) + ", head " +
                                                       std::to_string(k % a.shape(1))
                                                 : "head " + std::to_string(k));
            }
            std::string line;
            if (labels && labels->next(line)) {
                o.col_labels = tfm::tool::label_words(line);
                if (o.col_labels.size() == r) o.row_labels = o.col_labels;
            }
            std::string bytes = svg    ? tfm::heatmap_svg(mats, o)
                                : bare ? tfm::encode_png(tfm::heatmap_image(mats, o))
                                       : tfm::encode_png(tfm::heatmap_picture(mats, o));
            files.push_back({std::to_string(files.size() + 1), std::move(bytes)});
        }
        if (files.empty()) throw tfm::Error("no records on stdin: nothing to plot");
        for (const auto& [n, bytes] : files) tfm::write_file_atomic(files.size() == 1 ? out : numbered(out, std::stoul(n)), bytes);
        if (files.size() > 1)
            tool.info(std::to_string(files.size()) + " records: wrote " + numbered(out, 1) + " ... " +
                      numbered(out, files.size()));
    });
}
