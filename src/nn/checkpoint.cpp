// Checkpoints as one safetensors file: "model." and "optim." name prefixes keep the
// two sets of tensors apart, and the reserved "tlaloc." metadata keys carry the step
// and a format tag, so a file that is not a checkpoint is refused by name.
#include "tlaloc/nn/checkpoint.hpp"

#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tlaloc::nn {
namespace {

constexpr std::string_view format_key = "tlaloc.format";
constexpr std::string_view format_value = "checkpoint/1";
constexpr std::string_view step_key = "tlaloc.step";
constexpr std::string_view reserved = "tlaloc.";

// Checks a set of loaded tensors against the expected names, shapes and dtypes and
// returns them in the expected order.
Params match(const Params& loaded, const Params& expected, std::string_view what, std::string_view who,
             const std::string& file) {
  std::vector<std::string> missing, unexpected;
  for (const auto& [name, t] : expected)
    if (!loaded.contains(name)) missing.push_back(name);
  for (const auto& [name, t] : loaded)
    if (!expected.contains(name)) unexpected.push_back(name);
  if (!missing.empty() || !unexpected.empty())
    throw ValueError(fmt::format("{}: {}: the {} does not match: missing [{}], unexpected [{}]", who, file, what,
                                 fmt::join(missing, ", "), fmt::join(unexpected, ", ")));
  Params out;
  for (const auto& [name, want] : expected) {
    const Tensor& got = loaded.at(name);
    if (got.dtype() != want.dtype())
      throw DTypeError(fmt::format("{}: {}: {} '{}' is {} in the file but {} is expected", who, file, what, name,
                                   dtype_name(got.dtype()), dtype_name(want.dtype())));
    if (got.shape() != want.shape())
      throw ShapeError(fmt::format("{}: {}: {} '{}' has shape {} in the file but {} is expected", who, file, what,
                                   name, shape_string(got.shape()), shape_string(want.shape())));
    out.set(name, got);
  }
  return out;
}

}  // namespace

void save_checkpoint(const std::filesystem::path& path, const Params& model, const Params& optimizer_state,
                     std::int64_t step, const Metadata& metadata) {
  Metadata meta;
  for (const auto& [key, value] : metadata) {
    if (key.starts_with(reserved))
      throw ValueError(fmt::format("tl::nn::save_checkpoint: the metadata key '{}' is reserved (it starts with '{}')",
                                   key, reserved));
    meta.emplace(key, value);
  }
  meta.emplace(format_key, format_value);
  meta.emplace(step_key, std::to_string(step));
  Params all = model.prefixed("model");
  for (const auto& [name, t] : optimizer_state.prefixed("optim")) all.set(name, t);
  save_safetensors(path, all, meta);
}

Checkpoint load_checkpoint(const std::filesystem::path& path) {
  constexpr std::string_view who = "tl::nn::load_checkpoint";
  const std::string file = path.string();
  SafeTensors st = load_safetensors(path);
  auto format = st.metadata.find(std::string(format_key));
  if (format == st.metadata.end() || format->second != format_value)
    throw ValueError(fmt::format("{}: {}: not a tlaloc checkpoint (no '{}: {}' in the metadata)", who, file,
                                 format_key, format_value));
  Checkpoint c;
  auto found = st.metadata.find(std::string(step_key));
  if (found == st.metadata.end()) throw ValueError(fmt::format("{}: {}: no '{}' in the metadata", who, file, step_key));
  const std::string& step = found->second;
  const auto [end, err] = std::from_chars(step.data(), step.data() + step.size(), c.step);
  if (step.empty() || err != std::errc() || end != step.data() + step.size())
    throw ValueError(fmt::format("{}: {}: the step '{}' is not an integer", who, file, step));
  for (auto& [key, value] : st.metadata)
    if (!key.starts_with(reserved)) c.metadata.emplace(key, value);
  for (const auto& [name, t] : st.tensors) {
    if (name.starts_with("model.")) c.model.set(name.substr(6), t);
    else if (name.starts_with("optim.")) c.optimizer_state.set(name.substr(6), t);
    else
      throw ValueError(fmt::format("{}: {}: tensor '{}' is neither 'model.' nor 'optim.'", who, file, name));
  }
  return c;
}

Checkpoint load_checkpoint(const std::filesystem::path& path, const Params& expected_model,
                           const Params& expected_optimizer_state) {
  constexpr std::string_view who = "tl::nn::load_checkpoint";
  Checkpoint c = load_checkpoint(path);
  c.model = match(c.model, expected_model, "model parameter", who, path.string());
  c.optimizer_state = match(c.optimizer_state, expected_optimizer_state, "optimizer state", who, path.string());
  return c;
}

}  // namespace tlaloc::nn
