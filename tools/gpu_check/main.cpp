// tlaloc_gpu_check: the C++ half of scripts/gpu-check.sh. On the PJRT plugin named
// by TLALOC_PJRT_PLUGIN_PATH (the CUDA plugin there; Tlaloc's CPU plugin in the
// host test) it prints the plugin's PJRT version and table size, runs the programs
// of op_table.hpp on the plugin and on the interpreter and compares them within
// each one's tolerance, then trains an MLP 784-256-10 (Adam, batch 64) with its
// state resident on the device and times it, and against a host round trip.
// The last lines are the table "name | result | detail", one row each.
//
//   tlaloc_gpu_check [--steps N]      exit status 0 only when every row passed
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../../bench/mlp_train_loop.hpp"
#include "op_table.hpp"
#include "runtime/pjrt/plugin.hpp"

namespace {

namespace rt = tlaloc::runtime;

struct Row {
  std::string name, result, detail;
};

// The largest error relative to the bound (<= 1 passes), and the worst absolute error.
std::pair<double, double> compare(const tlaloc::Tensor& got, const tlaloc::Tensor& want, double rtol, double atol) {
  const std::vector<float> g = got.to_vector<float>(), w = want.to_vector<float>();
  double worst = 0, worst_abs = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double err = std::abs(double(g[i]) - double(w[i]));
    const double bound = atol + rtol * std::abs(double(w[i]));
    worst_abs = std::max(worst_abs, err);
    worst = std::max(worst, err == 0 ? 0.0 : bound == 0 ? INFINITY : err / bound);
    if (std::isnan(g[i]) != std::isnan(w[i])) worst = INFINITY;
  }
  return {worst, worst_abs};
}

Row check_op(const rt::Session& device, const rt::Session& interp, const tlgpu::OpCase& c) {
  try {
    const std::vector<tlaloc::Tensor> in = c.inputs();
    const tlaloc::Tensor got = device.compile(c.text).run(in).at(0);
    const tlaloc::Tensor want = interp.compile(c.text).run(in).at(0);
    if (got.shape() != want.shape()) return {c.name, "FAIL", "shapes differ"};
    const auto [worst, worst_abs] = compare(got, want, c.rtol, c.atol);
    return {c.name, worst <= 1 ? "pass" : "FAIL",
            fmt::format("max |err| {:.3g} (rtol {:g}, atol {:g})", worst_abs, c.rtol, c.atol)};
  } catch (const std::exception& e) {
    return {c.name, "FAIL", e.what()};
  }
}

// The captured training step: one step's loss and new parameters on the device
// against the interpreter; then steps per second, resident and round trip.
std::vector<Row> check_training(const rt::Session& device, const rt::Session& interp, int steps) {
  std::vector<Row> rows;
  try {
    const tlbench::MlpTraining t = tlbench::mlp_training({784, 256, 10}, 64);
    const rt::Executable e = device.compile(t.step.stablehlo());
    std::vector<tlaloc::Tensor> args = t.initial_state;
    args.push_back(t.batch.inputs);
    args.push_back(t.batch.targets);
    const std::vector<tlaloc::Tensor> got = e.run(args), want = interp.compile(t.step.stablehlo()).run(args);
    double worst = 0, worst_abs = 0;
    for (std::size_t i = 0; i + 1 < got.size(); ++i) {  // the step counter is i64: compared exactly below
      if (got[i].dtype() != tlaloc::DType::f32) continue;
      const auto [w, a] = compare(got[i], want[i], 2e-2, 1e-4);
      worst = std::max(worst, w), worst_abs = std::max(worst_abs, a);
    }
    const auto [lw, la] = compare(got.back(), want.back(), 2e-2, 0);
    rows.push_back({"MLP train step (one step, all outputs)", worst <= 1 && lw <= 1 ? "pass" : "FAIL",
                    fmt::format("max |err| {:.3g}, loss {:.6g} vs {:.6g}", std::max(worst_abs, la),
                                got.back().item<float>(), want.back().item<float>())});

    std::vector<rt::Buffer> state = device.to_device(t.initial_state);
    std::vector<tlaloc::Tensor> host = t.initial_state;
    (void)tlbench::resident_steps(device, e, state, t.batch, 5);
    (void)tlbench::round_trip_steps(e, host, t.batch, 5);
    auto t0 = std::chrono::steady_clock::now();
    const float loss = tlbench::resident_steps(device, e, state, t.batch, steps);
    const double resident = steps / tlbench::seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    (void)tlbench::round_trip_steps(e, host, t.batch, steps);
    const double round_trip = steps / tlbench::seconds_since(t0);
    rows.push_back({"MLP 784-256-10 Adam b64, state on device", std::isfinite(loss) ? "timed" : "FAIL",
                    fmt::format("{:.1f} steps/s (loss {:.4g} after {} steps)", resident, loss, steps + 5)});
    rows.push_back({"same, state through the host each step", "timed",
                    fmt::format("{:.1f} steps/s (resident is {:.2f}x)", round_trip, resident / round_trip)});
  } catch (const std::exception& ex) {
    rows.push_back({"MLP training", "FAIL", ex.what()});
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 200;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--steps") == 0) steps = std::atoi(argv[i + 1]);
  const auto path = rt::pjrt::Plugin::path_from_env();
  if (!path) {
    fmt::print(stderr, "tlaloc_gpu_check: set TLALOC_PJRT_PLUGIN_PATH to the PJRT plugin to check\n");
    return 2;
  }
  try {
    const rt::pjrt::Plugin plugin = rt::pjrt::Plugin::load(*path);
    const rt::Session device({.backend = rt::Backend::pjrt, .plugin_path = path->string()});
    const rt::Session interp;
    fmt::print("plugin {}: PJRT {}.{}, table {} bytes; platform {} ({})\n", path->string(),
               plugin.version().major, plugin.version().minor, plugin.table_size(), device.platform_name(),
               device.platform_version());
    std::vector<Row> rows;
    for (const tlgpu::OpCase& c : tlgpu::op_table()) rows.push_back(check_op(device, interp, c));
    for (Row& r : check_training(device, interp, steps)) rows.push_back(std::move(r));
    bool ok = true;
    fmt::print("\n{:<42} | {:<6} | {}\n", "check", "result", "detail");
    for (const Row& r : rows) {
      fmt::print("{:<42} | {:<6} | {}\n", r.name, r.result, r.detail);
      ok = ok && r.result != "FAIL";
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tlaloc_gpu_check: {}\n", e.what());
    return 1;
  }
}
