// Bounded entry points (docs/DYNAMIC_SHAPES.md): one artifact serves every size up to
// its bounds, on the interpreter and through Tlaloc's CPU plugin, with each output equal
// to the function run eagerly at the exact size; buckets compile at their first use;
// the manifest's buckets are checked like its programs; wrong sizes are refused by name.
// (The C and Python runtimes: tests/serve/c_api_inputs.c, test_tlaloc_serve.py.)
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <tlaloc/nn.hpp>
#include <tlaloc/serve.hpp>
#include <tlaloc/tlaloc.hpp>

#include "io/sha256.hpp"
#include "serve/manifest.hpp"
#include "support/expect_error.hpp"
#include "support/nn_files.hpp"

namespace {

namespace tl = tlaloc;
namespace nn = tlaloc::nn;
namespace serve = tlaloc::serve;
namespace rt = tlaloc::runtime;
using tl::Tensor;

const nn::MLP kMlp{.sizes = {4, 8, 3}};

#define EXPECT_REFUSED(stmt, E, ...) tltest::expect_error_with<E>([&] { (void)(stmt); }, {__VA_ARGS__})

void expect_close(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  const std::vector<double> g = got.astype(tl::DType::f64).to_vector<double>();
  const std::vector<double> w = want.astype(tl::DType::f64).to_vector<double>();
  for (std::size_t i = 0; i < g.size(); ++i)
    EXPECT_NEAR(g[i], w[i], 1e-5 * std::max(1.0, std::abs(w[i]))) << i;
}

// The mean of the valid rows of each embedded sequence: ids [seq] -> [3].
Tensor pooled(const nn::Params& p, const Tensor& ids) {
  const Tensor rows = tl::take(p.at("layers.0.weight"), ids, 0);  // [seq, 8]
  const Tensor kept = tl::where(tl::valid_mask("seq", 2, 0), rows, 0.0);
  return tl::sum(kept, {0}) / tl::valid_length("seq").astype(tl::DType::f32);
}
Tensor pooled_exact(const nn::Params& p, const Tensor& ids) {
  return tl::mean(tl::take(p.at("layers.0.weight"), ids, 0), {0});
}

std::filesystem::path export_bounded(const std::string& name, const nn::Params& p) {
  const std::filesystem::path dir = tltest::fresh_dir(name);
  serve::Exporter ex(p);
  auto logits = tl::bounded([](const nn::Params& q, const Tensor& x) { return kMlp(q, x); }, {{"batch", 8}},
                            {tl::dims("batch", 4)});
  ex.add("logits", logits, {.inputs = {"x"}, .outputs = {"logits"}}, tl::zeros({3, 4}));
  auto mean = tl::bounded(pooled, {{"seq", 6}}, {tl::dims("seq")});
  mean.buckets("seq", {2, 6});
  ex.add("pooled", mean, {.inputs = {"ids"}, .ranges = {{"ids", {0, 3}}}},
         tl::tensor(std::vector<std::int32_t>{0, 3, 1}));
  ex.add(
      "exact", [](const nn::Params& q, const Tensor& x) { return kMlp(q, x); }, {}, tl::zeros({2, 4}));
  ex.save(dir);
  return dir;
}

class BoundedArtifact : public ::testing::TestWithParam<rt::Backend> {
 protected:
  rt::SessionOptions options() const {
    if (GetParam() == rt::Backend::interpreter) return {};
    return {.backend = rt::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN};
  }
};

TEST_P(BoundedArtifact, EverySizeWithinTheBoundsGivesTheExactResult) {
  const nn::Params p = kMlp.init(tl::random::key(1));
  const std::filesystem::path dir =
      export_bounded(GetParam() == rt::Backend::interpreter ? "bounded_interp" : "bounded_pjrt", p);
  const serve::Model m = serve::Model::load(dir, options());
  const serve::EntryPoint& e = m.entry_point("logits");
  ASSERT_EQ(e.bounded.size(), 1u);
  EXPECT_EQ(e.bounded[0].ladder, (std::vector<std::int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(e.inputs.at(0).dims, (std::vector<std::string>{"batch", ""}));
  EXPECT_EQ(e.inputs.at(0).shape, (tl::Shape{8, 4}));
  EXPECT_EQ(e.outputs.at(0).dims, (std::vector<std::string>{"batch", ""}));
  EXPECT_EQ(m.compiled_programs("logits"), 0u);
  const Tensor all = tl::random::normal(tl::random::key(2), {8, 4});
  for (std::int64_t n : {3, 1, 4, 7}) {
    const Tensor x = tl::slice(all, 0, 0, n);
    expect_close(m.run("logits", {x}).at(0), kMlp(p, x));
  }
  EXPECT_EQ(m.compiled_programs("logits"), 3u);  // buckets 4, 1 and 8
  EXPECT_EQ(m.compiled_programs("exact"), 1u);
  const Tensor ids = tl::tensor(std::vector<std::int32_t>{3, 0, 2, 2, 1});
  for (std::int64_t n = 1; n <= 5; ++n) {
    const Tensor some = tl::slice(ids, 0, 0, n);
    expect_close(m.run("pooled", {some}).at(0), pooled_exact(p, some));
  }
  EXPECT_REFUSED(m.run("logits", {tl::zeros({9, 4})}), tl::ShapeError,
                 "entry point 'logits': tl::bounded: dimension 'batch' is 9, over its bound 8");
  EXPECT_REFUSED(m.run("logits", {tl::zeros({2, 5})}), tl::ShapeError, "does not fit");
  EXPECT_REFUSED(m.run("logits", {tl::zeros({2, 4}, tl::DType::f64)}), tl::DTypeError, "input 'x' is f64");
  EXPECT_REFUSED(m.run("pooled", {tl::tensor(std::vector<std::int32_t>{0, 4})}), tl::ValueError,
                 "holds 4 (element 1), outside its range [0, 3]");
  const rt::Buffer b = m.session().to_device(tl::zeros({2, 4}));
  EXPECT_REFUSED(m.run("logits", std::vector<rt::Buffer>{b}), tl::ValueError,
                 "entry point 'logits' is bounded");
}

INSTANTIATE_TEST_SUITE_P(Backends, BoundedArtifact,
                         ::testing::Values(rt::Backend::interpreter, rt::Backend::pjrt),
                         [](const ::testing::TestParamInfo<rt::Backend>& p) {
                           return std::string(p.param == rt::Backend::pjrt ? "pjrt" : "interpreter");
                         });

TEST(BoundedArtifactFiles, OneProgramPerBucketAndVersion3) {
  const nn::Params p = kMlp.init(tl::random::key(3));
  const std::filesystem::path dir = export_bounded("bounded_files", p);
  std::ifstream in(dir / "manifest.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j.at("schema_version"), 3);
  const nlohmann::json& logits = j.at("entry_points").at(0);
  EXPECT_EQ(logits.at("program"), "programs/logits.mlir");
  ASSERT_EQ(logits.at("buckets").size(), 3u);
  EXPECT_EQ(logits.at("buckets").at(0).at("program"), "programs/logits.batch-1.mlir");
  for (const auto& b : logits.at("buckets"))
    EXPECT_TRUE(std::filesystem::exists(dir / b.at("program").get<std::string>()));
  // An artifact of exact entry points only is still written as version 2.
  const std::filesystem::path exact = tltest::fresh_dir("bounded_exact_only");
  serve::export_function(
      exact, "f", p, [](const nn::Params& q, const Tensor& x) { return kMlp(q, x); }, {}, tl::zeros({2, 4}));
  std::ifstream in2(exact / "manifest.json");
  EXPECT_EQ(nlohmann::json::parse(in2).at("schema_version"), 2);
}

TEST(BoundedArtifactFiles, DamagedBucketsAreRefusedBeforeAnythingRuns) {
  const nn::Params p = kMlp.init(tl::random::key(4));
  const std::filesystem::path dir = export_bounded("bounded_damage", p);
  { std::ofstream(dir / "programs/logits.batch-2.mlir", std::ios::app) << "\n// edited\n"; }
  EXPECT_REFUSED(serve::Model::load(dir), serve::ArtifactError, "logits.batch-2.mlir", "SHA-256");
  const std::filesystem::path dir2 = export_bounded("bounded_damage2", p);
  std::ifstream in(dir2 / "manifest.json");
  nlohmann::json j = nlohmann::json::parse(in);
  j["entry_points"][0]["buckets"].erase(1);
  std::ofstream(dir2 / "manifest.json") << j.dump(2);
  EXPECT_REFUSED(serve::Model::load(dir2), serve::ArtifactError,
                 "lists 2 bucket programs, its ladders make 3");
}

TEST(BoundedArtifactFiles, ExportRefusesWhatReadsPaddedPositions) {
  const nn::Params p = kMlp.init(tl::random::key(5));
  serve::Exporter ex(p);
  // The mean over the bucket, not over the valid rows.
  auto careless = tl::bounded([](const nn::Params& q, const Tensor& x) { return tl::mean(kMlp(q, x), {0}); },
                              {{"batch", 8}}, {tl::dims("batch", 4)});
  EXPECT_REFUSED(ex.add("careless", careless, {}, tl::ones({3, 4})), tl::ValueError,
                 "check_padding: result 0 ('output0') differs at element [0]", "padded to batch=4");
  EXPECT_TRUE(ex.entry_points().empty());
}

}  // namespace
