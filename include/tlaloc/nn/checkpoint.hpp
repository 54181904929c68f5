// Checkpoints: a model's parameters, the optimizer's state, the step count and free
// metadata in one safetensors file (other safetensors readers open it). Tensor names
// are prefixed "model." and "optim."; the step is the metadata entry "tlaloc.step".
#pragma once

#include <cstdint>
#include <filesystem>

#include "tlaloc/export.hpp"
#include "tlaloc/nn/params.hpp"
#include "tlaloc/nn/safetensors.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::nn {

struct Checkpoint {
  Params model;
  Params optimizer_state;
  std::int64_t step = 0;
  Metadata metadata;  // the caller's own entries, without the "tlaloc." ones
};

// Written atomically (a temporary file in the same directory, fsync, rename over
// `path`, fsync of the directory): a crash mid-write leaves the previous checkpoint
// intact. Metadata keys starting with "tlaloc." are reserved.
void save_checkpoint(const std::filesystem::path& path, const Params& model, const Params& optimizer_state,
                     std::int64_t step, const Metadata& metadata = {});

Checkpoint load_checkpoint(const std::filesystem::path& path);
// Also checks the file holds exactly the names of `expected_model` and
// `expected_optimizer_state`, with their shapes and dtypes, and returns the tensors
// in the expected order. A mismatch is refused, naming the parameter.
Checkpoint load_checkpoint(const std::filesystem::path& path, const Params& expected_model,
                           const Params& expected_optimizer_state);

}  // namespace tlaloc::nn
TLALOC_PUBLIC_END
