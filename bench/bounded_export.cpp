// bounded_export DIR: the MLP that bench/bounded_serve.py serves, exported twice from
// the same weights: DIR/bounded with one entry point "logits" whose batch is bounded
// by 256 (powers-of-two buckets), and DIR/exact with an entry point "b<n>" for each
// batch size n the bench times (exact shapes, one program each).
#include <cstdio>
#include <filesystem>
#include <string>
#include <tlaloc/nn.hpp>
#include <tlaloc/serve.hpp>
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bounded_export DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const tl::nn::MLP mlp{.sizes = {784, 256, 10}};
  const tl::nn::Params p = mlp.init(tl::random::key(0));
  const auto f = [&mlp](const tl::nn::Params& q, const tl::Tensor& x) { return mlp(q, x); };
  tl::serve::Exporter bounded(p);
  bounded.add("logits", tl::bounded(f, {{"batch", 256}}, {tl::dims("batch", 784)}), {.inputs = {"x"}},
              tl::random::normal(tl::random::key(1), {5, 784}));
  bounded.save(dir / "bounded");
  tl::serve::Exporter exact(p);
  for (int n = 1; n <= 256; ++n) {
    std::string name = "b";
    name += std::to_string(n);
    exact.add(name, f, {.inputs = {"x"}}, tl::zeros({n, 784}));
  }
  exact.save(dir / "exact");
  return 0;
}
