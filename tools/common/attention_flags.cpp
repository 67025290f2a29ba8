#include "common/attention_flags.hpp"

#include "common/checks.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/random.hpp"
#include "tfm/io/safetensors.hpp"

namespace tfm::tool {

void add_attention_flags(CLI::App& app, AttentionFlags& f) {
    auto& att = f.layer.attention;
    app.add_option("-H,--heads", att.heads, "Attention heads H (D must be a multiple of H; default 1)")
        ->check(in_range(1, kMaxDim));
    auto* cross_opt = app.add_flag("--cross", f.cross, "Records come in pairs: queries, then the memory they attend to");
    auto* qkv_opt = app.add_flag("--qkv", f.qkv, "Records come in threes: Q, K, V");
    cross_opt->excludes(qkv_opt);
    app.add_flag("--causal", att.causal, "Causal mask: query i sees keys up to position i (+ Tk - Tq)");
    f.proj_opt = app.add_option("--proj", f.proj,
        "Projections W^Q, W^K, W^V, W^O: identity (none, the default), random (Xavier, --seed) or "
        "params (--params)")->check(CLI::IsMember({"identity", "random", "params"}));
    f.seed_opt = app.add_option("--seed", f.seed, "Seed of the random parameters (implies --proj random)");
    f.params_opt = app.add_option("--params", f.params_file,
        "safetensors file with {prefix}{q,k,v,out}_proj.{weight,bias} (implies --proj params)")
        ->check(CLI::ExistingFile);
    app.add_option("--prefix", f.prefix, "Tensor-name prefix in --params, e.g. 'self_attn.'")->needs(f.params_opt);
    app.add_flag("--shared-kv", f.layer.shared_kv, "Tie the key and value projections (V uses W^K)");
    app.add_flag("--no-scale", f.no_scale, "Unscaled dot product: drop the 1/sqrt(d_k) factor");
    auto* add_opt = app.add_flag("--additive", f.layer.additive, "Additive attention w.tanh(W_q q + W_k k) instead of dot products");
    app.add_option("--additive-dim", f.layer.additive_dim, "Hidden size A of additive attention (default: head size)")
        ->needs(add_opt)->check(in_range(1, kMaxDim));
}

void finish_attention_flags(AttentionFlags& f) {
    f.layer.attention.scaled = !f.no_scale;
    if (f.no_scale && f.layer.additive) throw UsageError("--no-scale applies to dot-product scores, not --additive");
    f.inputs = f.cross ? AttentionInputs::Cross : f.qkv ? AttentionInputs::Qkv : AttentionInputs::Self;
    const bool params = f.params_opt->count() > 0, seed = f.seed_opt->count() > 0;
    if (!f.proj_opt->count()) f.proj = params ? "params" : seed ? "random" : "identity";
    if (f.proj == "params" && !params) throw UsageError("--proj params needs --params FILE");
    if (f.proj != "params" && params) throw UsageError("--params needs --proj params");
    if (seed && f.proj == "params") throw UsageError("--seed does not apply to --proj params");
    if (seed && f.proj == "identity" && !f.layer.additive) throw UsageError("--seed has nothing to draw with --proj identity");
}

MultiHeadParams attention_params(const AttentionFlags& f, std::size_t d) {
    MultiHeadConfig cfg = f.layer;
    cfg.d = d;
    head_size(d, cfg.attention.heads);
    if (f.proj == "random") return random_multihead(cfg, f.seed);
    if (f.proj == "params") return load_multihead(SafeTensors::open(f.params_file), f.prefix, cfg);
    MultiHeadParams p;  // identity: no W^Q, W^K, W^V, W^O
    if (cfg.additive) {
        Rng rng(f.seed);
        const std::size_t k = d / cfg.attention.heads;
        p.additive = random_additive(k, cfg.additive_dim ? cfg.additive_dim : k, rng);
    }
    return p;
}

}  // namespace tfm::tool
