// tl::bounded: every size within the bounds through one program per bucket, results
// equal to the exact-size run (the function at the exact size, or written without
// masks), gradients of masked losses equal to the exact ones, and each wrong use
// refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"

namespace tl = tlaloc;

// The statement must throw E with every piece in its message.
#define EXPECT_REFUSED(stmt, E, ...) tltest::expect_error_with<E>([&] { (void)(stmt); }, {__VA_ARGS__})

namespace {

void expect_close(const tl::Tensor& got, const tl::Tensor& want, double tol) {
  ASSERT_EQ(got.shape(), want.shape());
  const std::vector<double> g = got.astype(tl::DType::f64).to_vector<double>();
  const std::vector<double> w = want.astype(tl::DType::f64).to_vector<double>();
  for (std::size_t i = 0; i < g.size(); ++i)
    EXPECT_NEAR(g[i], w[i], tol * std::max(1.0, std::abs(w[i]))) << i;
}

tl::Tensor layer(const tl::Tensor& w, const tl::Tensor& x) { return tl::tanh(tl::matmul(x, w)); }

// The mean over the valid rows of each sequence: x [batch, seq, 3] -> [batch, 3].
tl::Tensor masked_mean(const tl::Tensor& x) {
  const tl::Tensor kept = tl::where(tl::valid_mask("seq", 3, 1), x, 0.0);
  return tl::sum(kept, {1}) / tl::valid_length("seq").astype(tl::DType::f32);
}

}  // namespace

TEST(Bounded, EverySizeGivesTheExactResultThroughOneProgramPerBucket) {
  const tl::Tensor w = tl::random::normal(tl::random::key(1), {4, 3});
  const tl::Tensor all = tl::random::normal(tl::random::key(2), {16, 4});
  auto prog = tl::bounded(layer, {{"batch", 16}}, {tl::dims(4, 3), tl::dims("batch", 4)});
  for (std::int64_t n : {3, 4, 1, 16, 9, 2}) {
    const tl::Tensor x = tl::slice(all, 0, 0, n);
    expect_close(prog(w, x), layer(w, x), 1e-6);
  }
  // Buckets 4, 1, 16 and 2 (3 and 4 share 4; 9 and 16 share 16).
  EXPECT_EQ(prog.traces(), 4u);
}

TEST(Bounded, MasksAndValidLengthsSeeTheTrueSizes) {
  const tl::Tensor all = tl::random::normal(tl::random::key(3), {2, 12, 3});
  auto prog = tl::bounded(masked_mean, {{"batch", 4}, {"seq", 12}}, {tl::dims("batch", "seq", 3)});
  prog.buckets("seq", {4, 8, 12});
  for (std::int64_t len : {1, 5, 8, 11}) {
    const tl::Tensor x = tl::slice(all, 1, 0, len);
    expect_close(prog(x), tl::mean(x, {1}), 1e-6);  // the exact-size mean, no mask
    prog.check_padding(x);
  }
  EXPECT_EQ(prog.traces(), 3u);
  // The buckets may come with the declaration.
  auto declared =
      tl::bounded(masked_mean, {{"batch", 4}, {"seq", 12, {4, 12}}}, {tl::dims("batch", "seq", 3)});
  for (std::int64_t len : {3, 5, 12})
    expect_close(declared(tl::slice(all, 1, 0, len)), tl::mean(tl::slice(all, 1, 0, len), {1}), 1e-6);
  EXPECT_EQ(declared.traces(), 2u);
  auto length = tl::bounded([](const tl::Tensor& x) { return tl::sum(x) * 0 + tl::valid_length("n"); },
                            {{"n", 8}}, {tl::dims("n")});
  EXPECT_EQ(length(tl::ones({5})).item<std::int64_t>(), 5);
}

TEST(Bounded, GradientsOfMaskedLossesEqualTheExactOnes) {
  const tl::Tensor w = tl::random::normal(tl::random::key(4), {4, 3});
  const tl::Tensor x = tl::random::normal(tl::random::key(5), {5, 4});
  // The mean over valid rows of the squared layer; the exact loss needs no mask.
  const auto masked = [](const tl::Tensor& weights, const tl::Tensor& rows_in) {
    const tl::Tensor y = layer(weights, rows_in);
    const tl::Tensor rows = tl::where(tl::valid_mask("batch", 2, 0), y * y, 0.0);
    return tl::sum(rows) / tl::valid_length("batch").astype(tl::DType::f32);
  };
  const auto exact = [](const tl::Tensor& weights, const tl::Tensor& rows_in) {
    const tl::Tensor y = layer(weights, rows_in);
    return tl::sum(y * y) / static_cast<double>(rows_in.shape()[0]);
  };
  auto dw = tl::bounded(tl::grad(masked, {0, 1}), {{"batch", 32}}, {tl::dims(4, 3), tl::dims("batch", 4)});
  const std::vector<tl::Tensor> got = dw(w, x);
  const std::vector<tl::Tensor> want = tl::grad(exact, {0, 1})(w, x);
  expect_close(got.at(0), want.at(0), 1e-5);
  expect_close(got.at(1), want.at(1), 1e-5);  // [5, 4]: learned to follow "batch", sliced
  // And against central differences of the exact loss in w.
  const double h = 1e-3;
  for (std::int64_t i = 0; i < 3; ++i) {
    std::vector<float> plus = w.to_vector<float>(), minus = plus;
    plus[std::size_t(i)] += float(h);
    minus[std::size_t(i)] -= float(h);
    const double fd = (exact(tl::tensor(plus, {4, 3}), x).item<float>() -
                       exact(tl::tensor(minus, {4, 3}), x).item<float>()) /
                      (2 * h);
    EXPECT_NEAR(got.at(0).to_vector<float>()[std::size_t(i)], fd, 2e-3);
  }
}

TEST(Bounded, CheckPaddingNamesWhatReadsPaddedPositions) {
  // A mean over the bucket, not over the valid rows.
  auto careless =
      tl::bounded([](const tl::Tensor& x) { return tl::mean(x, {0}); }, {{"n", 8}}, {tl::dims("n", 2)});
  const tl::Tensor x = tl::ones({3, 2});
  EXPECT_REFUSED(careless.check_padding(x), tl::ValueError, "result 0 differs at element [0]",
                 "padded to n=4", "tl::valid_mask");
}

TEST(Bounded, WrongDeclarationsAndInputsAreRefusedByName) {
  const auto f = [](const tl::Tensor& x) { return x * 2.0; };
  EXPECT_REFUSED(tl::bounded(f, {{"batch", 8}}, {tl::dims("batchh", 2)}), tl::ValueError,
                 "no bounded dimension 'batchh' (declared: batch)");
  EXPECT_REFUSED(tl::bounded(f, {{"batch", 8}, {"batch", 4}}, {tl::dims("batch")}), tl::ValueError,
                 "dimension 'batch' is declared twice");
  EXPECT_REFUSED(tl::bounded(f, {{"batch", 0}}, {tl::dims("batch")}), tl::ValueError, "bound 0");
  EXPECT_REFUSED(tl::bounded(f, {{"batch", 8, {2, 4}}}, {tl::dims("batch")}), tl::ValueError,
                 "the ladder [2, 4] does not cover its bound 8");
  EXPECT_REFUSED(tl::bounded(f, {{"batch", 8}, {"seq", 4}}, {tl::dims("batch")}), tl::ValueError,
                 "dimension 'seq' is on no argument's dims");
  auto prog = tl::bounded(f, {{"batch", 8}}, {tl::dims("batch", 2)});
  EXPECT_REFUSED(prog.buckets("batch", {2, 4}), tl::ValueError, "does not cover its bound 8");
  EXPECT_REFUSED(prog.buckets("batch", {4, 2, 8}), tl::ValueError, "must ascend strictly");
  EXPECT_REFUSED(prog.buckets("seq", {8}), tl::ValueError, "no bounded dimension 'seq'");
  EXPECT_REFUSED(prog(tl::ones({9, 2})), tl::ShapeError, "dimension 'batch' is 9, over its bound 8");
  EXPECT_REFUSED(prog(tl::ones({3, 2, 1})), tl::ShapeError, "argument 0 is f32[3, 2, 1]",
                 "tl::dims(\"batch\", 2)");
  EXPECT_REFUSED(prog(tl::ones({3, 5})), tl::ShapeError, "does not fit");
  auto two = tl::bounded([](const tl::Tensor& a, const tl::Tensor& b) { return a + b; }, {{"n", 8}},
                         {tl::dims("n"), tl::dims("n")});
  EXPECT_REFUSED(two(tl::ones({3}), tl::ones({4})), tl::ShapeError,
                 "dimension 'n' is 3 in one argument and 4");
  EXPECT_REFUSED(tl::valid_length("seq"), tl::ValueError, "no running tl::bounded function declares");
  // A result whose axis is not one dimension's size: its dims must be declared.
  auto flat =
      tl::bounded([](const tl::Tensor& x) { return tl::reshape(x, {-1}); }, {{"n", 8}}, {tl::dims("n", 2)});
  EXPECT_REFUSED(flat(tl::ones({3, 2})), tl::ShapeError, "cannot tell which axes of result 0",
                 "declare the results' dims");
}

TEST(Bounded, DeclaredResultDimsAreChecked) {
  auto prog = tl::bounded([](const tl::Tensor& x) { return tl::sum(x, {1}); }, {{"n", 8}}, {tl::dims("n", 2)},
                          {tl::dims("n")});
  expect_close(prog(tl::ones({3, 2})), tl::full({3}, 2.0f), 0);
  auto wrong = tl::bounded([](const tl::Tensor& x) { return tl::sum(x, {1}); }, {{"n", 8}},
                           {tl::dims("n", 2)}, {tl::dims("n", 2)});
  EXPECT_REFUSED(wrong(tl::ones({3, 2})), tl::ShapeError, "result 0 is f32[4]", "does not fit");
}

TEST(Bounded, ACapturedLossAndTrainingStepOverBoundedBatches) {
  const tl::nn::MLP mlp{.sizes = {4, 8, 3}};
  const tl::nn::Params p0 = mlp.init(tl::random::key(6));
  // The mean over the valid rows of the squared error; the exact loss needs no mask.
  const auto masked = [&mlp](const tl::nn::Params& p, const tl::nn::Batch& b) {
    const tl::Tensor e = mlp(p, b.inputs) - b.targets;
    const tl::Tensor rows = tl::where(tl::valid_mask("batch", 2, 0), e * e, 0.0);
    return tl::sum(rows) / tl::valid_length("batch").astype(tl::DType::f32);
  };
  const auto exact = [&mlp](const tl::nn::Params& p, const tl::nn::Batch& b) {
    const tl::Tensor e = mlp(p, b.inputs) - b.targets;
    return tl::sum(e * e) / static_cast<double>(b.inputs.shape()[0]);
  };
  const tl::Tensor xs = tl::random::normal(tl::random::key(7), {16, 4});
  const tl::Tensor ys = tl::random::normal(tl::random::key(8), {16, 3});
  const auto batch = [&](std::int64_t n) {
    return tl::nn::Batch{tl::slice(xs, 0, 0, n), tl::slice(ys, 0, 0, n)};
  };
  const tl::nn::Captured bounded =
      tl::nn::capture(masked, p0, batch(5),
                      tl::nn::BoundedBatch{{{"batch", 16}}, tl::dims("batch", 4), tl::dims("batch", 3)});
  const tl::nn::Captured plain = tl::nn::capture(exact, p0, batch(5));
  for (std::int64_t n : {5, 7, 3}) {
    const auto [loss, grads] = bounded.loss_and_grad(p0, batch(n));
    const auto [want_loss, want_grads] = plain.loss_and_grad(p0, batch(n));
    expect_close(loss, want_loss, 1e-5);
    for (const auto& [name, g] : grads) expect_close(g, want_grads.at(name), 1e-5);
  }
  EXPECT_EQ(bounded.traces(), 2u);  // buckets 8 (sizes 5 and 7) and 4
  const tl::nn::TrainStep step = bounded.train_step(tl::nn::Adam{.lr = 1e-2});
  const tl::nn::TrainStep plain_step = plain.train_step(tl::nn::Adam{.lr = 1e-2});
  tl::nn::Params p = p0, q = p0;
  tl::nn::OptimizerState s = step.init(p), t = plain_step.init(q);
  for (std::int64_t n : {5, 7, 3, 16}) {
    const tl::nn::StepResult r = step(p, s, batch(n));
    const tl::nn::StepResult w = plain_step(q, t, batch(n));
    expect_close(r.loss, w.loss, 1e-5);
    p = r.params, s = r.state, q = w.params, t = w.state;
  }
  for (const auto& [name, value] : p) expect_close(value, q.at(name), 1e-4);
  EXPECT_EQ(step.traces(), 3u);  // buckets 8, 4 and 16
  const std::vector<std::string> names = step.input_names(s);
  EXPECT_EQ(names.at(names.size() - 3), "batch.valid_length.batch");
  EXPECT_EQ(step.output_names(s).back(), "loss");
}

TEST(Bounded, RunsInsideJitAndUnderGrad) {
  const tl::Tensor w = tl::random::normal(tl::random::key(9), {4, 3});
  const tl::Tensor x = tl::random::normal(tl::random::key(10), {5, 4});
  auto prog = tl::bounded(layer, {{"batch", 16}}, {tl::dims(4, 3), tl::dims("batch", 4)});
  // Inside jit, the bucket's program records into the enclosing trace.
  auto jitted = tl::jit([&prog](const tl::Tensor& a, const tl::Tensor& b) { return prog(a, b); });
  expect_close(jitted(w, x), layer(w, x), 1e-6);
  // grad through a bounded function: the padded rows get no gradient.
  const tl::Tensor g =
      tl::grad([&prog](const tl::Tensor& a, const tl::Tensor& b) { return tl::sum(prog(a, b)); })(w, x);
  const tl::Tensor want =
      tl::grad([](const tl::Tensor& a, const tl::Tensor& b) { return tl::sum(layer(a, b)); })(w, x);
  expect_close(g, want, 1e-5);
}
