// What a tl::nn::Captured holds (src/nn/capture.cpp, src/nn/train_step.cpp).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "tlaloc/nn/capture.hpp"
#include "tlaloc/transforms.hpp"

namespace tlaloc::nn {

// A call over (leading tensors..., inputs, targets), with a bounded batch padded to its
// bucket and the valid lengths inserted before the inputs; the same call otherwise.
// `wrt` gets a false for each length. `bounded` may be null.
tlaloc::detail::FlatCall bounded_batch_call(tlaloc::detail::BoundedState* bounded,
                                            const tlaloc::detail::FlatCall& call, std::vector<bool>* wrt);

struct Captured::Impl {
  LossOf loss;
  Params params;  // the example's
  Batch batch;
  std::shared_ptr<tlaloc::detail::BoundedState> bounded;  // null: exact batches
  std::shared_ptr<tlaloc::detail::TransformCache> grads = tlaloc::detail::make_cache("capture");
  std::shared_ptr<tlaloc::detail::TransformCache> forward = tlaloc::detail::make_cache("capture.loss");
};

}  // namespace tlaloc::nn
