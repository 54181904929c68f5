#include "rewrite.hpp"

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>

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

struct FunctionFinder : RecursiveASTVisitor<FunctionFinder> {
  const SourceManager* sm = nullptr;
  std::string name;
  const FunctionDecl* found = nullptr;
  bool TraverseDecl(Decl* d) { return outside_main_file(*sm, d) || RecursiveASTVisitor::TraverseDecl(d); }
  bool VisitFunctionDecl(FunctionDecl* f) {
    if (f->getNameAsString() == name && f->hasBody()) found = f;
    return true;
  }
};

// Where the code generated for a call is included: the start of the line of the
// declaration at namespace scope around the call.
std::size_t include_point(const SourceManager& sm, const std::string& source, const Decl* top) {
  std::size_t start = sm.getFileOffset(sm.getExpansionLoc(top->getBeginLoc()));
  while (start > 0 && source[start - 1] != '\n') --start;
  return start;
}

// The user's file around the point where a call's gradient is included: the text
// before it, and the braces closing the namespaces open there.
struct Context {
  std::string name, before, after;
};
Context context_of(const SourceManager& sm, const std::string& source, const std::string& name,
                   const Decl* top) {
  Context c{name, source.substr(0, include_point(sm, source, top)), ""};
  for (const DeclContext* d = top->getLexicalDeclContext(); !d->isTranslationUnit();
       d = d->getLexicalParent())
    c.after += "}\n";
  return c;
}

// Forward mode over p's generated gradient, as the engine runs jvp over grad: the
// gradient's text is parsed again where the user's build includes it, after the
// user's code before the call's declaration (so it sees the user's types and
// functions, as it does there), and lowered like a user's function; what it cannot
// take is refused at the call, in the words of `transform`. The gradient is left in
// the dump directory too (`gradient`), since the derivative's comments give its lines.
Program gradient_again(const Program& p, const Options& opt, const Context& around, const Loc& at,
                       const std::string& transform, Rewritten::Gradient& gradient) {
  Program g = p;
  g.name = p.name + "_gradient";
  const std::string file = opt.stem + "." + g.name + ".grad.cpp";
  gradient = {(std::filesystem::path(opt.dump_dir) / file).string(), emit_gradient(g, false)};
  std::unique_ptr<ASTUnit> ast = opt.parse(
      around.before + "#line 1 \"" + gradient.path + "\"\n" + gradient.text + around.after, around.name);
  if (!ast || ast->getDiagnostics().hasErrorOccurred())
    refuse(Code::unsupported_construct, at,
           transform + ": the generated gradient does not compile (errors above)");
  FunctionFinder finder;
  finder.sm = &ast->getSourceManager();
  finder.name = g.name;
  finder.TraverseDecl(ast->getASTContext().getTranslationUnitDecl());
  if (finder.found == nullptr)
    refuse(Code::unsupported_construct, at,
           transform + ": the generated gradient '" + g.name + "' was not found again");
  Program q;
  try {
    q = lower(ast->getASTContext(), *finder.found, nullptr, p.name + "_gradient_jvp", {p.wrt.at(0)},
              {.right_to_left = opt.right_to_left, .forward_only = true});
  } catch (const Diagnostic& d) {
    // The gradient stays in the dump directory, for the line the message names.
    std::filesystem::create_directories(opt.dump_dir);
    std::ofstream(gradient.path) << gradient.text;
    refuse(d.code, at,
           transform + ": the generated gradient, differentiated again, at " + gradient.path + ":" +
               std::to_string(d.loc.line) + ": " + d.what());
  }
  keep_until_exit(std::move(ast));
  q.headers = p.headers;
  q.what = "the gradient of " + p.what + " (" + file + ")";
  return q;
}

// tl::hessian: forward mode over the generated gradient along each basis vector, as
// the engine runs jacfwd over jacrev.
std::string hessian(const Program& p, const Options& opt, const Context& around, const Loc& at,
                    Rewritten::Gradient& gradient) {
  return emit_hessian(p, gradient_again(p, opt, around, at, "tl::hessian", gradient));
}

// tl::jvp(tl::grad(f), x, t): forward mode over the generated gradient along t, the
// Hessian-vector product (JAX's jvp(grad(f))). It is called as any generated jvp is:
// (x, t, captures...).
std::string gradient_jvp(const Program& p, const Options& opt, const Context& around, const Loc& at,
                         Rewritten::Gradient& gradient) {
  const Param& x = p.params[p.wrt.at(0)];
  if (x.list || x.named || x.value < 0)
    refuse(Code::unsupported_construct, at,
           "tl::jvp of tl::grad: the gradient with respect to '" + x.name +
               "', which is not a tensor, is not a function tl::jvp can take");
  Program q = gradient_again(p, opt, around, at, "tl::jvp of tl::grad", gradient);
  q.name = p.name;
  q.explicit_params = p.explicit_params;
  return emit_jvp(q);
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
    const std::string name =
        f.transform + (over != nullptr ? "_grad_" : "_") + target->label + "_" + std::to_string(at.line);
    const Program p = lower(ctx, *target->fn, target->lambda, name, wrt,
                            {.listed = listed, .right_to_left = opt.right_to_left});
    const std::string file = opt.stem + "." + name + ".grad.cpp";
    const std::string path = (std::filesystem::path(opt.dump_dir) / file).string();
    if (f.transform == "hessian" || over != nullptr) {
      Rewritten::Gradient gradient;
      const Context around = context_of(sm, source, input_name, f.top);
      std::string text = over != nullptr ? gradient_jvp(p, opt, around, at, gradient)
                                         : hessian(p, opt, around, at, gradient);
      result.gradients.push_back(std::move(gradient));
      result.gradients.push_back({path, std::move(text)});
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
    const std::size_t line_start = include_point(sm, source, f.top);
    const unsigned line = sm.getExpansionLineNumber(f.top->getBeginLoc());
    // The gradient's hash beside its #include: when the gradient changes, so does this
    // file, and the build recompiles it (the build tool watches this file, not the
    // gradients it includes).
    const std::size_t hash = std::hash<std::string>{}(result.gradients.back().text);
    edits[line_start].second += "#include \"" + path + "\"  // " + fmt_hex(hash) + "\n#line " + std::to_string(line) +
                                " \"" + input_name + "\"\n";
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
