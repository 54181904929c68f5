// libFuzzer target for the StableHLO parser: any bytes must either parse or give
// a tlaloc::Error. A crash, a sanitizer report or any other exception is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "stablehlo/stablehlo.hpp"
#include "tlaloc/error.hpp"

namespace sh = tlaloc::stablehlo;

namespace {

// A module that parses must also print: the emitter sees only verified IR.
void parse_and_emit(std::string_view text, int first_line) {
  try {
    // Small constants only: the fuzzer's memory limit is 2 GiB.
    const tlaloc::ir::Module m = sh::parse(text, "fuzz.mlir", first_line, {.max_constant_bytes = 1 << 24});
    (void)sh::emit(m);
    (void)sh::emit(m, {.generic = true, .module_name = {}});
  } catch (const tlaloc::Error&) {
    // Refusing bad input with an error is the expected outcome.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  parse_and_emit(text, 1);
  const std::vector<sh::Split> pieces = sh::split_input(text);
  if (pieces.size() > 1)
    for (const sh::Split& piece : pieces) parse_and_emit(piece.text, piece.first_line);
  return 0;
}
