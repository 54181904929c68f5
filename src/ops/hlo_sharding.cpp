#include "ops/hlo_sharding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>

#include "core/check.hpp"

namespace tlaloc::detail {
namespace {

constexpr std::string_view kReplicateLast = "last_tile_dim_replicate";

// Reads the text left to right; any surprise fails naming the op and the text.
class Reader {
 public:
  Reader(std::string_view text, std::string_view op) : all_(text), rest_(text), op_(op) {}

  bool eat(std::string_view s) {
    skip_space();
    if (rest_.substr(0, s.size()) != s) return false;
    rest_.remove_prefix(s.size());
    return true;
  }
  void expect(std::string_view s) {
    if (!eat(s)) bad(fmt::format("expected '{}'", s));
  }
  std::int64_t number() {
    skip_space();
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(rest_.data(), rest_.data() + rest_.size(), v);
    if (ec != std::errc() || v < 0) bad("expected a count or a device");
    rest_.remove_prefix(std::size_t(end - rest_.data()));
    return v;
  }
  // `a, b, ...`
  std::vector<std::int64_t> numbers() {
    std::vector<std::int64_t> v;
    do v.push_back(number());
    while (eat(","));
    return v;
  }
  // `[a, b, ...]` or `(a, b, ...)` after the opening bracket.
  std::vector<std::int64_t> list(std::string_view close) {
    std::vector<std::int64_t> v = numbers();
    expect(close);
    return v;
  }
  bool done() {
    skip_space();
    return rest_.empty();
  }
  [[noreturn]] void bad(std::string_view why) const {
    fail<ValueError>(op_, "cannot read mhlo.sharding \"{}\": {} at offset {}", all_, why,
                     all_.size() - rest_.size());
  }

 private:
  void skip_space() {
    while (!rest_.empty() && rest_.front() == ' ') rest_.remove_prefix(1);
  }
  std::string_view all_, rest_, op_;
};

std::int64_t product(const std::vector<std::int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), std::int64_t(1), std::multiplies<>());
}

// `<=[dims]T(perm)`: the ids 0..n-1 laid out over dims, transposed by perm, row-major.
std::vector<std::int64_t> iota_devices(Reader& r, const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> perm(dims.size());
  std::iota(perm.begin(), perm.end(), 0);
  if (r.eat("T(")) perm = r.list(")");
  std::vector<std::int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < sorted.size(); ++k)
    if (sorted[k] != std::int64_t(k) || sorted.size() != dims.size())
      r.bad("the transpose is not a permutation");
  std::vector<std::int64_t> out_dims;
  for (std::int64_t p : perm) out_dims.push_back(dims[std::size_t(p)]);
  const std::int64_t n = product(dims);
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  std::vector<std::int64_t> j(dims.size(), 0);  // index in the transposed layout
  for (std::int64_t flat = 0; flat < n; ++flat) {
    std::int64_t id = 0;  // row-major index over dims of the element j names
    std::vector<std::int64_t> i(dims.size());
    for (std::size_t k = 0; k < perm.size(); ++k) i[std::size_t(perm[k])] = j[k];
    for (std::size_t k = 0; k < dims.size(); ++k) id = id * dims[k] + i[k];
    out[std::size_t(flat)] = id;
    for (std::size_t k = j.size(); k-- > 0;) {
      if (++j[k] < out_dims[k]) break;
      j[k] = 0;
    }
  }
  return out;
}

}  // namespace

HloSharding HloSharding::parse(std::string_view text, std::string_view op) {
  Reader r(text, op);
  HloSharding s;
  r.expect("{");
  if (r.eat("replicated")) {
    s.kind = Kind::replicated;
  } else if (r.eat("manual")) {
    s.kind = Kind::manual;
  } else if (r.eat("devices=[")) {
    s.kind = Kind::tiled;
    const std::vector<std::int64_t> dims = r.list("]");
    if (dims.empty() || product(dims) <= 0) r.bad("no tiles");
    s.devices = r.eat("<=[") ? iota_devices(r, r.list("]")) : r.numbers();
    if (r.eat(kReplicateLast)) {
      s.copies = dims.back();
      s.tiles.assign(dims.begin(), dims.end() - 1);
    } else {
      s.tiles = dims;
    }
    if (std::int64_t(s.devices.size()) != product(dims)) r.bad("the devices do not fill the tiles");
    std::vector<std::int64_t> sorted = s.devices;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) r.bad("a device is listed twice");
  } else {
    r.bad("only replicated, manual and tiled (devices=[...]) shardings are supported");
  }
  r.expect("}");
  if (!r.done()) r.bad("unexpected text");
  return s;
}

std::string HloSharding::text() const {
  switch (kind) {
    case Kind::replicated:
      return "{replicated}";
    case Kind::manual:
      return "{manual}";
    case Kind::tiled:
      break;
  }
  std::vector<std::int64_t> dims = tiles;
  if (copies > 1) dims.push_back(copies);
  return fmt::format("{{devices=[{}]{}{}}}", fmt::join(dims, ","), fmt::join(devices, ","),
                     copies > 1 ? fmt::format(" {}", kReplicateLast) : "");
}

Shape HloSharding::tile_shape(std::string_view op, const Shape& global) const {
  if (kind != Kind::tiled) return global;
  if (tiles.size() != global.size())
    fail<ShapeError>(op, "sharding {} has {} tile dimensions for a value of shape {}", text(), tiles.size(),
                     shape_string(global));
  Shape local = global;
  for (std::size_t k = 0; k < tiles.size(); ++k) {
    if (global[k] % tiles[k] != 0)
      fail<ShapeError>(op, "sharding {} cuts dimension {} of {} in {} pieces, which do not divide it", text(),
                       k, shape_string(global), tiles[k]);
    local[k] = global[k] / tiles[k];
  }
  return local;
}

std::vector<std::int64_t> HloSharding::tile_of(std::string_view op, std::int64_t device) const {
  std::vector<std::int64_t> at(tiles.size(), 0);
  if (kind != Kind::tiled) return at;
  const auto found = std::find(devices.begin(), devices.end(), device);
  if (found == devices.end()) fail<ValueError>(op, "sharding {} gives device {} no tile", text(), device);
  std::int64_t flat = std::int64_t(found - devices.begin()) / copies;
  for (std::size_t k = tiles.size(); k-- > 0;) {
    at[k] = flat % tiles[k];
    flat /= tiles[k];
  }
  return at;
}

}  // namespace tlaloc::detail
