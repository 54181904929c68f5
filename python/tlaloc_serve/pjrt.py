"""A PJRT plugin through ctypes: loading it with the checks of Tlaloc's C++ loader
(docs/PJRT.md, "Loading a plugin"), and a client on its first addressable device that
compiles StableHLO text, moves arrays and runs programs. Every error the plugin returns
becomes a PluginError with its message and code; events are awaited and freed."""

import ctypes
import os
from ctypes import POINTER, byref, c_int64, c_void_p

from . import pjrt_abi as abi
from .errors import PluginError, code_name

WHO = "tlaloc_serve.load_plugin"
ENV = "TLALOC_PJRT_PLUGIN_PATH"
OWN_CPU = "tlaloc_cpu"  # Tlaloc's CPU plugin, where `cmake --install` put it beside this package

# CompileOptionsProto { executable_build_options { device_ordinal: -1, num_replicas: 1,
# num_partitions: 1 } }: the bytes docs/PJRT.md derives.
COMPILE_OPTIONS = bytes.fromhex("1A 0F 08 FF FF FF FF FF FF FF FF FF 01 20 01 28 01")

_initialized = set()  # dlopen handles whose PJRT_Plugin_Initialize succeeded


def _fail(path, what):
    raise PluginError(f"{WHO}: '{path}': {what}")


def _own_plugin():
    """The installed CPU plugin: _installed.py, written by `cmake --install`, holds its
    path relative to this package, so a moved prefix keeps working."""
    try:
        from . import _installed
    except ImportError:
        _fail(OWN_CPU, "this tlaloc_serve was not installed by `cmake --install`, so Tlaloc's CPU plugin "
              f"is not beside it; pass the plugin's path or set {ENV}")
    path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), _installed.PLUGIN))
    if not os.path.isfile(path):
        _fail(OWN_CPU, f"Tlaloc's CPU plugin is not installed where this package expects it ('{path}'); "
              f"pass the plugin's path or set {ENV}")
    return path


class Plugin:
    """A loaded plugin library and its API table. Libraries are never unloaded:
    plugins start threads and register handlers that outlive a client."""

    def __init__(self, path):
        path = _own_plugin() if path == OWN_CPU else path
        self.path = path
        self._lib = self._open(path)
        self._api = self._table()
        self._fns = {}
        if self._lib._handle not in _initialized:
            init = self.fn("PJRT_Plugin_Initialize")
            if init is not None:
                args = abi.new(abi.PluginInitializeArgs)
                error = init(byref(args))
                if error:
                    code, message = self.take_error(error)
                    _fail(path, f"PJRT_Plugin_Initialize failed: {code_name(code)}: {message}")
            _initialized.add(self._lib._handle)

    @staticmethod
    def _open(path):
        if not path:
            _fail(path, f"no plugin path given (set {ENV} or pass one)")
        if not os.path.exists(path):
            _fail(path, "no such file (a PJRT plugin is a shared library exporting GetPjrtApi)")
        if os.path.isdir(path):
            _fail(path, "is a directory, not a PJRT plugin shared library")
        try:
            return ctypes.CDLL(os.path.abspath(path), mode=os.RTLD_NOW | os.RTLD_LOCAL)
        except OSError as e:
            _fail(path, f"cannot be loaded as a shared library: {e}")

    def _table(self):
        """The table's address, after checks that read data only: nothing in it runs before."""
        try:
            get_api = self._lib.GetPjrtApi
        except AttributeError:
            _fail(self.path, "is a shared library but not a PJRT plugin: it does not export GetPjrtApi")
        get_api.restype, get_api.argtypes = c_void_p, []
        api = get_api()
        if not api:
            _fail(self.path, "GetPjrtApi returned a null API table")
        head = abi.ApiHead.from_address(api)
        if head.struct_size < abi.VERSION_END:
            _fail(self.path, f"the API table's struct_size is {head.struct_size} bytes, too small to hold its "
                             f"version ({abi.VERSION_END} bytes): not a PJRT plugin, or a broken one")
        major, minor = head.version.major_version, head.version.minor_version
        mine = "%d.%d" % abi.WRITTEN_AGAINST
        if major != abi.API_MAJOR:
            _fail(self.path, f"PJRT API version {major}.{minor} is incompatible: tlaloc_serve speaks major version "
                             f"{abi.API_MAJOR} (minor {abi.OLDEST_MINOR} or newer; written against {mine})")
        if minor < abi.OLDEST_MINOR:
            _fail(self.path, f"PJRT API version {major}.{minor} is too old: tlaloc_serve needs "
                             f"{abi.API_MAJOR}.{abi.OLDEST_MINOR} or newer")
        required = abi.SLOT_BASE + 8 * abi.REQUIRED_SLOTS
        if head.struct_size < required:
            _fail(self.path, f"the API table's struct_size is {head.struct_size} bytes, too small for PJRT "
                             f"{major}.{minor}: tlaloc_serve needs at least the {required} bytes of the "
                             f"original 90 entry points")
        self.version = (major, minor)
        self._size = head.struct_size
        return api

    def fn(self, name):
        """The entry point `name` as a ctypes function, or None when the plugin's table
        ends before its slot or leaves it NULL."""
        if name not in self._fns:
            offset = abi.slot_offset(name)
            address = c_void_p.from_address(self._api + offset).value if offset + 8 <= self._size else None
            restype, args = abi.SIGNATURES[name]
            self._fns[name] = ctypes.CFUNCTYPE(restype, POINTER(args))(address) if address else None
        return self._fns[name]

    def call(self, name, **fields):
        """Calls `name` with its argument struct made of `fields`; returns the struct
        (its out-fields filled) or raises PluginError with the plugin's message and code."""
        args = abi.new(abi.SIGNATURES[name][1], **fields)
        fn = self.fn(name)
        if fn is None:
            raise PluginError(f"tlaloc_serve: the PJRT plugin '{self.path}' does not provide {name}")
        self.check(fn(byref(args)), name)
        return args

    def check(self, error, what):
        if error:
            code, message = self.take_error(error)
            raise PluginError(f"tlaloc_serve: {what} failed in the PJRT plugin '{self.path}' "
                              f"({code_name(code)}): {message}", code)

    def take_error(self, error):
        """(code, message) of an error the plugin returned; the error is freed."""
        code, message = 2, "(the plugin gave no message)"  # 2: UNKNOWN
        get_code = self.fn("PJRT_Error_GetCode")
        if get_code is not None:
            args = abi.new(abi.ErrorGetCodeArgs, error=error)
            failed = get_code(byref(args))
            if failed:
                self.take_error(failed)  # the code stays unknown; the message still helps
            else:
                code = args.code
        text = self.fn("PJRT_Error_Message")
        if text is not None:
            args = abi.new(abi.ErrorMessageArgs, error=error)
            text(byref(args))
            if args.message:
                message = ctypes.string_at(args.message, args.message_size).decode("utf-8", "replace")
        destroy = self.fn("PJRT_Error_Destroy")
        if destroy is not None:
            destroy(byref(abi.new(abi.ErrorDestroyArgs, error=error)))
        return code, message

    def register_ffi_handler(self, target, handler, platform="cpu"):
        """Registers an XLA FFI handler (its address, an int or a ctypes function) as the
        custom_call target `target`, through the plugin's FFI extension."""
        address = ctypes.cast(handler, c_void_p).value if not isinstance(handler, int) else handler
        if not address:
            raise PluginError(f"tlaloc_serve: the XLA FFI handler given for '{target}' is null")
        node = abi.ApiHead.from_address(self._api).extension_start
        while node:
            base = abi.Extension.from_address(node)
            if base.type == abi.EXTENSION_FFI:
                break
            node = base.next
        if not node:
            raise PluginError(f"tlaloc_serve: the PJRT plugin '{self.path}' has no FFI extension to register "
                              f"kernel '{target}' with")
        ffi = abi.FfiExtension.from_address(node)
        if ffi.base.struct_size < abi.filled_size(abi.FfiExtension) or not ffi.register_handler:
            raise PluginError(f"tlaloc_serve: the PJRT plugin '{self.path}' has an FFI extension without "
                              f"register_handler (version 1): kernel '{target}' cannot be registered")
        name, where = target.encode("utf-8"), platform.encode("utf-8")
        args = abi.FfiRegisterHandlerArgs(target_name=name, target_name_size=len(name), handler=address,
                                          platform_name=where, platform_name_size=len(where))
        args.struct_size = abi.filled_size(abi.FfiRegisterHandlerArgs)
        register = ctypes.CFUNCTYPE(c_void_p, POINTER(abi.FfiRegisterHandlerArgs))(ffi.register_handler)
        self.check(register(byref(args)), "PJRT_FFI_Register_Handler")

    def quietly(self, name, **fields):
        """A call whose failure has no one to be reported to (destroying things)."""
        fn = self.fn(name)
        if fn is not None:
            error = fn(byref(abi.new(abi.SIGNATURES[name][1], **fields)))
            if error:
                self.take_error(error)

    def await_event(self, event, what):
        """Waits for `event` (None: nothing to wait for), frees it, reports its error."""
        if not event:
            return
        outcome = self.fn("PJRT_Event_Await")(byref(abi.new(abi.EventArgs, event=event)))
        self.quietly("PJRT_Event_Destroy", event=event)
        self.check(outcome, what)


def int64s(values):
    return (c_int64 * len(values))(*values)
