// Tlaloc quickstart: tensors, broadcasting, reductions, a matrix product, random
// numbers, and a gradient written as C++ at build time (tlaloc-grad, through
// tlaloc_generate_gradients in CMakeLists.txt).
#include <tlaloc/tlaloc.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace tl = tlaloc;

namespace {

// The gradients tlaloc-grad wrote for this file: plain C++ you can read and step through.
void show_generated_gradients() {
  for (const auto& entry : std::filesystem::directory_iterator(QUICKSTART_GRADIENTS)) {
    std::cout << "== " << entry.path().filename().string() << " (written by tlaloc-grad at build time)\n";
    std::ifstream in(entry.path());
    std::cout << in.rdbuf() << "\n";
  }
}

}  // namespace

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
  tl::Tensor x = tl::random::uniform(keys[1], {4, 5}, tl::DType::f32, -1.0, 1.0);
  tl::Tensor y = tl::relu(tl::matmul(w, x));
  std::cout << "relu(W X) with W ~ N(0, 1), X ~ U(-1, 1) =\n" << y << "\n";
  std::cout << "argmax = " << tl::argmax(y).item<std::int64_t>() << "\n\n";

  // A gradient through matmul and sum: d/dW of sum(tanh(W X)) is (1 - tanh(W X)^2) X^T.
  // tlaloc-grad replaced this call with the C++ printed below when the program was built.
  const auto loss = [&](const tl::Tensor& weights) { return tl::sum(tl::tanh(tl::matmul(weights, x))); };
  auto [value, dw] = tl::value_and_grad(loss)(w);
  const tl::Tensor t = tl::tanh(tl::matmul(w, x));
  const tl::Tensor by_hand = tl::matmul(1.0f - t * t, tl::transpose(x));
  std::cout << "loss = " << value.item<float>() << ", d loss / dW =\n" << dw << "\n";
  const bool agrees = tl::allclose(dw, by_hand, 1e-5, 1e-6);
  std::cout << "agrees with the analytic gradient: " << std::boolalpha << agrees << "\n\n";
  show_generated_gradients();
  // Second derivatives: tlaloc-grad writes the Hessian too, forward mode over the gradient it wrote.
  const auto cube = [](const tl::Tensor& v) { return tl::sum(v * v * v); };
  const tl::Tensor v = tl::linspace(-1, 1, 3);
  std::cout << "hessian of sum(v^3) at v = " << v << " (6 diag(v)) is\n" << tl::hessian(cube)(v) << "\n";
  return agrees ? 0 : 1;
}
