// Errors, events (always ready: work is done when an entry point returns), plugin
// set-up and attributes, and the element types the plugin carries.
#include <array>

#include "objects.hpp"
#include "runtime/pjrt/element_types.hpp"

namespace tlaloc::pjrt_cpu {
namespace {

// Handed out when not even an error can be allocated; never freed.
tlp_error out_of_memory{TLP_RESOURCE_EXHAUSTED, "Tlaloc's CPU plugin: out of memory"};

void error_destroy(tlp_error_destroy_args* args) {
  if (args != nullptr && !is_static_error(args->error)) delete args->error;
}

void error_message(tlp_error_message_args* args) {
  if (args == nullptr || args->error == nullptr) return;
  args->message = args->error->message.data();
  args->message_size = args->error->message.size();
}

tlp_error* error_get_code(tlp_error_get_code_args* args) {
  return guarded("PJRT_Error_GetCode", [&] {
    need(args, TLP_ERROR_GET_CODE_ARGS_SIZE, "PJRT_Error_GetCode_Args");
    args->code = non_null(args->error, "the error")->code;
  });
}

tlp_error* plugin_initialize(tlp_plugin_initialize_args* args) {
  return guarded("PJRT_Plugin_Initialize",
                 [&] { need(args, TLP_PLUGIN_INITIALIZE_ARGS_SIZE, "PJRT_Plugin_Initialize_Args"); });
}

// The StableHLO Tlaloc reads: the text of the op set in docs/STABLEHLO.md, which
// StableHLO 1.0.0 fixed; the plugin claims that one version (docs/PJRT.md).
constexpr std::array<std::int64_t, 3> kStableHloVersion = {1, 0, 0};

tlp_named_value named(std::string_view name, const std::array<std::int64_t, 3>& v) {
  tlp_named_value n{};
  n.struct_size = TLP_NAMED_VALUE_SIZE;
  n.name = name.data();
  n.name_size = name.size();
  n.kind = TLP_VALUE_INT64_LIST;
  n.int64_list_value = v.data();
  n.value_size = v.size();
  return n;
}

tlp_named_value named(std::string_view name, std::string_view text) {
  tlp_named_value n{};
  n.struct_size = TLP_NAMED_VALUE_SIZE;
  n.name = name.data();
  n.name_size = name.size();
  n.kind = TLP_VALUE_STRING;
  n.string_value = text.data();
  n.value_size = text.size();
  return n;
}

tlp_error* plugin_attributes(tlp_plugin_attributes_args* args) {
  return guarded("PJRT_Plugin_Attributes", [&] {
    need(args, TLP_PLUGIN_ATTRIBUTES_ARGS_SIZE, "PJRT_Plugin_Attributes_Args");
    static const std::array<tlp_named_value, 3> attributes = {
        named("stablehlo_current_version", kStableHloVersion),
        named("stablehlo_minimum_version", kStableHloVersion),
        named("tlaloc_plugin", "tlaloc_cpu: StableHLO on Tlaloc's host interpreter")};
    args->attributes = attributes.data();
    args->num_attributes = attributes.size();
  });
}

tlp_error* event_outcome(const tlp_event& e) {
  return e.code == TLP_OK ? nullptr : make_error(e.code, e.message);
}

tlp_error* event_destroy(tlp_event_args* args) {
  return guarded("PJRT_Event_Destroy", [&] {
    need(args, TLP_EVENT_ARGS_SIZE, "PJRT_Event_Destroy_Args");
    delete args->event;
  });
}

tlp_error* event_is_ready(tlp_event_is_ready_args* args) {
  return guarded("PJRT_Event_IsReady", [&] {
    need(args, TLP_EVENT_IS_READY_ARGS_SIZE, "PJRT_Event_IsReady_Args");
    non_null(args->event, "the event");
    args->is_ready = true;
  });
}

// Every event is ready when it is returned, so Error and Await both give its outcome.
tlp_error* outcome_of(tlp_event_args* args, const char* fn, const char* args_name) {
  tlp_error* outcome = nullptr;
  if (tlp_error* e = guarded(fn, [&] {
        need(args, TLP_EVENT_ARGS_SIZE, args_name);
        outcome = event_outcome(*non_null(args->event, "the event"));
      }))
    return e;
  return outcome;
}

tlp_error* event_error(tlp_event_args* args) { return outcome_of(args, "PJRT_Event_Error", "PJRT_Event_Error_Args"); }

tlp_error* event_await(tlp_event_args* args) { return outcome_of(args, "PJRT_Event_Await", "PJRT_Event_Await_Args"); }

// The event is ready already: the callback runs now, on the caller's thread.
tlp_error* event_on_ready(tlp_event_on_ready_args* args) {
  return guarded("PJRT_Event_OnReady", [&] {
    need(args, TLP_EVENT_ON_READY_ARGS_SIZE, "PJRT_Event_OnReady_Args");
    const tlp_event& e = *non_null(args->event, "the event");
    if (args->callback == nullptr) throw Failure(TLP_INVALID_ARGUMENT, "the callback is null");
    args->callback(event_outcome(e), args->user_arg);
  });
}


}  // namespace

tlp_error* make_error(tlp_error_code code, std::string_view message) noexcept {
  try {
    return new tlp_error{code, std::string(message)};
  } catch (...) {
    return &out_of_memory;
  }
}

bool is_static_error(const tlp_error* e) noexcept { return e == &out_of_memory; }

tlp_element_type element_type(DType t) {
  if (const tlp_element_type type = runtime::pjrt::element_type_of(t); type != TLP_TYPE_INVALID) return type;
  throw Failure(TLP_INTERNAL, fmt::format("no PJRT element type for {}", dtype_name(t)));
}

DType dtype_of(tlp_element_type t) {
  if (const std::optional<DType> dtype = runtime::pjrt::dtype_of(t)) return *dtype;
  throw Failure(TLP_INVALID_ARGUMENT,
                fmt::format("element type {} (PJRT_Buffer_Type) is not one Tlaloc has (docs/DTYPES.md)", int(t)));
}

void fill_errors_and_events(tlp_api& a) {
  a.error_destroy = &error_destroy;
  a.error_message = &error_message;
  a.error_get_code = &error_get_code;
  a.plugin_initialize = &plugin_initialize;
  a.plugin_attributes = &plugin_attributes;
  a.event_destroy = &event_destroy;
  a.event_is_ready = &event_is_ready;
  a.event_error = &event_error;
  a.event_await = &event_await;
  a.event_on_ready = &event_on_ready;
}

}  // namespace tlaloc::pjrt_cpu
