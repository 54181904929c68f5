// Training steps per second with the model and optimizer state kept as device
// buffers (donated each step) against a loop that sends the whole state through
// the host every step; an MLP 784-256-10 with Adam, batch 64, on a PJRT plugin
// (Tlaloc's CPU plugin by default). Rounds alternate the two loops, so a noisy
// moment of the machine hits both; the medians of the rounds are printed.
//
//   device_resident_bench [PLUGIN ("": TLALOC_PJRT_PLUGIN_PATH, else the CPU plugin)] [rounds] [steps]
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "mlp_train_loop.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tlbench;
  const char* env = std::getenv("TLALOC_PJRT_PLUGIN_PATH");
  const std::string plugin = argc > 1 && *argv[1] ? argv[1] : env != nullptr && *env ? env : TLALOC_PJRT_CPU_PLUGIN;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 50;
  try {
    const MlpTraining t = mlp_training({784, 256, 10}, 64);
    const rt::Session s({.backend = rt::Backend::pjrt, .plugin_path = plugin});
    const rt::Executable e = s.compile(t.step.stablehlo());
    std::vector<rt::Buffer> on_device = s.to_device(t.initial_state);
    std::vector<tlaloc::Tensor> on_host = t.initial_state;
    (void)resident_steps(s, e, on_device, t.batch, 3);  // warm-up
    (void)round_trip_steps(e, on_host, t.batch, 3);
    std::vector<double> resident, round_trip, ratio;
    for (int r = 0; r < rounds; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      const float a = resident_steps(s, e, on_device, t.batch, steps);
      resident.push_back(steps / seconds_since(t0));
      t0 = std::chrono::steady_clock::now();
      const float b = round_trip_steps(e, on_host, t.batch, steps);
      round_trip.push_back(steps / seconds_since(t0));
      ratio.push_back(resident.back() / round_trip.back());
      if (a != b) {  // the two loops train the same model from the same state
        fmt::print(stderr, "the loops diverged: loss {} (resident) against {} (round trip)\n", a, b);
        return 1;
      }
    }
    fmt::print("MLP 784-256-10, Adam, batch 64, on {} ({}); {} rounds of {} steps, medians\n", s.platform_name(),
               s.platform_version(), rounds, steps);
    fmt::print("{:<44} {:>10.1f} steps/s\n", "state on the device (donated each step)", median(resident));
    fmt::print("{:<44} {:>10.1f} steps/s\n", "state through the host every step", median(round_trip));
    fmt::print("{:<44} {:>10.2f}\n", "ratio (median of the per-round ratios)", median(ratio));
    return 0;
  } catch (const std::exception& ex) {
    fmt::print(stderr, "device_resident_bench: {}\n", ex.what());
    return 1;
  }
}
