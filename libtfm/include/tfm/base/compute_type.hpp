// The arithmetic inference runs its weight products in (CTranslate2's names): float32,
// bfloat16 (weights and activations rounded to bf16, sums in fp32) or int8 (weights with a
// scale per output row, activations quantised per row as they come, sums in int32). `auto`
// is the fastest this CPU has instructions for. docs/numerics.md §Compute types.
#pragma once

#include <string>

namespace tfm {

enum class ComputeType { Float32, BFloat16, Int8 };

// "float32" | "bfloat16" | "int8" | "auto" (-> compute_type_auto()); anything else throws
// tfm::Error listing the names.
ComputeType parse_compute_type(const std::string& name);
const char* compute_type_name(ComputeType t);

// int8 where the CPU has VNNI (AVX512-VNNI, AVX-VNNI or AMX), else bfloat16 where it has
// AVX512-BF16 or AMX, else float32.
ComputeType compute_type_auto();

// Whether this CPU has the instructions for t (float32 always). Honours oneDNN's
// DNNL_MAX_CPU_ISA, so a run can be made to see a CPU without them.
bool compute_type_supported(ComputeType t);
// Throws tfm::Error saying which instructions t needs and what to use instead, unless supported.
void require_compute_type(ComputeType t);

// "avx512_core_amx" or similar: the instruction set the packed products dispatch to.
std::string compute_isa_name();

}  // namespace tfm
