// The client, its devices ("tlaloc_cpu", ids 0 to N - 1) and each device's one memory.
#include <algorithm>

#include "objects.hpp"
#include "tlaloc/version.hpp"

tlp_client::tlp_client(int count) {
  for (int k = 0; k < count; ++k) {
    auto d = std::make_unique<tlp_device>();
    auto m = std::make_unique<tlp_memory>();
    d->description = {k, "tlaloc_cpu", fmt::format("TlalocCpuDevice(id={})", k)};
    d->memories[0] = m.get();
    m->id = k;
    m->kind = "device";
    m->text = fmt::format("TlalocCpuMemory(id={}, kind=device)", k);
    m->devices[0] = d.get();
    devices.push_back(d.get());
    memories.push_back(m.get());
    device_list.push_back(std::move(d));
    memory_list.push_back(std::move(m));
  }
}

int tlp_client::id_of(const tlp_device* d) const {
  const auto at = std::find(devices.begin(), devices.end(), d);
  return at == devices.end() ? -1 : int(at - devices.begin());
}
int tlp_client::id_of(const tlp_memory* m) const {
  const auto at = std::find(memories.begin(), memories.end(), m);
  return at == memories.end() ? -1 : int(at - memories.begin());
}

namespace tlaloc::pjrt_cpu {
namespace {

constexpr std::string_view kPlatformName = "tlaloc_cpu";
constexpr std::string_view kDevicesOption = "tlaloc_cpu_devices";
constexpr std::int64_t kMaxDevices = 1024;
const std::string kPlatformVersion = fmt::format("Tlaloc {} (host interpreter)", version_string);

void set_text(const char*& text, std::size_t& size, std::string_view value) {
  text = value.data();
  size = value.size();
}

tlp_error* client_create(tlp_client_create_args* args) {
  return guarded("PJRT_Client_Create", [&] {
    need(args, TLP_CLIENT_CREATE_ARGS_SIZE, "PJRT_Client_Create_Args");
    // One option, the number of devices; any other name is a mistake worth reporting.
    std::int64_t count = 1;
    for (std::size_t i = 0; i < args->num_options; ++i) {
      const tlp_named_value& o = non_null(args->create_options, "create_options")[i];
      const std::string_view name(non_null(o.name, "an option's name"), o.name_size);
      if (name != kDevicesOption)
        throw Failure(
            TLP_INVALID_ARGUMENT,
            fmt::format("unknown option '{}': Tlaloc's CPU plugin takes {} only", name, kDevicesOption));
      if (o.kind != TLP_VALUE_INT64 || o.int64_value < 1 || o.int64_value > kMaxDevices)
        throw Failure(TLP_INVALID_ARGUMENT,
                      fmt::format("option {} takes an int64 from 1 to {}", kDevicesOption, kMaxDevices));
      count = o.int64_value;
    }
    args->client = new tlp_client(int(count));
  });
}

tlp_error* client_destroy(tlp_client_args* args) {
  return guarded("PJRT_Client_Destroy", [&] {
    need(args, TLP_CLIENT_ARGS_SIZE, "PJRT_Client_Destroy_Args");
    delete args->client;
  });
}

tlp_error* client_platform_name(tlp_client_string_args* args) {
  return guarded("PJRT_Client_PlatformName", [&] {
    need(args, TLP_CLIENT_STRING_ARGS_SIZE, "PJRT_Client_PlatformName_Args");
    non_null(args->client, "the client");
    set_text(args->text, args->text_size, kPlatformName);
  });
}

tlp_error* client_platform_version(tlp_client_string_args* args) {
  return guarded("PJRT_Client_PlatformVersion", [&] {
    need(args, TLP_CLIENT_STRING_ARGS_SIZE, "PJRT_Client_PlatformVersion_Args");
    non_null(args->client, "the client");
    set_text(args->text, args->text_size, kPlatformVersion);
  });
}

tlp_error* client_process_index(tlp_client_process_index_args* args) {
  return guarded("PJRT_Client_ProcessIndex", [&] {
    need(args, TLP_CLIENT_PROCESS_INDEX_ARGS_SIZE, "PJRT_Client_ProcessIndex_Args");
    non_null(args->client, "the client");
    args->process_index = 0;
  });
}

tlp_error* client_devices(tlp_client_devices_args* args) {
  return guarded("PJRT_Client_Devices", [&] {
    need(args, TLP_CLIENT_DEVICES_ARGS_SIZE, "PJRT_Client_Devices_Args");
    const tlp_client& c = *non_null(args->client, "the client");
    args->devices = c.devices.data();
    args->num_devices = c.devices.size();
  });
}

tlp_error* client_addressable_devices(tlp_client_devices_args* args) {
  return guarded("PJRT_Client_AddressableDevices", [&] {
    need(args, TLP_CLIENT_DEVICES_ARGS_SIZE, "PJRT_Client_AddressableDevices_Args");
    const tlp_client& c = *non_null(args->client, "the client");
    args->devices = c.devices.data();
    args->num_devices = c.devices.size();
  });
}

tlp_error* client_addressable_memories(tlp_client_memories_args* args) {
  return guarded("PJRT_Client_AddressableMemories", [&] {
    need(args, TLP_CLIENT_MEMORIES_ARGS_SIZE, "PJRT_Client_AddressableMemories_Args");
    const tlp_client& c = *non_null(args->client, "the client");
    args->memories = c.memories.data();
    args->num_memories = c.memories.size();
  });
}

tlp_error* description_id(tlp_description_int_args* args) {
  return guarded("PJRT_DeviceDescription_Id", [&] {
    need(args, TLP_DESCRIPTION_INT_ARGS_SIZE, "PJRT_DeviceDescription_Id_Args");
    args->value = non_null(args->description, "the description")->id;
  });
}

tlp_error* description_process_index(tlp_description_int_args* args) {
  return guarded("PJRT_DeviceDescription_ProcessIndex", [&] {
    need(args, TLP_DESCRIPTION_INT_ARGS_SIZE, "PJRT_DeviceDescription_ProcessIndex_Args");
    non_null(args->description, "the description");
    args->value = 0;
  });
}

tlp_error* description_attributes(tlp_description_attributes_args* args) {
  return guarded("PJRT_DeviceDescription_Attributes", [&] {
    need(args, TLP_DESCRIPTION_ATTRIBUTES_ARGS_SIZE, "PJRT_DeviceDescription_Attributes_Args");
    non_null(args->description, "the description");
    args->attributes = nullptr;
    args->num_attributes = 0;
  });
}

tlp_error* description_kind(tlp_description_string_args* args) {
  return guarded("PJRT_DeviceDescription_Kind", [&] {
    need(args, TLP_DESCRIPTION_STRING_ARGS_SIZE, "PJRT_DeviceDescription_Kind_Args");
    set_text(args->text, args->text_size, non_null(args->description, "the description")->kind);
  });
}

tlp_error* description_debug_string(tlp_description_string_args* args) {
  return guarded("PJRT_DeviceDescription_DebugString", [&] {
    need(args, TLP_DESCRIPTION_STRING_ARGS_SIZE, "PJRT_DeviceDescription_DebugString_Args");
    set_text(args->text, args->text_size, non_null(args->description, "the description")->text);
  });
}

tlp_error* description_to_string(tlp_description_string_args* args) {
  return guarded("PJRT_DeviceDescription_ToString", [&] {
    need(args, TLP_DESCRIPTION_STRING_ARGS_SIZE, "PJRT_DeviceDescription_ToString_Args");
    set_text(args->text, args->text_size, non_null(args->description, "the description")->text);
  });
}

tlp_error* device_get_description(tlp_device_get_description_args* args) {
  return guarded("PJRT_Device_GetDescription", [&] {
    need(args, TLP_DEVICE_GET_DESCRIPTION_ARGS_SIZE, "PJRT_Device_GetDescription_Args");
    args->description = &non_null(args->device, "the device")->description;
  });
}

tlp_error* device_is_addressable(tlp_device_is_addressable_args* args) {
  return guarded("PJRT_Device_IsAddressable", [&] {
    need(args, TLP_DEVICE_IS_ADDRESSABLE_ARGS_SIZE, "PJRT_Device_IsAddressable_Args");
    non_null(args->device, "the device");
    args->is_addressable = true;
  });
}

tlp_error* device_local_hardware_id(tlp_device_local_hardware_id_args* args) {
  return guarded("PJRT_Device_LocalHardwareId", [&] {
    need(args, TLP_DEVICE_LOCAL_HARDWARE_ID_ARGS_SIZE, "PJRT_Device_LocalHardwareId_Args");
    args->local_hardware_id = non_null(args->device, "the device")->description.id;
  });
}

tlp_error* device_addressable_memories(tlp_device_memories_args* args) {
  return guarded("PJRT_Device_AddressableMemories", [&] {
    need(args, TLP_DEVICE_MEMORIES_ARGS_SIZE, "PJRT_Device_AddressableMemories_Args");
    args->memories = non_null(args->device, "the device")->memories;
    args->num_memories = 1;
  });
}

tlp_error* device_default_memory(tlp_device_default_memory_args* args) {
  return guarded("PJRT_Device_DefaultMemory", [&] {
    need(args, TLP_DEVICE_DEFAULT_MEMORY_ARGS_SIZE, "PJRT_Device_DefaultMemory_Args");
    args->memory = non_null(args->device, "the device")->memories[0];
  });
}

tlp_error* memory_id(tlp_memory_int_args* args) {
  return guarded("PJRT_Memory_Id", [&] {
    need(args, TLP_MEMORY_INT_ARGS_SIZE, "PJRT_Memory_Id_Args");
    args->value = non_null(args->memory, "the memory")->id;
  });
}

tlp_error* memory_kind_id(tlp_memory_int_args* args) {
  return guarded("PJRT_Memory_Kind_Id", [&] {
    need(args, TLP_MEMORY_INT_ARGS_SIZE, "PJRT_Memory_Kind_Id_Args");
    non_null(args->memory, "the memory");
    args->value = 0;
  });
}

tlp_error* memory_kind(tlp_memory_string_args* args) {
  return guarded("PJRT_Memory_Kind", [&] {
    need(args, TLP_MEMORY_STRING_ARGS_SIZE, "PJRT_Memory_Kind_Args");
    set_text(args->text, args->text_size, non_null(args->memory, "the memory")->kind);
  });
}

tlp_error* memory_debug_string(tlp_memory_string_args* args) {
  return guarded("PJRT_Memory_DebugString", [&] {
    need(args, TLP_MEMORY_STRING_ARGS_SIZE, "PJRT_Memory_DebugString_Args");
    set_text(args->text, args->text_size, non_null(args->memory, "the memory")->text);
  });
}

tlp_error* memory_to_string(tlp_memory_string_args* args) {
  return guarded("PJRT_Memory_ToString", [&] {
    need(args, TLP_MEMORY_STRING_ARGS_SIZE, "PJRT_Memory_ToString_Args");
    set_text(args->text, args->text_size, non_null(args->memory, "the memory")->text);
  });
}

tlp_error* memory_addressable_by_devices(tlp_memory_devices_args* args) {
  return guarded("PJRT_Memory_AddressableByDevices", [&] {
    need(args, TLP_MEMORY_DEVICES_ARGS_SIZE, "PJRT_Memory_AddressableByDevices_Args");
    args->devices = non_null(args->memory, "the memory")->devices;
    args->num_devices = 1;
  });
}

}  // namespace

void fill_client(tlp_api& a) {
  a.client_create = &client_create;
  a.client_destroy = &client_destroy;
  a.client_platform_name = &client_platform_name;
  a.client_process_index = &client_process_index;
  a.client_platform_version = &client_platform_version;
  a.client_devices = &client_devices;
  a.client_addressable_devices = &client_addressable_devices;
  a.client_addressable_memories = &client_addressable_memories;
  a.description_id = &description_id;
  a.description_process_index = &description_process_index;
  a.description_attributes = &description_attributes;
  a.description_kind = &description_kind;
  a.description_debug_string = &description_debug_string;
  a.description_to_string = &description_to_string;
  a.device_get_description = &device_get_description;
  a.device_is_addressable = &device_is_addressable;
  a.device_local_hardware_id = &device_local_hardware_id;
  a.device_addressable_memories = &device_addressable_memories;
  a.device_default_memory = &device_default_memory;
  a.memory_id = &memory_id;
  a.memory_kind_id = &memory_kind_id;
  a.memory_kind = &memory_kind;
  a.memory_debug_string = &memory_debug_string;
  a.memory_to_string = &memory_to_string;
  a.memory_addressable_by_devices = &memory_addressable_by_devices;
}

}  // namespace tlaloc::pjrt_cpu
