#include "tfm/base/compute_type.hpp"

#include <oneapi/dnnl/dnnl.hpp>

#include "tfm/base/error.hpp"

namespace tfm {

namespace {
// oneDNN's instruction sets are bit masks, each containing those it extends.
bool has_isa(dnnl::cpu_isa isa) {
    const unsigned have = static_cast<unsigned>(dnnl::get_effective_cpu_isa()), want = static_cast<unsigned>(isa);
    return (have & want) == want;
}
}  // namespace

ComputeType parse_compute_type(const std::string& name) {
    if (name == "float32") return ComputeType::Float32;
    if (name == "bfloat16") return ComputeType::BFloat16;
    if (name == "int8") return ComputeType::Int8;
    if (name == "auto") return compute_type_auto();
    throw Error("unknown compute type '" + name + "' (float32, bfloat16, int8 or auto)");
}

const char* compute_type_name(ComputeType t) {
    switch (t) {
        case ComputeType::Float32: return "float32";
        case ComputeType::BFloat16: return "bfloat16";
        case ComputeType::Int8: return "int8";
    }
    return "?";
}

bool compute_type_supported(ComputeType t) {
    switch (t) {
        case ComputeType::Float32: return true;
        case ComputeType::BFloat16: return has_isa(dnnl::cpu_isa::avx512_core_bf16);
        case ComputeType::Int8: return has_isa(dnnl::cpu_isa::avx512_core_vnni) || has_isa(dnnl::cpu_isa::avx2_vnni);
    }
    return false;
}

ComputeType compute_type_auto() {
    if (compute_type_supported(ComputeType::Int8)) return ComputeType::Int8;
    if (compute_type_supported(ComputeType::BFloat16)) return ComputeType::BFloat16;
    return ComputeType::Float32;
}

void require_compute_type(ComputeType t) {
    if (compute_type_supported(t)) return;
    const std::string needs = t == ComputeType::BFloat16 ? "AVX512-BF16 or AMX" : "VNNI (AVX512-VNNI, AVX-VNNI or AMX)";
    throw Error(std::string("compute type ") + compute_type_name(t) + " needs " + needs +
                " instructions, which this CPU (" + compute_isa_name() +
                ") does not have; use float32, or auto for the fastest it has");
}

std::string compute_isa_name() {
    switch (dnnl::get_effective_cpu_isa()) {
        case dnnl::cpu_isa::sse41: return "sse41";
        case dnnl::cpu_isa::avx: return "avx";
        case dnnl::cpu_isa::avx2: return "avx2";
        case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
        case dnnl::cpu_isa::avx512_core: return "avx512_core";
        case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
        case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
        case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
        default: return "other";
    }
}

}  // namespace tfm
