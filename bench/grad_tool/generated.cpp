// The gradient of mlp_loss as tlaloc-grad writes it (this file is built through
// tlaloc_generate_gradients).
#include "mlp_loss.hpp"

tlaloc::Tensor generated_gradient(const tlaloc::Tensor& w1, const tlaloc::Tensor& b1, const tlaloc::Tensor& w2,
                                  const tlaloc::Tensor& b2, const tlaloc::Tensor& w3, const tlaloc::Tensor& b3,
                                  const tlaloc::Tensor& x, const tlaloc::Tensor& y) {
  return tlaloc::grad(mlp_loss)(w1, b1, w2, b2, w3, b3, x, y);
}
