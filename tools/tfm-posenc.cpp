// tfm-posenc: sinusoidal positional encodings, adding them to embeddings, and the paper's
// relative-position property shown from the terminal.
#include <algorithm>
#include <cmath>
#include <optional>
#include <unistd.h>

#include "common/checks.hpp"
#include "common/tool.hpp"
#include "tfm/base/error.hpp"
#include "tfm/nn/posenc.hpp"
#include "tfm/io/stream.hpp"

namespace {

// [T,D] or [B,T,D] records: each batch row gets positions offset .. offset+T-1.
void add_to_stream(const tfm::PeOptions& pe, std::optional<std::size_t> dim, bool scale,
                   tfm::TensorWriter& out) {
    tfm::Input in(STDIN_FILENO);
    tfm::TensorReader reader(in);
    auto record = reader.expect("embeddings [T,D] or [B,T,D]");
    for (;;) {
        tfm::FloatArray x = tfm::as_float(std::move(record));
        const std::size_t n = reader.records_read() - 1;
        if (x.dimension() != 2 && x.dimension() != 3)
            throw tfm::record_error(n, "expected embeddings [T,D] or [B,T,D], got " + tfm::shape_of(x));
        const std::size_t d = x.shape().back(), t = x.shape()[x.dimension() - 2];
        if (dim && *dim != d)
            throw tfm::record_error(n, "embeddings have D=" + std::to_string(d) + " but --dim is " +
                                           std::to_string(*dim));
        const std::size_t batch = x.size() / std::max<std::size_t>(1, t * d);
        const float s = scale ? std::sqrt(float(d)) : 1.0f;
        for (std::size_t b = 0; b < batch && t * d > 0; ++b)
            tfm::add_positional_encoding(tfm::mat(x.data() + b * t * d, t, d), s, pe);
        out.write(x);
        auto next = reader.next();
        if (!next) break;
        record = std::move(*next);
    }
}

}  // namespace

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-posenc", "Sinusoidal positional encodings of 'Attention Is All You Need'.",
        "  tfm-posenc -n 16 -d 64 -t                      # the [16,64] encoding as text\n"
        "  tfm-posenc -n 100 -d 128 --layout halves > pe.npy\n"
        "  tfm-posenc -n 16 -d 64 | tfm-attend --heads 4 --causal --weights-out -t\n"
        "  tfm-posenc --add --scale < emb.npy > emb_pe.npy  # x * sqrt(D) + PE, per record\n"
        "  tfm-posenc -d 64 -n 1000 --relative 5 -t       # PE(pos+5) = M(5) PE(pos), and its error\n"
        "  tfm-posenc -d 64 --distance 20 -t              # PE(pos).PE(pos+k) against k\n");
    using tfm::tool::in_range, tfm::tool::kMaxCount, tfm::tool::kMaxDim;
    CLI::App& app = tool.app();
    std::size_t n = 0;
    std::size_t dim = 0;
    tfm::PeOptions pe;
    std::string layout = "interleaved";
    bool add = false, scale = false;
    long relative = 0, distance = 0;
    double at = 0;
    auto* n_opt = app.add_option("-n,--positions", n, "Number of positions T")->check(in_range(0, kMaxCount));
    auto* d_opt = app.add_option("-d,--dim", dim, "Model dimension D")->check(in_range(1, kMaxDim));
    app.add_option("--offset", pe.offset, "Position of the first row (default 0)")->check(in_range(0, kMaxCount));
    app.add_option("--base", pe.base, "Wavelength base (default 10000)")->check(in_range(1, 1e15));
    app.add_option("--layout", layout, "interleaved (the paper: sin, cos, sin, ...) or halves "
                                       "(all sines, then all cosines: tensor2tensor, HF Marian)")
        ->check(CLI::IsMember({"interleaved", "halves"}));
    auto* add_opt = app.add_flag("--add", add, "Read embeddings [T,D] or [B,T,D] from stdin and add the encoding");
    app.add_flag("--scale", scale, "With --add: multiply the embeddings by sqrt(D) first, as the model does")
        ->needs(add_opt);
    auto* rel_opt = app.add_option("--relative", relative,
        "Print for each frequency the rotation M(K) with PE(pos+K) = M(K) PE(pos) and the largest "
        "error of applying it over the -n positions")
        ->check(in_range(-kMaxCount, kMaxCount));
    auto* dist_opt = app.add_option("--distance", distance,
        "Print PE(pos).PE(pos+k) for k = -K..K (falls with |k|, same for +k and -k)")
        ->check(in_range(0, 1 << 20));
    auto* at_opt = app.add_option("--at", at, "With --distance: the reference position pos (default K)")
        ->needs(dist_opt)->check(in_range(0, kMaxCount));
    add_opt->excludes(rel_opt)->excludes(dist_opt)->excludes(n_opt);
    rel_opt->excludes(dist_opt);
    tool.add_format_flags();

    return tool.run(argc, argv, [&] {
        pe.layout = tfm::parse_pe_layout(layout);
        tfm::Output out(STDOUT_FILENO);
        tfm::TensorWriter writer(out, tool.output_format());
        if (add) {
            add_to_stream(pe, d_opt->count() ? std::optional<std::size_t>(dim) : std::nullopt, scale, writer);
            return;
        }
        if (!d_opt->count()) throw tfm::UsageError("--dim is required (the encoding's D)");
        if (dist_opt->count()) {
            writer.write(tfm::distance_dot_table(dim, distance, at_opt->count() ? at : double(distance), pe));
            return;
        }
        if (!n_opt->count()) throw tfm::UsageError("--positions is required (the number of rows T)");
        if (rel_opt->count()) {
            if (dim < 2) throw tfm::UsageError("--relative needs D >= 2 (one sine/cosine pair)");
            writer.write(tfm::relative_rotation_table(n, dim, relative, pe));
            return;
        }
        // Generated and written in chunks of rows: -n 1000000 starts flowing at once.
        writer.begin(tfm::DType::F32, {n, dim});
        constexpr std::size_t kRows = 256;
        for (std::size_t first = 0; first < n; first += kRows) {
            tfm::PeOptions chunk = pe;
            chunk.offset += double(first);
            auto rows = tfm::sinusoidal_encoding(std::min(kRows, n - first), dim, chunk);
            writer.append(rows.data(), rows.size());
        }
        writer.end();
    });
}
