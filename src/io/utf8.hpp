// UTF-8 validation: safetensors headers, names and metadata must be UTF-8.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace tlaloc::io {

// The offset of the first byte that is not part of well-formed UTF-8 (overlong
// forms, surrogates and code points past U+10FFFF included), or nothing when all is.
std::optional<std::size_t> invalid_utf8_at(std::string_view s);

}  // namespace tlaloc::io
