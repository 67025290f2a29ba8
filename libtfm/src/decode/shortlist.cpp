#include "tfm/decode/shortlist.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <unordered_map>

#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/line_reader.hpp"

namespace tfm {

namespace {

constexpr std::uint64_t kBinaryMagic = 0xF11A48D5013417F5ull;
constexpr std::size_t kHeaderBytes = 6 * 8;
constexpr std::size_t kMaxLine = 1 << 16;
constexpr std::size_t kMaxBinary = std::size_t(4) << 30;

// Marian's util::hashMem over u64 words (std::hash of an integer is the integer).
std::uint64_t marian_hash(const unsigned char* p, std::size_t words) {
    std::uint64_t seed = 0;
    for (std::size_t i = 0; i < words; ++i) {
        std::uint64_t v;
        std::memcpy(&v, p + 8 * i, 8);
        seed ^= v + 0x9e3779b9ull + (seed << 6) + (seed >> 2);
    }
    return seed;
}

std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < line.size()) {
        const std::size_t b = line.find_first_not_of(" \t\r", at);
        if (b == std::string::npos) break;
        const std::size_t e = std::min(line.find_first_of(" \t\r", b), line.size());
        out.push_back(line.substr(b, e - b));
        at = e;
    }
    return out;
}

// Per source id, Marian's pruning of its (target, probability) entries: the `best` most
// probable above `threshold` (ties: the higher target id first, as Marian's sort of pairs).
using Lexicon = std::unordered_map<std::int64_t, std::unordered_map<std::int64_t, float>>;

std::map<std::int64_t, std::vector<std::int64_t>> prune(const Lexicon& lex, std::size_t best, double threshold) {
    std::map<std::int64_t, std::vector<std::int64_t>> out;
    for (const auto& [src, probs] : lex) {
        std::vector<std::pair<float, std::int64_t>> sorter;
        for (const auto& [t, p] : probs) sorter.emplace_back(p, t);
        std::sort(sorter.begin(), sorter.end(), std::greater<>());
        std::vector<std::int64_t> kept;
        for (const auto& [p, t] : sorter) {
            if (kept.size() >= best || !(double(p) > threshold)) break;
            kept.push_back(t);
        }
        std::sort(kept.begin(), kept.end());
        if (!kept.empty()) out[src] = std::move(kept);
    }
    return out;
}

// Marian's text lines through next_line (false at the end); path names them in errors.
template <class NextLine>
Lexicon parse_marian_text(const std::string& path, const Tokenizer& tok, NextLine&& next_line) {
    Lexicon lex;
    std::string line;
    for (std::size_t n = 1; next_line(line); ++n) {
        const auto f = fields(line);
        if (f.empty()) continue;
        if (f.size() != 3) throw Error(path + ": line " + std::to_string(n) + ": not 'target source probability'");
        if (f[0] == "NULL" || f[1] == "NULL") continue;
        char* end = nullptr;
        const double p = std::strtod(f[2].c_str(), &end);
        if (end != f[2].c_str() + f[2].size() || !std::isfinite(p))
            throw Error(path + ": line " + std::to_string(n) + ": probability '" + f[2].substr(0, 40) + "' is not a number");
        // Marian maps a word its vocabulary lacks to <unk>
        std::int64_t s = tok.source_id(f[1]), t = tok.target_id(f[0]);
        if (s < 0) s = tok.unk_id();
        if (t < 0) t = tok.unk_id();
        lex[s][t] = float(p);
    }
    return lex;
}

Lexicon read_marian_text(const std::string& path, const Tokenizer& tok) {
    LineReader in(path);
    return parse_marian_text(path, tok, [&](std::string& line) { return in.next(line, kMaxLine); });
}

void check_best(std::size_t best) {
    if (best == 0) throw UsageError("shortlist: BEST must be at least 1");
}

}  // namespace

namespace {
// Fills offsets/targets (CSR over source ids [0, vocab)) from per-source lists.
void to_csr(const std::map<std::int64_t, std::vector<std::int64_t>>& lists, std::size_t vocab,
            std::vector<std::uint64_t>& offsets, std::vector<std::uint32_t>& targets) {
    offsets.assign(vocab + 1, 0);
    targets.clear();
    auto it = lists.begin();
    for (std::size_t s = 0; s < vocab; ++s) {
        offsets[s] = targets.size();
        if (it != lists.end() && it->first == std::int64_t(s)) {
            for (std::int64_t t : it->second) targets.push_back(std::uint32_t(t));
            ++it;
        }
    }
    offsets[vocab] = targets.size();
}
}  // namespace

Shortlist Shortlist::marian_text(const std::string& path, const Tokenizer& tok, const ModelConfig& c, std::size_t first,
                                 std::size_t best, double threshold) {
    check_best(best);
    Shortlist s;
    s.target_vocab_ = c.target_vocab();
    for (std::size_t i = 0; i < first && i < s.target_vocab_; ++i) s.always_.push_back(std::int64_t(i));
    to_csr(prune(read_marian_text(path, tok), best, threshold), c.source_vocab(), s.offsets_, s.targets_);
    return s;
}

std::string marian_binary_shortlist(std::string_view text, const Tokenizer& tok, const ModelConfig& c,
                                    std::size_t first, std::size_t best, double threshold) {
    check_best(best);
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> targets;
    std::size_t at = 0;
    const Lexicon lex = parse_marian_text("lexical table", tok, [&](std::string& line) {
        if (at >= text.size()) return false;
        const std::size_t nl = std::min(text.find('\n', at), text.size());
        line.assign(text.substr(at, nl - at));
        at = nl + 1;
        return true;
    });
    to_csr(prune(lex, best, threshold), c.source_vocab(), offsets, targets);
    std::string out(kHeaderBytes + offsets.size() * 8 + targets.size() * 4, '\0');
    const std::uint64_t head[6] = {kBinaryMagic, 0, first, best, offsets.size(), targets.size()};
    std::memcpy(out.data(), head, sizeof head);
    std::memcpy(out.data() + kHeaderBytes, offsets.data(), offsets.size() * 8);
    std::memcpy(out.data() + kHeaderBytes + offsets.size() * 8, targets.data(), targets.size() * 4);
    const std::uint64_t sum = marian_hash(reinterpret_cast<const unsigned char*>(out.data()) + 16, (out.size() - 16) / 8);
    std::memcpy(out.data() + 8, &sum, 8);
    return out;
}

Shortlist Shortlist::marian_binary(const std::string& path, const ModelConfig& c) {
    const std::string bytes = read_regular_file(path, kMaxBinary);
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    if (bytes.size() < kHeaderBytes) throw Error(path + ": " + std::to_string(bytes.size()) + " bytes, too short for a binary shortlist");
    std::uint64_t h[6];
    std::memcpy(h, p, sizeof h);
    if (h[0] != kBinaryMagic) throw Error(path + ": not a Marian binary shortlist (wrong magic number)");
    const std::uint64_t first = h[2], best = h[3], n_off = h[4], n_list = h[5];
    // The counts come from the file: each bounded by its size before any product is formed.
    if (n_off > bytes.size() / 8 || n_list > bytes.size() / 4 ||
        kHeaderBytes + n_off * 8 + n_list * 4 != bytes.size())
        throw Error(path + ": the header's counts (" + std::to_string(n_off) + " offsets, " + std::to_string(n_list) +
                    " ids) do not match the file's " + std::to_string(bytes.size()) + " bytes");
    if (marian_hash(p + 16, (bytes.size() - 16) / 8) != h[1]) throw Error(path + ": checksum mismatch: the shortlist is damaged");
    if (n_off == 0 || n_off - 1 > c.source_vocab())
        throw Error(path + ": lists for " + std::to_string(n_off ? n_off - 1 : 0) + " source ids, but the model has " +
                    std::to_string(c.source_vocab()));
    (void)best;
    Shortlist s;
    s.target_vocab_ = c.target_vocab();
    for (std::uint64_t i = 0; i < first && i < s.target_vocab_; ++i) s.always_.push_back(std::int64_t(i));
    s.offsets_.resize(n_off);
    std::memcpy(s.offsets_.data(), p + kHeaderBytes, n_off * 8);
    s.targets_.resize(n_list);
    std::memcpy(s.targets_.data(), p + kHeaderBytes + n_off * 8, n_list * 4);
    for (std::size_t i = 0; i + 1 < n_off; ++i)
        if (s.offsets_[i] > s.offsets_[i + 1]) throw Error(path + ": offset " + std::to_string(i) + " lies after the next one");
    if (s.offsets_.back() != n_list) throw Error(path + ": the last offset is not the end of the lists");
    for (std::uint32_t t : s.targets_)
        if (t >= s.target_vocab_)
            throw Error(path + ": target id " + std::to_string(t) + " is outside the model's vocabulary of " +
                        std::to_string(s.target_vocab_));
    return s;
}

Shortlist Shortlist::first(std::size_t n, const ModelConfig& c) {
    Shortlist s;
    s.target_vocab_ = c.target_vocab();
    for (std::size_t i = 0; i < n && i < s.target_vocab_; ++i) s.always_.push_back(std::int64_t(i));
    return s;
}

Shortlist Shortlist::marian(const std::string& path, const Tokenizer& tok, const ModelConfig& c, std::size_t first,
                            std::size_t best, double threshold) {
    std::uint64_t magic = 0;
    {
        std::ifstream probe(path, std::ios::binary);  // a binary shortlist is never compressed
        if (!probe) throw Error(path + ": cannot open the shortlist");
        probe.read(reinterpret_cast<char*>(&magic), 8);
        if (probe.gcount() != 8) magic = 0;
    }
    if (magic == kBinaryMagic) return marian_binary(path, c);
    return marian_text(path, tok, c, first, best, threshold);
}

Shortlist Shortlist::vocabulary_map(const std::string& path, const Tokenizer& tok, const ModelConfig& c) {
    Shortlist s;
    s.target_vocab_ = c.target_vocab();
    LineReader in(path);
    std::string line;
    std::map<std::int64_t, std::vector<std::int64_t>> unigrams;
    for (std::size_t n = 1; in.next(line, kMaxLine); ++n) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const std::size_t tab = line.find('\t');
        if (tab == std::string::npos) {
            if (line.find_first_not_of(' ') == std::string::npos) continue;
            throw Error(path + ": line " + std::to_string(n) + ": no tab between the source n-gram and its targets");
        }
        std::vector<std::int64_t> targets;
        for (const auto& t : fields(line.substr(tab + 1))) {
            const std::int64_t id = tok.target_id(t);
            targets.push_back(id < 0 ? tok.unk_id() : id);  // CTranslate2 maps an unknown token to <unk>
        }
        const auto key_pieces = fields(line.substr(0, tab));
        if (key_pieces.empty()) {
            s.always_.insert(s.always_.end(), targets.begin(), targets.end());
            continue;
        }
        std::vector<std::int64_t> key;
        for (const auto& k : key_pieces) key.push_back(tok.source_id(k));
        if (std::find(key.begin(), key.end(), -1) != key.end()) continue;  // no source can spell it
        auto& list = key.size() == 1 ? unigrams[key[0]] : s.ngrams_[key];
        list = targets;  // a later line replaces an earlier one, as CTranslate2's map does
        s.longest_ = std::max(s.longest_, key.size());
    }
    for (auto& [k, v] : unigrams) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    to_csr(unigrams, c.source_vocab(), s.offsets_, s.targets_);
    return s;
}

std::vector<std::int64_t> Shortlist::targets(const std::vector<const std::vector<std::int64_t>*>& sources,
                                             const std::vector<std::int64_t>& extra) const {
    std::vector<char> on(target_vocab_, 0);
    auto mark = [&](std::int64_t t) {
        if (t >= 0 && std::size_t(t) < on.size()) on[std::size_t(t)] = 1;
    };
    for (std::int64_t t : always_) mark(t);
    for (std::int64_t t : extra) mark(t);
    for (const auto* src : sources) {
        for (std::int64_t id : *src)
            if (id >= 0 && std::size_t(id) + 1 < offsets_.size())
                for (std::uint64_t j = offsets_[std::size_t(id)]; j < offsets_[std::size_t(id) + 1]; ++j) mark(targets_[j]);
        for (std::size_t n = 2; n <= longest_ && n <= src->size(); ++n)
            for (std::size_t i = 0; i + n <= src->size(); ++i) {
                const auto it = ngrams_.find(std::vector<std::int64_t>(src->begin() + long(i), src->begin() + long(i + n)));
                if (it != ngrams_.end())
                    for (std::int64_t t : it->second) mark(t);
            }
    }
    std::vector<std::int64_t> out;
    for (std::size_t t = 0; t < on.size(); ++t)
        if (on[t]) out.push_back(std::int64_t(t));
    return out;
}

std::size_t Shortlist::entries() const {
    std::size_t n = targets_.size() + always_.size();
    for (const auto& [k, v] : ngrams_) n += v.size();
    return n;
}

}  // namespace tfm

namespace tfm {

std::string lexical_table(const std::string& source_path, const std::string& target_path, const Tokenizer& tok,
                          const LexiconOptions& opt) {
    if (opt.iterations == 0 || opt.best == 0 || opt.max_length == 0)
        throw UsageError("lexical table: iterations, best and the longest sentence must be at least 1");
    // The corpus as piece ids (eos left out); -1 is NULL, the source word every target may align to.
    std::vector<std::vector<std::int64_t>> src, tgt;
    {
        LineReader s(source_path), t(target_path);
        std::string a, b;
        for (std::size_t n = 0; n < opt.max_lines; ++n) {
            const bool ga = s.next(a, kMaxLine * 16), gb = t.next(b, kMaxLine * 16);
            if (ga != gb)
                throw Error((ga ? target_path : source_path) + " ends after line " + std::to_string(n) + " but " +
                            (ga ? source_path : target_path) + " goes on");
            if (!ga) break;
            auto x = tok.encode(a), y = tok.encode_target(b);
            x.pop_back();
            y.pop_back();
            if (x.empty() || y.empty() || x.size() > opt.max_length || y.size() > opt.max_length) continue;
            x.push_back(-1);
            src.push_back(std::move(x));
            tgt.push_back(std::move(y));
        }
    }
    if (src.empty())
        throw Error(source_path + ", " + target_path + ": no sentence pairs with text on both sides and at most " +
                    std::to_string(opt.max_length) + " pieces each");
    auto key = [](std::int64_t s, std::int64_t t) { return (std::uint64_t(s + 1) << 32) | std::uint64_t(t); };
    std::unordered_map<std::uint64_t, double> prob, count;
    for (std::size_t i = 0; i < src.size(); ++i)
        for (std::int64_t s : src[i])
            for (std::int64_t t : tgt[i]) prob[key(s, t)] = 1.0;  // uniform: normalised by the first E-step
    std::unordered_map<std::int64_t, double> total;
    std::vector<double> z;
    for (std::size_t it = 0; it < opt.iterations; ++it) {
        count.clear();
        total.clear();
        for (std::size_t i = 0; i < src.size(); ++i) {
            z.assign(tgt[i].size(), 0.0);
            for (std::size_t j = 0; j < tgt[i].size(); ++j)
                for (std::int64_t s : src[i]) z[j] += prob[key(s, tgt[i][j])];
            for (std::size_t j = 0; j < tgt[i].size(); ++j)
                for (std::int64_t s : src[i]) {
                    const double c = prob[key(s, tgt[i][j])] / z[j];
                    count[key(s, tgt[i][j])] += c;
                    total[s] += c;
                }
        }
        for (auto& [k, p] : prob) p = count[k] / total[std::int64_t(k >> 32) - 1];
    }
    // Per source piece (NULL left out), the best targets, most probable first.
    std::map<std::int64_t, std::vector<std::pair<double, std::int64_t>>> by_source;
    for (const auto& [k, p] : prob) {
        const std::int64_t s = std::int64_t(k >> 32) - 1, t = std::int64_t(k & 0xffffffffu);
        if (s >= 0 && p > opt.threshold) by_source[s].emplace_back(p, t);
    }
    std::string out;
    char num[32];
    for (auto& [s, list] : by_source) {
        std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first > b.first : a.second < b.second;
        });
        if (list.size() > opt.best) list.resize(opt.best);
        const std::string sp = tok.source_piece(s);
        for (const auto& [p, t] : list) {
            std::snprintf(num, sizeof num, "%.6g", p);
            out += tok.target_piece(t) + " " + sp + " " + num + "\n";
        }
    }
    return out;
}

}  // namespace tfm
