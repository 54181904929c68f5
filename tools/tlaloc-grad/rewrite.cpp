#include "rewrite.hpp"

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "emit.hpp"
#include "lower.hpp"
#include "parse.hpp"

namespace tlaloc_grad {

using namespace clang;

namespace {

struct Found {
  const CallExpr* call;
  std::string transform;
  const Decl* top;
  bool dependent;  // inside a template, on its parameters
};

// Only the main file's declarations are searched: the headers' would be read out
// of a precompiled header and walked for nothing.
bool outside_main_file(const SourceManager& sm, const Decl* d) {
  return d != nullptr && !isa<TranslationUnitDecl>(d) &&
         !sm.isInMainFile(sm.getExpansionLoc(d->getLocation()));
}

// The calls of transforms in the main file, each with the declaration at namespace
// scope written around it (the innermost whose lexical context is a namespace or the
// file), before which its generated function is included.
struct Finder : RecursiveASTVisitor<Finder> {
  const SourceManager* sm = nullptr;
  std::vector<Found> found;
  const Decl* top = nullptr;
  bool TraverseDecl(Decl* d) {
    if (outside_main_file(*sm, d)) return true;
    const Decl* outer = top;
    if (d != nullptr && !isa<TranslationUnitDecl>(d) && d->getLexicalDeclContext()->isFileContext()) top = d;
    const bool more = RecursiveASTVisitor::TraverseDecl(d);
    top = outer;
    return more;
  }
  bool VisitCallExpr(CallExpr* c) {
    if (!sm->isInMainFile(sm->getExpansionLoc(c->getBeginLoc()))) return true;
    // Inside a template, a call whose arguments depend on its parameters (a lambda
    // does) names its function only by lookup, resolved per instantiation.
    const NamedDecl* callee = c->getDirectCallee();
    const auto* lookup = dyn_cast<UnresolvedLookupExpr>(c->getCallee()->IgnoreParenImpCasts());
    if (callee == nullptr && lookup != nullptr && lookup->getNumDecls() > 0) callee = *lookup->decls_begin();
    if (callee == nullptr) return true;
    if (std::string t = transform_name(*callee); !t.empty())
      found.push_back({c, std::move(t), top, c->getDirectCallee() == nullptr});
    return true;
  }
};

// The function a transform was given: a lambda (inline, or a variable initialized
// with one) or a named function, with a visible body.
struct Target {
  const FunctionDecl* fn = nullptr;
  const LambdaExpr* lambda = nullptr;
  std::string label;     // for the generated name
  std::string variable;  // the variable holding the lambda, if one does
};

std::optional<Target> target_of(const Expr* e) {
  for (;;) {
    e = e->IgnoreParenImpCasts();
    if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
    else if (const auto* c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() == 1) e = c->getArg(0);
    else if (const auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) e = b->getSubExpr();
    else if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf) e = u->getSubExpr();
    else break;
  }
  if (const auto* l = dyn_cast<LambdaExpr>(e)) return Target{l->getCallOperator(), l, "lambda"};
  const auto* ref = dyn_cast<DeclRefExpr>(e);
  if (ref == nullptr) return std::nullopt;
  if (const auto* fd = dyn_cast<FunctionDecl>(ref->getDecl())) {
    const FunctionDecl* def = nullptr;
    if (!fd->hasBody(def)) return std::nullopt;
    return Target{def, nullptr, fd->getNameAsString()};
  }
  if (const auto* v = dyn_cast<VarDecl>(ref->getDecl()); v && v->hasInit()) {
    auto t = target_of(v->getInit());
    if (t && t->lambda != nullptr) t->label = t->variable = v->getNameAsString();
    return t;
  }
  return std::nullopt;
}

// The `tl::grad(f)` a tl::jvp was given as its function, if it was given one: written
// there, or held in a variable of the type tl::grad returns (`auto hg = tl::grad(f);`,
// named in `held`), which holds f's gradient and no other function's.
const CallExpr* gradient_given(const Expr* e, std::string& held) {
  e = strip(e);
  const VarDecl* v = nullptr;
  if (const auto* ref = dyn_cast<DeclRefExpr>(e)) {
    v = dyn_cast<VarDecl>(ref->getDecl());
    if (v == nullptr || !v->hasInit()) return nullptr;
    e = strip(v->getInit());
  }
  const auto* c = dyn_cast<CallExpr>(e);
  if (c == nullptr || c->getDirectCallee() == nullptr || c->getNumArgs() != 1 ||
      transform_name(*c->getDirectCallee()) != "grad")
    return nullptr;
  if (v != nullptr) {
    const auto bare = [](QualType t) { return t.getCanonicalType().getUnqualifiedType(); };
    if (bare(v->getType()) != bare(c->getType())) return nullptr;
    held = v->getNameAsString();
  }
  return c;
}

std::string fmt_hex(std::size_t v) {
  static const char* digits = "0123456789abcdef";
  std::string r(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) r[std::size_t(i)] = digits[v & 15];
  return r;
}

// tl::grad(f, tl::argnums{2, 0}): the arguments listed, in their order ({0} without a list).
std::vector<std::size_t> argnums_of(const CallExpr* c, const SourceManager& sm, const LangOptions& lo) {
  if (c->getNumArgs() < 2) return {0};
  const std::string text(Lexer::getSourceText(CharSourceRange::getTokenRange(c->getArg(1)->getSourceRange()), sm, lo));
  std::vector<std::size_t> list;
  std::string digits;
  for (char ch : text.substr(text.find('{') == std::string::npos ? 0 : text.find('{')) + ",") {
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      digits += ch;
    } else if (ch == ',' || ch == '}') {
      if (!digits.empty()) list.push_back(std::stoul(digits));
      digits.clear();
    } else if (ch != ' ' && ch != '{') {
      refuse(Code::unsupported_construct, location(sm, c->getBeginLoc()), "argnums '" + text + "' is not a list of literals");
    }
  }
  if (list.empty())
    refuse(Code::unsupported_construct, location(sm, c->getBeginLoc()), "argnums '" + text + "' is not a list of literals");
  return list;
}

// `name`, or where a call of the file was given it already (the same transform of
// the same function twice on a line), name_2, name_3, ...
std::string unique_name(const std::string& name, std::set<std::string>& taken) {
  std::string unique = name;
  for (int k = 2; !taken.insert(unique).second; ++k) unique = name + "_" + std::to_string(k);
  return unique;
}

// Where the code generated for a call is included: the start of the line of the
// declaration at namespace scope around the call.
std::size_t include_point(const SourceManager& sm, const std::string& source, const Decl* top) {
  std::size_t start = sm.getFileOffset(sm.getExpansionLoc(top->getBeginLoc()));
  while (start > 0 && source[start - 1] != '\n') --start;
  return start;
}

// The braces closing the namespaces open around a declaration at namespace scope.
std::string closing_braces(const Decl* top) {
  std::string braces;
  for (const DeclContext* d = top->getLexicalDeclContext(); !d->isTranslationUnit();
       d = d->getLexicalParent())
    braces += "}\n";
  return braces;
}

// Forward mode over a generated gradient, as the engine runs jvp over grad: the
// gradient's text is parsed again where the user's build includes it (so it sees the
// user's types and functions, as it does there) and lowered like a user's function;
// what it cannot take is refused at the call, in the words of `transform`. The
// gradient is left in the dump directory too, since the derivative's comments give
// its lines. Every such gradient of a file is parsed in one pass (`Again`).
struct Again {
  Program p;              // the function differentiated
  std::size_t at_offset;  // the include point, in the file
  unsigned line;          // its line
  std::string closing;    // the braces closing the namespaces open there
  Loc at;                 // the call
  bool hessian;           // else tl::jvp of tl::grad
  std::size_t slot;       // result.gradients[slot]: the gradient; [slot + 1]: the derivative
  std::string transform() const { return hessian ? "tl::hessian" : "tl::jvp of tl::grad"; }
  std::string name() const { return p.name + "_gradient"; }
};

// tl::jvp of tl::grad differentiates the gradient with respect to a tensor only.
void refuse_gradient_of_non_tensor(const Program& p, const Loc& at) {
  const Param& x = p.params[p.wrt.at(0)];
  if (x.list || x.named || x.value < 0)
    refuse(Code::unsupported_construct, at,
           "tl::jvp of tl::grad: the gradient with respect to '" + x.name +
               "', which is not a tensor, is not a function tl::jvp can take");
}

Rewritten::Gradient gradient_of(const Program& p, const Options& opt) {
  Program g = p;
  g.name = p.name + "_gradient";
  const std::string file = opt.stem + "." + g.name + ".grad.cpp";
  return {(std::filesystem::path(opt.dump_dir) / file).string(), emit_gradient(g, false)};
}

// The gradient's function `fn` (parsed again) lowered in forward mode, and the derivative written.
std::string differentiate_again(const Again& a, const FunctionDecl& fn, const Options& opt,
                                const Rewritten::Gradient& gradient) {
  Program q;
  try {
    q = lower(fn.getASTContext(), fn, nullptr, a.p.name + "_gradient_jvp", {a.p.wrt.at(0)},
              {.right_to_left = opt.right_to_left, .forward_only = true});
  } catch (const Diagnostic& d) {
    // The gradient stays in the dump directory, for the line the message names.
    std::filesystem::create_directories(opt.dump_dir);
    std::ofstream(gradient.path) << gradient.text;
    refuse(d.code, a.at,
           a.transform() + ": the generated gradient, differentiated again, at " + gradient.path + ":" +
               std::to_string(d.loc.line) + ": " + d.what());
  }
  q.headers = a.p.headers;
  q.what =
      "the gradient of " + a.p.what + " (" + std::filesystem::path(gradient.path).filename().string() + ")";
  // tl::hessian: forward mode along each basis vector, as the engine runs jacfwd over
  // jacrev. tl::jvp(tl::grad(f), x, t): along t, the Hessian-vector product (JAX's
  // jvp(grad(f))), called as any generated jvp is: (x, t, captures...).
  if (a.hessian) return emit_hessian(a.p, q);
  q.name = a.p.name;
  q.explicit_params = a.p.explicit_params;
  return emit_jvp(q);
}

// The functions with bodies a parse of the main file defines, by name (several of one
// name: null).
struct Functions : RecursiveASTVisitor<Functions> {
  const SourceManager* sm = nullptr;
  std::map<std::string, const FunctionDecl*> named;
  bool TraverseDecl(Decl* d) { return outside_main_file(*sm, d) || RecursiveASTVisitor::TraverseDecl(d); }
  bool VisitFunctionDecl(FunctionDecl* f) {
    if (!f->hasBody()) return true;
    const auto [it, fresh] = named.emplace(f->getNameAsString(), f);
    if (!fresh && it->second != f) it->second = nullptr;
    return true;
  }
  const FunctionDecl* find(const std::string& name) const {
    const auto it = named.find(name);
    return it == named.end() ? nullptr : it->second;
  }
};
Functions functions_of(ASTUnit& ast) {
  Functions fs;
  fs.sm = &ast.getSourceManager();
  fs.TraverseDecl(ast.getASTContext().getTranslationUnitDecl());
  return fs;
}

// One gradient parsed again alone: after the user's code before its include point.
// Refuses, at the call, a gradient that does not compile.
void again_alone(const Again& a, const std::string& source, const std::string& name, const Options& opt,
                 Rewritten& result) {
  const Rewritten::Gradient& gradient = result.gradients[a.slot];
  std::unique_ptr<ASTUnit> ast = opt.parse(
      source.substr(0, a.at_offset) + "#line 1 \"" + gradient.path + "\"\n" + gradient.text + a.closing,
      name);
  if (!ast || ast->getDiagnostics().hasErrorOccurred())
    refuse(Code::unsupported_construct, a.at,
           a.transform() + ": the generated gradient does not compile (errors above)");
  const FunctionDecl* fn = functions_of(*ast).find(a.name());
  if (fn == nullptr)
    refuse(Code::unsupported_construct, a.at,
           a.transform() + ": the generated gradient '" + a.name() + "' was not found again");
  result.gradients[a.slot + 1].text = differentiate_again(a, *fn, opt, gradient);
  keep_until_exit(std::move(ast));
}

// The gradients of a file's tl::hessian and tl::jvp(tl::grad(f)) calls, parsed again
// together: the file with each gradient at its include point, as the build includes
// them (one parse instead of one per call, each of the file before it: a file of 25
// Hessians took 13 s). Where that parse fails, each is parsed alone, which names the
// call whose gradient does not compile.
void differentiate_gradients(const std::vector<Again>& again, const std::string& source,
                             const std::string& name, const Options& opt, Rewritten& result) {
  if (again.empty()) return;
  std::vector<const Again*> in_file(again.size());
  std::transform(again.begin(), again.end(), in_file.begin(), [](const Again& a) { return &a; });
  std::stable_sort(in_file.begin(), in_file.end(),
                   [](auto* a, auto* b) { return a->at_offset < b->at_offset; });
  std::string text;
  std::size_t copied = 0;
  for (const Again* a : in_file) {
    text += source.substr(copied, a->at_offset - copied);
    copied = a->at_offset;
    const Rewritten::Gradient& gradient = result.gradients[a->slot];
    text += "#line 1 \"" + gradient.path + "\"\n" + gradient.text + "\n#line " + std::to_string(a->line) +
            " \"" + name + "\"\n";
  }
  text += source.substr(copied);
  std::unique_ptr<ASTUnit> ast = opt.parse(text, name);
  std::optional<Functions> fs;
  if (ast && !ast->getDiagnostics().hasErrorOccurred()) fs = functions_of(*ast);
  for (const Again& a : again) {
    if (const FunctionDecl* fn = fs ? fs->find(a.name()) : nullptr)
      result.gradients[a.slot + 1].text = differentiate_again(a, *fn, opt, result.gradients[a.slot]);
    else
      again_alone(a, source, name, opt, result);
  }
  keep_until_exit(std::move(ast));
}

}  // namespace

Rewritten rewrite(ASTContext& ctx, const std::string& source, const std::string& input_name, const Options& opt) {
  const SourceManager& sm = ctx.getSourceManager();
  Finder finder;
  finder.sm = &sm;
  finder.TraverseDecl(ctx.getTranslationUnitDecl());
  Rewritten result;
  // Edits to the source by offset: the length replaced and the text put there. The
  // #include lines go in at line starts (nothing replaced), the calls' replacements
  // later on their lines, so no two edits share an offset or overlap.
  std::map<std::size_t, std::pair<std::size_t, std::string>> edits;
  // The tl::grad calls written inside a tl::jvp generated with them (the finder lists
  // a call before those in its arguments).
  std::set<const CallExpr*> inside;
  // The derivatives of generated gradients, written after the loop, and each call's
  // #include of what was generated for it (result.gradients[slot]).
  std::vector<Again> again;
  struct Include {
    std::size_t offset;
    unsigned line;
    std::size_t slot;
  };
  std::vector<Include> includes;
  std::set<std::string> names;
  for (const Found& f : finder.found) {
    if (inside.count(f.call) != 0) continue;
    const Loc at = location(sm, f.call->getBeginLoc());
    const std::string where = at.file + ":" + std::to_string(at.line);
    if (f.dependent) {
      result.notes.push_back(
          where + ": note: tl::" + f.transform +
          " inside a template is left to trace at run time: its generated code would be one text "
          "for every instantiation");
      continue;
    }
    // tl::jvp(tl::grad(f), x, t) differentiates f's gradient.
    std::string held;
    const CallExpr* over = f.transform == "jvp" ? gradient_given(f.call->getArg(0), held) : nullptr;
    const auto target = target_of(over != nullptr ? over->getArg(0) : f.call->getArg(0));
    if (!target) {
      result.notes.push_back(where + ": note: tl::" + f.transform +
                             " is left to trace at run time: its function has no body tlaloc-grad can see");
      continue;
    }
    const bool forward = f.transform == "jvp", pullback = f.transform == "vjp";
    // tl::vjp(f, x, y, ...) and tl::jvp(f, x, t) take tensors; tl::jvp(f, xs, ts) also
    // lists of them, for a function of a std::vector<tl::Tensor>.
    bool tensors = true, lists = forward;
    for (unsigned i = 1; i < f.call->getNumArgs(); ++i) {
      tensors = tensors && is_tensor(f.call->getArg(i)->getType());
      lists = lists && is_tensor_list(f.call->getArg(i)->getType());
    }
    if ((forward && (f.call->getNumArgs() != 3 || !(tensors || lists))) || (pullback && !tensors) ||
        (over != nullptr && !tensors)) {
      result.notes.push_back(where + ": note: tl::" + f.transform +
                             " of arguments neither tensors nor lists of them is left to trace at run time");
      continue;
    }
    std::vector<std::size_t> wrt{0};
    if (pullback) {
      wrt.clear();
      for (std::size_t i = 0; i + 1 < f.call->getNumArgs(); ++i) wrt.push_back(i);
    } else if (!forward) {
      wrt = argnums_of(f.call, sm, ctx.getLangOpts());
    }
    const bool listed = !forward && !pullback && f.call->getNumArgs() > 1;
    const std::string name = unique_name(
        f.transform + (over != nullptr ? "_grad_" : "_") + target->label + "_" + std::to_string(at.line),
        names);
    const Program p = lower(ctx, *target->fn, target->lambda, name, wrt,
                            {.listed = listed, .right_to_left = opt.right_to_left});
    const std::string file = opt.stem + "." + name + ".grad.cpp";
    const std::string path = (std::filesystem::path(opt.dump_dir) / file).string();
    if (f.transform == "hessian" || over != nullptr) {
      if (over != nullptr) refuse_gradient_of_non_tensor(p, at);
      // The derivative is written once the gradient is parsed again (differentiate_gradients).
      again.push_back({p, include_point(sm, source, f.top), sm.getExpansionLineNumber(f.top->getBeginLoc()),
                       closing_braces(f.top), at, over == nullptr, result.gradients.size()});
      result.gradients.push_back(gradient_of(p, opt));
      result.gradients.push_back({path, ""});
      if (over != nullptr && held.empty()) inside.insert(over);
    } else {
      result.gradients.push_back({path, forward    ? emit_jvp(p)
                                        : pullback ? emit_vjp(p)
                                                   : emit_gradient(p, f.transform == "value_and_grad")});
    }

    // The call becomes a lambda calling the generated function, with the same
    // parameters; captured variables are passed by name from the call's scope.
    std::string params, args;
    // The lambda's parameters get names of their own, which no variable at the
    // call can share (they would shadow it).
    for (std::size_t i = 0; i < p.params.size(); ++i) {
      const Param& prm = p.params[i];
      std::string arg = prm.outer;
      if (i < p.explicit_params) {
        arg = "tlaloc_arg" + std::to_string(i);
        params += (params.empty() ? "" : ", ") + (prm.value >= 0 ? std::string("const ::tlaloc::Tensor&") : prm.type) +
                  " " + arg;
      }
      args += (i ? ", " : "") + arg;
    }
    // The lambda variable is named so that it stays used.
    const std::string keep = target->variable.empty() ? "" : "(void)" + target->variable + "; ";
    const std::string call = "tlaloc_generated::" + name + "(" + args + ")";
    std::string replacement = "[&](" + params + ") { " + keep + "return " + call + "; }";
    if (forward || pullback) {
      // tl::jvp(f, x, t) and tl::vjp(f, x) are calls, not functions: the generated one
      // is called in their place.
      const auto arg_text = [&](unsigned i) {
        return std::string(Lexer::getSourceText(CharSourceRange::getTokenRange(f.call->getArg(i)->getSourceRange()), sm,
                                                ctx.getLangOpts()));
      };
      std::string rest;
      for (std::size_t i = p.explicit_params; i < p.params.size(); ++i) rest += ", " + p.params[i].outer;
      std::string used = target->variable.empty() ? "" : "(void)" + target->variable + ", ";
      if (!held.empty()) used += "(void)" + held + ", ";
      std::string given;
      for (unsigned i = 1; i < f.call->getNumArgs(); ++i) given += (i > 1 ? ", " : "") + arg_text(i);
      replacement = "(" + used + "tlaloc_generated::" + name + "(" + given + rest + "))";
    }
    const CharSourceRange range = CharSourceRange::getTokenRange(f.call->getSourceRange());
    const std::size_t b = sm.getFileOffset(sm.getExpansionLoc(range.getBegin()));
    const std::size_t e = sm.getFileOffset(Lexer::getLocForEndOfToken(sm.getExpansionLoc(range.getEnd()), 0, sm, ctx.getLangOpts()));
    edits[b] = {e - b, replacement};
    includes.push_back({include_point(sm, source, f.top), sm.getExpansionLineNumber(f.top->getBeginLoc()),
                        result.gradients.size() - 1});
  }
  differentiate_gradients(again, source, input_name, opt, result);
  for (const Include& i : includes) {
    // The gradient's hash beside its #include: when the gradient changes, so does this
    // file, and the build recompiles it (the build tool watches this file, not the
    // gradients it includes).
    const Rewritten::Gradient& g = result.gradients[i.slot];
    edits[i.offset].second += "#include \"" + g.path + "\"  // " + fmt_hex(std::hash<std::string>{}(g.text)) +
                              "\n#line " + std::to_string(i.line) + " \"" + input_name + "\"\n";
  }
  if (result.gradients.empty()) {
    result.text = source;
    return result;
  }
  // From the last edit to the first, so that each one's offset is still right.
  std::string out = source;
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) out.replace(it->first, it->second.first, it->second.second);
  result.text = "#line 1 \"" + input_name + "\"\n" + out;
  return result;
}

}  // namespace tlaloc_grad
