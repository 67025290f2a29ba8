#include "tfm/model/generation.hpp"

#include "tfm/base/error.hpp"
#include "tfm/io/io.hpp"
#include "tfm/io/json.hpp"
#include "tfm/nn/posenc.hpp"

namespace tfm {

namespace {

constexpr std::int64_t kMaxGenerationLength = std::int64_t(1) << 20;
constexpr std::size_t kMaxBadWords = 1 << 16;

std::vector<std::vector<std::int64_t>> bad_words(const Json& j, const ModelConfig& c, const std::string& path) {
    const Json& list = j.at("bad_words_ids");
    const std::string where = path + ": bad_words_ids";
    if (!list.is_array() || list.size() > kMaxBadWords)
        throw Error(where + " must be a list of token id lists (" + json_excerpt(list) + ")");
    std::vector<std::vector<std::int64_t>> out;
    for (const Json& seq : list) {
        if (!seq.is_array() || seq.empty() || seq.size() > 64)
            throw Error(where + ": each entry must be a list of 1 to 64 token ids (" + json_excerpt(seq) + ")");
        std::vector<std::int64_t> ids;
        for (const Json& id : seq) {
            if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
                std::size_t(id.get<std::int64_t>()) >= c.target_vocab())
                throw Error(where + ": id " + json_excerpt(id) + " is outside the target vocabulary of " +
                            std::to_string(c.target_vocab()));
            ids.push_back(id.get<std::int64_t>());
        }
        out.push_back(std::move(ids));
    }
    return out;
}

bool has_generation_keys(const Json& j) {
    for (const char* k : {"num_beams", "max_length", "min_length", "length_penalty", "bad_words_ids", "forced_bos_token_id",
                          "early_stopping"})
        if (json_has(j, k)) return true;
    return false;
}

}  // namespace

GenerationConfig load_generation_config(const std::string& dir, const ModelConfig& c) {
    std::string path = dir + "/generation_config.json";
    if (!path_present(path)) path = dir + "/config.json";
    const Json j = read_json_file(path, std::size_t(1) << 20);
    if (!j.is_object()) throw Error(path + ": not a JSON object");
    GenerationConfig g;
    const bool m2m = c.positions == PositionKind::SinusoidalFairseq;  // model_type m2m_100
    if (!has_generation_keys(j) && path == dir + "/config.json") {
        if (m2m) g.early_stopping = EarlyStopping::False;
        return g;
    }
    g.source = path;
    auto size = [&](const char* key, std::int64_t lo) -> std::optional<std::size_t> {
        if (!json_has(j, key)) return std::nullopt;
        return std::size_t(json_int(j, key, lo, kMaxGenerationLength, path));
    };
    g.num_beams = size("num_beams", 1);
    if (g.num_beams && *g.num_beams > 1024) throw Error(path + ": num_beams=" + std::to_string(*g.num_beams) + " is more than 1024");
    g.max_length = size("max_length", 1);
    g.min_length = size("min_length", 0);
    if (json_has(j, "length_penalty")) g.length_penalty = json_number(j, "length_penalty", -10, 10, path);
    if (json_has(j, "bad_words_ids")) g.bad_words_ids = bad_words(j, c, path);
    if (json_has(j, "forced_eos_token_id"))
        g.forced_eos_token_id = json_int(j, "forced_eos_token_id", 0, std::int64_t(c.target_vocab()) - 1, path);
    if (json_has(j, "forced_bos_token_id"))  // null (as many configs say) is absent
        g.forced_bos_token_id = json_int(j, "forced_bos_token_id", 0, std::int64_t(c.target_vocab()) - 1, path);
    if (json_has(j, "early_stopping")) {
        const Json& e = j["early_stopping"];
        if (e.is_boolean()) g.early_stopping = e.get<bool>() ? EarlyStopping::True : EarlyStopping::False;
        else if (e == "never") g.early_stopping = EarlyStopping::Never;
        else throw Error(path + ": early_stopping is " + json_excerpt(e) + ", not true, false or \"never\"");
    } else if (m2m) {
        g.early_stopping = EarlyStopping::False;
    }
    return g;
}

std::string generation_config_json(const GenerationConfig& g, const ModelConfig& c) {
    Json j = Json::object();
    j["decoder_start_token_id"] = c.decoder_start_id;
    j["eos_token_id"] = c.eos_id;
    j["pad_token_id"] = c.pad_id;
    if (g.num_beams) j["num_beams"] = *g.num_beams;
    if (g.max_length) j["max_length"] = *g.max_length;
    if (g.min_length) j["min_length"] = *g.min_length;
    if (g.length_penalty) j["length_penalty"] = *g.length_penalty;
    if (!g.bad_words_ids.empty()) j["bad_words_ids"] = g.bad_words_ids;
    if (g.forced_eos_token_id) j["forced_eos_token_id"] = *g.forced_eos_token_id;
    if (g.forced_bos_token_id) j["forced_bos_token_id"] = *g.forced_bos_token_id;
    if (g.early_stopping)
        j["early_stopping"] = *g.early_stopping == EarlyStopping::Never ? Json("never") : Json(*g.early_stopping == EarlyStopping::True);
    return j.dump(2) + "\n";
}

void save_generation_config(const std::string& dir, const GenerationConfig& g, const ModelConfig& c) {
    write_file_atomic(dir + "/generation_config.json", generation_config_json(g, c));
}

}  // namespace tfm
