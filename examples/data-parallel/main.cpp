// The digits MLP trained data-parallel (docs/DISTRIBUTED.md): every device takes its
// rows of each batch, and the loss is the mean over the devices of their mean losses,
// one tl::shard_map captured into one training step. Started by `mpirun -np N`, each
// process is one device; started alone, two devices run as threads. Either way the
// program also trains on one device over the whole batches and checks that the
// parameters agree within 1e-5, and prints a digest of the data-parallel ones: the
// same digest alone and under `mpirun -np 2` means the same bits.
//
//   data_parallel                         # two devices as threads
//   mpirun -np 2 data_parallel            # two processes
#include <tlaloc/distributed.hpp>
#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>

#include "../digits/data.hpp"

namespace tl = tlaloc;

namespace {

constexpr std::int64_t kBatch = 128;
constexpr std::int64_t kSteps = 20;

// FNV-1a over the parameters' bytes, in name order.
std::uint64_t digest(const tl::nn::Params& p) {
  std::uint64_t h = 14695981039346656037ull;
  for (const auto& [name, t] : p) {
    const auto* bytes = static_cast<const unsigned char*>(t.raw_data());
    for (std::int64_t i = 0; i < t.numel() * std::int64_t(tl::itemsize(t.dtype())); ++i)
      h = (h ^ bytes[i]) * 1099511628211ull;
  }
  return h;
}

}  // namespace

int main() {
  try {
    const tl::distributed::World world = tl::distributed::initialize();
    const std::int64_t devices = world.size > 1 ? world.size : 2;
    const digits::Split split =
        digits::hold_out(digits::load_digits(TLALOC_DIGITS_CSV), 0.2, tl::random::key(0));
    const tl::nn::MLP mlp{.sizes = {digits::kPixels, 64, digits::kClasses}};
    const tl::nn::Params init = mlp.init(tl::random::key(1));
    const auto loss = [mlp](const tl::nn::Params& p, const tl::Tensor& x, const tl::Tensor& y) {
      return tl::nn::cross_entropy(mlp(p, x), y);
    };
    const auto mean_over_devices =
        tl::shard_map([&](const tl::nn::Params& p, const tl::Tensor& x,
                          const tl::Tensor& y) { return tl::pmean(loss(p, x, y), "data"); },
                      tl::Mesh({{"data", devices}}), {tl::P(), tl::P("data"), tl::P("data")}, tl::P());
    std::vector<tl::nn::Batch> batches;
    for (std::int64_t s = 0; s < kSteps; ++s) {
      std::vector<std::int64_t> rows;
      for (std::int64_t i = 0; i < kBatch; ++i) rows.push_back((s * kBatch + i) % split.train.size());
      const digits::Digits b = digits::take_rows(split.train, rows);
      batches.push_back({b.images, b.labels});
    }
    const auto train = [&](const tl::nn::LossOf& of) {
      const tl::nn::TrainStep step =
          tl::nn::capture(of, init, batches[0]).train_step(tl::nn::SGD{.lr = 0.1, .momentum = 0.9});
      tl::nn::Params p = init;
      tl::nn::OptimizerState s = step.init(p);
      for (const tl::nn::Batch& b : batches) {
        auto r = step(p, s, b);
        p = r.params;
        s = r.state;
      }
      return p;
    };
    const tl::nn::Params parallel = train([&](const tl::nn::Params& p, const tl::nn::Batch& b) {
      return mean_over_devices(p, b.inputs, b.targets);
    });
    const tl::nn::Params single =
        train([&](const tl::nn::Params& p, const tl::nn::Batch& b) { return loss(p, b.inputs, b.targets); });
    double worst = 0;
    for (const auto& [name, t] : single)
      worst = std::max(worst, tl::max(tl::abs(parallel.at(name) - t)).astype(tl::DType::f64).item<double>());
    const bool agree = worst <= 1e-5;
    std::fprintf(stderr,
                 "process %d of %d: %d devices, %lld steps; largest difference from one device %.3g (%s)\n",
                 world.rank, world.size, int(devices), static_cast<long long>(kSteps), worst,
                 agree ? "within 1e-5" : "MORE than 1e-5");
    if (world.rank == 0)
      std::printf("parameters after %lld data-parallel steps: digest %016llx, held-out loss %.9g\n",
                  static_cast<long long>(kSteps), static_cast<unsigned long long>(digest(parallel)),
                  loss(parallel, split.test.images, split.test.labels).item<double>());
    return agree ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "data_parallel: %s\n", e.what());
    return 2;
  }
}
