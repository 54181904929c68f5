// serve_consumer DIR OUT.bin: runs the artifact's "logits" on DIR/x.bin ([3, 6] f32)
// on Tlaloc's CPU plugin, found by its short name, and writes the raw output.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <tlaloc/runtime.hpp>
#include <tlaloc/serve.hpp>
#include <tlaloc/tlaloc.hpp>
#include <vector>

namespace tl = tlaloc;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: serve_consumer DIR OUT.bin\n");
    return 2;
  }
  try {
    const tl::serve::Model model =
        tl::serve::Model::load(argv[1], {.backend = tl::runtime::Backend::pjrt, .plugin_path = "tlaloc_cpu"});
    std::ifstream in(std::string(argv[1]) + "/x.bin", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<float> x(bytes.size() / sizeof(float));
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(x.data()));
    const std::vector<float> y = model.run("logits", {tl::tensor(x, {3, 6})})[0].to_vector<float>();
    std::ofstream(argv[2], std::ios::binary)
        .write(reinterpret_cast<const char*>(y.data()), std::streamsize(y.size() * sizeof(float)));
    std::printf("ran on %s\n", model.session().platform_name().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "serve_consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
