// What a tl::nn::Captured holds (src/nn/capture.cpp, src/nn/train_step.cpp).
#pragma once

#include <memory>

#include "tlaloc/nn/capture.hpp"
#include "tlaloc/transforms.hpp"

namespace tlaloc::nn {

struct Captured::Impl {
  LossOf loss;
  Params params;  // the example's
  Batch batch;
  std::shared_ptr<tlaloc::detail::TransformCache> grads = tlaloc::detail::make_cache("capture");
  std::shared_ptr<tlaloc::detail::TransformCache> forward = tlaloc::detail::make_cache("capture.loss");
};

}  // namespace tlaloc::nn
