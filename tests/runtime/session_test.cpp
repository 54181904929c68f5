// tl::runtime::Session on both backends (the embedded interpreter, and PJRT with
// Tlaloc's own plugin libtlaloc_pjrt_cpu.so): compiling StableHLO text once,
// running on host tensors and on device buffers, donation, the compile cache,
// threads, training with the state kept on the device, and bad input. Every test
// runs on each backend and asserts the same values, bit for bit.
#include <gtest/gtest.h>

#include <optional>
#include <thread>
#include <tlaloc/nn.hpp>
#include <tlaloc/runtime.hpp>
#include <tlaloc/tlaloc.hpp>

#include "ir/builder.hpp"
#include "runtime/backend.hpp"
#include "runtime/sample_program.hpp"
#include "stablehlo/stablehlo.hpp"
#include "support/expect_error.hpp"
#include "support/training_runs.hpp"

namespace {

namespace tl = tlaloc;
namespace rt = tlaloc::runtime;
using tl::Tensor;

using tltest::sample::kProgram;
const Tensor kX = tltest::sample::x();
const Tensor kY = tltest::sample::y();

class SessionOn : public ::testing::TestWithParam<rt::Backend> {
 protected:
  static rt::SessionOptions options() {
    if (GetParam() == rt::Backend::interpreter) return {};
    return {.backend = rt::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN};
  }
  static std::string platform() { return GetParam() == rt::Backend::interpreter ? "interpreter" : "tlaloc_cpu"; }
};

INSTANTIATE_TEST_SUITE_P(Backends, SessionOn, ::testing::Values(rt::Backend::interpreter, rt::Backend::pjrt),
                         [](const ::testing::TestParamInfo<rt::Backend>& p) {
                           return p.param == rt::Backend::interpreter ? std::string("interpreter")
                                                                         : std::string("pjrt");
                         });

TEST_P(SessionOn, RunsStableHloOnHostTensors) {
  const rt::Session s(options());
  EXPECT_EQ(s.platform_name(), platform());
  const rt::Executable e = s.compile(kProgram);
  EXPECT_EQ(e.input_types().size(), 2u);
  EXPECT_EQ(e.output_types().at(0), (rt::BufferType{tl::DType::f32, {2, 3}}));
  const Tensor args[] = {kX, kY};
  const std::vector<Tensor> out = e.run(args);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1.5f, 2.f, 15.f, 16.f, 40.f, 0.f}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{0.5f, 3.f, 1.f, 4.f, 2.f, 12.f}));
}

TEST_P(SessionOn, CompilesEachProgramOnce) {
  const rt::Session s(options());
  (void)s.compile(kProgram);
  (void)s.compile(kProgram);
  EXPECT_EQ(s.cache_stats().hits, 1u);
  EXPECT_EQ(s.cache_stats().misses, 1u);
  (void)s.compile(std::string(kProgram) + "\n");  // another text is another program
  EXPECT_EQ(s.cache_stats().misses, 2u);
}

TEST_P(SessionOn, BuffersStayOnTheDeviceAndDonatedOnesAreConsumed) {
  const rt::Session s(options());
  const rt::Executable e = s.compile(kProgram);
  const std::vector<Tensor> host{kX, kY};
  std::vector<rt::Buffer> in = s.to_device(host);
  const std::vector<rt::Buffer> out = e.run(in, {.donate = {0}});
  EXPECT_FALSE(in[0].valid());
  EXPECT_TRUE(in[1].valid());
  tltest::expect_error<rt::RuntimeError>([&] { (void)in[0].to_host(); }, "runtime::Buffer::to_host", "donated");
  tltest::expect_error<rt::RuntimeError>([&] { (void)e.run(in); }, "runtime::Executable::run: argument 0",
                                         "donated");
  // Results feed the next run without leaving the device.
  const std::vector<rt::Buffer> again = e.run(out);
  const Tensor sum = out[0].to_host() + out[1].to_host();
  EXPECT_EQ(again[0].to_host().to_vector<float>(), (sum * out[0].to_host()).to_vector<float>());
}

TEST_P(SessionOn, RefusesBadArguments) {
  const rt::Session s(options());
  const rt::Executable e = s.compile(kProgram);
  const rt::Buffer x = s.to_device(kX), y = s.to_device(kY);
  const rt::Buffer one[] = {x};
  tltest::expect_error<tl::ValueError>([&] { (void)e.run(one); }, "runtime::Executable::run", "takes 2 arguments",
                                       "got 1");
  const rt::Buffer wrong[] = {x, s.to_device(tl::zeros({3, 2}, tl::DType::f32))};
  tltest::expect_error<tl::ValueError>([&] { (void)e.run(wrong); }, "runtime::Executable::run", "argument 1 is f32[3,2]",
                                       "takes f32[2,3]");
  const rt::Buffer ints[] = {x, s.to_device(tl::zeros({2, 3}, tl::DType::i32))};
  tltest::expect_error<tl::ValueError>([&] { (void)e.run(ints); }, "runtime::Executable::run", "i32[2,3]");
  const rt::Buffer both[] = {x, y};
  tltest::expect_error<tl::ValueError>([&] { (void)e.run(both, {.donate = {2}}); }, "runtime::Executable::run",
                                       "donate names argument 2");
  tltest::expect_error<tl::ValueError>([&] { (void)e.run(both, {.donate = {1, 1}}); }, "runtime::Executable::run",
                                       "donated twice");
  const rt::Buffer same[] = {x, x};
  tltest::expect_error<tl::ValueError>([&] { (void)e.run(same, {.donate = {0, 1}}); }, "runtime::Executable::run",
                                       "donates a buffer twice");
  EXPECT_TRUE(x.valid());  // a refused run consumes nothing
  const rt::Session other(options());
  const rt::Buffer foreign[] = {x, other.to_device(kY)};
  tltest::expect_error<tl::ValueError>([&] { (void)e.run(foreign); }, "runtime::Executable::run",
                                       "argument 1 lives in another session");
  EXPECT_THROW((void)s.compile("func.func @main( {"), tl::Error);
}

TEST_P(SessionOn, RunsFromSeveralThreadsAtOnce) {
  const rt::Session s(options());
  std::vector<std::thread> threads;
  std::vector<std::vector<float>> results(8);
  for (std::size_t t = 0; t < results.size(); ++t)
    threads.emplace_back([&, t] {
      const rt::Executable e = s.compile(kProgram);
      const Tensor args[] = {kX * float(t), kY};
      results[t] = e.run(args)[1].to_vector<float>();
    });
  for (std::thread& t : threads) t.join();
  for (std::size_t t = 0; t < results.size(); ++t)
    EXPECT_EQ(results[t], (kX * float(t) - kY).to_vector<float>()) << "thread " << t;
  EXPECT_EQ(s.cache_stats().misses, 1u);
  EXPECT_EQ(s.cache_stats().hits, results.size() - 1);
}

// The captured training step with parameters and optimizer state kept as device
// buffers and donated each step: only the batch goes in and the loss comes out.
// The interpreter runs the same text the PJRT backends will, so the run equals
// TrainStep's own within the rounding of ops StableHLO spells out (none here: the
// MLP run is bit-identical).
TEST_P(SessionOn, TrainsWithTheStateOnTheDevice) {
  const tltest::TrainingRun run = tltest::mlp_run(5);
  const tl::nn::TrainStep step =
      tl::nn::capture(run.loss, run.params, run.batches.front()).train_step(run.optimizer, run.clipping);
  tl::nn::Params p = run.params;
  tl::nn::OptimizerState state = step.init(p);
  const std::size_t n_state = step.output_names(state).size() - 1;

  const rt::Session s(options());
  const rt::Executable e = s.compile(step.stablehlo());
  std::vector<Tensor> initial = p.tensors();
  for (const Tensor& t : state.slots.tensors()) initial.push_back(t);
  initial.push_back(state.step);
  std::vector<rt::Buffer> on_device = s.to_device(initial);
  std::vector<std::size_t> donate(n_state);
  for (std::size_t i = 0; i < n_state; ++i) donate[i] = i;

  for (const tl::nn::Batch& b : run.batches) {
    std::vector<rt::Buffer> args = on_device;
    args.push_back(s.to_device(b.inputs));
    args.push_back(s.to_device(b.targets));
    std::vector<rt::Buffer> out = e.run(args, {.donate = donate});
    const tl::nn::StepResult expected = step(p, state, b);
    p = expected.params, state = expected.state;
    EXPECT_EQ(out.back().to_host().item<float>(), expected.loss.item<float>());
    out.pop_back();
    on_device = std::move(out);
  }
  for (std::size_t i = 0; i < p.size(); ++i)
    EXPECT_EQ(on_device[i].to_host().to_vector<float>(), p.tensors()[i].to_vector<float>()) << p.names()[i];
  EXPECT_EQ(on_device.back().to_host().item<std::int64_t>(), 5);
}

// The plugin's own refusal reaches the caller as a RuntimeError with its message
// and code (INVALID_ARGUMENT = 3), whatever the Session would say.
// The client's options reach the plugin: Tlaloc's CPU plugin takes only
// tlaloc_cpu_devices and names any other it is given.
TEST(SessionOnPjrt, PassesClientOptionsToThePlugin) {
  const std::vector<rt::ClientOption> options{{"memory_fraction", 0.5f}};
  tltest::expect_error_with<rt::RuntimeError>(
      [&] {
        (void)rt::Session(
            {.backend = rt::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN, .client_options = options});
      },
      {"memory_fraction"});
  EXPECT_EQ(rt::Session({.backend = rt::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN}).platform_name(),
            "tlaloc_cpu");
}

// A shard_map's program, lowered, runs on two devices of the CPU plugin (the client
// option tlaloc_cpu_devices), with the interpreter's bits; one device is not enough,
// and the error says which option gives more.
TEST(SessionOnPjrt, RunsAnSpmdProgramOnSeveralDevices) {
  const auto sum_of_squares = tl::shard_map(
      [](const tl::Tensor& v) {
        return std::vector<tl::Tensor>{tl::psum(tl::sum(v * v), "d"), v * 2.f};
      },
      tl::Mesh({{"d", 2}}), {tl::P("d")}, {tl::P(), tl::P("d")});
  const tl::Tensor x = tl::tensor(std::vector<float>{0, 1, 2, 3, 4, 5}, {2, 3});
  const std::vector<tl::ir::TensorType> types{{x.dtype(), x.shape()}};
  const std::string text = tl::stablehlo::to_text(
      tl::ir::trace("main", types, [&](std::span<const tl::Tensor> a) { return sum_of_squares(a[0]); }));
  const std::vector<rt::ClientOption> two{{"tlaloc_cpu_devices", std::int64_t(2)}};
  const rt::Session s(
      {.backend = rt::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN, .client_options = two});
  const std::vector<tl::Tensor> got = s.compile(text).run(std::vector<tl::Tensor>{x});
  const std::vector<tl::Tensor> want = sum_of_squares(x);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].item<float>(), 55.f);  // 0 + 1 + 4 + 9 + 16 + 25
  EXPECT_EQ(got[0].item<float>(), want[0].item<float>());
  EXPECT_EQ(got[1].to_vector<float>(), want[1].to_vector<float>());
  const rt::Session one({.backend = rt::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN});
  tltest::expect_error_with<rt::RuntimeError>(
      [&] { (void)one.compile(text); },
      {"runs on 1 x 2 devices", "gives this process 1", "tlaloc_cpu_devices"});
}

// Unset options are chosen by plugin: a CUDA plugin gets a share of the GPU and no
// preallocation; others get none; options given are passed as they are.
TEST(SessionOnPjrt, ChoosesClientOptionsByPlugin) {
  const auto cuda = rt::detail::client_options_for({}, "/site-packages/jax_plugins/xla_cuda13/xla_cuda_plugin.so");
  ASSERT_EQ(cuda.size(), 2u);
  EXPECT_EQ(cuda[0].name, "memory_fraction");
  EXPECT_EQ(std::get<float>(cuda[0].value), 0.75f);
  EXPECT_EQ(cuda[1].name, "preallocate");
  EXPECT_EQ(std::get<bool>(cuda[1].value), false);
  EXPECT_TRUE(rt::detail::client_options_for({}, TLALOC_PJRT_CPU_PLUGIN).empty());
  const rt::SessionOptions none{.client_options = std::vector<rt::ClientOption>{}};
  EXPECT_TRUE(rt::detail::client_options_for(none, "xla_cuda_plugin.so").empty());
}

TEST(SessionOnPjrt, ReportsThePluginsErrorsWithTheirCodes) {
  const rt::Session s({.backend = rt::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN});
  try {
    (void)s.compile("func.func @main( {");
    ADD_FAILURE() << "compiled";
  } catch (const rt::RuntimeError& e) {
    EXPECT_EQ(e.code(), 3);
    const std::string message = e.what();
    EXPECT_NE(message.find("PJRT_Client_Compile failed in the PJRT plugin"), std::string::npos) << message;
    EXPECT_NE(message.find("(INVALID_ARGUMENT): PJRT_Client_Compile: <program>:1"), std::string::npos) << message;
  }
  tltest::expect_error<rt::PluginError>(
      [] { rt::Session({.backend = rt::Backend::pjrt, .plugin_path = "no/such/plugin.so"}); },
      "runtime::pjrt::Plugin::load", "no such file");
}

// Executables and buffers keep the plugin's client alive after their Session goes.
TEST(SessionOnPjrt, HandlesOutliveTheirSession) {
  std::optional<rt::Executable> e;
  std::optional<rt::Buffer> x, y;
  {
    const rt::Session s({.backend = rt::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN});
    e = s.compile(kProgram);
    x = s.to_device(kX);
    y = s.to_device(kY);
  }
  const rt::Buffer args[] = {*x, *y};
  EXPECT_EQ(e->run(args)[1].to_host().to_vector<float>(), (kX - kY).to_vector<float>());
}

}  // namespace
