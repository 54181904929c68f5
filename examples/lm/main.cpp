// Tlaloc example: a small decoder-only language model learns the bytes of a licence
// text, is exported as an artifact with prefill and decode entry points over a KV
// cache, and generates text greedily from a prompt through that artifact. The same
// generation run eagerly, with DecoderLM::cached on host tensors and with the whole
// sequence through the model for each token, must give the same ids.
//
//   lm [--text FILE] [--out DIR] [--steps N] [--prompt TEXT] [--tokens N] [--load]
//      [--plugin PATH] [--check LOSS] [--ids FILE] [--trace FILE] [--sweep]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "generate.hpp"
#include "train.hpp"

namespace {

namespace fs = std::filesystem;

struct Options {
  fs::path text = "/usr/share/common-licenses/GPL-3";
  fs::path out = "lm-out";
  lm::TrainOptions train;
  std::string prompt = "This program is ";
  std::int64_t tokens = 60;
  bool load = false;
  std::string plugin;  // empty: the interpreter backend
  std::optional<double> check;
  fs::path ids;  // empty: the ids are only printed
  fs::path trace;  // empty: none
  bool sweep = false;
};

constexpr std::string_view kUsage =
    "usage: lm [--text FILE] [--out DIR] [--steps N] [--prompt TEXT] [--tokens N] [--load]\n"
    "          [--plugin PATH] [--check LOSS] [--ids FILE] [--trace FILE] [--sweep]\n"
    "  --text FILE    the training text (default: /usr/share/common-licenses/GPL-3)\n"
    "  --out DIR      where the checkpoint (DIR/checkpoint.safetensors) and the artifact\n"
    "                 (DIR/artifact) go (default: lm-out)\n"
    "  --steps N      training steps of 16 windows of 64 bytes (default: 300)\n"
    "  --prompt TEXT  where generation starts (default: 'This program is ')\n"
    "  --tokens N     bytes to generate (default: 60)\n"
    "  --load         skip training: generate from DIR's checkpoint and artifact\n"
    "  --plugin PATH  run the artifact on this PJRT plugin (default: Tlaloc's interpreter)\n"
    "  --check LOSS   exit with status 1 unless the final training loss (mean of the last\n"
    "                 10 steps) is below LOSS; with or without it, the status is 1 when the\n"
    "                 artifact's ids differ from either eager generation's\n"
    "  --ids FILE     also write the artifact's ids (prompt, then generated) to FILE, one\n"
    "                 line of decimal numbers: what the C and Python loops are compared with\n"
    "  --trace FILE   write the model's sizes, the weights' file, the prompt, the artifact's\n"
    "                 ids and each generation step's logits as JSON (for an outside check)\n"
    "  --sweep        instead of one prompt, every prompt length from 1 to prefill's bound\n"
    "                 (prefixes of the prompt, repeated): the artifact's ids must equal the\n"
    "                 eager exact-size ones, and prefill must compile once per bucket used\n";

[[noreturn]] void usage_error(const std::string& what) {
  std::cerr << "lm: " << what << "\n" << kUsage;
  std::exit(2);
}

double parse_number(const std::string& flag, const std::string& text, double lo, double hi, bool whole) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(v >= lo && v <= hi) || (whole && v != std::floor(v)))
    usage_error(flag + " needs " + (whole ? "a whole number" : "a number") + " in " + std::to_string(lo) +
                ".." + std::to_string(hi) + ", got '" + text + "'");
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (flag == "--load" || flag == "--sweep") {
      (flag == "--load" ? o.load : o.sweep) = true;
      continue;
    }
    const bool known = flag == "--text" || flag == "--out" || flag == "--steps" || flag == "--prompt" ||
                       flag == "--tokens" || flag == "--check" || flag == "--plugin" || flag == "--ids" ||
                       flag == "--trace";
    if (!known) usage_error("unknown option '" + flag + "'");
    if (i + 1 >= argc) usage_error(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--text") o.text = value;
    if (flag == "--out") o.out = value;
    if (flag == "--prompt") o.prompt = value;
    if (flag == "--plugin") o.plugin = value;
    if (flag == "--ids") o.ids = value;
    if (flag == "--trace") o.trace = value;
    if (flag == "--steps")
      o.train.steps = static_cast<std::int64_t>(parse_number(flag, value, 1, 100000, true));
    if (flag == "--tokens") o.tokens = static_cast<std::int64_t>(parse_number(flag, value, 1, 100000, true));
    if (flag == "--check") o.check = parse_number(flag, value, 0, 1000, false);
  }
  return o;
}

// The model of this example: byte vocabulary, 2 blocks of grouped-query attention.
const tlaloc::nn::DecoderLM kModel{
    .vocab = 256, .d_model = 64, .num_layers = 2, .num_heads = 4, .num_kv_heads = 2, .d_ff = 128};

std::string text_of(const lm::Ids& ids, std::size_t from) {
  std::string s;
  for (std::size_t i = from; i < ids.size(); ++i) s += static_cast<char>(ids[i]);
  return s;
}

void print_ids(const char* label, const lm::Ids& ids) {
  std::printf("%s", label);
  for (std::int32_t id : ids) std::printf(" %d", id);
  std::printf("\n");
}

void write_ids(const fs::path& file, const lm::Ids& ids) {
  std::ofstream f(file);
  for (std::size_t i = 0; i < ids.size(); ++i) f << (i ? " " : "") << ids[i];
  f << "\n";
  if (!f) throw tlaloc::ValueError("lm: cannot write the ids to " + file.string());
}

// What an independent implementation needs to repeat the generation: the model's
// sizes (the norms' eps and the rotary base of its blocks), the weights the artifact
// serves, the prompt, and the artifact's ids and logits of each step.
void write_trace(const fs::path& path, const fs::path& weights, const lm::Ids& prompt, const lm::Ids& ids,
                 const std::vector<std::vector<float>>& logits) {
  std::ofstream f(path);
  if (!f) throw tlaloc::ValueError("lm: cannot write the trace " + path.string());
  const tlaloc::nn::TransformerBlock b = kModel.block();
  f << "{\"vocab\": " << kModel.vocab << ", \"d_model\": " << kModel.d_model
    << ", \"num_layers\": " << kModel.num_layers << ", \"num_heads\": " << kModel.num_heads
    << ", \"num_kv_heads\": " << kModel.num_kv_heads << ", \"d_ff\": " << kModel.d_ff << ",\n \"eps\": " << b.eps
    << ", \"base\": " << b.rotary_base << ", \"weights\": \"" << weights.string() << "\",\n";
  const auto list = [&f](const auto& v) {
    f << "[";
    for (std::size_t i = 0; i < v.size(); ++i) f << (i ? ", " : "") << v[i];
    f << "]";
  };
  f << " \"prompt\": ";
  list(prompt);
  f << ",\n \"ids\": ";
  list(ids);
  f << ",\n \"logits\": [";
  f.precision(9);  // round-trips f32
  for (std::size_t i = 0; i < logits.size(); ++i) {
    f << (i ? ",\n  " : "\n  ");
    list(logits[i]);
  }
  f << "]}\n";
  if (!f) throw tlaloc::ValueError("lm: writing the trace " + path.string() + " failed");
}

// Every prompt length up to prefill's bound through the artifact (one bounded entry
// point, padded to its buckets) against the eager generation at the exact size.
bool sweep(const tlaloc::serve::Model& model, const lm::ArtifactGenerator& generator,
           const tlaloc::nn::Params& params, const Options& o) {
  const std::int64_t bound = generator.shape().buckets.back();
  std::string text = o.prompt;
  while (static_cast<std::int64_t>(text.size()) < bound) text += o.prompt;
  std::int64_t equal = 0;
  for (std::int64_t n = 1; n <= bound; ++n) {
    const lm::Ids prompt = lm::byte_tokens(text.substr(0, std::size_t(n))).to_vector<std::int32_t>();
    const std::int64_t count = std::min(o.tokens, generator.shape().capacity - n);
    if (generator.generate(prompt, count) ==
        lm::generate_eager(kModel, params, prompt, count, generator.shape().capacity))
      ++equal;
    else
      std::fprintf(stderr, "lm: --sweep: a prompt of %lld bytes gives other ids than the eager run\n",
                   static_cast<long long>(n));
  }
  const std::size_t compiled = model.compiled_programs("prefill"), buckets = generator.shape().buckets.size();
  std::printf(
      "prefill over prompts of 1..%lld bytes: ids equal to the exact-size eager run for %lld; prefill "
      "compiled %zu programs for its %zu buckets\n",
      static_cast<long long>(bound), static_cast<long long>(equal), compiled, buckets);
  return equal == bound && compiled == buckets;
}

int run(const Options& o) {
  const fs::path checkpoint = o.out / "checkpoint.safetensors", artifact = o.out / "artifact";
  const lm::ServeShape shape;
  bool passed = true;
  tlaloc::nn::Params params;
  if (o.load) {
    params = tlaloc::nn::load_checkpoint(checkpoint).model;
  } else {
    const std::string text = lm::read_text(o.text, std::size_t(o.train.seq + 1));
    std::printf("training on %s (%zu bytes): %lld steps of %lld windows of %lld bytes\n", o.text.c_str(),
                text.size(), static_cast<long long>(o.train.steps), static_cast<long long>(o.train.batch),
                static_cast<long long>(o.train.seq));
    std::fflush(stdout);
    const lm::Trained t = lm::train(kModel, text, o.train);
    const double loss = lm::final_loss(t);
    std::printf("final loss %.4f (uniform over bytes: %.4f), %.1f s\n", loss, std::log(256.0), t.seconds);
    if (o.check && !(loss < *o.check)) {
      std::fprintf(stderr, "lm: --check %g failed: the final loss is %.4f\n", *o.check, loss);
      passed = false;
    }
    fs::create_directories(o.out);
    tlaloc::nn::save_checkpoint(checkpoint, t.params, t.optimizer_state, o.train.steps);
    lm::export_artifact(kModel, t.params, shape, artifact);
    params = t.params;
  }
  namespace tr = tlaloc::runtime;
  const tlaloc::serve::Model model = tlaloc::serve::Model::load(
      artifact, o.plugin.empty() ? tr::SessionOptions{}
                                 : tr::SessionOptions{.backend = tr::Backend::pjrt, .plugin_path = o.plugin});
  const lm::ArtifactGenerator generator(model);
  if (o.sweep) return sweep(model, generator, params, o) ? 0 : 1;
  const lm::Ids prompt = lm::byte_tokens(o.prompt).to_vector<std::int32_t>();
  std::vector<std::vector<float>> logits;
  const lm::Ids ids = generator.generate(prompt, o.tokens, o.trace.empty() ? nullptr : &logits);
  if (!o.trace.empty()) write_trace(o.trace, fs::absolute(artifact / "weights.safetensors"), prompt, ids, logits);
  const lm::Ids eager = lm::generate_eager(kModel, params, prompt, o.tokens, generator.shape().capacity);
  const lm::Ids uncached = lm::generate_uncached(kModel, params, prompt, o.tokens);
  print_ids("ids:", ids);
  if (!o.ids.empty()) write_ids(o.ids, ids);
  for (const auto& [name, other] :
       {std::pair{"eager (cached)", &eager}, std::pair{"eager (no cache)", &uncached}})
    if (ids != *other) {
      print_ids((std::string(name) + " ids:").c_str(), *other);
      std::fprintf(stderr, "lm: the artifact's greedy ids differ from the %s ones\n", name);
      passed = false;
    }
  std::printf("%s%s\n", o.prompt.c_str(), text_of(ids, prompt.size()).c_str());
  return passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  try {
    return run(options);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::cerr << e.what() << "\n";
    return 1;
  }
}
