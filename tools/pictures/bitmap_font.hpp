// Text in raster images: a 5x7 pixel font of printable ASCII (letters, digits, the punctuation
// of plot labels) drawn into an Image, for the labels of PNG plots.
#pragma once

#include <string>

#include "pictures/image.hpp"

namespace tfm {

constexpr int kGlyphWidth = 6, kGlyphHeight = 8;  // advance and line height at scale 1, in pixels

// Draws text with its top-left corner at (x, y), scale pixels per font pixel; characters the
// font lacks are drawn as '?'; UTF-8 '·' as a centred dot. Clipped at the image's edges.
void draw_text(Image& img, int x, int y, const std::string& text, Rgb color, int scale = 1);
// The same turned a quarter counter-clockwise (reading upwards), bottom-left at (x, y).
void draw_text_up(Image& img, int x, int y, const std::string& text, Rgb color, int scale = 1);
// Width in pixels of text drawn at this scale.
int text_width(const std::string& text, int scale = 1);

}  // namespace tfm
