// Tlaloc's PJRT plugin (plugins/pjrt-cpu) driven through the C API directly, the way
// any PJRT framework would: its exports, its table, its errors, compilation,
// transfers, execution, donation and serialization. Results are compared with the
// interpreter run on the same text (the plugin must give the same bits).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "runtime/pjrt/plugin.hpp"
#include "runtime/sample_program.hpp"
#include "stablehlo/stablehlo.hpp"
#include "tlaloc/tlaloc.hpp"

// Bare XLA FFI handlers written in C (tests/ops/ffi_handlers.c); the second always fails.
extern "C" {
tlaloc_ffi_error* test_ffi_affine(tlaloc_ffi_call_frame* frame);
tlaloc_ffi_error* test_ffi_refuses(tlaloc_ffi_call_frame* frame);
}

namespace {

namespace tl = tlaloc;
using tl::runtime::pjrt::Plugin;

using tltest::sample::kProgram;
const std::vector<float>& kX = tltest::sample::kXValues;
const std::vector<float>& kY = tltest::sample::kYValues;
const std::vector<std::int64_t> kDims = {2, 3};

// One client of the plugin, and the calls the tests make through it.
struct Cpu {
  Plugin plugin = Plugin::load(TLALOC_PJRT_CPU_PLUGIN);
  const tlp_api& api = plugin.api();
  tlp_client* client = nullptr;

  // `devices` above 0: the client create option tlaloc_cpu_devices.
  explicit Cpu(std::int64_t devices = 0) {
    tlp_error* e = create(devices, &client);
    ok(e);
  }
  tlp_error* create(std::int64_t devices, tlp_client** out) const {
    const std::string_view name = "tlaloc_cpu_devices";
    tlp_named_value option{};
    option.struct_size = TLP_NAMED_VALUE_SIZE;
    option.name = name.data();
    option.name_size = name.size();
    option.kind = TLP_VALUE_INT64;
    option.int64_value = devices;
    option.value_size = 1;
    tlp_client_create_args args{};
    args.struct_size = TLP_CLIENT_CREATE_ARGS_SIZE;
    args.create_options = devices != 0 ? &option : nullptr;
    args.num_options = devices != 0 ? 1 : 0;
    tlp_error* e = api.client_create(&args);
    *out = args.client;
    return e;
  }
  std::vector<tlp_device*> devices() const {
    tlp_client_devices_args args{};
    args.struct_size = TLP_CLIENT_DEVICES_ARGS_SIZE;
    args.client = client;
    ok(api.client_addressable_devices(&args));
    return {args.devices, args.devices + args.num_devices};
  }
  ~Cpu() {
    tlp_client_args args{TLP_CLIENT_ARGS_SIZE, nullptr, client};
    ok(api.client_destroy(&args));
  }

  void ok(tlp_error* e) const {
    if (e != nullptr) ADD_FAILURE() << plugin.consume_error(e);
  }
  Plugin::Failure fails(tlp_error* e) const {
    EXPECT_NE(e, nullptr) << "the plugin accepted the call";
    return plugin.take_error(e);
  }

  tlp_error* compile(const std::string& text, tlp_loaded_executable** out, const char* format = "mlir") const {
    std::string code = text;
    tlp_program program{TLP_PROGRAM_SIZE, nullptr, code.data(), code.size(), format, std::strlen(format)};
    tlp_client_compile_args args{};
    args.struct_size = TLP_CLIENT_COMPILE_ARGS_SIZE;
    args.client = client;
    args.program = &program;
    tlp_error* e = api.client_compile(&args);
    *out = args.executable;
    return e;
  }
  tlp_loaded_executable* compile(const std::string& text) const {
    tlp_loaded_executable* exe = nullptr;
    ok(compile(text, &exe));
    return exe;
  }

  tlp_buffer* upload(const void* data, tlp_element_type type, const std::vector<std::int64_t>& dims,
                     tlp_host_buffer_semantics semantics = TLP_HOST_ONLY_DURING_CALL,
                     tlp_device* device = nullptr) const {
    tlp_buffer_from_host_args args{};
    args.struct_size = TLP_BUFFER_FROM_HOST_ARGS_SIZE;
    args.client = client;
    args.device = device;
    args.data = data;
    args.type = type;
    args.dims = dims.data();
    args.num_dims = dims.size();
    args.host_buffer_semantics = semantics;
    ok(api.client_buffer_from_host(&args));
    ready(args.done_with_host_buffer);
    return args.buffer;
  }
  void ready(tlp_event* event) const {
    ASSERT_NE(event, nullptr);
    tlp_event_is_ready_args is_ready{TLP_EVENT_IS_READY_ARGS_SIZE, nullptr, event, false};
    ok(api.event_is_ready(&is_ready));
    EXPECT_TRUE(is_ready.is_ready);
    tlp_event_args args{TLP_EVENT_ARGS_SIZE, nullptr, event};
    ok(api.event_await(&args));
    ok(api.event_destroy(&args));
  }
  tlp_error* download(tlp_buffer* b, std::vector<float>& out) const {
    tlp_buffer_to_host_args args{};
    args.struct_size = TLP_BUFFER_TO_HOST_ARGS_SIZE;
    args.src = b;
    args.dst = out.data();
    args.dst_size = out.size() * sizeof(float);
    tlp_error* e = api.buffer_to_host(&args);
    if (e == nullptr) ready(args.event);
    return e;
  }
  std::vector<float> download(tlp_buffer* b) const {
    std::vector<float> out(6);
    ok(download(b, out));
    return out;
  }
  // Runs on one device; `options` null: no execute options at all.
  tlp_error* execute(tlp_loaded_executable* exe, std::vector<tlp_buffer*> in, std::vector<tlp_buffer*>& out,
                     tlp_execute_options* options = nullptr) const {
    std::vector<std::vector<tlp_buffer*>> outs;
    tlp_error* e = execute_on(exe, {std::move(in)}, outs, options);
    out = outs.at(0);
    return e;
  }
  // Runs on as many devices as `in` has argument lists; two outputs each.
  tlp_error* execute_on(tlp_loaded_executable* exe, std::vector<std::vector<tlp_buffer*>> in,
                        std::vector<std::vector<tlp_buffer*>>& out,
                        tlp_execute_options* options = nullptr) const {
    out.assign(in.size(), std::vector<tlp_buffer*>(2, nullptr));
    std::vector<tlp_buffer* const*> argument_lists;
    std::vector<tlp_buffer**> output_lists;
    for (std::size_t k = 0; k < in.size(); ++k) {
      argument_lists.push_back(in[k].data());
      output_lists.push_back(out[k].data());
    }
    std::vector<tlp_event*> done(in.size(), nullptr);
    tlp_execute_args args{};
    args.struct_size = TLP_EXECUTE_ARGS_SIZE;
    args.executable = exe;
    args.options = options;
    args.argument_lists = argument_lists.data();
    args.num_devices = in.size();
    args.num_args = in.at(0).size();
    args.output_lists = output_lists.data();
    args.device_complete_events = done.data();
    tlp_error* e = api.loaded_execute(&args);
    if (e == nullptr)
      for (tlp_event* d : done) ready(d);
    return e;
  }
  void destroy(tlp_buffer* b) const {
    tlp_buffer_args args{TLP_BUFFER_ARGS_SIZE, nullptr, b};
    ok(api.buffer_destroy(&args));
  }
  void destroy(tlp_loaded_executable* e) const {
    tlp_loaded_args args{TLP_LOADED_ARGS_SIZE, nullptr, e};
    ok(api.loaded_destroy(&args));
  }
};

// The interpreter's results for kProgram, the reference for the plugin's bits.
std::vector<std::vector<float>> interpreted() {
  const tl::interp::Program p(tl::stablehlo::parse(kProgram));
  std::vector<std::vector<float>> out;
  for (const tl::Tensor& t : p.run({tl::tensor(kX, kDims), tl::tensor(kY, kDims)})) out.push_back(t.to_vector<float>());
  return out;
}

TEST(PjrtCpuPlugin, ExportsOnlyGetPjrtApi) {
  const std::string command = std::string(TLALOC_NM) + " -D --defined-only '" + TLALOC_PJRT_CPU_PLUGIN + "'";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), &::pclose);
  ASSERT_NE(pipe, nullptr);
  std::set<std::string> symbols;
  char line[1024];
  while (std::fgets(line, sizeof line, pipe.get()) != nullptr) {
    char address[64], kind[8], name[900];
    if (std::sscanf(line, "%63s %7s %899s", address, kind, name) == 3) symbols.insert(name);
  }
  EXPECT_EQ(symbols, (std::set<std::string>{"GetPjrtApi"}));
}

TEST(PjrtCpuPlugin, FillsEverySlotAndNamesTheOnesItDoesNotImplement) {
  const Cpu cpu;
  EXPECT_EQ(cpu.plugin.version(), (tl::runtime::pjrt::ApiVersion{TLP_API_MAJOR, TLP_API_MINOR}));
  EXPECT_EQ(cpu.plugin.table_size(), TLP_API_SIZE);
  const auto* slots = reinterpret_cast<void* const*>(reinterpret_cast<const char*>(&cpu.api) + TLP_API_VERSION_END);
  for (std::size_t i = 0; i < (TLP_API_SIZE - TLP_API_VERSION_END) / sizeof(void*); ++i)
    EXPECT_NE(slots[i], nullptr) << "slot " << i;
  int dummy[16] = {};
  const Plugin::Failure first = cpu.fails(cpu.api.client_lookup_device(dummy));
  EXPECT_EQ(first.code, TLP_UNIMPLEMENTED);
  EXPECT_NE(first.message.find("PJRT_Client_LookupDevice"), std::string::npos) << first.message;
  const Plugin::Failure last = cpu.fails(cpu.api.topology_memory_space_kind_ids(dummy));
  EXPECT_EQ(last.code, TLP_UNIMPLEMENTED);
  EXPECT_NE(last.message.find("PJRT_TopologyDescription_GetMemorySpaceKindIds"), std::string::npos);
}

TEST(PjrtCpuPlugin, ReportsItsStableHloVersionsAndOneDevice) {
  const Cpu cpu;
  tlp_plugin_attributes_args attrs{};
  attrs.struct_size = TLP_PLUGIN_ATTRIBUTES_ARGS_SIZE;
  cpu.ok(cpu.api.plugin_attributes(&attrs));
  std::set<std::string> versions;
  for (std::size_t i = 0; i < attrs.num_attributes; ++i) {
    const tlp_named_value& v = attrs.attributes[i];
    const std::string name(v.name, v.name_size);
    if (name.starts_with("stablehlo_")) {
      EXPECT_EQ(v.kind, TLP_VALUE_INT64_LIST) << name;
      EXPECT_EQ(v.value_size, 3u) << name;
      versions.insert(name);
    }
  }
  EXPECT_EQ(versions, (std::set<std::string>{"stablehlo_current_version", "stablehlo_minimum_version"}));
  tlp_client_string_args name{};
  name.struct_size = TLP_CLIENT_STRING_ARGS_SIZE;
  name.client = cpu.client;
  cpu.ok(cpu.api.client_platform_name(&name));
  EXPECT_EQ(std::string(name.text, name.text_size), "tlaloc_cpu");
  tlp_client_devices_args devices{};
  devices.struct_size = TLP_CLIENT_DEVICES_ARGS_SIZE;
  devices.client = cpu.client;
  cpu.ok(cpu.api.client_addressable_devices(&devices));
  EXPECT_EQ(devices.num_devices, 1u);
}

TEST(PjrtCpuPlugin, RefusesAProgramWithTheParsersMessage) {
  const Cpu cpu;
  const std::string bad = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %y : tensor<2xf32>\n}";
  std::string parser_message;
  try {
    (void)tl::stablehlo::parse(bad, "<program>");
  } catch (const tl::Error& e) {
    parser_message = e.what();
  }
  ASSERT_FALSE(parser_message.empty());
  tlp_loaded_executable* exe = nullptr;
  const Plugin::Failure f = cpu.fails(cpu.compile(bad, &exe));
  EXPECT_EQ(f.code, TLP_INVALID_ARGUMENT);
  EXPECT_NE(f.message.find("PJRT_Client_Compile"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find(parser_message), std::string::npos) << f.message;
  const Plugin::Failure hlo = cpu.fails(cpu.compile(kProgram, &exe, "hlo"));
  EXPECT_EQ(hlo.code, TLP_INVALID_ARGUMENT);
  EXPECT_NE(hlo.message.find("format 'hlo'"), std::string::npos) << hlo.message;
  EXPECT_EQ(cpu.fails(cpu.api.client_compile(nullptr)).code, TLP_INVALID_ARGUMENT);  // never a crash
}

TEST(PjrtCpuPlugin, RunsWithTheInterpretersBitsForEveryHostBufferSemantics) {
  const Cpu cpu;
  tlp_loaded_executable* exe = cpu.compile(kProgram);
  const auto expected = interpreted();
  for (tlp_host_buffer_semantics s : {TLP_HOST_ONLY_DURING_CALL, TLP_HOST_UNTIL_TRANSFER_COMPLETES,
                                      TLP_HOST_IMMUTABLE_ZERO_COPY, TLP_HOST_MUTABLE_ZERO_COPY}) {
    std::vector<float> x = kX;
    tlp_buffer* bx = cpu.upload(x.data(), TLP_TYPE_F32, kDims, s);
    tlp_buffer* by = cpu.upload(kY.data(), TLP_TYPE_F32, kDims, s);
    x.assign(6, -1.f);  // the plugin no longer reads the host data
    std::vector<tlp_buffer*> out;
    cpu.ok(cpu.execute(exe, {bx, by}, out));
    EXPECT_EQ(cpu.download(out[0]), expected[0]) << "semantics " << s;
    EXPECT_EQ(cpu.download(out[1]), expected[1]) << "semantics " << s;
    for (tlp_buffer* b : {bx, by, out[0], out[1]}) cpu.destroy(b);
  }
  cpu.destroy(exe);
}

TEST(PjrtCpuPlugin, RefusesWrongArgumentsAtExecute) {
  const Cpu cpu;
  tlp_loaded_executable* exe = cpu.compile(kProgram);
  tlp_buffer* x = cpu.upload(kX.data(), TLP_TYPE_F32, kDims);
  tlp_buffer* wide = cpu.upload(kX.data(), TLP_TYPE_F32, {3, 2});
  const std::vector<std::int32_t> ints(6, 1);
  tlp_buffer* i32 = cpu.upload(ints.data(), TLP_TYPE_S32, kDims);
  std::vector<tlp_buffer*> out;
  const Plugin::Failure count = cpu.fails(cpu.execute(exe, {x}, out));
  EXPECT_EQ(count.code, TLP_INVALID_ARGUMENT);
  EXPECT_NE(count.message.find("the program takes 2 arguments, got 1"), std::string::npos) << count.message;
  const Plugin::Failure shape = cpu.fails(cpu.execute(exe, {x, wide}, out));
  EXPECT_EQ(shape.code, TLP_INVALID_ARGUMENT);
  EXPECT_NE(shape.message.find("argument 1 is f32[3,2], the program takes f32[2,3]"), std::string::npos)
      << shape.message;
  const Plugin::Failure dtype = cpu.fails(cpu.execute(exe, {x, i32}, out));
  EXPECT_NE(dtype.message.find("argument 1 is i32[2,3]"), std::string::npos) << dtype.message;
  for (tlp_buffer* b : {x, wide, i32}) cpu.destroy(b);
  cpu.destroy(exe);
}

TEST(PjrtCpuPlugin, RefusesABufferAfterItWasDonated) {
  const Cpu cpu;
  tlp_loaded_executable* exe = cpu.compile(kProgram);
  tlp_buffer* x = cpu.upload(kX.data(), TLP_TYPE_F32, kDims);
  tlp_buffer* y = cpu.upload(kY.data(), TLP_TYPE_F32, kDims);
  const std::int64_t keep_y[] = {1};
  tlp_execute_options options{};
  options.struct_size = TLP_EXECUTE_OPTIONS_SIZE;
  options.non_donatable_input_indices = keep_y;
  options.num_non_donatable_input_indices = 1;
  std::vector<tlp_buffer*> out;
  cpu.ok(cpu.execute(exe, {x, y}, out, &options));
  EXPECT_EQ(cpu.download(out[0]), interpreted()[0]);
  tlp_buffer_flag_args deleted{TLP_BUFFER_FLAG_ARGS_SIZE, nullptr, x, false};
  cpu.ok(cpu.api.buffer_is_deleted(&deleted));
  EXPECT_TRUE(deleted.value);
  deleted.buffer = y;
  cpu.ok(cpu.api.buffer_is_deleted(&deleted));
  EXPECT_FALSE(deleted.value);  // kept: it was listed as non-donatable
  std::vector<float> host(6);
  const Plugin::Failure read = cpu.fails(cpu.download(x, host));
  EXPECT_EQ(read.code, TLP_FAILED_PRECONDITION);
  EXPECT_NE(read.message.find("donated"), std::string::npos) << read.message;
  std::vector<tlp_buffer*> again;
  const Plugin::Failure rerun = cpu.fails(cpu.execute(exe, {x, y}, again));
  EXPECT_EQ(rerun.code, TLP_FAILED_PRECONDITION);
  EXPECT_NE(rerun.message.find("argument 0 was deleted or donated"), std::string::npos) << rerun.message;
  // Without execute options nothing is donated.
  cpu.ok(cpu.execute(exe, {out[0], y}, again));
  deleted.buffer = out[0];
  cpu.ok(cpu.api.buffer_is_deleted(&deleted));
  EXPECT_FALSE(deleted.value);
  for (tlp_buffer* b : {x, y, out[0], out[1], again[0], again[1]}) cpu.destroy(b);
  cpu.destroy(exe);
}

TEST(PjrtCpuPlugin, SerializedExecutablesLoadAndRunAgain) {
  const Cpu cpu;
  tlp_loaded_executable* exe = cpu.compile(kProgram);
  tlp_loaded_get_executable_args get{};
  get.struct_size = TLP_LOADED_GET_EXECUTABLE_ARGS_SIZE;
  get.loaded = exe;
  cpu.ok(cpu.api.loaded_get_executable(&get));
  tlp_executable_serialize_args ser{};
  ser.struct_size = TLP_EXECUTABLE_SERIALIZE_ARGS_SIZE;
  ser.executable = get.executable;
  cpu.ok(cpu.api.executable_serialize(&ser));
  tlp_deserialize_and_load_args load{};
  load.struct_size = TLP_DESERIALIZE_AND_LOAD_ARGS_SIZE;
  load.client = cpu.client;
  load.bytes = ser.bytes;
  load.bytes_size = ser.bytes_size;
  cpu.ok(cpu.api.executable_deserialize_and_load(&load));
  ser.deleter(ser.serialized);
  tlp_executable_args destroy{TLP_EXECUTABLE_ARGS_SIZE, nullptr, get.executable};
  cpu.ok(cpu.api.executable_destroy(&destroy));
  cpu.destroy(exe);

  tlp_buffer* x = cpu.upload(kX.data(), TLP_TYPE_F32, kDims);
  tlp_buffer* y = cpu.upload(kY.data(), TLP_TYPE_F32, kDims);
  std::vector<tlp_buffer*> out;
  cpu.ok(cpu.execute(load.loaded, {x, y}, out));
  EXPECT_EQ(cpu.download(out[0]), interpreted()[0]);
  EXPECT_EQ(cpu.download(out[1]), interpreted()[1]);
  for (tlp_buffer* b : {x, y, out[0], out[1]}) cpu.destroy(b);
  cpu.destroy(load.loaded);

  const char junk[] = "not an executable";
  load.bytes = junk;
  load.bytes_size = sizeof junk;
  const Plugin::Failure f = cpu.fails(cpu.api.executable_deserialize_and_load(&load));
  EXPECT_EQ(f.code, TLP_INVALID_ARGUMENT);
  EXPECT_NE(f.message.find("not an executable serialized by Tlaloc's CPU plugin"), std::string::npos) << f.message;
}

// An SPMD program of two partitions: each device takes its row of x, multiplies it
// by the sum of the rows (an all_reduce across the devices), and the rows are put
// back together; y is added after.
const char* kSpmdProgram = R"(
module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
    %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<2x3xf32>) -> tensor<1x3xf32>
    %2 = "stablehlo.all_reduce"(%1) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<1x3xf32>) -> tensor<1x3xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<1x3xf32>
    %4 = stablehlo.custom_call @Sharding(%3) {mhlo.sharding = "{manual}"} : (tensor<1x3xf32>) -> tensor<1x3xf32>
    %5 = stablehlo.custom_call @SPMDShardToFullShape(%4) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<1x3xf32>) -> tensor<2x3xf32>
    %6 = stablehlo.add %5, %y : tensor<2x3xf32>
    return %5, %6 : tensor<2x3xf32>, tensor<2x3xf32>
  }
}
)";

TEST(PjrtCpuPlugin, RunsAnSpmdProgramOnTheDevicesAClientIsCreatedWith) {
  const Cpu cpu(2);
  const std::vector<tlp_device*> devices = cpu.devices();
  ASSERT_EQ(devices.size(), 2u);
  tlp_loaded_executable* exe = cpu.compile(kSpmdProgram);
  tlp_loaded_devices_args on{};
  on.struct_size = TLP_LOADED_DEVICES_ARGS_SIZE;
  on.executable = exe;
  cpu.ok(cpu.api.loaded_addressable_devices(&on));
  EXPECT_EQ(std::vector<tlp_device*>(on.devices, on.devices + on.num_devices), devices);
  // Row k of x times the rows' sum, by hand; then plus y.
  std::vector<float> rows(6), plus(6);
  for (std::size_t i = 0; i < 6; ++i) {
    rows[i] = kX[i] * (kX[i % 3] + kX[3 + i % 3]);
    plus[i] = rows[i] + kY[i];
  }
  std::vector<std::vector<tlp_buffer*>> in, out;
  for (tlp_device* d : devices)
    in.push_back({cpu.upload(kX.data(), TLP_TYPE_F32, kDims, TLP_HOST_ONLY_DURING_CALL, d),
                  cpu.upload(kY.data(), TLP_TYPE_F32, kDims, TLP_HOST_ONLY_DURING_CALL, d)});
  cpu.ok(cpu.execute_on(exe, in, out));
  for (std::size_t k = 0; k < devices.size(); ++k) {
    EXPECT_EQ(cpu.download(out[k][0]), rows) << "device " << k;
    EXPECT_EQ(cpu.download(out[k][1]), plus) << "device " << k;
    tlp_buffer_device_args where{};
    where.struct_size = TLP_BUFFER_DEVICE_ARGS_SIZE;
    where.buffer = out[k][0];
    cpu.ok(cpu.api.buffer_device(&where));
    EXPECT_EQ(where.device, devices[k]);
  }
  // On one device, or with device 1's arguments on device 0: refused by name.
  std::vector<std::vector<tlp_buffer*>> none;
  const Plugin::Failure one = cpu.fails(cpu.execute_on(exe, {in[0]}, none));
  EXPECT_NE(one.message.find("runs on 2 devices, 1 were asked for"), std::string::npos) << one.message;
  const Plugin::Failure misplaced = cpu.fails(cpu.execute_on(exe, {in[0], in[0]}, none));
  EXPECT_NE(misplaced.message.find("argument 0 of device 1 is on device 0"), std::string::npos)
      << misplaced.message;
  for (const auto& list : {in[0], in[1], out[0], out[1]})
    for (tlp_buffer* b : list) cpu.destroy(b);
  cpu.destroy(exe);
}

TEST(PjrtCpuPlugin, NamesTheDevicesOptionWhenAProgramNeedsMoreDevices) {
  const Cpu cpu;
  tlp_loaded_executable* exe = nullptr;
  const Plugin::Failure f = cpu.fails(cpu.compile(kSpmdProgram, &exe));
  EXPECT_NE(f.message.find("runs on 2 devices"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("tlaloc_cpu_devices = 2"), std::string::npos) << f.message;
  tlp_client* client = nullptr;
  for (std::int64_t bad : {std::int64_t(-1), std::int64_t(100000)}) {
    const Plugin::Failure option = cpu.fails(cpu.create(bad, &client));
    EXPECT_NE(option.message.find("tlaloc_cpu_devices takes an int64 from 1 to 1024"), std::string::npos)
        << option.message;
  }
}

// The FFI extension, as a framework finds and calls it (PJRT_FFI_Extension, version 2).
TEST(PjrtCpuPlugin, RegistersXlaFfiHandlersThroughItsFfiExtension) {
  const Cpu cpu;
  const tlp_ffi_extension* ffi = nullptr;
  for (const tlp_extension* e = cpu.api.extension_start; e != nullptr; e = e->next)
    if (e->type == TLP_EXTENSION_FFI) ffi = reinterpret_cast<const tlp_ffi_extension*>(e);
  ASSERT_NE(ffi, nullptr);
  EXPECT_GE(ffi->base.struct_size, TLP_FFI_EXTENSION_SIZE);
  const auto registering = [&](std::string_view name, std::string_view platform,
                               tlaloc_ffi_handler* handler) {
    tlp_ffi_register_handler_args args{};
    args.struct_size = TLP_FFI_REGISTER_HANDLER_ARGS_SIZE;
    args.target_name = name.data();
    args.target_name_size = name.size();
    args.handler = reinterpret_cast<void*>(handler);
    args.platform_name = platform.data();
    args.platform_name_size = platform.size();
    return ffi->register_handler(&args);
  };
  Plugin::Failure f = cpu.fails(registering("test.raw_refuses", "CUDA", &test_ffi_refuses));
  EXPECT_EQ(f.code, TLP_INVALID_ARGUMENT);
  EXPECT_NE(f.message.find("platform 'CUDA'"), std::string::npos) << f.message;
  f = cpu.fails(registering("test.raw_refuses", "Host", nullptr));
  EXPECT_NE(f.message.find("handler is null"), std::string::npos) << f.message;
  cpu.ok(registering("test.raw_refuses", "Host", &test_ffi_refuses));
  cpu.ok(registering("test.raw_refuses", "cpu", &test_ffi_refuses));  // the same again: nothing changes
  f = cpu.fails(registering("test.raw_refuses", "cpu", &test_ffi_affine));
  EXPECT_NE(f.message.find("another handler"), std::string::npos) << f.message;
  // A type id, and user data the plugin has no contexts for.
  tlp_ffi_type_id_register_args type{TLP_FFI_TYPE_ID_REGISTER_ARGS_SIZE, nullptr, "test.state", 10, 0};
  cpu.ok(ffi->type_id_register(&type));
  EXPECT_GT(type.type_id, 0);
  tlp_ffi_type_id_register_args again{TLP_FFI_TYPE_ID_REGISTER_ARGS_SIZE, nullptr, "test.state", 10,
                                      type.type_id};
  cpu.ok(ffi->type_id_register(&again));
  tlp_ffi_user_data_add_args data{};
  EXPECT_EQ(cpu.fails(ffi->user_data_add(&data)).code, TLP_UNIMPLEMENTED);
  // The program calling it compiles; the handler's error comes back from execute.
  const std::string text =
      "func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {\n"
      "  %0 = stablehlo.custom_call @test.raw_refuses(%x, %y) {api_version = 4 : i32} : (tensor<2x3xf32>, "
      "tensor<2x3xf32>) -> tensor<2x3xf32>\n"
      "  return %0, %y : tensor<2x3xf32>, tensor<2x3xf32>\n}\n";
  tlp_loaded_executable* exe = cpu.compile(text);
  tlp_buffer* x = cpu.upload(kX.data(), TLP_TYPE_F32, kDims);
  tlp_buffer* y = cpu.upload(kY.data(), TLP_TYPE_F32, kDims);
  std::vector<tlp_buffer*> out;
  f = cpu.fails(cpu.execute(exe, {x, y}, out));
  EXPECT_NE(f.message.find("FAILED_PRECONDITION"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("the handler refuses 2 values"), std::string::npos) << f.message;
  cpu.destroy(x);
  cpu.destroy(y);
  cpu.destroy(exe);
}

}  // namespace
