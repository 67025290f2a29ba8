#include "pictures/image.hpp"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tfm/base/error.hpp"

namespace tfm {

void Image::fill_rect(std::size_t x0, std::size_t y0, std::size_t w, std::size_t h, Rgb c) {
    for (std::size_t y = y0; y < std::min(height, y0 + h); ++y)
        for (std::size_t x = x0; x < std::min(width, x0 + w); ++x) at(x, y) = c;
}

void Image::line(double x0, double y0, double x1, double y1, Rgb c) {
    const double steps = std::max({std::fabs(x1 - x0), std::fabs(y1 - y0), 1.0});
    for (double s = 0; s <= steps; ++s) {
        const double x = x0 + (x1 - x0) * s / steps, y = y0 + (y1 - y0) * s / steps;
        if (x >= 0 && y >= 0 && x < double(width) && y < double(height)) at(std::size_t(x), std::size_t(y)) = c;
    }
}

namespace {

void put32(std::string& s, std::uint32_t v) {
    for (int i = 3; i >= 0; --i) s += char((v >> (8 * i)) & 0xff);
}

void chunk(std::string& out, const char* type, const std::string& data) {
    put32(out, std::uint32_t(data.size()));
    std::string body = std::string(type, 4) + data;
    out += body;
    put32(out, std::uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(body.data()), uInt(body.size()))));
}

}  // namespace

std::string encode_png(const Image& img) {
    if (img.width == 0 || img.height == 0 || img.width > (1u << 24) || img.height > (1u << 24))
        throw Error("png: image of " + std::to_string(img.width) + "x" + std::to_string(img.height) + " pixels");
    std::string raw;
    raw.reserve(img.height * (1 + 3 * img.width));
    for (std::size_t y = 0; y < img.height; ++y) {
        raw += '\0';  // filter: none
        for (std::size_t x = 0; x < img.width; ++x) {
            const Rgb& p = img.at(x, y);
            raw += char(p.r), raw += char(p.g), raw += char(p.b);
        }
    }
    uLongf size = compressBound(uLong(raw.size()));
    std::string z(size, '\0');
    if (compress2(reinterpret_cast<Bytef*>(&z[0]), &size, reinterpret_cast<const Bytef*>(raw.data()), uLong(raw.size()),
                  6) != Z_OK)
        throw Error("png: compression failed");
    z.resize(size);
    std::string out("\x89PNG\r\n\x1a\n", 8), ihdr;
    put32(ihdr, std::uint32_t(img.width));
    put32(ihdr, std::uint32_t(img.height));
    ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bits, RGB, deflate, filter 0, no interlace
    chunk(out, "IHDR", ihdr);
    chunk(out, "IDAT", z);
    chunk(out, "IEND", "");
    return out;
}

Rgb colormap(double t) {
    if (std::isnan(t)) return {255, 0, 255};
    t = std::clamp(t, 0.0, 1.0);
    // viridis at nine stops, interpolated linearly
    static const double stops[9][3] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},  {44, 113, 142}, {33, 144, 141},
                                       {39, 173, 129}, {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};
    const double f = t * 8.0;
    const std::size_t i = std::min<std::size_t>(7, std::size_t(f));
    const double u = f - double(i);
    auto mix = [&](int c) { return std::uint8_t(std::lround(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * u)); };
    return {mix(0), mix(1), mix(2)};
}

std::string hex(Rgb c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

}  // namespace tfm
