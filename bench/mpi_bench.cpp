// Several processes through MPI (docs/DISTRIBUTED.md), run by bench/run.sh:
//   mpi_bench allreduce REPEATS   under `mpirun -np 2`: tl::psum of 16M f32 in a
//       shard_map against a bare MPI_Allreduce of the same buffer; prints the median
//       seconds of each and their bandwidth ratio (bare / ours, higher for Tlaloc).
//   mpi_bench step REPEATS        the data-parallel MLP step (784-512-512-10, global
//       batch 256, tl::pmean of the losses): prints the median seconds of one step.
//       bench/run.sh runs it under `mpirun -np 2` with one thread each, and alone
//       (two devices as threads of one process) with two threads.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <tlaloc/distributed.hpp>
#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;
using Clock = std::chrono::steady_clock;

namespace {

template <class F>
double median_seconds(int repeats, F f) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int allreduce(int repeats, const tl::distributed::World& world) {
  constexpr std::int64_t kCount = std::int64_t(16) << 20;
  const tl::Tensor x = tl::full({kCount}, 1.0, tl::DType::f32);
  const auto sum = tl::shard_map([](const tl::Tensor& v) { return tl::psum(v, "data"); },
                                 tl::Mesh({{"data", world.size}}), {tl::P()}, tl::P());
  // Traced once, and checked: every element is the sum of the processes' ones.
  const std::vector<float> got = sum(x).to_vector<float>();
  if (std::any_of(got.begin(), got.end(), [&](float v) { return v != float(world.size); })) {
    std::fprintf(stderr, "mpi_bench: tl::psum gave a wrong sum\n");
    return 1;
  }
  const double ours = median_seconds(repeats, [&] { (void)sum(x); });
  std::vector<float> buffer(std::size_t(kCount), 1.0f);
  const double bare = median_seconds(repeats, [&] {
    MPI_Allreduce(MPI_IN_PLACE, buffer.data(), int(kCount), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  });
  if (world.rank == 0)
    std::printf(
        "all-reduce of 16M f32 across %d processes: tl::psum %.4f s, MPI_Allreduce %.4f s, "
        "bandwidth ratio %.2f (the goal is at least 0.9)\n",
        world.size, ours, bare, bare / ours);
  return 0;
}

int step(int repeats, const tl::distributed::World& world) {
  const std::int64_t devices = world.size > 1 ? world.size : 2;
  const tl::nn::MLP mlp{.sizes = {784, 512, 512, 10}};
  const std::vector<tl::random::Key> k = tl::random::split(tl::random::key(7), 3);
  const tl::nn::Params init = mlp.init(k[0]);
  const tl::nn::Batch batch{tl::random::normal(k[1], {256, 784}), tl::random::randint(k[2], {256}, 0, 10)};
  const auto loss = tl::shard_map(
      [&](const tl::nn::Params& p, const tl::Tensor& x, const tl::Tensor& y) {
        return tl::pmean(tl::nn::cross_entropy(mlp(p, x), y), "data");
      },
      tl::Mesh({{"data", devices}}), {tl::P(), tl::P("data"), tl::P("data")}, tl::P());
  const tl::nn::TrainStep train =
      tl::nn::capture(
          [&](const tl::nn::Params& p, const tl::nn::Batch& b) { return loss(p, b.inputs, b.targets); }, init,
          batch)
          .train_step(tl::nn::SGD{.lr = 0.01});
  tl::nn::Params p = init;
  tl::nn::OptimizerState s = train.init(p);
  const auto one = [&] {
    auto r = train(p, s, batch);
    p = r.params;
    s = r.state;
  };
  one();  // traced once
  const double t = median_seconds(repeats, one);
  if (world.rank == 0) std::printf("%.6f\n", t);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  try {
    const tl::distributed::World world = tl::distributed::initialize();
    if (mode == "allreduce" && world.size > 1) return allreduce(repeats, world);
    if (mode == "step") return step(repeats, world);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpi_bench: %s\n", e.what());
    return 2;
  }
  std::fprintf(stderr, "usage: mpi_bench allreduce|step [REPEATS] (allreduce under mpirun)\n");
  return 2;
}
