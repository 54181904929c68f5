// Finds the tl::grad-family calls of a translation unit and writes the unit again
// with each one it can generate replaced by its generated gradient.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/Frontend/ASTUnit.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tlaloc_grad {

struct Options {
  std::string dump_dir;  // where the .grad.cpp files go
  std::string stem;      // the input's file name, naming them
  bool right_to_left = false;  // call arguments evaluated last to first (GCC)
  // Parses generated code (a file's text and name) as the input was parsed: tl::hessian
  // lowers the gradient it wrote again.
  std::function<std::unique_ptr<clang::ASTUnit>(const std::string& code, const std::string& name)> parse;
};

struct Rewritten {
  std::string text;  // the translation unit; the input unchanged when nothing was generated
  struct Gradient {
    std::string path, text;
  };
  std::vector<Gradient> gradients;
  std::vector<std::string> notes;  // calls left to trace at run time, and why
};

Rewritten rewrite(clang::ASTContext& ctx, const std::string& source, const std::string& input_name, const Options& opt);

}  // namespace tlaloc_grad
