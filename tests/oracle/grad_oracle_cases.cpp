// grad_oracle_cases OUT.json [--typo]: the derivative half of the oracle lane. For
// every row of the gradient-check table (tests/ad/cases_*.cpp) that has a PyTorch
// expression, writes the inputs, tlaloc's value, its VJP (the pullback of a fixed
// cotangent u) and its JVP (along fixed tangents v) for check_torch_grad.py to
// recompute with torch.autograd (the ctest test oracle.torch_grad runs both).
// --typo adds one row whose expression is misspelt: the test
// oracle.torch_grad_typo checks that the checker fails on it and names the row.
#include <cstdio>
#include <cstring>
#include <fstream>

#include "ad/gradcheck.hpp"
#include "oracle_table.hpp"

namespace {

namespace tl = tlaloc;
using gradcheck::Case;
using tl::Tensor;

bool is_diff(const Tensor& t) { return tl::is_floating(t.dtype()); }

// The same u and v as the finite-difference harness (tests/ad/gradcheck.cpp), so a
// mismatch here can be replayed there.
Tensor cotangent_for(const Tensor& y) { return gradcheck::uniform(y.shape(), -1, 1, 7).astype(y.dtype()); }
Tensor tangent_for(const Tensor& x, std::size_t k) {
  return gradcheck::uniform(x.shape(), -1, 1, 100 + k).astype(x.dtype());
}

// One entry per input: the tensor, or null for an input that is not differentiated.
nlohmann::json per_input(const std::vector<Tensor>& xs, const std::vector<Tensor>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t k = 0; k < xs.size(); ++k)
    out.push_back(is_diff(xs[k]) && values[k].defined() ? oracle::tensor_json(values[k]) : nlohmann::json());
  return out;
}

nlohmann::json row_json(const Case& c) {
  nlohmann::json j = {{"name", c.name}, {"ops", c.ops}, {"expr", c.torch}};
  const std::vector<Tensor>& xs = c.inputs;
  nlohmann::json in = nlohmann::json::array();
  for (const Tensor& x : xs) in.push_back(oracle::tensor_json(x));
  j["inputs"] = std::move(in);
  try {
    const tl::detail::FlatFn f = [&c](std::span<const Tensor> a) { return std::vector<Tensor>{c.fn(a)}; };
    const Tensor y = c.fn(xs);
    const Tensor u = cotangent_for(y);
    j["value"] = oracle::tensor_json(y);
    j["cotangent"] = oracle::tensor_json(u);

    auto [out, state] = tl::detail::run_vjp(f, xs);
    const Tensor us[] = {u};
    j["vjp"] = per_input(xs, tl::detail::run_pullback(*state, us));

    // JVP over the differentiable inputs only; the others stay fixed.
    std::vector<Tensor> prim, v, tangents(xs.size());
    for (std::size_t k = 0; k < xs.size(); ++k)
      if (is_diff(xs[k])) {
        prim.push_back(xs[k]);
        v.push_back(tangents[k] = tangent_for(xs[k], k));
      }
    const tl::detail::FlatFn f_diff = [&](std::span<const Tensor> d) {
      std::vector<Tensor> all = xs;
      std::size_t i = 0;
      for (std::size_t k = 0; k < xs.size(); ++k)
        if (is_diff(xs[k])) all[k] = d[i++];
      return f(all);
    };
    j["tangents"] = per_input(xs, tangents);
    j["jvp"] = oracle::tensor_json(tl::detail::run_jvp(f_diff, prim, v).at(1));
  } catch (const tl::Error& e) {
    j["error"] = e.what();
  }
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  const bool typo = argc == 3 && std::strcmp(argv[2], "--typo") == 0;
  if (argc != 2 && !typo) {
    std::fprintf(stderr, "usage: %s OUT.json [--typo]\n", argv[0]);
    return 2;
  }
  // One thread: the rows are small, and results then match any machine's run.
  tl::set_num_threads(1);
  nlohmann::json rows = nlohmann::json::array();
  std::vector<std::string> without;
  for (const Case& c : gradcheck::table()) {
    if (c.torch.empty())
      without.push_back(c.name);
    else
      rows.push_back(row_json(c));
  }
  if (typo) {
    const Case c{"oracle/typo", {"tanh"}, {gradcheck::uniform({3}, -1, 1, 1)},
                 [](std::span<const Tensor> a) { return tl::tanh(a[0]); }};
    rows.push_back(row_json(gradcheck::with_torch(c, "torch.tanhh(a)")));
  }
  std::ofstream out(argv[1]);
  out << nlohmann::json{{"rows", rows}, {"without_torch", without}}.dump() << '\n';
  if (!out) {
    std::fprintf(stderr, "grad_oracle_cases: cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("grad_oracle_cases: %zu rows written to %s (%zu rows have no PyTorch expression)\n", rows.size(),
              argv[1], without.size());
  return 0;
}
