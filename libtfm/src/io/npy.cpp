#include "tfm/io/npy.hpp"

#include <cctype>
#include <cstring>
#include <map>

#include "tfm/base/error.hpp"

namespace tfm {

std::size_t dtype_size(DType t) { return (t == DType::F32 || t == DType::I32) ? 4 : 8; }

const char* dtype_name(DType t) {
    switch (t) {
        case DType::F32: return "float32";
        case DType::F64: return "float64";
        case DType::I32: return "int32";
        case DType::I64: return "int64";
    }
    return "?";
}

namespace {

// A recursive-descent reader of the Python literal subset that .npy headers use.
class DictParser {
public:
    explicit DictParser(std::string_view s) : s_(s) {}

    NpyDict parse() {
        NpyDict h;
        bool have_descr = false, have_order = false, have_shape = false;
        expect('{');
        while (!accept('}')) {
            std::string key = string_lit();
            expect(':');
            if (key == "descr") {
                h.descr = string_lit();
                have_descr = true;
            } else if (key == "fortran_order") {
                h.fortran_order = bool_lit();
                have_order = true;
            } else if (key == "shape") {
                h.shape = tuple_lit();
                have_shape = true;
            } else {
                throw bad("unexpected key '" + key + "'");
            }
            if (!accept(',')) {
                expect('}');
                break;
            }
        }
        skip_ws();
        if (pos_ != s_.size()) throw bad("trailing characters after the dictionary");
        if (!have_descr || !have_order || !have_shape)
            throw bad("missing key (needs 'descr', 'fortran_order' and 'shape')");
        return h;
    }

private:
    std::string_view s_;
    std::size_t pos_ = 0;

    Error bad(const std::string& what) const {
        return Error("malformed .npy header: " + what);
    }
    void skip_ws() {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    bool accept(char c) {
        skip_ws();
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!accept(c)) throw bad(std::string("expected '") + c + "' at offset " + std::to_string(pos_));
    }
    std::string string_lit() {
        skip_ws();
        if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"'))
            throw bad("expected a string at offset " + std::to_string(pos_));
        char q = s_[pos_++];
        std::size_t end = s_.find(q, pos_);
        if (end == std::string_view::npos) throw bad("unterminated string");
        std::string out(s_.substr(pos_, end - pos_));
        pos_ = end + 1;
        return out;
    }
    bool bool_lit() {
        skip_ws();
        if (s_.substr(pos_, 4) == "True") {
            pos_ += 4;
            return true;
        }
        if (s_.substr(pos_, 5) == "False") {
            pos_ += 5;
            return false;
        }
        throw bad("expected True or False for 'fortran_order'");
    }
    Shape tuple_lit() {
        Shape shape;
        expect('(');
        while (!accept(')')) {
            skip_ws();
            std::size_t start = pos_;
            std::uint64_t v = 0;
            while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
                unsigned digit = unsigned(s_[pos_] - '0');
                if (v > (UINT64_MAX - digit) / 10) throw bad("shape dimension overflows");
                v = v * 10 + digit;
                ++pos_;
            }
            if (pos_ == start) throw bad("expected a non-negative integer in 'shape'");
            if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // Python 2 long
            if (shape.size() >= 32) throw bad("more than 32 dimensions");
            shape.push_back(static_cast<std::size_t>(v));
            if (!accept(',')) {
                expect(')');
                break;
            }
        }
        return shape;
    }
};

// The dtype of a descr as np.dtype() reads it: a type code with an optional byte order
// ('<' little, '>' big, '=' native, '|' not applicable) such as '<f4', 'f4', '=f', '>d', or
// a name ('float32', 'float64', 'double', 'int32', 'int64', 'int'). Native is little-endian
// on every machine tfm builds for (x86-64).
void parse_descr(const std::string& d, NpyHeader& h) {
    static const std::map<std::string, DType> codes = {
        {"f4", DType::F32}, {"f", DType::F32}, {"f8", DType::F64}, {"d", DType::F64}, {"i4", DType::I32},
        {"i", DType::I32},  {"i8", DType::I64}, {"q", DType::I64}, {"l", DType::I64}};
    static const std::map<std::string, DType> names = {
        {"float32", DType::F32}, {"float64", DType::F64}, {"double", DType::F64}, {"float", DType::F64},
        {"int32", DType::I32},   {"int64", DType::I64},   {"int", DType::I64},    {"long", DType::I64}};
    const auto unsupported = [&] {
        return Error("unsupported dtype '" + d + "' (tfm reads float32, float64, int32 and int64)");
    };
    if (auto it = names.find(d); it != names.end()) {
        h.dtype = it->second;
        return;
    }
    const char order = d.empty() ? 0 : d[0];
    const bool has_order = order == '<' || order == '>' || order == '=' || order == '|';
    auto it = codes.find(has_order ? d.substr(1) : d);
    if (it == codes.end()) throw unsupported();
    h.dtype = it->second;
    h.big_endian = order == '>';
}

}  // namespace

NpyDict parse_npy_dict(std::string_view dict) { return DictParser(dict).parse(); }

NpyHeader parse_npy_header(std::string_view dict) {
    NpyDict d = parse_npy_dict(dict);
    NpyHeader h;
    parse_descr(d.descr, h);
    h.fortran_order = d.fortran_order;
    h.shape = std::move(d.shape);
    return h;
}

std::string npy_preamble(DType dtype, const Shape& shape) {
    static const char* const descr[] = {"<f4", "<f8", "<i4", "<i8"};
    std::string dict = std::string("{'descr': '") + descr[int(dtype)] +
                       "', 'fortran_order': False, 'shape': (";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        dict += std::to_string(shape[i]);
        dict += (shape.size() == 1 || i + 1 < shape.size()) ? "," : "";
        if (i + 1 < shape.size()) dict += ' ';
    }
    dict += "), }";
    // Pad with spaces and a final newline so that the data starts at a multiple of 64.
    bool v2 = dict.size() + 1 + 10 > 65535;
    std::size_t prefix = v2 ? 12 : 10;
    std::size_t total = prefix + dict.size() + 1;
    std::size_t padded = (total + 63) / 64 * 64;
    dict.append(padded - total, ' ');
    dict += '\n';
    std::string out(kNpyMagic);
    out += char(v2 ? 2 : 1);
    out += char(0);
    std::uint32_t len = static_cast<std::uint32_t>(dict.size());
    for (std::size_t i = 0; i < (v2 ? 4u : 2u); ++i) out += char((len >> (8 * i)) & 0xff);
    return out + dict;
}

}  // namespace tfm
