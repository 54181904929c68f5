// XLA FFI handlers as host implementations (include/tlaloc/xla_ffi.h): a call frame
// over host tensors, the api table handlers are given, and their errors.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tlaloc/kernel.hpp"
#include "tlaloc/xla_ffi.h"

namespace tlaloc::detail {

// Calls `handler` on `args`, with `results` (allocated, dense) to fill and `attrs`
// sorted by name. A handler's error is thrown as an Error that names `who` and
// carries the handler's message; the handler's error is freed.
void call_ffi_handler(tlaloc_ffi_handler* handler, std::string_view who, std::span<const Tensor> args,
                      std::span<Tensor> results, const KernelAttrs& attrs);

// Registers `handler` as the custom_call target `name`, as a PJRT plugin's FFI
// extension does: it runs on results of the types the call site declares, and has no
// derivative rules. The same handler again is a no-op; a name another target has is
// refused.
void def_ffi_target(const std::string& name, tlaloc_ffi_handler* handler);

// The process's id of a handler's type `name` (XLA_FFI_TypeId_Register): `id` 0
// asks for it, another id must be the one given before.
std::int64_t register_ffi_type(std::string_view name, std::int64_t id);

// A dtype as XLA's FFI names it (its PrimitiveType), and back; a type Tlaloc lacks
// is refused by name.
tlaloc_ffi_data_type ffi_type(DType t);
DType dtype_of_ffi(tlaloc_ffi_data_type t);

// The table every handler is given.
const tlaloc_ffi_api& ffi_api();

}  // namespace tlaloc::detail
