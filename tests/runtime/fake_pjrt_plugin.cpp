// Test fixtures, not plugins: tiny libraries whose GetPjrtApi hands out a table
// shaped to trip one check of runtime::pjrt::Plugin::load each (FAKE_KIND picks
// the shape; tests/runtime/CMakeLists.txt builds one library per kind).
#include <cstring>

#include "runtime/pjrt/pjrt_abi.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

// The plugin side owns the layout of its errors.
struct tlp_error {
  tlp_error_code code;
  const char* message;
};

namespace {

enum class Kind { valid, no_entry, null_api, tiny, truncated, major1, old_minor, init_fails, older_table };
constexpr Kind kind = Kind::FAKE_KIND;

int initialize_calls = 0;
int errors_destroyed = 0;
tlp_error init_error{TLP_INTERNAL, "fake initialize failure"};

void destroy_error(tlp_error_destroy_args* args) {
  if (args->error != nullptr) ++errors_destroyed;
}
void error_message(tlp_error_message_args* args) {
  args->message = args->error->message;
  args->message_size = std::strlen(args->error->message);
}
tlp_error* error_code(tlp_error_get_code_args* args) {
  args->code = args->error->code;
  return nullptr;
}
tlp_error* initialize(tlp_plugin_initialize_args*) {
  ++initialize_calls;
  return kind == Kind::init_fails ? &init_error : nullptr;
}
tlp_error* never_called(void*) { return &init_error; }

tlp_api make_table() {
  tlp_api api{};
  api.struct_size = TLP_API_SIZE;
  api.version.struct_size = TLP_API_VERSION_SIZE;
  api.version.major_version = 0;
  api.version.minor_version = 117;  // newer than Tlaloc's declaration: still compatible
  api.error_destroy = destroy_error;
  api.error_message = error_message;
  api.error_get_code = error_code;
  api.plugin_initialize = initialize;
  switch (kind) {
    case Kind::tiny:
      api.struct_size = 16;
      break;
    case Kind::truncated:
      api.version.minor_version = 60;
      api.struct_size = TLP_API_REQUIRED_SIZE - sizeof(void*);
      break;
    case Kind::major1:
      api.version.major_version = 1;
      api.version.minor_version = 3;
      break;
    case Kind::old_minor:
      api.version.minor_version = 56;
      break;
    case Kind::older_table:
      // A 0.60 plugin fills the table up to slot 100; what lies beyond is not its.
      api.version.minor_version = 60;
      api.struct_size = offsetof(tlp_api, transfer_manager_destroy);
      api.event_create = never_called;
      break;
    default:
      break;
  }
  return api;
}

const tlp_api table = make_table();

}  // namespace

#if FAKE_NO_ENTRY
FAKE_EXPORT const void* NotThePjrtEntry() { return &table; }
#else
FAKE_EXPORT const tlp_api* GetPjrtApi() { return kind == Kind::null_api ? nullptr : &table; }
#endif

FAKE_EXPORT int fake_pjrt_initialize_calls() { return initialize_calls; }
FAKE_EXPORT int fake_pjrt_errors_destroyed() { return errors_destroyed; }
