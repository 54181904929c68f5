// tl::kernel (include/tlaloc/kernel.hpp): a user's host kernel called eagerly, under
// jit, differentiated through its own rules (against central differences and the same
// function composed of library ops), lowered to StableHLO and read back, and the
// mistakes that are refused by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "ir/builder.hpp"
#include "ops/custom_call.hpp"
#include "ops/xla_ffi.hpp"
#include "stablehlo/stablehlo.hpp"
#include "support/expect_error.hpp"
#include "tlaloc/runtime.hpp"
#include "tlaloc/tlaloc.hpp"

namespace {

namespace tl = tlaloc;
using tl::Tensor;

Tensor data(std::uint64_t seed, tl::Shape shape) {
  return tl::random::normal(tl::random::key(seed), shape).astype(tl::DType::f64);
}

std::vector<tl::TensorType> same_as_first(std::span<const tl::TensorType> in) { return {in[0]}; }

// y = k x^3, elementwise, in f64; its rules in library ops.
tl::Kernel cube(const std::string& name) {
  return tl::kernel(name)
      .shape(same_as_first)
      .cpu([](const tl::KernelCall& call) {
        const double* x = call.arg(0).data<double>();
        double* y = call.result<double>(0);
        const double k = call.attr<double>("k");
        for (std::int64_t i = 0; i < call.arg(0).numel(); ++i) y[i] = k * x[i] * x[i] * x[i];
      })
      .attr("k", 0.5)
      .vjp([](const tl::KernelGrad& g) {
        const Tensor& x = g.arg(0);
        return std::vector<Tensor>{g.cotangent(0) * x * x * 1.5};
      })
      .jvp([](const tl::KernelGrad& g) {
        const Tensor& x = g.arg(0);
        return std::vector<Tensor>{g.tangent(0) * x * x * 1.5};
      });
}

Tensor composed_cube(const Tensor& x) { return x * x * x * 0.5; }

}  // namespace

// Bare XLA FFI handlers written in C (ffi_handlers.c).
extern "C" {
tlaloc_ffi_error* test_ffi_affine(tlaloc_ffi_call_frame* frame);
tlaloc_ffi_error* test_ffi_refuses(tlaloc_ffi_call_frame* frame);
}

namespace {

// y = -2.5 x - 0.75 through test_ffi_affine, with an attribute of every kind.
tl::Kernel affine(const std::string& name) {
  return tl::kernel(name)
      .shape(same_as_first)
      .ffi(test_ffi_affine)
      .attr("scale", 2.5)
      .attr("offset", -0.75)
      .attr("negate", true)
      .attr("copies", std::int64_t{1})
      .attr("label", std::string("affine"))
      .vjp([](const tl::KernelGrad& g) { return std::vector<Tensor>{g.cotangent(0) * -2.5}; });
}

Tensor composed_affine(const Tensor& x) { return x * -2.5 - 0.75; }

std::string program_calling(const tl::Kernel& k, const Tensor& x) {
  const std::vector<tl::ir::TensorType> types{{x.dtype(), x.shape()}};
  return tl::stablehlo::to_text(
      tl::ir::trace("main", types, [&](std::span<const Tensor> a) { return std::vector<Tensor>{k(a[0])}; }));
}

TEST(Kernel, RunsEagerlyAndUnderJitWithItsAttributes) {
  const tl::Kernel k = cube("test.cube_eager");
  const Tensor x = data(1, {3, 4});
  EXPECT_TRUE(tl::allclose(k(x), composed_cube(x), 1e-15, 0));
  const auto jitted = tl::jit([&](const Tensor& v) { return k(v) + 1.0; });
  EXPECT_TRUE(tl::allclose(jitted(x), composed_cube(x) + 1.0, 1e-15, 0));
}

TEST(Kernel, ItsRulesMatchDifferencesAndTheComposedFunction) {
  const tl::Kernel k = cube("test.cube_grad");
  const Tensor x = data(2, {5});
  const auto loss = [&](const Tensor& v) { return tl::sum(tl::sin(k(v))); };
  const Tensor g = tl::grad(loss)(x);
  const Tensor want = tl::grad([](const Tensor& v) { return tl::sum(tl::sin(composed_cube(v))); })(x);
  EXPECT_TRUE(tl::allclose(g, want, 1e-12, 1e-12)) << g << want;
  // Central differences, one element at a time.
  const std::vector<double> xs = x.to_vector<double>(), gs = g.to_vector<double>();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    std::vector<double> up = xs, down = xs;
    up[i] += 1e-6;
    down[i] -= 1e-6;
    const double diff = (loss(tl::tensor(up)).item<double>() - loss(tl::tensor(down)).item<double>()) / 2e-6;
    EXPECT_NEAR(gs[i], diff, 1e-6) << i;
  }
  // Forward mode, and the second derivative through the vjp rule's own ops.
  const Tensor v = tl::ones({5}, tl::DType::f64);
  auto [y, t] = tl::jvp([&](const Tensor& a) { return k(a); }, x, v);
  EXPECT_TRUE(tl::allclose(t, x * x * 1.5, 1e-12, 0));
  const Tensor second = tl::grad([&](const Tensor& a) { return tl::sum(tl::grad(loss)(a)); })(x);
  const Tensor second_want = tl::grad([](const Tensor& a) {
    return tl::sum(tl::grad([](const Tensor& b) { return tl::sum(tl::sin(composed_cube(b))); })(a));
  })(x);
  EXPECT_TRUE(tl::allclose(second, second_want, 1e-10, 1e-10));
  // tl::check_custom_rule: both rules against central differences of the kernel; a
  // vjp off by a factor is caught.
  const auto report = tl::check_custom_rule(k, x);
  EXPECT_TRUE(report.ok) << report.detail << " " << report.max_rel_error;
  const tl::Kernel off =
      tl::kernel("test.cube_off")
          .shape(same_as_first)
          .cpu([](const tl::KernelCall& call) {
            const double* a = call.arg(0).data<double>();
            double* out = call.result<double>(0);
            for (std::int64_t i = 0; i < call.arg(0).numel(); ++i) out[i] = 0.5 * a[i] * a[i] * a[i];
          })
          .vjp([](const tl::KernelGrad& rule) {
            return std::vector<Tensor>{rule.cotangent(0) * rule.arg(0) * rule.arg(0)};  // 1.5 is right
          });
  const auto caught = tl::check_custom_rule(off, x);
  EXPECT_FALSE(caught.ok);
  EXPECT_NE(caught.detail.find("<vjp(u), v>"), std::string::npos) << caught.detail;
}

TEST(Kernel, LowersToACustomCallThatReadsBackAndRuns) {
  const tl::Kernel k = cube("test.cube_text");
  const Tensor x = data(3, {2, 3});
  const std::vector<tl::ir::TensorType> types{{x.dtype(), x.shape()}};
  const std::string text = tl::stablehlo::to_text(
      tl::ir::trace("main", types, [&](std::span<const Tensor> a) { return std::vector<Tensor>{k(a[0])}; }));
  EXPECT_NE(
      text.find(
          "stablehlo.custom_call @test.cube_text(%arg0) {api_version = 4 : i32, backend_config = {k = "),
      std::string::npos)
      << text;
  EXPECT_NE(text.find(" : f64}"), std::string::npos) << text;
  const std::vector<Tensor> back = tl::interp::Program(tl::stablehlo::parse(text)).run({x});
  EXPECT_EQ(back.at(0).to_vector<double>(), k(x).to_vector<double>());
  // The generic form reads back to the same program.
  EXPECT_EQ(tl::stablehlo::to_text(tl::stablehlo::parse(
                tl::stablehlo::to_text(tl::stablehlo::parse(text), {.generic = true, .module_name = {}}))),
            text);
  // A Session of the interpreter runs it. A .cpu kernel runs in this process only:
  // Tlaloc's PJRT CPU plugin keeps targets of its own and does not know it, which it
  // says by name (a kernel given as an XLA FFI handler is registered with it).
  const tl::runtime::Session here;
  EXPECT_EQ(here.compile(text).run(std::vector<Tensor>{x}).at(0).to_vector<double>(),
            k(x).to_vector<double>());
  const tl::runtime::Session plugin(
      {.backend = tl::runtime::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN});
  tltest::expect_error_with<tl::Error>(
      [&] { (void)plugin.compile(text).run(std::vector<Tensor>{x}); },
      {"custom_call @test.cube_text", "not a target the host interpreter knows"});
}

TEST(Kernel, AnXlaFfiHandlerInCRunsEverywhereAndThroughTheCpuPluginsFfiExtension) {
  const tl::Kernel k = affine("test.ffi_affine");
  const Tensor x = data(5, {3, 4});
  EXPECT_TRUE(tl::allclose(k(x), composed_affine(x), 1e-15, 0));
  const auto jitted = tl::jit([&](const Tensor& v) { return k(v) * 2.0; });
  EXPECT_TRUE(tl::allclose(jitted(x), composed_affine(x) * 2.0, 1e-15, 0));
  const Tensor g = tl::grad([&](const Tensor& v) { return tl::sum(tl::sin(k(v))); })(x);
  const Tensor want = tl::grad([](const Tensor& v) { return tl::sum(tl::sin(composed_affine(v))); })(x);
  EXPECT_TRUE(tl::allclose(g, want, 1e-12, 1e-12)) << g << want;
  // The program calling it, run by the interpreter and by Tlaloc's CPU plugin, with
  // which the Session registers the handler through PJRT's FFI extension.
  const std::string text = program_calling(k, x);
  EXPECT_NE(text.find("label = \"affine\""), std::string::npos) << text;
  const std::vector<double> eager = k(x).to_vector<double>();
  const tl::runtime::Session here;
  EXPECT_EQ(here.compile(text).run(std::vector<Tensor>{x}).at(0).to_vector<double>(), eager);
  const tl::runtime::Session plugin(
      {.backend = tl::runtime::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN});
  EXPECT_EQ(plugin.compile(text).run(std::vector<Tensor>{x}).at(0).to_vector<double>(), eager);
}

TEST(Kernel, AnFfiHandlersErrorIsNamedAndTheProcessGoesOn) {
  const Tensor x = data(6, {4});
  const tl::Kernel refuses = tl::kernel("test.ffi_refuses").shape(same_as_first).ffi(test_ffi_refuses);
  tltest::expect_error_with<tl::Error>(
      [&] { (void)refuses(x); },
      {"tl::kernel('test.ffi_refuses')", "XLA FFI handler failed (FAILED_PRECONDITION)",
       "the handler refuses 1 values"});
  const tl::runtime::Session plugin(
      {.backend = tl::runtime::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN});
  const std::string text = program_calling(refuses, x);
  tltest::expect_error_with<tl::Error>(
      [&] { (void)plugin.compile(text).run(std::vector<Tensor>{x}); },
      {"custom_call @test.ffi_refuses", "FAILED_PRECONDITION", "the handler refuses 1 values"});
  // The handler checks its attributes and says what it misses.
  const tl::Kernel unlabelled = tl::kernel("test.ffi_unlabelled")
                                    .shape(same_as_first)
                                    .ffi(test_ffi_affine)
                                    .attr("scale", 1.0)
                                    .attr("offset", 0.0)
                                    .attr("negate", false)
                                    .attr("copies", std::int64_t{1});
  tltest::expect_error_with<tl::Error>([&] { (void)unlabelled(x); },
                                       {"INVALID_ARGUMENT", "needs label = \"affine\""});
  // Both kinds of host implementation at once, or none, are refused.
  tltest::expect_error_with<tl::ValueError>(
      [] { (void)tl::kernel("test.ffi_both").ffi(test_ffi_affine).cpu([](const tl::KernelCall&) {}); },
      {"tl::kernel('test.ffi_both')", "give .cpu or .ffi"});
  tltest::expect_error_with<tl::ValueError>([] { (void)tl::kernel("test.ffi_null").ffi(nullptr); },
                                            {"tl::kernel('test.ffi_null')", "null handler"});
  // The process goes on: the plugin and the kernels still run.
  const tl::Kernel k = affine("test.ffi_after");
  EXPECT_EQ(plugin.compile(program_calling(k, x)).run(std::vector<Tensor>{x}).at(0).to_vector<double>(),
            k(x).to_vector<double>());
}

TEST(Kernel, ACudaImplementationIsReadFromPtxAndRefusedWhereNoCudaRuns) {
  const std::filesystem::path ptx = std::filesystem::path(::testing::TempDir()) / "kernel_test.ptx";
  std::ofstream(ptx) << ".version 8.0\n.target sm_80\n// a stand-in: read, never loaded on the host\n";
  const auto launch = [](std::span<const tl::TensorType> in, const tl::KernelAttrs&) {
    return tl::CudaLaunch{.grid = {static_cast<std::uint32_t>(in[0].shape[0]), 1, 1}, .block = {32, 1, 1}};
  };
  tltest::expect_error_with<tl::IOError>(
      [&] { (void)tl::kernel("test.cuda_missing").cuda(ptx.string() + ".absent", "k", launch); },
      {"tl::kernel('test.cuda_missing')", "cannot read the PTX file", ".absent"});
  tltest::expect_error_with<tl::ValueError>(
      [&] { (void)tl::kernel("test.cuda_no_entry").cuda(ptx, "", launch); },
      {"needs an entry name and a launch rule"});
  const tl::Kernel k = tl::kernel("test.cuda_only").shape(same_as_first).cuda(ptx, "k", launch);
  const Tensor x = data(7, {4});
  // Without a host implementation the host refuses it by name, and so does a CPU plugin.
  tltest::expect_error_with<tl::Error>([&] { (void)k(x); },
                                       {"tl::kernel('test.cuda_only')", "no host implementation"});
  const tl::runtime::Session plugin(
      {.backend = tl::runtime::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN});
  tltest::expect_error_with<tl::Error>([&] { (void)plugin.compile(program_calling(k, x)); },
                                       {"kernel 'test.cuda_only'", "no XLA FFI handler for it (.ffi)"});
  // Its CUDA handler, called by a runtime that has no CUDA stream to give (the host's),
  // says so by name instead of launching.
  const tl::detail::CustomCallTarget* target = tl::detail::find_custom_call_target("test.cuda_only");
  ASSERT_NE(target, nullptr);
  ASSERT_NE(target->ffi.cuda, nullptr);
  // Asked for its metadata, as recent XLA asks a handler it registers, it answers.
  tlaloc_ffi_metadata metadata{};
  tlaloc_ffi_metadata_extension question{{sizeof question, TLALOC_FFI_EXTENSION_METADATA, nullptr},
                                         &metadata};
  tlaloc_ffi_call_frame frame{};
  frame.extension_start = &question.extension_base;
  EXPECT_EQ(target->ffi.cuda(&frame), nullptr);
  EXPECT_EQ(metadata.api_version.major_version, TLALOC_FFI_API_MAJOR);
  EXPECT_EQ(metadata.api_version.minor_version, TLALOC_FFI_API_MINOR);
  std::vector<Tensor> results{tl::zeros({4}, tl::DType::f64)};
  tltest::expect_error_with<tl::Error>(
      [&] { tl::detail::call_ffi_handler(target->ffi.cuda, "cuda", std::vector<Tensor>{x}, results, {}); },
      {"tl::kernel('test.cuda_only'): on CUDA", "no CUDA stream", "XLA_FFI_Stream_Get"});
}

TEST(Kernel, MistakesAreNamed) {
  const tl::Kernel k = cube("test.cube_mistakes");
  const Tensor x = data(4, {3});
  (void)k(x);
  tltest::expect_error_with<tl::ValueError>([] { (void)tl::kernel("test.cube_mistakes"); },
                                            {"tl::kernel('test.cube_mistakes')", "another kernel"});
  try {
    (void)tl::kernel("test.cube_mistakes");
  } catch (const tl::ValueError& e) {  // the message starts with the kernel's name, once
    EXPECT_EQ(std::string(e.what()).rfind("tl::kernel('test.cube_mistakes'): ", 0), 0U) << e.what();
  }
  tl::Kernel edited = k;
  tltest::expect_error_with<tl::Error>([&] { edited.attr("k", 1.0); },
                                       {"test.cube_mistakes", "declare it whole before its first call"});
  const tl::Kernel plain =
      tl::kernel("test.no_rule").shape(same_as_first).cpu([](const tl::KernelCall& call) {
        std::copy_n(call.arg(0).data<double>(), call.arg(0).numel(), call.result<double>(0));
      });
  tltest::expect_error_with<tl::NotDifferentiableError>(
      [&] { (void)tl::grad([&](const Tensor& v) { return tl::sum(plain(v)); })(x); },
      {"custom_call @test.no_rule", "has no reverse-mode (vjp) rule"});
  const tl::Kernel throws =
      tl::kernel("test.throws").shape(same_as_first).cpu([](const tl::KernelCall& call) {
        (void)call.attr<std::int64_t>("missing");
      });
  tltest::expect_error_with<tl::Error>([&] { (void)throws(x); },
                                       {"tl::kernel('test.throws')", "failed", "no attribute 'missing'"});
  const tl::Kernel wrong =
      tl::kernel("test.wrong_type").shape(same_as_first).cpu([](const tl::KernelCall& call) {
        (void)call.result<float>(0);
      });
  tltest::expect_error_with<tl::Error>([&] { (void)wrong(x); }, {"result<f32>(0)", "the result is f64"});
  // Printed code reaches kernels by name; a name nothing declared is refused.
  EXPECT_EQ(tl::kernel_named("test.cube_mistakes").name(), "test.cube_mistakes");
  tltest::expect_error_with<tl::ValueError>(
      [] { (void)tl::kernel_named("test.undeclared"); },
      {"tl::kernel('test.undeclared')", "no kernel of this name is declared"});
  const std::string unknown =
      "func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {\n"
      "  %0 = stablehlo.custom_call @test.nowhere(%x) {api_version = 4 : i32} : (tensor<3xf64>) -> "
      "tensor<3xf64>\n"
      "  return %0 : tensor<3xf64>\n}\n";
  // Refused when the program is compiled, before it runs.
  tltest::expect_error_with<tl::Error>(
      [&] { (void)tl::interp::Program(tl::stablehlo::parse(unknown)); },
      {"custom_call @test.nowhere", "not a target the host interpreter knows", "(line 2)", "register it"});
}

}  // namespace
