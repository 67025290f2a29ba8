#include "bench/bench_translate.hpp"

#include <fstream>
#include <string>

#include "tfm/model/model.hpp"
#include "tfm/base/random.hpp"
#include "tfm/decode/shortlist.hpp"
#include "tfm/decode/translator.hpp"
#include "tfm/model/config.hpp"

namespace tfm {

namespace {
ModelConfig bench_config(const TranslateBenchOptions& opt) {
    ModelConfig c = preset_config(opt.preset, opt.vocab);
    if (opt.layers) c.encoder_layers = c.decoder_layers = opt.layers;
    if (opt.d_model) c.d_model = opt.d_model;
    if (opt.heads) c.encoder_heads = c.decoder_heads = opt.heads;
    if (opt.ffn) c.encoder_ffn = c.decoder_ffn = opt.ffn;
    validate_config(c);
    return c;
}
}  // namespace

double translate_product_flops(const ModelConfig& c, const TranslateBenchOptions& opt) {
    const double b = double(opt.sentences), s = double(opt.source_len), t = double(opt.output_len);
    const double n = b * double(opt.beam), d = double(c.d_model), v = double(opt.shortlist ? opt.shortlist : c.vocab_size);
    const double fe = double(c.encoder_ffn), fd = double(c.decoder_ffn);
    const double encoder = double(c.encoder_layers) * b * (8 * s * d * d + 4 * s * s * d + 4 * s * d * fe);
    const double memory = double(c.decoder_layers) * b * 4 * s * d * d;
    const double keys = t * (t + 1) / 2;  // self-attention keys over all steps
    const double steps = double(c.decoder_layers) * (t * (8 * n * d * d + 4 * n * d * d + 4 * n * s * d + 4 * n * d * fd) +
                                                     4 * n * d * keys) +
                         t * 2 * n * d * v;
    return encoder + memory + steps;
}

TranslateBenchPoint bench_translate(const TranslateBenchOptions& opt) {
    const ModelConfig c = bench_config(opt);
    Model m = random_model(c, 1);
    if (opt.compute != "unpacked") pack_for_inference(m, parse_compute_type(opt.compute));
    Rng rng(7);
    std::vector<std::vector<std::int64_t>> sources(opt.sentences);
    for (auto& s : sources) {
        for (std::size_t i = 0; i + 1 < opt.source_len; ++i) s.push_back(3 + std::int64_t(rng.next() % (opt.vocab - 3)));
        s.push_back(c.eos_id);
    }
    DecodeOptions d;
    d.search.beam = opt.beam;
    d.search.min_len = opt.output_len;
    d.max_len = opt.output_len;
    d.batch_size = opt.sentences;
    if (opt.shortlist) d.shortlist = std::make_shared<const Shortlist>(Shortlist::first(opt.shortlist, c));
    TranslateBenchPoint p;
    std::vector<std::vector<Hypothesis>> out;
    p.timing = time_it([&] { out = translate_sources(m, sources, d); }, opt.timing);
    for (const auto& h : out) p.target_tokens += h.front().ids.size();
    p.sentences_per_s = double(opt.sentences) / p.timing.median;
    p.tokens_per_s = double(p.target_tokens) / p.timing.median;
    p.peak_rss_mib = peak_rss_mib();
    p.steps = opt.output_len;
    p.product_flops = translate_product_flops(c, opt);
    return p;
}

}  // namespace tfm
