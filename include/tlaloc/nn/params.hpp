// Parameters of a model: an ordered map from stable dotted names ("layers.0.weight")
// to tensors, as PyTorch's state_dict. Values, not references: updating returns a new
// Params (tl::nn is functional, as in JAX).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::nn {

class Params {
 public:
  using Entry = std::pair<std::string, Tensor>;
  Params() = default;
  Params(std::initializer_list<Entry> entries);
  // Pairs names with tensors, in order; the counts must agree.
  static Params from(const std::vector<std::string>& names, const std::vector<Tensor>& tensors);

  // Adds a name at the end, or replaces its tensor where it is.
  void set(std::string name, Tensor t);
  bool contains(std::string_view name) const;
  // The tensor named; a ValueError naming it when there is none.
  const Tensor& at(std::string_view name) const;
  // The position of the entry named (in entries(), tensors(), with_tensors()); a
  // ValueError naming it when there is none.
  std::size_t index(std::string_view name) const;
  // The entries whose names start with `prefix` + ".", with the prefix removed.
  Params sub(std::string_view prefix) const;
  // These entries with `prefix` + "." before each name.
  Params prefixed(std::string_view prefix) const;

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const std::vector<Entry>& entries() const { return entries_; }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  std::vector<std::string> names() const;
  std::vector<Tensor> tensors() const;
  // The same names with other tensors (the gradient, an update), in order.
  Params with_tensors(const std::vector<Tensor>& tensors) const;

 private:
  std::vector<Entry> entries_;
};

}  // namespace tlaloc::nn
TLALOC_PUBLIC_END
