// tl::serve: a model as an artifact directory that runs without the training stack.
//
//   dir/manifest.json         schema version, entry points (their weights, inputs and
//                             outputs with dtypes and shapes), and SHA-256 hashes
//   dir/programs/<entry>.mlir StableHLO text of each entry point
//   dir/weights.safetensors   the weights, shared by every entry point
//
// docs/SERVING.md describes the format. Exporting traces functions of (weights,
// inputs...); loading verifies the schema version and every hash before anything
// runs, compiles each program on a runtime::Session and keeps the weights there.
//
//   tl::serve::Exporter ex(params);
//   ex.add("logits", [&](const tl::nn::Params& p, const tl::Tensor& tokens) { return lm(p, tokens); },
//          {.inputs = {"tokens"}, .outputs = {"logits"}}, example_tokens);
//   ex.save("model");
//   tl::serve::Model m = tl::serve::Model::load("model");
//   tl::Tensor logits = m.run("logits", {tokens}).at(0);
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tlaloc/bounded.hpp"
#include "tlaloc/export.hpp"
#include "tlaloc/nn/params.hpp"
#include "tlaloc/runtime.hpp"
#include "tlaloc/tensor.hpp"
#include "tlaloc/transforms.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::serve {

// The newest manifest version: exports write 3 where an entry point has bounded
// dimensions and 2 otherwise; loading reads 1 (its content hash covers the files
// only), 2 and 3 (docs/SERVING.md).
inline constexpr int schema_version = 3;

// A damaged, incomplete or foreign artifact: the message names the file and what is
// wrong with it.
class ArtifactError : public Error {
 public:
  using Error::Error;
};

// The values an integer input may hold, both ends included (token ids below the
// vocabulary's size, positions inside a cache). The loaders refuse any other before
// the program runs: a gather would clamp it silently.
struct ValueRange {
  std::int64_t min = 0;
  std::int64_t max = 0;
  friend bool operator==(const ValueRange&, const ValueRange&) = default;
};

struct TensorSpec {
  std::string name;
  DType dtype = DType::f32;
  Shape shape = {};
  std::optional<ValueRange> range = {};  // integer inputs only
  // Per axis, the bounded dimension it follows, or "" for a fixed axis; empty when
  // every axis is fixed. `shape` then holds the bound on a bounded axis.
  std::vector<std::string> dims = {};
};

struct EntryPoint {
  std::string name;
  std::vector<std::string> weights;  // passed first, in this order
  std::vector<TensorSpec> inputs;    // then these, from the caller
  std::vector<TensorSpec> outputs;
  // Bounded dimensions and their buckets (docs/DYNAMIC_SHAPES.md); empty for an entry
  // point of exact shapes. Each bucket's program takes the weights, one i64 scalar per
  // dimension (its valid length), then the inputs padded to the bucket.
  std::vector<BoundedDim> bounded = {};
};

// Names for an entry point's inputs and outputs ("input<i>" / "output<i>" when
// empty), and the values integer inputs may hold, by input name.
struct EntryNames {
  std::vector<std::string> inputs = {};
  std::vector<std::string> outputs = {};
  std::map<std::string, ValueRange> ranges = {};
};

class Exporter {
 public:
  explicit Exporter(nn::Params weights);

  // Traces f(weights, inputs...) at the example inputs' dtypes and shapes; f returns
  // a Tensor, a std::vector<Tensor> or a tuple of them.
  template <class F, class... In>
  void add(const std::string& name, const F& f, const EntryNames& names, const In&... examples) {
    const tlaloc::detail::FlatCall call = tlaloc::detail::make_call(f, weights_, examples...);
    add_traced(name, call, names);
  }
  // A bounded function of (weights, inputs...): one program per bucket, each checked
  // first on the examples (check_padding: an export whose padded results differ from
  // the exact ones is refused, naming the result and element).
  template <class F, class... In>
  void add(const std::string& name, const tlaloc::detail::BoundedFn<F>& f, const EntryNames& names,
           const In&... examples) {
    const tlaloc::detail::FlatCall call = tlaloc::detail::make_call(f.function(), weights_, examples...);
    add_bounded(name, f.state(), call, tlaloc::detail::bounded_slots(weights_, examples...), names);
  }
  // An entry point already in StableHLO text, taking all the weights first.
  void add_program(const std::string& name, std::string stablehlo_text, const EntryNames& names = {});

  const std::vector<EntryPoint>& entry_points() const { return entries_; }
  // Writes the directory (created if missing). An existing artifact there is replaced
  // as a whole: a crash at any point leaves the old artifact or the new one, and the
  // directory's other files are kept.
  void save(const std::filesystem::path& dir) const;

 private:
  void write_into(const std::filesystem::path& old, const std::filesystem::path& dir) const;
  void add_traced(const std::string& name, const tlaloc::detail::FlatCall& call, const EntryNames& names);
  void add_bounded(const std::string& name, tlaloc::detail::BoundedState& s,
                   const tlaloc::detail::FlatCall& call, std::span<const std::size_t> slots,
                   const EntryNames& names);
  EntryPoint checked_entry(const std::string& name, const std::string& text, const EntryNames& names,
                           std::size_t lengths) const;

  nn::Params weights_;
  std::vector<EntryPoint> entries_;
  std::map<std::string, std::string> programs_;  // at the bounds, for a bounded entry point
  // A bounded entry point's smaller buckets: their sizes and programs.
  std::map<std::string, std::vector<std::pair<std::vector<std::int64_t>, std::string>>> buckets_;
};

// The one-call form: an artifact in `dir` with one entry point traced from
// f(weights, inputs...) at the examples' dtypes and shapes.
template <class F, class... In>
void export_function(const std::filesystem::path& dir, const std::string& name, const nn::Params& weights,
                     const F& f, const EntryNames& names, const In&... examples) {
  Exporter ex(weights);
  ex.add(name, f, names, examples...);
  ex.save(dir);
}

class Model {
 public:
  static Model load(const std::filesystem::path& dir, const runtime::SessionOptions& options = {});
  ~Model();
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;

  std::vector<std::string> entry_point_names() const;
  const EntryPoint& entry_point(std::string_view name) const;
  // The manifest's content hash (hex SHA-256 over programs and weights).
  const std::string& content_hash() const;

  // Host tensors in and out; inputs are checked against the entry point's specs. A
  // bounded entry point takes any sizes within its bounds: they are padded to the
  // smallest bucket (compiled at its first use) and the outputs sliced back.
  std::vector<Tensor> run(std::string_view entry, std::span<const Tensor> inputs) const;
  std::vector<Tensor> run(std::string_view entry, std::initializer_list<Tensor> inputs) const {
    return run(entry, std::span<const Tensor>(inputs.begin(), inputs.size()));
  }
  // Device buffers in and out (a KV cache stays on the device between steps);
  // `donate` counts the caller's inputs, not the bound weights. Exact entry points
  // only: a bounded one pads on the host.
  std::vector<runtime::Buffer> run(std::string_view entry, std::span<const runtime::Buffer> inputs,
                                   const runtime::RunOptions& options = {}) const;
  const runtime::Session& session() const;
  // Programs compiled for an entry point so far: 1 for an exact one; for a bounded one,
  // the buckets its runs have used.
  std::size_t compiled_programs(std::string_view entry) const;

  struct Impl;

 private:
  explicit Model(std::unique_ptr<Impl> impl);
  std::vector<Tensor> run_bounded(const EntryPoint& e, std::span<const Tensor> inputs) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tlaloc::serve
TLALOC_PUBLIC_END
