// Writes the gradient of readable::loss with respect to its first argument (the
// first layer's weights) as a C++ source file: `print_gradient OUT.cpp`.
#include "loss.hpp"

#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: print_gradient OUT.cpp\n";
    return 2;
  }
  // Only the shapes and dtypes of these arguments reach the printed code.
  const readable::Point p = readable::random_point(0);
  const std::string text = tl::gradient_source(&readable::loss, p.w1, p.b1, p.w2, p.b2, p.x, p.labels);
  std::ofstream out(argv[1]);
  out << text;
  out.close();
  if (!out) {
    std::cerr << "print_gradient: could not write " << argv[1] << "\n";
    return 1;
  }
  std::size_t lines = 0;
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  std::cout << "print_gradient: wrote the gradient of the loss (" << lines << " lines) to " << argv[1]
            << "\n";
  return 0;
}
