#include "tfm/decode/memory_reader.hpp"

#include <algorithm>
#include <utility>

#include "tfm/base/error.hpp"
#include "tfm/decode/translator.hpp"

namespace tfm {

std::vector<xt::xtensor<float, 2>> MemoryReader::next_window(std::size_t size) {
    auto read_one = [&](std::vector<xt::xtensor<float, 2>>& out) {
        auto rec = reader_.next();
        if (!rec) return false;
        FloatArray a = as_float(std::move(*rec));
        if (a.dimension() != 2 || a.shape(1) != d_)
            throw record_error(reader_.records_read() - 1, "memory " + shape_of(a) +
                                                               " does not fit the model: expected [S," + std::to_string(d_) + "]");
        auto m = xt::xtensor<float, 2>::from_shape({a.shape(0), d_});
        std::copy(a.begin(), a.end(), m.begin());
        out.push_back(std::move(m));
        return true;
    };
    return windows_.next(size, read_one, [&] { return in_.ready(); });
}

std::vector<std::vector<TokenSpelling>> spell_sources(const Tokenizer& tok, const ModelConfig& config,
                                                      const std::vector<std::string>& lines,
                                                      const std::vector<xt::xtensor<float, 2>>& memories, std::size_t first) {
    std::vector<std::vector<TokenSpelling>> out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::size_t rows = memories[i].shape(0);
        SourceIds s = source_ids(tok, lines[i], config, rows, true);
        if (s.ids.size() != rows)
            throw Error("--source-text line " + std::to_string(first + i + 1) + ": " + std::to_string(s.ids.size()) +
                        " tokens, but its memory has " + std::to_string(rows) +
                        " (give the lines tfm-encode read, with their language code)");
        out.push_back(std::move(s.spellings));
    }
    return out;
}

}  // namespace tfm
