// About 300 lines of C++ with 17 differentiated functions, for the time tlaloc-grad
// takes over a file (at most 2 s: bench/run.sh times it). Built through
// tlaloc_generate_gradients; the program prints the sum of the gradients.
#include <tlaloc/tlaloc.hpp>

#include <cstdio>

namespace tl = tlaloc;

namespace {

tl::Tensor block_0(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 0.0);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_0(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 2; ++i) {
    state = block_0(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 5) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_1(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 0.1);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_1(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 3; ++i) {
    state = block_1(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 15) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_2(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 0.2);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_2(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 4; ++i) {
    state = block_2(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 25) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_3(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 0.3);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_3(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 2; ++i) {
    state = block_3(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 35) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_4(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 0.4);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_4(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 3; ++i) {
    state = block_4(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 45) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_5(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 0.5);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_5(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 4; ++i) {
    state = block_5(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 55) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_6(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 0.6);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_6(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 2; ++i) {
    state = block_6(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 65) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_7(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 0.7);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_7(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 3; ++i) {
    state = block_7(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 75) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_8(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 0.8);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_8(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 4; ++i) {
    state = block_8(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 85) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_9(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 0.9);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_9(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 2; ++i) {
    state = block_9(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 95) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_10(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 1.0);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_10(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 3; ++i) {
    state = block_10(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 105) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_11(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 1.1);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_11(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 4; ++i) {
    state = block_11(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 115) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_12(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 1.2);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_12(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 2; ++i) {
    state = block_12(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 125) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_13(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 1.3);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_13(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 3; ++i) {
    state = block_13(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 135) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_14(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 1.4);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_14(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 4; ++i) {
    state = block_14(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 145) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_15(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 1.5);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_15(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 2; ++i) {
    state = block_15(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 155) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

tl::Tensor block_16(const tl::Tensor& x, const tl::Tensor& w, double scale) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w) * scale + 1.6);
  const tl::Tensor g = tl::sigmoid(h) * h - tl::softplus(h / 2.0);
  return g + tl::square(h) * 0.5;
}

tl::Tensor loss_16(const tl::Tensor& w, const tl::Tensor& x) {
  tl::Tensor state = x;
  for (int i = 0; i < 3; ++i) {
    state = block_16(state, w, 0.5 + 0.1 * i);
  }
  const tl::Tensor pooled = tl::mean(state, {1}, true);
  if (x.numel() > 165) return tl::sum(tl::exp(-tl::abs(state - pooled)));
  return tl::sum(tl::log1p(tl::square(state - pooled)));
}

}  // namespace

int main() {
  const tl::Tensor w = tl::tensor(std::vector<float>{0.5f, -0.25f, 0.125f, 0.75f}, {2, 2});
  const tl::Tensor x = tl::tensor(std::vector<float>{1.f, 2.f, -1.f, 0.5f, 0.25f, 3.f}, {3, 2});
  double total = 0;
  total += double(tl::sum(tl::grad(loss_0)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_1)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_2)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_3)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_4)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_5)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_6)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_7)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_8)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_9)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_10)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_11)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_12)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_13)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_14)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_15)(w, x)).item<float>());
  total += double(tl::sum(tl::grad(loss_16)(w, x)).item<float>());
  std::printf("%.6g\n", total);
  return 0;
}
