// Text inside XML and HTML (SVG labels, tfm-view's page title): valid UTF-8, the markup
// characters escaped.
#pragma once

#include <string>
#include <string_view>

namespace tfm {

// Invalid UTF-8 replaced by U+FFFD; < > & " escaped; the control characters XML 1.0 forbids
// (all below 0x20 but tab, newline, CR; and DEL) replaced by '?'.
std::string xml_escape(std::string_view raw);

}  // namespace tfm
