// Model::load: the manifest, every hash and the programs' signatures checked before
// anything runs; then each program compiled on a Session, the weights kept there.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>

#include "io/sha256.hpp"
#include "serve/manifest.hpp"
#include "tlaloc/nn/safetensors.hpp"
#include "tlaloc/serve.hpp"

namespace tlaloc::serve {

struct Model::Impl {
  runtime::Session session;
  detail::Manifest manifest;
  std::map<std::string, runtime::Executable, std::less<>> programs;
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

  auto impl = std::make_unique<Impl>(Impl{runtime::Session(options), {}, {}, {}});
  for (std::size_t i = 0; i < m.entries.size(); ++i) {
    const EntryPoint& e = m.entries[i];
    const std::filesystem::path file = dir / m.programs[i].path;
    const std::string text = read_file(dir, file);
    check_hash(file, text, m.programs[i].sha256);
    for (const std::string& w : e.weights) {
      if (!weights.contains(w))
        bad(dir / m.weights.path, fmt::format("weight '{}' of entry point '{}' is not in the file", w, e.name));
      if (impl->weights.count(w) == 0) impl->weights.emplace(w, impl->session.to_device(weights.at(w)));
    }
    runtime::Executable x = impl->session.compile(text, file.string());
    check_signature(file, e, x, weights);
    if (!impl->programs.emplace(e.name, std::move(x)).second)
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
