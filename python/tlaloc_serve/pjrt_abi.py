"""The part of the PJRT C ABI (version 0.110) that tlaloc_serve calls, in ctypes.

It mirrors Tlaloc's C declaration, src/runtime/pjrt/pjrt_abi*.h: each Structure has
the C struct's name (`c_name`) and its fields' names, types and order, so ctypes lays
it out as a C compiler does on LP64 (natural alignment). `struct_size` of an argument
struct is the byte just past its last field, without tail padding (TLP_FILLED_SIZE);
`filled_size` computes it from ctypes' own offsets. tests/serve/test_tlaloc_serve.py
checks every size and offset the C header asserts, and every slot number below
against the table's order in pjrt_abi_table.h.
"""

import ctypes
from ctypes import POINTER, c_bool, c_char_p, c_int, c_int64, c_size_t, c_void_p

API_MAJOR = 0
OLDEST_MINOR = 57  # 0.56 put a slot in the middle of the table; 0.57 moved it to the end
WRITTEN_AGAINST = (0, 110)

# PJRT_Api: struct_size, extension_start, the 24-byte version record, then the slots.
VERSION_END = 40  # bytes that hold the version record
SLOT_BASE = 40
REQUIRED_SLOTS = 90  # the original table; later slots are looked up one by one

# The slots called here, numbered as in pjrt_abi_table.h (offset 40 + 8 * slot).
SLOTS = {
    "PJRT_Error_Destroy": 0,
    "PJRT_Error_Message": 1,
    "PJRT_Error_GetCode": 2,
    "PJRT_Plugin_Initialize": 3,
    "PJRT_Event_Destroy": 5,
    "PJRT_Event_Await": 8,
    "PJRT_Client_Create": 10,
    "PJRT_Client_Destroy": 11,
    "PJRT_Client_PlatformName": 12,
    "PJRT_Client_PlatformVersion": 14,
    "PJRT_Client_AddressableDevices": 16,
    "PJRT_Client_Compile": 20,
    "PJRT_Client_BufferFromHostBuffer": 22,
    "PJRT_Executable_Destroy": 40,
    "PJRT_Executable_NumOutputs": 44,
    "PJRT_LoadedExecutable_Destroy": 50,
    "PJRT_LoadedExecutable_GetExecutable": 51,
    "PJRT_LoadedExecutable_Execute": 55,
    "PJRT_Buffer_Destroy": 58,
    "PJRT_Buffer_ElementType": 59,
    "PJRT_Buffer_Dimensions": 60,
    "PJRT_Buffer_ToHostBuffer": 70,
    "PJRT_Executable_OutputElementTypes": 90,
    "PJRT_Executable_OutputDimensions": 91,
}


def slot_offset(name):
    return SLOT_BASE + 8 * SLOTS[name]


def filled_size(cls):
    """TLP_FILLED_SIZE: the end of the last field (what a caller writes in struct_size)."""
    last = getattr(cls, cls._fields_[-1][0])
    return last.offset + last.size


def _args(c_name, *fields):
    """An argument struct: struct_size and extension_start, then `fields`."""
    return type(c_name, (ctypes.Structure,),
                {"c_name": c_name, "_fields_": [("struct_size", c_size_t), ("extension_start", c_void_p), *fields]})


class ApiVersion(ctypes.Structure):
    c_name = "tlp_api_version"
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p),
                ("major_version", c_int), ("minor_version", c_int)]


class ApiHead(ctypes.Structure):
    """The first 40 bytes of PJRT_Api; slots are read by offset."""
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("version", ApiVersion)]


# Errors and plugin set-up (pjrt_abi_base.h)
ErrorDestroyArgs = _args("tlp_error_destroy_args", ("error", c_void_p))
ErrorMessageArgs = _args("tlp_error_message_args", ("error", c_void_p), ("message", c_void_p),
                         ("message_size", c_size_t))
ErrorGetCodeArgs = _args("tlp_error_get_code_args", ("error", c_void_p), ("code", c_int))
PluginInitializeArgs = _args("tlp_plugin_initialize_args")
EventArgs = _args("tlp_event_args", ("event", c_void_p))



class _Value(ctypes.Union):
    _fields_ = [("string_value", c_char_p), ("int64_value", c_int64), ("int64_list_value", POINTER(c_int64)),
                ("float_value", ctypes.c_float), ("bool_value", c_bool)]


class NamedValue(ctypes.Structure):
    """PJRT_NamedValue: one client option (kind says which member of the union is set)."""
    c_name = "tlp_named_value"
    _anonymous_ = ("value",)
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("name", c_char_p),
                ("name_size", c_size_t), ("kind", c_int), ("value", _Value), ("value_size", c_size_t)]


VALUE_STRING, VALUE_INT64, VALUE_FLOAT, VALUE_BOOL = 0, 1, 3, 4

# Clients and devices (pjrt_abi_client.h)
ClientCreateArgs = _args("tlp_client_create_args", ("create_options", POINTER(NamedValue)), ("num_options", c_size_t),
                         ("kv_get_callback", c_void_p), ("kv_get_user_arg", c_void_p),
                         ("kv_put_callback", c_void_p), ("kv_put_user_arg", c_void_p),
                         ("client", c_void_p), ("kv_try_get_callback", c_void_p),
                         ("kv_try_get_user_arg", c_void_p))
ClientArgs = _args("tlp_client_args", ("client", c_void_p))
ClientStringArgs = _args("tlp_client_string_args", ("client", c_void_p), ("text", c_void_p),
                         ("text_size", c_size_t))
ClientDevicesArgs = _args("tlp_client_devices_args", ("client", c_void_p), ("devices", POINTER(c_void_p)),
                          ("num_devices", c_size_t))

# Buffers (pjrt_abi_buffer.h)
HOST_ONLY_DURING_CALL = 0  # PJRT_HostBufferSemantics: copied before the call returns
BufferFromHostArgs = _args("tlp_buffer_from_host_args", ("client", c_void_p), ("data", c_void_p),
                           ("type", c_int), ("dims", POINTER(c_int64)), ("num_dims", c_size_t),
                           ("byte_strides", POINTER(c_int64)), ("num_byte_strides", c_size_t),
                           ("host_buffer_semantics", c_int), ("device", c_void_p), ("memory", c_void_p),
                           ("device_layout", c_void_p), ("done_with_host_buffer", c_void_p),
                           ("buffer", c_void_p))
BufferToHostArgs = _args("tlp_buffer_to_host_args", ("src", c_void_p), ("host_layout", c_void_p),
                         ("dst", c_void_p), ("dst_size", c_size_t), ("event", c_void_p))
BufferArgs = _args("tlp_buffer_args", ("buffer", c_void_p))
BufferElementTypeArgs = _args("tlp_buffer_element_type_args", ("buffer", c_void_p), ("type", c_int))
BufferDimensionsArgs = _args("tlp_buffer_dimensions_args", ("buffer", c_void_p), ("dims", POINTER(c_int64)),
                             ("num_dims", c_size_t))

# Compilation, executables, execution (pjrt_abi_executable.h)
Program = _args("tlp_program", ("code", c_void_p), ("code_size", c_size_t), ("format", c_char_p),
                ("format_size", c_size_t))
ClientCompileArgs = _args("tlp_client_compile_args", ("client", c_void_p), ("program", POINTER(Program)),
                          ("compile_options", c_char_p), ("compile_options_size", c_size_t),
                          ("executable", c_void_p))
ExecutableArgs = _args("tlp_executable_args", ("executable", c_void_p))
ExecutableCountArgs = _args("tlp_executable_count_args", ("executable", c_void_p), ("count", c_size_t))
ExecutableOutputTypesArgs = _args("tlp_executable_output_types_args", ("executable", c_void_p),
                                  ("output_types", POINTER(c_int)), ("num_output_types", c_size_t))
ExecutableOutputDimsArgs = _args("tlp_executable_output_dims_args", ("executable", c_void_p),
                                 ("num_outputs", c_size_t), ("dims", POINTER(c_int64)),
                                 ("dim_sizes", POINTER(c_size_t)))
LoadedArgs = _args("tlp_loaded_args", ("executable", c_void_p))
LoadedGetExecutableArgs = _args("tlp_loaded_get_executable_args", ("loaded", c_void_p), ("executable", c_void_p))
ExecuteOptions = _args("tlp_execute_options", ("send_callbacks", c_void_p), ("recv_callbacks", c_void_p),
                       ("num_send_ops", c_size_t), ("num_recv_ops", c_size_t), ("launch_id", c_int),
                       ("non_donatable_input_indices", POINTER(c_int64)),
                       ("num_non_donatable_input_indices", c_size_t), ("context", c_void_p),
                       ("call_location", c_char_p), ("num_tasks", c_size_t), ("task_ids", c_void_p),
                       ("incarnation_ids", c_void_p), ("multi_slice_config", c_void_p),
                       ("use_major_to_minor_data_layout_for_callbacks", c_bool))
ExecuteArgs = _args("tlp_execute_args", ("executable", c_void_p), ("options", POINTER(ExecuteOptions)),
                    ("argument_lists", POINTER(POINTER(c_void_p))), ("num_devices", c_size_t),
                    ("num_args", c_size_t), ("output_lists", POINTER(POINTER(c_void_p))),
                    ("device_complete_events", POINTER(c_void_p)), ("execute_device", c_void_p))

ARG_STRUCTS = (ErrorDestroyArgs, ErrorMessageArgs, ErrorGetCodeArgs, PluginInitializeArgs, EventArgs,
               ClientCreateArgs, ClientArgs, ClientStringArgs, ClientDevicesArgs, BufferFromHostArgs,
               BufferToHostArgs, BufferArgs, BufferElementTypeArgs, BufferDimensionsArgs, Program,
               ClientCompileArgs, ExecutableArgs, ExecutableCountArgs, ExecutableOutputTypesArgs,
               ExecutableOutputDimsArgs, LoadedArgs, LoadedGetExecutableArgs, ExecuteOptions, ExecuteArgs)

# The argument struct each slot takes; PJRT_Error_Destroy and PJRT_Error_Message return
# nothing, every other entry point a PJRT_Error* (NULL on success).
SIGNATURES = {
    "PJRT_Error_Destroy": (None, ErrorDestroyArgs),
    "PJRT_Error_Message": (None, ErrorMessageArgs),
    "PJRT_Error_GetCode": (c_void_p, ErrorGetCodeArgs),
    "PJRT_Plugin_Initialize": (c_void_p, PluginInitializeArgs),
    "PJRT_Event_Destroy": (c_void_p, EventArgs),
    "PJRT_Event_Await": (c_void_p, EventArgs),
    "PJRT_Client_Create": (c_void_p, ClientCreateArgs),
    "PJRT_Client_Destroy": (c_void_p, ClientArgs),
    "PJRT_Client_PlatformName": (c_void_p, ClientStringArgs),
    "PJRT_Client_PlatformVersion": (c_void_p, ClientStringArgs),
    "PJRT_Client_AddressableDevices": (c_void_p, ClientDevicesArgs),
    "PJRT_Client_Compile": (c_void_p, ClientCompileArgs),
    "PJRT_Client_BufferFromHostBuffer": (c_void_p, BufferFromHostArgs),
    "PJRT_Executable_Destroy": (c_void_p, ExecutableArgs),
    "PJRT_Executable_NumOutputs": (c_void_p, ExecutableCountArgs),
    "PJRT_LoadedExecutable_Destroy": (c_void_p, LoadedArgs),
    "PJRT_LoadedExecutable_GetExecutable": (c_void_p, LoadedGetExecutableArgs),
    "PJRT_LoadedExecutable_Execute": (c_void_p, ExecuteArgs),
    "PJRT_Buffer_Destroy": (c_void_p, BufferArgs),
    "PJRT_Buffer_ElementType": (c_void_p, BufferElementTypeArgs),
    "PJRT_Buffer_Dimensions": (c_void_p, BufferDimensionsArgs),
    "PJRT_Buffer_ToHostBuffer": (c_void_p, BufferToHostArgs),
    "PJRT_Executable_OutputElementTypes": (c_void_p, ExecutableOutputTypesArgs),
    "PJRT_Executable_OutputDimensions": (c_void_p, ExecutableOutputDimsArgs),
}


# The FFI extension (PJRT_FFI_Extension, version 2; src/runtime/pjrt/pjrt_abi_ffi.h): a
# node of the API table's extension_start chain, of this type.
EXTENSION_FFI = 5


class Extension(ctypes.Structure):
    """PJRT_Extension_Base: how every node of the chain starts."""
    _fields_ = [("struct_size", c_size_t), ("type", c_int), ("next", c_void_p)]


class FfiExtension(ctypes.Structure):
    """PJRT_FFI_Extension: the node, then type_id_register, user_data_add, register_handler."""
    _fields_ = [("base", Extension), ("type_id_register", c_void_p), ("user_data_add", c_void_p),
                ("register_handler", c_void_p)]


class FfiRegisterHandlerArgs(ctypes.Structure):
    """PJRT_FFI_Register_Handler_Args (no extension_start, as in PJRT's own layout)."""
    _fields_ = [("struct_size", c_size_t), ("target_name", c_char_p), ("target_name_size", c_size_t),
                ("handler", c_void_p), ("platform_name", c_char_p), ("platform_name_size", c_size_t),
                ("traits", ctypes.c_uint32)]


def new(cls, **fields):
    """An argument struct with struct_size set to its 0.110 size, the rest zero but `fields`."""
    s = cls(**fields)
    s.struct_size = filled_size(cls)
    return s
