// Compilation (StableHLO text, parsed and verified), executables, their
// serialization, and execution on the interpreter.
#include <functional>
#include <unordered_set>

#include "objects.hpp"
#include "stablehlo/stablehlo.hpp"

namespace tlaloc::pjrt_cpu {
namespace {

// Serialized form: this line, then the program text. It loads only into a plugin
// that writes the same line.
constexpr std::string_view kSerializedHeader = "tlaloc_cpu executable 1\n";
constexpr std::string_view kMlirBytecodeMagic = "ML\xEFR";

// The program runs on the client's first devices, one per process of its grid.
tlp_loaded_executable* load(tlp_client* client, std::string text) {
  auto loaded = std::make_unique<tlp_loaded_executable>();
  loaded->client = client;
  loaded->compiled = compile_text(std::move(text));
  const int need = loaded->compiled->devices;
  if (need > int(client->devices.size()))
    throw Failure(TLP_INVALID_ARGUMENT,
                  fmt::format("the program runs on {} devices (mhlo.num_replicas x mhlo.num_partitions), the "
                              "client has {}: create it with the option tlaloc_cpu_devices = {}",
                              need, client->devices.size(), need));
  return loaded.release();
}

tlp_error* client_compile(tlp_client_compile_args* args) {
  return guarded("PJRT_Client_Compile", [&] {
    need(args, TLP_CLIENT_COMPILE_ARGS_SIZE, "PJRT_Client_Compile_Args");
    tlp_client* client = non_null(args->client, "the client");
    const tlp_program& p = *non_null(args->program, "the program");
    need(&p, TLP_PROGRAM_SIZE, "PJRT_Program");
    const std::string_view format(p.format, p.format_size), code(p.code, p.code_size);
    if (format != "mlir")
      throw Failure(TLP_INVALID_ARGUMENT,
                    fmt::format("program format '{}' is not accepted: Tlaloc's CPU plugin compiles \"mlir\" "
                                "(StableHLO text)",
                                format));
    if (code.starts_with(kMlirBytecodeMagic))
      throw Failure(TLP_INVALID_ARGUMENT, "MLIR bytecode is not accepted: send the StableHLO module as text");
    // The program's grid is its module's (mhlo.num_partitions, mhlo.num_replicas), on
    // the client's first devices; the compile options change nothing.
    args->executable = load(client, std::string(code));
  });
}

tlp_error* deserialize_and_load(tlp_deserialize_and_load_args* args) {
  return guarded("PJRT_Executable_DeserializeAndLoad", [&] {
    need(args, TLP_DESERIALIZE_AND_LOAD_ARGS_SIZE, "PJRT_Executable_DeserializeAndLoad_Args");
    tlp_client* client = non_null(args->client, "the client");
    const std::string_view bytes(non_null(args->bytes, "bytes"), args->bytes_size);
    if (!bytes.starts_with(kSerializedHeader))
      throw Failure(TLP_INVALID_ARGUMENT, "the bytes are not an executable serialized by Tlaloc's CPU plugin "
                                          "(of this version)");
    args->loaded = load(client, std::string(bytes.substr(kSerializedHeader.size())));
  });
}

const Compiled& compiled(const tlp_executable* e) { return *non_null(e, "the executable")->compiled; }

tlp_error* executable_destroy(tlp_executable_args* args) {
  return guarded("PJRT_Executable_Destroy", [&] {
    need(args, TLP_EXECUTABLE_ARGS_SIZE, "PJRT_Executable_Destroy_Args");
    delete args->executable;
  });
}

tlp_error* executable_name(tlp_executable_name_args* args) {
  return guarded("PJRT_Executable_Name", [&] {
    need(args, TLP_EXECUTABLE_NAME_ARGS_SIZE, "PJRT_Executable_Name_Args");
    const Compiled& c = compiled(args->executable);
    args->name = c.name.data();
    args->name_size = c.name.size();
  });
}

tlp_error* executable_num_replicas(tlp_executable_count_args* args) {
  return guarded("PJRT_Executable_NumReplicas", [&] {
    need(args, TLP_EXECUTABLE_COUNT_ARGS_SIZE, "PJRT_Executable_NumReplicas_Args");
    args->count = std::size_t(compiled(args->executable).program.module().num_replicas);
  });
}

tlp_error* executable_num_partitions(tlp_executable_count_args* args) {
  return guarded("PJRT_Executable_NumPartitions", [&] {
    need(args, TLP_EXECUTABLE_COUNT_ARGS_SIZE, "PJRT_Executable_NumPartitions_Args");
    args->count = std::size_t(compiled(args->executable).program.module().num_partitions);
  });
}

tlp_error* executable_num_outputs(tlp_executable_count_args* args) {
  return guarded("PJRT_Executable_NumOutputs", [&] {
    need(args, TLP_EXECUTABLE_COUNT_ARGS_SIZE, "PJRT_Executable_NumOutputs_Args");
    args->count = compiled(args->executable).output_types.size();
  });
}

tlp_error* executable_output_types(tlp_executable_output_types_args* args) {
  return guarded("PJRT_Executable_OutputElementTypes", [&] {
    need(args, TLP_EXECUTABLE_OUTPUT_TYPES_ARGS_SIZE, "PJRT_Executable_OutputElementTypes_Args");
    const Compiled& c = compiled(args->executable);
    args->output_types = const_cast<tlp_element_type*>(c.output_types.data());  // the ABI's field is not const
    args->num_output_types = c.output_types.size();
  });
}

tlp_error* executable_output_dims(tlp_executable_output_dims_args* args) {
  return guarded("PJRT_Executable_OutputDimensions", [&] {
    need(args, TLP_EXECUTABLE_OUTPUT_DIMS_ARGS_SIZE, "PJRT_Executable_OutputDimensions_Args");
    const Compiled& c = compiled(args->executable);
    args->num_outputs = c.output_ranks.size();
    args->dims = c.output_dims.data();
    args->dim_sizes = c.output_ranks.data();
  });
}

tlp_error* executable_fingerprint(tlp_executable_fingerprint_args* args) {
  return guarded("PJRT_Executable_Fingerprint", [&] {
    need(args, TLP_EXECUTABLE_FINGERPRINT_ARGS_SIZE, "PJRT_Executable_Fingerprint_Args");
    const Compiled& c = compiled(args->executable);
    args->fingerprint = c.fingerprint.data();
    args->fingerprint_size = c.fingerprint.size();
  });
}

void delete_serialized(tlp_serialized_executable* s) { delete s; }

tlp_error* executable_serialize(tlp_executable_serialize_args* args) {
  return guarded("PJRT_Executable_Serialize", [&] {
    need(args, TLP_EXECUTABLE_SERIALIZE_ARGS_SIZE, "PJRT_Executable_Serialize_Args");
    auto s = std::make_unique<tlp_serialized_executable>();
    s->bytes = std::string(kSerializedHeader) + compiled(args->executable).text;
    args->bytes = s->bytes.data();
    args->bytes_size = s->bytes.size();
    args->deleter = &delete_serialized;
    args->serialized = s.release();
  });
}

tlp_error* loaded_destroy(tlp_loaded_args* args) {
  return guarded("PJRT_LoadedExecutable_Destroy", [&] {
    need(args, TLP_LOADED_ARGS_SIZE, "PJRT_LoadedExecutable_Destroy_Args");
    delete args->executable;
  });
}

tlp_error* loaded_delete(tlp_loaded_args* args) {
  return guarded("PJRT_LoadedExecutable_Delete", [&] {
    need(args, TLP_LOADED_ARGS_SIZE, "PJRT_LoadedExecutable_Delete_Args");
    non_null(args->executable, "the executable")->deleted = true;
  });
}

tlp_error* loaded_is_deleted(tlp_loaded_is_deleted_args* args) {
  return guarded("PJRT_LoadedExecutable_IsDeleted", [&] {
    need(args, TLP_LOADED_IS_DELETED_ARGS_SIZE, "PJRT_LoadedExecutable_IsDeleted_Args");
    args->is_deleted = non_null(args->executable, "the executable")->deleted;
  });
}

tlp_error* loaded_get_executable(tlp_loaded_get_executable_args* args) {
  return guarded("PJRT_LoadedExecutable_GetExecutable", [&] {
    need(args, TLP_LOADED_GET_EXECUTABLE_ARGS_SIZE, "PJRT_LoadedExecutable_GetExecutable_Args");
    args->executable = new tlp_executable{non_null(args->loaded, "the loaded executable")->compiled};
  });
}

tlp_error* loaded_addressable_devices(tlp_loaded_devices_args* args) {
  return guarded("PJRT_LoadedExecutable_AddressableDevices", [&] {
    need(args, TLP_LOADED_DEVICES_ARGS_SIZE, "PJRT_LoadedExecutable_AddressableDevices_Args");
    const tlp_loaded_executable& e = *non_null(args->executable, "the executable");
    args->devices = e.client->devices.data();
    args->num_devices = std::size_t(e.compiled->devices);
  });
}

}  // namespace

void fill_executables(tlp_api& a) {
  a.client_compile = &client_compile;
  a.executable_deserialize_and_load = &deserialize_and_load;
  a.executable_destroy = &executable_destroy;
  a.executable_name = &executable_name;
  a.executable_num_replicas = &executable_num_replicas;
  a.executable_num_partitions = &executable_num_partitions;
  a.executable_num_outputs = &executable_num_outputs;
  a.executable_output_types = &executable_output_types;
  a.executable_output_dims = &executable_output_dims;
  a.executable_fingerprint = &executable_fingerprint;
  a.executable_serialize = &executable_serialize;
  a.loaded_destroy = &loaded_destroy;
  a.loaded_delete = &loaded_delete;
  a.loaded_is_deleted = &loaded_is_deleted;
  a.loaded_get_executable = &loaded_get_executable;
  a.loaded_addressable_devices = &loaded_addressable_devices;
  fill_execute(a);
}

std::shared_ptr<const Compiled> compile_text(std::string text) {
  auto c =
      std::make_shared<Compiled>(Compiled{.text = {},
                                          .program = interp::Program(stablehlo::parse(text, "<program>")),
                                          .devices = 1,
                                          .output_types = {},
                                          .output_dims = {},
                                          .output_ranks = {},
                                          .name = "main",
                                          .fingerprint = {}});
  for (const ir::TensorType& t : c->program.entry().result_types()) {
    c->output_types.push_back(element_type(t.dtype));
    c->output_dims.insert(c->output_dims.end(), t.shape.begin(), t.shape.end());
    c->output_ranks.push_back(t.shape.size());
  }
  const ir::Module& m = c->program.module();
  if (m.num_replicas > 1024 || m.num_partitions > 1024 || m.num_replicas * m.num_partitions > 1024)
    throw Failure(TLP_INVALID_ARGUMENT,
                  fmt::format("the program runs on {} x {} devices, more than the plugin's "
                              "1024",
                              m.num_replicas, m.num_partitions));
  c->devices = int(m.num_replicas * m.num_partitions);
  c->fingerprint = fmt::format("tlaloc_cpu-{:016x}-{}", std::hash<std::string>{}(text), text.size());
  c->text = std::move(text);
  return c;
}

}  // namespace tlaloc::pjrt_cpu
