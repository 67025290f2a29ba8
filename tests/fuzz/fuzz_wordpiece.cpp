// BERT's tokenizer on arbitrary bytes (invalid UTF-8, control and combining characters, CJK,
// very long words, tabs, added tokens and never_split words): every line gives ids inside the
// vocabulary and its added tokens, and the model input
// built from it (alone, and as a pair at its first tab) fits the positions it is given,
// starting with [CLS] and ending with [SEP].
#include <cstdint>
#include <string>
#include <vector>

#include "tfm/model/bert.hpp"

namespace {

const tfm::WordPiece& tokenizer() {
    static const tfm::WordPiece tok = [] {
        std::vector<std::string> pieces{"[PAD]", "[UNK]", "[CLS]", "[SEP]"};
        for (char c = '!'; c <= '~'; ++c) {
            pieces.push_back(std::string(1, c));
            pieces.push_back("##" + std::string(1, c));
        }
        for (const char* w : {"the", "dog", "##s", "caf", "##é", "中", "über", "##ing", "a", "##a", "<e1>"}) pieces.push_back(w);
        tfm::WordPieceOptions opt;  // added tokens (one past vocab.txt) and never_split words too
        opt.added = {{"<e1>", -1, true, false}, {"NewTok", std::int64_t(pieces.size()), false, true}, {"[MASK]", -1, true, false}};
        opt.added.back().id = 2;
        opt.never_split = {"a-b", "[X]"};
        return tfm::WordPiece(pieces, opt);
    }();
    return tok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const tfm::WordPiece& tok = tokenizer();
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (std::size_t start = 0; start <= text.size();) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string_view line = std::string_view(text).substr(start, end - start);
        for (std::int64_t id : tok.encode(line))
            if (id < 0 || id > tok.max_id()) __builtin_trap();
        const std::size_t tab = line.find('\t');
        const std::string_view second = tab == std::string_view::npos ? std::string_view() : line.substr(tab + 1);
        for (std::size_t cap : {3, 16, 512}) {
            const tfm::BertInput in = tfm::bert_input(tok, line.substr(0, tab), tab == std::string_view::npos ? nullptr : &second,
                                                      512, cap);
            if (in.ids.size() > cap && in.ids.size() > 3) __builtin_trap();
            if (in.ids.size() != in.segments.size()) __builtin_trap();
            if (!in.ids.empty() && (in.ids.front() != tok.cls_id() || in.ids.back() != tok.sep_id())) __builtin_trap();
        }
        start = end + 1;
    }
    return 0;
}
