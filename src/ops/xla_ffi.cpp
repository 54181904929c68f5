// XLA FFI handlers called on host tensors (ops/xla_ffi.hpp). The layouts are those of
// include/tlaloc/xla_ffi.h; the argument structs of the api entry points Tlaloc
// serves but does not declare publicly are written here from XLA's C ABI.
#include "ops/xla_ffi.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "core/status_code.hpp"
#include "core/tensor_impl.hpp"
#include "ops/custom_call.hpp"

struct tlaloc_ffi_error {
  tlaloc_ffi_error_code code = TLALOC_FFI_UNKNOWN;
  std::string message;
};

namespace tlaloc::detail {
namespace {

// ---- Errors ----------------------------------------------------------------------

tlaloc_ffi_error* error_create(tlaloc_ffi_error_create_args* a) {
  return new tlaloc_ffi_error{a->errc, a->message != nullptr ? a->message : ""};
}
void error_get_message(tlaloc_ffi_error_get_message_args* a) { a->message = a->error->message.c_str(); }
void error_destroy(tlaloc_ffi_error_destroy_args* a) { delete a->error; }

tlaloc_ffi_error* make_error(tlaloc_ffi_error_code code, std::string message) {
  return new tlaloc_ffi_error{code, std::move(message)};
}

// ---- The entry points a host runtime serves ----------------------------------------

struct TypeIdRegisterArgs {  // XLA_FFI_TypeId_Register_Args
  std::size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  tlaloc_ffi_byte_span name;
  std::int64_t* type_id;  // out
};
struct MemoryAllocateArgs {  // XLA_FFI_DeviceMemory_Allocate_Args
  std::size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  tlaloc_ffi_execution_context* ctx;
  std::size_t size, alignment;
  void* data;  // out
};
struct MemoryFreeArgs {  // XLA_FFI_DeviceMemory_Free_Args
  std::size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  tlaloc_ffi_execution_context* ctx;
  std::size_t size;
  void* data;
};
struct ScheduleArgs {  // XLA_FFI_ThreadPool_Schedule_Args
  std::size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  tlaloc_ffi_execution_context* ctx;
  void (*task)(void*);
  void* data;
};

tlaloc_ffi_error* type_id_register(void* p) {
  auto* a = static_cast<TypeIdRegisterArgs*>(p);
  try {
    *a->type_id = register_ffi_type({a->name.ptr, a->name.len}, *a->type_id);
    return nullptr;
  } catch (const Error& e) {
    return make_error(TLALOC_FFI_INVALID_ARGUMENT, fmt::format("XLA_FFI_TypeId_Register: {}", e.what()));
  }
}

// Device memory is host memory here.
tlaloc_ffi_error* memory_allocate(void* p) {
  auto* a = static_cast<MemoryAllocateArgs*>(p);
  const std::size_t align = std::max<std::size_t>(a->alignment, alignof(std::max_align_t));
  if ((align & (align - 1)) != 0)
    return make_error(
        TLALOC_FFI_INVALID_ARGUMENT,
        fmt::format("XLA_FFI_DeviceMemory_Allocate: alignment {} is not a power of two", align));
  a->data = std::aligned_alloc(align, (a->size + align - 1) / align * align);
  if (a->data == nullptr && a->size > 0)
    return make_error(TLALOC_FFI_RESOURCE_EXHAUSTED,
                      fmt::format("XLA_FFI_DeviceMemory_Allocate: no memory for {} bytes", a->size));
  return nullptr;
}
tlaloc_ffi_error* memory_free(void* p) {
  std::free(
      static_cast<MemoryFreeArgs*>(p)->data);  // NOLINT(cppcoreguidelines-no-malloc): pairs aligned_alloc
  return nullptr;
}

// XLA allows a task to run on the caller's thread; Tlaloc's kernels are already
// called from its own parallel loops.
tlaloc_ffi_error* thread_pool_schedule(void* p) {
  auto* a = static_cast<ScheduleArgs*>(p);
  a->task(a->data);
  return nullptr;
}

// The XLA names of the entry points a handler run on the host cannot use.
constexpr char kRegister[] =
    "XLA_FFI_Handler_Register (register with tl::kernel(name).ffi or a PJRT plugin's FFI extension)";
constexpr char kStreamGet[] = "XLA_FFI_Stream_Get";
constexpr char kContextGet[] = "XLA_FFI_ExecutionContext_Get";
constexpr char kStateSet[] = "XLA_FFI_State_Set";
constexpr char kStateGet[] = "XLA_FFI_State_Get";
constexpr char kFutureCreate[] = "XLA_FFI_Future_Create";
constexpr char kFutureAvailable[] = "XLA_FFI_Future_SetAvailable";
constexpr char kFutureError[] = "XLA_FFI_Future_SetError";

template <const char* name>
tlaloc_ffi_error* unavailable(void*) {
  return make_error(
      TLALOC_FFI_UNIMPLEMENTED,
      fmt::format("{}: not available to handlers Tlaloc runs on the host (docs/CUSTOM_KERNELS.md)", name));
}

tlaloc_ffi_api make_api() {
  tlaloc_ffi_api api{};
  api.struct_size = TLALOC_FFI_FILLED_SIZE(tlaloc_ffi_api, future_set_error);
  api.api_version = {TLALOC_FFI_FILLED_SIZE(tlaloc_ffi_api_version, minor_version), nullptr,
                     TLALOC_FFI_API_MAJOR, TLALOC_FFI_API_MINOR};
  api.error_create = &error_create;
  api.error_get_message = &error_get_message;
  api.error_destroy = &error_destroy;
  api.handler_register = &unavailable<kRegister>;
  api.stream_get = &unavailable<kStreamGet>;
  api.type_id_register = &type_id_register;
  api.execution_context_get = &unavailable<kContextGet>;
  api.state_set = &unavailable<kStateSet>;
  api.state_get = &unavailable<kStateGet>;
  api.device_memory_allocate = &memory_allocate;
  api.device_memory_free = &memory_free;
  api.thread_pool_schedule = &thread_pool_schedule;
  api.future_create = &unavailable<kFutureCreate>;
  api.future_set_available = &unavailable<kFutureAvailable>;
  api.future_set_error = &unavailable<kFutureError>;
  return api;
}

// ---- The call frame ----------------------------------------------------------------

// The buffers of `tensors`, with the dimensions they point to.
struct Buffers {
  explicit Buffers(std::span<const Tensor> tensors) {
    dims.reserve(tensors.size());
    for (const Tensor& t : tensors) dims.emplace_back(t.shape().begin(), t.shape().end());
    for (std::size_t i = 0; i < tensors.size(); ++i)
      buffers.push_back({TLALOC_FFI_FILLED_SIZE(tlaloc_ffi_buffer, dims), nullptr,
                         ffi_type(tensors[i].dtype()), tensors[i].impl().data(),
                         static_cast<std::int64_t>(dims[i].size()), dims[i].data()});
    for (tlaloc_ffi_buffer& b : buffers) pointers.push_back(&b);
  }
  std::vector<std::vector<std::int64_t>> dims;
  std::vector<tlaloc_ffi_buffer> buffers;
  std::vector<void*> pointers;
};

// The attributes as the handler reads them; `attrs` is sorted by name already.
struct Attributes {
  explicit Attributes(const KernelAttrs& attrs) {
    values.reserve(attrs.size());
    for (const auto& [name, value] : attrs) values.push_back(Value{value, {name.data(), name.size()}, {}});
    for (Value& v : values) {
      names.push_back(&v.name);
      if (const auto* s = std::get_if<std::string>(&v.value)) {
        v.text = {s->data(), s->size()};
        types.push_back(TLALOC_FFI_ATTR_STRING);
        pointers.push_back(&v.text);
        continue;
      }
      v.scalar.dtype = std::holds_alternative<bool>(v.value)           ? TLALOC_FFI_PRED
                       : std::holds_alternative<std::int64_t>(v.value) ? TLALOC_FFI_S64
                                                                       : TLALOC_FFI_F64;
      v.scalar.value = std::visit([](auto& x) -> void* { return &x; }, v.value);
      types.push_back(TLALOC_FFI_ATTR_SCALAR);
      pointers.push_back(&v.scalar);
    }
  }
  struct Value {
    KernelAttr value;
    tlaloc_ffi_byte_span name, text;
    tlaloc_ffi_scalar scalar{};
  };
  std::vector<Value> values;  // reserved: the pointers below stay valid
  std::vector<tlaloc_ffi_byte_span*> names;
  std::vector<tlaloc_ffi_attr_type> types;
  std::vector<void*> pointers;
};

// Throws the handler's error, freeing it.
[[noreturn]] void throw_handler_error(std::string_view who, tlaloc_ffi_error* e) {
  const std::string message =
      fmt::format("its XLA FFI handler failed ({}): {}", status_code_name(e->code), e->message);
  delete e;
  fail(who, "{}", message);
}

// Each dtype and its XLA FFI type, both ways.
constexpr std::pair<DType, tlaloc_ffi_data_type> kFfiTypes[] = {
    {DType::f32, TLALOC_FFI_F32},     {DType::f64, TLALOC_FFI_F64}, {DType::bf16, TLALOC_FFI_BF16},
    {DType::f16, TLALOC_FFI_F16},     {DType::i8, TLALOC_FFI_S8},   {DType::i16, TLALOC_FFI_S16},
    {DType::i32, TLALOC_FFI_S32},     {DType::i64, TLALOC_FFI_S64}, {DType::u8, TLALOC_FFI_U8},
    {DType::u16, TLALOC_FFI_U16},     {DType::u32, TLALOC_FFI_U32}, {DType::u64, TLALOC_FFI_U64},
    {DType::boolean, TLALOC_FFI_PRED}};

}  // namespace

tlaloc_ffi_data_type ffi_type(DType t) {
  for (const auto& [d, f] : kFfiTypes)
    if (d == t) return f;
  return TLALOC_FFI_INVALID;
}

DType dtype_of_ffi(tlaloc_ffi_data_type t) {
  for (const auto& [d, f] : kFfiTypes)
    if (f == t) return d;
  throw Error(fmt::format("XLA FFI type {} has no Tlaloc dtype", static_cast<int>(t)));
}

std::int64_t register_ffi_type(std::string_view name, std::int64_t id) {
  static std::mutex mu;
  static std::map<std::string, std::int64_t, std::less<>> ids;  // one id per type name, for the process
  const std::lock_guard lock(mu);
  const auto at = ids.emplace(std::string(name), static_cast<std::int64_t>(ids.size()) + 1).first;
  if (id != 0 && id != at->second)
    throw ValueError(fmt::format("type '{}' has id {}, not {}", name, at->second, id));
  return at->second;
}

const tlaloc_ffi_api& ffi_api() {
  static const tlaloc_ffi_api api = make_api();
  return api;
}

void call_ffi_handler(tlaloc_ffi_handler* handler, std::string_view who, std::span<const Tensor> args,
                      std::span<Tensor> results, const KernelAttrs& attrs) {
  Buffers in(args), out({results.data(), results.size()});
  Attributes a(attrs);
  std::vector<tlaloc_ffi_arg_type> arg_types(in.pointers.size(), TLALOC_FFI_ARG_BUFFER);
  std::vector<tlaloc_ffi_ret_type> ret_types(out.pointers.size(), TLALOC_FFI_RET_BUFFER);
  tlaloc_ffi_call_frame frame{};
  frame.struct_size = TLALOC_FFI_FILLED_SIZE(tlaloc_ffi_call_frame, future);
  frame.api = &ffi_api();
  frame.stage = TLALOC_FFI_EXECUTE;
  frame.args = {TLALOC_FFI_FILLED_SIZE(tlaloc_ffi_args, args), nullptr,
                static_cast<std::int64_t>(arg_types.size()), arg_types.data(), in.pointers.data()};
  frame.rets = {TLALOC_FFI_FILLED_SIZE(tlaloc_ffi_rets, rets), nullptr,
                static_cast<std::int64_t>(ret_types.size()), ret_types.data(), out.pointers.data()};
  frame.attrs = {TLALOC_FFI_FILLED_SIZE(tlaloc_ffi_attrs, attrs),
                 nullptr,
                 static_cast<std::int64_t>(a.types.size()),
                 a.types.data(),
                 a.names.data(),
                 a.pointers.data()};
  tlaloc_ffi_error* e = nullptr;
  try {
    e = handler(&frame);
  } catch (const std::exception& x) {
    fail(who, "its XLA FFI handler threw: {}", x.what());
  }
  if (e != nullptr) throw_handler_error(who, e);
  if (frame.future != nullptr)
    fail(who, "its XLA FFI handler returned a future: Tlaloc runs handlers synchronously");
}

void def_ffi_target(const std::string& name, tlaloc_ffi_handler* handler) {
  const std::string who = fmt::format("custom_call @{}", name);
  if (handler == nullptr) fail<ValueError>(who, "the XLA FFI handler is null");
  static std::mutex mu;  // a check and a registration at once
  const std::lock_guard lock(mu);
  if (const CustomCallTarget* t = find_custom_call_target(name)) {
    if (t->ffi.host == handler) return;
    fail<ValueError>(who, "another handler (or kernel) has this name");
  }
  CustomCallTarget t;
  t.kernel = [handler, who](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType> out) {
    std::vector<Tensor> results;
    for (const TensorType& r : out) results.push_back(empty(r.shape, r.dtype));
    call_ffi_handler(handler, who, in, results, kernel_attrs(a));
    return results;
  };
  t.cpp = [who](CppOp&) -> std::string {
    fail(who, "has no C++ spelling: printed code cannot call an FFI handler");
  };
  t.ffi.host = handler;
  def_custom_call_target(name, std::move(t));
}

}  // namespace tlaloc::detail
