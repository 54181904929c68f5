// Elementwise fusion for the interpreter. A run of elementwise ops over tensors of
// one shape becomes one `fusion` op whose region holds them; the interpreter runs
// the region chunk by chunk (each chunk small enough to stay in cache), calling
// the ops' own kernels, so the results are the bits the unfused ops give.
#pragma once

#include <memory>
#include <span>

#include "ir/ir.hpp"

namespace tlaloc::interp {

using detail::Attrs;
using detail::OpDef;
using detail::TensorType;

// Ops with fewer elements than this are left alone: the chunking would cost more
// than the memory traffic it saves.
inline constexpr std::int64_t kFusionMinElements = std::int64_t(1) << 16;

// Groups runs of fusible ops into `fusion` ops (top-level ops of each region).
ir::Function fuse(const ir::Function& f);
bool is_fusion(const ir::Op& op);

// A fusion op prepared to run: where each region value lives while a chunk runs.
class FusionPlan {
 public:
  FusionPlan(const ir::Function& f, const ir::Op& op);
  std::vector<Tensor> run(std::span<const Tensor> in) const;

 private:
  struct Step {
    const OpDef* def;
    const Attrs* attrs;
    std::vector<int> in;
    int out;
    DType dtype;
  };
  std::vector<Tensor> run_chunk(std::span<const Tensor> in, std::int64_t begin, std::int64_t len) const;

  Shape shape_;
  std::int64_t numel_ = 0;
  int slots_ = 0;
  std::vector<Step> steps_;
  std::vector<int> results_;  // slots of the fusion's results
  std::vector<TensorType> result_types_;
};

}  // namespace tlaloc::interp
