// tfm-attend: multi-head scaled dot-product attention (and its ablations) over tensor records.
#include <unistd.h>

#include <optional>

#include "common/attention_flags.hpp"
#include "common/shared_options.hpp"
#include "common/checks.hpp"
#include "common/tool.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/nn/multihead.hpp"
#include "tfm/io/stream.hpp"

namespace {

using Inputs = tfm::tool::AttentionInputs;

struct Settings {
    tfm::tool::AttentionFlags flags;
    std::vector<std::size_t> key_lengths;
    bool weights_out = false;
};

// A [T,D] or [B,T,D] record seen as B matrices [T,D].
struct Batch {
    tfm::FloatArray a;
    std::size_t b = 1, t = 0, d = 0;
    tfm::ConstMat item(std::size_t i) const { return tfm::mat(a.data() + i * t * d, t, d); }
};

Batch as_batch(tfm::Record r, std::size_t index, const char* what) {
    Batch x{tfm::as_float(std::move(r))};
    if (x.a.dimension() != 2 && x.a.dimension() != 3)
        throw tfm::record_error(index, std::string(what) + " must be [T,D] or [B,T,D], got " + tfm::shape_of(x.a));
    x.d = x.a.shape().back();
    x.t = x.a.shape()[x.a.dimension() - 2];
    x.b = x.a.dimension() == 3 ? x.a.shape(0) : 1;
    return x;
}

class Attender {
public:
    explicit Attender(const Settings& s) : s_(s) {}

    void run(tfm::TensorReader& reader, tfm::TensorWriter& writer) {
        const char* first = s_.flags.inputs == Inputs::Self ? "X [T,D]" : "queries [T,D]";
        auto rec = reader.expect(std::string(first));
        for (;;) {
            std::size_t index = reader.records_read() - 1;
            Batch q = as_batch(std::move(rec), index, s_.flags.inputs == Inputs::Self ? "X" : "Q");
            std::optional<Batch> k, v;
            if (s_.flags.inputs != Inputs::Self) {
                k = as_batch(reader.expect(s_.flags.inputs == Inputs::Cross ? "memory for the queries" : "K"),
                             reader.records_read() - 1, s_.flags.inputs == Inputs::Cross ? "memory" : "K");
                check_pair(q, *k, reader.records_read() - 1);
            }
            if (s_.flags.inputs == Inputs::Qkv) {
                v = as_batch(reader.expect("V"), reader.records_read() - 1, "V");
                check_pair(q, *v, reader.records_read() - 1);
                if (v->t != k->t)
                    throw tfm::record_error(reader.records_read() - 1, "V has " + std::to_string(v->t) +
                                                                           " rows but K has " + std::to_string(k->t));
            }
            const Batch& kb = k ? *k : q;
            const Batch& vb = v ? *v : kb;
            attend_record(q, kb, vb, index, writer);
            auto next = reader.next();
            if (!next) return;
            rec = std::move(*next);
        }
    }

private:
    const Settings& s_;
    std::optional<tfm::MultiHeadParams> params_;
    std::size_t d_ = 0;
    std::size_t lengths_used_ = 0;
    tfm::MultiHeadWorkspace ws_;

    static void check_pair(const Batch& q, const Batch& other, std::size_t index) {
        if (other.d != q.d || other.b != q.b || other.a.dimension() != q.a.dimension())
            throw tfm::record_error(index, "shape " + tfm::shape_of(other.a) + " does not go with the queries' " +
                                               tfm::shape_of(q.a));
    }

    void ensure_params(std::size_t d, std::size_t index) {
        if (params_) {
            if (d != d_)
                throw tfm::record_error(index, "D=" + std::to_string(d) + " differs from the first record's D=" +
                                                   std::to_string(d_));
            return;
        }
        d_ = d;
        try {
            tfm::head_size(d, s_.flags.layer.attention.heads);
        } catch (const tfm::Error& e) {
            throw tfm::record_error(index, e.what());
        }
        params_ = tfm::tool::attention_params(s_.flags, d);
    }

    std::size_t key_length(std::size_t tk, std::size_t index) {
        if (s_.key_lengths.empty()) return tk;
        if (lengths_used_ >= s_.key_lengths.size())
            throw tfm::record_error(index, "--key-lengths has " + std::to_string(s_.key_lengths.size()) +
                                               " values, too few for the batch rows read");
        std::size_t len = s_.key_lengths[lengths_used_++];
        if (len > tk)
            throw tfm::record_error(index, "key length " + std::to_string(len) + " exceeds the " +
                                               std::to_string(tk) + " keys");
        return len;
    }

    void attend_record(const Batch& q, const Batch& k, const Batch& v, std::size_t index, tfm::TensorWriter& w) {
        ensure_params(q.d, index);
        const std::size_t h = s_.flags.layer.attention.heads;
        tfm::FloatArray y = tfm::FloatArray::from_shape(q.a.shape());
        tfm::FloatArray weights;
        if (s_.weights_out) {
            tfm::Shape ws = {h, q.t, k.t};
            if (q.a.dimension() == 3) ws.insert(ws.begin(), q.b);
            weights = tfm::FloatArray::from_shape(ws);
        }
        for (std::size_t b = 0; b < q.b; ++b) {
            tfm::PrefixMask mask{key_length(k.t, index), s_.flags.layer.attention.causal};
            float* wb = s_.weights_out ? weights.data() + b * h * q.t * k.t : nullptr;
            tfm::multihead_forward(tfm::mat(y.data() + b * q.t * q.d, q.t, q.d), wb, q.item(b), k.item(b),
                                   v.item(b), mask, s_.flags.layer.attention, *params_, ws_);
        }
        w.write(y);
        if (s_.weights_out) w.write(weights);
    }
};

}  // namespace

int main(int argc, char** argv) {
    tfm::tool::Tool tool("tfm-attend", "Multi-head attention over tensor records read from stdin.",
        "  tfm-posenc -n 16 -d 64 | tfm-attend --heads 4 --causal --weights-out -t\n"
        "  tfm-attend --heads 8 --proj random --seed 1 < x.npy > y.npy\n"
        "  cat q.npy k.npy v.npy | tfm-attend --qkv --heads 8 --params mha.safetensors --prefix self_attn.\n"
        "  cat dec.npy mem.npy | tfm-attend --cross --heads 8 --key-lengths 7 --weights-out\n");
    CLI::App& app = tool.app();
    Settings s;
    auto& att = s.flags.layer.attention;
    int threads = 0;
    tfm::tool::add_attention_flags(app, s.flags);
    app.add_option("--key-lengths", s.key_lengths,
                   "Valid keys per batch row, in order across records (the rest is padding)")
        ->delimiter(',')->check(tfm::tool::in_range(0, tfm::tool::kMaxCount));
    bool tiled = false;
    auto* tiled_opt = app.add_flag("--tiled", tiled,
                                   "Tiled attention: keys in blocks with an online softmax, memory independent of "
                                   "the sequence length (chosen by itself beyond 128K keys)");
    app.add_flag("--weights-out", s.weights_out,
                 "After each output, write the attention probabilities [H,Tq,Tk] ([B,H,Tq,Tk]) as a further record");
    tfm::tool::add_threads_option(app, threads);
    tool.add_format_flags();
    (void)tiled_opt;

    return tool.run(argc, argv, [&] {
        tfm::tool::finish_attention_flags(s.flags);
        if (tiled) att.algorithm = tfm::AttentionAlgorithm::Tiled;
        if (tiled && s.weights_out) throw tfm::UsageError("--tiled gives no attention weights: drop --weights-out");
        if (tiled && s.flags.layer.additive) throw tfm::UsageError("--tiled applies to dot-product attention, not --additive");
        tfm::set_num_threads(threads);
        tfm::Input in(STDIN_FILENO);
        tfm::TensorReader reader(in);
        tfm::Output out(STDOUT_FILENO);
        tfm::TensorWriter writer(out, tool.output_format());
        Attender(s).run(reader, writer);
    });
}
