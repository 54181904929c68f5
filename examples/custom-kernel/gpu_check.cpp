// The custom kernels on a GPU (scripts/gpu-check.sh): the forward and backward of
// rms_norm on [512, 1024] f32, exported as one program and run through a CUDA PJRT
// plugin (which launches rms_norm.cu's PTX), against the same program on the host
// handlers. Exit status 1 when they differ, 2 when something fails.
//
//   custom_kernel_gpu_check PLUGIN [WORK_DIR]
#include <tlaloc/runtime.hpp>
#include <tlaloc/serve.hpp>
#include <tlaloc/tlaloc.hpp>

#include <cstdio>
#include <exception>
#include <string>

#include "rms_norm.hpp"

namespace tl = tlaloc;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: custom_kernel_gpu_check PLUGIN [WORK_DIR]\n");
    return 2;
  }
  const std::string dir = argc > 2 ? argv[2] : "custom-kernel-gpu-check";
  try {
    const tl::Tensor x = tl::random::normal(tl::random::key(1), {512, 1024});
    const tl::Tensor w = tl::random::normal(tl::random::key(2), {1024});
    const tl::Tensor dy = tl::random::normal(tl::random::key(3), {512, 1024});
    const auto both = [](const tl::nn::Params&, const tl::Tensor& a, const tl::Tensor& b,
                         const tl::Tensor& c) {
      std::vector<tl::Tensor> out{rms::rms_norm(a, b)};
      for (const tl::Tensor& g :
           tl::grad([&c](const tl::Tensor&u, const tl::Tensor&v) { return tl::sum(rms::rms_norm(u, v) * c); },
                    tl::argnums{0, 1})(a, b))
        out.push_back(g);
      return out;
    };
    tl::serve::export_function(dir, "fwd_bwd", tl::nn::Params{}, both,
                               {.inputs = {"x", "w", "dy"}, .outputs = {"y", "dx", "dw"}}, x, w, dy);
    const tl::serve::Model host = tl::serve::Model::load(dir);
    const tl::serve::Model gpu =
        tl::serve::Model::load(dir, {.backend = tl::runtime::Backend::pjrt, .plugin_path = argv[1]});
    const std::vector<tl::Tensor> want = host.run("fwd_bwd", {x, w, dy}),
                                  got = gpu.run("fwd_bwd", {x, w, dy});
    bool ok = true;
    const char* names[] = {"y", "dx", "dw"};
    for (std::size_t i = 0; i < 3; ++i) {
      const double diff = tl::max(tl::abs(got[i] - want[i])).astype(tl::DType::f64).item<double>();
      const double scale = tl::max(tl::abs(want[i])).astype(tl::DType::f64).item<double>();
      const bool close = diff <= 1e-4 * scale;  // float sums in another order (dw: atomics)
      std::printf("custom kernel %-2s on %s: largest difference from the host %.3g (of %.3g)%s\n", names[i],
                  gpu.session().platform_name().c_str(), diff, scale, close ? "" : "  MISMATCH");
      ok = ok && close;
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "custom_kernel_gpu_check: %s\n", e.what());
    return 2;
  }
}
