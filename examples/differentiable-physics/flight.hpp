// A projectile with quadratic air drag, integrated with semi-implicit Euler in
// tlaloc tensor ops (f64), so that tl::grad can differentiate where it lands with
// respect to how it was launched.
#pragma once

#include <tlaloc/tlaloc.hpp>

#include <vector>

namespace tl = tlaloc;

namespace physics {

struct World {
  double gravity = 9.81;  // m/s^2
  double drag = 0.02;     // 1/m: the drag deceleration is drag * |v| * v
  double dt = 0.05;       // s
  int steps = 80;         // 4 s of flight: enough for every launch the example tries
};

struct Flight {
  tl::Tensor landing_x;  // f64[1]: where the path first crosses y = 0 going down
  tl::Tensor landed;     // bool[1]: whether it did within the steps
};

// Launched from the origin with velocity v0 (f64[2]: horizontal, vertical). Each step
// updates the velocity first and moves with the new one (semi-implicit Euler). The
// landing point is interpolated linearly inside the step that crosses the ground, a
// `where`, so its derivative flows through that step's positions.
inline Flight fly(const tl::Tensor& v0, const World& w) {
  const tl::Tensor gravity = tl::tensor(std::vector<double>{0.0, -w.gravity});
  tl::Tensor p = tl::zeros({2}, tl::DType::f64);
  tl::Tensor v = v0;
  tl::Tensor landing = tl::zeros({1}, tl::DType::f64);
  tl::Tensor landed = tl::zeros({1}, tl::DType::boolean);
  for (int i = 0; i < w.steps; ++i) {
    const tl::Tensor speed = tl::sqrt(tl::sum(v * v));
    v = v + w.dt * (gravity - w.drag * speed * v);
    const tl::Tensor next = p + w.dt * v;
    const tl::Tensor x0 = tl::slice(p, 0, 0, 1), y0 = tl::slice(p, 0, 1, 2);
    const tl::Tensor x1 = tl::slice(next, 0, 0, 1), y1 = tl::slice(next, 0, 1, 2);
    const tl::Tensor crossing = (y0 > 0.0) & (y1 <= 0.0);
    landing = tl::where(crossing, x0 + (x1 - x0) * (y0 / (y0 - y1)), landing);
    landed = landed | crossing;
    p = next;
  }
  return {landing, landed};
}

}  // namespace physics
