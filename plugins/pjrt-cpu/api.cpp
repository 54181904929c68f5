// GetPjrtApi, the plugin's one exported symbol (exports.map hides everything else),
// and the slots the plugin does not implement: each answers UNIMPLEMENTED with the
// PJRT name of the entry point, so every slot of the 0.110 table is filled.
#include <algorithm>
#include <cstddef>

#include "objects.hpp"

namespace tlaloc::pjrt_cpu {
namespace {

template <std::size_t N>
struct SlotName {
  constexpr SlotName(const char (&s)[N]) { std::copy_n(s, N, text); }  // NOLINT(google-explicit-constructor)
  char text[N] = {};
};

template <SlotName name>
tlp_error* unimplemented(void*) noexcept {
  return make_error(TLP_UNIMPLEMENTED, fmt::format("{}: not implemented by Tlaloc's CPU plugin (docs/PJRT.md)",
                                                   static_cast<const char*>(name.text)));
}

tlp_api make_table() {
  tlp_api api{};
  api.struct_size = TLP_API_SIZE;
  api.version.struct_size = TLP_API_VERSION_SIZE;
  api.version.major_version = TLP_API_MAJOR;
  api.version.minor_version = TLP_API_MINOR;
  fill_errors_and_events(api);
  fill_client(api);
  fill_buffers(api);
  fill_executables(api);
  fill_ffi(api);
  fill_unimplemented(api);
  return api;
}

}  // namespace

void fill_unimplemented(tlp_api& a) {
  a.client_lookup_device = &unimplemented<"PJRT_Client_LookupDevice">;
  a.client_lookup_addressable_device = &unimplemented<"PJRT_Client_LookupAddressableDevice">;
  a.client_default_device_assignment = &unimplemented<"PJRT_Client_DefaultDeviceAssignment">;
  a.device_memory_stats = &unimplemented<"PJRT_Device_MemoryStats">;
  a.executable_size_of_generated_code = &unimplemented<"PJRT_Executable_SizeOfGeneratedCodeInBytes">;
  a.executable_get_cost_analysis = &unimplemented<"PJRT_Executable_GetCostAnalysis">;
  a.executable_output_memory_kinds = &unimplemented<"PJRT_Executable_OutputMemoryKinds">;
  a.executable_optimized_program = &unimplemented<"PJRT_Executable_OptimizedProgram">;
  a.loaded_fingerprint = &unimplemented<"PJRT_LoadedExecutable_Fingerprint">;
  a.buffer_unpadded_dimensions = &unimplemented<"PJRT_Buffer_UnpaddedDimensions">;
  a.buffer_dynamic_dimension_indices = &unimplemented<"PJRT_Buffer_DynamicDimensionIndices">;
  a.buffer_get_memory_layout = &unimplemented<"PJRT_Buffer_GetMemoryLayout">;
  a.buffer_copy_to_device = &unimplemented<"PJRT_Buffer_CopyToDevice">;
  a.buffer_unsafe_pointer = &unimplemented<"PJRT_Buffer_UnsafePointer">;
  a.buffer_increase_external_refs = &unimplemented<"PJRT_Buffer_IncreaseExternalReferenceCount">;
  a.buffer_decrease_external_refs = &unimplemented<"PJRT_Buffer_DecreaseExternalReferenceCount">;
  a.buffer_opaque_device_pointer = &unimplemented<"PJRT_Buffer_OpaqueDeviceMemoryDataPointer">;
  a.stream_destroy = &unimplemented<"PJRT_CopyToDeviceStream_Destroy">;
  a.stream_add_chunk = &unimplemented<"PJRT_CopyToDeviceStream_AddChunk">;
  a.stream_total_bytes = &unimplemented<"PJRT_CopyToDeviceStream_TotalBytes">;
  a.stream_granule_size = &unimplemented<"PJRT_CopyToDeviceStream_GranuleSize">;
  a.stream_current_bytes = &unimplemented<"PJRT_CopyToDeviceStream_CurrentBytes">;
  a.topology_create = &unimplemented<"PJRT_TopologyDescription_Create">;
  a.topology_destroy = &unimplemented<"PJRT_TopologyDescription_Destroy">;
  a.topology_platform_name = &unimplemented<"PJRT_TopologyDescription_PlatformName">;
  a.topology_platform_version = &unimplemented<"PJRT_TopologyDescription_PlatformVersion">;
  a.topology_device_descriptions = &unimplemented<"PJRT_TopologyDescription_GetDeviceDescriptions">;
  a.topology_serialize = &unimplemented<"PJRT_TopologyDescription_Serialize">;
  a.topology_attributes = &unimplemented<"PJRT_TopologyDescription_Attributes">;
  a.compile_for_topology = &unimplemented<"PJRT_Compile">;
  a.buffer_copy_to_memory = &unimplemented<"PJRT_Buffer_CopyToMemory">;
  a.client_create_view_of_device_buffer = &unimplemented<"PJRT_Client_CreateViewOfDeviceBuffer">;
  a.client_topology_description = &unimplemented<"PJRT_Client_TopologyDescription">;
  a.executable_compiled_memory_stats = &unimplemented<"PJRT_Executable_GetCompiledMemoryStats">;
  a.execute_context_create = &unimplemented<"PJRT_ExecuteContext_Create">;
  a.execute_context_destroy = &unimplemented<"PJRT_ExecuteContext_Destroy">;
  a.buffer_copy_raw_to_host = &unimplemented<"PJRT_Buffer_CopyRawToHost">;
  a.transfer_manager_destroy = &unimplemented<"PJRT_AsyncHostToDeviceTransferManager_Destroy">;
  a.transfer_manager_transfer_data = &unimplemented<"PJRT_AsyncHostToDeviceTransferManager_TransferData">;
  a.client_create_buffers_for_async_h2d = &unimplemented<"PJRT_Client_CreateBuffersForAsyncHostToDevice">;
  a.transfer_manager_retrieve_buffer = &unimplemented<"PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer">;
  a.transfer_manager_device = &unimplemented<"PJRT_AsyncHostToDeviceTransferManager_Device">;
  a.transfer_manager_buffer_count = &unimplemented<"PJRT_AsyncHostToDeviceTransferManager_BufferCount">;
  a.transfer_manager_buffer_size = &unimplemented<"PJRT_AsyncHostToDeviceTransferManager_BufferSize">;
  a.transfer_manager_set_buffer_error = &unimplemented<"PJRT_AsyncHostToDeviceTransferManager_SetBufferError">;
  a.transfer_manager_add_metadata = &unimplemented<"PJRT_AsyncHostToDeviceTransferManager_AddMetadata">;
  a.client_dma_map = &unimplemented<"PJRT_Client_DmaMap">;
  a.client_dma_unmap = &unimplemented<"PJRT_Client_DmaUnmap">;
  a.client_create_uninitialized_buffer = &unimplemented<"PJRT_Client_CreateUninitializedBuffer">;
  a.client_update_global_process_info = &unimplemented<"PJRT_Client_UpdateGlobalProcessInfo">;
  a.topology_deserialize = &unimplemented<"PJRT_TopologyDescription_Deserialize">;
  a.client_create_alias_buffer = &unimplemented<"PJRT_Client_CreateAliasBuffer">;
  a.client_fulfill_alias_buffer = &unimplemented<"PJRT_Client_FulfillAliasBuffer">;
  a.loaded_get_device_assignment = &unimplemented<"PJRT_LoadedExecutable_GetDeviceAssignment">;
  a.client_create_error_buffer = &unimplemented<"PJRT_Client_CreateErrorBuffer">;
  a.transfer_manager_transfer_literal = &unimplemented<"PJRT_AsyncHostToDeviceTransferManager_TransferLiteral">;
  a.buffer_copy_raw_to_host_future = &unimplemented<"PJRT_Buffer_CopyRawToHostFuture">;
  a.device_poison_execution = &unimplemented<"PJRT_Device_PoisonExecution">;
  a.device_create_async_tracking_event = &unimplemented<"PJRT_Device_CreateAsyncTrackingEvent">;
  a.async_tracking_event_destroy = &unimplemented<"PJRT_AsyncTrackingEvent_Destroy">;
  a.executable_get_compile_options = &unimplemented<"PJRT_Executable_GetCompileOptions">;
  a.buffer_donate_with_control_dependency = &unimplemented<"PJRT_Buffer_DonateWithControlDependency">;
  a.event_create = &unimplemented<"PJRT_Event_Create">;
  a.event_set = &unimplemented<"PJRT_Event_Set">;
  a.device_get_attributes = &unimplemented<"PJRT_Device_GetAttributes">;
  a.client_load = &unimplemented<"PJRT_Client_Load">;
  a.loaded_addressable_device_logical_ids = &unimplemented<"PJRT_LoadedExecutable_AddressableDeviceLogicalIds">;
  a.buffer_bitcast = &unimplemented<"PJRT_Buffer_Bitcast">;
  a.error_for_each_payload = &unimplemented<"PJRT_Error_ForEachPayload">;
  a.topology_fingerprint = &unimplemented<"PJRT_TopologyDescription_Fingerprint">;
  a.executable_parameter_memory_kinds = &unimplemented<"PJRT_Executable_ParameterMemoryKinds">;
  a.device_clear_memory_stats = &unimplemented<"PJRT_Device_ClearMemoryStats">;
  a.topology_canonical_shape_for_memory =
      &unimplemented<"PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace">;
  a.topology_memory_space_kind_ids = &unimplemented<"PJRT_TopologyDescription_GetMemorySpaceKindIds">;
}

}  // namespace tlaloc::pjrt_cpu

extern "C" __attribute__((visibility("default"))) const tlp_api* GetPjrtApi() {
  static const tlp_api api = tlaloc::pjrt_cpu::make_table();
  return &api;
}
