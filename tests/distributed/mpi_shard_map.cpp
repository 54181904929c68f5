// A shard_map over a mesh of two devices: run alone, the devices are threads of this
// process; run by `mpirun -np 2`, each process runs one. The ctest
// distributed.mpi_matches_threads compares the two runs' printed bits, and this
// program checks its results against the same computation without a mesh.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "tlaloc/distributed.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;
using tl::Tensor;

namespace {

Tensor local_loss(const Tensor& x, const Tensor& w, const Tensor& y) {
  const Tensor e = tl::tanh(tl::matmul(x, w)) - y;
  return tl::sum(e * e);
}

void print_bits(const char* name, const Tensor& t) {
  std::printf("%s", name);
  for (double v : t.to_vector<double>()) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    std::printf(" %016llx", static_cast<unsigned long long>(bits));
  }
  std::printf("\n");
}

}  // namespace

int main() {
  const tl::distributed::World world = tl::distributed::initialize();
  const tl::Mesh mesh({{"data", 2}});
  const auto data = [](std::uint64_t seed, tl::Shape shape) {
    return tl::random::normal(tl::random::key(seed), shape).astype(tl::DType::f64);
  };
  const Tensor x = data(1, {8, 3}), w = data(2, {3, 2}), y = data(3, {8, 2});
  const auto loss = tl::shard_map([](const Tensor& xs, const Tensor& v,
                                     const Tensor& ys) { return tl::psum(local_loss(xs, v, ys), "data"); },
                                  mesh, {tl::P("data"), tl::P(), tl::P("data")}, tl::P());
  const auto rows =
      tl::shard_map([](const Tensor& xs, const Tensor& v) { return tl::tanh(tl::matmul(xs, v)); }, mesh,
                    {tl::P("data"), tl::P()}, tl::P("data"));
  // Seven elements: across processes each folds a part of its own size (3 and 4).
  const Tensor z = data(4, {2, 7});
  const auto least =
      tl::shard_map([](const Tensor& zs) { return tl::pmin(zs, "data"); }, mesh, {tl::P("data")}, tl::P());
  const Tensor m = least(z);
  const auto [l, g] = tl::value_and_grad([&](const Tensor& v) { return loss(x, v, y); })(w);
  const Tensor r = rows(x, w);
  const auto [l1, g1] = tl::value_and_grad([&](const Tensor& v) { return local_loss(x, v, y); })(w);
  const bool close = tl::allclose(l, l1, 1e-12, 1e-12) && tl::allclose(g, g1, 1e-12, 1e-12) &&
                     tl::allclose(r, tl::tanh(tl::matmul(x, w)), 1e-12, 1e-12) &&
                     tl::allclose(m, tl::min(z, {0}, true), 0, 0);
  std::fprintf(stderr, "process %d of %d: %s\n", world.rank, world.size,
               close ? "matches the unsharded computation" : "DIFFERS from the unsharded computation");
  if (world.rank == 0) {
    print_bits("loss", l);
    print_bits("grad", g);
    print_bits("rows", r);
    print_bits("least", m);
  }
  return close ? 0 : 1;
}
