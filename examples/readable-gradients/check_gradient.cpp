// Runs the printed gradient (gradient.cpp, written at build time by print_gradient)
// and tl::grad at several random points of the printed shapes, and checks that the
// two agree bit for bit. Exit status 1 on any difference. `check_gradient --perturb`
// moves one element of each printed result by one ulp first, to show that the
// comparison sees it.
#include "loss.hpp"

#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

// Defined in the printed file.
tl::Tensor gradient(const tl::Tensor& x0, const tl::Tensor& x1, const tl::Tensor& x2, const tl::Tensor& x3,
                    const tl::Tensor& x4, const tl::Tensor& x5);

namespace {

bool same_bits(const tl::Tensor& a, const tl::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const std::vector<float> va = a.to_vector<float>();
  const std::vector<float> vb = b.to_vector<float>();
  return std::memcmp(va.data(), vb.data(), va.size() * sizeof(float)) == 0;
}

// t with its first element moved to the next float up.
tl::Tensor one_ulp_off(const tl::Tensor& t) {
  std::vector<float> v = t.to_vector<float>();
  v[0] = std::nextafter(v[0], std::numeric_limits<float>::infinity());
  return tl::tensor(v, t.shape());
}

double norm(const tl::Tensor& t) { return std::sqrt(tl::sum(t * t).item<double>()); }

}  // namespace

int main(int argc, char** argv) {
  const bool perturb = argc == 2 && std::string(argv[1]) == "--perturb";
  if (argc > 2 || (argc == 2 && !perturb)) {
    std::cerr << "usage: check_gradient [--perturb]\n";
    return 2;
  }
  const auto traced_gradient = tl::grad(&readable::loss);  // traced once, run at every point
  const std::vector<std::uint64_t> seeds{1, 2, 3, 42, 2024};
  int failures = 0;
  for (const std::uint64_t seed : seeds) {
    const readable::Point p = readable::random_point(seed);
    tl::Tensor printed = gradient(p.w1, p.b1, p.w2, p.b2, p.x, p.labels);
    if (perturb) printed = one_ulp_off(printed);
    const tl::Tensor traced = traced_gradient(p.w1, p.b1, p.w2, p.b2, p.x, p.labels);
    const bool same = same_bits(printed, traced);
    failures += same ? 0 : 1;
    std::cout << "seed " << seed << ": loss "
              << readable::loss(p.w1, p.b1, p.w2, p.b2, p.x, p.labels).item<float>() << ", gradient "
              << tl::shape_string(printed.shape()) << " with norm " << norm(printed) << ": "
              << (same ? "printed == tl::grad, bit for bit" : "DIFFERENT") << "\n";
    if (!same) {
      std::cout << "  printed:\n" << printed << "\n  tl::grad:\n" << traced << "\n";
    }
  }
  std::cout << seeds.size() - std::size_t(failures) << " of " << seeds.size()
            << " points: the printed gradient gives tl::grad's bits\n";
  return failures == 0 ? 0 : 1;
}
