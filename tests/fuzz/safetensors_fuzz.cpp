// libFuzzer target for the safetensors reader (checkpoints and artifacts' weights):
// any bytes must either read or give a tlaloc::Error. A crash, a sanitizer report or
// any other exception is a finding.
#include <cstddef>
#include <cstdint>
#include <span>
#include <tlaloc/nn/safetensors.hpp>

#include "tlaloc/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const tlaloc::nn::SafeTensors s = tlaloc::nn::from_safetensors(std::span(data, size), "fuzz.safetensors");
    // What was read is whole: every tensor's bytes can be read back.
    for (const auto& [name, t] : s.tensors) (void)t.raw_data();
  } catch (const tlaloc::Error&) {
  }
  return 0;
}
