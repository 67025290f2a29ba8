#include "tfm/decode/translator.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tfm/decode/batch_plan.hpp"
#include "tfm/model/decoder.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/parallel.hpp"
#include "tfm/base/utf8.hpp"
#include "tfm/io/text_tensor.hpp"

namespace tfm {

namespace {
// The tokens a source may have: --max-input-length, at most the model's positions.
std::size_t token_cap(const ModelConfig& c, std::size_t max_tokens) {
    return max_tokens ? std::min(max_tokens, c.max_positions) : c.max_positions;
}

// s.ids (and s.spellings, when there are) cut to fit, or emptied when only eos is there.
SourceIds fit(SourceIds s, const ModelConfig& c, std::size_t max_tokens) {
    if (s.ids.size() == 1 && s.ids[0] == c.eos_id) s.ids.clear(), s.spellings.clear();  // no pieces: an empty source
    s.full_length = s.ids.size();
    s.truncated = s.line_bytes != 0;
    const std::size_t cap = s.cap = token_cap(c, max_tokens);
    if (s.ids.size() > cap) {
        s.ids.resize(cap);
        s.ids.back() = c.eos_id;
        if (!s.spellings.empty()) {
            s.spellings.resize(cap);
            s.spellings.back() = {};
        }
        s.truncated = true;
    }
    return s;
}
}  // namespace

SourceIds source_ids(const Tokenizer& tok, std::string_view line, const ModelConfig& c, std::size_t max_tokens,
                     bool spell) {
    SourceIds s;
    // No more text than the tokens kept can spell: a line's cost is bounded by the model.
    const std::string_view kept = cut_text(line, text_budget(token_cap(c, max_tokens)));
    if (kept.size() < line.size()) s.line_bytes = line.size();
    s.ids = tok.encode(kept, spell ? &s.spellings : nullptr);
    return fit(std::move(s), c, max_tokens);
}

std::vector<std::int64_t> ids_from_numbers(std::string_view line, std::size_t vocab, std::int64_t eos) {
    auto ids = parse_integers(line);
    if (!ids) throw Error("not a list of integer ids: '" + std::string(line.substr(0, 60)) + "'");
    for (std::int64_t v : *ids)
        if (v < 0 || std::size_t(v) >= vocab)
            throw Error("id " + std::to_string(v) + " is outside the vocabulary of " + std::to_string(vocab));
    if (!ids->empty() && ids->back() != eos) ids->push_back(eos);
    return std::move(*ids);
}

SourceIds source_ids_from_numbers(std::string_view line, const ModelConfig& c, std::size_t max_tokens) {
    SourceIds s;
    s.ids = ids_from_numbers(line, c.source_vocab(), c.eos_id);
    return fit(std::move(s), c, max_tokens);
}

std::size_t attention_layer(const Model& m, const DecodeOptions::Attention& a) {
    const long layers = long(m.decoder.size()), layer = a.layer;
    if (layer >= layers || layer < -layers)
        throw UsageError("alignment layer " + std::to_string(layer) + " does not exist: the decoder has " +
                         std::to_string(layers) + " layers (0.." + std::to_string(layers - 1) + ", or -1..-" +
                         std::to_string(layers) + " from the last)");
    if (a.heads > m.config.decoder_heads)
        throw UsageError("alignment heads " + std::to_string(a.heads) + ": the decoder's attention has " +
                         std::to_string(m.config.decoder_heads) + " heads");
    return std::size_t(layer < 0 ? layers + layer : layer);
}

std::size_t output_limit(const ModelConfig& c, std::size_t source_len, const DecodeOptions& opt) {
    double limit = opt.max_len_a * double(source_len) + double(opt.max_len_b);
    std::size_t n = limit < 1 ? 1 : std::size_t(limit);
    if (opt.max_len) n = std::min(n, opt.max_len);
    return std::min(n, c.max_positions);
}

std::vector<std::vector<std::size_t>> length_batches(const std::vector<std::size_t>& lengths, std::size_t batch_size) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < lengths.size(); ++i)
        if (lengths[i] > 0) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return lengths[a] > lengths[b]; });
    std::vector<std::vector<std::size_t>> batches;
    for (std::size_t i = 0; i < order.size(); i += std::max<std::size_t>(batch_size, 1))
        batches.emplace_back(order.begin() + long(i), order.begin() + long(std::min(order.size(), i + batch_size)));
    return batches;
}

namespace {

std::vector<std::size_t> sizes(const std::vector<std::vector<std::int64_t>>& v) {
    std::vector<std::size_t> n;
    for (const auto& s : v) n.push_back(s.size());
    return n;
}

TokenBatch gather(const std::vector<std::vector<std::int64_t>>& sources, const std::vector<std::size_t>& idx,
                  std::int64_t pad) {
    std::vector<std::vector<std::int64_t>> seqs;
    for (std::size_t i : idx) seqs.push_back(sources[i]);
    return make_token_batch(seqs, pad);
}

// Search over one encoded batch; results go to out[idx[i]].
void search_batch(const Model& m, const xt::xtensor<float, 2>& memory, const TokenBatch& src,
                  const std::vector<std::size_t>& idx, const DecodeOptions& opt,
                  std::vector<std::vector<Hypothesis>>& out,
                  const std::vector<std::vector<std::int64_t>>* sources = nullptr) {
    SearchOptions so = opt.search;
    so.start_id = m.config.decoder_start_id;
    so.eos_id = m.config.eos_id;
    so.max_len.clear();
    so.prefixes.clear();
    so.forced_first.clear();
    so.sample_ids.clear();
    for (std::size_t b = 0; b < idx.size(); ++b) {
        std::size_t limit = output_limit(m.config, src.lengths[b], opt);
        const std::int64_t forced = idx[b] < opt.forced_first.size() && opt.forced_first[idx[b]] >= 0
                                        ? opt.forced_first[idx[b]]
                                        : opt.forced_first_all.value_or(-1);
        if (forced >= 0) {
            so.forced_first.resize(idx.size(), -1);
            so.forced_first[b] = forced;
        }
        // Room for the forced tokens and eos after them.
        std::size_t forced_tokens = forced >= 0 ? 1 : 0;
        if (idx[b] < opt.prefixes.size() && !opt.prefixes[idx[b]].empty()) {
            so.prefixes.resize(idx.size());
            so.prefixes[b] = opt.prefixes[idx[b]];
            forced_tokens += so.prefixes[b].size();
        }
        if (forced_tokens) limit = std::max(limit, std::min(forced_tokens + 1, m.config.max_positions));
        so.max_len.push_back(limit);
        so.sample_ids.push_back(opt.first_index + idx[b]);
    }
    DecoderState state(m, memory, src, *std::max_element(so.max_len.begin(), so.max_len.end()) + 1);
    if (opt.shortlist) {
        if (!sources) throw Error("a vocabulary shortlist needs the sources' ids (translate_sources)");
        std::vector<const std::vector<std::int64_t>*> batch;
        std::vector<std::int64_t> extra = {m.config.eos_id, m.config.decoder_start_id};
        for (std::size_t b = 0; b < idx.size(); ++b) {
            batch.push_back(&(*sources)[idx[b]]);
            if (b < so.forced_first.size() && so.forced_first[b] >= 0) extra.push_back(so.forced_first[b]);
            if (b < so.prefixes.size()) extra.insert(extra.end(), so.prefixes[b].begin(), so.prefixes[b].end());
        }
        state.restrict_output(opt.shortlist->targets(batch, extra));
    }
    if (opt.attention) {
        state.keep_attention(attention_layer(m, *opt.attention), opt.attention->heads);
        so.attention = true;
    }
    auto results = search(state, src.batch, so);
    for (std::size_t i = 0; i < idx.size(); ++i) out[idx[i]] = std::move(results[i]);
}

}  // namespace

void prepare_records(std::vector<xt::xtensor<float, 2>>& out, const std::vector<std::size_t>& lengths, std::size_t d,
                     std::size_t heads, EncodedCapture* capture) {
    out.assign(lengths.size(), {});
    for (std::size_t i = 0; i < lengths.size(); ++i)
        if (lengths[i] == 0) out[i] = xt::xtensor<float, 2>::from_shape({0, d});
    if (!capture) return;
    capture->weights.assign(lengths.size(), {});  // an empty source gets its records too: [H,0,0] per layer
    for (std::size_t i = 0; i < lengths.size(); ++i)
        if (lengths[i] == 0)
            for (std::size_t l = 0; l < capture->layers.size(); ++l)
                capture->weights[i].push_back(xt::xtensor<float, 3>::from_shape({heads, 0, 0}));
}

void batch_records(std::vector<xt::xtensor<float, 2>>& out, const std::vector<float>& x, const TokenBatch& src,
                   const std::vector<std::size_t>& idx, std::size_t d, std::size_t heads, const AttentionCapture* cap,
                   EncodedCapture* capture) {
    const std::size_t s = src.len;
    for (std::size_t b = 0; b < idx.size(); ++b) {
        const std::size_t len = src.lengths[b];
        auto& mem = out[idx[b]];
        mem = xt::xtensor<float, 2>::from_shape({len, d});
        std::copy(x.data() + b * s * d, x.data() + (b * s + len) * d, mem.data());
        if (!capture || !cap) continue;
        for (const auto& w : cap->weights) {  // [B,H,S,S] -> [H,len,len]
            auto one = xt::xtensor<float, 3>::from_shape({heads, len, len});
            for (std::size_t h = 0; h < heads; ++h)
                for (std::size_t i = 0; i < len; ++i)
                    std::copy_n(w.data() + ((b * heads + h) * s + i) * s, len, one.data() + (h * len + i) * len);
            capture->weights[idx[b]].push_back(std::move(one));
        }
    }
}

std::vector<xt::xtensor<float, 2>> encode_sources(const Model& m, const std::vector<std::vector<std::int64_t>>& sources,
                                                  std::size_t batch_size, EncodedCapture* capture) {
    const std::size_t d = m.config.d_model, heads = m.config.encoder_heads;
    std::vector<xt::xtensor<float, 2>> out;
    prepare_records(out, sizes(sources), d, heads, capture);
    EncoderWorkspace ws;
    for (const auto& idx : length_batches(sizes(sources), batch_size)) {
        TokenBatch src = gather(sources, idx, m.config.pad_id);
        AttentionCapture cap;
        if (capture) cap.layers = capture->layers;
        encoder_stack(ws.x, m, src, ws, capture ? &cap : nullptr);
        batch_records(out, ws.x, src, idx, d, heads, &cap, capture);
    }
    return out;
}

namespace {

// fn(i) for the plan's batches, on threads of their own or one after another.
template <class F>
void over_batches(const BatchPlan& plan, F&& fn) {
    if (plan.own)
        parallel_for(plan.batches.size(), fn);
    else
        for (std::size_t i = 0; i < plan.batches.size(); ++i) fn(i);
}

}  // namespace

std::vector<std::vector<Hypothesis>> decode_memories(const Model& m, const std::vector<xt::xtensor<float, 2>>& memories,
                                                     const DecodeOptions& opt) {
    const std::size_t d = m.config.d_model;
    std::vector<std::vector<Hypothesis>> out(memories.size(), std::vector<Hypothesis>{Hypothesis{}});
    std::vector<std::size_t> lengths;
    for (const auto& mem : memories) {
        if (mem.shape(1) != d) throw Error("memory of width " + std::to_string(mem.shape(1)) + " for a model of D=" +
                                           std::to_string(d));
        lengths.push_back(mem.shape(0));
    }
    const BatchPlan plan = plan_batches(m, length_batches(lengths, opt.batch_size), opt.search.beam);
    over_batches(plan, [&](std::size_t k) {
        const auto& idx = plan.batches[k];
        TokenBatch src;  // only the lengths matter to the decoder
        src.batch = idx.size();
        for (std::size_t i : idx) src.lengths.push_back(lengths[i]), src.len = std::max(src.len, lengths[i]);
        auto memory = xt::xtensor<float, 2>::from_shape({src.batch * src.len, d});
        std::fill(memory.begin(), memory.end(), 0.0f);
        for (std::size_t b = 0; b < idx.size(); ++b)
            std::copy(memories[idx[b]].begin(), memories[idx[b]].end(), memory.data() + b * src.len * d);
        search_batch(m, memory, src, idx, opt, out);
    });
    return out;
}

std::vector<std::vector<Hypothesis>> translate_sources(const Model& m,
                                                       const std::vector<std::vector<std::int64_t>>& sources,
                                                       const DecodeOptions& opt) {
    std::vector<std::vector<Hypothesis>> out(sources.size(), std::vector<Hypothesis>{Hypothesis{}});
    const BatchPlan plan = plan_batches(m, length_batches(sizes(sources), opt.batch_size), opt.search.beam);
    over_batches(plan, [&](std::size_t k) {
        EncoderWorkspace ws;
        xt::xtensor<float, 2> memory;
        TokenBatch src = gather(sources, plan.batches[k], m.config.pad_id);
        encoder_forward(memory, m, src, ws);
        search_batch(m, memory, src, plan.batches[k], opt, out, &sources);
    });
    return out;
}

}  // namespace tfm
