// Token labels as tfm-plot and tfm-view read them from a --labels line.
#pragma once

#include <string>
#include <vector>

namespace tfm::tool {

// The line's words: the runs between spaces and tabs, none empty.
std::vector<std::string> label_words(const std::string& line);

}  // namespace tfm::tool
