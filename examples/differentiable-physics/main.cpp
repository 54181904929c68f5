// Aiming a projectile with drag by gradient descent through its integrator: the
// launch velocity is adjusted along tl::grad of the squared miss until the
// projectile lands within a tolerance of the target. The gradient is checked
// against central finite differences of the same simulation, in double precision.
// Exit status 1 when the descent does not converge or the check fails.
#include "flight.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr double target = 25.0;     // m, on the ground
constexpr double tolerance = 1e-3;  // m: the landing must be this close
constexpr double learning_rate = 0.2;
constexpr double fd_step = 1e-5;   // m/s, for the central differences
constexpr double fd_bound = 1e-6;  // the largest accepted |grad - fd|, relative to max(1, |grad|_inf)

double component(const tl::Tensor& t, std::size_t i) { return t.to_vector<double>()[i]; }

// Central differences of f at v, one launch component at a time, in double.
template <class F>
std::vector<double> central_differences(const F& f, const tl::Tensor& v) {
  std::vector<double> out;
  const std::vector<double> base = v.to_vector<double>();
  for (std::size_t i = 0; i < base.size(); ++i) {
    std::vector<double> plus = base, minus = base;
    plus[i] += fd_step;
    minus[i] -= fd_step;
    const double fp = f(tl::tensor(plus)).template item<double>();
    const double fm = f(tl::tensor(minus)).template item<double>();
    out.push_back((fp - fm) / (2 * fd_step));
  }
  return out;
}

// The largest |grad - fd| over the components, relative to max(1, |grad|_inf).
double fd_gap(const tl::Tensor& grad, const std::vector<double>& fd) {
  const std::vector<double> g = grad.to_vector<double>();
  double gap = 0, scale = 1;
  for (std::size_t i = 0; i < g.size(); ++i) {
    gap = std::max(gap, std::abs(g[i] - fd[i]));
    scale = std::max(scale, std::abs(g[i]));
  }
  return gap / scale;
}

}  // namespace

int main(int argc, char** argv) {
  // `aim --iterations N` gives up after N iterations (default 200).
  int max_iterations = 200;
  if (argc == 3 && std::string(argv[1]) == "--iterations") {
    max_iterations = std::stoi(argv[2]);
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: aim [--iterations N]\n");
    return 2;
  }
  const physics::World world;
  // Half the squared miss: its gradient is miss * d(landing)/d(v0).
  const auto loss = [&](const tl::Tensor& v0) {
    const tl::Tensor miss = physics::fly(v0, world).landing_x - target;
    return 0.5 * tl::sum(miss * miss);
  };
  const auto dloss = tl::grad(loss);  // traced at the first call, then reused
  // Where it lands, whose derivative does not vanish at the target: checked too.
  const auto landing = [&](const tl::Tensor& v0) { return tl::sum(physics::fly(v0, world).landing_x); };
  const auto dlanding = tl::grad(landing);

  tl::Tensor v0 = tl::tensor(std::vector<double>{8.0, 8.0});
  std::printf("target %.1f m; %d steps of %.2f s, drag %.2f/m; launch (%.1f, %.1f) m/s\n", target,
              world.steps, world.dt, world.drag, component(v0, 0), component(v0, 1));
  const double first_gap = std::max(fd_gap(dloss(v0), central_differences(loss, v0)),
                                    fd_gap(dlanding(v0), central_differences(landing, v0)));

  int iteration = 0;
  double miss = 0;
  for (;; ++iteration) {
    const physics::Flight flight = physics::fly(v0, world);
    if (!flight.landed.item<bool>()) {
      std::printf("FAIL: the launch (%g, %g) m/s does not land within %d steps\n", component(v0, 0),
                  component(v0, 1), world.steps);
      return 1;
    }
    miss = std::abs(flight.landing_x.item<double>() - target);
    if (miss < tolerance || iteration == max_iterations) break;
    const tl::Tensor g = dloss(v0);
    std::printf("  iteration %3d: lands at %8.4f m, miss %.2e m, |grad| %.3e\n", iteration,
                flight.landing_x.item<double>(), miss, std::sqrt(tl::sum(g * g).item<double>()));
    v0 = v0 - learning_rate * g;
  }
  const tl::Tensor g = dloss(v0);
  const tl::Tensor dl = dlanding(v0);
  const double last_gap =
      std::max(fd_gap(g, central_differences(loss, v0)), fd_gap(dl, central_differences(landing, v0)));
  const bool converged = miss < tolerance;
  const bool fd_ok = first_gap <= fd_bound && last_gap <= fd_bound;
  std::printf("%s after %d iterations: launch (%.6f, %.6f) m/s, miss %.2e m (tolerance %.0e m)\n",
              converged ? "converged" : "FAIL: did not converge", iteration, component(v0, 0),
              component(v0, 1), miss, tolerance);
  std::printf("gradient of 0.5 miss^2 at the end: (%.3e, %.3e), norm %.3e\n", component(g, 0),
              component(g, 1), std::sqrt(tl::sum(g * g).item<double>()));
  std::printf("d(landing)/d(launch velocity) at the end: (%.4f, %.4f) s, norm %.4f s\n", component(dl, 0),
              component(dl, 1), std::sqrt(tl::sum(dl * dl).item<double>()));
  std::printf(
      "%s: gradients vs central differences (f64, step %.0e): relative gap %.2e at the start, %.2e at the "
      "end (bound %.0e)\n",
      fd_ok ? "ok" : "FAIL", fd_step, first_gap, last_gap, fd_bound);
  return converged && fd_ok ? 0 : 1;
}
