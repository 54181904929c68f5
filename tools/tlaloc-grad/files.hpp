// Reading and writing the tool's files (outputs, depfiles, cache entries).
#pragma once

#include <optional>
#include <string>

namespace tlaloc_grad {

// A file's whole text, or nothing when it cannot be read.
std::optional<std::string> read_text(const std::string& path);

// Writes `text` to `path` unless it already holds it, so that unchanged outputs do
// not rebuild and cache entries keep their times. The file is replaced whole: another
// run of the tool reading it meanwhile sees the old text or the new. Returns whether
// `path` holds `text` after.
bool write_if_changed(const std::string& path, const std::string& text);

}  // namespace tlaloc_grad
