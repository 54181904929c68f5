#include "runtime/pjrt/client.hpp"

#include <fmt/format.h>

#include "tlaloc/runtime.hpp"

namespace tlaloc::runtime::pjrt {
namespace {

// The named values point into `options`, which must outlive them.
std::vector<tlp_named_value> named_values(const std::vector<ClientOption>& options) {
  std::vector<tlp_named_value> out;
  for (const ClientOption& o : options) {
    tlp_named_value v{};
    v.struct_size = TLP_NAMED_VALUE_SIZE;
    v.name = o.name.data();
    v.name_size = o.name.size();
    v.value_size = 1;
    if (const auto* s = std::get_if<std::string>(&o.value)) {
      v.kind = TLP_VALUE_STRING;
      v.string_value = s->data();
      v.value_size = s->size();
    } else if (const auto* i = std::get_if<std::int64_t>(&o.value)) {
      v.kind = TLP_VALUE_INT64;
      v.int64_value = *i;
    } else if (const auto* f = std::get_if<float>(&o.value)) {
      v.kind = TLP_VALUE_FLOAT;
      v.float_value = *f;
    } else {
      v.kind = TLP_VALUE_BOOL;
      v.bool_value = std::get<bool>(o.value);
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace

Client::Client(Plugin plugin, const std::vector<ClientOption>& options) : plugin_(std::move(plugin)) {
  const std::vector<tlp_named_value> values = named_values(options);
  tlp_client_create_args create{};
  create.struct_size = TLP_CLIENT_CREATE_ARGS_SIZE;
  create.create_options = values.data();
  create.num_options = values.size();
  check(api().client_create(&create), "PJRT_Client_Create");
  client_ = create.client;
  try {
    tlp_client_devices_args devices{};
    devices.struct_size = TLP_CLIENT_DEVICES_ARGS_SIZE;
    devices.client = client_;
    check(api().client_addressable_devices(&devices), "PJRT_Client_AddressableDevices");
    if (devices.num_devices == 0)
      throw RuntimeError(fmt::format("tl::runtime: the PJRT plugin '{}' has no device this process can use",
                                     plugin_.path().string()));
    devices_.assign(devices.devices, devices.devices + devices.num_devices);
    platform_name_ = client_string(api().client_platform_name, "PJRT_Client_PlatformName");
    platform_version_ = client_string(api().client_platform_version, "PJRT_Client_PlatformVersion");
  } catch (...) {
    tlp_client_args destroy{TLP_CLIENT_ARGS_SIZE, nullptr, client_};
    plugin_.take_error(api().client_destroy(&destroy));
    throw;
  }
}

Client::~Client() {
  tlp_client_args destroy{TLP_CLIENT_ARGS_SIZE, nullptr, client_};
  plugin_.take_error(api().client_destroy(&destroy));  // nothing to report it to
}

std::int64_t Client::id_of(tlp_device* device) const {
  tlp_device_get_description_args get{};
  get.struct_size = TLP_DEVICE_GET_DESCRIPTION_ARGS_SIZE;
  get.device = device;
  check(api().device_get_description(&get), "PJRT_Device_GetDescription");
  tlp_description_int_args id{};
  id.struct_size = TLP_DESCRIPTION_INT_ARGS_SIZE;
  id.description = get.description;
  check(api().description_id(&id), "PJRT_DeviceDescription_Id");
  return id.value;
}

std::string Client::client_string(tlp_client_platform_name_fn* fn, std::string_view what) const {
  tlp_client_string_args args{};
  args.struct_size = TLP_CLIENT_STRING_ARGS_SIZE;
  args.client = client_;
  check(fn(&args), what);
  return std::string(args.text, args.text_size);
}

void Client::check(tlp_error* error, std::string_view what) const {
  if (error == nullptr) return;
  const Plugin::Failure f = plugin_.take_error(error);
  throw RuntimeError(fmt::format("tl::runtime: {} failed in the PJRT plugin '{}' ({}): {}", what,
                                 plugin_.path().string(), error_code_name(f.code), f.message),
                     f.code);
}

void Client::await(tlp_event* event, std::string_view what) const {
  if (event == nullptr) return;
  tlp_event_args args{TLP_EVENT_ARGS_SIZE, nullptr, event};
  tlp_error* outcome = api().event_await(&args);
  plugin_.take_error(api().event_destroy(&args));
  check(outcome, what);
}

}  // namespace tlaloc::runtime::pjrt
