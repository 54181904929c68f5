// Lowers the body of a differentiated function (a lambda or a function with a
// visible body) from clang's AST to tlaloc-grad's program (program.hpp), refusing
// what it cannot differentiate with a Diagnostic at the construct.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/ExprCXX.h>

#include <string>
#include <vector>

#include "program.hpp"

namespace tlaloc_grad {

Loc location(const clang::SourceManager& sm, clang::SourceLocation l);

// The transform a function is (grad, value_and_grad, jvp, vjp or hessian, as
// tl::<name>), or empty: the calls the tool writes, and refuses inside what it lowers.
std::string transform_name(const clang::NamedDecl& callee);
// Whether t is tl::Tensor (or a reference to one); a std::vector<tl::Tensor>.
bool is_tensor(clang::QualType t);
bool is_tensor_list(clang::QualType t);
// e without the parentheses, implicit conversions, temporaries, cleanups and tensor
// copies around it.
const clang::Expr* strip(const clang::Expr* e);

struct Lowering {
  bool listed = false;         // the gradients come as a std::vector (tl::argnums)
  bool right_to_left = false;  // call arguments are evaluated last to first, as GCC does
  // Only forward mode runs over the program (tl::hessian lowers a generated gradient
  // again): a scalar may be assigned anywhere, the assignment copied where it stands.
  bool forward_only = false;
};

// fn: the function (a lambda's call operator, or a named function); lambda: the
// lambda, whose captures become the generated function's last parameters.
// wrt: the differentiated parameters.
Program lower(clang::ASTContext& ctx, const clang::FunctionDecl& fn, const clang::LambdaExpr* lambda,
              std::string name, std::vector<std::size_t> wrt, const Lowering& how);

}  // namespace tlaloc_grad
