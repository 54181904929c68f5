// Exporter: entry points traced (or given) as StableHLO text, written with the
// weights and the manifest into an artifact directory.
#include <fmt/format.h>

#include <algorithm>

#include "io/atomic_file.hpp"
#include "io/sha256.hpp"
#include "serve/manifest.hpp"
#include "stablehlo/stablehlo.hpp"
#include "tlaloc/nn/safetensors.hpp"
#include "tlaloc/serve.hpp"
#include "transforms/bounded.hpp"
#include "transforms/cached_programs.hpp"

namespace tlaloc::serve {

namespace {

constexpr const char* kWeightsFile = "weights.safetensors";

std::vector<TensorSpec> specs(const std::vector<ir::TensorType>& types, std::size_t skip,
                              const std::vector<std::string>& names, const char* stem, const std::string& entry) {
  if (!names.empty() && names.size() != types.size() - skip)
    throw ValueError(fmt::format("tl::serve::Exporter::add: entry point '{}' has {} {}s but {} names", entry,
                                 types.size() - skip, stem, names.size()));
  std::vector<TensorSpec> out;
  for (std::size_t i = skip; i < types.size(); ++i) {
    if (std::find(types[i].shape.begin(), types[i].shape.end(), ir::kDynamic) != types[i].shape.end())
      throw ValueError(fmt::format("tl::serve::Exporter::add: entry point '{}': {} {} has a dynamic shape", entry,
                                   stem, i - skip));
    out.push_back({names.empty() ? fmt::format("{}{}", stem, i - skip) : names[i - skip], types[i].dtype,
                   types[i].shape});
  }
  return out;
}

constexpr const char* kWho = "tl::serve::Exporter::save";

// The inputs' value ranges, from EntryNames::ranges: each must name an integer input.
void set_ranges(std::vector<TensorSpec>& inputs, const std::map<std::string, ValueRange>& ranges,
                const std::string& entry) {
  for (const auto& named : ranges) {
    const std::string& name = named.first;
    const ValueRange& range = named.second;
    const auto it =
        std::find_if(inputs.begin(), inputs.end(), [&](const TensorSpec& s) { return s.name == name; });
    if (it == inputs.end())
      throw ValueError(fmt::format(
          "tl::serve::Exporter::add: entry point '{}' has no input '{}' to give a range to", entry, name));
    if (!is_integral(it->dtype) || range.min > range.max)
      throw ValueError(
          fmt::format("tl::serve::Exporter::add: entry point '{}' input '{}': a range [{}, {}] needs an "
                      "integer input (it is {}) and min <= max",
                      entry, name, range.min, range.max, dtype_name(it->dtype)));
    it->range = range;
  }
}

void write(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  io::write_file_atomically(path, {bytes}, kWho);
}

// Whether an entry of an artifact directory is one the export writes (and so
// replaces): the manifest, the weights, a program, or a writer's leftover.
bool written_by_export(const std::filesystem::path& relative) {
  const std::string name = relative.filename().string();
  if (relative == "manifest.json" || relative == kWeightsFile || relative == "programs") return true;
  if (name.starts_with(".") && name.find(".tmp-") != std::string::npos) return true;
  return relative.parent_path() == "programs" && relative.extension() == ".mlir";
}

// Hard links to what else the user keeps in the old directory (notes, inputs, a
// checkpoint), so that replacing the directory loses none of it, whenever it stops.
void keep_the_users_files(const std::filesystem::path& old, const std::filesystem::path& fresh) {
  std::error_code ec;
  if (!std::filesystem::is_directory(old, ec)) return;
  for (auto it = std::filesystem::recursive_directory_iterator(old);
       it != std::filesystem::recursive_directory_iterator(); ++it) {
    const std::filesystem::path relative = std::filesystem::relative(it->path(), old);
    if (written_by_export(relative)) continue;
    const std::filesystem::path to = fresh / relative;
    if (it->is_directory() && !it->is_symlink()) {
      std::filesystem::create_directories(to);
    } else {
      std::filesystem::create_directories(to.parent_path());
      if (it->is_symlink())
        std::filesystem::copy_symlink(it->path(), to);
      else
        std::filesystem::create_hard_link(it->path(), to);
    }
  }
}

}  // namespace

Exporter::Exporter(nn::Params weights) : weights_(std::move(weights)) {}

void Exporter::add_traced(const std::string& name, const tlaloc::detail::FlatCall& call, const EntryNames& names) {
  detail::check_entry_name(name, "tl::serve::Exporter::add");
  const auto cache = tlaloc::detail::make_cache("export." + name);
  add_program(name, stablehlo::to_text(tlaloc::detail::cached_jit_program(*cache, call)), names);
}

void Exporter::add_program(const std::string& name, std::string text, const EntryNames& names) {
  entries_.push_back(checked_entry(name, text, names, 0));
  programs_.emplace(name, std::move(text));
}

// The entry point of a program taking the weights, `lengths` valid lengths, then the
// inputs.
EntryPoint Exporter::checked_entry(const std::string& name, const std::string& text, const EntryNames& names,
                                   std::size_t lengths) const {
  detail::check_entry_name(name, "tl::serve::Exporter::add");
  if (programs_.count(name) != 0)
    throw ValueError(fmt::format("tl::serve::Exporter::add: entry point '{}' is already there", name));
  const ir::Module m = stablehlo::parse(text, name);
  const ir::Function& f = m.entry();
  const std::vector<ir::TensorType> params = f.param_types();
  if (params.size() < weights_.size() + lengths)
    throw ValueError(
        fmt::format("tl::serve::Exporter::add: entry point '{}' takes {} arguments, fewer than the {} "
                    "weights and {} valid lengths",
                    name, params.size(), weights_.size(), lengths));
  std::size_t i = 0;
  for (const auto& [w, t] : weights_) {
    if (params[i].dtype != t.dtype() || params[i].shape != t.shape())
      throw ValueError(fmt::format("tl::serve::Exporter::add: entry point '{}' takes argument {} as {}{}, but weight "
                                   "'{}' is {}{}",
                                   name, i, dtype_name(params[i].dtype), shape_string(params[i].shape), w,
                                   dtype_name(t.dtype()), shape_string(t.shape())));
    ++i;
  }
  std::vector<TensorSpec> inputs = specs(params, weights_.size() + lengths, names.inputs, "input", name);
  set_ranges(inputs, names.ranges, name);
  return EntryPoint{name, weights_.names(), std::move(inputs),
                    specs(f.result_types(), 0, names.outputs, "output", name)};
}

namespace {

std::vector<std::string> dim_names(const Dims& d) {
  std::vector<std::string> names;
  bool any = false;
  for (const Axis& a : d.axes) {
    names.push_back(a.name);
    any = any || !a.name.empty();
  }
  return any ? names : std::vector<std::string>{};
}

}  // namespace

void Exporter::add_bounded(const std::string& name, tlaloc::detail::BoundedState& s,
                           const tlaloc::detail::FlatCall& call, std::span<const std::size_t> slots,
                           const EntryNames& names) {
  namespace td = tlaloc::detail;
  detail::check_entry_name(name, "tl::serve::Exporter::add");
  const std::vector<Dims>& outputs = td::bounded_outputs(s, call, slots);
  std::vector<std::string> output_names = names.outputs;
  for (std::size_t i = output_names.size(); i < outputs.size(); ++i)
    output_names.push_back(fmt::format("output{}", i));
  td::check_padding_named(s, call, slots, output_names);
  const std::vector<BoundedDim>& dims = td::bounded_dims(s);
  const auto cache = td::make_cache("export." + name);
  std::vector<std::pair<std::vector<std::int64_t>, std::string>> texts;
  for (const std::vector<std::int64_t>& bucket : detail::all_buckets(dims)) {
    const td::FlatCall at = td::with_lengths(s, call, slots, td::sized_args(s, call, slots, bucket, true),
                                             td::length_tensors(bucket), weights_.size());
    texts.emplace_back(bucket, stablehlo::to_text(td::cached_jit_program(*cache, at)));
  }
  EntryPoint e = checked_entry(name, texts.back().second, names, dims.size());
  std::size_t input = 0;
  for (std::size_t i = weights_.size(); i < slots.size(); ++i)
    if (slots[i] != static_cast<std::size_t>(-1))
      e.inputs.at(input++).dims = dim_names(td::bounded_input_dims(s)[slots[i]]);
  for (std::size_t i = 0; i < e.outputs.size(); ++i) e.outputs[i].dims = dim_names(outputs.at(i));
  e.bounded = dims;
  entries_.push_back(std::move(e));
  programs_.emplace(name, std::move(texts.back().second));
  texts.pop_back();
  buckets_.emplace(name, std::move(texts));
}

void Exporter::save(const std::filesystem::path& target) const {
  if (entries_.empty()) throw ValueError("tl::serve::Exporter::save: no entry points");
  // The artifact is written whole beside `target` and exchanged with it in one rename
  // (io::replace_directory): a crash leaves the old artifact or the new one.
  io::replace_directory(
      target, [&](const std::filesystem::path& fresh) { write_into(target, fresh); }, kWho);
}

void Exporter::write_into(const std::filesystem::path& old, const std::filesystem::path& dir) const {
  keep_the_users_files(old, dir);
  std::filesystem::create_directories(dir / "programs");
  detail::Manifest m;
  m.version = 2;  // 3 where an entry point is bounded
  const std::vector<std::uint8_t> weights = nn::to_safetensors(weights_);
  const std::span<const std::byte> wbytes = std::as_bytes(std::span(weights));
  write(dir / kWeightsFile, wbytes);
  m.weights = {kWeightsFile, io::sha256_hex(wbytes)};
  for (const EntryPoint& e : entries_) {
    const std::string& text = programs_.at(e.name);
    const std::string path = detail::program_path(e.name);
    write(dir / path, std::as_bytes(std::span(text)));
    m.programs.push_back({path, io::sha256_hex(text)});
    m.entries.push_back(e);
    m.buckets.emplace_back();
    if (e.bounded.empty()) continue;
    m.version = schema_version;
    for (const auto& [sizes, bucket_text] : buckets_.at(e.name)) {
      const std::string bucket_path = detail::program_path(e.name, e.bounded, sizes);
      write(dir / bucket_path, std::as_bytes(std::span(bucket_text)));
      m.buckets.back().push_back({sizes, {bucket_path, io::sha256_hex(bucket_text)}});
    }
  }
  m.content_hash = detail::content_hash(m);
  const std::string manifest = detail::to_json(m);
  write(dir / "manifest.json", std::as_bytes(std::span(manifest)));
}

}  // namespace tlaloc::serve
