// The op registry: each op is declared once (its definition is in src/ops), with its
// shape/dtype rule, host kernel, derivative rules, lowerings, spellings and
// properties side by side. It lives with the IR, whose ops point at their OpDef.
// Public functions in include/tlaloc/ops.hpp call `call`/`call1`, the one entry point
// that either runs the kernel or records into the trace that owns a symbolic input.
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

// An attribute known at run time only, as the C++ expression that computes it: what
// tlaloc-grad records for an argument that is no literal (`perm`, `{n - 1, 0}`). A
// rule may pass it on to the ops it records; reading its value throws
// UnknownTypeError, as reading an unknown type does (docs/ENGINE_AT_BUILD_TIME.md).
struct Written {
  std::string text;
  bool operator==(const Written&) const = default;
};

// Attribute values. Names follow the StableHLO spec where the op is a StableHLO op
// (`broadcast_dimensions`, `comparison_direction`, ...). A Tensor is a constant's
// value; matrices such as padding are flattened row-major.
using AttrValue = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>,
                               std::vector<double>, DType, Tensor, std::vector<std::string>, Written>;

[[noreturn]] void throw_written(std::string_view name, const Written& w);

// Named attributes of one op call (axis, keepdims, ...): a short list, looked up by name.
class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items) : items_(items) {}
  void set(std::string name, AttrValue v);
  bool has(std::string_view name) const { return find(name) != nullptr; }
  template <class T>
  const T& get(std::string_view name) const {
    const AttrValue* v = find(name);
    if (v == nullptr) throw Error("missing op attribute '" + std::string(name) + "'");
    if (const T* p = std::get_if<T>(v)) return *p;
    if (const auto* w = std::get_if<Written>(v)) throw_written(name, *w);
    throw Error("op attribute '" + std::string(name) + "' has another type");
  }
  // Whether any attribute is known at run time only (Written).
  bool any_written() const;
  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }

 private:
  const AttrValue* find(std::string_view name) const;
  std::vector<std::pair<std::string, AttrValue>> items_;
};

// A value's type. `unknown`: its rank, shape and dtype are known only at run time
// (a value traced at build time, docs/ENGINE_AT_BUILD_TIME.md); dtype and shape
// then mean nothing. `token`: StableHLO's `!stablehlo.token`, which orders effects
// (send, recv) and holds no data; at run time it is an empty bool[0].
struct TensorType {
  DType dtype;
  Shape shape;
  bool unknown = false;
  bool token = false;
  bool operator==(const TensorType&) const = default;
};
inline TensorType unknown_type() { return {DType::f32, {}, true}; }
inline TensorType token_type() { return {DType::boolean, {0}, false, true}; }

using ShapeRule = std::function<std::vector<TensorType>(std::span<const TensorType>, const Attrs&)>;
// Computes the outputs on host tensors; out_types come from the shape rule.
using Kernel =
    std::function<std::vector<Tensor>(std::span<const Tensor>, const Attrs&, std::span<const TensorType>)>;

// The regions of an op being run (a reduce body, a sort comparator, a loop body):
// the kernel calls them on host tensors, or looks at them to pick a fast path.
class RegionCalls {
 public:
  virtual ~RegionCalls() = default;
  virtual std::size_t size() const = 0;
  virtual std::vector<Tensor> call(std::size_t region, std::span<const Tensor> args) const = 0;
  // Runs the region as every process of a grid of 1 x args.size() (partition i on
  // args[i], each on a thread of its own, meeting in their collectives) and returns
  // each process's results (shard_map). A result marked `same` is the same on every
  // process, so the caller reads process 0's only: across operating-system processes
  // each process's own stands for it and is not sent.
  virtual std::vector<std::vector<Tensor>> call_as_processes(std::size_t region,
                                                             std::span<const std::vector<Tensor>> args,
                                                             const std::vector<bool>& same) const = 0;
  // The op a region applies to its two scalar arguments and returns, when it is just
  // that ("add", "maximum", ...); empty otherwise.
  virtual std::string_view binary_body(std::size_t region) const = 0;
  // The op a region applies to its first two arguments and returns, when that is
  // all it does (a sort comparator `compare LT` of the first pair among 2N
  // arguments), with its attributes; an empty name otherwise.
  struct PairOp {
    std::string_view name;
    const Attrs* attrs = nullptr;
  };
  virtual PairOp first_pair_op(std::size_t region) const = 0;
};
using RegionKernel = std::function<std::vector<Tensor>(std::span<const Tensor>, const Attrs&,
                                                       std::span<const TensorType>, const RegionCalls&)>;

// How an op is written in StableHLO text (src/stablehlo reads this table). The
// generic MLIR form is derived from `name` and `attrs`; `format` picks the
// pretty form.
struct StableHloAttr {
  enum class Kind : std::uint8_t {
    i64,             // 1 : i64
    i32,             // 1 : i32 (held as an int64_t)
    i64_array,       // array<i64: 1, 2>  (pretty: [1, 2])
    i64_elements,    // dense<[1, 2]> : tensor<2xi64>
    i64_matrix,      // dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, flattened row-major
    bool_array,      // array<i1: true, false>
    boolean,         // true / false
    f32,             // 1.0e-05 : f32
    string,          // "text"
    symbol,          // @name
    enum_value,      // #stablehlo<name VALUE>; the name is `mlir_enum`
    elements,        // dense<...> : tensor<...> holding a Tensor (constant's value)
    precision_list,  // [#stablehlo<precision DEFAULT>, ...]
    dictionary,      // {a = 1, b = "x"}: kept as its text, braces included
    unit,            // use_global_device_ids: written alone when true, left out when false
    symbol_grid,     // [[@a, @b], [@c, @d]]: the names row-major, and `<key>.partitions` per row
    symbol_list,     // [@a, @b]: the names
    // Structured attributes spread over several Attrs entries (spec field names):
    dot_dimension_numbers,      // #stablehlo.dot<...>
    gather_dimension_numbers,   // #stablehlo.gather<...>
    scatter_dimension_numbers,  // #stablehlo.scatter<...>
    conv_dimension_numbers,     // #stablehlo.conv<...>
    channel_handle,             // #stablehlo.channel_handle<handle = 1, type = 0>: channel_id, channel_type
    dot_algorithm,              // #stablehlo.dot_algorithm<...>: `algorithm.<field>`, types by their names
    // Not written in the text: taken from a result type (the first unless
    // of_result says) when parsing.
    result_shape,  // std::vector<int64_t>
    result_dtype,  // DType
  };
  StableHloAttr(std::string mlir_name, Kind k) : name(std::move(mlir_name)), kind(k), key(name) {}
  StableHloAttr& as(std::string attrs_key) {
    key = std::move(attrs_key);
    return *this;
  }
  StableHloAttr& pretty(std::string keyword) {
    pretty_name = std::move(keyword);
    return *this;
  }
  StableHloAttr& optional() {
    is_optional = true;
    return *this;
  }
  // For result_shape / result_dtype: which result type it comes from.
  StableHloAttr& of_result(int i) {
    result = i;
    return *this;
  }
  StableHloAttr& of_enum(std::string e) {
    mlir_enum = std::move(e);
    return *this;
  }

  std::string name;  // the attribute's name in StableHLO text (the spec's)
  Kind kind;
  std::string key;           // its entry in Attrs (the name unless the op uses another)
  bool is_optional = false;  // may be absent
  std::string mlir_enum;     // for enum_value: "comparison_direction", ...
  std::string pretty_name;   // its keyword in the pretty form (`dims` for broadcast_dimensions)
  int result = 0;            // result_shape / result_dtype: the result it is taken from
};
struct StableHloSpelling {
  std::string name;  // "stablehlo.add", "func.call", ...
  std::vector<StableHloAttr> attrs;
  std::string format;  // pretty form: "" generic only, or a format known to src/stablehlo
  // The spec defines the op on floating-point operands only (floor, sign, ...):
  // lowering rewrites integer and bool operands with the op's lowering.
  bool floating_only = false;
};

class OpDef;
class Rule;  // src/ops/rule.hpp
class CppOp;  // src/ops/cpp_spelling.hpp
// How an op is written in printed C++ (src/cppgen): the expression that computes
// it over the public API, or "" when the spelling wrote statements itself
// (control flow). docs/READABLE_REVERSE.md.
using CppSpelling = std::function<std::string(CppOp&)>;
// A derivative rule (src/ops/rule.hpp): a JVP rule returns one tangent per result,
// a VJP rule one cotangent per operand; an undefined Tensor is a zero.
using DerivRule = std::function<std::vector<Tensor>(const Rule&)>;

// Rewrites one op in terms of others (a composite's decomposition, or the
// broadcasts and converts a StableHLO op needs). Runs under a trace: the inputs are
// symbolic and the ops it calls are recorded in place of the op.
using LowerFn = std::function<std::vector<Tensor>(std::span<const Tensor>, const Attrs&)>;

// A lowering that needs the op's regions (loops, custom rules): `inline_region(k,
// args)` records region k applied to args in place and returns its results.
using RegionInliner = std::function<std::vector<Tensor>(std::size_t, std::span<const Tensor>)>;
using RegionLowerFn = std::function<std::vector<Tensor>(std::span<const Tensor>, const Attrs&, const RegionInliner&)>;

class OpDef {
 public:
  explicit OpDef(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  int arity() const { return arity_; }  // -1: variadic

  OpDef& inputs(int n) {
    arity_ = n;
    return *this;
  }
  OpDef& shape_rule(ShapeRule r) {
    shape_rule_ = std::move(r);
    return *this;
  }
  OpDef& kernel(Kernel k) {
    kernel_ = std::move(k);
    return *this;
  }
  OpDef& region_kernel(int regions, RegionKernel k) {
    regions_ = regions;
    region_kernel_ = std::move(k);
    return *this;
  }
  OpDef& stablehlo(StableHloSpelling s) {
    stablehlo_ = std::move(s);
    return *this;
  }
  // Its spelling in chlo, the dialect of ops JAX writes beside StableHLO's
  // (chlo.lgamma, chlo.top_k): the parser reads it as this op, and the emitter
  // writes it for an op with no StableHLO spelling. An op that also has a
  // lowering is decomposed by `lower`; one without stays chlo, which XLA's
  // compilers legalize as they do for JAX (docs/STABLEHLO.md).
  OpDef& chlo(StableHloSpelling s) {
    chlo_ = std::move(s);
    return *this;
  }
  // Elementwise: operands broadcast to the result shape and promote to one dtype;
  // lowering inserts the broadcasts and converts StableHLO needs.
  OpDef& elementwise() {
    elementwise_ = true;
    return *this;
  }
  OpDef& lower(LowerFn f) {
    lower_ = std::move(f);
    return *this;
  }
  OpDef& lower_with_regions(RegionLowerFn f) {
    region_lower_ = std::move(f);
    return *this;
  }
  // Lowered, the op makes the module an SPMD program on this many partitions (a
  // shard_map's devices): mhlo.num_partitions.
  using PartitionsRule = std::function<std::int64_t(const Attrs&)>;
  OpDef& lowers_to_partitions(PartitionsRule f) {
    partitions_ = std::move(f);
    return *this;
  }
  std::int64_t partitions_when_lowered(const Attrs& attrs) const {
    return partitions_ ? partitions_(attrs) : 1;
  }
  // Its spelling in printed C++ (src/ops/cpp_spelling.hpp has the common ones).
  OpDef& cpp(CppSpelling s) {
    cpp_ = std::move(s);
    return *this;
  }
  // Has no effect and no result a later op could depend on being recomputed
  // (never removed by CSE: random ops, check ops, custom calls).
  OpDef& side_effects() {
    side_effects_ = true;
    return *this;
  }

  // The interpreter runs functions of the module for the op, named by attribute
  // `attr`: `one` runs that function on the operands (call's @callee, a composite's
  // decomposition); `parallel` runs each function of the grid `attr` (a list of
  // names, row-major, and `<attr>.partitions` per row) as one process, on its share
  // of the operands (interpreter.run_parallel; src/interp/parallel.hpp).
  enum class Calls : std::uint8_t { none, one, parallel };
  OpDef& calls(Calls how, std::string attr) {
    calls_ = how;
    calls_attr_ = std::move(attr);
    return *this;
  }
  Calls calls() const { return calls_; }
  const std::string& calls_attr() const { return calls_attr_; }

  // Narrow storage types (core/narrow.hpp) reach no kernel: run() gives it the
  // operands in their compute_dtype and rounds its results back, which is exact for an
  // op on values. `keeps_narrow_types`: the kernel takes them as they are (convert,
  // constant, the checks). `on_bits`: its result depends on the width of its integer
  // operands (popcnt, count_leading_zeros): narrow integers are refused by name.
  OpDef& keeps_narrow_types() {
    keeps_narrow_ = true;
    return *this;
  }
  OpDef& on_bits() {
    on_bits_ = true;
    return *this;
  }

  // Tokens (`!stablehlo.token`) may be among its operands; the verifier refuses them
  // anywhere else, naming the op.
  OpDef& takes_tokens() {
    takes_tokens_ = true;
    return *this;
  }
  bool may_take_tokens() const { return takes_tokens_; }

  // How many results the op has for operands whose types are unknown (a build-time
  // trace, where the shape rule cannot run); one unless set.
  using ResultCount = std::size_t (*)(std::size_t operands, const Attrs& attrs);
  OpDef& result_count(ResultCount f) {
    result_count_ = f;
    return *this;
  }

  // Derivative rules, written with the public ops so that they are differentiable
  // again (docs/HOW_IT_WORKS.md).
  OpDef& jvp(DerivRule r) {
    jvp_ = std::move(r);
    return *this;
  }
  OpDef& vjp(DerivRule r) {
    vjp_ = std::move(r);
    return *this;
  }
  // For unary elementwise ops: dy/dx as a function of the operand and the result;
  // sets both rules (tangent * d and cotangent * d). Defined in rule.cpp.
  using UnaryDerivative = Tensor (*)(const Tensor& x, const Tensor& y);
  OpDef& derivative(UnaryDerivative d);
  // Elementwise ops whose rules come from their operands' partial derivatives
  // (derivative(), binary_derivative()): how many operands they have. tlaloc-grad
  // runs these rules at build time (tools/tlaloc-grad/engine_rules.cpp).
  OpDef& partials(std::size_t n) {
    partials_ = n;
    return *this;
  }
  // The results carry no derivative (comparisons, integer results, floor, sign):
  // every tangent and cotangent through the op is zero.
  OpDef& no_derivative() {
    no_derivative_ = true;
    return *this;
  }

  // Which operands the result is a linear function of, the others held fixed:
  // linear() in all of them together (add, pad, reshape), linear({0}) in those
  // listed together (div in its dividend, select in its two branches), multilinear()
  // in each alone but not in several at once (mul, dot_general). The engine reads it
  // where a custom_jvp rule must be linear in its tangents (src/ad/custom.cpp).
  enum class Linearity : std::uint8_t { none, joint, each };
  OpDef& linear(std::vector<std::size_t> operands = {}) {
    linearity_ = Linearity::joint;
    linear_operands_ = std::move(operands);
    return *this;
  }
  OpDef& multilinear() {
    linearity_ = Linearity::each;
    return *this;
  }
  // Its result is held constant by every derivative, though it follows its operand
  // (stop_gradient): a linear map may read it as a constant.
  OpDef& constant_to_derivatives() {
    constant_to_derivatives_ = true;
    return *this;
  }
  // Its result is its first operand itself where their types agree: it only sums to
  // a shape, broadcasts or converts to another value's type (sum_to_shape_of,
  // convert_like), and tlaloc-grad writes the operand there.
  OpDef& identity_where_same_type() {
    identity_where_same_type_ = true;
    return *this;
  }
  // Where the engine adds this op's result (a share) to the cotangent an operand has so
  // far, and `when` holds for the op's operand count and attributes, the op's C++ call
  // takes that cotangent as one more argument and adds the share's parts to it one at
  // a time, as the engine adds the parts of what the public function records: the
  // transpose of an edge pad (tl::derivatives::pad_backward). tlaloc-grad writes that
  // call, so its sums have the traced gradient's bits.
  using AddsParts = bool (*)(std::size_t operands, const Attrs& attrs);
  OpDef& adds_parts_to_so_far(AddsParts when) {
    adds_parts_ = when;
    return *this;
  }
  bool adds_parts_to_so_far(std::size_t operands, const Attrs& attrs) const {
    return adds_parts_ != nullptr && adds_parts_(operands, attrs);
  }

  // The public functions that record exactly this op, one call one op: their names
  // (tl::transpose and tl::permute), and the attribute each argument after the
  // tensor operands sets, in order; a trailing argument left out leaves its attribute
  // unset. `passes_on`: the function returns its operand itself where the op would
  // not change it (a transpose by the identity), and records nothing. `method`: it is
  // a method of its first operand (x.astype(dtype)). `defaults`: the attributes of
  // arguments left out. `converted`: operand i converted to operand j's dtype first
  // (the updates of index_add, to x's). `by_shape`: the operands the function takes
  // as `t.shape()`, the op reading only their type (tl::derivatives::sum_backward(g,
  // x.shape(), axes)). `symbol`: the C++ operator that records it too (`+`; with one
  // operand, prefix `-`), of as many operands as the op has. `list`: it takes its
  // tensors as one list (tl::concat({a, b}, axis)). `changes`: where it
  // holds for the attributes as written, the function never passes its operand on (a
  // pad by literal widths not all zero). tlaloc-grad records such a call as this op,
  // each attribute as written (Written), and differentiates it by the op's own rules.
  struct PublicCall {
    std::vector<std::string> names = {};
    std::vector<std::string> attributes = {};
    bool passes_on = false;
    bool method = false;
    Attrs defaults = {};
    std::vector<std::pair<std::size_t, std::size_t>> converted = {};
    std::vector<std::size_t> by_shape = {};
    std::string symbol = {};
    bool list = false;
    bool (*changes)(const Attrs& attrs) = nullptr;
  };
  OpDef& called_as(PublicCall c) {
    public_call_ = std::move(c);
    return *this;
  }
  const PublicCall& public_call() const { return public_call_; }

  // Which operands give the result its shape and its dtype, read where types are
  // known at run time only: tlaloc-grad tells by it which values of a generated
  // function share a shape or a dtype (tools/tlaloc-grad/engine_writer.cpp). Each is
  // an operand's index or one of the codes below. Unless an op says otherwise, an
  // elementwise op has its operands' broadcast shape and common dtype (its own dtype
  // where it carries no derivative, as a comparison's bool), any other op its own.
  struct TypeOrigin {
    static constexpr int kOwn = -1;        // the result's own, like no other value's
    static constexpr int kRank0 = -2;      // shape: rank 0
    static constexpr int kBroadcast = -3;  // shape: the operands' broadcast shape
    static constexpr int kCommon = -4;     // dtype: the operands' common dtype, from `common_from` on
    int shape = kOwn, dtype = kOwn;
    std::size_t common_from = 0;
  };
  using TypeOriginRule = std::function<TypeOrigin(const Attrs& attrs)>;
  OpDef& type_origin(TypeOriginRule f) {
    type_origin_ = std::move(f);
    return *this;
  }
  OpDef& type_origin(TypeOrigin fixed) {
    return type_origin([fixed](const Attrs&) { return fixed; });
  }
  TypeOrigin type_origin(const Attrs& attrs) const;

  bool has_shape_rule() const { return bool(shape_rule_); }
  int regions() const { return regions_; }  // -1: any number (case)
  bool has_kernel() const { return kernel_ || region_kernel_; }
  const StableHloSpelling* stablehlo() const { return stablehlo_.name.empty() ? nullptr : &stablehlo_; }
  const StableHloSpelling* chlo() const { return chlo_.name.empty() ? nullptr : &chlo_; }
  // The spelling the emitter writes: StableHLO's, else chlo's (null: neither).
  const StableHloSpelling* written() const { return stablehlo() != nullptr ? stablehlo() : chlo(); }
  bool is_elementwise() const { return elementwise_; }
  bool has_side_effects() const { return side_effects_; }
  const LowerFn& lowering() const { return lower_; }
  const CppSpelling& cpp_spelling() const { return cpp_; }
  const RegionLowerFn& region_lowering() const { return region_lower_; }
  const DerivRule& jvp_rule() const { return jvp_; }
  const DerivRule& vjp_rule() const { return vjp_; }
  bool has_no_derivative() const { return no_derivative_; }
  Linearity linearity() const { return linearity_; }
  // For Linearity::joint: the operands it is linear in (empty: all).
  const std::vector<std::size_t>& linear_operands() const { return linear_operands_; }
  bool is_constant_to_derivatives() const { return constant_to_derivatives_; }
  bool is_identity_where_same_type() const { return identity_where_same_type_; }
  std::size_t partials() const { return partials_; }
  std::size_t results_for(std::size_t operands, const Attrs& attrs) const {
    return result_count_ != nullptr ? result_count_(operands, attrs) : 1;
  }

  std::vector<TensorType> infer(std::span<const TensorType> in, const Attrs& attrs) const;
  std::vector<Tensor> run(std::span<const Tensor> in, const Attrs& attrs,
                          std::span<const TensorType> out) const;
  std::vector<Tensor> run(std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out,
                          const RegionCalls& regions) const;

 private:
  // run() where an operand or result has a narrow type (src/ir/op_narrow.cpp).
  std::vector<Tensor> run_widened(std::span<const Tensor> in, const Attrs& attrs,
                                  std::span<const TensorType> out, const RegionCalls* regions) const;
  bool needs_widening(std::span<const Tensor> in, std::span<const TensorType> out) const;

  std::string name_;
  int arity_ = -1;
  ShapeRule shape_rule_;
  Kernel kernel_;
  int regions_ = 0;
  RegionKernel region_kernel_;
  StableHloSpelling stablehlo_;
  StableHloSpelling chlo_;
  bool elementwise_ = false;
  bool side_effects_ = false;
  bool no_derivative_ = false;
  bool constant_to_derivatives_ = false;
  bool identity_where_same_type_ = false;
  AddsParts adds_parts_ = nullptr;
  Linearity linearity_ = Linearity::none;
  std::vector<std::size_t> linear_operands_;
  LowerFn lower_;
  RegionLowerFn region_lower_;
  PartitionsRule partitions_;
  DerivRule jvp_, vjp_;
  std::size_t partials_ = 0;
  CppSpelling cpp_;
  ResultCount result_count_ = nullptr;
  Calls calls_ = Calls::none;
  std::string calls_attr_;
  bool takes_tokens_ = false;
  bool keeps_narrow_ = false;
  bool on_bits_ = false;
  TypeOriginRule type_origin_;
  PublicCall public_call_;
};

// Registers a new op; the returned reference stays valid for the program's life.
OpDef& def_op(std::string_view name);
const OpDef* find_op(std::string_view name);
std::vector<const OpDef*> all_ops();
// The op whose public function `fn` records it alone (OpDef::called_as), or null.
const OpDef* find_called_as(std::string_view fn);

// A trace: receives op calls that have a symbolic input owned by it.
class Tracer {
 public:
  virtual ~Tracer() = default;
  virtual std::vector<Tensor> record(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs,
                                     std::vector<TensorType> out_types) = 0;
};

std::vector<Tensor> call(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs = {});
inline std::vector<Tensor> call(const OpDef& op, std::initializer_list<Tensor> in, const Attrs& attrs = {}) {
  return call(op, std::span<const Tensor>(in.begin(), in.size()), attrs);
}
Tensor call1(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs = {});
// Records or runs an op whose results' types the caller declares (custom_call has no
// shape rule).
std::vector<Tensor> call_declared(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs,
                                  std::vector<TensorType> out_types);
inline Tensor call1(const OpDef& op, std::initializer_list<Tensor> in, const Attrs& attrs = {}) {
  return call1(op, std::span<const Tensor>(in.begin(), in.size()), attrs);
}

// ---- shared shape rules -------------------------------------------------------
Shape broadcast_shapes(std::string_view op, const Shape& a, const Shape& b);
// For reduce and reduce_window: N inputs of one shape, then N scalar init values.
// Returns N.
std::size_t check_inputs_and_inits(std::string_view op, std::span<const TensorType> in);
TensorType type_of(const Tensor& t);

}  // namespace tlaloc::detail
