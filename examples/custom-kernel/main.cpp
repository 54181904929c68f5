// A small model with a fused RMSNorm written as XLA FFI handlers (README.md): trained
// with the kernels, its gradient checked against central differences and against the
// same model composed of library ops, exported, and served through Tlaloc's PJRT CPU
// plugin (whose FFI extension the handlers register with). It writes the inputs and
// predictions of the served model for serve.py, which serves the same artifact from
// Python. Exit status 1 when a check fails.
//
//   custom_kernel --out DIR --plugin PATH_TO_PLUGIN
#include <tlaloc/nn.hpp>
#include <tlaloc/runtime.hpp>
#include <tlaloc/serve.hpp>
#include <tlaloc/tlaloc.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>

#include "rms_norm.hpp"

namespace tl = tlaloc;

namespace {

using Norm = tl::Tensor (*)(const tl::Tensor&, const tl::Tensor&);

// inputs [n, 16] -> hidden [n, 64], normalized, tanh -> outputs [n, 4].
tl::Tensor predict(Norm norm, const tl::nn::Params& p, const tl::Tensor& x) {
  const tl::Tensor h = tl::tanh(norm(tl::matmul(x, p.at("w1")) + p.at("b1"), p.at("g")));
  return tl::matmul(h, p.at("w2")) + p.at("b2");
}

tl::Tensor loss(Norm norm, const tl::nn::Params& p, const tl::nn::Batch& b) {
  const tl::Tensor e = predict(norm, p, b.inputs) - b.targets;
  return tl::mean(e * e);
}

tl::nn::Params init() {
  const auto key = [](int k) { return tl::random::key(static_cast<std::uint64_t>(k)); };
  return {{"w1", tl::random::normal(key(10), {16, 64}) * 0.25f},
          {"b1", tl::zeros({64})},
          {"g", tl::ones({64})},
          {"w2", tl::random::normal(key(11), {64, 4}) * 0.125f},
          {"b2", tl::zeros({4})}};
}

// A teacher's targets: sin(x T).
tl::nn::Batch data(std::uint64_t seed, std::int64_t n) {
  const tl::Tensor x = tl::random::normal(tl::random::key(seed), {n, 16});
  const tl::Tensor t = tl::random::normal(tl::random::key(99), {16, 4}) * 0.5f;
  return {x, tl::sin(tl::matmul(x, t))};
}

double largest(const tl::Tensor& t) { return tl::max(tl::abs(t)).astype(tl::DType::f64).item<double>(); }

// The kernel's gradient against the composed model's and against central differences
// of the kernel model's loss, on a few parameters' elements.
bool check_gradient(const tl::nn::Params& p, const tl::nn::Batch& b) {
  const auto with_kernel = [&b](const tl::nn::Params& q) { return loss(rms::rms_norm, q, b); };
  const auto composed = [&b](const tl::nn::Params& q) { return loss(rms::rms_norm_composed, q, b); };
  const tl::nn::Params g = tl::grad(with_kernel)(p), want = tl::grad(composed)(p);
  bool ok = true;
  for (const auto& [name, t] : g) {
    const double diff = largest(t - want.at(name)), scale = largest(want.at(name));
    std::printf("gradient of %-2s: largest difference from the composed model %.3g (of %.3g)\n", name.c_str(),
                diff, scale);
    ok = ok && diff <= 1e-4 * std::max(scale, 1e-2);
  }
  const double h = 1e-2;
  for (const char* name : {"w1", "g", "w2"}) {
    std::vector<float> v = p.at(name).to_vector<float>();
    const std::vector<float> gv = g.at(name).to_vector<float>();
    for (std::size_t i : {std::size_t{0}, v.size() / 2, v.size() - 1}) {
      const auto at = [&](double delta) {
        std::vector<float> moved = v;
        moved[i] = static_cast<float>(moved[i] + delta);
        tl::nn::Params q = p;
        q.set(name, tl::tensor(moved, p.at(name).shape()));
        return with_kernel(q).astype(tl::DType::f64).item<double>();
      };
      const double diff = (at(h) - at(-h)) / (2 * h);
      const bool close = std::abs(diff - gv[i]) <= 5e-5 + 1e-3 * std::abs(diff);
      std::printf("d loss / d %s[%zu]: kernel %.6g, central difference %.6g%s\n", name, i, double(gv[i]),
                  diff, close ? "" : "  MISMATCH");
      ok = ok && close;
    }
  }
  return ok;
}

// Writes a tensor's values as text, one per line (exact: 9 digits), for serve.py.
void write_values(const std::string& path, const tl::Tensor& t) {
  std::ofstream out(path);
  char text[32];
  for (float v : t.to_vector<float>()) {
    std::snprintf(text, sizeof text, "%.9g\n", double(v));
    out << text;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "custom-kernel-out", plugin;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--out") == 0)
      out = argv[i + 1];
    else if (std::strcmp(argv[i], "--plugin") == 0)
      plugin = argv[i + 1];
  }
  try {
    const tl::nn::Batch train = data(1, 256), held_out = data(2, 64);
    tl::nn::Params p = init();
    bool ok = check_gradient(p, train);
    // Training: one captured program per step, the kernels inside it.
    const tl::nn::TrainStep step =
        tl::nn::capture(
            [](const tl::nn::Params& q, const tl::nn::Batch& c) { return loss(rms::rms_norm, q, c); }, p,
            train)
            .train_step(tl::nn::Adam{.lr = 1e-2});
    tl::nn::OptimizerState s = step.init(p);
    const double first = loss(rms::rms_norm, p, held_out).item<float>();
    for (int k = 0; k < 200; ++k) {
      auto r = step(p, s, train);
      p = r.params;
      s = r.state;
    }
    const double last = loss(rms::rms_norm, p, held_out).item<float>();
    std::printf("held-out loss: %.4f before training, %.4f after 200 steps\n", first, last);
    ok = ok && last < 0.5 * first;
    // Export, and serve through the plugin: the Session registers the handlers with it.
    const auto served = [](const tl::nn::Params& q, const tl::Tensor& x) {
      return predict(rms::rms_norm, q, x);
    };
    tl::serve::export_function(out + "/artifact", "predict", p, served, {.inputs = {"x"}, .outputs = {"y"}},
                               held_out.inputs);
    const tl::Tensor eager = predict(rms::rms_norm, p, held_out.inputs);
    tl::runtime::SessionOptions options{.backend = tl::runtime::Backend::pjrt, .plugin_path = plugin};
    const tl::serve::Model model = tl::serve::Model::load(out + "/artifact", options);
    const tl::Tensor through_plugin = model.run("predict", {held_out.inputs}).at(0);
    const double served_diff = largest(through_plugin - eager);
    std::printf("served through %s: largest difference from eager %.3g\n",
                model.session().platform_name().c_str(), served_diff);
    ok = ok && served_diff <= 1e-6;
    write_values(out + "/x.txt", held_out.inputs);
    write_values(out + "/y.txt", through_plugin);
    std::printf("%s\n", ok ? "all checks passed" : "a check FAILED");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "custom_kernel: %s\n", e.what());
    return 2;
  }
}
