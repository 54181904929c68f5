// Misuses the compiler cannot see, caught at run time with the public name and what to
// do instead (tests/misuse holds those it sees: one error each).
#include <gtest/gtest.h>

#include <string>
#include <tlaloc/tlaloc.hpp>
#include <vector>

#include "support/expect_error.hpp"

namespace {

namespace tl = tlaloc;
using tl::Tensor;

std::size_t count(const std::string& text, const std::string& piece) {
  std::size_t n = 0;
  for (std::size_t at = text.find(piece); at != std::string::npos; at = text.find(piece, at + 1)) ++n;
  return n;
}

// A brace list carries as a std::vector<Tensor>, as a vector does.
TEST(Misuse, BraceListCarriesAsAVector) {
  const Tensor a = tl::scalar_tensor(1.0, tl::DType::f64), b = tl::scalar_tensor(2.0, tl::DType::f64);
  const auto body = [](const Tensor& i, const std::vector<Tensor>& c) {
    return std::vector<Tensor>{c[0] + c[1], c[1] * i.astype(tl::DType::f64)};
  };
  const std::vector<Tensor> braced = tl::fori_loop(1, 4, body, {a, b});
  const std::vector<Tensor> listed = tl::fori_loop(1, 4, body, std::vector<Tensor>{a, b});
  ASSERT_EQ(braced.size(), 2u);
  EXPECT_EQ(braced[0].item<double>(), listed[0].item<double>());
  EXPECT_EQ(braced[1].item<double>(), 12.0);  // 2 * 1 * 2 * 3
}

// Branching in C++ on a traced value: the error says what to use.
TEST(Misuse, ItemOfATracedValueNamesCond) {
  const auto f = [](const Tensor& x) { return x.item<double>() > 0 ? tl::sum(x) : -tl::sum(x); };
  tltest::expect_error<tl::Error>([&] { (void)tl::grad(f)(tl::ones({2}, tl::DType::f64)); }, "item",
                                  "symbolic (inside a trace", "tl::cond or tl::where");
}

// tl::grad(f) made anew on every call traces every call: one warning, then quiet.
TEST(Misuse, TransformMadeOnEveryCallWarnsOnce) {
  const auto f = [](const Tensor& x) { return tl::sum(x * x); };
  testing::internal::CaptureStderr();
  for (int i = 0; i < 5; ++i) (void)tl::grad(f)(tl::ones({3}, tl::DType::f64));
  const std::string warned = testing::internal::GetCapturedStderr();
  EXPECT_EQ(
      count(warned, "tl::grad: warning: 3 separate tl::grad of the same function traced the same signature"),
      1u)
      << warned;
  EXPECT_NE(warned.find("auto df = tl::grad(f);"), std::string::npos) << warned;

  // Made once and called again and again: one trace, no warning.
  const auto g = [](const Tensor& x) { return tl::sum(tl::sin(x)); };
  const auto dg = tl::grad(g);
  testing::internal::CaptureStderr();
  for (int i = 0; i < 5; ++i) (void)dg(tl::ones({3}, tl::DType::f64));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(dg.traces(), 1u);
}

}  // namespace
