// One number as printf writes it ("%.6f", "%.4g"): the figures tools and logs print.
#pragma once

#include <cstdio>
#include <string>

namespace tfm {

inline std::string number_text(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

}  // namespace tfm
