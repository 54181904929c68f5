// serve_fixture DIR: exports a small MLP's logits as an artifact into DIR and writes
// an input (DIR/x.bin) and the MLP's own output on it, computed eagerly
// (DIR/expected.bin), raw f32, for the C and Python runtimes' tests. A second entry
// point, "row", takes elements of the first bias at i32 indices declared to lie in
// [0, 15] (DIR/row_expected.bin: elements 3 and 15, computed eagerly).
//
// serve_fixture DIR bounded: the same MLP with a bounded batch instead (entry point
// "logits", x f32[batch <= 8, 6], powers-of-two buckets) and "mean", the mean of the
// valid rows of x f32[seq <= 8, 6] (buckets 2, 8); DIR/x8.bin holds 8 rows of input and
// DIR/expected8.bin the MLP's output on them, computed eagerly.
#include <cstdio>
#include <fstream>
#include <tlaloc/nn.hpp>
#include <tlaloc/serve.hpp>
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

namespace {

void write_raw(const std::string& path, const tl::Tensor& t) {
  const std::vector<float> v = t.to_vector<float>();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * 4));
}

void write_bounded(const std::string& dir, const tl::nn::MLP& mlp, const tl::nn::Params& p) {
  tl::serve::Exporter ex(p);
  auto logits = tl::bounded([&mlp](const tl::nn::Params& q, const tl::Tensor& x) { return mlp(q, x); },
                            {{"batch", 8}}, {tl::dims("batch", 6)});
  ex.add("logits", logits, {.inputs = {"x"}, .outputs = {"logits"}}, tl::zeros({3, 6}));
  auto mean = tl::bounded(
      [](const tl::nn::Params&, const tl::Tensor& x) {
        const tl::Tensor kept = tl::where(tl::valid_mask("seq", 2, 0), x, 0.0);
        return tl::sum(kept, {0}) / tl::valid_length("seq").astype(tl::DType::f32);
      },
      {{"seq", 8}}, {tl::dims("seq", 6)});
  mean.buckets("seq", {2, 8});
  ex.add("mean", mean, {.inputs = {"x"}, .outputs = {"mean"}}, tl::ones({3, 6}));
  ex.save(dir);
  const tl::Tensor x = tl::random::normal(tl::random::key(9), {8, 6});
  write_raw(dir + "/x8.bin", x);
  write_raw(dir + "/expected8.bin", mlp(p, x));
}

}  // namespace

int main(int argc, char** argv) {
  const bool bounded = argc == 3 && std::string(argv[2]) == "bounded";
  if (argc != 2 && !bounded) {
    std::fprintf(stderr, "usage: serve_fixture DIR [bounded]\n");
    return 2;
  }
  const tl::nn::MLP mlp{.sizes = {6, 16, 4}, .activation = [](const tl::Tensor& x) { return tl::tanh(x); }};
  const tl::nn::Params p = mlp.init(tl::random::key(7));
  if (bounded) {
    write_bounded(argv[1], mlp, p);
    return 0;
  }
  tl::serve::Exporter ex(p);
  ex.add("logits", [&mlp](const tl::nn::Params& q, const tl::Tensor& x) { return mlp(q, x); },
         {.inputs = {"x"}, .outputs = {"logits"}}, tl::zeros({3, 6}));
  ex.add(
      "row", [](const tl::nn::Params& q, const tl::Tensor& i) { return tl::take(q.at("layers.0.bias"), i); },
      {.inputs = {"index"}, .ranges = {{"index", {0, 15}}}}, tl::zeros({2}, tl::DType::i32));
  ex.save(argv[1]);
  const tl::Tensor x = tl::random::normal(tl::random::key(8), {3, 6});
  write_raw(std::string(argv[1]) + "/x.bin", x);
  write_raw(std::string(argv[1]) + "/expected.bin", mlp(p, x));
  write_raw(std::string(argv[1]) + "/row_expected.bin",
            tl::take(p.at("layers.0.bias"), tl::tensor(std::vector<std::int32_t>{3, 15})));
  return 0;
}
