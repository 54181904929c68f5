// SHA-256 (OpenSSL's libcrypto) as lower-case hex: the artifact's content hashes.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace tlaloc::io {

std::string sha256_hex(std::span<const std::byte> bytes);
inline std::string sha256_hex(std::string_view text) { return sha256_hex(std::as_bytes(std::span(text))); }

}  // namespace tlaloc::io
