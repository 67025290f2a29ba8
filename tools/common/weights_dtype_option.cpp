#include "weights_dtype_option.hpp"

namespace tfm::tool {

void add_weights_dtype_option(CLI::App& app, std::string& dtype) {
    app.add_option("--dtype", dtype,
                   "Weights as f32 (default), f16, bf16 or int8 (weight matrices as int8 with a scale per row, "
                   "about a quarter of f32)")
        ->check(CLI::IsMember({"f32", "f16", "bf16", "int8"}));
}

std::string weights_dtype(const std::string& dtype) {
    if (dtype == "f16") return "F16";
    if (dtype == "bf16") return "BF16";
    if (dtype == "int8") return "I8";
    return "F32";
}

}  // namespace tfm::tool
