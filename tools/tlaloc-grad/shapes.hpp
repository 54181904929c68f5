// Shapes known at build time. Most shapes exist only at run time, but literal ones
// fix some: tl::zeros({2, 3}), tl::reshape(x, {4, 3}), tl::eye(3). Where every
// tensor operand of an op has a known shape, the op is run on symbolic tensors of
// those types, through the library's own function, so a shape error it would raise
// at run time stops the build (SHAPE_MISMATCH) and its result's shape is known too.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tlaloc_grad {

struct Known {
  std::vector<std::int64_t> shape;
  int dtype = -1;  // a tlaloc::DType, or -1 where only the shape is known
};

// An op's operand as tlaloc-grad lowered it: a tensor (whose type may be known) or
// the C++ text of a scalar, axes or a shape.
struct Operand {
  bool tensor = false;
  std::optional<Known> known;
  std::string text;
};

// What the library said when it refused the operands.
struct ShapeMismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The type of `fn`'s result (a public function with a build-time rule, or one that
// creates a tensor: zeros, ones, full, eye, scalar_tensor, *_like), or nothing where
// it is not known. Throws ShapeMismatch when the library refuses the shapes.
std::optional<Known> result_of(const std::string& fn, const std::vector<Operand>& operands);

// An integer literal ("-2"), or a braced list of them ("{2, 3}": a shape or axes), as
// an operand's text; nothing for any other text.
std::optional<std::int64_t> int_literal(const std::string& text);
std::optional<std::vector<std::int64_t>> int_list(const std::string& text);

// "f32[2,3]", or "?[2,3]" where the dtype is not known.
std::string type_text(const Known& k);

}  // namespace tlaloc_grad
