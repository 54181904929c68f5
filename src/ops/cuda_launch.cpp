// CUDA kernels launched from XLA FFI handlers (ops/cuda_launch.hpp). Written from the
// CUDA driver API's documented C signatures and XLA's FFI ABI; run only where a GPU
// and a CUDA PJRT plugin are (scripts/gpu-check.sh).
#include "ops/cuda_launch.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "ops/xla_ffi.hpp"

namespace tlaloc::detail {
namespace {

// ---- The CUDA driver API, opened at first use -------------------------------------

using CuResult = int;  // CUresult: 0 is CUDA_SUCCESS
using CuContext = void*;
using CuModule = void*;
using CuFunction = void*;
using CuStream = void*;

struct Driver {
  CuResult (*module_load_data)(CuModule*, const void*) = nullptr;                 // cuModuleLoadData
  CuResult (*module_get_function)(CuFunction*, CuModule, const char*) = nullptr;  // cuModuleGetFunction
  CuResult (*launch)(CuFunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                     CuStream, void**, void**) = nullptr;      // cuLaunchKernel
  CuResult (*stream_context)(CuStream, CuContext*) = nullptr;  // cuStreamGetCtx
  CuResult (*push_context)(CuContext) = nullptr;               // cuCtxPushCurrent_v2
  CuResult (*pop_context)(CuContext*) = nullptr;               // cuCtxPopCurrent_v2
  CuResult (*error_string)(CuResult, const char**) = nullptr;  // cuGetErrorString
  CuResult (*memset_async)(std::uint64_t, unsigned char, std::size_t, CuStream) = nullptr;  // cuMemsetD8Async
  std::string failure;  // why the driver could not be opened, or empty

  std::string describe(CuResult r) const {
    const char* text = nullptr;
    if (error_string != nullptr && error_string(r, &text) == 0 && text != nullptr) return text;
    return fmt::format("CUDA error {}", r);
  }
};

template <class Fn>
void find(void* lib, const char* name, Fn& fn, std::string& failure) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (fn == nullptr && failure.empty()) failure = fmt::format("libcuda.so.1 has no {}", name);
}

const Driver& driver() {
  static const Driver d = [] {
    Driver out;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      out.failure = fmt::format("the CUDA driver (libcuda.so.1) cannot be loaded: {}", dlerror());
      return out;
    }
    find(lib, "cuModuleLoadData", out.module_load_data, out.failure);
    find(lib, "cuModuleGetFunction", out.module_get_function, out.failure);
    find(lib, "cuLaunchKernel", out.launch, out.failure);
    find(lib, "cuStreamGetCtx", out.stream_context, out.failure);
    find(lib, "cuCtxPushCurrent_v2", out.push_context, out.failure);
    find(lib, "cuCtxPopCurrent_v2", out.pop_context, out.failure);
    find(lib, "cuGetErrorString", out.error_string, out.failure);
    find(lib, "cuMemsetD8Async", out.memset_async, out.failure);
    return out;
  }();
  return d;
}

// ---- What a handler reads from its frame -------------------------------------------

struct StreamGetArgs {  // XLA_FFI_Stream_Get_Args
  std::size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  tlaloc_ffi_execution_context* ctx;
  void* stream;  // out: a CUstream
};

// The frame's attributes as Tlaloc's: numbers as i64 and f64, as a host kernel sees them.
KernelAttrs attrs_of(const tlaloc_ffi_attrs& a) {
  KernelAttrs out;
  for (std::int64_t i = 0; i < a.size; ++i) {
    const std::string name(a.names[i]->ptr, a.names[i]->len);
    if (a.types[i] == TLALOC_FFI_ATTR_STRING) {
      const auto* s = static_cast<const tlaloc_ffi_byte_span*>(a.attrs[i]);
      out[name] = std::string(s->ptr, s->len);
      continue;
    }
    if (a.types[i] != TLALOC_FFI_ATTR_SCALAR) continue;  // arrays and dictionaries: not Tlaloc attributes
    const auto* s = static_cast<const tlaloc_ffi_scalar*>(a.attrs[i]);
    const auto read = [&]<class T>(T) {
      T v;
      std::memcpy(&v, s->value, sizeof v);
      return v;
    };
    switch (s->dtype) {
      case TLALOC_FFI_PRED:
        out[name] = read(bool{});
        break;
      case TLALOC_FFI_S32:
        out[name] = std::int64_t{read(std::int32_t{})};
        break;
      case TLALOC_FFI_S64:
        out[name] = read(std::int64_t{});
        break;
      case TLALOC_FFI_F32:
        out[name] = double{read(float{})};
        break;
      case TLALOC_FFI_F64:
        out[name] = read(double{});
        break;
      default:
        break;
    }
  }
  return out;
}

std::vector<TensorType> operand_types(const tlaloc_ffi_args& args) {
  std::vector<TensorType> out;
  for (std::int64_t i = 0; i < args.size; ++i) {
    const auto* b = static_cast<const tlaloc_ffi_buffer*>(args.args[i]);
    out.push_back({dtype_of_ffi(b->dtype), Shape(b->dims, b->dims + b->rank)});
  }
  return out;
}

// ---- Launching ---------------------------------------------------------------------

std::array<std::atomic<const CudaKernel*>, kCudaKernelSlots> slots{};
std::mutex slots_mu;  // taking a slot; reading one needs no lock

// The kernel's function in the stream's context, loaded once per context.
CuFunction function_for(const Driver& d, const CudaKernel& k, CuContext ctx) {
  static std::mutex mu;
  static std::map<std::pair<const CudaKernel*, CuContext>, CuFunction> loaded;
  const std::lock_guard lock(mu);
  if (const auto at = loaded.find({&k, ctx}); at != loaded.end()) return at->second;
  CuModule module = nullptr;
  if (const CuResult r = d.module_load_data(&module, k.ptx.c_str()); r != 0)
    throw Error(fmt::format("cuModuleLoadData of its PTX failed: {}", d.describe(r)));
  CuFunction fn = nullptr;
  if (const CuResult r = d.module_get_function(&fn, module, k.entry.c_str()); r != 0)
    throw Error(fmt::format("its PTX has no kernel '{}': {}", k.entry, d.describe(r)));
  loaded.emplace(std::pair{&k, ctx}, fn);
  return fn;
}

void launch(const CudaKernel& k, tlaloc_ffi_call_frame* frame) {
  StreamGetArgs get{sizeof(StreamGetArgs), nullptr, frame->ctx, nullptr};
  if (tlaloc_ffi_error* e = frame->api->stream_get(&get)) {
    tlaloc_ffi_error_get_message_args m{sizeof m, nullptr, e, nullptr};
    frame->api->error_get_message(&m);
    const std::string text = m.message != nullptr ? m.message : "";
    tlaloc_ffi_error_destroy_args destroy{sizeof destroy, nullptr, e};
    frame->api->error_destroy(&destroy);
    throw Error(fmt::format("the runtime gives no CUDA stream: {}", text));
  }
  const Driver& d = driver();
  if (!d.failure.empty()) throw Error(d.failure);
  const CudaLaunch how = k.launch(operand_types(frame->args), attrs_of(frame->attrs));
  CuContext ctx = nullptr;
  if (const CuResult r = d.stream_context(get.stream, &ctx); r != 0)
    throw Error(fmt::format("cuStreamGetCtx failed: {}", d.describe(r)));
  if (const CuResult r = d.push_context(ctx); r != 0)
    throw Error(fmt::format("cuCtxPushCurrent failed: {}", d.describe(r)));
  struct Pop {
    const Driver& d;
    ~Pop() {
      CuContext ignored = nullptr;
      (void)d.pop_context(&ignored);
    }
  } pop{d};
  std::vector<void*> pointers;
  for (std::int64_t i = 0; i < frame->args.size; ++i)
    pointers.push_back(static_cast<tlaloc_ffi_buffer*>(frame->args.args[i])->data);
  for (std::int64_t i = 0; i < frame->rets.size; ++i)
    pointers.push_back(static_cast<tlaloc_ffi_buffer*>(frame->rets.rets[i])->data);
  if (how.zero_results)
    for (std::int64_t i = 0; i < frame->rets.size; ++i) {
      const auto* b = static_cast<const tlaloc_ffi_buffer*>(frame->rets.rets[i]);
      std::size_t bytes = itemsize(dtype_of_ffi(b->dtype));
      for (std::int64_t j = 0; j < b->rank; ++j) bytes *= static_cast<std::size_t>(b->dims[j]);
      if (const CuResult r = d.memset_async(reinterpret_cast<std::uintptr_t>(b->data), 0, bytes, get.stream);
          r != 0)
        throw Error(fmt::format("cuMemsetD8Async of result {} failed: {}", i, d.describe(r)));
    }
  std::vector<CudaScalar> scalars = how.scalars;
  std::vector<void*> params;
  for (void*& p : pointers) params.push_back(&p);
  for (CudaScalar& s : scalars) params.push_back(std::visit([](auto& v) -> void* { return &v; }, s));
  const CuFunction fn = function_for(d, k, ctx);
  if (const CuResult r = d.launch(fn, how.grid[0], how.grid[1], how.grid[2], how.block[0], how.block[1],
                                  how.block[2], how.shared_bytes, get.stream, params.data(), nullptr);
      r != 0)
    throw Error(fmt::format("cuLaunchKernel of '{}' failed: {}", k.entry, d.describe(r)));
}

tlaloc_ffi_error* refuse(tlaloc_ffi_call_frame* frame, const std::string& message) {
  tlaloc_ffi_error_create_args args{};
  args.struct_size = TLALOC_FFI_FILLED_SIZE(tlaloc_ffi_error_create_args, errc);
  args.message = message.c_str();
  args.errc = TLALOC_FFI_INTERNAL;
  return frame->api->error_create(&args);
}

template <std::size_t I>
tlaloc_ffi_error* slot_handler(tlaloc_ffi_call_frame* frame) {
  const CudaKernel* k = slots[I].load(std::memory_order_acquire);
  if (tlaloc_ffi_answer_metadata(frame) != 0 || frame->stage != TLALOC_FFI_EXECUTE) return nullptr;
  try {
    launch(*k, frame);
    return nullptr;
  } catch (const std::exception& e) {
    return refuse(frame, fmt::format("tl::kernel('{}'): on CUDA: {}", k->name, e.what()));
  }
}

template <std::size_t... I>
constexpr std::array<tlaloc_ffi_handler*, sizeof...(I)> handlers_of(std::index_sequence<I...>) {
  return {&slot_handler<I>...};
}
constexpr auto kHandlers = handlers_of(std::make_index_sequence<kCudaKernelSlots>{});

}  // namespace

tlaloc_ffi_handler* cuda_handler(CudaKernel k) {
  const std::lock_guard lock(slots_mu);
  for (std::size_t i = 0; i < kCudaKernelSlots; ++i)
    if (slots[i].load(std::memory_order_relaxed) == nullptr) {
      slots[i].store(new CudaKernel(std::move(k)), std::memory_order_release);  // kept for the process
      return kHandlers[i];
    }
  fail<ValueError>(fmt::format("kernel('{}')", k.name), "a process may declare at most {} CUDA kernels",
                   kCudaKernelSlots);
}

}  // namespace tlaloc::detail
