// The explorer page's fixed parts, compiled in from explorer.html, explorer.css and
// explorer.js beside this file (CMake writes explorer_assets.cpp from explorer_assets.cpp.in).
#pragma once

namespace tfm {

extern const char* const kExplorerBody;  // the page's markup, between <body> and the data
extern const char* const kExplorerCss;
extern const char* const kExplorerJs;

}  // namespace tfm
