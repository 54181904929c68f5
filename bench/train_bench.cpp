// Full training steps (loss, gradients and a torch.optim.Adam update) of three models,
// each step one tl::jit program over tl::value_and_grad and nn::Adam::update:
//   mlp          MLP 784-512-512-10, batch 256, cross-entropy
//   cnn          conv 1->32 3x3, relu, maxpool 2, conv 32->64 3x3, relu, maxpool 2,
//                linear 1600->128, relu, linear 128->10; 28x28 inputs, batch 64,
//                cross-entropy
//   transformer  TransformerBlock d=256, 4 heads, d_ff 1024, seq 128, batch 8; the loss
//                is the mean squared error of the block's output against a target
// bench/train_torch_bench.py times the same steps in PyTorch, bench/train_ratio.py
// prints the ratios; bench/run.sh runs all three. Each benchmark's argument is its
// thread count (/2), which the PyTorch side is told too.
//
// The steps really train: each iteration feeds the new parameters and optimizer state
// into the next, as a training loop does.
#include <benchmark/benchmark.h>

#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include <tuple>

namespace tl = tlaloc;
namespace nn = tlaloc::nn;
using tl::Tensor;

namespace {

// One training step of `loss(params, x, y)` with Adam as one program:
// (params, optimizer state, x, y) -> (loss, new params, new optimizer state).
template <class Loss>
auto train_step(Loss loss) {
  return tl::jit([loss](const nn::Params& p, const nn::Params& s, const Tensor& x, const Tensor& y) {
    auto [value, grads] = tl::value_and_grad(loss)(p, x, y);
    auto [next, state] = nn::Adam{.lr = 1e-3}.update(p, grads, nn::OptimizerState::from_params(s));
    return std::tuple{value, next, state.to_params()};
  });
}

template <class Loss>
void run_steps(benchmark::State& bs, Loss loss, nn::Params p, const Tensor& x, const Tensor& y) {
  tl::set_num_threads(int(bs.range(0)));
  const auto step = train_step(loss);
  nn::Params s = nn::Adam{}.init(p).to_params();
  for (auto _ : bs) {
    auto [value, next, state] = step(p, s, x, y);
    benchmark::DoNotOptimize(value.raw_data());
    p = std::move(next);
    s = std::move(state);
  }
}

void BM_train_mlp(benchmark::State& bs) {
  const nn::MLP mlp{.sizes = {784, 512, 512, 10}};
  const auto loss = [mlp](const nn::Params& p, const Tensor& x, const Tensor& y) {
    return nn::cross_entropy(mlp(p, x), y);
  };
  const Tensor x = tl::random::normal(tl::random::key(1), {256, 784});
  const Tensor y = tl::random::randint(tl::random::key(2), {256}, 0, 10, tl::DType::i64);
  run_steps(bs, loss, mlp.init(tl::random::key(0)), x, y);
}

struct Cnn {
  nn::Conv2d conv1{.in_channels = 1, .out_channels = 32, .kernel = {3, 3}};
  nn::Conv2d conv2{.in_channels = 32, .out_channels = 64, .kernel = {3, 3}};
  nn::MaxPool2d pool{.kernel = {2, 2}};
  nn::Linear fc1{64 * 5 * 5, 128};
  nn::Linear fc2{128, 10};

  nn::Params init(tl::random::Key key) const {
    const auto k = tl::random::split(key, 4);
    nn::Params p;
    const auto add = [&p](const nn::Params& sub, const char* name) {
      for (const auto& e : sub.prefixed(name)) p.set(e.first, e.second);
    };
    add(conv1.init(k[0]), "conv1");
    add(conv2.init(k[1]), "conv2");
    add(fc1.init(k[2]), "fc1");
    add(fc2.init(k[3]), "fc2");
    return p;
  }
  Tensor operator()(const nn::Params& p, const Tensor& x) const {  // [N, 1, 28, 28] -> [N, 10]
    const Tensor a = pool(tl::relu(conv1(p.sub("conv1"), x)));       // [N, 32, 13, 13]
    const Tensor b = pool(tl::relu(conv2(p.sub("conv2"), a)));       // [N, 64, 5, 5]
    const Tensor h = tl::relu(fc1(p.sub("fc1"), tl::reshape(b, {x.size(0), 64 * 5 * 5})));
    return fc2(p.sub("fc2"), h);
  }
};

void BM_train_cnn(benchmark::State& bs) {
  const Cnn cnn;
  const auto loss = [cnn](const nn::Params& p, const Tensor& x, const Tensor& y) {
    return nn::cross_entropy(cnn(p, x), y);
  };
  const Tensor x = tl::random::normal(tl::random::key(1), {64, 1, 28, 28});
  const Tensor y = tl::random::randint(tl::random::key(2), {64}, 0, 10, tl::DType::i64);
  run_steps(bs, loss, cnn.init(tl::random::key(0)), x, y);
}

void BM_train_transformer(benchmark::State& bs) {
  const nn::TransformerBlock block{.d_model = 256, .num_heads = 4, .d_ff = 1024};
  const auto loss = [block](const nn::Params& p, const Tensor& x, const Tensor& y) {
    return nn::mse_loss(block(p, x), y);
  };
  const Tensor x = tl::random::normal(tl::random::key(1), {8, 128, 256});
  const Tensor y = tl::random::normal(tl::random::key(2), {8, 128, 256});
  run_steps(bs, loss, block.init(tl::random::key(0)), x, y);
}

#define TRAIN_BENCH(fn) BENCHMARK(fn)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()
TRAIN_BENCH(BM_train_mlp);
TRAIN_BENCH(BM_train_cnn);
TRAIN_BENCH(BM_train_transformer);

}  // namespace

BENCHMARK_MAIN();
