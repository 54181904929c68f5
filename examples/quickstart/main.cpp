// Tlaloc quickstart: tensors, broadcasting, reductions, a matrix product, random
// numbers and gradients.
#include <tlaloc/tlaloc.hpp>

#include <iostream>

namespace tl = tlaloc;

int main() {
  tl::Tensor a = tl::tensor({1.f, 2.f, 3.f, 4.f}, {2, 2});
  tl::Tensor b = tl::tensor({0.5f, -1.f}, {2});
  std::cout << "a =\n" << a << "\n\n";
  std::cout << "a * b (broadcast over rows) =\n" << a * b << "\n\n";
  std::cout << "matmul(a, a) =\n" << tl::matmul(a, a) << "\n\n";
  std::cout << "sum(a, axis 0) = " << tl::sum(a, 0) << "\n";
  std::cout << "mean(a) = " << tl::mean(a).item<float>() << "\n";
  std::cout << "softmax(a) =\n" << tl::softmax(a) << "\n\n";
  std::cout << "tanh(linspace(-2, 2, 5)) = " << tl::tanh(tl::linspace(-2, 2, 5)) << "\n";

  // Random numbers are stateless: the same key always gives the same values.
  tl::random::Key key = tl::random::key(0);
  auto keys = tl::random::split(key, 2);
  tl::Tensor w = tl::random::normal(keys[0], {3, 4});
  tl::Tensor x = tl::random::uniform(keys[1], {4}, tl::DType::f32, -1.0, 1.0);
  tl::Tensor y = tl::relu(tl::matmul(w, x));
  std::cout << "relu(W x) with W ~ N(0, 1), x ~ U(-1, 1): " << y << "\n";
  std::cout << "argmax = " << tl::argmax(y).item<std::int64_t>() << "\n\n";

  // Gradients: d/dW of sum(tanh(W x)) is (1 - tanh(W x)^2) x^T.
  const auto loss = [&](const tl::Tensor& weights) { return tl::sum(tl::tanh(tl::matmul(weights, x))); };
  auto [value, dw] = tl::value_and_grad(loss)(w);
  const tl::Tensor t = tl::tanh(tl::matmul(w, x));
  const tl::Tensor by_hand = tl::outer(1.0f - t * t, x);
  std::cout << "loss = " << value.item<float>() << ", d loss / dW =\n" << dw << "\n";
  std::cout << "agrees with the analytic gradient: " << std::boolalpha << tl::allclose(dw, by_hand, 1e-5, 1e-6)
            << "\n";
  // Second derivatives compose: d2/dx2 of sum(x^3) is 6x.
  const auto cube = [](const tl::Tensor& v) { return tl::sum(v * v * v); };
  std::cout << "hessian of sum(x^3) at x = " << x << " is\n" << tl::hessian(cube)(x) << "\n";
  return 0;
}
