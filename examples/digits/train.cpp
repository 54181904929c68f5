#include "train.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <string>
#include <tuple>

namespace digits {

namespace {

// The fraction of equal entries of two i64 vectors of one shape.
double fraction_equal(const tl::Tensor& a, const tl::Tensor& b) {
  const std::vector<std::int64_t> x = a.to_vector<std::int64_t>(), y = b.to_vector<std::int64_t>();
  std::size_t same = 0;
  for (std::size_t i = 0; i < x.size(); ++i) same += x[i] == y[i] ? 1 : 0;
  return static_cast<double>(same) / static_cast<double>(x.size());
}

}  // namespace

History train(const Model& model, const Split& split, const TrainOptions& options, Progress& progress) {
  const nn::Adam adam{.lr = options.learning_rate};
  const auto loss = [&model](const nn::Params& p, const tl::Tensor& x, const tl::Tensor& y) {
    return nn::cross_entropy(model.logits(p, x), y);
  };
  // The whole step (forward, gradient, Adam update) is one traced program; the
  // optimizer state travels as Params so that the step count is an input.
  const auto step = tl::jit(
      [&](const nn::Params& p, const nn::Params& state, const tl::Tensor& x, const tl::Tensor& y) {
        auto [value, grads] = tl::value_and_grad(loss)(p, x, y);
        auto [next, next_state] = adam.update(p, grads, nn::OptimizerState::from_params(state));
        return std::tuple{next, next_state.to_params(), value};
      },
      model.name + ".step");
  const auto predict = tl::jit(
      [&model](const nn::Params& p, const tl::Tensor& x) { return tl::argmax(model.logits(p, x), 1); },
      model.name + ".predict");

  const std::int64_t steps = options.batch > 0 ? split.train.size() / options.batch : 0;
  if (steps == 0 || options.epochs < 1)
    throw tl::ValueError("digits: cannot train " + model.name + " for " + std::to_string(options.epochs) +
                         " epochs in batches of " + std::to_string(options.batch) + " from " +
                         std::to_string(split.train.size()) + " examples");
  const auto start = std::chrono::steady_clock::now();
  History h{.params = model.params};
  nn::Params state = adam.init(h.params).to_params();
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    const std::vector<std::int64_t> order =
        permutation(split.train.size(), tl::random::fold_in(options.key, static_cast<std::uint32_t>(epoch)));
    progress.start_epoch(model.name, epoch, options.epochs, steps);
    double total = 0.0;
    for (std::int64_t s = 0; s < steps; ++s) {
      const auto first = order.begin() + s * options.batch;
      const Digits batch = take_rows(split.train, {first, first + options.batch});
      tl::Tensor value;
      std::tie(h.params, state, value) = step(h.params, state, batch.images, batch.labels);
      total += value.item<float>();
      progress.step(s + 1, total / static_cast<double>(s + 1));
    }
    progress.end_epoch();
    h.loss.push_back(total / static_cast<double>(steps));
    h.accuracy.push_back(fraction_equal(predict(h.params, split.test.images), split.test.labels));
    std::printf("%s epoch %2d/%d  training loss %.4f  held-out accuracy %.4f\n", model.name.c_str(), epoch,
                options.epochs, h.loss.back(), h.accuracy.back());
    std::fflush(stdout);
  }
  h.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return h;
}

void write_history_csv(const std::filesystem::path& path,
                       const std::vector<std::pair<std::string, History>>& runs) {
  std::ofstream out(path);
  out << "model,epoch,loss,accuracy\n" << std::setprecision(9);
  for (const auto& [name, h] : runs)
    for (std::size_t i = 0; i < h.loss.size(); ++i)
      out << name << ',' << i + 1 << ',' << h.loss[i] << ',' << h.accuracy[i] << '\n';
  out.close();
  if (!out) throw tl::ValueError("digits: cannot write the history to " + path.string());
}

}  // namespace digits
