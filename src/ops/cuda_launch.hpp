// CUDA kernels of tl::kernel(...).cuda as XLA FFI handlers for a CUDA PJRT plugin: each
// kernel gets a handler of its own (one of a fixed set of slots, since a handler is a
// bare function), which launches the PTX entry on the plugin's stream through the CUDA
// driver API (libcuda.so.1, opened at the first launch: nothing links against CUDA).
#pragma once

#include <string>

#include "tlaloc/kernel.hpp"
#include "tlaloc/xla_ffi.h"

namespace tlaloc::detail {

struct CudaKernel {
  std::string name;   // the kernel's, for messages
  std::string ptx;    // the PTX text
  std::string entry;  // the kernel function in it
  CudaLaunchRule launch;
};

// How many CUDA kernels a process may declare.
inline constexpr std::size_t kCudaKernelSlots = 64;

// The handler that launches `k`; the kernel is kept for the life of the process. More
// than kCudaKernelSlots kernels are refused by name.
tlaloc_ffi_handler* cuda_handler(CudaKernel k);

}  // namespace tlaloc::detail
