#include "tfm/view/page.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "tfm/base/base64.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/half.hpp"
#include "tfm/base/markup.hpp"
#include "tfm/version.hpp"
#include "explorer_assets.hpp"

namespace tfm {

namespace {

using nlohmann::json;

enum class Encoding { F32, F16, U16 };

// The page's arrays, one after another in one buffer (deflated into the page as a whole); each
// array's JSON says where: {"dtype", "shape", "at"} (its first byte).
class Arrays {
public:
    json add(const ViewArray& a, Encoding e) {
        const std::size_t at = bytes_.size();
        if (e == Encoding::F32) {
            bytes_.resize(at + a.values.size() * 4);
            for (std::size_t i = 0; i < a.values.size(); ++i) {
                std::uint32_t u;
                std::memcpy(&u, &a.values[i], 4);
                for (int b = 0; b < 4; ++b) bytes_[at + 4 * i + std::size_t(b)] = char((u >> (8 * b)) & 0xff);
            }
        } else {
            bytes_.resize(at + a.values.size() * 2);
            for (std::size_t i = 0; i < a.values.size(); ++i) {
                std::uint16_t h;
                if (e == Encoding::F16) {
                    h = float_to_half(a.values[i]);
                } else {  // fixed point over [0, 1]: attention weights
                    const float w = std::isfinite(a.values[i]) ? std::clamp(a.values[i], 0.0f, 1.0f) : 0.0f;
                    h = std::uint16_t(std::lround(double(w) * 65535.0));
                }
                bytes_[at + 2 * i] = char(h & 0xff);
                bytes_[at + 2 * i + 1] = char(h >> 8);
            }
        }
        return {{"dtype", e == Encoding::F32 ? "f32" : e == Encoding::F16 ? "f16" : "u16"}, {"shape", a.shape}, {"at", at}};
    }
    const std::string& bytes() const { return bytes_; }

private:
    std::string bytes_;
};

// zlib's format (RFC 1950), which the page's DecompressionStream("deflate") reads.
std::string deflated(const std::string& bytes) {
    uLongf size = compressBound(uLong(bytes.size()));
    std::string out(size, '\0');
    if (compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(bytes.data()),
                  uLong(bytes.size()), 6) != Z_OK)
        throw Error("tfm-view: compressing the page's arrays failed");
    out.resize(size);
    return out;
}

json page_data(const AttentionView& v, bool compact, Arrays& arrays) {
    const Encoding weights = compact ? Encoding::U16 : Encoding::F32;
    const Encoding vectors = compact ? Encoding::F16 : Encoding::F32;
    auto encoded = [&](const ViewArray& a, Encoding e) { return arrays.add(a, e); };
    json blocks = json::array();
    for (const AttentionBlock& b : v.blocks) {
        json layers = json::array();
        for (const ViewArray& a : b.layers) layers.push_back(encoded(a, weights));
        json jb = {{"id", b.id},         {"name", b.name},       {"queries", b.queries}, {"keys", b.keys},
                   {"heads", b.heads},   {"key_len", b.key_len}, {"causal", b.causal},
                   {"layers", layers}};
        if (const auto& s = b.steps) {
            jb["steps"] = {{"layer", s->layer},
                           {"scale", s->scale},
                           {"projected_in", s->projected_in},
                           {"projected_out", s->projected_out},
                           {"q", encoded(s->q, vectors)},
                           {"k", encoded(s->k, vectors)},
                           {"v", encoded(s->v, vectors)},
                           {"weights", encoded(s->weights, Encoding::F32)},
                           {"context", encoded(s->context, vectors)},
                           {"output", encoded(s->output, vectors)}};
            if (!s->scores.values.empty()) jb["steps"]["scores"] = encoded(s->scores, vectors);
        }
        blocks.push_back(std::move(jb));
    }
    json inputs = json::array();
    for (const StackInputs& e : v.embeddings) {
        json je = {{"tokens", e.tokens}, {"sum_label", e.sum_label}, {"sum", encoded(e.sum, vectors)}};
        if (!e.token.values.empty()) je["token"] = encoded(e.token, vectors), je["token_label"] = e.token_label;
        if (!e.position.values.empty())
            je["position"] = encoded(e.position, vectors), je["position_label"] = e.position_label;
        inputs.push_back(std::move(je));
    }
    std::vector<std::string> notes = v.notes;
    notes.insert(notes.end(), v.remarks.begin(), v.remarks.end());
    if (compact)
        notes.push_back("the page is compact: vectors are float16 (about 3 significant digits) and the weights of the "
                        "model, head and matrix views 16-bit fixed point; the step view's softmax keeps float32 "
                        "(--precision float32 keeps every digit)");
    return {{"version", kVersion},
            {"title", v.title},
            {"lists", v.token_list_names},
            {"tokens", v.tokens},
            {"blocks", blocks},
            {"inputs", inputs},
            {"notes", notes},
            {"compact", compact},
            {"digits", compact ? 3 : 4}};
}

// JSON text safe inside <script>: every '<' escaped (only strings can hold one), invalid UTF-8
// replaced rather than refused.
std::string script_json(const json& j) {
    const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        if (c == '<')
            out += "\\u003c";
        else
            out += c;
    }
    return out;
}

}  // namespace

PagePrecision parse_page_precision(const std::string& name) {
    if (name == "auto") return PagePrecision::Auto;
    if (name == "float32") return PagePrecision::Float32;
    if (name == "float16") return PagePrecision::Float16;
    throw UsageError("precision '" + name + "': auto, float32 or float16");
}

Page explorer_page(const AttentionView& view, PagePrecision precision) {
    // The data in float32, or compact; auto: float32 while its deflated base64 stays in budget.
    auto build = [&](bool compact, std::string& meta, std::string& packed) {
        Arrays arrays;
        meta = script_json(page_data(view, compact, arrays));
        packed = base64(deflated(arrays.bytes()));
    };
    Page page;
    std::string meta, packed;
    page.compact = precision == PagePrecision::Float16;
    build(page.compact, meta, packed);
    if (precision == PagePrecision::Auto && packed.size() > kPageFloat32Budget) {
        page.compact = true;
        build(true, meta, packed);
    }
    std::string& h = page.html;
    h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    h += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
         "style-src 'unsafe-inline'; img-src data:\">\n";
    h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    h += "<title>tfm-view: " + xml_escape(view.title) + "</title>\n<style>\n";
    h += kExplorerCss;
    h += "</style>\n</head>\n<body>\n";
    h += kExplorerBody;
    h += "<script type=\"application/json\" id=\"tfm-data\">" + meta + "</script>\n";
    h += "<script type=\"application/octet-stream\" id=\"tfm-arrays\">" + packed + "</script>\n<script>\n";
    h += kExplorerJs;
    h += "</script>\n</body>\n</html>\n";
    return page;
}

}  // namespace tfm
