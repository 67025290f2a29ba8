// The flags of one multi-head attention layer over tensor records, shared by tfm-attend and
// tfm-view --attend: the inputs (X, queries and memory, or Q K V), heads, mask, scaling,
// the ablations and where the projections come from.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "tfm/nn/multihead.hpp"

namespace tfm::tool {

enum class AttentionInputs { Self, Cross, Qkv };

struct AttentionFlags {
    AttentionInputs inputs = AttentionInputs::Self;
    MultiHeadConfig layer;
    std::string proj = "identity";  // identity | random | params
    std::uint64_t seed = 0;
    std::string params_file, prefix;
    bool cross = false, qkv = false, no_scale = false;
    CLI::Option *proj_opt = nullptr, *seed_opt = nullptr, *params_opt = nullptr;
};

// --heads --cross --qkv --causal --proj --seed --params --prefix --shared-kv --no-scale
// --additive --additive-dim.
void add_attention_flags(CLI::App& app, AttentionFlags& f);
// After parsing: the implied --proj, the inputs, and the usage errors of combinations.
void finish_attention_flags(AttentionFlags& f);
// The projections for records of width d (an error naming D and H when H does not divide D).
MultiHeadParams attention_params(const AttentionFlags& f, std::size_t d);

}  // namespace tfm::tool
