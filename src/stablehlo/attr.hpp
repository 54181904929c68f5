// MLIR attribute values as written in StableHLO text, parsed into a small tree,
// and dense element literals (`dense<[1, 2]>`, splats, hex) to and from tensors.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stablehlo/cursor.hpp"
#include "stablehlo/types.hpp"

namespace tlaloc::stablehlo {

struct AttrNode {
  enum class Kind : std::uint8_t {
    integer,      // 3 or 3 : i64 (text holds the literal)
    floating,     // 1.5 or 1.5 : f32
    boolean,      // true / false (text)
    string,       // "abc"
    symbol,       // @name
    array,        // [a, b, ...]
    dense,        // dense<...> : tensor<...> (value holds the tensor)
    dense_array,  // array<i64: 1, 2> (items are integers or booleans)
    dialect,      // #stablehlo<name VALUE> (text=name, word=VALUE) or #stablehlo.name<body>
    unit,         // a name with no value in a dictionary
    type,         // a type used as an attribute (text: its name, where written as a word)
    dict,         // {a = 1, b = [2]}
    function,     // (t, t) -> t  (fn_inputs, fn_results)
  };
  Kind kind = Kind::unit;
  std::string text;
  std::string word;  // an enum attribute's value; the raw body of #stablehlo.name<...>
  std::optional<DType> scalar_type;
  std::vector<AttrNode> items;
  std::vector<std::string> field_names;  // a dictionary's keys, parallel to field_values
  std::vector<AttrNode> field_values;
  Tensor value;
  ir::TensorType type;
  std::vector<ir::TensorType> fn_inputs, fn_results;
  std::size_t pos = 0;  // where it starts in the text, for errors
  std::size_t end = 0;  // where it ends (a dictionary kept as text needs both)

  const AttrNode* field(std::string_view name) const;
};

AttrNode parse_attr(Cursor& c);
// An integer attribute's value; a malformed or out-of-range literal fails at its position.
std::int64_t int_value(const AttrNode& n, Cursor& c);
// `(t1, t2) -> t3` or `-> (t3, t4)`: the cursor is at '('.
std::pair<std::vector<ir::TensorType>, std::vector<ir::TensorType>> parse_function_type(Cursor& c);
std::vector<ir::TensorType> parse_type_list(Cursor& c);  // t or (t, ...) or ()
// `{name = value, flag, ...}` (the braces included).
std::vector<std::pair<std::string, AttrNode>> parse_attr_dict(Cursor& c);
// The `key = value, ...` body of a #stablehlo.name<...> attribute.
std::vector<std::pair<std::string, AttrNode>> parse_fields(const AttrNode& dialect_attr, Cursor& outer);

// While it lives, dense literals parsed on this thread may allocate `bytes` in all
// (ParseOptions::max_constant_bytes); past it parse_dense fails by name.
class ConstantBudget {
 public:
  explicit ConstantBudget(std::size_t bytes);
  ~ConstantBudget();
  ConstantBudget(const ConstantBudget&) = delete;
  ConstantBudget& operator=(const ConstantBudget&) = delete;

 private:
  std::size_t saved_;
};

// `dense<...>` content decoded for the given type (the cursor is after `dense`).
Tensor parse_dense(Cursor& c, const ir::TensorType& type, std::size_t at);
// Reads `dense<...> : tensor<...>` (the cursor is at `dense`).
Tensor parse_dense_with_type(Cursor& c);
std::string dense_text(const Tensor& t);    // `dense<...>` (no type)
std::string float_text(double v, DType t);  // a literal MLIR reads back to the same value

}  // namespace tlaloc::stablehlo
