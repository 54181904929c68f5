// tl::gradient_source and its forms (include/tlaloc/transforms.hpp): the program a
// transform runs, traced and differentiated the same way, printed as C++.
#include <fmt/format.h>

#include "ad/engine.hpp"
#include "ad/programs.hpp"
#include "cppgen/cppgen.hpp"
#include "ir/passes.hpp"
#include "tlaloc/transforms.hpp"

namespace tlaloc::detail {

std::string derivative_source(const FlatCall& call, const std::vector<bool>& wrt, SourceForm form) {
  const char* what = form == SourceForm::gradient ? "gradient_source"
                     : form == SourceForm::jvp    ? "jvp_source"
                                                  : "hessian_source";
  std::vector<TensorType> types;
  for (std::size_t i = 0; i < call.args.size(); ++i) {
    const Tensor& a = call.args[i];
    if (!a.defined()) throw ValueError(fmt::format("tl::{}: tensor argument {} is undefined", what, i));
    if (a.is_symbolic())
      throw ValueError(fmt::format("tl::{}: prints host programs; call it outside other transforms", what));
    if (wrt[i] && !is_floating(a.dtype()))
      throw DTypeError(
          fmt::format("tl::{}: tensor argument {} is {}{}; only floating-point tensors can be differentiated",
                      what, i, dtype_name(a.dtype()), shape_string(a.shape())));
    types.push_back(type_of(a));
  }
  const ad::Traced t = ad::trace(what, types, call.fn);
  const std::size_t results = t.f.body.results.size();
  const bool scalar = results == 1 && t.f.type(t.f.body.results[0]).shape.empty();
  if (form != SourceForm::jvp && !scalar)
    throw ValueError(fmt::format("tl::{}: the function must return one scalar tensor", what));
  cppgen::PrintOptions o;
  for (std::size_t i = 0; i < call.args.size(); ++i) o.param_names.push_back(fmt::format("x{}", i));
  ir::Function g;
  if (form == SourceForm::gradient) {
    g = ir::optimize(ad::grad_program(t.f, wrt));
    o.name = "gradient";
    o.comment = {"The gradient of the traced function with respect to x0, as tl::grad computes it."};
  } else if (form == SourceForm::jvp) {
    g = ad::jvp_program(t.f, wrt);
    o.name = "jvp";
    for (std::size_t i = 0; i < wrt.size(); ++i)
      if (wrt[i]) o.param_names.push_back(fmt::format("t{}", i));
    o.comment = {"{f(x...), the derivative of f at x... along the tangents t...}, as tl::jvp computes it."};
  } else {
    g = ad::hvp_program(t.f, 0);
    o.name = "hessian_vector_product";
    o.param_names.push_back("v");
    o.comment = {"The Hessian of the traced function with respect to x0, applied to v."};
  }
  o.comment.push_back("Printed by Tlaloc (tl::" + std::string(what) + ").");
  o.standalone = true;
  return cppgen::print(g, o);
}

}  // namespace tlaloc::detail
