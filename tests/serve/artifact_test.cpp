// Artifacts (tl::serve): exported entry points run after loading with the results of
// the functions they came from; the hashes are SHA-256 as sha256sum computes them;
// every kind of damage is refused by name before anything runs.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iterator>
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
using tl::Tensor;

const nn::MLP kMlp{.sizes = {4, 8, 3}};

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write(const std::filesystem::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

// The MLP's logits, and its logits and softmax as a second entry point.
std::filesystem::path export_mlp(const std::string& name, const nn::Params& p) {
  const std::filesystem::path dir = tltest::fresh_dir(name);
  serve::Exporter ex(p);
  ex.add("logits", [](const nn::Params& q, const Tensor& x) { return kMlp(q, x); },
         {.inputs = {"x"}, .outputs = {"logits"}}, tl::zeros({2, 4}));
  ex.add("probs",
         [](const nn::Params& q, const Tensor& x) {
           const Tensor z = kMlp(q, x);
           return std::vector<Tensor>{z, tl::softmax(z)};
         },
         {}, tl::zeros({5, 4}));
  ex.save(dir);
  return dir;
}

TEST(Artifact, EntryPointsGiveTheFunctionsResults) {
  const nn::Params p = kMlp.init(tl::random::key(1));
  const std::filesystem::path dir = export_mlp("artifact_run", p);
  const serve::Model m = serve::Model::load(dir);
  EXPECT_EQ(m.entry_point_names(), (std::vector<std::string>{"logits", "probs"}));
  EXPECT_EQ(m.entry_point("logits").inputs.at(0).name, "x");
  EXPECT_EQ(m.entry_point("probs").outputs.at(1).name, "output1");
  EXPECT_EQ(m.entry_point("logits").weights, p.names());

  const Tensor x = tl::random::normal(tl::random::key(2), {2, 4});
  EXPECT_EQ(m.run("logits", {x}).at(0).to_vector<float>(), kMlp(p, x).to_vector<float>());
  const Tensor x5 = tl::random::normal(tl::random::key(3), {5, 4});
  const std::vector<Tensor> r = m.run("probs", {x5});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].to_vector<float>(), tl::softmax(kMlp(p, x5)).to_vector<float>());

  // Device buffers in and out; a donated input is consumed.
  const tl::runtime::Buffer in[] = {m.session().to_device(x)};
  const std::vector<tl::runtime::Buffer> out = m.run("logits", in, {.donate = {0}});
  EXPECT_FALSE(in[0].valid());
  EXPECT_EQ(out.at(0).to_host().to_vector<float>(), kMlp(p, x).to_vector<float>());
  std::filesystem::remove_all(dir);
}

// One call exports a function; loading it gives the function's results.
TEST(Artifact, OneCallExportsAFunction) {
  const nn::Params p = kMlp.init(tl::random::key(4));
  const std::filesystem::path dir = tltest::fresh_dir("artifact_one_call");
  serve::export_function(dir, "logits", p, [](const nn::Params& q, const Tensor& x) { return kMlp(q, x); },
                         {.inputs = {"x"}}, tl::zeros({3, 4}));
  const Tensor x = tl::random::normal(tl::random::key(5), {3, 4});
  EXPECT_EQ(serve::Model::load(dir).run("logits", {x}).at(0).to_vector<float>(), kMlp(p, x).to_vector<float>());
  std::filesystem::remove_all(dir);
}

// Entries whose inputs are narrow or complex: the manifest names every dtype, and the
// served program computes what the function does.
TEST(Artifact, ExportsNarrowAndComplexInputs) {
  const std::filesystem::path dir = tltest::fresh_dir("artifact_narrow_complex");
  serve::Exporter ex(nn::Params{});
  const auto twice = [](const nn::Params&, const Tensor& x) { return tl::add(x, x); };
  ex.add("f8", twice, {.inputs = {"x"}}, tl::zeros({3}, tl::DType::f8e4m3fn));
  ex.add("i4", twice, {.inputs = {"x"}}, tl::zeros({3}, tl::DType::i4));
  ex.add("c64", twice, {.inputs = {"x"}}, tl::zeros({2}, tl::DType::c64));
  ex.save(dir);
  const serve::Model m = serve::Model::load(dir);
  // 1.125 + 1.125 = 2.25 in f8e4m3fn; 5 + 5 wraps to -6 in i4.
  const Tensor f = tl::tensor<float>({0.5f, 1.125f, -3.0f}, {3}).astype(tl::DType::f8e4m3fn);
  EXPECT_EQ(m.run("f8", {f}).at(0).to_vector<float>(), (std::vector<float>{1.0f, 2.25f, -6.0f}));
  const Tensor i = tl::tensor(std::vector<std::int32_t>{5, -1, 3}).astype(tl::DType::i4);
  EXPECT_EQ(m.run("i4", {i}).at(0).to_vector<std::int32_t>(), (std::vector<std::int32_t>{-6, -2, 6}));
  const Tensor z = tl::lax::complex(tl::tensor<float>({1, 2}, {2}), tl::tensor<float>({-1, 0.5f}, {2}));
  const Tensor got = m.run("c64", {z}).at(0);
  EXPECT_EQ(tl::lax::real(got).to_vector<float>(), (std::vector<float>{2, 4}));
  EXPECT_EQ(tl::lax::imag(got).to_vector<float>(), (std::vector<float>{-2, 1}));
  std::filesystem::remove_all(dir);
}

// The same artifact served through Tlaloc's PJRT plugin: the same bits.
TEST(Artifact, RunsOnThePjrtPlugin) {
  const nn::Params p = kMlp.init(tl::random::key(1));
  const std::filesystem::path dir = export_mlp("artifact_pjrt", p);
  const serve::Model m =
      serve::Model::load(dir, {.backend = tl::runtime::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN});
  EXPECT_EQ(m.session().platform_name(), "tlaloc_cpu");
  const Tensor x5 = tl::random::normal(tl::random::key(3), {5, 4});
  const std::vector<Tensor> r = m.run("probs", {x5});
  EXPECT_EQ(r.at(0).to_vector<float>(), kMlp(p, x5).to_vector<float>());
  EXPECT_EQ(r.at(1).to_vector<float>(), tl::softmax(kMlp(p, x5)).to_vector<float>());
  std::filesystem::remove_all(dir);
}

// sha256sum (coreutils) is an implementation of its own.
std::string sha256sum(const std::filesystem::path& file) {
  const std::string cmd = "sha256sum '" + file.string() + "'";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  char buf[65] = {};
  const std::size_t n = pipe ? std::fread(buf, 1, 64, pipe) : 0;
  if (pipe) ::pclose(pipe);
  return std::string(buf, n);
}

TEST(Artifact, ManifestHashesAreTheFilesSha256) {
  const std::filesystem::path dir = export_mlp("artifact_hash", kMlp.init(tl::random::key(1)));
  const std::string manifest = read(dir / "manifest.json");
  EXPECT_NE(manifest.find("\"schema_version\": 2"), std::string::npos);
  for (const char* file : {"weights.safetensors", "programs/logits.mlir", "programs/probs.mlir"}) {
    const std::string hash = sha256sum(dir / file);
    ASSERT_EQ(hash.size(), 64u);
    EXPECT_NE(manifest.find(hash), std::string::npos) << file;
  }
  // The weights open as plain safetensors.
  EXPECT_EQ(nn::load_safetensors(dir / "weights.safetensors").tensors.names(), kMlp.init(tl::random::key(1)).names());
  std::filesystem::remove_all(dir);
}

// Damage to a fresh copy of an exported artifact, and the words its error must hold.
void expect_refused(const std::string& name, const std::function<void(const std::filesystem::path&)>& damage,
                    const std::vector<std::string>& words) {
  const std::filesystem::path dir = export_mlp("artifact_" + name, kMlp.init(tl::random::key(1)));
  damage(dir);
  SCOPED_TRACE(name);
  tltest::expect_error_with<serve::ArtifactError>([&] { (void)serve::Model::load(dir); }, words);
  std::filesystem::remove_all(dir);
}

void replace_in(const std::filesystem::path& file, const std::string& from, const std::string& to) {
  std::string s = read(file);
  const std::size_t at = s.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  write(file, s.replace(at, from.size(), to));
}

// Makes the manifest's hashes match an edit, so that a later check is reached.
void rehash(const std::filesystem::path& dir) {
  const auto manifest = [&] {
    return serve::detail::manifest_from_json(read(dir / "manifest.json"), "manifest.json");
  };
  for (const auto& program : manifest().programs)
    if (const std::string now = sha256sum(dir / program.path); now != program.sha256)
      replace_in(dir / "manifest.json", program.sha256, now);
  const serve::detail::Manifest m = manifest();
  replace_in(dir / "manifest.json", m.content_hash, serve::detail::content_hash(m));
}

TEST(Artifact, RefusesDamagedArtifacts) {
  expect_refused("no_manifest", [](const auto& d) { std::filesystem::remove(d / "manifest.json"); },
                 {"manifest.json", "missing"});
  expect_refused("bad_json", [](const auto& d) { write(d / "manifest.json", "{\"format\": "); },
                 {"manifest.json", "not valid JSON"});
  expect_refused("schema",
                 [](const auto& d) {
                   replace_in(d / "manifest.json", "\"schema_version\": 2", "\"schema_version\": 7");
                 },
                 {"unknown schema version 7", "reads versions 1 to 3"});
  expect_refused("program_changed",
                 [](const auto& d) { replace_in(d / "programs/probs.mlir", "stablehlo.", "stablehlo. "); },
                 {"programs/probs.mlir", "SHA-256", "does not match"});
  expect_refused("weights_changed",
                 [](const auto& d) {
                   std::string w = read(d / "weights.safetensors");
                   w.back() = char(w.back() ^ 1);
                   write(d / "weights.safetensors", w);
                 },
                 {"weights.safetensors", "does not match"});
  expect_refused("no_program", [](const auto& d) { std::filesystem::remove(d / "programs/logits.mlir"); },
                 {"programs/logits.mlir", "missing"});
  expect_refused("hash_list", [](const auto& d) { replace_in(d / "manifest.json", "\"content_hash\": \"", "\"content_hash\": \"0"); },
                 {"content hash does not match"});
  expect_refused("no_tensor",
                 [](const auto& d) {
                   replace_in(d / "manifest.json", "\"layers.1.bias\"", "\"layers.9.bias\"");
                   rehash(d);
                 },
                 {"weight 'layers.9.bias'", "not in the file"});
  expect_refused("escape", [](const auto& d) { replace_in(d / "manifest.json", "\"programs/logits.mlir\"", "\"../logits.mlir\""); },
                 {"leaves the artifact directory"});
}

// Token ids and positions outside what the model holds would be clamped by its
// gather and run: an input's declared range is checked before the program runs.
TEST(Artifact, RefusesValuesOutsideAnInputsRange) {
  const nn::Params p = kMlp.init(tl::random::key(1));
  const std::filesystem::path dir = tltest::fresh_dir("artifact_range");
  const auto row = [](const nn::Params& q, const Tensor& i) { return tl::take(q.at("layers.0.bias"), i); };
  serve::export_function(dir, "row", p, row, {.inputs = {"index"}, .ranges = {{"index", {0, 7}}}},
                         tl::zeros({2}, tl::DType::i32));
  EXPECT_NE(read(dir / "manifest.json").find("\"range\": [\n"), std::string::npos);
  const serve::Model m = serve::Model::load(dir);
  ASSERT_TRUE(m.entry_point("row").inputs.at(0).range.has_value());
  EXPECT_EQ(*m.entry_point("row").inputs.at(0).range, (serve::ValueRange{0, 7}));
  const Tensor ok = tl::tensor(std::vector<std::int32_t>{0, 7});
  EXPECT_EQ(m.run("row", {ok}).at(0).to_vector<float>(),
            tl::take(p.at("layers.0.bias"), ok).to_vector<float>());
  for (const std::vector<std::int32_t>& bad :
       {std::vector<std::int32_t>{3, 8}, std::vector<std::int32_t>{-1, 0}})
    tltest::expect_error<tl::ValueError>([&] { (void)m.run("row", {tl::tensor(bad)}); }, "serve::Model::run",
                                         "entry point 'row' input 'index' holds", "outside its range [0, 7]");
  std::filesystem::remove_all(dir);

  // A range needs an integer input of that name.
  tltest::expect_error<tl::ValueError>(
      [&] {
        serve::export_function(
            dir, "logits", p, [](const nn::Params& q, const Tensor& x) { return kMlp(q, x); },
            {.inputs = {"x"}, .ranges = {{"x", {0, 1}}}}, tl::zeros({2, 4}));
      },
      "serve::Exporter::add", "needs an integer input (it is f32)");
  tltest::expect_error<tl::ValueError>(
      [&] {
        serve::export_function(dir, "row", p, row, {.ranges = {{"idx", {0, 1}}}},
                               tl::zeros({2}, tl::DType::i32));
      },
      "serve::Exporter::add", "has no input 'idx'");
}

// A program that does not parse: the error's position names its file.
TEST(Artifact, ProgramErrorsNameTheFile) {
  const std::filesystem::path dir = export_mlp("artifact_program_broken", kMlp.init(tl::random::key(1)));
  write(dir / "programs/logits.mlir", "module {\n  func.func public @main() {\n    stablehlo.nope\n");
  rehash(dir);
  tltest::expect_error_with<tl::Error>([&] { (void)serve::Model::load(dir); },
                                       {(dir / "programs/logits.mlir").string() + ":3:"});
  std::filesystem::remove_all(dir);
}

// Two weights of one shape swapped in an entry point's list, or an input renamed,
// would load and run: the content hash covers the bindings, names and signatures.
TEST(Artifact, ContentHashCoversWhatRuns) {
  const nn::MLP square{.sizes = {4, 4, 4}};
  const auto export_square = [&](const std::string& name) {
    const std::filesystem::path dir = tltest::fresh_dir(name);
    serve::export_function(
        dir, "logits", square.init(tl::random::key(6)),
        [&](const nn::Params& q, const Tensor& x) { return square(q, x); }, {.inputs = {"x"}},
        tl::zeros({2, 4}));
    return dir;
  };
  const std::vector<std::pair<std::string, std::function<void(const std::filesystem::path&)>>> edits = {
      {"swapped_weights",
       [](const auto& d) {
         replace_in(d / "manifest.json", "\"layers.0.weight\"", "\"swap\"");
         replace_in(d / "manifest.json", "\"layers.1.weight\"", "\"layers.0.weight\"");
         replace_in(d / "manifest.json", "\"swap\"", "\"layers.1.weight\"");
       }},
      {"renamed_input",
       [](const auto& d) { replace_in(d / "manifest.json", "\"name\": \"x\"", "\"name\": \"y\""); }},
      {"renamed_entry",
       [](const auto& d) { replace_in(d / "manifest.json", "\"name\": \"logits\"", "\"name\": \"probs\""); }},
  };
  for (const auto& [name, edit] : edits) {
    SCOPED_TRACE(name);
    const std::filesystem::path dir = export_square("artifact_" + name);
    edit(dir);
    tltest::expect_error_with<serve::ArtifactError>([&] { (void)serve::Model::load(dir); },
                                                    {"manifest.json", "content hash does not match"});
    std::filesystem::remove_all(dir);
  }
}

// Artifacts of schema version 1, whose content hash covers the files only, still load.
TEST(Artifact, ReadsSchemaVersion1) {
  const nn::Params p = kMlp.init(tl::random::key(1));
  const std::filesystem::path dir = export_mlp("artifact_v1", p);
  std::string files;
  for (const char* file : {"weights.safetensors", "programs/logits.mlir", "programs/probs.mlir"})
    files += fmt::format("{} {}\n", file, sha256sum(dir / file));
  const std::string text = read(dir / "manifest.json");
  replace_in(dir / "manifest.json", "\"schema_version\": 2", "\"schema_version\": 1");
  replace_in(dir / "manifest.json", serve::detail::manifest_from_json(text, "manifest.json").content_hash,
             tl::io::sha256_hex(files));
  const serve::Model m = serve::Model::load(dir);
  const Tensor x = tl::random::normal(tl::random::key(2), {2, 4});
  EXPECT_EQ(m.run("logits", {x}).at(0).to_vector<float>(), kMlp(p, x).to_vector<float>());
  std::filesystem::remove_all(dir);
}

// The Python loader refuses the same damage with the same words (test_tlaloc_serve.py,
// BadArtifacts): one rule for both.
TEST(Artifact, ReadsOnlyWhatBothLoadersRead) {
  const std::string nul(1, '\0');
  expect_refused("nul_after_json",
                 [&](const auto& d) { write(d / "manifest.json", read(d / "manifest.json") + nul + "junk"); },
                 {"manifest.json", "not valid JSON (a NUL byte at offset"});
  expect_refused("schema_wide",
                 [](const auto& d) {
                   replace_in(d / "manifest.json", "\"schema_version\": 2", "\"schema_version\": 4294967297");
                 },
                 {"unknown schema version 4294967297", "reads versions 1 to 3"});
  expect_refused(
      "deep_manifest",
      [](const auto& d) { write(d / "manifest.json", std::string(100000, '[') + std::string(100000, ']')); },
      {"manifest.json", "not valid JSON (it nests deeper than 64 levels)"});
  expect_refused("lone_surrogate",
                 [](const auto& d) { replace_in(d / "manifest.json", "\"logits\"", "\"\\ud800\""); },
                 {"manifest.json", "not valid JSON"});
  expect_refused("path_nul",
                 [](const auto& d) {
                   replace_in(d / "manifest.json", "\"weights.safetensors\"",
                              "\"weights.safetensors\\u0000junk\"");
                 },
                 {"path \"weights.safetensors\\u0000junk\" holds a control character"});
  expect_refused("manifest_directory",
                 [](const auto& d) {
                   std::filesystem::remove(d / "manifest.json");
                   std::filesystem::create_directory(d / "manifest.json");
                 },
                 {"manifest.json", "is not a regular file"});
  // A FIFO's open would wait for a writer: refused before any open.
  expect_refused("program_fifo",
                 [](const auto& d) {
                   std::filesystem::remove(d / "programs/logits.mlir");
                   ASSERT_EQ(::mkfifo((d / "programs/logits.mlir").c_str(), 0600), 0);
                 },
                 {"programs/logits.mlir", "is not a regular file"});
  // The same bytes (its hash matches), but outside the artifact.
  const std::filesystem::path outside = tltest::fresh_dir("artifact_outside") / "logits.mlir";
  expect_refused("program_link",
                 [&](const auto& d) {
                   std::filesystem::rename(d / "programs/logits.mlir", outside);
                   std::filesystem::create_symlink(outside, d / "programs/logits.mlir");
                 },
                 {"programs/logits.mlir", "is a link leading out of the artifact directory"});
  std::filesystem::remove_all(outside.parent_path());
}

TEST(Artifact, RefusesWrongInputs) {
  const std::filesystem::path dir = export_mlp("artifact_inputs", kMlp.init(tl::random::key(1)));
  const serve::Model m = serve::Model::load(dir);
  tltest::expect_error<tl::ValueError>([&] { (void)m.run("logits", {tl::zeros({3, 4})}); }, "serve::Model::run",
                                       "input 'x' is f32[3, 4], expected f32[2, 4]");
  tltest::expect_error<tl::ValueError>([&] { (void)m.run("logits", {tl::zeros({2, 4}, tl::DType::f64)}); },
                                       "serve::Model::run", "f64[2, 4]");
  tltest::expect_error<tl::ValueError>([&] { (void)m.run("logits", {}); }, "serve::Model::run", "takes 1 inputs, got 0");
  tltest::expect_error<tl::ValueError>([&] { (void)m.run("decode", {tl::zeros({2, 4})}); }, "serve::Model",
                                       "no entry point 'decode'", "logits, probs");
  serve::Exporter ex(kMlp.init(tl::random::key(1)));
  tltest::expect_error<tl::ValueError>(
      [&] { ex.add("a/b", [](const nn::Params& q, const Tensor& x) { return kMlp(q, x); }, {}, tl::zeros({1, 4})); },
      "serve::Exporter::add", "letters, digits");
  std::filesystem::remove_all(dir);
}

}  // namespace
