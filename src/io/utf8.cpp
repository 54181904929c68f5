#include "io/utf8.hpp"

#include <cstdint>

namespace tlaloc::io {

std::optional<std::size_t> invalid_utf8_at(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = std::uint8_t(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    // Lead byte: how many continuation bytes follow, and the smallest and largest
    // allowed second byte (these bounds rule out overlong forms and surrogates).
    std::size_t n = 0;
    std::uint8_t lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c == 0xe0) n = 2, lo = 0xa0;
    else if (c >= 0xe1 && c <= 0xec) n = 2;
    else if (c == 0xed) n = 2, hi = 0x9f;
    else if (c >= 0xee && c <= 0xef) n = 2;
    else if (c == 0xf0) n = 3, lo = 0x90;
    else if (c >= 0xf1 && c <= 0xf3) n = 3;
    else if (c == 0xf4) n = 3, hi = 0x8f;
    else return i;
    if (n > s.size() - 1 - i) return i;  // the sequence runs past the end
    for (std::size_t k = 1; k <= n; ++k) {
      const auto b = std::uint8_t(s[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xbf)) return i;
    }
    i += n + 1;
  }
  return std::nullopt;
}

}  // namespace tlaloc::io
