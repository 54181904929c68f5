// The PJRT FFI extension of Tlaloc's CPU plugin (docs/CUSTOM_KERNELS.md): XLA FFI
// handlers register here as custom_call targets, as with XLA's CPU plugin, and run
// when a program calls them.
#include <algorithm>
#include <cctype>
#include <string>

#include "objects.hpp"
#include "ops/xla_ffi.hpp"

namespace tlaloc::pjrt_cpu {
namespace {

bool is_host_platform(std::string_view p) {
  std::string lower(p);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower == "cpu" || lower == "host";
}

tlp_error* register_handler(tlp_ffi_register_handler_args* args) noexcept {
  return guarded("PJRT_FFI_Register_Handler", [&] {
    need(args, TLP_FFI_REGISTER_HANDLER_ARGS_SIZE, "PJRT_FFI_Register_Handler_Args");
    const std::string name(non_null(args->target_name, "target_name"), args->target_name_size);
    const std::string_view platform(non_null(args->platform_name, "platform_name"), args->platform_name_size);
    if (name.empty()) throw Failure(TLP_INVALID_ARGUMENT, "the target name is empty");
    if (!is_host_platform(platform))
      throw Failure(
          TLP_INVALID_ARGUMENT,
          fmt::format(
              "handler '{}' is for platform '{}': Tlaloc's CPU plugin runs 'cpu' (or 'Host') handlers", name,
              platform));
    detail::def_ffi_target(name, reinterpret_cast<tlaloc_ffi_handler*>(non_null(args->handler, "handler")));
  });
}

tlp_error* type_id_register(tlp_ffi_type_id_register_args* args) noexcept {
  return guarded("PJRT_FFI_TypeID_Register", [&] {
    need(args, TLP_FFI_TYPE_ID_REGISTER_ARGS_SIZE, "PJRT_FFI_TypeID_Register_Args");
    args->type_id = detail::register_ffi_type({non_null(args->type_name, "type_name"), args->type_name_size},
                                              args->type_id);
  });
}

tlp_error* user_data_add(tlp_ffi_user_data_add_args*) noexcept {
  return make_error(
      TLP_UNIMPLEMENTED,
      "PJRT_FFI_UserData_Add: Tlaloc's CPU plugin has no execute contexts, so handlers get no user data");
}

}  // namespace

void fill_ffi(tlp_api& api) {
  static tlp_ffi_extension extension = {{TLP_FFI_EXTENSION_SIZE, TLP_EXTENSION_FFI, nullptr},
                                        &type_id_register,
                                        &user_data_add,
                                        &register_handler};
  api.extension_start = &extension.base;
}

}  // namespace tlaloc::pjrt_cpu
