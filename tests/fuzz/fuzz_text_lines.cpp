// Text lines into the model: arbitrary bytes (invalid UTF-8, NUL, CR, very long lines) are
// tokenised and encoded; every line gives ids that end in eos and fit the model, and the
// encoder runs on them.
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "tfm/base/error.hpp"
#include "tfm/model/model_dir.hpp"
#include "tfm/decode/translator.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const tfm::ModelDir md = tfm::load_model_dir(tfm_fuzz::tiny_model_dir());
    const tfm::ModelConfig& c = md.model.config;
    std::string text(reinterpret_cast<const char*>(data), size);
    std::vector<std::vector<std::int64_t>> sources;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        tfm::SourceIds s = tfm::source_ids(md.tokenizer, std::string_view(text).substr(start, end - start), c);
        if (s.ids.size() > c.max_positions) __builtin_trap();
        if (!s.ids.empty() && s.ids.back() != c.eos_id) __builtin_trap();
        for (auto id : s.ids)
            if (id < 0 || std::size_t(id) >= c.source_vocab()) __builtin_trap();
        sources.push_back(std::move(s.ids));
        start = end + 1;
    }
    auto memories = tfm::encode_sources(md.model, sources, 8);
    if (memories.size() != sources.size()) __builtin_trap();
    return 0;
}
