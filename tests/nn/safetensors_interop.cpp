// The C++ half of the interoperability check (check_safetensors.py): `write FILE`
// writes a file of every dtype for an independent reader; `read FILE` loads a file
// another writer made and prints it, one tensor or metadata entry a line:
//   tensor<TAB>name<TAB>DTYPE<TAB>d0,d1,...<TAB>v0,v1,...
//   meta<TAB>key<TAB>value
#include <cstdio>
#include <string>
#include <string_view>

#include "io/safetensors_dtypes.hpp"
#include "tlaloc/nn.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;

namespace {

// Element i of tensor `x.<dtype>` is i (bool: i % 2), shape [2, 3]; the checker
// computes the same values.
tl::nn::Params sample() {
  tl::nn::Params p;
  const tl::Tensor base = tl::tensor<float>({0, 1, 2, 3, 4, 5}, {2, 3});
  for (tl::DType t : tl::all_dtypes) {
    const tl::Tensor x = t == tl::DType::boolean ? tl::tensor(std::vector<bool>{false, true, false, true, false, true}, {2, 3})
                                                 : base.astype(t);
    p.set(std::string("x.").append(tl::io::safetensors_name(t)), x);
  }
  p.set("scalar", tl::scalar_tensor(-2.5, tl::DType::f32));
  p.set("empty", tl::zeros({0, 4}, tl::DType::f64));
  p.set("layers.0.weight", tl::tensor<float>({0.1f, -1e30f, 3.25f}, {3, 1}));
  return p;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "," : "") + parts[i];
  return out;
}

int read(const char* path) {
  const tl::nn::SafeTensors st = tl::nn::load_safetensors(path);
  for (const auto& [key, value] : st.metadata) std::printf("meta\t%s\t%s\n", key.c_str(), value.c_str());
  for (const auto& [name, t] : st.tensors) {
    std::vector<std::string> dims, values;
    for (auto d : t.shape()) dims.push_back(std::to_string(d));
    char buf[40];
    for (double v : t.to_vector<double>()) {
      std::snprintf(buf, sizeof buf, "%.17g", v);
      values.emplace_back(buf);
    }
    std::printf("tensor\t%s\t%s\t%s\t%s\n", name.c_str(),
                std::string(tl::io::safetensors_name(t.dtype())).c_str(), join(dims).c_str(),
                join(values).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s write|read FILE\n", argv[0]);
    return 2;
  }
  try {
    const std::string_view mode = argv[1];
    if (mode == "write") {
      tl::nn::save_safetensors(argv[2], sample(), {{"purpose", "interop"}, {"unicode", "\xc3\xb1\xe2\x86\x92\xe2\x9c\x93"}});
      return 0;
    }
    if (mode == "read") return read(argv[2]);
  } catch (const tl::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "unknown mode %s\n", argv[1]);
  return 2;
}
