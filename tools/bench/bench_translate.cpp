#include "bench/bench_translate.hpp"

#include <fstream>
#include <string>

#include "tfm/model/model.hpp"
#include "tfm/base/random.hpp"
#include "tfm/decode/shortlist.hpp"
#include "tfm/decode/translator.hpp"
#include "tfm/model/config.hpp"

namespace tfm {

TranslateBenchPoint bench_translate(const TranslateBenchOptions& opt) {
    ModelConfig c = preset_config(opt.preset, opt.vocab);
    if (opt.layers) c.encoder_layers = c.decoder_layers = opt.layers;
    if (opt.d_model) c.d_model = opt.d_model;
    if (opt.heads) c.encoder_heads = c.decoder_heads = opt.heads;
    if (opt.ffn) c.encoder_ffn = c.decoder_ffn = opt.ffn;
    validate_config(c);
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
    return p;
}

}  // namespace tfm
