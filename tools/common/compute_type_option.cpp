#include "compute_type_option.hpp"

#include "tfm/base/compute_type.hpp"

namespace tfm::tool {

void add_compute_type_option(CLI::App& app, std::string& type) {
    app.add_option("--compute-type", type,
                   "Arithmetic of the weight products: float32 (default), bfloat16, int8, or auto (the fastest "
                   "this CPU has: " + std::string(compute_type_name(compute_type_auto())) + ")")
        ->check(CLI::IsMember({"float32", "bfloat16", "int8", "auto"}));
}

void add_training_compute_type_option(CLI::App& app, std::string& type) {
    const bool units = compute_type_supported(ComputeType::BFloat16);
    type = "float32";
    app.add_option("--compute-type", type,
                   "Arithmetic of the products of forward and backward: float32 (default), bfloat16 (mixed "
                   "precision: bfloat16 products summed in float32; weights, optimizer and checkpoints stay "
                   "float32), or auto (bfloat16 where the CPU has AVX512-BF16 or AMX: " +
                       std::string(units ? "bfloat16" : "float32") + " here)")
        ->check(CLI::IsMember({"float32", "bfloat16", "auto"}));
}

ComputeType compute_type(const std::string& type) {
    const ComputeType t = parse_compute_type(type.empty() ? "float32" : type);
    require_compute_type(t);
    return t;
}

}  // namespace tfm::tool
