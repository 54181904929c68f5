// Your own kernels as ops (docs/CUSTOM_KERNELS.md): a kernel is declared once, with
// a name, a rule for its results' types and a host implementation, and is called like
// any op: eagerly, traced by jit and nn::capture, run by the interpreter and Tlaloc's
// PJRT CPU plugin, lowered to `stablehlo.custom_call @name` (api_version 4, its
// attributes in backend_config).
//
//   const tl::Kernel scale = tl::kernel("my.scale")
//       .shape([](std::span<const tl::TensorType> in) { return std::vector{in[0]}; })
//       .cpu([](const tl::KernelCall& call) {
//         const float* x = call.arg(0).data<float>();
//         float* y = call.result<float>(0);
//         for (std::int64_t i = 0; i < call.arg(0).numel(); ++i) y[i] = call.attr<double>("k") * x[i];
//       })
//       .attr("k", 2.0)
//       .vjp([](const tl::KernelGrad& g) { return std::vector{g.cotangent(0) * 2.f}; });
//   tl::Tensor y = scale(x);
//
// The host implementation is a C++ function (.cpu) or an XLA FFI handler (.ffi,
// include/tlaloc/xla_ffi.h); .cuda adds a CUDA one. A derivative reaching a kernel
// without a rule is refused by name.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/tensor.hpp"
#include "tlaloc/xla_ffi.h"

TLALOC_PUBLIC_BEGIN
namespace tlaloc {

// The type of a kernel's operand or result.
struct TensorType {
  DType dtype = DType::f32;
  Shape shape;
  bool operator==(const TensorType&) const = default;
};

// A kernel's attributes, as XLA's FFI passes them: integers, floats, booleans, strings.
using KernelAttr = std::variant<bool, std::int64_t, double, std::string>;
using KernelAttrs = std::map<std::string, KernelAttr, std::less<>>;

// What a host implementation is given: its operands, its results (allocated with the
// types of the kernel's rule, for it to fill) and its attributes.
class KernelCall {
 public:
  KernelCall(std::span<const Tensor> args, std::span<Tensor> results, const KernelAttrs& attrs)
      : args_(args), results_(results), attrs_(attrs) {}
  std::size_t num_args() const { return args_.size(); }
  std::size_t num_results() const { return results_.size(); }
  const Tensor& arg(std::size_t i) const { return args_[i]; }
  const Tensor& result_tensor(std::size_t i) const { return results_[i]; }
  // Result i's elements, to write; T must be its element type.
  template <class T>
  T* result(std::size_t i) const {
    return static_cast<T*>(writable(i, dtype_of<T>::value));
  }
  // An attribute's value; a missing one, or one of another type, is named.
  template <class T>
  const T& attr(std::string_view name) const {
    return std::get<T>(attribute(name, KernelAttr(T{}).index()));
  }

 private:
  void* writable(std::size_t i, DType t) const;
  const KernelAttr& attribute(std::string_view name, std::size_t type_index) const;
  std::span<const Tensor> args_;
  std::span<Tensor> results_;
  const KernelAttrs& attrs_;
};

// What a kernel's derivative rules are given. Zeros are undefined tensors.
class KernelGrad {
 public:
  KernelGrad(std::span<const Tensor> args, std::span<const Tensor> results, std::span<const Tensor> seeds,
             const KernelAttrs& attrs)
      : args_(args), results_(results), seeds_(seeds), attrs_(attrs) {}
  const Tensor& arg(std::size_t i) const { return args_[i]; }
  const Tensor& result(std::size_t i) const { return results_[i]; }
  std::size_t num_args() const { return args_.size(); }
  // vjp: the cotangent of result i; jvp: the tangent of argument i. Never undefined:
  // a zero is given as zeros of the right type.
  const Tensor& cotangent(std::size_t i) const { return seeds_[i]; }
  const Tensor& tangent(std::size_t i) const { return seeds_[i]; }
  const KernelAttrs& attrs() const { return attrs_; }

 private:
  std::span<const Tensor> args_, results_, seeds_;
  const KernelAttrs& attrs_;
};

using KernelShapeRule = std::function<std::vector<TensorType>(std::span<const TensorType>)>;
using HostKernel = std::function<void(const KernelCall&)>;
// vjp: one cotangent per argument (undefined: zero); jvp: one tangent per result.
using KernelRule = std::function<std::vector<Tensor>(const KernelGrad&)>;

// How a CUDA kernel is launched: its grid, block and dynamic shared memory, the
// scalars passed after the buffers' device pointers (the operands', then the
// results'), in this order, and whether the results are zeroed first (for a kernel
// that accumulates into them).
using CudaScalar = std::variant<std::int32_t, std::int64_t, float, double>;
struct CudaLaunch {
  std::array<std::uint32_t, 3> grid = {1, 1, 1};
  std::array<std::uint32_t, 3> block = {1, 1, 1};
  std::uint32_t shared_bytes = 0;
  std::vector<CudaScalar> scalars = {};
  bool zero_results = false;
};
using CudaLaunchRule =
    std::function<CudaLaunch(std::span<const TensorType> operands, const KernelAttrs& attrs)>;

namespace detail {
struct KernelDef;
}

class Kernel {
 public:
  explicit Kernel(std::string name);

  // Declaring: each returns the kernel, changed. A kernel is registered under its
  // name at its first call; after that it cannot change, and no other kernel may take
  // the name.
  Kernel& shape(KernelShapeRule rule);
  Kernel& cpu(HostKernel implementation);
  // The host implementation as an XLA FFI handler (include/tlaloc/xla_ffi.h): the
  // same function a PJRT plugin's FFI extension registers. One of .cpu and .ffi.
  Kernel& ffi(tlaloc_ffi_handler* handler);
  // The CUDA implementation: the kernel `entry` of the PTX file `ptx` (read now),
  // launched by `launch` on the stream a CUDA PJRT plugin gives; a Session on such a
  // plugin registers it through the plugin's FFI extension (docs/CUSTOM_KERNELS.md).
  Kernel& cuda(const std::filesystem::path& ptx, std::string entry, CudaLaunchRule launch);
  Kernel& attr(std::string name, KernelAttr value);
  Kernel& vjp(KernelRule rule);
  Kernel& jvp(KernelRule rule);

  std::vector<Tensor> call(std::span<const Tensor> args) const;
  // For a kernel of one result.
  template <class... A>
  Tensor operator()(const A&... args) const {
    const Tensor a[] = {args...};
    std::vector<Tensor> out = call(a);
    if (out.size() != 1) one_result_expected(out.size());
    return out[0];
  }
  const std::string& name() const;

 private:
  friend Kernel kernel_named(std::string_view name);
  explicit Kernel(std::shared_ptr<detail::KernelDef> def) : def_(std::move(def)) {}
  [[noreturn]] void one_result_expected(std::size_t n) const;
  void editable() const;
  std::shared_ptr<detail::KernelDef> def_;
};

inline Kernel kernel(std::string name) { return Kernel(std::move(name)); }

// The kernel declared under `name` in this process (while a Kernel of it lives): how
// printed C++ (tlaloc-grad, nn::capture's cpp()) calls kernels. A name nothing
// declared is refused.
Kernel kernel_named(std::string_view name);

}  // namespace tlaloc
TLALOC_PUBLIC_END
