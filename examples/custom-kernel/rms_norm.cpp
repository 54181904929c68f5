#include "rms_norm.hpp"

#include <tlaloc/xla_ffi.h>

extern "C" {
tlaloc_ffi_error* rms_norm_fwd(tlaloc_ffi_call_frame* frame);
tlaloc_ffi_error* rms_norm_bwd(tlaloc_ffi_call_frame* frame);
}

namespace rms {

namespace {

std::vector<tl::TensorType> like_x(std::span<const tl::TensorType> in) { return {in[0]}; }
std::vector<tl::TensorType> like_x_and_w(std::span<const tl::TensorType> in) { return {in[0], in[1]}; }

// Made at first use: a kernel is declared once per process, under its name.
const tl::Kernel& backward() {
  static const tl::Kernel k =
      tl::kernel("example.rms_norm_bwd").shape(like_x_and_w).ffi(rms_norm_bwd).attr("eps", kEps);
  return k;
}

const tl::Kernel& forward() {
  static const tl::Kernel k = tl::kernel("example.rms_norm")
                                  .shape(like_x)
                                  .ffi(rms_norm_fwd)
                                  .attr("eps", kEps)
                                  .vjp([](const tl::KernelGrad& g) {
                                    const tl::Tensor args[] = {g.arg(0), g.arg(1), g.cotangent(0)};
                                    return backward().call(args);
                                  });
  return k;
}

}  // namespace

tl::Tensor rms_norm(const tl::Tensor& x, const tl::Tensor& w) { return forward()(x, w); }

tl::Tensor rms_norm_composed(const tl::Tensor& x, const tl::Tensor& w) {
  return x * tl::rsqrt(tl::mean(x * x, {-1}, true) + kEps) * w;
}

}  // namespace rms
