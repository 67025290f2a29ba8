// The explorer page of an AttentionView: one self-contained HTML file (its script, style and
// data inline; a Content-Security-Policy that forbids every fetch), opened from file:// with
// no network. The data rides as JSON, the arrays in one deflated (zlib) buffer in base64 that
// the page inflates with the browser's DecompressionStream: float32, or in a compact page the
// weights of every layer as 16-bit fixed point (n / 65535) and the step vectors and scores as
// float16, the step view's softmax staying float32.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tfm/view/attention_view.hpp"

namespace tfm {

enum class PagePrecision { Auto, Float32, Float16 };
// "auto" | "float32" | "float16"; anything else is a UsageError.
PagePrecision parse_page_precision(const std::string& name);

// Auto keeps float32 while the page's arrays (deflated, in base64) stay under this many bytes,
// else makes the page compact.
constexpr std::size_t kPageFloat32Budget = std::size_t(1600) << 10;

struct Page {
    std::string html;
    bool compact = false;  // the 16-bit arrays were used
};

Page explorer_page(const AttentionView& view, PagePrecision precision);

}  // namespace tfm
