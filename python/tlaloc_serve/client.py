"""A PJRT client of a loaded plugin and its first addressable device; executables and
buffers that belong to it. The calls, their order and the struct fields set follow
Tlaloc's C++ client (src/runtime/pjrt/client.cpp, pjrt_backend.cpp)."""

import ctypes
from ctypes import POINTER, c_void_p

from . import pjrt_abi as abi
from .dtypes import BY_PJRT
from .errors import InputError, PluginError
from .pjrt import COMPILE_OPTIONS, int64s


def named_values(options):
    """PJRT_NamedValues of {name: str, int, float or bool}; the array keeps the bytes alive."""
    values = (abi.NamedValue * len(options))()
    keep = []
    for v, (name, value) in zip(values, options.items()):
        encoded = name.encode("utf-8")
        keep.append(encoded)
        v.struct_size = abi.filled_size(abi.NamedValue)
        v.name, v.name_size, v.value_size = encoded, len(encoded), 1
        if isinstance(value, bool):
            v.kind, v.bool_value = abi.VALUE_BOOL, value
        elif isinstance(value, int):
            v.kind, v.int64_value = abi.VALUE_INT64, value
        elif isinstance(value, float):
            v.kind, v.float_value = abi.VALUE_FLOAT, value
        elif isinstance(value, str):
            text = value.encode("utf-8")
            keep.append(text)
            v.kind, v.string_value, v.value_size = abi.VALUE_STRING, text, len(text)
        else:
            raise InputError(f"tlaloc_serve: client option '{name}' is a {type(value).__name__}; "
                             f"options are str, int, float or bool")
    return values, keep


class Client:
    """`options` go to PJRT_Client_Create as named values (the CUDA plugin reads
    memory_fraction, preallocate, allocator, ...: docs/PJRT.md)."""

    def __init__(self, plugin, options=None):
        self.plugin = plugin
        values, _alive = named_values(options or {})  # the names and strings live through the call
        self.handle = plugin.call("PJRT_Client_Create", create_options=values, num_options=len(values)).client
        try:
            devices = plugin.call("PJRT_Client_AddressableDevices", client=self.handle)
            if devices.num_devices == 0:
                raise PluginError(f"tlaloc_serve: the PJRT plugin '{plugin.path}' has no device this process can use")
            self.device = devices.devices[0]
            self.platform_name = self._string("PJRT_Client_PlatformName")
            self.platform_version = self._string("PJRT_Client_PlatformVersion")
        except BaseException:
            self.close()
            raise

    def _string(self, name):
        args = self.plugin.call(name, client=self.handle)
        return ctypes.string_at(args.text, args.text_size).decode("utf-8", "replace")

    def close(self):
        if self.handle:
            self.plugin.quietly("PJRT_Client_Destroy", client=self.handle)
            self.handle = None

    def compile(self, text):
        """A loaded executable of StableHLO `text` (bytes)."""
        code = ctypes.create_string_buffer(text, len(text))
        program = abi.new(abi.Program, code=ctypes.addressof(code), code_size=len(text), format=b"mlir",
                          format_size=4)
        args = self.plugin.call("PJRT_Client_Compile", client=self.handle, program=ctypes.pointer(program),
                                compile_options=COMPILE_OPTIONS, compile_options_size=len(COMPILE_OPTIONS))
        return Executable(self, args.executable)

    def to_device(self, data, dtype, shape):
        """A device buffer of `data` (a C-contiguous buffer of the right size), copied during the call."""
        view = memoryview(data).cast("B")
        # from_buffer needs a writable buffer; a read-only one is copied once here.
        host = (ctypes.c_char * len(view)).from_buffer(view) if not view.readonly else \
            ctypes.create_string_buffer(view.tobytes(), len(view))
        dims = int64s(shape)
        args = self.plugin.call("PJRT_Client_BufferFromHostBuffer", client=self.handle,
                                data=ctypes.addressof(host), type=dtype.pjrt, dims=dims, num_dims=len(shape),
                                host_buffer_semantics=abi.HOST_ONLY_DURING_CALL, device=self.device)
        buffer = Buffer(self, args.buffer)
        self.plugin.await_event(args.done_with_host_buffer, "PJRT_Client_BufferFromHostBuffer (its event)")
        return buffer


class Buffer:
    """A device buffer the caller owns; freed by close() or when collected."""

    def __init__(self, client, handle):
        self.client, self.handle = client, handle

    def close(self):
        if self.handle and self.client.handle:
            self.client.plugin.quietly("PJRT_Buffer_Destroy", buffer=self.handle)
        self.handle = None

    __del__ = close

    def type(self):
        """(DType, shape) as the plugin reports them."""
        plugin = self.client.plugin
        et = plugin.call("PJRT_Buffer_ElementType", buffer=self.handle).type
        if et not in BY_PJRT:
            raise PluginError(f"tlaloc_serve: the PJRT plugin returned a buffer of element type {et}, "
                              f"which Tlaloc does not have")
        dims = plugin.call("PJRT_Buffer_Dimensions", buffer=self.handle)
        return BY_PJRT[et], tuple(dims.dims[i] for i in range(dims.num_dims))

    def to_host(self, nbytes):
        out = ctypes.create_string_buffer(nbytes)
        args = self.client.plugin.call("PJRT_Buffer_ToHostBuffer", src=self.handle, dst=ctypes.addressof(out),
                                       dst_size=nbytes)
        self.client.plugin.await_event(args.event, "PJRT_Buffer_ToHostBuffer (its event)")
        return out.raw


class Executable:
    def __init__(self, client, handle):
        self.client, self.handle = client, handle

    def close(self):
        if self.handle and self.client.handle:
            self.client.plugin.quietly("PJRT_LoadedExecutable_Destroy", executable=self.handle)
        self.handle = None

    __del__ = close

    def output_types(self):
        """[(DType or None, shape)] of the outputs as the plugin compiled them; None when
        the plugin lacks the queries (slots 90 and 91 came after the original table)."""
        plugin = self.client.plugin
        if plugin.fn("PJRT_Executable_OutputElementTypes") is None or \
                plugin.fn("PJRT_Executable_OutputDimensions") is None:
            return None
        exe = plugin.call("PJRT_LoadedExecutable_GetExecutable", loaded=self.handle).executable
        try:
            types = plugin.call("PJRT_Executable_OutputElementTypes", executable=exe)
            dims = plugin.call("PJRT_Executable_OutputDimensions", executable=exe)
            out, at = [], 0
            for i in range(dims.num_outputs):
                rank = dims.dim_sizes[i]
                et = types.output_types[i] if i < types.num_output_types else 0
                out.append((BY_PJRT.get(et), tuple(dims.dims[at + k] for k in range(rank))))
                at += rank
            return out
        finally:
            plugin.quietly("PJRT_Executable_Destroy", executable=exe)

    def run(self, args, donated, num_outputs):
        """Runs on the client's device; `donated[i]` says whether the plugin may consume
        args[i] (it learns the complement, the non-donatable indices). Returns the outputs."""
        plugin = self.client.plugin
        keep = [i for i in range(len(args)) if not donated[i]]
        keep_array = int64s(keep)
        options = abi.new(abi.ExecuteOptions, non_donatable_input_indices=keep_array,
                          num_non_donatable_input_indices=len(keep))
        inputs = (c_void_p * len(args))(*(b.handle for b in args))
        outputs = (c_void_p * num_outputs)()
        argument_lists = (POINTER(c_void_p) * 1)(ctypes.cast(inputs, POINTER(c_void_p)))
        output_lists = (POINTER(c_void_p) * 1)(ctypes.cast(outputs, POINTER(c_void_p)))
        done = (c_void_p * 1)()
        plugin.call("PJRT_LoadedExecutable_Execute", executable=self.handle, options=ctypes.pointer(options),
                    argument_lists=argument_lists, num_devices=1, num_args=len(args), output_lists=output_lists,
                    device_complete_events=done)
        results = [Buffer(self.client, h) for h in outputs]  # owned from here on
        plugin.await_event(done[0], "PJRT_LoadedExecutable_Execute (its completion event)")
        return results
