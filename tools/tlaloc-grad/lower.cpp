#include "lower.hpp"

#include <clang/AST/QualTypeNames.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "rules.hpp"
#include "shapes.hpp"

namespace tlaloc_grad {

using namespace clang;

Loc location(const SourceManager& sm, SourceLocation l) {
  const PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(l));
  if (p.isInvalid()) return {};
  return {p.getFilename(), p.getLine(), p.getColumn()};
}

namespace {

bool is_tensor(QualType t) {
  const auto* r = t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  return r != nullptr && r->getQualifiedNameAsString() == "tlaloc::Tensor";
}

// A function with a custom derivative rule (tl::custom_vjp / tl::custom_jvp).
bool is_custom(QualType t) {
  const auto* r = t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  return r != nullptr && r->getQualifiedNameAsString() == "tlaloc::CustomFunction";
}

const Expr* strip(const Expr* e) {
  for (;;) {
    e = e->IgnoreParens();
    if (const auto* c = dyn_cast<ExprWithCleanups>(e)) e = c->getSubExpr();
    else if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
    else if (const auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) e = b->getSubExpr();
    else if (const auto* i = dyn_cast<ImplicitCastExpr>(e)) e = i->getSubExpr();
    else if (const auto* k = dyn_cast<CXXConstructExpr>(e); k && k->getNumArgs() == 1 && is_tensor(k->getType()))
      e = k->getArg(0);
    else return e;
  }
}

// Whether a statement contains a `return` (not counting nested lambdas).
bool has_return(const Stmt* s) {
  if (s == nullptr) return false;
  if (isa<ReturnStmt>(s)) return true;
  if (isa<LambdaExpr>(s)) return false;
  for (const Stmt* c : s->children())
    if (has_return(c)) return true;
  return false;
}

// The tensor variables a statement assigns to (loop-carried values).
void assigned_tensors(const Stmt* s, std::set<const ValueDecl*>& out) {
  if (s == nullptr) return;
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s); op && op->isAssignmentOp() && op->getNumArgs() == 2)
    if (const auto* ref = dyn_cast<DeclRefExpr>(op->getArg(0)->IgnoreParenImpCasts()); ref && is_tensor(ref->getType()))
      out.insert(ref->getDecl());
  for (const Stmt* c : s->children()) assigned_tensors(c, out);
}

std::vector<const Stmt*> statements(const Stmt* s) {
  if (s == nullptr) return {};
  if (const auto* c = dyn_cast<CompoundStmt>(s)) return {c->body_begin(), c->body_end()};
  return {s};
}

const char* operator_rule(OverloadedOperatorKind k, unsigned args) {
  switch (k) {
    case OO_Plus: return args == 2 ? "add" : nullptr;
    case OO_Minus: return args == 2 ? "sub" : "neg";
    case OO_Star: return "mul";
    case OO_Slash: return "div";
    default: return nullptr;
  }
}
const char* compound_rule(OverloadedOperatorKind k) {
  switch (k) {
    case OO_PlusEqual: return "add";
    case OO_MinusEqual: return "sub";
    case OO_StarEqual: return "mul";
    case OO_SlashEqual: return "div";
    default: return nullptr;
  }
}

class Lowerer {
 public:
  Lowerer(ASTContext& ctx, Program& p, bool right_to_left)
      : ctx_(ctx), sm_(ctx.getSourceManager()), p_(p), right_to_left_(right_to_left) {}

  void function(const FunctionDecl& fn, const LambdaExpr* lambda) {
    reserve_names(fn.getBody());
    for (const ParmVarDecl* pd : fn.parameters()) param(pd, pd->getType(), true);
    p_.explicit_params = p_.params.size();
    if (lambda != nullptr)
      for (const LambdaCapture& c : lambda->captures()) {
        if (!c.capturesVariable())
          refuse(Code::unsupported_construct, loc(c.getLocation()), "capturing `this` (capture the members you need)");
        const auto* var = cast<VarDecl>(c.getCapturedVar());
        param(var, var->getType(), false);
      }
    if (p_.wrt >= p_.explicit_params || p_.params[p_.wrt].value < 0)
      refuse(Code::not_differentiable, p_.loc, "parameter " + std::to_string(p_.wrt) + " is not a tl::Tensor");
    const auto r = block(statements(fn.getBody()), 0, p_.body);
    if (!r) refuse(Code::unsupported_construct, loc(fn.getEndLoc()), "the function ends without returning a tensor");
    p_.result = *r;
  }

 private:
  ASTContext& ctx_;
  const SourceManager& sm_;
  Program& p_;
  bool right_to_left_;
  std::map<const ValueDecl*, ValueId> tensors_;      // each tensor variable's current value
  std::map<ValueId, Known> known_;                    // types known at build time
  std::map<const ValueDecl*, std::string> renamed_;  // variables of inlined functions
  std::set<std::string> names_, reserved_;
  std::set<const VarDecl*> carried_scalars_;  // scalars a loop changes
  Node* loop_ = nullptr;                      // the loop being lowered
  std::vector<const FunctionDecl*> inlining_;
  int structured_ = 0;  // depth of branches and loops
  int loop_body_ = -1;  // structured_ inside the innermost loop's body
  int next_id_ = 0;
  bool in_head_ = false;  // lowering a tl::while_loop's condition: nothing in it is differentiated
  ValueId* pair_second_ = nullptr;  // lowering tl::scan's function: where its return's y goes

  Loc loc(SourceLocation l) const { return location(sm_, l); }

  // Generated names avoid the user's (scalar text refers to them by name); a user
  // name keeps its spelling unless an inlined function already took it.
  void reserve_names(const Stmt* s) {
    if (s == nullptr) return;
    if (const auto* d = dyn_cast<DeclStmt>(s))
      for (const Decl* decl : d->decls())
        if (const auto* v = dyn_cast<VarDecl>(decl)) reserved_.insert(v->getNameAsString());
    for (const Stmt* c : s->children()) reserve_names(c);
  }
  std::string unique(const std::string& base) {
    std::string n = base;
    for (int k = 1; names_.count(n) != 0 || reserved_.count(n) != 0; ++k) n = base + "_" + std::to_string(k);
    names_.insert(n);
    return n;
  }
  std::string claim(const std::string& user) {
    if (names_.insert(user).second) return user;
    return unique(user);
  }

  // traced: a parameter of the function (symbolic when tl::grad traces it), not a capture.
  void param(const ValueDecl* d, QualType t, bool traced) {
    const std::string name = claim(d->getNameAsString());
    if (is_tensor(t)) {
      const ValueId v = p_.add_value(name, p_.params.size() == p_.wrt, traced);
      tensors_[d] = v;
      p_.params.push_back({"const tl::Tensor&", name, v});
      return;
    }
    const QualType plain = t.getNonReferenceType().getUnqualifiedType();
    if (is_custom(plain)) {
      p_.params.push_back({"const " + TypeName::getFullyQualifiedName(plain, ctx_, ctx_.getPrintingPolicy()) + "&", name, -1});
      return;
    }
    if (!plain->isArithmeticType())
      refuse(Code::unsupported_construct, loc(d->getLocation()),
             "parameter or capture '" + name + "' of type " + t.getAsString() + ": only tl::Tensor and arithmetic types");
    p_.params.push_back({"const " + TypeName::getFullyQualifiedName(plain, ctx_, ctx_.getPrintingPolicy()), name, -1});
  }

  // An expression's source as written, on one line.
  std::string raw(const Expr* e) const {
    std::string src(Lexer::getSourceText(CharSourceRange::getTokenRange(e->getSourceRange()), sm_, ctx_.getLangOpts()));
    std::string out;
    for (char c : src)
      if (!(c == '\n' || ((c == ' ' || c == '\t') && !out.empty() && out.back() == ' '))) out += c == '\t' ? ' ' : c;
    return out;
  }

  // An expression's source with the variables renamed to the generated function's.
  std::string text(const Expr* e) {
    if (e->getBeginLoc().isMacroID() || e->getEndLoc().isMacroID())
      refuse(Code::unsupported_construct, loc(e->getBeginLoc()), "a macro inside a differentiated function");
    const CharSourceRange range = CharSourceRange::getTokenRange(e->getSourceRange());
    const unsigned begin = sm_.getFileOffset(range.getBegin());
    std::string src(Lexer::getSourceText(range, sm_, ctx_.getLangOpts()));
    std::vector<std::pair<unsigned, std::pair<unsigned, std::string>>> edits;
    collect_renames(e, begin, edits);
    std::sort(edits.rbegin(), edits.rend());
    for (const auto& [at, what] : edits) src.replace(at, what.first, what.second);
    return src;
  }
  void collect_renames(const Stmt* s, unsigned begin, std::vector<std::pair<unsigned, std::pair<unsigned, std::string>>>& out) {
    if (s == nullptr) return;
    if (const auto* ref = dyn_cast<DeclRefExpr>(s)) {
      std::string to;
      if (auto it = tensors_.find(ref->getDecl()); it != tensors_.end()) to = p_.values[std::size_t(it->second)].name;
      else if (auto r = renamed_.find(ref->getDecl()); r != renamed_.end()) to = r->second;
      if (!to.empty()) {
        const unsigned at = sm_.getFileOffset(ref->getBeginLoc());
        const unsigned end = sm_.getFileOffset(Lexer::getLocForEndOfToken(ref->getEndLoc(), 0, sm_, ctx_.getLangOpts()));
        out.push_back({at - begin, {end - at, to}});
      }
    }
    for (const Stmt* c : s->children()) collect_renames(c, begin, out);
  }

  ValueId op(Block& out, const Expr* e, std::string fn, std::vector<Arg> args, std::string spelled) {
    bool active = false, traced = false;
    for (const Arg& a : args) {
      active = active || (a.is_tensor() && this->active(a.value));
      traced = traced || (a.is_tensor() && this->traced(a.value));
    }
    if (fn.empty() || in_head_) active = false;
    Node s;
    s.kind = Node::Kind::op;
    s.loc = loc(e->getBeginLoc());
    s.source = raw(e);
    s.fn = std::move(fn);
    s.args = std::move(args);
    s.text = std::move(spelled);
    // Temporaries are named after their op and numbered, never a bare function name.
    s.result = p_.add_value(unique((s.fn.empty() ? "t" : s.fn) + "_" + std::to_string(p_.values.size())), active, traced);
    out.push_back(std::move(s));
    if (!out.back().fn.empty()) note_shape(out.back(), out.back().fn);
    return out.back().result;
  }

  // The result's type where its operands' are known at build time (shapes.hpp); a
  // shape the library refuses stops the build here.
  void note_shape(const Node& s, const std::string& fn) {
    std::vector<Operand> operands;
    std::string types;
    for (const Arg& a : s.args) {
      std::optional<Known> k;
      if (const auto it = known_.find(a.value); a.is_tensor() && it != known_.end()) k = it->second;
      operands.push_back({a.is_tensor(), k, a.text});
      if (k) types += std::string(types.empty() ? "" : ", ") + type_text(*k);
    }
    try {
      if (const auto r = result_of(fn, operands)) known_[s.result] = *r;
    } catch (const ShapeMismatch& e) {
      refuse(Code::shape_mismatch, s.loc,
             "tl::" + fn + " of " + types + " (shapes fixed in this function): " + e.what());
    }
  }

  // A call's arguments (defaults left out), lowered in the order the compiler of the
  // traced build evaluates them: C++ leaves it unspecified, and it decides the order
  // of the ops and so of the sums of cotangents (GCC goes right to left, Clang left
  // to right), which bit-identity with the traced gradient needs.
  std::vector<Arg> arguments(const CallExpr* e, Block& out) {
    std::vector<const Expr*> given;
    for (const Expr* a : e->arguments())
      if (!isa<CXXDefaultArgExpr>(a)) given.push_back(a);
    std::vector<Arg> args(given.size());
    for (std::size_t k = 0; k < given.size(); ++k) {
      const std::size_t i = right_to_left_ ? given.size() - 1 - k : k;
      args[i] = arg(given[i], out);
    }
    return args;
  }

  Arg arg(const Expr* e, Block& out) {
    if (is_tensor(e->getType())) return {expr(e, out), {}};
    return {-1, text(e)};
  }

  ValueId expr(const Expr* e, Block& out) {
    e = strip(e);
    if (const auto* ref = dyn_cast<DeclRefExpr>(e)) {
      if (auto it = tensors_.find(ref->getDecl()); it != tensors_.end()) return it->second;
      return op(out, e, {}, {}, text(e));  // a tensor from outside (a global): a constant
    }
    if (const auto* c = dyn_cast<ConditionalOperator>(e)) return conditional(c, out);
    if (const auto* m = dyn_cast<MemberExpr>(e); m && scan_of(m->getBase())) {
      const auto [carry, ys] = scan_call(scan_of(m->getBase()), out);
      return m->getMemberDecl()->getName() == "first" ? carry : ys;
    }
    if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(e)) return operator_call(oc, out);
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(e)) return member_call(mc, out);
    if (const auto* c = dyn_cast<CallExpr>(e)) return call(c, out);
    refuse_scan_in(e);
    refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
           std::string("a tensor expression of kind ") + e->getStmtClassName());
  }

  ValueId operator_call(const CXXOperatorCallExpr* e, Block& out) {
    if (e->getOperator() == OO_Call && is_custom(e->getArg(0)->getType())) return custom_call(e, out);
    if (const auto* m = dyn_cast_or_null<CXXMethodDecl>(e->getDirectCallee()); m && m->getParent()->isLambda())
      return lambda_call(e, out);
    std::vector<Arg> args = arguments(e, out);
    if (const char* rule = operator_rule(e->getOperator(), e->getNumArgs())) return op(out, e, rule, args, {});
    // Comparisons and logical operators: bool results, no derivative. Spelled over
    // the lowered operands, which are not computed a second time.
    if (e->getOperator() == OO_Subscript || e->getOperator() == OO_Call) return inactive(out, e, args);
    const std::string spelling = getOperatorSpelling(e->getOperator());
    const auto operand = [&](std::size_t i) {
      const std::string t = args[i].is_tensor() ? p_.values[std::size_t(args[i].value)].name : args[i].text;
      const bool simple = std::all_of(t.begin(), t.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; });
      return simple ? t : "(" + t + ")";
    };
    const std::string spelled =
        args.size() == 2 ? operand(0) + " " + spelling + " " + operand(1) : spelling + operand(0);
    return inactive(out, e, args, spelled);
  }

  // An op with no derivative, spelled as written with the renamed arguments.
  ValueId inactive(Block& out, const Expr* e, const std::vector<Arg>& args, const std::string& spelled = {}) {
    for (const Arg& a : args)
      if (a.is_tensor() && active(a.value) && is_floating_result(e) && !in_head_)
        refuse(Code::not_differentiable, loc(e->getBeginLoc()),
               "'" + text(e) + "' has no build-time derivative rule (tools/tlaloc-grad/rules.cpp lists them); "
               "take it out of the differentiated function or use the traced tl::grad");
    return op(out, e, {}, args, spelled.empty() ? text(e) : spelled);
  }
  // Results that would carry a derivative: anything but bool and integer tensors is
  // assumed floating, since the dtype is known only at run time.
  static bool is_floating_result(const Expr* e) {
    if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(e)) {
      switch (oc->getOperator()) {
        case OO_Less: case OO_Greater: case OO_LessEqual: case OO_GreaterEqual: case OO_EqualEqual:
        case OO_ExclaimEqual: case OO_AmpAmp: case OO_PipePipe: case OO_Exclaim: return false;
        default: return true;
      }
    }
    return true;
  }

  // f(x...) for a tl::CustomFunction f: its own rule gives the derivative. The
  // residuals of its forward half are kept beside the value (per iteration in loops).
  ValueId custom_call(const CXXOperatorCallExpr* e, Block& out) {
    std::vector<const Expr*> given(e->arg_begin() + 1, e->arg_end());
    std::vector<Arg> args(given.size());
    for (std::size_t k = 0; k < given.size(); ++k) {
      const std::size_t i = right_to_left_ ? given.size() - 1 - k : k;
      if (!is_tensor(given[i]->getType()))
        refuse(Code::unsupported_construct, loc(given[i]->getBeginLoc()), "a custom rule function's argument that is not a tensor");
      args[i] = arg(given[i], out);
    }
    const std::string callee = text(e->getArg(0));
    const ValueId v = op(out, e, "custom", args, {});
    out.back().callee = callee;
    return v;
  }

  ValueId member_call(const CXXMemberCallExpr* e, Block& out) {
    std::vector<Arg> args{arg(e->getImplicitObjectArgument(), out)};
    return inactive(out, e, args);
  }

  ValueId call(const CallExpr* e, Block& out) {
    const FunctionDecl* fd = e->getDirectCallee();
    if (fd == nullptr)
      refuse(Code::unsupported_construct, loc(e->getBeginLoc()), "a call through a pointer or function object");
    const std::string qualified = fd->getQualifiedNameAsString();
    if (qualified.rfind("tlaloc::", 0) == 0 && qualified.find("::", 8) == std::string::npos) {
      if (qualified == "tlaloc::cond") return cond_call(e, out);
      if (qualified == "tlaloc::fori_loop") return fori_call(e, out);
      if (qualified == "tlaloc::while_loop") return while_call(e, out);
      std::vector<Arg> args = arguments(e, out);
      const std::string name = fd->getNameAsString();
      // clamp is minimum(maximum(x, lo), hi) in the library, and so differentiated.
      if (name == "clamp" && args.size() == 3) return op(out, e, "minimum", {{op(out, e, "maximum", {args[0], args[1]}, {}), {}}, args[2]}, {});
      if (find_rule(name) != nullptr && !zero_derivative(name)) return op(out, e, name, args, {});
      const ValueId v = zero_derivative(name) ? op(out, e, {}, args, text(e)) : inactive(out, e, args);
      note_shape(out.back(), name);  // tl::zeros({2, 3}) and the like fix a shape
      return v;
    }
    const FunctionDecl* def = nullptr;
    if (fd->hasBody(def) && !sm_.isInSystemHeader(def->getLocation())) return inline_call(e, *def, out);
    const std::vector<Arg> args = arguments(e, out);
    for (const Arg& a : args)
      if (a.is_tensor() && p_.values[std::size_t(a.value)].active)
        refuse(Code::not_differentiable, loc(e->getBeginLoc()),
               "'" + qualified + "' has no visible body to differentiate (define it in this file or a header)");
    return op(out, e, {}, args, text(e));
  }

  // A call of a function with a visible body: its body lowered in place.
  ValueId inline_call(const CallExpr* e, const FunctionDecl& def, Block& out) {
    if (std::find(inlining_.begin(), inlining_.end(), &def) != inlining_.end())
      refuse(Code::unsupported_construct, loc(e->getBeginLoc()), "a recursive call of '" + def.getNameAsString() + "'");
    if (!is_tensor(def.getReturnType()))
      refuse(Code::unsupported_construct, loc(e->getBeginLoc()), "a call of '" + def.getNameAsString() + "', which does not return a tl::Tensor");
    const auto saved = tensors_;
    const auto saved_renamed = renamed_;
    for (unsigned k = 0; k < def.getNumParams(); ++k) {
      const unsigned i = right_to_left_ ? def.getNumParams() - 1 - k : k;
      const ParmVarDecl* pd = def.getParamDecl(i);
      if (is_tensor(pd->getType())) {
        tensors_[pd] = expr(e->getArg(i), out);
      } else {
        const std::string name = unique(def.getNameAsString() + "_" + pd->getNameAsString());
        const QualType plain = pd->getType().getNonReferenceType().getUnqualifiedType();
        scalar(out, e->getArg(i)->getBeginLoc(), "const " + TypeName::getFullyQualifiedName(plain, ctx_, ctx_.getPrintingPolicy()) + " " +
                                      name + " = " + text(e->getArg(i)) + ";");
        renamed_[pd] = name;
      }
    }
    inlining_.push_back(&def);
    ValueId* const pair = std::exchange(pair_second_, nullptr);
    const auto r = block(statements(def.getBody()), 0, out);
    pair_second_ = pair;
    inlining_.pop_back();
    if (!r) refuse(Code::unsupported_construct, loc(def.getEndLoc()), "'" + def.getNameAsString() + "' ends without returning");
    tensors_ = saved;
    renamed_ = saved_renamed;
    return *r;
  }

  // What an inlined function's scalars are prefixed with: its name, or `lambda`.
  std::string scope_prefix() const {
    const FunctionDecl* f = inlining_.back();
    if (const auto* m = dyn_cast<CXXMethodDecl>(f); m && m->getParent()->isLambda()) return "lambda";
    return f->getNameAsString();
  }

  void scalar(Block& out, SourceLocation at, std::string statement) {
    Node s;
    s.kind = Node::Kind::scalar;
    s.loc = loc(at);
    s.text = std::move(statement);
    out.push_back(std::move(s));
  }

  ValueId conditional(const ConditionalOperator* c, Block& out) {
    Node s = branch(c->getBeginLoc(), c->getCond());
    ++structured_;
    const ValueId a = expr(c->getTrueExpr(), s.body), b = expr(c->getFalseExpr(), s.orelse);
    --structured_;
    return meet(std::move(s), a, b, "select", out);
  }
  bool active(ValueId v) const { return p_.values[std::size_t(v)].active; }
  bool traced(ValueId v) const { return p_.values[std::size_t(v)].traced; }

  // A branch on a scalar condition.
  Node branch(SourceLocation at, const Expr* cond) {
    Node s;
    s.kind = Node::Kind::branch;
    s.loc = loc(at);
    s.text = condition(cond);
    s.id = next_id_++;
    return s;
  }
  // The branch's two results meet in one value after it.
  ValueId meet(Node s, ValueId a, ValueId b, const std::string& base, Block& out) {
    const ValueId v = p_.add_value(unique(base), active(a) || active(b), traced(a) || traced(b));
    s.phis.push_back({v, -1, a, b});
    out.push_back(std::move(s));
    return v;
  }

  // Lowers stmts[from...]; returns the returned value when the statements return.
  std::optional<ValueId> block(const std::vector<const Stmt*>& stmts, std::size_t from, Block& out) {
    for (std::size_t i = from; i < stmts.size(); ++i) {
      const Stmt* s = stmts[i];
      if (const auto* r = dyn_cast<ReturnStmt>(s)) {
        if (r->getRetValue() == nullptr) refuse(Code::unsupported_construct, loc(r->getBeginLoc()), "a return without a value");
        if (pair_second_ != nullptr) return pair_return(r->getRetValue(), out);
        return expr(r->getRetValue(), out);
      }
      if (const auto* c = dyn_cast<CompoundStmt>(s)) {
        std::vector<const Stmt*> inner(c->body_begin(), c->body_end());
        inner.insert(inner.end(), stmts.begin() + std::ptrdiff_t(i) + 1, stmts.end());
        return block(inner, 0, out);
      }
      if (const Jump j = loop_jump(s); j.cond != nullptr) {
        skip_rest(j, stmts, i + 1, out);
        return std::nullopt;
      }
      if (const auto* f = dyn_cast<IfStmt>(s)) {
        if (has_return(f)) return returning_if(f, stmts, i + 1, out);
        plain_if(f, out);
        continue;
      }
      statement(s, out);
    }
    return std::nullopt;
  }

  void statement(const Stmt* s, Block& out) {
    if (isa<NullStmt>(s)) return;
    if (const auto* d = dyn_cast<DeclStmt>(s)) return declaration(d, out);
    if (const auto* f = dyn_cast<ForStmt>(s)) return loop(f, f->getInit(), f->getCond(), f->getInc(), f->getBody(), out);
    if (const auto* w = dyn_cast<WhileStmt>(s)) return loop(w, nullptr, w->getCond(), nullptr, w->getBody(), out);
    if (const auto* e = dyn_cast<Expr>(s)) return expression_statement(strip(e), out);
    refuse(Code::unsupported_construct, loc(s->getBeginLoc()),
           std::string("a statement of kind ") + s->getStmtClassName() + " in a differentiated function");
  }

  void declaration(const DeclStmt* d, Block& out) {
    for (const Decl* decl : d->decls()) {
      const auto* v = dyn_cast<VarDecl>(decl);
      if (v == nullptr) continue;  // local types and using-declarations need nothing
      if (const auto* dd = dyn_cast<DecompositionDecl>(v); dd && scan_of(dd->getInit()) && dd->bindings().size() == 2) {
        const std::size_t before = p_.values.size();
        const auto [carry, ys] = scan_call(scan_of(dd->getInit()), out);
        bind(dd->bindings()[0], carry, before);
        bind(dd->bindings()[1], ys, before);
        continue;
      }
      if (is_tensor(v->getType())) {
        if (!v->hasInit()) refuse(Code::unsupported_construct, loc(v->getLocation()), "a tensor declared without a value");
        const std::size_t before = p_.values.size();
        bind(v, expr(v->getInit(), out), before);
        continue;
      }
      // A lambda is lowered where it is called or passed to tl::cond or a tl:: loop.
      if (const auto* r = v->getType()->getAsCXXRecordDecl(); r != nullptr && r->isLambda()) continue;
      if (v->getType()->isReferenceType() || !v->getType().getNonReferenceType()->isArithmeticType()) {
        refuse_scan_in(v->getInit());
        refuse(Code::unsupported_construct, loc(v->getLocation()),
               "local '" + v->getNameAsString() + "' of type " + v->getType().getAsString() +
                   ": a differentiated function's locals are tl::Tensor or arithmetic");
      }
      const Change change = v->getType().isConstQualified() ? Change::none : changes(v);
      if (change == Change::elsewhere || (change == Change::in_loops && structured_ > 0))
        refuse(Code::unsupported_construct, loc(v->getLocation()),
               "scalar '" + v->getNameAsString() + "' is assigned after its declaration; scalars are single-assignment "
               "in a differentiated function (declare a new one), except counters a loop carries");
      if (change == Change::in_loops) carried_scalars_.insert(v);
      const std::string type = TypeName::getFullyQualifiedName(v->getType().getUnqualifiedType(), ctx_, ctx_.getPrintingPolicy());
      std::string name = v->getNameAsString();
      if (!inlining_.empty()) {
        name = unique(scope_prefix() + "_" + name);
        renamed_[v] = name;
      } else {
        name = claim(name);
        if (name != v->getNameAsString()) renamed_[v] = name;
      }
      std::string decl_text = (change == Change::in_loops ? "" : "const ") + type + " " + name;
      if (v->hasInit()) decl_text += " = " + text(v->getInit());
      scalar(out, v->getBeginLoc(), decl_text + ";");
    }
  }
  // A declared tensor: the op computed for it takes the variable's name.
  void bind(const ValueDecl* v, ValueId value, std::size_t values_before) {
    if (std::size_t(value) >= values_before) {
      names_.erase(p_.values[std::size_t(value)].name);
      p_.values[std::size_t(value)].name = claim(v->getNameAsString());
    }
    tensors_[v] = value;
  }

  // Where a scalar is assigned after its declaration: nowhere, only inside loops
  // (a value carried across iterations, saved per iteration), or elsewhere.
  enum class Change { none, in_loops, elsewhere };
  Change changes(const VarDecl* v) {
    struct Finder : RecursiveASTVisitor<Finder> {
      const VarDecl* var = nullptr;
      int loops = 0;
      Change found = Change::none;
      bool TraverseForStmt(ForStmt* f) {
        ++loops;
        const bool r = RecursiveASTVisitor::TraverseForStmt(f);
        --loops;
        return r;
      }
      bool TraverseWhileStmt(WhileStmt* w) {
        ++loops;
        const bool r = RecursiveASTVisitor::TraverseWhileStmt(w);
        --loops;
        return r;
      }
      bool VisitBinaryOperator(BinaryOperator* b) {
        if (b->isAssignmentOp()) check(b->getLHS());
        return true;
      }
      bool VisitUnaryOperator(UnaryOperator* u) {
        if (u->isIncrementDecrementOp()) check(u->getSubExpr());
        return true;
      }
      void check(const Expr* e) {
        if (const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()); !r || r->getDecl() != var) return;
        if (loops == 0) found = Change::elsewhere;
        else if (found == Change::none) found = Change::in_loops;
      }
    } finder;
    finder.var = v;
    const auto* parent = dyn_cast<FunctionDecl>(v->getDeclContext());
    if (parent != nullptr) finder.TraverseStmt(parent->getBody());
    return finder.found;
  }

  // `n += 1;` in a loop body, for a scalar carried by the loop.
  const VarDecl* assigned_scalar(const Expr* e) const {
    const Expr* target = nullptr;
    if (const auto* b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp()) target = b->getLHS();
    if (const auto* u = dyn_cast<UnaryOperator>(e); u && u->isIncrementDecrementOp()) target = u->getSubExpr();
    const auto* ref = target ? dyn_cast<DeclRefExpr>(target->IgnoreParenImpCasts()) : nullptr;
    const auto* v = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    return v && carried_scalars_.count(v) ? v : nullptr;
  }

  void expression_statement(const Expr* e, Block& out) {
    if (const VarDecl* v = assigned_scalar(e)) {
      if (loop_ == nullptr || structured_ != loop_body_)
        refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
               "scalar '" + v->getNameAsString() + "' changes inside a branch (a loop's counters change in its body)");
      scalar(out, e->getBeginLoc(), text(e) + ";");
      out.back().assignment = true;
      const std::string name = renamed_.count(v) ? renamed_.at(v) : v->getNameAsString();
      const auto same = [&](const auto& kv) { return kv.first == name; };
      if (std::none_of(loop_->scalars.begin(), loop_->scalars.end(), same))
        loop_->scalars.push_back({name, TypeName::getFullyQualifiedName(v->getType().getUnqualifiedType(), ctx_,
                                                                        ctx_.getPrintingPolicy())});
      return;
    }
    if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(e); oc && oc->isAssignmentOp() && oc->getNumArgs() == 2) {
      const auto* ref = dyn_cast<DeclRefExpr>(oc->getArg(0)->IgnoreParenImpCasts());
      if (ref == nullptr || tensors_.count(ref->getDecl()) == 0)
        refuse(Code::unsupported_construct, loc(e->getBeginLoc()), "an assignment to something other than a local tensor");
      if (oc->getOperator() == OO_Equal) {
        tensors_[ref->getDecl()] = expr(oc->getArg(1), out);
        return;
      }
      const char* rule = compound_rule(oc->getOperator());
      if (rule == nullptr) refuse(Code::unsupported_construct, loc(e->getBeginLoc()), "the assignment '" + text(e) + "'");
      const ValueId lhs = tensors_.at(ref->getDecl());
      tensors_[ref->getDecl()] = op(out, e, rule, {{lhs, {}}, arg(oc->getArg(1), out)}, {});
      return;
    }
    refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
           "the statement '" + text(e) + "' (a differentiated function may only compute tensors and scalars)");
  }

  std::string condition(const Expr* c) {
    if (is_tensor(c->getType()))
      refuse(Code::unsupported_construct, loc(c->getBeginLoc()), "a tensor used as a condition (use tl::where, or .item())");
    return text(c);
  }

  // `if` without returns: the tensors it assigns meet after it.
  void plain_if(const IfStmt* f, Block& out) {
    if (f->getInit() != nullptr || f->getConditionVariable() != nullptr)
      refuse(Code::unsupported_construct, loc(f->getBeginLoc()), "an if with an initializer or a condition variable");
    branch_over(branch(f->getBeginLoc(), f->getCond()), statements(f->getThen()), statements(f->getElse()), out);
  }

  // Lowers the two paths of branch s; the tensors they assign meet after it.
  void branch_over(Node s, const std::vector<const Stmt*>& then, const std::vector<const Stmt*>& orelse, Block& out) {
    const auto before = tensors_;
    ++structured_;
    block(then, 0, s.body);
    const auto after_then = tensors_;
    tensors_ = before;
    block(orelse, 0, s.orelse);
    --structured_;
    const auto after_else = tensors_;
    tensors_ = before;
    for (const auto& [var, v0] : before) {
      const ValueId a = after_then.at(var), b = after_else.at(var);
      if (a == b) {
        tensors_[var] = a;
        continue;
      }
      const ValueId v = p_.add_value(unique(var->getNameAsString()), active(a) || active(b), traced(a) || traced(b));
      s.phis.push_back({v, -1, a, b});
      tensors_[var] = v;
    }
    out.push_back(std::move(s));
  }

  // `if (c) continue;` or `if (c) break;`.
  struct Jump {
    const Expr* cond = nullptr;
    bool is_break = false;
  };
  static Jump loop_jump(const Stmt* s) {
    const auto* f = dyn_cast<IfStmt>(s);
    if (f == nullptr || f->getElse() != nullptr || f->getInit() != nullptr || f->getConditionVariable() != nullptr)
      return {};
    const std::vector<const Stmt*> then = statements(f->getThen());
    if (then.size() != 1 || !(isa<ContinueStmt>(then[0]) || isa<BreakStmt>(then[0]))) return {};
    return {f->getCond(), isa<BreakStmt>(then[0])};
  }
  // A jump directly in a loop's body: the rest of the body becomes a branch on !c,
  // and a break leaves the loop at the end of that iteration, where c still holds
  // (scalars are single-assignment; counters change at the end, outside the branch).
  void skip_rest(const Jump& j, const std::vector<const Stmt*>& stmts, std::size_t rest, Block& out) {
    const SourceLocation at = j.cond->getBeginLoc();
    const std::string what = j.is_break ? "break" : "continue";
    if (loop_ == nullptr || structured_ != loop_body_)
      refuse(Code::unsupported_construct, loc(at), "a " + what + " inside a branch of a loop body");
    if (j.is_break) {
      if (!loop_->break_after.empty()) refuse(Code::unsupported_construct, loc(at), "a second break in a loop body");
      loop_->break_after = condition(j.cond);
    }
    Node s = branch(at, j.cond);
    s.text = "!(" + s.text + ")";
    branch_over(std::move(s), std::vector<const Stmt*>(stmts.begin() + std::ptrdiff_t(rest), stmts.end()), {}, out);
  }

  // `if` with a return in a branch: the rest of the block runs on the other path,
  // and the function's result is met after the if.
  std::optional<ValueId> returning_if(const IfStmt* f, const std::vector<const Stmt*>& stmts, std::size_t rest,
                                      Block& out) {
    if (pair_second_ != nullptr)
      refuse(Code::unsupported_construct, loc(f->getBeginLoc()), "an early return in tl::scan's function");
    if (structured_ > 0 && !inlining_.empty())
      refuse(Code::unsupported_construct, loc(f->getBeginLoc()), "an early return in a function inlined inside a loop or a branch");
    Node s = branch(f->getBeginLoc(), f->getCond());
    const auto path = [&](const Stmt* branch, Block& into) {
      std::vector<const Stmt*> list = statements(branch);
      if (!has_return(branch)) list.insert(list.end(), stmts.begin() + std::ptrdiff_t(rest), stmts.end());
      const auto saved = tensors_;
      const auto r = block(list, 0, into);
      tensors_ = saved;
      if (!r) refuse(Code::unsupported_construct, loc(f->getBeginLoc()), "a path through this if ends without returning");
      return *r;
    };
    ++structured_;
    const ValueId a = path(f->getThen(), s.body), b = path(f->getElse(), s.orelse);
    --structured_;
    return meet(std::move(s), a, b, "result", out);
  }

  // c in `if (c) break;`, or null.
  static const Expr* breaking(const Stmt* s) {
    const Jump j = loop_jump(s);
    return j.is_break ? j.cond : nullptr;
  }

  // A loop's carried value: the variable (a local the body assigns, or the carry
  // parameter of a tl:: loop's function) and its value before the loop.
  struct Carried {
    const ValueDecl* var;
    ValueId init;
  };
  // Lowers a loop's body into s, each carried variable starting an iteration as its
  // phi's `in` value; `body` returns their values at the end of an iteration. The body
  // is lowered again when a carried value turns out to depend on the differentiated
  // parameter through it. Returns the carried values after the loop.
  std::vector<ValueId> carry_through(Node& s, const std::vector<Carried>& carried,
                                     const std::function<std::vector<ValueId>(Block&)>& body) {
    std::set<const ValueDecl*> active_carried;
    for (const Carried& c : carried)
      if (active(c.init)) active_carried.insert(c.var);
    const std::size_t values_before = p_.values.size();
    const auto names_before = names_;
    const auto scalars_before = s.scalars;
    for (;;) {
      std::vector<Phi> phis;
      const auto before = tensors_;
      for (const Carried& c : carried) {
        const bool a = active_carried.count(c.var) != 0, t = a || traced(c.init);
        const ValueId out_v = p_.add_value(unique(c.var->getNameAsString()), a, t);
        const ValueId in_v = p_.add_value(unique(c.var->getNameAsString() + "_in"), a, t);
        phis.push_back({out_v, in_v, c.init, -1});
        tensors_[c.var] = in_v;
      }
      Block lowered;
      ++structured_;
      const std::vector<ValueId> ends = body(lowered);
      --structured_;
      bool again = false;
      for (std::size_t k = 0; k < carried.size(); ++k) {
        phis[k].second = ends[k];
        if (active(ends[k]) && !active(phis[k].in) && active_carried.insert(carried[k].var).second) again = true;
      }
      tensors_ = before;
      if (again) {
        p_.values.resize(values_before);
        known_.erase(known_.lower_bound(ValueId(values_before)), known_.end());
        names_ = names_before;
        s.scalars = scalars_before;
        continue;
      }
      s.body = std::move(lowered);
      s.phis = std::move(phis);
      std::vector<ValueId> after;
      for (const Phi& ph : s.phis) after.push_back(ph.out);
      return after;
    }
  }

  void loop(const Stmt* at, const Stmt* init, const Expr* cond, const Expr* inc, const Stmt* body, Block& out) {
    if (has_return(body)) refuse(Code::unsupported_construct, loc(at->getBeginLoc()), "a return inside a loop");
    if (cond == nullptr) refuse(Code::unsupported_construct, loc(at->getBeginLoc()), "a loop without a condition");
    Node s;
    s.kind = Node::Kind::loop;
    s.loc = loc(at->getBeginLoc());
    s.id = next_id_++;
    if (init != nullptr) {
      const auto* d = dyn_cast<DeclStmt>(init);
      if (d == nullptr) refuse(Code::unsupported_construct, loc(init->getBeginLoc()), "a loop initializer that is not a declaration");
      for (const Decl* decl : d->decls()) {
        const auto* v = cast<VarDecl>(decl);
        if (!v->getType()->isArithmeticType() || !v->hasInit())
          refuse(Code::unsupported_construct, loc(v->getLocation()), "a loop variable that is not an initialized arithmetic scalar");
        const std::string type = TypeName::getFullyQualifiedName(v->getType(), ctx_, ctx_.getPrintingPolicy());
        s.init += (s.init.empty() ? type + " " : ", ") + v->getNameAsString() + " = " + text(v->getInit());
        s.scalars.push_back({v->getNameAsString(), type});
      }
    }
    s.text = condition(cond);
    if (inc != nullptr) s.step = text(inc);
    // `if (c) break;` first or last in the body is written where it stands; one in
    // the middle makes the rest of the body a branch (skip_rest).
    std::vector<const Stmt*> stmts = statements(body);
    const Expr* break_first = stmts.empty() ? nullptr : breaking(stmts.front());
    if (break_first != nullptr) stmts.erase(stmts.begin());
    const Expr* break_last = stmts.empty() ? nullptr : breaking(stmts.back());
    if (break_last != nullptr) stmts.pop_back();
    std::set<const ValueDecl*> assigned;
    assigned_tensors(body, assigned);
    std::vector<Carried> carried;
    for (const ValueDecl* var : assigned)
      if (tensors_.count(var)) carried.push_back({var, tensors_.at(var)});  // else declared inside the body
    const std::vector<ValueId> after = carry_through(s, carried, [&](Block& lowered) {
      Node* const outer = loop_;
      const int outer_body = loop_body_;
      loop_ = &s;
      loop_body_ = structured_;
      s.break_after.clear();
      if (break_first != nullptr) s.break_before = condition(break_first);
      block(stmts, 0, lowered);
      if (break_last != nullptr && !s.break_after.empty())
        refuse(Code::unsupported_construct, loc(break_last->getBeginLoc()), "a second break in a loop body");
      if (break_last != nullptr) s.break_after = condition(break_last);
      loop_ = outer;
      loop_body_ = outer_body;
      // The reverse sweep sees each counter's value at the start of its iteration.
      for (std::size_t i = 1; i < lowered.size(); ++i)
        if (lowered[i - 1].assignment && !lowered[i].assignment)
          refuse(Code::unsupported_construct, lowered[i - 1].loc,
                 "a loop counter changes before the end of the loop body; move its update to the end");
      std::vector<ValueId> ends;
      for (const Carried& c : carried) ends.push_back(tensors_.at(c.var));
      return ends;
    });
    for (std::size_t k = 0; k < carried.size(); ++k) tensors_[carried[k].var] = after[k];
    out.push_back(std::move(s));
  }

  // ---- tl::cond, tl::fori_loop and tl::while_loop (include/tlaloc/control.hpp) -------
  //
  // Their functions' bodies are lowered in place, as branches and loops. Traced, each
  // is one op with regions, whose engine rule sums the cotangents of what a region
  // uses from outside per step before adding them there; the nodes are marked so that
  // the reverse sweep sums in that order too.

  // A function given to tl::cond or a tl:: loop: a lambda written in the call, or a
  // variable initialized with one.
  const LambdaExpr* lambda_arg(const Expr* e, const std::string& what) {
    for (;;) {
      e = strip(e);
      if (const auto* c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() == 1) e = c->getArg(0);
      else break;
    }
    if (const auto* l = dyn_cast<LambdaExpr>(e)) {
      if (l->isGenericLambda())
        refuse(Code::unsupported_construct, loc(l->getBeginLoc()), what + " is a generic lambda: give its parameters the type tl::Tensor");
      return l;
    }
    const auto* ref = dyn_cast<DeclRefExpr>(e);
    const auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (var == nullptr || !var->hasInit())
      refuse(Code::unsupported_construct, loc(e->getBeginLoc()), what + " is not a lambda with a visible body");
    const LambdaExpr* l = lambda_arg(var->getInit(), what);
    // A copy taken where the lambda was written may hold an older value than the
    // variable's at the call, which is what the body would be lowered with.
    for (const LambdaCapture& c : l->captures())
      if (c.capturesVariable() && c.getCaptureKind() == LCK_ByCopy && is_tensor(c.getCapturedVar()->getType()))
        refuse(Code::unsupported_construct, loc(c.getLocation()),
               what + " captures tensor '" + c.getCapturedVar()->getNameAsString() +
                   "' by copy: capture it by reference, or write the lambda in the call");
    return l;
  }

  // A lambda's body lowered in place, its (tensor) parameters bound to args; returns
  // the tensor it returns. Traced, the body runs once to record its region, so it may
  // not change the tensors and counters outside it.
  // With `second`, the lambda returns a pair of tensors (tl::scan's function), whose
  // second goes there.
  ValueId lambda_body(const LambdaExpr* l, const std::vector<ValueId>& args, Block& out, const std::string& what,
                      ValueId* second = nullptr) {
    const CXXMethodDecl* fn = l->getCallOperator();
    if (second == nullptr && !is_tensor(fn->getReturnType()))
      refuse(Code::unsupported_construct, loc(l->getBeginLoc()),
             what + " returns " + fn->getReturnType().getAsString() + "; tlaloc-grad writes these with one tl::Tensor carried");
    if (fn->getNumParams() != args.size())
      refuse(Code::unsupported_construct, loc(l->getBeginLoc()),
             what + " takes " + std::to_string(fn->getNumParams()) + " parameters, not " + std::to_string(args.size()));
    const auto saved = tensors_;
    const auto saved_renamed = renamed_;
    for (unsigned i = 0; i < fn->getNumParams(); ++i) {
      const ParmVarDecl* pd = fn->getParamDecl(i);
      if (!is_tensor(pd->getType()))
        refuse(Code::unsupported_construct, loc(pd->getLocation()), what + "'s parameter '" + pd->getNameAsString() + "' is not a tl::Tensor");
      tensors_[pd] = args[i];
    }
    inlining_.push_back(fn);
    Node* const outer = loop_;
    loop_ = nullptr;
    ValueId* const pair = std::exchange(pair_second_, second);
    const auto r = block(statements(fn->getBody()), 0, out);
    pair_second_ = pair;
    loop_ = outer;
    inlining_.pop_back();
    for (const auto& [var, v] : saved)
      if (tensors_.at(var) != v)
        refuse(Code::unsupported_construct, loc(l->getBeginLoc()),
               what + " assigns '" + var->getNameAsString() + "', a tensor from outside it: return it instead");
    tensors_ = saved;
    renamed_ = saved_renamed;
    if (!r) refuse(Code::unsupported_construct, loc(fn->getEndLoc()), what + " ends without returning");
    return *r;
  }

  // tl::scan anywhere in s, used in a way the lowering does not follow: refused by name.
  void refuse_scan_in(const Stmt* s) {
    if (s == nullptr) return;
    if (const auto* c = dyn_cast<CallExpr>(s); c && c->getDirectCallee() &&
                                               c->getDirectCallee()->getQualifiedNameAsString() == "tlaloc::scan")
      refuse(Code::unsupported_construct, loc(c->getBeginLoc()),
             "tl::scan's result used other than as `auto [carry, ys] = tl::scan(...)` or its .first or .second");
    for (const Stmt* child : s->children()) refuse_scan_in(child);
  }

  // A call of a lambda the function defines: its body lowered in place.
  ValueId lambda_call(const CXXOperatorCallExpr* e, Block& out) {
    const std::string what = "the lambda '" + text(e->getArg(0)) + "'";
    const LambdaExpr* l = lambda_arg(e->getArg(0), what);
    std::vector<const Expr*> given(e->arg_begin() + 1, e->arg_end());
    std::vector<ValueId> args(given.size());
    for (std::size_t k = 0; k < given.size(); ++k) {
      const std::size_t i = right_to_left_ ? given.size() - 1 - k : k;
      if (!is_tensor(given[i]->getType()))
        refuse(Code::unsupported_construct, loc(given[i]->getBeginLoc()), what + " called with an argument that is not a tensor");
      args[i] = expr(given[i], out);
    }
    return lambda_body(l, args, out, what);
  }

  const ParmVarDecl* parameter(const LambdaExpr* l, unsigned i, unsigned count, const std::string& what) {
    const CXXMethodDecl* fn = l->getCallOperator();
    if (fn->getNumParams() != count)
      refuse(Code::unsupported_construct, loc(l->getBeginLoc()),
             what + " takes " + std::to_string(fn->getNumParams()) + " parameters, not " + std::to_string(count));
    return fn->getParamDecl(i);
  }

  // tl::cond(pred, on_true, on_false). A condition the trace knows (it depends on no
  // parameter) only picks a branch there, as C++'s if does.
  ValueId cond_call(const CallExpr* e, Block& out) {
    const LambdaExpr* on_true = lambda_arg(e->getArg(1), "tl::cond's on_true");
    const LambdaExpr* on_false = lambda_arg(e->getArg(2), "tl::cond's on_false");
    const ValueId pred = expr(e->getArg(0), out);
    Node s;
    s.kind = Node::Kind::branch;
    s.loc = loc(e->getBeginLoc());
    s.id = next_id_++;
    s.text = p_.values[std::size_t(pred)].name + ".item<bool>()";
    if (traced(pred)) s.structured = "tl::cond";
    ++structured_;
    const ValueId a = lambda_body(on_true, {}, s.body, "tl::cond's on_true");
    const ValueId b = lambda_body(on_false, {}, s.orelse, "tl::cond's on_false");
    --structured_;
    return meet(std::move(s), a, b, "cond", out);
  }

  Node structured_loop(const CallExpr* e, const char* fn) {
    Node s;
    s.kind = Node::Kind::loop;
    s.loc = loc(e->getBeginLoc());
    s.id = next_id_++;
    s.structured = fn;
    return s;
  }

  // tl::fori_loop(lo, hi, body, init): carry = body(i, carry) for i in [lo, hi).
  ValueId fori_call(const CallExpr* e, Block& out) {
    const std::string what = "tl::fori_loop's body";
    const LambdaExpr* fn = lambda_arg(e->getArg(2), what);
    const ParmVarDecl* index = parameter(fn, 0, 2, what);
    const ParmVarDecl* carry = parameter(fn, 1, 2, what);
    const ValueId init = expr(e->getArg(3), out);
    Node s = structured_loop(e, "tl::fori_loop");
    const std::string i = unique("step_" + std::to_string(s.id));
    s.init = "std::int64_t " + i + " = " + text(e->getArg(0));
    s.text = i + " < " + text(e->getArg(1));
    s.step = "++" + i;
    const std::vector<ValueId> after = carry_through(s, {{carry, init}}, [&](Block& body) {
      const ValueId at = op(body, e, {}, {}, "tl::scalar_tensor(" + i + ", tl::DType::i64)");
      body.back().source = "the step index";
      if (!index->getName().empty()) {
        names_.erase(p_.values[std::size_t(at)].name);
        p_.values[std::size_t(at)].name = claim(index->getNameAsString());
      }
      return std::vector<ValueId>{lambda_body(fn, {at, tensors_.at(carry)}, body, what)};
    });
    out.push_back(std::move(s));
    return after[0];
  }

  static const CallExpr* scan_of(const Expr* e) {
    if (e == nullptr) return nullptr;
    const auto* c = dyn_cast<CallExpr>(strip(e));
    const FunctionDecl* fd = c ? c->getDirectCallee() : nullptr;
    return fd && fd->getQualifiedNameAsString() == "tlaloc::scan" ? c : nullptr;
  }

  // `return std::pair{carry, y};` (or std::make_pair, or a braced list) in tl::scan's
  // function: the carry is returned, y goes to pair_second_. Braces evaluate left to
  // right; a call's arguments in the compiler's order.
  ValueId pair_return(const Expr* e, Block& out) {
    e = strip(e);
    if (const auto* f = dyn_cast<CXXFunctionalCastExpr>(e)) e = strip(f->getSubExpr());
    std::vector<const Expr*> parts;
    bool in_order = false;
    if (const auto* l = dyn_cast<InitListExpr>(e)) {
      parts.assign(l->inits().begin(), l->inits().end());
      in_order = true;
    } else if (const auto* c = dyn_cast<CXXConstructExpr>(e)) {
      parts.assign(c->arg_begin(), c->arg_end());
      in_order = c->isListInitialization();
    } else if (const auto* call = dyn_cast<CallExpr>(e);
               call && call->getDirectCallee() && call->getDirectCallee()->getQualifiedNameAsString() == "std::make_pair") {
      parts.assign(call->arg_begin(), call->arg_end());
    }
    if (parts.size() != 2 || !is_tensor(parts[0]->getType()) || !is_tensor(parts[1]->getType()))
      refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
             "tl::scan's function returns '" + raw(e) + "'; write the pair in the return: std::pair{carry, y}");
    ValueId v[2];
    for (std::size_t k = 0; k < 2; ++k) {
      const std::size_t i = !in_order && right_to_left_ ? 1 - k : k;
      v[i] = expr(parts[i], out);
    }
    ValueId* const second = pair_second_;
    *second = v[1];
    return v[0];
  }

  // tl::scan(f, init, xs, reverse): for each slice x of xs along axis 0 (last first if
  // reverse), (carry, y) = f(carry, x); returns the carry and the ys stacked.
  std::pair<ValueId, ValueId> scan_call(const CallExpr* e, Block& out) {
    const std::string what = "tl::scan's function";
    const LambdaExpr* fn = lambda_arg(e->getArg(0), what);
    const ParmVarDecl* carry = parameter(fn, 0, 2, what);
    const ParmVarDecl* slice = parameter(fn, 1, 2, what);
    ValueId init = -1, xs = -1;
    if (right_to_left_) {
      xs = expr(e->getArg(2), out);
      init = expr(e->getArg(1), out);
    } else {
      init = expr(e->getArg(1), out);
      xs = expr(e->getArg(2), out);
    }
    Node s = structured_loop(e, "tl::scan");
    const std::string id = std::to_string(s.id);
    const std::string reverse = e->getNumArgs() > 3 && !isa<CXXDefaultArgExpr>(e->getArg(3)) ? text(e->getArg(3)) : "false";
    const std::string step = unique("step_" + id);
    s.count = unique("length_" + id);
    s.index = unique("at_" + id);
    s.init = "std::int64_t " + step + " = 0";
    s.text = step + " < " + s.count;
    s.step = "++" + step;
    s.scalars.push_back({step, "std::int64_t"});
    s.xs = xs;
    const std::string seq = p_.values[std::size_t(xs)].name;
    scalar(out, e->getBeginLoc(), "const std::int64_t " + s.count + " = " + seq + ".rank() > 0 ? " + seq + ".shape()[0] : 0;");
    scalar(out, e->getBeginLoc(),
           "if (" + s.count + " == 0) throw tl::ValueError(\"tlaloc-grad: tl::scan at line " + std::to_string(s.loc.line) +
               " needs a sequence with at least one step along axis 0\");");
    ValueId y = -1;
    const std::vector<ValueId> after = carry_through(s, {{carry, init}}, [&](Block& body) {
      const std::string last_first = s.count + " - 1 - " + step;
      scalar(body, e->getBeginLoc(),
             "const std::int64_t " + s.index + " = " +
                 (reverse == "false" ? step : reverse == "true" ? last_first : reverse + " ? " + last_first + " : " + step) + ";");
      s.x = op(body, e, "scan_slice", {{xs, {}}}, s.index);
      body.back().source = "the step's slice of " + raw(e->getArg(2));
      names_.erase(p_.values[std::size_t(s.x)].name);
      p_.values[std::size_t(s.x)].name = claim(slice->getName().empty() ? "x_" + id : slice->getNameAsString());
      return std::vector<ValueId>{lambda_body(fn, {tensors_.at(carry), s.x}, body, what, &y)};
    });
    s.y = y;
    s.ys = p_.add_value(unique("ys"), active(y), traced(y));
    const ValueId ys = s.ys;
    out.push_back(std::move(s));
    return {after[0], ys};
  }

  // tl::while_loop(cond, body, init): its condition is computed at the start of each
  // iteration from the carried value (the loop's head), and differentiated nowhere.
  ValueId while_call(const CallExpr* e, Block& out) {
    const LambdaExpr* cond = lambda_arg(e->getArg(0), "tl::while_loop's condition");
    const LambdaExpr* fn = lambda_arg(e->getArg(1), "tl::while_loop's body");
    const ParmVarDecl* carry = parameter(fn, 0, 1, "tl::while_loop's body");
    const ValueId init = expr(e->getArg(2), out);
    Node s = structured_loop(e, "tl::while_loop");
    const std::vector<ValueId> after = carry_through(s, {{carry, init}}, [&](Block& body) {
      return std::vector<ValueId>{lambda_body(fn, {tensors_.at(carry)}, body, "tl::while_loop's body")};
    });
    ++structured_;
    in_head_ = true;
    const ValueId pred = lambda_body(cond, {s.phis[0].in}, s.head, "tl::while_loop's condition");
    in_head_ = false;
    --structured_;
    s.text = p_.values[std::size_t(pred)].name + ".item<bool>()";
    out.push_back(std::move(s));
    return after[0];
  }
};

}  // namespace

Program lower(ASTContext& ctx, const FunctionDecl& fn, const LambdaExpr* lambda, std::string name, std::size_t wrt,
              bool right_to_left) {
  Program p;
  p.name = std::move(name);
  p.wrt = wrt;
  p.loc = location(ctx.getSourceManager(), lambda != nullptr ? lambda->getBeginLoc() : fn.getLocation());
  const std::string file = std::filesystem::path(p.loc.file).filename().string();
  p.what = (lambda != nullptr ? "the lambda at " : "'" + fn.getNameAsString() + "' at ") + file + ":" +
           std::to_string(p.loc.line);
  Lowerer(ctx, p, right_to_left).function(fn, lambda);
  return p;
}

}  // namespace tlaloc_grad
