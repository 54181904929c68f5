// The PJRT backend of tl::runtime::Session: a plugin's client and its first
// addressable device (an SPMD program: its first few). Programs go to the plugin as
// StableHLO text with the hand-encoded CompileOptionsProto of docs/PJRT.md; their
// signature, which the Session checks arguments against, and their grid are read
// from the same text by Tlaloc's parser.
#include <fmt/format.h>

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "core/tensor_impl.hpp"
#include "ops/custom_call.hpp"
#include "runtime/backend.hpp"
#include "runtime/pjrt/client.hpp"
#include "runtime/pjrt/compile_options.hpp"
#include "runtime/pjrt/element_types.hpp"
#include "stablehlo/stablehlo.hpp"

namespace tlaloc::runtime::detail {
namespace {

using pjrt::Client;

// The program's signature and grid, read from the text the plugin is given.
struct Signature {
  std::vector<BufferType> inputs, outputs;
  std::int64_t replicas = 1, partitions = 1;
  std::map<std::string, tlaloc::detail::FfiHandlers> handlers;  // of the kernels it calls
};
Signature signature_of(std::string_view text, std::string_view name) {
  const ir::Module m = stablehlo::parse(text, std::string(name));
  Signature s{{}, {}, m.num_replicas, m.num_partitions, tlaloc::detail::ffi_handlers(m)};
  for (const ir::TensorType& t : m.entry().param_types()) s.inputs.push_back({t.dtype, t.shape});
  for (const ir::TensorType& t : m.entry().result_types()) s.outputs.push_back({t.dtype, t.shape});
  return s;
}

tlp_buffer* upload(const Client& client, const Tensor& t, tlp_device* device) {
  const Shape& shape = t.shape();
  tlp_buffer_from_host_args args{};
  args.struct_size = TLP_BUFFER_FROM_HOST_ARGS_SIZE;
  args.client = client.handle();
  args.data = t.raw_data();
  args.type = pjrt::element_type_of(t.dtype());
  if (args.type == TLP_TYPE_INVALID)
    tlaloc::detail::fail<DTypeError>("PJRT upload", "has no PJRT element type for {} yet (docs/DTYPES.md)",
                                     t.dtype());
  args.dims = shape.data();
  args.num_dims = shape.size();
  args.host_buffer_semantics = TLP_HOST_ONLY_DURING_CALL;
  args.device = device;
  client.check(client.api().client_buffer_from_host(&args), "PJRT_Client_BufferFromHostBuffer");
  tlp_buffer_args destroy{TLP_BUFFER_ARGS_SIZE, nullptr, args.buffer};
  try {
    client.await(args.done_with_host_buffer, "PJRT_Client_BufferFromHostBuffer (its event)");
  } catch (...) {
    client.plugin().take_error(client.api().buffer_destroy(&destroy));
    throw;
  }
  return args.buffer;
}

std::size_t byte_size(const BufferType& t) {
  std::size_t n = itemsize(t.dtype);
  for (std::int64_t d : t.shape) n *= static_cast<std::size_t>(d);
  return n;
}

class PjrtBuffer final : public DeviceBuffer {
 public:
  PjrtBuffer(std::shared_ptr<const Client> client, tlp_buffer* buffer) : client_(std::move(client)), buffer_(buffer) {}
  ~PjrtBuffer() override {
    tlp_buffer_args args{TLP_BUFFER_ARGS_SIZE, nullptr, buffer_};
    client_->plugin().take_error(client_->api().buffer_destroy(&args));
  }
  PjrtBuffer(const PjrtBuffer&) = delete;
  PjrtBuffer& operator=(const PjrtBuffer&) = delete;

  // The type as the plugin reports it (results are typed by the plugin).
  void read_type() {
    tlp_buffer_element_type_args et{};
    et.struct_size = TLP_BUFFER_ELEMENT_TYPE_ARGS_SIZE;
    et.buffer = buffer_;
    client_->check(client_->api().buffer_element_type(&et), "PJRT_Buffer_ElementType");
    const std::optional<DType> dtype = pjrt::dtype_of(et.type);
    if (!dtype)
      throw RuntimeError(fmt::format("tl::runtime: the PJRT plugin returned a buffer of element type {}, which "
                                     "Tlaloc does not have",
                                     int(et.type)));
    tlp_buffer_dimensions_args dims{};
    dims.struct_size = TLP_BUFFER_DIMENSIONS_ARGS_SIZE;
    dims.buffer = buffer_;
    client_->check(client_->api().buffer_dimensions(&dims), "PJRT_Buffer_Dimensions");
    type_ = {*dtype, Shape(dims.dims, dims.dims + dims.num_dims)};
  }
  void set_type(BufferType t) { type_ = std::move(t); }
  tlp_buffer* handle() const { return buffer_; }

  BufferType type() const override { return type_; }

  Tensor to_host() const override {
    Tensor t = tlaloc::detail::empty(type_.shape, type_.dtype);
    tlp_buffer_to_host_args args{};
    args.struct_size = TLP_BUFFER_TO_HOST_ARGS_SIZE;
    args.src = buffer_;
    args.dst = t.impl().data();
    args.dst_size = byte_size(type_);
    client_->check(client_->api().buffer_to_host(&args), "PJRT_Buffer_ToHostBuffer");
    client_->await(args.event, "PJRT_Buffer_ToHostBuffer (its event)");
    return t;
  }

 private:
  std::shared_ptr<const Client> client_;
  tlp_buffer* buffer_;
  BufferType type_;
};

class PjrtExecutable final : public DeviceExecutable {
 public:
  PjrtExecutable(std::shared_ptr<const Client> client, tlp_loaded_executable* exe)
      : client_(std::move(client)), exe_(exe) {}
  ~PjrtExecutable() override {
    tlp_loaded_args args{TLP_LOADED_ARGS_SIZE, nullptr, exe_};
    client_->plugin().take_error(client_->api().loaded_destroy(&args));
  }
  PjrtExecutable(const PjrtExecutable&) = delete;
  PjrtExecutable& operator=(const PjrtExecutable&) = delete;

  void set_signature(std::vector<BufferType> inputs, std::vector<BufferType> outputs,
                     std::vector<tlp_device*> devices) {
    inputs_ = std::move(inputs);
    outputs_ = std::move(outputs);
    devices_ = std::move(devices);
  }
  std::size_t plugin_outputs() const;
  std::string serialize() const;

  const std::vector<BufferType>& input_types() const override { return inputs_; }
  const std::vector<BufferType>& output_types() const override { return outputs_; }
  std::vector<std::shared_ptr<DeviceBuffer>> run(std::span<const std::shared_ptr<DeviceBuffer>> args,
                                                 const std::vector<bool>& donated) const override;

 private:
  std::shared_ptr<const Client> client_;
  tlp_loaded_executable* exe_;
  std::vector<BufferType> inputs_, outputs_;
  std::vector<tlp_device*> devices_;  // one per process of the program's grid
};

std::size_t PjrtExecutable::plugin_outputs() const {
  tlp_loaded_get_executable_args get{};
  get.struct_size = TLP_LOADED_GET_EXECUTABLE_ARGS_SIZE;
  get.loaded = exe_;
  client_->check(client_->api().loaded_get_executable(&get), "PJRT_LoadedExecutable_GetExecutable");
  tlp_executable_count_args count{};
  count.struct_size = TLP_EXECUTABLE_COUNT_ARGS_SIZE;
  count.executable = get.executable;
  tlp_error* error = client_->api().executable_num_outputs(&count);
  tlp_executable_args destroy{TLP_EXECUTABLE_ARGS_SIZE, nullptr, get.executable};
  client_->plugin().take_error(client_->api().executable_destroy(&destroy));
  client_->check(error, "PJRT_Executable_NumOutputs");
  return count.count;
}

// The bytes of PJRT_Executable_Serialize, copied out before the plugin frees them.
std::string PjrtExecutable::serialize() const {
  tlp_loaded_get_executable_args get{};
  get.struct_size = TLP_LOADED_GET_EXECUTABLE_ARGS_SIZE;
  get.loaded = exe_;
  client_->check(client_->api().loaded_get_executable(&get), "PJRT_LoadedExecutable_GetExecutable");
  tlp_executable_serialize_args args{};
  args.struct_size = TLP_EXECUTABLE_SERIALIZE_ARGS_SIZE;
  args.executable = get.executable;
  tlp_error* error = client_->api().executable_serialize(&args);
  std::string bytes;
  if (error == nullptr) {
    bytes.assign(args.bytes, args.bytes_size);
    if (args.deleter != nullptr) args.deleter(args.serialized);
  }
  tlp_executable_args destroy{TLP_EXECUTABLE_ARGS_SIZE, nullptr, get.executable};
  client_->plugin().take_error(client_->api().executable_destroy(&destroy));
  client_->check(error, "PJRT_Executable_Serialize");
  return bytes;
}

// The plugin learns which arguments it may consume from the complement: the
// non-donatable indices of the execute options. An SPMD program runs on its devices,
// each given the whole arguments (copies through the host for all but the first; a
// copy is never donated), and its results are the first device's.
std::vector<std::shared_ptr<DeviceBuffer>> PjrtExecutable::run(std::span<const std::shared_ptr<DeviceBuffer>> args,
                                                               const std::vector<bool>& donated) const {
  const std::size_t devices = devices_.size();
  std::vector<std::vector<tlp_buffer*>> in(devices);
  std::vector<std::int64_t> keep;
  for (std::size_t i = 0; i < args.size(); ++i) {
    in[0].push_back(static_cast<const PjrtBuffer&>(*args[i]).handle());
    if (!donated[i] || devices > 1) keep.push_back(static_cast<std::int64_t>(i));
  }
  std::vector<std::unique_ptr<PjrtBuffer>> copies;
  for (const std::shared_ptr<DeviceBuffer>& a : args) {
    if (devices == 1) break;
    const Tensor host = a->to_host();  // once for all the other devices
    for (std::size_t k = 1; k < devices; ++k) {
      copies.push_back(std::make_unique<PjrtBuffer>(client_, upload(*client_, host, devices_[k])));
      in[k].push_back(copies.back()->handle());
    }
  }
  tlp_execute_options options{};
  options.struct_size = TLP_EXECUTE_OPTIONS_SIZE;
  options.non_donatable_input_indices = keep.data();
  options.num_non_donatable_input_indices = keep.size();
  std::vector<std::vector<tlp_buffer*>> out(devices, std::vector<tlp_buffer*>(outputs_.size(), nullptr));
  std::vector<tlp_buffer* const*> argument_lists;
  std::vector<tlp_buffer**> output_lists;
  for (std::size_t k = 0; k < devices; ++k) {
    argument_lists.push_back(in[k].data());
    output_lists.push_back(out[k].data());
  }
  std::vector<tlp_event*> done(devices, nullptr);
  tlp_execute_args execute{};
  execute.struct_size = TLP_EXECUTE_ARGS_SIZE;
  execute.executable = exe_;
  execute.options = &options;
  execute.argument_lists = argument_lists.data();
  execute.num_devices = devices;
  execute.num_args = args.size();
  execute.output_lists = output_lists.data();
  execute.device_complete_events = done.data();
  client_->check(client_->api().loaded_execute(&execute), "PJRT_LoadedExecutable_Execute");
  std::vector<std::shared_ptr<DeviceBuffer>> results;
  std::vector<std::unique_ptr<PjrtBuffer>> others;  // the other devices' results: freed here
  for (std::size_t k = 0; k < devices; ++k)
    for (tlp_buffer* b : out[k]) {
      if (k == 0)
        results.push_back(std::make_shared<PjrtBuffer>(client_, b));  // owned from here on
      else
        others.push_back(std::make_unique<PjrtBuffer>(client_, b));
    }
  std::exception_ptr failed;  // every event is awaited and freed; the first failure is reported
  for (tlp_event* d : done) try {
      client_->await(d, "PJRT_LoadedExecutable_Execute (its completion event)");
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  if (failed) std::rethrow_exception(failed);
  for (auto& r : results) static_cast<PjrtBuffer&>(*r).read_type();
  return results;
}

class PjrtBackend final : public DeviceBackend {
 public:
  PjrtBackend(const std::filesystem::path& path, const std::vector<pjrt::ClientOption>& options)
      : client_(std::make_shared<const Client>(pjrt::Plugin::load(path), options)) {}

  std::string platform_name() const override { return client_->platform_name(); }
  std::string platform_version() const override { return client_->platform_version(); }

  bool serializes() const override { return true; }
  // The options of a program of one process; the cache key holds the text, which
  // gives any other program's.
  std::string compile_options() const override { return pjrt::compile_options(1, 1); }
  std::string serialize(const DeviceExecutable& e) const override {
    return static_cast<const PjrtExecutable&>(e).serialize();
  }

  std::unique_ptr<DeviceExecutable> deserialize(std::string_view bytes, std::string_view text,
                                                std::string_view name) override {
    const std::optional<Signature> read = read_signature(text, name);
    const std::vector<tlp_device*> devices = read ? devices_for(*read, name) : devices_for({}, name);
    const std::string options = read ? options_for(*read, devices) : compile_options();
    if (read) register_handlers(read->handlers);
    tlp_deserialize_and_load_args args{};
    args.struct_size = TLP_DESERIALIZE_AND_LOAD_ARGS_SIZE;
    args.client = client_->handle();
    args.bytes = bytes.data();
    args.bytes_size = bytes.size();
    args.compile_options = options.data();
    args.compile_options_size = options.size();
    client_->check(client_->api().executable_deserialize_and_load(&args), "PJRT_Executable_DeserializeAndLoad");
    auto exe = std::make_unique<PjrtExecutable>(client_, args.loaded);
    set_signature(*exe, read ? *read : signature_of(text, name), devices);
    return exe;
  }

  std::unique_ptr<DeviceExecutable> compile(std::string_view text, std::string_view name) override {
    const std::optional<Signature> read = read_signature(text, name);
    const std::vector<tlp_device*> devices = read ? devices_for(*read, name) : devices_for({}, name);
    const std::string options = read ? options_for(*read, devices) : compile_options();
    if (read) register_handlers(read->handlers);
    std::string code(text);
    tlp_program program{};
    program.struct_size = TLP_PROGRAM_SIZE;
    program.code = code.data();
    program.code_size = code.size();
    program.format = "mlir";
    program.format_size = 4;
    tlp_client_compile_args args{};
    args.struct_size = TLP_CLIENT_COMPILE_ARGS_SIZE;
    args.client = client_->handle();
    args.program = &program;
    args.compile_options = options.data();
    args.compile_options_size = options.size();
    client_->check(client_->api().client_compile(&args), "PJRT_Client_Compile");
    auto exe = std::make_unique<PjrtExecutable>(client_, args.executable);
    set_signature(*exe, read ? *read : signature_of(text, name), devices);
    return exe;
  }

  std::shared_ptr<DeviceBuffer> to_device(const Tensor& t) override {
    auto buffer = std::make_shared<PjrtBuffer>(client_, upload(*client_, t, client_->device()));
    buffer->set_type({t.dtype(), t.shape()});
    return buffer;
  }

 private:
  // A text Tlaloc's parser refuses goes to the plugin all the same, as a program of
  // one process, so that the plugin's own error reaches the caller; if the plugin
  // takes it, the parser's error follows.
  static std::optional<Signature> read_signature(std::string_view text, std::string_view name) {
    try {
      return signature_of(text, name);
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  // The client's first devices, one per process of the program's grid.
  std::vector<tlp_device*> devices_for(const Signature& s, std::string_view name) const {
    const std::vector<tlp_device*>& all = client_->devices();
    const auto need = std::size_t(s.replicas * s.partitions);
    if (need > all.size())
      throw RuntimeError(
          fmt::format("tl::runtime: {} runs on {} x {} devices (mhlo.num_replicas x "
                      "mhlo.num_partitions), the PJRT plugin '{}' gives this process {} (Tlaloc's "
                      "CPU plugin: the client option tlaloc_cpu_devices)",
                      name, s.replicas, s.partitions, client_->plugin().path().string(), all.size()));
    return {all.begin(), all.begin() + std::ptrdiff_t(need)};
  }
  std::string options_for(const Signature& s, const std::vector<tlp_device*>& devices) const {
    std::vector<std::int64_t> ids;
    if (devices.size() > 1)
      for (tlp_device* d : devices) ids.push_back(client_->id_of(d));
    return pjrt::compile_options(s.replicas, s.partitions, ids);
  }
  // The program's parameter and result types, from the text the plugin accepted.
  void set_signature(PjrtExecutable& exe, Signature s, std::vector<tlp_device*> devices) const {
    if (const std::size_t n = exe.plugin_outputs(); n != s.outputs.size())
      throw RuntimeError(
          fmt::format("tl::runtime: the PJRT plugin '{}' compiled a program of {} results into "
                      "one of {}",
                      client_->plugin().path().string(), s.outputs.size(), n));
    exe.set_signature(std::move(s.inputs), std::move(s.outputs), std::move(devices));
  }

  // Registers the handlers with the plugin's FFI extension (once each), as XLA's
  // plugins expect custom_call targets to be registered before they compile: the
  // host handlers on a CPU plugin, the CUDA ones on a CUDA plugin.
  void register_handlers(const std::map<std::string, tlaloc::detail::FfiHandlers>& handlers) {
    const std::lock_guard lock(mu_);
    for (const auto& [target, h] : handlers) {
      if (registered_.count(target) != 0) continue;
      const std::string& p = client_->platform_name();
      const bool cuda = p.find("cuda") != std::string::npos || p.find("gpu") != std::string::npos;
      if (!cuda && p.find("cpu") == std::string::npos && p != "host")
        refuse_handler(target, fmt::format("runs on platform '{}', for which Tlaloc has no kernels", p));
      tlaloc_ffi_handler* handler = cuda ? h.cuda : h.host;
      if (handler == nullptr)
        refuse_handler(target, cuda
                                   ? "runs on CUDA, and the kernel has no CUDA implementation (.cuda)"
                                   : "runs on the host, and the kernel has no XLA FFI handler for it (.ffi)");
      const std::string_view platform = cuda ? "CUDA" : "cpu";
      tlp_ffi_register_handler_args args{};
      args.struct_size = TLP_FFI_REGISTER_HANDLER_ARGS_SIZE;
      args.target_name = target.data();
      args.target_name_size = target.size();
      args.handler = reinterpret_cast<void*>(handler);
      args.platform_name = platform.data();
      args.platform_name_size = platform.size();
      client_->check(ffi_extension(target).register_handler(&args), "PJRT_FFI_Register_Handler");
      registered_.insert(target);
    }
  }
  // The plugin's FFI extension, of version 2 or later.
  const tlp_ffi_extension& ffi_extension(const std::string& target) const {
    for (const tlp_extension* e = client_->api().extension_start; e != nullptr; e = e->next)
      if (e->type == TLP_EXTENSION_FFI) {
        const auto& ffi = *reinterpret_cast<const tlp_ffi_extension*>(e);
        if (e->struct_size < TLP_FFI_EXTENSION_SIZE || ffi.register_handler == nullptr)
          refuse_handler(target,
                         "has an FFI extension without register_handler (PJRT FFI extension version 1)");
        return ffi;
      }
    refuse_handler(target, "has no FFI extension to register it with");
  }
  [[noreturn]] void refuse_handler(const std::string& target, std::string_view why) const {
    throw RuntimeError(fmt::format("tl::runtime: the program calls kernel '{}', and the PJRT plugin '{}' {}",
                                   target, client_->plugin().path().string(), why));
  }

  std::shared_ptr<const Client> client_;
  std::mutex mu_;
  std::set<std::string> registered_;
};

}  // namespace

std::unique_ptr<DeviceBackend> make_pjrt_backend(const std::filesystem::path& plugin_path,
                                                 const std::vector<pjrt::ClientOption>& options) {
  return std::make_unique<PjrtBackend>(plugin_path, options);
}

}  // namespace tlaloc::runtime::detail
