// Shapes known at build time. Most shapes exist only at run time, but literal ones
// fix some: tl::zeros({2, 3}), tl::reshape(x, {4, 3}), tl::eye(3). Where every
// tensor operand of a call has a known shape, the shape rule of the op standing for
// the call runs on those types, so a shape error the library would raise at run time
// stops the build (SHAPE_MISMATCH) and the result's shape is known too.
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

// The type of `fn`'s result, or nothing where it is not known: the shape rule of the
// op that the public function records or stands for (OpDef::called_as), its
// arguments after the tensors as the op's attributes. Throws ShapeMismatch when the
// library refuses the shapes.
std::optional<Known> result_of(const std::string& fn, const std::vector<Operand>& operands);

// An integer literal ("-2"), or a braced list of them ("{2, 3}", or "{}" empty), as an
// argument's text; nothing for any other text.
std::optional<std::int64_t> int_literal(const std::string& text);
std::optional<std::vector<std::int64_t>> int_list(const std::string& text);

// "f32[2,3]", or "?[2,3]" where the dtype is not known.
std::string type_text(const Known& k);

}  // namespace tlaloc_grad
