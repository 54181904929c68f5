// The two versions crash_writer alternates between, and how the harness tells them
// apart: every parameter of version v holds the value v.
#pragma once

#include <filesystem>
#include <tlaloc/nn.hpp>
#include <tlaloc/serve.hpp>
#include <tlaloc/tlaloc.hpp>

namespace crash {

// Large enough (4 MB of weights) that a write takes a while.
inline tlaloc::nn::Params params(int version) {
  tlaloc::nn::Params p;
  p.set("dense.weight", tlaloc::full({1024, 1024}, float(version)));
  p.set("dense.bias", tlaloc::full({1024}, float(version)));
  return p;
}

inline void write_checkpoint(const std::filesystem::path& dir, int version) {
  tlaloc::nn::save_checkpoint(dir / "model.ckpt", params(version), {}, version);
}

inline void write_artifact(const std::filesystem::path& dir, int version) {
  tlaloc::serve::export_function(
      dir / "artifact", "dense", params(version),
      [](const tlaloc::nn::Params& q, const tlaloc::Tensor& x) {
        return tlaloc::matmul(x, q.at("dense.weight")) + q.at("dense.bias");
      },
      {.inputs = {"x"}}, tlaloc::zeros({1, 1024}));
}

}  // namespace crash
