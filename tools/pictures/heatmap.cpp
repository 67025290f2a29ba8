#include "pictures/heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tfm/base/base64.hpp"
#include "tfm/base/error.hpp"
#include "tfm/base/markup.hpp"
#include "tfm/base/utf8.hpp"
#include "pictures/bitmap_font.hpp"

namespace tfm {

HeatmapLayout heatmap_layout(const std::vector<ConstMat>& panels, const HeatmapOptions& opt) {
    if (panels.empty()) throw Error("heatmap: nothing to draw");
    HeatmapLayout l;
    std::size_t rows = 0, cols = 0;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const ConstMat& p : panels) {
        if (p.rows == 0 || p.cols == 0) throw Error("heatmap: an empty matrix");
        rows = std::max(rows, p.rows), cols = std::max(cols, p.cols);
        for (std::size_t i = 0; i < p.rows; ++i)
            for (std::size_t j = 0; j < p.cols; ++j) {
                const double v = p.data[i * p.ld + j];
                if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
            }
    }
    l.cell = opt.cell ? opt.cell : std::clamp<std::size_t>(360 / std::max(rows, cols), 1, 24);
    l.grid_cols = std::size_t(std::ceil(std::sqrt(double(panels.size()))));
    l.grid_rows = (panels.size() + l.grid_cols - 1) / l.grid_cols;
    l.width = l.grid_cols * cols * l.cell + (l.grid_cols - 1) * l.gap;
    l.height = l.grid_rows * rows * l.cell + (l.grid_rows - 1) * l.gap;
    if (double(l.width) * double(l.height) > 1e8)
        throw Error("heatmap: " + std::to_string(l.width) + "x" + std::to_string(l.height) +
                    " pixels is too large (give a smaller cell size)");
    if (opt.lo != opt.hi) lo = opt.lo, hi = opt.hi;
    else if (!(lo <= hi)) lo = 0, hi = 1;  // nothing finite
    l.lo = lo, l.hi = hi;
    return l;
}

Image heatmap_image(const std::vector<ConstMat>& panels, const HeatmapOptions& opt) {
    const HeatmapLayout l = heatmap_layout(panels, opt);
    Image img(l.width, l.height);
    std::size_t rows = 0, cols = 0;
    for (const ConstMat& p : panels) rows = std::max(rows, p.rows), cols = std::max(cols, p.cols);
    for (std::size_t k = 0; k < panels.size(); ++k) {
        const ConstMat& p = panels[k];
        const std::size_t x0 = (k % l.grid_cols) * (cols * l.cell + l.gap), y0 = (k / l.grid_cols) * (rows * l.cell + l.gap);
        for (std::size_t i = 0; i < p.rows; ++i)
            for (std::size_t j = 0; j < p.cols; ++j) {
                const double v = p.data[i * p.ld + j];
                const double t = l.hi > l.lo ? (v - l.lo) / (l.hi - l.lo) : 0.5;
                img.fill_rect(x0 + j * l.cell, y0 + i * l.cell, l.cell, l.cell,
                              std::isinf(v) ? colormap(v > 0 ? 1.0 : 0.0) : colormap(t));
            }
    }
    return img;
}

std::string ascii_label(const std::string& label, std::size_t most) {
    // Latin-1 letters with diacritics (U+00C0..U+00FF) to their base letter; '?' where none.
    static const char* const latin1 = "AAAAAAACEEEEIIIIDNOOOOOxOUUUUYPsaaaaaaaceeeeiiiidnooooo/ouuuuypy";
    const std::string s = sanitize_utf8(label);
    std::string out;
    for (std::size_t i = 0; i < s.size() && out.size() < most;) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        len = std::min(len, s.size() - i);
        if (c < 0x80) {
            out += (c < 0x20 || c == 0x7f) ? '?' : char(c);
        } else if (s.compare(i, len, "\xE2\x96\x81") == 0) {
            out += '_';  // SentencePiece's word start
        } else if (len == 2 && (c == 0xC3)) {
            const unsigned cp = 0xC0 + (static_cast<unsigned char>(s[i + 1]) & 0x3F);
            const char base = latin1[cp - 0xC0];
            if (cp == 0xDF) out += "ss";
            else out += base;
        } else {
            out += '?';
        }
        i += len;
    }
    if (out.size() >= most && s.size() > out.size()) out.replace(out.size() - 2, 2, "..");
    return out;
}

Image heatmap_picture(const std::vector<ConstMat>& panels, const HeatmapOptions& opt, PictureLayout* where) {
    const HeatmapLayout l = heatmap_layout(panels, opt);
    const Image cells = heatmap_image(panels, opt);
    std::size_t rows = 0, cols = 0;
    for (const ConstMat& p : panels) rows = std::max(rows, p.rows), cols = std::max(cols, p.cols);
    PictureLayout g;
    g.text_scale = l.cell >= 16 ? 2 : 1;
    const int sc = g.text_scale;
    const std::size_t glyph_h = std::size_t(kGlyphHeight * sc);
    std::vector<std::string> row_labels, col_labels, titles;
    for (const auto& t : opt.row_labels) row_labels.push_back(ascii_label(t));
    for (const auto& t : opt.col_labels) col_labels.push_back(ascii_label(t));
    for (const auto& t : opt.titles) titles.push_back(ascii_label(t, 40));
    std::size_t row_w = 0, col_w = 0;
    for (const auto& t : row_labels) row_w = std::max(row_w, std::size_t(text_width(t, sc)));
    for (const auto& t : col_labels) col_w = std::max(col_w, std::size_t(text_width(t, sc)));
    const std::size_t label_left = row_labels.empty() ? 0 : row_w + 4;
    const std::size_t title_h = titles.empty() ? 0 : glyph_h + 4;
    const std::size_t label_below = col_labels.empty() ? 0 : col_w + 4;
    const std::size_t panel_w = cols * l.cell, panel_h = rows * l.cell;
    g.left = 4 + label_left;
    g.top = 4 + title_h;
    g.step_x = panel_w + l.gap + label_left;
    g.step_y = panel_h + l.gap + title_h + label_below;
    const std::size_t grid_w = l.grid_cols * g.step_x - l.gap - label_left;
    const std::size_t grid_h = l.grid_rows * g.step_y - l.gap - title_h - label_below;
    char hi[32], lo[32];
    std::snprintf(hi, sizeof hi, "%.3g", l.hi);
    std::snprintf(lo, sizeof lo, "%.3g", l.lo);
    const std::size_t scale_text = std::size_t(std::max(text_width(hi, sc), text_width(lo, sc)));
    g.bar_x = g.left + grid_w + 10;
    g.bar_y = g.top;
    g.bar_h = std::max<std::size_t>(40, panel_h);
    const std::size_t width = g.bar_x + 10 + 4 + scale_text + 4;
    const std::size_t height = std::max(g.top + grid_h + label_below, g.bar_y + g.bar_h + glyph_h) + 4;
    if (double(width) * double(height) > 1.2e8) throw Error("heatmap: the labelled picture is too large (give a smaller cell size)");
    Image img(width, height);
    const Rgb ink{0, 0, 0};
    for (std::size_t k = 0; k < panels.size(); ++k) {
        const std::size_t cx = (k % l.grid_cols) * (panel_w + l.gap), cy = (k / l.grid_cols) * (panel_h + l.gap);
        const std::size_t x0 = g.left + (k % l.grid_cols) * g.step_x, y0 = g.top + (k / l.grid_cols) * g.step_y;
        for (std::size_t y = 0; y < panel_h; ++y)
            for (std::size_t x = 0; x < panel_w; ++x) img.at(x0 + x, y0 + y) = cells.at(cx + x, cy + y);
        if (k < titles.size()) draw_text(img, int(x0), int(y0 - glyph_h - 2), titles[k], ink, sc);
        // One label every `every` rows or columns, so that none overlaps the next.
        const std::size_t every = (glyph_h + l.cell - 1) / l.cell;
        for (std::size_t i = 0; i < row_labels.size() && i < panels[k].rows; i += every) {
            const int w = text_width(row_labels[i], sc);
            const int y = int(y0 + i * l.cell + l.cell / 2) - int(glyph_h / 2);
            draw_text(img, int(x0) - 3 - w, y, row_labels[i], ink, sc);
        }
        for (std::size_t j = 0; j < col_labels.size() && j < panels[k].cols; j += every) {
            const int x = int(x0 + j * l.cell + l.cell / 2) - int(glyph_h / 2);
            draw_text_up(img, x, int(y0 + panels[k].rows * l.cell + 3 + std::size_t(text_width(col_labels[j], sc))),
                         col_labels[j], ink, sc);
        }
    }
    for (std::size_t y = 0; y < g.bar_h; ++y)  // the colour scale, high at the top
        img.fill_rect(g.bar_x, g.bar_y + y, 10, 1, colormap(g.bar_h > 1 ? 1.0 - double(y) / double(g.bar_h - 1) : 0.5));
    draw_text(img, int(g.bar_x + 14), int(g.bar_y), hi, ink, sc);
    draw_text(img, int(g.bar_x + 14), int(g.bar_y + g.bar_h) - int(glyph_h), lo, ink, sc);
    if (where) *where = g;
    return img;
}

std::string heatmap_svg(const std::vector<ConstMat>& panels, const HeatmapOptions& opt) {
    const HeatmapLayout l = heatmap_layout(panels, opt);
    std::size_t rows = 0, cols = 0;
    for (const ConstMat& p : panels) rows = std::max(rows, p.rows), cols = std::max(cols, p.cols);
    const bool labels = !opt.row_labels.empty() || !opt.col_labels.empty();
    const double font = std::clamp(double(l.cell) * 0.8, 7.0, 12.0);
    const double left = opt.row_labels.empty() ? 10 : 10 + font * 0.6 * 12, top = opt.titles.empty() ? 10 : 10 + font * 1.6;
    const double bottom = opt.col_labels.empty() ? 10 : 10 + font * 0.6 * 12, right = 60;
    const double w = left + double(l.width) + right, h = top + double(l.height) + bottom;
    std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(int(w)) + "\" height=\"" +
                    std::to_string(int(h)) + "\" font-family=\"sans-serif\" font-size=\"" + std::to_string(int(font)) +
                    "\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    s += "<image x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(top) + "\" width=\"" + std::to_string(l.width) +
         "\" height=\"" + std::to_string(l.height) + "\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64," +
         base64(encode_png(heatmap_image(panels, opt))) + "\"/>\n";
    for (std::size_t k = 0; k < panels.size(); ++k) {
        const double x0 = left + double((k % l.grid_cols) * (cols * l.cell + l.gap));
        const double y0 = top + double((k / l.grid_cols) * (rows * l.cell + l.gap));
        if (k < opt.titles.size())
            s += "<text x=\"" + std::to_string(x0) + "\" y=\"" + std::to_string(y0 - font * 0.4) + "\">" +
                 xml_escape(opt.titles[k]) + "</text>\n";
        if (!labels) continue;
        for (std::size_t i = 0; i < opt.row_labels.size() && i < panels[k].rows; ++i)
            s += "<text x=\"" + std::to_string(x0 - 3) + "\" y=\"" + std::to_string(y0 + (double(i) + 0.75) * double(l.cell)) +
                 "\" text-anchor=\"end\">" + xml_escape(opt.row_labels[i]) + "</text>\n";
        const double yb = y0 + double(panels[k].rows * l.cell) + 3;
        for (std::size_t j = 0; j < opt.col_labels.size() && j < panels[k].cols; ++j) {
            const double x = x0 + (double(j) + 0.75) * double(l.cell);
            s += "<text transform=\"translate(" + std::to_string(x) + "," + std::to_string(yb) +
                 ") rotate(90)\">" + xml_escape(opt.col_labels[j]) + "</text>\n";
        }
    }
    // The colour scale: a bar with its two ends.
    const double bx = left + double(l.width) + 15, bh = std::max(40.0, double(l.height));
    for (int i = 0; i < 32; ++i)
        s += "<rect x=\"" + std::to_string(bx) + "\" y=\"" + std::to_string(top + bh * (31 - i) / 32.0) +
             "\" width=\"10\" height=\"" + std::to_string(bh / 32.0 + 0.5) + "\" fill=\"" + hex(colormap(i / 31.0)) + "\"/>\n";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", l.hi);
    s += "<text x=\"" + std::to_string(bx + 12) + "\" y=\"" + std::to_string(top + font) + "\">" + buf + "</text>\n";
    std::snprintf(buf, sizeof buf, "%.3g", l.lo);
    s += "<text x=\"" + std::to_string(bx + 12) + "\" y=\"" + std::to_string(top + bh) + "\">" + buf + "</text>\n";
    return s + "</svg>\n";
}

}  // namespace tfm
