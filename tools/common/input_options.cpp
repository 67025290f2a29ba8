#include "input_options.hpp"

#include "checks.hpp"

namespace tfm::tool {

void add_input_limit_options(CLI::App& app, std::size_t& max_tokens, bool& strict) {
    app.add_option("--max-input-length", max_tokens,
                   "Sources longer than N tokens (eos included) are cut to N, keeping eos, with a warning; with "
                   "--strict refused (default: the model's positions)")
        ->check(in_range(2, kMaxLength));
    app.add_flag("--strict", strict, "A source over the input limit is an error (default: cut, with a warning)");
}

void add_target_lang_option(CLI::App& app, std::string& lang) {
    app.add_option("--target-lang", lang,
                   "Target language of a multi-target model: puts >>LANG<< before each line that has no code "
                   "of its own (tfm-info lists the model's)");
}

}  // namespace tfm::tool
