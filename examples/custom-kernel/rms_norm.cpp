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

// rms_norm.cu's kernels: a block of 256 threads per row; the row length and eps after
// the buffers. The backward kernel adds each row's share into dw, zeroed first.
tl::CudaLaunch per_row(std::span<const tl::TensorType> in, const tl::KernelAttrs& attrs, bool accumulates) {
  const tl::Shape& x = in[0].shape;
  return {.grid = {static_cast<std::uint32_t>(x[0]), 1, 1},
          .block = {256, 1, 1},
          .scalars = {std::int64_t{x[1]}, static_cast<float>(std::get<double>(attrs.at("eps")))},
          .zero_results = accumulates};
}

// With the PTX built (nvcc found at configure time), the kernels also run on CUDA.
tl::Kernel with_cuda(tl::Kernel k, [[maybe_unused]] const char* entry, [[maybe_unused]] bool accumulates) {
#ifdef RMS_NORM_PTX
  k.cuda(RMS_NORM_PTX, entry,
         [accumulates](std::span<const tl::TensorType> in, const tl::KernelAttrs& attrs) {
           return per_row(in, attrs, accumulates);
         });
#endif
  return k;
}

// Made at first use: a kernel is declared once per process, under its name.
const tl::Kernel& backward() {
  static const tl::Kernel k =
      with_cuda(tl::kernel("example.rms_norm_bwd").shape(like_x_and_w).ffi(rms_norm_bwd).attr("eps", kEps),
                "rms_norm_bwd_f32", true);
  return k;
}

const tl::Kernel& forward() {
  static const tl::Kernel k = with_cuda(tl::kernel("example.rms_norm")
                                            .shape(like_x)
                                            .ffi(rms_norm_fwd)
                                            .attr("eps", kEps)
                                            .vjp([](const tl::KernelGrad& g) {
                                              const tl::Tensor args[] = {g.arg(0), g.arg(1), g.cotangent(0)};
                                              return backward().call(args);
                                            }),
                                        "rms_norm_fwd_f32", false);
  return k;
}

}  // namespace

tl::Tensor rms_norm(const tl::Tensor& x, const tl::Tensor& w) { return forward()(x, w); }

tl::Tensor rms_norm_composed(const tl::Tensor& x, const tl::Tensor& w) {
  return x * tl::rsqrt(tl::mean(x * x, {-1}, true) + kEps) * w;
}

}  // namespace rms
