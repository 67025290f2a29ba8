#include "tfm/io/text_tensor.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "tfm/base/error.hpp"

namespace tfm {

namespace {

constexpr std::size_t kMaxTextLine = std::size_t(1) << 28;

// The values of one tensor: exact int64 while every token is an integer (ids), float32 from
// the first token that is not (the integers before it converted).
struct Numbers {
    std::vector<std::int64_t> ints;
    std::vector<float> floats;
    bool all_integers = true;
    std::size_t max_values = SIZE_MAX;
    std::size_t size() const { return all_integers ? ints.size() : floats.size(); }
    void add_int(std::int64_t v) {
        if (all_integers) ints.push_back(v);
        else floats.push_back(float(v));
    }
    void add_float(float v) {
        if (all_integers) {
            floats.assign(ints.begin(), ints.end());
            ints = {};
            all_integers = false;
        }
        floats.push_back(v);
    }
};

bool is_comment(const std::string& line) {
    std::size_t p = line.find_first_not_of(" \t");
    return p != std::string::npos && line[p] == '#';
}

bool is_blank(const std::string& line) {
    for (char c : line)
        if (c != ' ' && c != '\t' && c != '\r') return false;
    return true;
}

std::optional<Shape> shape_comment(const std::string& line) {
    std::size_t p = line.find_first_not_of(" \t");
    if (p == std::string::npos || line[p] != '#') return std::nullopt;
    p = line.find_first_not_of(" \t", p + 1);
    if (p == std::string::npos || line.compare(p, 6, "shape:") != 0) return std::nullopt;
    auto dims = parse_integers(std::string_view(line).substr(p + 6));
    if (!dims || std::any_of(dims->begin(), dims->end(), [](std::int64_t d) { return d < 0; }))
        throw Error("malformed '# shape:' line: " + line.substr(0, 80));
    return Shape(dims->begin(), dims->end());
}

// Appends the numbers of one row; returns how many.
std::size_t parse_row(const std::string& line, Numbers& out) {
    const char* s = line.data();
    const char* end = s + line.size();
    std::size_t count = 0;
    while (true) {
        while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == ',')) ++s;
        if (s == end) break;
        const char* tok = s;
        while (s < end && *s != ' ' && *s != '\t' && *s != '\r' && *s != ',') ++s;
        // A leading '+' is allowed once ("+1"), never before another sign ("+-1").
        const char* start = (*tok == '+' && s - tok > 1 && tok[1] != '-' && tok[1] != '+') ? tok + 1 : tok;
        bool integer = true;
        for (const char* c = start; c < s; ++c)
            if (*c == '.' || *c == 'e' || *c == 'E' || *c == 'n' || *c == 'N' || *c == 'i' || *c == 'I')
                integer = false;
        std::from_chars_result r{};
        std::int64_t iv = 0;
        float fv = 0;
        if (integer) {
            r = std::from_chars(start, s, iv);
        } else {
            r = std::from_chars(start, s, fv);
            if (r.ec == std::errc::result_out_of_range) {  // overflow is an error, underflow is 0
                double d = 0;
                std::from_chars(start, s, d);
                if (std::fabs(d) >= 1.0) throw Error("value '" + std::string(tok, s) + "' is out of float32 range");
                fv = static_cast<float>(d);
                r.ec = std::errc();
            }
        }
        if (r.ptr != s || r.ec != std::errc()) {
            std::string shown(tok, std::size_t(std::min<std::ptrdiff_t>(s - tok, 40)));
            for (char& c : shown)
                if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
            if (integer && r.ec == std::errc::result_out_of_range)
                throw Error("integer '" + shown + "' is out of int64 range");
            throw Error("non-numeric value '" + shown + "'");
        }
        if (integer) out.add_int(iv);
        else out.add_float(fv);
        ++count;
        if (out.size() > out.max_values)
            throw Error("the tensor has more than " + std::to_string(out.max_values) +
                        " values (the record limit, TFM_MAX_RECORD_BYTES)");
    }
    return count;
}

template <class A, class T>
Record fill(const Shape& shape, const std::vector<T>& values) {
    A a = A::from_shape(shape);
    std::copy(values.begin(), values.end(), a.data());
    return a;
}

}  // namespace

std::optional<std::vector<std::int64_t>> parse_integers(std::string_view text) {
    std::vector<std::int64_t> out;
    const char* p = text.data();
    const char* end = p + text.size();
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (p < end) {
        while (p < end && space(*p)) ++p;
        if (p == end) break;
        std::int64_t v = 0;
        auto [next, ec] = std::from_chars(p, end, v);
        if (ec != std::errc() || (next < end && !space(*next))) return std::nullopt;
        out.push_back(v);
        p = next;
    }
    return out;
}

std::optional<Record> read_text_tensor(Input& in, std::size_t& line_no, std::uint64_t max_bytes) {
    std::string line;
    std::optional<Shape> declared;
    Numbers nums;
    nums.max_values = std::size_t(std::min<std::uint64_t>(max_bytes / sizeof(std::int64_t), SIZE_MAX));
    std::size_t rows = 0, cols = 0;
    // Skip blank lines and comments before the tensor, remembering a shape declaration.
    while (true) {
        if (!in.getline(line, kMaxTextLine)) {
            if (!declared) return std::nullopt;
            break;
        }
        ++line_no;
        if (is_blank(line)) {
            if (declared) break;  // "# shape: 0 64" then a blank line: an empty tensor
            continue;
        }
        if (auto s = shape_comment(line)) {
            if (declared) throw Error("line " + std::to_string(line_no) + ": two '# shape:' lines in a row");
            declared = std::move(s);
            continue;
        }
        if (is_comment(line)) continue;
        // First data row.
        try {
            cols = parse_row(line, nums);
        } catch (const Error& e) {
            throw Error("line " + std::to_string(line_no) + ": " + e.what());
        }
        rows = 1;
        break;
    }
    // Further rows until a blank line or end of input.
    while (rows > 0 && in.getline(line, kMaxTextLine)) {
        ++line_no;
        if (is_blank(line)) break;
        if (shape_comment(line)) {
            throw Error("line " + std::to_string(line_no) +
                        ": '# shape:' inside a tensor (separate tensors by a blank line)");
        }
        if (is_comment(line)) continue;
        std::size_t n;
        try {
            n = parse_row(line, nums);
        } catch (const Error& e) {
            throw Error("line " + std::to_string(line_no) + ": " + e.what());
        }
        if (n != cols)
            throw Error("line " + std::to_string(line_no) + ": ragged rows: this row has " +
                        std::to_string(n) + " values, the first row has " + std::to_string(cols));
        ++rows;
    }
    Shape shape = declared ? *declared : Shape{rows, cols};
    std::size_t numel = checked_numel(shape, std::size_t(1) << 40);
    if (numel != nums.size())
        throw Error("line " + std::to_string(line_no) + ": '# shape:' says " + shape_str(shape) + " (" +
                    std::to_string(numel) + " values) but the tensor has " +
                    std::to_string(nums.size()));
    if (declared && numel > 0 && !shape.empty() && cols != shape.back())
        throw Error("line " + std::to_string(line_no) + ": rows of " + std::to_string(cols) +
                    " values do not match shape " + shape_str(shape));
    if (nums.all_integers && numel > 0) return fill<IdArray>(shape, nums.ints);
    if (nums.all_integers) return fill<FloatArray>(shape, std::vector<float>());
    return fill<FloatArray>(shape, nums.floats);
}

namespace {

void append_number(std::string& s, float v) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    s.append(buf, r.ptr);
}
void append_number(std::string& s, std::int64_t v) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    s.append(buf, r.ptr);
}

template <class T>
void append_values(Output& out, const T* data, std::size_t n, std::size_t cols, std::size_t& col) {
    std::string s;
    s.reserve(std::min<std::size_t>(n, 8192) * 12);
    for (std::size_t i = 0; i < n; ++i) {
        append_number(s, data[i]);
        col = (col + 1) % cols;
        s += col == 0 ? '\n' : ' ';
        if (s.size() > (1u << 16)) {
            out.write(s);
            s.clear();
        }
    }
    out.write(s);
}

}  // namespace

std::string text_preamble(const Shape& shape) {
    std::size_t numel = 1;
    for (std::size_t d : shape) numel *= d;
    if (shape.size() == 2 && numel > 0) return "";
    std::string s = "# shape:";
    for (std::size_t d : shape) s += ' ' + std::to_string(d);
    return s + '\n';
}

void TextValueWriter::append(const float* data, std::size_t n) { append_values(out_, data, n, cols_, col_); }
void TextValueWriter::append(const std::int64_t* data, std::size_t n) {
    append_values(out_, data, n, cols_, col_);
}

}  // namespace tfm
