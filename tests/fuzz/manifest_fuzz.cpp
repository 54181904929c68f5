// libFuzzer target for an artifact's manifest.json: any bytes must either read or
// give a tlaloc::Error; what reads must write out and read back the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "serve/manifest.hpp"
#include "tlaloc/error.hpp"

namespace detail = tlaloc::serve::detail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  detail::Manifest m;
  try {
    m = detail::manifest_from_json(std::string(reinterpret_cast<const char*>(data), size), "manifest.json");
  } catch (const tlaloc::Error&) {
    return 0;
  }
  m.content_hash = detail::content_hash(m);
  const std::string written = detail::to_json(m);
  const detail::Manifest again = detail::manifest_from_json(written, "written.json");
  if (detail::to_json(again) != written) std::abort();  // a manifest that does not survive its own writer
  return 0;
}
