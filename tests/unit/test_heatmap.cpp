// PNG encoding, heatmaps and sweep plots: the PNG is decoded here (zlib) and its pixels checked.
#include <zlib.h>

#include "helpers.hpp"
#include "pictures/bitmap_font.hpp"
#include "pictures/heatmap.hpp"
#include "pictures/plot.hpp"

using namespace tfm;
using tfm_test::error_of;

namespace {

std::uint32_t be32(const std::string& s, std::size_t at) {
    return std::uint32_t(std::uint8_t(s[at])) << 24 | std::uint32_t(std::uint8_t(s[at + 1])) << 16 |
           std::uint32_t(std::uint8_t(s[at + 2])) << 8 | std::uint32_t(std::uint8_t(s[at + 3]));
}

// Decodes what encode_png writes (chunks checked by CRC; filter 0 rows) back to an image.
Image decode_png(const std::string& png) {
    REQUIRE(png.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) == 0);
    std::size_t at = 8, w = 0, h = 0;
    std::string idat;
    for (;;) {
        const std::uint32_t len = be32(png, at);
        const std::string type = png.substr(at + 4, 4), data = png.substr(at + 8, len);
        const std::string body = png.substr(at + 4, 4 + len);
        CHECK(be32(png, at + 8 + len) == crc32(0L, reinterpret_cast<const Bytef*>(body.data()), uInt(body.size())));
        if (type == "IHDR") {
            w = be32(data, 0), h = be32(data, 4);
            CHECK(data.substr(8, 5) == std::string("\x08\x02\0\0\0", 5));
        }
        if (type == "IDAT") idat += data;
        at += 12 + len;
        if (type == "IEND") break;
    }
    CHECK(at == png.size());
    std::string raw(h * (1 + 3 * w), '\0');
    uLongf n = uLongf(raw.size());
    REQUIRE(uncompress(reinterpret_cast<Bytef*>(&raw[0]), &n, reinterpret_cast<const Bytef*>(idat.data()),
                       uLong(idat.size())) == Z_OK);
    REQUIRE(n == raw.size());
    Image img(w, h);
    for (std::size_t y = 0; y < h; ++y) {
        CHECK(raw[y * (1 + 3 * w)] == 0);
        for (std::size_t x = 0; x < w; ++x) {
            const char* p = &raw[y * (1 + 3 * w) + 1 + 3 * x];
            img.at(x, y) = {std::uint8_t(p[0]), std::uint8_t(p[1]), std::uint8_t(p[2])};
        }
    }
    return img;
}

bool same(Rgb a, Rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

}  // namespace

TEST_CASE("heatmap: a known matrix becomes the PNG of its cells") {
    const float m[6] = {0.0f, 0.5f, 1.0f, 1.0f, 0.25f, 0.0f};  // [2,3]
    HeatmapOptions o;
    o.cell = 10;
    Image img = decode_png(encode_png(heatmap_image({mat(m, 2, 3)}, o)));
    CHECK(img.width == 30);
    CHECK(img.height == 20);
    // Every pixel of a cell has the cell's colour; the map runs dark purple (min) to yellow (max).
    for (std::size_t y = 0; y < 20; ++y)
        for (std::size_t x = 0; x < 30; ++x) REQUIRE(same(img.at(x, y), colormap(m[(y / 10) * 3 + x / 10])));
    CHECK(same(img.at(0, 0), Rgb{68, 1, 84}));
    CHECK(same(img.at(29, 0), Rgb{253, 231, 37}));
    CHECK(same(img.at(15, 5), colormap(0.5)));
}

TEST_CASE("heatmap: panels in a grid over one colour range; SVG labels; bad input") {
    const float a[4] = {0, 1, 2, 3}, b[4] = {4, 5, 6, 7}, c[4] = {0, 0, 0, 7};
    HeatmapOptions o;
    o.cell = 2;
    Image img = heatmap_image({mat(a, 2, 2), mat(b, 2, 2), mat(c, 2, 2)}, o);  // a 2 x 2 grid of panels, 4 px apart
    CHECK(img.width == 2 * 4 + 4);
    CHECK(img.height == 2 * 4 + 4);
    CHECK(same(img.at(0, 0), colormap(0.0)));              // a[0] = 0, the minimum of all panels
    CHECK(same(img.at(8 + 3, 3), colormap(1.0)));          // b[3] = 7, the maximum
    CHECK(same(img.at(5, 0), Rgb{255, 255, 255}));         // the gap
    CHECK(same(img.at(11, 11), Rgb{255, 255, 255}));       // the empty fourth place
    o.lo = 0, o.hi = 14;                                   // a given range
    CHECK(same(heatmap_image({mat(b, 2, 2)}, o).at(3, 3), colormap(0.5)));
    o.row_labels = {"ein", "<Hund>"};
    o.col_labels = {"a", "dog"};
    o.titles = {"head 0"};
    const std::string svg = heatmap_svg({mat(a, 2, 2)}, o);
    CHECK(svg.find("<svg") == 0);
    CHECK(svg.find("&lt;Hund&gt;") != std::string::npos);
    CHECK(svg.find(">dog</text>") != std::string::npos);
    CHECK(svg.find(">head 0</text>") != std::string::npos);
    CHECK(svg.find("data:image/png;base64,iVBORw0KGgo") != std::string::npos);  // the PNG signature in base64
    CHECK(error_of([] { heatmap_image({}, {}); }).find("nothing to draw") != std::string::npos);
    std::vector<float> big(10);
    HeatmapOptions huge;
    huge.cell = 256;
    CHECK(error_of([&] { heatmap_image({mat(big.data(), 1, 10)}, huge); }).empty());
    CHECK(error_of([] { Image none(0, 0); encode_png(none); }).find("png: image of 0x0") != std::string::npos);
}

TEST_CASE("plots: log-log sweeps as SVG, PNG and text") {
    PlotSeries a{"quadratic", {16, 32, 64, 128}, {1e-4, 4e-4, 1.6e-3, 6.4e-3}, {16, 128}, {1e-4, 6.4e-3}};
    PlotSeries b{"linear", {16, 32, 64, 128}, {1e-3, 2e-3, 4e-3, 8e-3}, {}, {}};
    PlotOptions o{"a sweep", "n", "time (s)"};
    const std::string svg = plot_svg({a, b}, o);
    CHECK(svg.find(">quadratic</text>") != std::string::npos);
    CHECK(svg.find(">linear</text>") != std::string::npos);
    CHECK(svg.find(">a sweep</text>") != std::string::npos);
    CHECK(svg.find("text-anchor=\"middle\">128</text>") != std::string::npos);  // an x tick at a measured n
    CHECK(svg.find("stroke-dasharray") != std::string::npos);                  // the fitted line
    Image img = plot_image({a, b}, o);
    CHECK(img.width == 720);
    CHECK(img.height == 440);
    std::size_t blue = 0, orange = 0;
    for (const Rgb& p : img.pixels) blue += same(p, Rgb{31, 119, 180}), orange += same(p, Rgb{255, 127, 14});
    CHECK(blue > 100);    // the first series' points, line and legend key
    CHECK(orange > 100);  // the second's
    const std::string text = plot_text({a, b}, o, 40, 10);
    CHECK(text.find("a sweep\n") == 0);
    CHECK(text.find("* quadratic") != std::string::npos);
    CHECK(text.find("+ linear") != std::string::npos);
    // Both series end at the top right: the largest time is on the first row, at the last column.
    const std::size_t first_row = text.find('\n') + 1;
    const std::string row0 = text.substr(first_row, text.find('\n', first_row) - first_row);
    CHECK(row0.find_first_of("*+") != std::string::npos);
    CHECK(error_of([] { plot_svg({PlotSeries{"none", {}, {}, {}, {}}}, {}); }).find("no positive points") !=
          std::string::npos);
}

TEST_CASE("bitmap font: glyph pixels where the font puts them, widths, rotation, unknown characters") {
    Image img(40, 10, Rgb{255, 255, 255});
    draw_text(img, 1, 1, "1-", Rgb{0, 0, 0});
    // '1' (rows .##.. at the top, .###. at the bottom) then '-' (its middle row full).
    CHECK(same(img.at(1 + 2, 1 + 0), Rgb{0, 0, 0}));
    CHECK(same(img.at(1 + 0, 1 + 0), Rgb{255, 255, 255}));
    CHECK(same(img.at(1 + 1, 1 + 6), Rgb{0, 0, 0}));
    for (int c = 0; c < 5; ++c) CHECK(same(img.at(std::size_t(1 + 6 + c), 1 + 3), Rgb{0, 0, 0}));
    CHECK(same(img.at(1 + 6, 1 + 2), Rgb{255, 255, 255}));
    CHECK(text_width("n^2·d") == 5 * kGlyphWidth);  // the middle dot is one character
    CHECK(text_width("ab", 2) == 2 * kGlyphWidth * 2);
    Image up(10, 40, Rgb{255, 255, 255});
    draw_text_up(up, 1, 30, "-", Rgb{0, 0, 0});  // the bar of '-' becomes a vertical bar at x = 1 + 3
    for (int c = 0; c < 5; ++c) CHECK(same(up.at(1 + 3, std::size_t(30 - c)), Rgb{0, 0, 0}));
    Image q(12, 10, Rgb{255, 255, 255}), q2(12, 10, Rgb{255, 255, 255});
    draw_text(q, 0, 0, "\xe6\x97\xa5", Rgb{0, 0, 0});  // a character the font lacks: drawn as '?'
    draw_text(q2, 0, 0, "?", Rgb{0, 0, 0});
    CHECK(q.pixels == q2.pixels);
    draw_text(q, 100, 100, "clipped", Rgb{0, 0, 0});  // off the image: nothing, no crash
}

TEST_CASE("heatmap picture: the cells, titles, labels and colour scale of a PNG for reports") {
    const float a[4] = {0.0f, 1.0f, 0.25f, 0.5f}, b[4] = {1.0f, 0.0f, 0.0f, 1.0f};  // two [2,2] heads
    HeatmapOptions o;
    o.cell = 20;
    o.titles = {"head 0", "head 1"};
    o.row_labels = o.col_labels = {"\xE2\x96\x81Hund", "f\xC3\xA4hrt"};
    PictureLayout g;
    const Image img = decode_png(encode_png(heatmap_picture({mat(a, 2, 2), mat(b, 2, 2)}, o, &g)));
    const Image cells = heatmap_image({mat(a, 2, 2), mat(b, 2, 2)}, o);
    // The cells are the bare image's, at the layout's offsets, panel by panel.
    for (std::size_t k = 0; k < 2; ++k)
        for (std::size_t i = 0; i < 2; ++i)
            for (std::size_t j = 0; j < 2; ++j) {
                CAPTURE(k);
                CAPTURE(i);
                CAPTURE(j);
                const std::size_t x = g.left + k * g.step_x + j * 20 + 10, y = g.top + i * 20 + 10;
                CHECK(same(img.at(x, y), cells.at(k * (40 + 4) + j * 20 + 10, i * 20 + 10)));
            }
    CHECK(same(img.at(g.left + 10, g.top + 30), colormap(0.25)));
    // The colour bar: yellow (the highest value) at its top, dark at its bottom.
    CHECK(same(img.at(g.bar_x + 5, g.bar_y), colormap(1.0)));
    CHECK(same(img.at(g.bar_x + 5, g.bar_y + g.bar_h - 1), colormap(0.0)));
    // Text is drawn where titles and labels go: dark pixels above the panel and at its left.
    auto dark_in = [&](std::size_t x0, std::size_t y0, std::size_t w, std::size_t h) {
        std::size_t n = 0;
        for (std::size_t y = y0; y < y0 + h && y < img.height; ++y)
            for (std::size_t x = x0; x < x0 + w && x < img.width; ++x)
                n += img.at(x, y).r < 80 && img.at(x, y).g < 80 && img.at(x, y).b < 80;
        return n;
    };
    CHECK(dark_in(g.left, 0, 40, g.top) > 10);                 // "head 0"
    CHECK(dark_in(0, g.top, g.left - 1, 40) > 10);             // the row labels
    CHECK(dark_in(g.left, g.top + 41, 40, img.height - g.top - 41) > 10);  // the column labels
    CHECK(dark_in(g.bar_x + 12, g.bar_y, 30, 20) > 5);        // "1" at the scale's top
    // Without text, no room for it: the cells start near the corner.
    HeatmapOptions plain;
    plain.cell = 20;
    PictureLayout p;
    heatmap_picture({mat(a, 2, 2)}, plain, &p);
    CHECK(p.left == 4);
    CHECK(p.top == 4);
}

TEST_CASE("heatmap picture: labels in the PNG font") {
    CHECK(ascii_label("\xE2\x96\x81Hund") == "_Hund");
    CHECK(ascii_label("f\xC3\xA4hrt Stra\xC3\x9F" "e") == "fahrt Strasse");
    CHECK(ascii_label("\xE4\xB8\xAD") == "?");  // no glyph: '?'
    CHECK(ascii_label("a\x01z") == "a?z");
    CHECK(ascii_label("abcdefghijklmnopqrstuvwxyz", 8) == "abcdef..");
}
