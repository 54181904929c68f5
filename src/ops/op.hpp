// The op registry: each op is declared once, with its shape/dtype rule and its host
// kernel side by side (later also its AD rules and lowerings). Public functions in
// include/tlaloc/ops.hpp call `call`/`call1`, the one entry point that either runs
// the kernel or records into the trace that owns a symbolic input.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/check.hpp"
#include "tlaloc/tensor.hpp"

namespace tlaloc::detail {

using AttrValue = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>,
                               std::vector<double>, DType>;

// Named attributes of one op call (axis, keepdims, ...): a short list, looked up by name.
class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items) : items_(items) {}
  void set(std::string name, AttrValue v);
  bool has(std::string_view name) const { return find(name) != nullptr; }
  template <class T> const T& get(std::string_view name) const {
    const AttrValue* v = find(name);
    if (v == nullptr) throw Error("missing op attribute '" + std::string(name) + "'");
    if (const T* p = std::get_if<T>(v)) return *p;
    throw Error("op attribute '" + std::string(name) + "' has another type");
  }
  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }

 private:
  const AttrValue* find(std::string_view name) const;
  std::vector<std::pair<std::string, AttrValue>> items_;
};

struct TensorType {
  DType dtype;
  Shape shape;
  bool operator==(const TensorType&) const = default;
};

using ShapeRule = std::function<std::vector<TensorType>(std::span<const TensorType>, const Attrs&)>;
// Computes the outputs on host tensors; out_types come from the shape rule.
using Kernel = std::function<std::vector<Tensor>(std::span<const Tensor>, const Attrs&,
                                                 std::span<const TensorType>)>;

class OpDef {
 public:
  explicit OpDef(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  int arity() const { return arity_; }  // -1: variadic

  OpDef& inputs(int n) { arity_ = n; return *this; }
  OpDef& shape_rule(ShapeRule r) { shape_rule_ = std::move(r); return *this; }
  OpDef& kernel(Kernel k) { kernel_ = std::move(k); return *this; }

  std::vector<TensorType> infer(std::span<const TensorType> in, const Attrs& attrs) const;
  std::vector<Tensor> run(std::span<const Tensor> in, const Attrs& attrs,
                          std::span<const TensorType> out) const;

 private:
  std::string name_;
  int arity_ = -1;
  ShapeRule shape_rule_;
  Kernel kernel_;
};

// Registers a new op; the returned reference stays valid for the program's life.
OpDef& def_op(std::string_view name);
const OpDef* find_op(std::string_view name);
std::vector<const OpDef*> all_ops();

// A trace: receives op calls that have a symbolic input owned by it.
class Tracer {
 public:
  virtual ~Tracer() = default;
  virtual std::vector<Tensor> record(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs,
                                     std::vector<TensorType> out_types) = 0;
};

std::vector<Tensor> call(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs = {});
inline std::vector<Tensor> call(const OpDef& op, std::initializer_list<Tensor> in,
                                const Attrs& attrs = {}) {
  return call(op, std::span<const Tensor>(in.begin(), in.size()), attrs);
}
Tensor call1(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs = {});
inline Tensor call1(const OpDef& op, std::initializer_list<Tensor> in, const Attrs& attrs = {}) {
  return call1(op, std::span<const Tensor>(in.begin(), in.size()), attrs);
}

// ---- shared shape rules -------------------------------------------------------
Shape broadcast_shapes(std::string_view op, const Shape& a, const Shape& b);
TensorType type_of(const Tensor& t);

}  // namespace tlaloc::detail
