// How ops are written in printed C++ (src/cppgen). Each op's spelling sits beside
// its def_op (`.cpp(...)`) and calls only the public API, so the printed code runs
// the op's own kernel: the same bits as the interpreter. A spelling returns the
// expression computing the op (a tl::Tensor for one result, a
// std::vector<tl::Tensor> for several); control-flow ops write statements through
// CppOp and return "".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/op.hpp"

namespace tlaloc::detail {

// One op being printed, as its spelling sees it.
class CppOp {
 public:
  virtual ~CppOp() = default;
  virtual std::size_t num_operands() const = 0;
  // The C++ expression naming operand i (a local variable).
  virtual const std::string& operand(std::size_t i) const = 0;
  virtual const TensorType& operand_type(std::size_t i) const = 0;
  virtual std::size_t num_results() const = 0;
  virtual const TensorType& result_type(std::size_t i) const = 0;
  virtual const Attrs& attrs() const = 0;
  virtual std::size_t num_regions() const = 0;

  // Region k as a lambda over `const tl::Tensor&` arguments returning a tl::Tensor
  // (one result) or a std::vector<tl::Tensor>.
  virtual std::string lambda(std::size_t k) = 0;

  // For statements: the names the results get; the spelling declares them.
  virtual const std::string& result(std::size_t i) const = 0;
  virtual void line(const std::string& text) = 0;  // one line at the current indentation
  virtual void open(const std::string& head) = 0;  // `head {`, then indent
  virtual void close(const std::string& tail = "}") = 0;
  // Closes a block and opens the next on one line: `} else {`.
  virtual void reopen(const std::string& text) = 0;
  // Region k's ops as statements, its arguments bound to the given names; returns
  // the expressions of its results.
  virtual std::vector<std::string> region(std::size_t k, const std::vector<std::string>& args) = 0;
  // A new local name starting with `stem`.
  virtual std::string fresh(std::string_view stem) = 0;
};

// ---- pieces of C++ text ------------------------------------------------------------
std::string cpp_ints(const std::vector<std::int64_t>& v);  // {1, 2}
std::string cpp_shape(const Shape& s);                     // {2, 3} (tl::Shape{} when empty)
std::string cpp_axes(const std::vector<std::int64_t>& v);  // {0, 1}; an empty list is not "all axes"
// The text of attribute `name` where it is known at run time only (Written), else null.
const std::string* cpp_written(const Attrs& a, std::string_view name);
// Attribute `name` as a C++ argument: its written text, or its value (an integer, a
// list of them, a bool, a double or a dtype).
std::string cpp_attr(const Attrs& a, std::string_view name);
std::string cpp_dtype(DType t);                            // tl::DType::f32
std::string cpp_bool(bool b);
std::string cpp_double(double v);                          // exact: 0.1, 1.0, 1e-05, inf spelled out
std::string cpp_string(std::string_view s);                // "text" with escapes
// The value of a host tensor as an expression: scalar_tensor, full or tensor.
std::string cpp_value(const Tensor& t);
// `name(operand0, ..., extra...)`.
std::string cpp_call(std::string_view name, const CppOp& op, const std::vector<std::string>& extra = {});
std::string cpp_list(const std::vector<std::string>& items);  // a, b, c

// The C++ name of module function `name` (src/cppgen prints a module's functions
// under these names; `call` and `composite` call them): fn_ and the name, each
// character outside [A-Za-z0-9_] written as _.
std::string cpp_function_name(std::string_view name);

// ---- arguments shared by a static op and its dynamic-shape twin ---------------------
// tl::lax::ConvDimensionNumbers{...}, window strides, [padding low, padding high,]
// lhs and rhs dilation, window reversal and the group counts, defaults filled in
// (src/ops/convolution.cpp).
std::vector<std::string> cpp_conv_arguments(const Attrs& a, bool padding);
// tl::lax::GatherDimensionNumbers{...} (src/ops/gather.cpp).
std::string cpp_gather_dimension_numbers(const Attrs& a);

// ---- statements (control flow) ----------------------------------------------------
// `tl::Tensor r0, r1;`: the op's results, assigned later.
void cpp_declare_results(CppOp& op);
// targets[i] = values[i] for all i at once (a value may name another target).
void cpp_assign(CppOp& op, const std::vector<std::string>& targets, const std::vector<std::string>& values);
// The op's results as loop-carried variables, starting at its operands from `first`.
std::vector<std::string> cpp_carry(CppOp& op, std::size_t first, std::size_t count);

// ---- common spellings -------------------------------------------------------------
// `fn(operands...)`.
CppSpelling cpp_fn(std::string fn);
// `fn(operands..., attributes...)`: those of the named attributes the op has, in
// order (a public call's trailing arguments, the ones left out absent).
CppSpelling cpp_fn_with(std::string fn, std::vector<std::string> attributes);
// `a op b` (operators of the public API: + - * / % < ...).
CppSpelling cpp_infix(std::string op);
// An op that runs its region 0 on its operands: the region's statements in place,
// the results named after them.
std::string cpp_inline_region(CppOp& op);

}  // namespace tlaloc::detail
