/* Tlaloc's declaration of the PJRT C ABI, part 5: the API table GetPjrtApi returns
 * (PJRT_Api). Include "runtime/pjrt/pjrt_abi.h", not the parts.
 *
 * The table is the ABI's spine: every entry point is a slot found by its position,
 * so the order below is load-bearing. Slots are numbered from 0 in the comments
 * (slot n sits at byte 40 + 8n on LP64); the PJRT name follows each. The first 90
 * are the original table; 90 onwards were appended one minor at a time. A plugin
 * fills slots up to its own struct_size; a slot past it, or a NULL one, is absent.
 * Slots Tlaloc never calls have the generic type tlp_untyped_fn. */
#ifndef TLALOC_RUNTIME_PJRT_ABI_TABLE_H
#define TLALOC_RUNTIME_PJRT_ABI_TABLE_H

#include "runtime/pjrt/pjrt_abi_base.h"
#include "runtime/pjrt/pjrt_abi_buffer.h"
#include "runtime/pjrt/pjrt_abi_client.h"
#include "runtime/pjrt/pjrt_abi_executable.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NOLINTBEGIN(modernize-use-using): this is C, where typedef is the only spelling */

typedef struct tlp_api {
  size_t struct_size; /* bytes of this table the plugin filled */
  tlp_extension* extension_start;
  tlp_api_version version;

  /* Errors */
  tlp_error_destroy_fn* error_destroy;   /* 0  PJRT_Error_Destroy */
  tlp_error_message_fn* error_message;   /* 1  PJRT_Error_Message */
  tlp_error_get_code_fn* error_get_code; /* 2  PJRT_Error_GetCode */

  /* Plugin */
  tlp_plugin_initialize_fn* plugin_initialize; /* 3  PJRT_Plugin_Initialize */
  tlp_plugin_attributes_fn* plugin_attributes; /* 4  PJRT_Plugin_Attributes */

  /* Events */
  tlp_event_destroy_fn* event_destroy;   /* 5  PJRT_Event_Destroy */
  tlp_event_is_ready_fn* event_is_ready; /* 6  PJRT_Event_IsReady */
  tlp_event_error_fn* event_error;       /* 7  PJRT_Event_Error */
  tlp_event_await_fn* event_await;       /* 8  PJRT_Event_Await */
  tlp_event_on_ready_fn* event_on_ready; /* 9  PJRT_Event_OnReady */

  /* Client */
  tlp_client_create_fn* client_create;                           /* 10 PJRT_Client_Create */
  tlp_client_destroy_fn* client_destroy;                         /* 11 PJRT_Client_Destroy */
  tlp_client_platform_name_fn* client_platform_name;             /* 12 PJRT_Client_PlatformName */
  tlp_client_process_index_fn* client_process_index;             /* 13 PJRT_Client_ProcessIndex */
  tlp_client_platform_version_fn* client_platform_version;       /* 14 PJRT_Client_PlatformVersion */
  tlp_client_devices_fn* client_devices;                         /* 15 PJRT_Client_Devices */
  tlp_client_addressable_devices_fn* client_addressable_devices; /* 16 PJRT_Client_AddressableDevices */
  tlp_untyped_fn* client_lookup_device;                          /* 17 PJRT_Client_LookupDevice */
  tlp_untyped_fn* client_lookup_addressable_device;              /* 18 PJRT_Client_LookupAddressableDevice */
  tlp_client_addressable_memories_fn* client_addressable_memories; /* 19 PJRT_Client_AddressableMemories */
  tlp_client_compile_fn* client_compile;                           /* 20 PJRT_Client_Compile */
  tlp_untyped_fn* client_default_device_assignment;        /* 21 PJRT_Client_DefaultDeviceAssignment */
  tlp_client_buffer_from_host_fn* client_buffer_from_host; /* 22 PJRT_Client_BufferFromHostBuffer */

  /* Device descriptions */
  tlp_description_id_fn* description_id;                       /* 23 PJRT_DeviceDescription_Id */
  tlp_description_process_index_fn* description_process_index; /* 24 PJRT_DeviceDescription_ProcessIndex */
  tlp_description_attributes_fn* description_attributes;       /* 25 PJRT_DeviceDescription_Attributes */
  tlp_description_kind_fn* description_kind;                   /* 26 PJRT_DeviceDescription_Kind */
  tlp_description_debug_string_fn* description_debug_string;   /* 27 PJRT_DeviceDescription_DebugString */
  tlp_description_to_string_fn* description_to_string;         /* 28 PJRT_DeviceDescription_ToString */

  /* Devices */
  tlp_device_get_description_fn* device_get_description;           /* 29 PJRT_Device_GetDescription */
  tlp_device_is_addressable_fn* device_is_addressable;             /* 30 PJRT_Device_IsAddressable */
  tlp_device_local_hardware_id_fn* device_local_hardware_id;       /* 31 PJRT_Device_LocalHardwareId */
  tlp_device_addressable_memories_fn* device_addressable_memories; /* 32 PJRT_Device_AddressableMemories */
  tlp_device_default_memory_fn* device_default_memory;             /* 33 PJRT_Device_DefaultMemory */
  tlp_untyped_fn* device_memory_stats;                             /* 34 PJRT_Device_MemoryStats */

  /* Memories */
  tlp_memory_id_fn* memory_id;                     /* 35 PJRT_Memory_Id */
  tlp_memory_kind_fn* memory_kind;                 /* 36 PJRT_Memory_Kind */
  tlp_memory_debug_string_fn* memory_debug_string; /* 37 PJRT_Memory_DebugString */
  tlp_memory_to_string_fn* memory_to_string;       /* 38 PJRT_Memory_ToString */
  tlp_memory_addressable_by_devices_fn*
      memory_addressable_by_devices; /* 39 PJRT_Memory_AddressableByDevices */

  /* Executables */
  tlp_executable_destroy_fn* executable_destroy;               /* 40 PJRT_Executable_Destroy */
  tlp_executable_name_fn* executable_name;                     /* 41 PJRT_Executable_Name */
  tlp_executable_num_replicas_fn* executable_num_replicas;     /* 42 PJRT_Executable_NumReplicas */
  tlp_executable_num_partitions_fn* executable_num_partitions; /* 43 PJRT_Executable_NumPartitions */
  tlp_executable_num_outputs_fn* executable_num_outputs;       /* 44 PJRT_Executable_NumOutputs */
  tlp_untyped_fn* executable_size_of_generated_code; /* 45 PJRT_Executable_SizeOfGeneratedCodeInBytes */
  tlp_untyped_fn* executable_get_cost_analysis;      /* 46 PJRT_Executable_GetCostAnalysis */
  tlp_untyped_fn* executable_output_memory_kinds;    /* 47 PJRT_Executable_OutputMemoryKinds */
  tlp_untyped_fn* executable_optimized_program;      /* 48 PJRT_Executable_OptimizedProgram */
  tlp_executable_serialize_fn* executable_serialize; /* 49 PJRT_Executable_Serialize */

  /* Loaded executables */
  tlp_loaded_destroy_fn* loaded_destroy;               /* 50 PJRT_LoadedExecutable_Destroy */
  tlp_loaded_get_executable_fn* loaded_get_executable; /* 51 PJRT_LoadedExecutable_GetExecutable */
  tlp_loaded_addressable_devices_fn*
      loaded_addressable_devices;              /* 52 PJRT_LoadedExecutable_AddressableDevices */
  tlp_loaded_delete_fn* loaded_delete;         /* 53 PJRT_LoadedExecutable_Delete */
  tlp_loaded_is_deleted_fn* loaded_is_deleted; /* 54 PJRT_LoadedExecutable_IsDeleted */
  tlp_loaded_execute_fn* loaded_execute;       /* 55 PJRT_LoadedExecutable_Execute */
  tlp_deserialize_and_load_fn* executable_deserialize_and_load; /* 56 PJRT_Executable_DeserializeAndLoad */
  tlp_untyped_fn* loaded_fingerprint; /* 57 PJRT_LoadedExecutable_Fingerprint (deprecated) */

  /* Buffers */
  tlp_buffer_destroy_fn* buffer_destroy;               /* 58 PJRT_Buffer_Destroy */
  tlp_buffer_element_type_fn* buffer_element_type;     /* 59 PJRT_Buffer_ElementType */
  tlp_buffer_dimensions_fn* buffer_dimensions;         /* 60 PJRT_Buffer_Dimensions */
  tlp_untyped_fn* buffer_unpadded_dimensions;          /* 61 PJRT_Buffer_UnpaddedDimensions */
  tlp_untyped_fn* buffer_dynamic_dimension_indices;    /* 62 PJRT_Buffer_DynamicDimensionIndices */
  tlp_untyped_fn* buffer_get_memory_layout;            /* 63 PJRT_Buffer_GetMemoryLayout (deprecated) */
  tlp_buffer_on_device_size_fn* buffer_on_device_size; /* 64 PJRT_Buffer_OnDeviceSizeInBytes */
  tlp_buffer_device_fn* buffer_device;                 /* 65 PJRT_Buffer_Device */
  tlp_buffer_memory_fn* buffer_memory;                 /* 66 PJRT_Buffer_Memory */
  tlp_buffer_delete_fn* buffer_delete;                 /* 67 PJRT_Buffer_Delete */
  tlp_buffer_is_deleted_fn* buffer_is_deleted;         /* 68 PJRT_Buffer_IsDeleted */
  tlp_untyped_fn* buffer_copy_to_device;               /* 69 PJRT_Buffer_CopyToDevice */
  tlp_buffer_to_host_fn* buffer_to_host;               /* 70 PJRT_Buffer_ToHostBuffer */
  tlp_buffer_is_on_cpu_fn* buffer_is_on_cpu;           /* 71 PJRT_Buffer_IsOnCpu */
  tlp_buffer_ready_event_fn* buffer_ready_event;       /* 72 PJRT_Buffer_ReadyEvent */
  tlp_untyped_fn* buffer_unsafe_pointer;               /* 73 PJRT_Buffer_UnsafePointer */
  tlp_untyped_fn* buffer_increase_external_refs;       /* 74 PJRT_Buffer_IncreaseExternalReferenceCount */
  tlp_untyped_fn* buffer_decrease_external_refs;       /* 75 PJRT_Buffer_DecreaseExternalReferenceCount */
  tlp_untyped_fn* buffer_opaque_device_pointer;        /* 76 PJRT_Buffer_OpaqueDeviceMemoryDataPointer */

  /* Streams to the device */
  tlp_untyped_fn* stream_destroy;       /* 77 PJRT_CopyToDeviceStream_Destroy */
  tlp_untyped_fn* stream_add_chunk;     /* 78 PJRT_CopyToDeviceStream_AddChunk */
  tlp_untyped_fn* stream_total_bytes;   /* 79 PJRT_CopyToDeviceStream_TotalBytes */
  tlp_untyped_fn* stream_granule_size;  /* 80 PJRT_CopyToDeviceStream_GranuleSize */
  tlp_untyped_fn* stream_current_bytes; /* 81 PJRT_CopyToDeviceStream_CurrentBytes */

  /* Topologies, and compiling without a client */
  tlp_untyped_fn* topology_create;              /* 82 PJRT_TopologyDescription_Create */
  tlp_untyped_fn* topology_destroy;             /* 83 PJRT_TopologyDescription_Destroy */
  tlp_untyped_fn* topology_platform_name;       /* 84 PJRT_TopologyDescription_PlatformName */
  tlp_untyped_fn* topology_platform_version;    /* 85 PJRT_TopologyDescription_PlatformVersion */
  tlp_untyped_fn* topology_device_descriptions; /* 86 PJRT_TopologyDescription_GetDeviceDescriptions */
  tlp_untyped_fn* topology_serialize;           /* 87 PJRT_TopologyDescription_Serialize */
  tlp_untyped_fn* topology_attributes;          /* 88 PJRT_TopologyDescription_Attributes */
  tlp_untyped_fn* compile_for_topology;         /* 89 PJRT_Compile */

  /* Appended after the original table, in the order they arrived */
  tlp_executable_output_types_fn* executable_output_types; /* 90 PJRT_Executable_OutputElementTypes */
  tlp_executable_output_dims_fn* executable_output_dims;   /* 91 PJRT_Executable_OutputDimensions */
  tlp_untyped_fn* buffer_copy_to_memory;                   /* 92 PJRT_Buffer_CopyToMemory */
  tlp_untyped_fn* client_create_view_of_device_buffer;     /* 93 PJRT_Client_CreateViewOfDeviceBuffer */
  tlp_executable_fingerprint_fn* executable_fingerprint;   /* 94 PJRT_Executable_Fingerprint */
  tlp_untyped_fn* client_topology_description;             /* 95 PJRT_Client_TopologyDescription */
  tlp_untyped_fn* executable_compiled_memory_stats;        /* 96 PJRT_Executable_GetCompiledMemoryStats */
  tlp_memory_kind_id_fn* memory_kind_id;                   /* 97 PJRT_Memory_Kind_Id */
  tlp_untyped_fn* execute_context_create;                  /* 98 PJRT_ExecuteContext_Create */
  tlp_untyped_fn* execute_context_destroy;                 /* 99 PJRT_ExecuteContext_Destroy */
  tlp_untyped_fn* buffer_copy_raw_to_host;                 /* 100 PJRT_Buffer_CopyRawToHost */
  tlp_untyped_fn* transfer_manager_destroy;            /* 101 PJRT_AsyncHostToDeviceTransferManager_Destroy */
  tlp_untyped_fn* transfer_manager_transfer_data;      /* 102 ..._TransferData */
  tlp_untyped_fn* client_create_buffers_for_async_h2d; /* 103 PJRT_Client_CreateBuffersForAsyncHostToDevice */
  tlp_untyped_fn* transfer_manager_retrieve_buffer;    /* 104 ..._RetrieveBuffer */
  tlp_untyped_fn* transfer_manager_device;             /* 105 ..._Device */
  tlp_untyped_fn* transfer_manager_buffer_count;       /* 106 ..._BufferCount */
  tlp_untyped_fn* transfer_manager_buffer_size;        /* 107 ..._BufferSize */
  tlp_untyped_fn* transfer_manager_set_buffer_error;   /* 108 ..._SetBufferError */
  tlp_untyped_fn* transfer_manager_add_metadata;       /* 109 ..._AddMetadata */
  tlp_untyped_fn* client_dma_map;                      /* 110 PJRT_Client_DmaMap */
  tlp_untyped_fn* client_dma_unmap;                    /* 111 PJRT_Client_DmaUnmap */
  tlp_untyped_fn* client_create_uninitialized_buffer;  /* 112 PJRT_Client_CreateUninitializedBuffer */
  tlp_untyped_fn* client_update_global_process_info;   /* 113 PJRT_Client_UpdateGlobalProcessInfo */
  tlp_untyped_fn* topology_deserialize;                /* 114 PJRT_TopologyDescription_Deserialize */
  tlp_untyped_fn* client_create_alias_buffer;          /* 115 PJRT_Client_CreateAliasBuffer */
  tlp_untyped_fn* client_fulfill_alias_buffer;         /* 116 PJRT_Client_FulfillAliasBuffer */
  tlp_untyped_fn* loaded_get_device_assignment;        /* 117 PJRT_LoadedExecutable_GetDeviceAssignment */
  tlp_untyped_fn* client_create_error_buffer;          /* 118 PJRT_Client_CreateErrorBuffer */
  tlp_untyped_fn* transfer_manager_transfer_literal;   /* 119 ..._TransferLiteral */
  tlp_untyped_fn* buffer_copy_raw_to_host_future;      /* 120 PJRT_Buffer_CopyRawToHostFuture */
  tlp_untyped_fn* device_poison_execution;             /* 121 PJRT_Device_PoisonExecution */
  tlp_untyped_fn* device_create_async_tracking_event;  /* 122 PJRT_Device_CreateAsyncTrackingEvent */
  tlp_untyped_fn* async_tracking_event_destroy;        /* 123 PJRT_AsyncTrackingEvent_Destroy */
  tlp_untyped_fn* executable_get_compile_options;      /* 124 PJRT_Executable_GetCompileOptions */
  tlp_untyped_fn* buffer_donate_with_control_dependency; /* 125 PJRT_Buffer_DonateWithControlDependency */
  tlp_untyped_fn* event_create;                          /* 126 PJRT_Event_Create */
  tlp_untyped_fn* event_set;                             /* 127 PJRT_Event_Set */
  tlp_untyped_fn* device_get_attributes;                 /* 128 PJRT_Device_GetAttributes */
  tlp_untyped_fn* client_load;                           /* 129 PJRT_Client_Load */
  tlp_untyped_fn*
      loaded_addressable_device_logical_ids; /* 130 PJRT_LoadedExecutable_AddressableDeviceLogicalIds */
  tlp_untyped_fn* buffer_bitcast;            /* 131 PJRT_Buffer_Bitcast */
  tlp_untyped_fn* error_for_each_payload;    /* 132 PJRT_Error_ForEachPayload */
  tlp_untyped_fn* topology_fingerprint;      /* 133 PJRT_TopologyDescription_Fingerprint */
  tlp_untyped_fn* executable_parameter_memory_kinds; /* 134 PJRT_Executable_ParameterMemoryKinds */
  tlp_untyped_fn* device_clear_memory_stats;         /* 135 PJRT_Device_ClearMemoryStats */
  tlp_untyped_fn*
      topology_canonical_shape_for_memory; /* 136 PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace */
  tlp_untyped_fn* topology_memory_space_kind_ids; /* 137 PJRT_TopologyDescription_GetMemorySpaceKindIds */
} tlp_api;

/* The whole table as of TLP_API_MINOR: what Tlaloc's own plugin reports. */
#define TLP_API_SIZE TLP_FILLED_SIZE(tlp_api, topology_memory_space_kind_ids)
/* The least a plugin must fill for Tlaloc to load it: the original 90 slots. Later
 * slots are looked up one by one (runtime::pjrt::Plugin::has). */
#define TLP_API_REQUIRED_SIZE TLP_FILLED_SIZE(tlp_api, compile_for_topology)
/* Enough of the table to read the version record. */
#define TLP_API_VERSION_END TLP_FILLED_SIZE(tlp_api, version)

/* The one symbol a plugin exports. */
typedef const tlp_api* tlp_get_api_fn(void);
#define TLP_GET_API_SYMBOL "GetPjrtApi"

/* NOLINTEND(modernize-use-using) */

#ifdef __cplusplus
}
#endif

#endif /* TLALOC_RUNTIME_PJRT_ABI_TABLE_H */
