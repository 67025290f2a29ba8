// RGB images for plots and heatmaps: PNG (8-bit RGB, zlib-compressed, written by tfm itself)
// and a perceptually ordered colour map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tfm {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
    bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
};

struct Image {
    std::size_t width = 0, height = 0;
    std::vector<Rgb> pixels;  // row-major, top row first

    Image(std::size_t w, std::size_t h, Rgb fill = {255, 255, 255}) : width(w), height(h), pixels(w * h, fill) {}
    Rgb& at(std::size_t x, std::size_t y) { return pixels[y * width + x]; }
    const Rgb& at(std::size_t x, std::size_t y) const { return pixels[y * width + x]; }
    void fill_rect(std::size_t x0, std::size_t y0, std::size_t w, std::size_t h, Rgb c);  // clipped
    void line(double x0, double y0, double x1, double y1, Rgb c);                          // clipped
};

// The PNG file's bytes (signature, IHDR, one IDAT, IEND; CRCs; filter 0 on every row).
std::string encode_png(const Image& img);

// Value t in [0,1] (clamped; NaN -> magenta) to a colour of the viridis map, dark blue to yellow.
Rgb colormap(double t);

// "#rrggbb"
std::string hex(Rgb c);

}  // namespace tfm
