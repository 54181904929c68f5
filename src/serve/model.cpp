// Model::load: the manifest, every hash and the programs' signatures checked before
// anything runs; then each program compiled on a Session, the weights kept there.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>

#include "io/sha256.hpp"
#include "serve/manifest.hpp"
#include "stablehlo/stablehlo.hpp"
#include "tlaloc/nn/safetensors.hpp"
#include "tlaloc/serve.hpp"
#include "transforms/bounded.hpp"

namespace tlaloc::serve {

namespace {

// A bounded entry point: its dimensions as a tl::bounded function holds them (which
// sizes, pads and slices the same way), and a program per bucket, compiled at its
// first use.
struct Bucketed {
  std::shared_ptr<tlaloc::detail::BoundedState> state;
  std::vector<Dims> outputs;
  std::vector<std::vector<std::int64_t>> sizes;  // per bucket; the last at the bounds
  std::vector<std::string> files, texts;
  std::vector<std::optional<runtime::Executable>> compiled;
  std::unique_ptr<std::mutex> mu = std::make_unique<std::mutex>();
};

}  // namespace

struct Model::Impl {
  runtime::Session session;
  detail::Manifest manifest;
  std::map<std::string, runtime::Executable, std::less<>> programs;
  std::map<std::string, Bucketed, std::less<>> bounded;
  std::map<std::string, runtime::Buffer> weights;  // on the session's device
};

namespace {

[[noreturn]] void bad(const std::filesystem::path& file, const std::string& what) {
  throw ArtifactError(fmt::format("tl::serve::Model::load: {}: {}", file.string(), what));
}

// A file of the artifact in `dir`. Only a regular file inside the directory is read: a
// directory or a FIFO (whose open waits for a writer) is refused, and so is a link
// leading out of the directory.
std::string read_file(const std::filesystem::path& dir, const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) bad(path, "missing");
  if (!fs::is_regular_file(status)) bad(path, "is not a regular file");
  const fs::path root = fs::canonical(dir, ec), real = fs::canonical(path, ec);
  const fs::path inside = real.lexically_relative(root);
  if (ec || inside.empty() || *inside.begin() == "..")
    bad(path, "is a link leading out of the artifact directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(path, "cannot be read");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void check_hash(const std::filesystem::path& path, const std::string& bytes, const std::string& expected) {
  const std::string got = io::sha256_hex(bytes);
  if (got != expected) bad(path, fmt::format("SHA-256 {} does not match the manifest's {}", got, expected));
}

std::string spec_text(DType t, const Shape& s) { return fmt::format("{}{}", dtype_name(t), shape_string(s)); }

// The program must take the weights and then the inputs, and give the outputs, as
// the manifest says.
void check_signature(const std::filesystem::path& file, const EntryPoint& e, const runtime::Executable& x,
                     const nn::Params& weights) {
  std::vector<runtime::BufferType> want;
  for (const std::string& w : e.weights) want.push_back({weights.at(w).dtype(), weights.at(w).shape()});
  for (const TensorSpec& s : e.inputs) want.push_back({s.dtype, s.shape});
  std::vector<runtime::BufferType> out;
  for (const TensorSpec& s : e.outputs) out.push_back({s.dtype, s.shape});
  if (x.input_types() != want || x.output_types() != out)
    bad(file, fmt::format("the program's signature is not the manifest's for entry point '{}' (weights, then inputs "
                          "{}, giving outputs {})",
                          e.name, e.inputs.size(), e.outputs.size()));
}

Dims dims_of(const TensorSpec& s) {
  Dims d;
  for (std::size_t a = 0; a < s.shape.size(); ++a)
    d.axes.push_back(s.dims.empty() || s.dims[a].empty() ? Axis{"", s.shape[a]} : Axis{s.dims[a], -1});
  return d;
}

// A spec's shape at a bucket's sizes.
Shape shape_at(const EntryPoint& e, const TensorSpec& s, const std::vector<std::int64_t>& sizes) {
  Shape shape = s.shape;
  for (std::size_t a = 0; a < s.dims.size(); ++a)
    for (std::size_t k = 0; k < e.bounded.size(); ++k)
      if (s.dims[a] == e.bounded[k].name) shape[a] = sizes[k];
  return shape;
}

// A bucket's program must take the weights, the valid lengths, then the inputs at the
// bucket's sizes, and give the outputs at them (read from its text: it compiles later).
void check_bucket_signature(const std::filesystem::path& file, const EntryPoint& e,
                            const std::vector<std::int64_t>& sizes, const std::string& text,
                            const nn::Params& weights) {
  std::vector<runtime::BufferType> want_in, want_out, got_in, got_out;
  for (const std::string& w : e.weights) want_in.push_back({weights.at(w).dtype(), weights.at(w).shape()});
  want_in.insert(want_in.end(), e.bounded.size(), runtime::BufferType{DType::i64, {}});
  for (const TensorSpec& s : e.inputs) want_in.push_back({s.dtype, shape_at(e, s, sizes)});
  for (const TensorSpec& s : e.outputs) want_out.push_back({s.dtype, shape_at(e, s, sizes)});
  const ir::Module parsed = stablehlo::parse(text, file.string());
  for (const ir::TensorType& t : parsed.entry().param_types()) got_in.push_back({t.dtype, t.shape});
  for (const ir::TensorType& t : parsed.entry().result_types()) got_out.push_back({t.dtype, t.shape});
  if (got_in != want_in || got_out != want_out)
    bad(file,
        fmt::format("the program's signature is not the manifest's for entry point '{}' at bucket [{}] "
                    "(weights, {} valid lengths, then inputs {}, giving outputs {})",
                    e.name, fmt::join(sizes, ", "), e.bounded.size(), e.inputs.size(), e.outputs.size()));
}

// Reads, hashes and checks every bucket program of a bounded entry point, as the exact
// ones are checked; their compiles wait for their first run.
Bucketed load_buckets(const std::filesystem::path& dir, const detail::Manifest& m, std::size_t i,
                      const nn::Params& weights) {
  const EntryPoint& e = m.entries[i];
  Bucketed b;
  std::vector<Dims> inputs;
  for (const TensorSpec& s : e.inputs) inputs.push_back(dims_of(s));
  for (const TensorSpec& s : e.outputs) b.outputs.push_back(dims_of(s));
  try {
    b.state = tlaloc::detail::make_bounded(e.bounded, inputs, b.outputs);
  } catch (const Error& err) {
    bad(dir / "manifest.json", fmt::format("entry point '{}': {}", e.name, err.what()));
  }
  std::vector<detail::HashedFile> files;
  for (const detail::BucketProgram& p : m.buckets[i]) {
    b.sizes.push_back(p.sizes);
    files.push_back(p.file);
  }
  b.sizes.push_back(detail::all_buckets(e.bounded).back());
  files.push_back(m.programs[i]);
  for (std::size_t k = 0; k < files.size(); ++k) {
    const std::filesystem::path file = dir / files[k].path;
    std::string text = read_file(dir, file);
    check_hash(file, text, files[k].sha256);
    check_bucket_signature(file, e, b.sizes[k], text, weights);
    b.files.push_back(file.string());
    b.texts.push_back(std::move(text));
  }
  b.compiled.resize(files.size());
  return b;
}

}  // namespace

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

Model Model::load(const std::filesystem::path& dir, const runtime::SessionOptions& options) {
  const std::filesystem::path manifest_file = dir / "manifest.json";
  detail::Manifest m = detail::manifest_from_json(read_file(dir, manifest_file), manifest_file.string());
  if (detail::content_hash(m) != m.content_hash)
    bad(manifest_file,
        "the content hash does not match what the manifest lists (files, bindings, signatures)");

  const std::string wbytes = read_file(dir, dir / m.weights.path);
  check_hash(dir / m.weights.path, wbytes, m.weights.sha256);
  const nn::Params weights =
      nn::from_safetensors(std::span(reinterpret_cast<const std::uint8_t*>(wbytes.data()), wbytes.size()),
                           (dir / m.weights.path).string())
          .tensors;

  auto impl = std::make_unique<Impl>(Impl{runtime::Session(options), {}, {}, {}, {}});
  for (std::size_t i = 0; i < m.entries.size(); ++i) {
    const EntryPoint& e = m.entries[i];
    for (const std::string& w : e.weights) {
      if (!weights.contains(w))
        bad(dir / m.weights.path, fmt::format("weight '{}' of entry point '{}' is not in the file", w, e.name));
      if (impl->weights.count(w) == 0) impl->weights.emplace(w, impl->session.to_device(weights.at(w)));
    }
    if (!e.bounded.empty()) {
      if (impl->programs.count(e.name) != 0 ||
          !impl->bounded.emplace(e.name, load_buckets(dir, m, i, weights)).second)
        bad(manifest_file, fmt::format("entry point '{}' is listed twice", e.name));
      continue;
    }
    const std::filesystem::path file = dir / m.programs[i].path;
    const std::string text = read_file(dir, file);
    check_hash(file, text, m.programs[i].sha256);
    runtime::Executable x = impl->session.compile(text, file.string());
    check_signature(file, e, x, weights);
    if (impl->bounded.count(e.name) != 0 || !impl->programs.emplace(e.name, std::move(x)).second)
      bad(manifest_file, fmt::format("entry point '{}' is listed twice", e.name));
  }
  impl->manifest = std::move(m);
  return Model(std::move(impl));
}

std::vector<std::string> Model::entry_point_names() const {
  std::vector<std::string> names;
  for (const EntryPoint& e : impl_->manifest.entries) names.push_back(e.name);
  return names;
}

const EntryPoint& Model::entry_point(std::string_view name) const {
  for (const EntryPoint& e : impl_->manifest.entries)
    if (e.name == name) return e;
  throw ValueError(fmt::format("tl::serve::Model: no entry point '{}' (the artifact has {})", name,
                               fmt::join(entry_point_names(), ", ")));
}

const std::string& Model::content_hash() const { return impl_->manifest.content_hash; }
const runtime::Session& Model::session() const { return impl_->session; }

std::vector<runtime::Buffer> Model::run(std::string_view entry, std::span<const runtime::Buffer> inputs,
                                        const runtime::RunOptions& options) const {
  const EntryPoint& e = entry_point(entry);
  if (!e.bounded.empty())
    throw ValueError(
        fmt::format("tl::serve::Model::run: entry point '{}' is bounded: it takes host tensors, which "
                    "it pads to a bucket (device buffers are run on exact entry points only)",
                    e.name));
  if (inputs.size() != e.inputs.size())
    throw ValueError(fmt::format("tl::serve::Model::run: entry point '{}' takes {} inputs, got {}", e.name,
                                 e.inputs.size(), inputs.size()));
  std::vector<runtime::Buffer> args;
  for (const std::string& w : e.weights) args.push_back(impl_->weights.at(w));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec& s = e.inputs[i];
    const runtime::BufferType t = inputs[i].type();
    if (t.dtype != s.dtype || t.shape != s.shape)
      throw ValueError(fmt::format("tl::serve::Model::run: entry point '{}' input '{}' is {}, expected {}", e.name,
                                   s.name, spec_text(t.dtype, t.shape), spec_text(s.dtype, s.shape)));
    args.push_back(inputs[i]);
  }
  runtime::RunOptions shifted;
  for (std::size_t d : options.donate) {
    if (d >= inputs.size())
      throw ValueError(fmt::format("tl::serve::Model::run: donate names input {}, entry point '{}' has {}", d,
                                   e.name, inputs.size()));
    shifted.donate.push_back(d + e.weights.size());
  }
  return impl_->programs.find(entry)->second.run(args, shifted);
}

namespace {

// An integer input's values against the range its manifest declares. Host tensors
// only: values already on a device are not read back for it.
void check_range(const EntryPoint& e, const TensorSpec& s, const Tensor& t) {
  if (!s.range || t.dtype() != s.dtype) return;  // a wrong dtype is refused with the signature
  const ValueRange r = *s.range;
  const auto refuse = [&](const auto value, std::size_t at) {
    throw ValueError(
        fmt::format("tl::serve::Model::run: entry point '{}' input '{}' holds {} (element {}), "
                    "outside its range [{}, {}]",
                    e.name, s.name, value, at, r.min, r.max));
  };
  if (t.dtype() == DType::u64) {
    const std::vector<std::uint64_t> v = t.to_vector<std::uint64_t>();
    for (std::size_t i = 0; i < v.size(); ++i)
      if ((r.max < 0 || v[i] > std::uint64_t(r.max)) || (r.min > 0 && v[i] < std::uint64_t(r.min)))
        refuse(v[i], i);
    return;
  }
  const std::vector<std::int64_t> v = t.to_vector<std::int64_t>();
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] < r.min || v[i] > r.max) refuse(v[i], i);
}

}  // namespace

std::vector<Tensor> Model::run(std::string_view entry, std::span<const Tensor> inputs) const {
  const EntryPoint& e = entry_point(entry);
  for (std::size_t i = 0; i < std::min(inputs.size(), e.inputs.size()); ++i)
    check_range(e, e.inputs[i], inputs[i]);
  if (!e.bounded.empty()) return run_bounded(e, inputs);
  std::vector<runtime::Buffer> in;
  std::vector<std::size_t> all;
  for (const Tensor& t : inputs) {
    all.push_back(in.size());
    in.push_back(impl_->session.to_device(t));
  }
  std::vector<Tensor> out;
  for (const runtime::Buffer& b : run(entry, in, {.donate = all})) out.push_back(b.to_host());
  return out;
}

}  // namespace tlaloc::serve

namespace tlaloc::serve {

// Sizes read and checked as tl::bounded reads them, inputs padded to the smallest
// bucket, its program compiled at its first use, outputs sliced back.
std::vector<Tensor> Model::run_bounded(const EntryPoint& e, std::span<const Tensor> inputs) const {
  namespace td = tlaloc::detail;
  Bucketed& b = impl_->bounded.find(e.name)->second;
  if (inputs.size() != e.inputs.size())
    throw ValueError(fmt::format("tl::serve::Model::run: entry point '{}' takes {} inputs, got {}", e.name,
                                 e.inputs.size(), inputs.size()));
  td::FlatCall call;
  std::vector<std::size_t> slots;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype() != e.inputs[i].dtype)
      throw DTypeError(fmt::format("tl::serve::Model::run: entry point '{}' input '{}' is {}, expected {}",
                                   e.name, e.inputs[i].name, dtype_name(inputs[i].dtype()),
                                   dtype_name(e.inputs[i].dtype)));
    call.args.push_back(inputs[i]);
    slots.push_back(i);
  }
  std::vector<std::int64_t> sizes;
  try {
    sizes = td::bounded_sizes(*b.state, call, slots);
  } catch (const ShapeError& err) {
    throw ShapeError(fmt::format("tl::serve::Model::run: entry point '{}': {}", e.name, err.what()));
  }
  const std::vector<std::int64_t> bucket = td::bucket_for(*b.state, sizes);
  const std::size_t k = std::size_t(std::find(b.sizes.begin(), b.sizes.end(), bucket) - b.sizes.begin());
  const runtime::Executable* x = nullptr;
  {
    const std::lock_guard lock(*b.mu);
    if (!b.compiled[k]) b.compiled[k] = impl_->session.compile(b.texts[k], b.files[k]);
    x = &*b.compiled[k];
  }
  std::vector<runtime::Buffer> args;
  for (const std::string& w : e.weights) args.push_back(impl_->weights.at(w));
  std::vector<std::size_t> donate;
  std::vector<Tensor> host = td::length_tensors(sizes);
  const std::vector<Tensor> padded = td::sized_args(*b.state, call, slots, bucket, false);
  host.insert(host.end(), padded.begin(), padded.end());
  for (const Tensor& t : host) {
    donate.push_back(args.size());
    args.push_back(impl_->session.to_device(t));
  }
  std::vector<Tensor> out;
  for (const runtime::Buffer& r : x->run(args, {.donate = donate}))
    out.push_back(td::slice_to(*b.state, r.to_host(), b.outputs[out.size()], sizes));
  return out;
}

std::size_t Model::compiled_programs(std::string_view entry) const {
  const EntryPoint& e = entry_point(entry);
  if (e.bounded.empty()) return 1;
  const Bucketed& b = impl_->bounded.find(e.name)->second;
  const std::lock_guard lock(*b.mu);
  return std::size_t(
      std::count_if(b.compiled.begin(), b.compiled.end(), [](const auto& c) { return c.has_value(); }));
}

}  // namespace tlaloc::serve
