#include <tlaloc/tlaloc.hpp>

#include <iostream>

namespace tl = tlaloc;

int main() {
  tl::Tensor a = tl::tensor({1.f, 2.f, 3.f, 4.f}, {2, 2});
  const float s = tl::sum(tl::matmul(a, a)).item<float>();  // [[7, 10], [15, 22]]
  std::cout << "consumer: sum(a @ a) = " << s << "\n";
  return s == 54.f ? 0 : 1;
}
