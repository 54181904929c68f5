// Golden texts of printed derivatives (tests/cppgen/golden/*.cpp): the exact C++
// tl::gradient_source, tl::jvp_source and tl::hessian_source print for a handful of
// functions. Each file is also compiled on its own against the public headers
// (tests/cppgen/CMakeLists.txt). To regenerate after a deliberate change, run
//   TLALOC_UPDATE_GOLDEN=1 ./tlaloc_tests --gtest_filter='CppgenGolden.*'
// and review the diff (git diff tests/cppgen/golden).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

namespace {

namespace tl = tlaloc;
using tl::Tensor;

void expect_golden(const std::string& file, const std::string& text) {
  const std::string path = std::string(TLALOC_CPPGEN_GOLDEN_DIR) + "/" + file;
  if (const char* u = std::getenv("TLALOC_UPDATE_GOLDEN"); u != nullptr && std::string(u) == "1") {
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path << " (TLALOC_UPDATE_GOLDEN=1 writes it)";
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(text, want.str()) << "the printed text of " << file << " changed";
}

const Tensor x = tl::tensor({0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f}, {2, 3});
const Tensor w = tl::tensor({0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f}, {3, 2});

TEST(CppgenGolden, TanhLayer) {
  expect_golden("tanh_layer.cpp", tl::gradient_source([](const Tensor& a, const Tensor& b) {
                  return tl::sum(tl::tanh(tl::matmul(a, b)));
                }, x, w));
}

TEST(CppgenGolden, SoftmaxCrossEntropy) {
  const Tensor labels = tl::tensor(std::vector<std::int64_t>{2, 0}, {2});
  expect_golden("softmax_cross_entropy.cpp", tl::gradient_source([](const Tensor& logits, const Tensor& y) {
                  const Tensor logp = tl::log_softmax(logits, 1);
                  return -tl::mean(tl::take_along_axis(logp, tl::expand_dims(y, 1), 1));
                }, x, labels));
}

TEST(CppgenGolden, Cond) {
  expect_golden("cond.cpp", tl::gradient_source([](const Tensor& a) {
                  return tl::sum(tl::cond(tl::sum(a) > 0.0f, [&] { return a * a; }, [&] { return tl::sin(a); }));
                }, x));
}

TEST(CppgenGolden, WhileLoop) {
  expect_golden("while_loop.cpp", tl::gradient_source([](const Tensor& a) {
                  return tl::sum(tl::while_loop([](const Tensor& s) { return tl::sum(s * s) < 100.0f; },
                                                [](const Tensor& s) { return s * 1.5f; }, a));
                }, x));
}

TEST(CppgenGolden, ForiLoop) {
  const Tensor v = tl::tensor({1.0f, -2.0f, 0.5f}, {3});
  expect_golden("fori_loop.cpp", tl::gradient_source([](const Tensor& a) {
                  return tl::sum(tl::fori_loop(0, 3, [](const Tensor&, const Tensor& s) { return tl::sin(s) * 2.0f; }, a));
                }, v));
}

TEST(CppgenGolden, JvpAndHessian) {
  const auto f = [](const Tensor& a) { return tl::sum(tl::exp(a) * a); };
  const Tensor v = tl::tensor({1.0f, -2.0f, 0.5f}, {3});
  expect_golden("jvp_exp.cpp", tl::jvp_source(f, v));
  expect_golden("hessian_exp.cpp", tl::hessian_source(f, v));
}

// tl::nn::capture's loss and gradient of a small classifier, parameters named after
// the model's ("layers_0_weight").
TEST(CppgenGolden, CapturedClassifier) {
  const tl::nn::MLP mlp{.sizes = {3, 4, 2}, .activation = [](const Tensor& h) { return tl::tanh(h); }};
  const Tensor labels = tl::tensor(std::vector<std::int64_t>{1, 0}, {2});
  const tl::nn::Captured c = tl::nn::capture(mlp, mlp.init(tl::random::key(3)), {x, labels},
                                             [](const Tensor& logits, const Tensor& y) {
                                               return tl::nn::cross_entropy(logits, y);
                                             });
  expect_golden("captured_classifier.cpp", c.grad_source());
}

TEST(CppgenGolden, RefusesNonScalarGradient) {
  EXPECT_THROW(tl::gradient_source([](const Tensor& a) { return a * 2.0f; }, x), tl::ValueError);
}

}  // namespace
