#include "tfm/io/stream.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <xtensor/xmanipulation.hpp>

#include "tfm/base/error.hpp"
#include "tfm/io/text_tensor.hpp"

namespace tfm {

Format parse_format(const std::string& name) {
    if (name == "npy") return Format::Npy;
    if (name == "text") return Format::Text;
    throw UsageError("unknown format '" + name + "' (expected npy or text)");
}

std::uint64_t max_record_bytes() {
    static const std::uint64_t limit = [] {
        const char* env = std::getenv("TFM_MAX_RECORD_BYTES");
        if (env && *env) {
            char* end = nullptr;
            unsigned long long v = std::strtoull(env, &end, 10);
            if (end && *end == '\0' && v > 0) return std::uint64_t(v);
        }
        return std::uint64_t(4) << 30;
    }();
    return limit;
}

TensorReader::TensorReader(Input& in) : in_(in) {}

std::optional<Record> TensorReader::next() {
    if (!format_) {
        std::string_view head = in_.peek(kNpyMagic.size());
        if (head.empty()) return std::nullopt;
        format_ = (head[0] == kNpyMagic[0]) ? Format::Npy : Format::Text;
    }
    try {
        if (*format_ == Format::Npy) {
            if (in_.at_end()) return std::nullopt;
            Record r = read_npy();
            ++count_;
            return r;
        }
        auto r = read_text_tensor(in_, line_no_, max_record_bytes());
        if (r) ++count_;
        return r;
    } catch (const BrokenPipe&) {
        throw;
    } catch (const Error& e) {
        throw record_error(count_, e.what());
    }
}

Record TensorReader::expect(const std::string& what) {
    auto r = next();
    if (!r) {
        throw record_error(count_, count_ == 0 ? "empty input (expected " + what + ")"
                                               : "stream ended (expected " + what + ")");
    }
    return std::move(*r);
}

namespace {

std::uint64_t read_le(const unsigned char* p, int n) {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

void read_exact(Input& in, void* dst, std::size_t n, const char* what) {
    std::size_t got = in.read(dst, n);
    if (got != n)
        throw Error(std::string("truncated ") + what + ": expected " + std::to_string(n) +
                    " bytes, got " + std::to_string(got));
}

void byteswap(char* p, std::size_t count, std::size_t width) {
    for (std::size_t i = 0; i < count; ++i) std::reverse(p + i * width, p + (i + 1) * width);
}

// Reads numel elements of `from` into dst (of type To), converting in bounded chunks.
template <class To>
void read_converted(Input& in, To* dst, std::size_t numel, const NpyHeader& h) {
    const std::size_t width = dtype_size(h.dtype);
    if (sizeof(To) == width && !h.big_endian &&
        (std::is_floating_point_v<To> == (h.dtype == DType::F32 || h.dtype == DType::F64))) {
        read_exact(in, dst, numel * width, "data");
        return;
    }
    constexpr std::size_t kBlock = 1 << 16;
    std::vector<char> buf(kBlock * width);
    for (std::size_t at = 0; at < numel; at += kBlock) {
        std::size_t n = std::min(kBlock, numel - at);
        read_exact(in, buf.data(), n * width, "data");
        if (h.big_endian) byteswap(buf.data(), n, width);
        for (std::size_t i = 0; i < n; ++i) {
            const char* src = buf.data() + i * width;
            switch (h.dtype) {
                case DType::F32: { float v; std::memcpy(&v, src, 4); dst[at + i] = static_cast<To>(v); break; }
                case DType::F64: {
                    double v;
                    std::memcpy(&v, src, 8);
                    // A finite float64 past float32's range would become Inf: refused, not changed.
                    if (std::is_same_v<To, float> && std::isfinite(v) && std::fabs(v) > double(FLT_MAX))
                        throw Error("float64 value " + std::to_string(v) + " at element " + std::to_string(at + i) +
                                    " is outside float32's range");
                    dst[at + i] = static_cast<To>(v);
                    break;
                }
                case DType::I32: { std::int32_t v; std::memcpy(&v, src, 4); dst[at + i] = static_cast<To>(v); break; }
                case DType::I64: { std::int64_t v; std::memcpy(&v, src, 8); dst[at + i] = static_cast<To>(v); break; }
            }
        }
    }
}

template <class A>
Record read_array(Input& in, const NpyHeader& h, std::size_t numel) {
    Shape stored = h.shape;
    if (h.fortran_order) std::reverse(stored.begin(), stored.end());
    A a = A::from_shape(stored);
    read_converted(in, a.data(), numel, h);
    if (h.fortran_order && stored.size() > 1) {
        A c = xt::transpose(a);
        return c;
    }
    return a;
}

}  // namespace

Record TensorReader::read_npy() {
    unsigned char pre[12];
    std::size_t got = in_.read(pre, 8);
    if (got < kNpyMagic.size() || std::memcmp(pre, kNpyMagic.data(), kNpyMagic.size()) != 0) {
        if (got >= kNpyMagic.size() || (got > 0 && std::memcmp(pre, kNpyMagic.data(), got) != 0))
            throw Error("bad magic (not a .npy array)");
        throw Error("truncated header: " + std::to_string(got) + " bytes");
    }
    if (got < 8) throw Error("truncated header: " + std::to_string(got) + " bytes");
    unsigned major = pre[6];
    if (major < 1 || major > 3 || pre[7] != 0)  // numpy writes and reads 1.0, 2.0 and 3.0 only
        throw Error("unsupported .npy version " + std::to_string(major) + "." + std::to_string(pre[7]));
    int len_bytes = major == 1 ? 2 : 4;
    read_exact(in_, pre + 8, std::size_t(len_bytes), "header");
    std::uint64_t header_len = read_le(pre + 8, len_bytes);
    if (header_len > kMaxNpyHeader)
        throw Error("header of " + std::to_string(header_len) + " bytes exceeds the limit of " +
                    std::to_string(kMaxNpyHeader));
    std::string dict(header_len, '\0');
    read_exact(in_, dict.data(), dict.size(), "header");
    NpyHeader h = parse_npy_header(dict);
    std::uint64_t limit = max_record_bytes();
    std::size_t numel = checked_numel(h.shape, limit / dtype_size(h.dtype));
    std::uint64_t bytes = std::uint64_t(numel) * dtype_size(h.dtype);
    if (auto left = in_.remaining(); left && bytes > *left)
        throw Error("shape " + shape_str(h.shape) + " of " + dtype_name(h.dtype) + " needs " +
                    std::to_string(bytes) + " bytes but only " + std::to_string(*left) +
                    " remain in the input");
    if (h.dtype == DType::F32 || h.dtype == DType::F64) return read_array<FloatArray>(in_, h, numel);
    return read_array<IdArray>(in_, h, numel);
}

TensorWriter::TensorWriter(Output& out, Format format)
    : out_(out), format_(format == Format::Npy && out.is_terminal() ? Format::Text : format) {}

void TensorWriter::begin(DType dtype, const Shape& shape) {
    if (open_) throw Error("internal: TensorWriter::begin inside a record");
    if (dtype != DType::F32 && dtype != DType::I64) throw Error("internal: writers emit float32 or int64");
    dtype_ = dtype;
    expected_ = checked_numel(shape, SIZE_MAX / 8);
    appended_ = 0;
    open_ = true;
    if (format_ == Format::Text) {
        out_.write(text_preamble(shape));
        text_.emplace(out_, shape.empty() ? 1 : shape.back());
    } else {
        out_.write(npy_preamble(dtype, shape));
    }
}

template <class T>
void TensorWriter::append_values(const T* data, std::size_t n, DType dtype) {
    if (!open_ || dtype != dtype_ || appended_ + n > expected_)
        throw Error("internal: TensorWriter::append does not match the record begun");
    appended_ += n;
    if (format_ == Format::Text)
        text_->append(data, n);
    else
        out_.write(data, n * sizeof(T));
}

void TensorWriter::append(const float* data, std::size_t n) { append_values(data, n, DType::F32); }
void TensorWriter::append(const std::int64_t* data, std::size_t n) { append_values(data, n, DType::I64); }

void TensorWriter::end() {
    if (!open_ || appended_ != expected_)
        throw Error("internal: TensorWriter::end after " + std::to_string(appended_) + " of " +
                    std::to_string(expected_) + " values");
    open_ = false;
    if (format_ == Format::Text) out_.write("\n");
}

void TensorWriter::write(const float* data, const Shape& shape) {
    begin(DType::F32, shape);
    append(data, expected_);
    end();
}

void TensorWriter::write(const std::int64_t* data, const Shape& shape) {
    begin(DType::I64, shape);
    append(data, expected_);
    end();
}

void TensorWriter::write(const Record& r) {
    std::visit([this](const auto& a) { write(a); }, r);
}

}  // namespace tfm
