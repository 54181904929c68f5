#include "lowerer.hpp"

#include <clang/AST/Attr.h>
#include <clang/AST/QualTypeNames.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "cppgen/code.hpp"
#include "ir/op.hpp"
#include "rules.hpp"

namespace tlaloc_grad {

Loc location(const SourceManager& sm, SourceLocation l) {
  const PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(l));
  if (p.isInvalid()) return {};
  return {p.getFilename(), p.getLine(), p.getColumn()};
}

std::string transform_name(const NamedDecl& callee) {
  const std::string q = callee.getQualifiedNameAsString();
  for (const char* t : {"grad", "value_and_grad", "jvp", "vjp", "hessian"})
    if (q == std::string("tlaloc::") + t) return t;
  return {};
}

bool is_tensor(QualType t) {
  const auto* r = t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  return r != nullptr && r->getQualifiedNameAsString() == "tlaloc::Tensor";
}

// A std::vector<tl::Tensor>: a list of tensors, such as a model's parameters.
bool is_tensor_list(QualType t) {
  const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
  return spec != nullptr && spec->getQualifiedNameAsString() == "std::vector" &&
         spec->getTemplateArgs().size() > 0 &&
         spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
         is_tensor(spec->getTemplateArgs()[0].getAsType());
}

// A tl::nn::Params: named tensors, a model's parameters as tl::nn's layers take them.
bool is_params(QualType t) {
  const auto* r = t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  return r != nullptr && r->getQualifiedNameAsString() == "tlaloc::nn::Params";
}

// A function with a custom derivative rule (tl::custom_vjp / tl::custom_jvp).
bool is_custom(QualType t) {
  const auto* r = t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  return r != nullptr && r->getQualifiedNameAsString() == "tlaloc::CustomFunction";
}

// An options struct of the library (tl::Conv2dOptions, tl::Pool2dOptions, ...): an
// aggregate of numbers, which generated code takes as it is.
bool is_options(QualType t) {
  const auto* r = t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  if (r == nullptr || !r->hasDefinition() || !r->isAggregate()) return false;
  const std::string name = r->getQualifiedNameAsString();
  return name.rfind("tlaloc::", 0) == 0 && name.size() > 7 && name.substr(name.size() - 7) == "Options";
}

// Numbers in standard containers (`std::vector<std::int64_t>` axes or a shape,
// `std::vector<std::pair<std::int64_t, std::int64_t>>` pad widths, std::array), or in a
// tl::Axes: generated code takes them as they are, by reference.
bool is_numbers(QualType t) {
  const QualType c = t.getNonReferenceType().getCanonicalType();
  if (c->isArithmeticType() || c->isEnumeralType()) return true;
  if (const auto* r = c->getAsCXXRecordDecl();
      r != nullptr && r->getQualifiedNameAsString() == "tlaloc::Axes")
    return true;
  const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(c->getAsCXXRecordDecl());
  if (spec == nullptr) return false;
  const std::string name = spec->getQualifiedNameAsString();
  if (name != "std::vector" && name != "std::array" && name != "std::pair") return false;
  for (const TemplateArgument& a : spec->getTemplateArgs().asArray()) {
    if (a.getKind() == TemplateArgument::Integral) continue;
    if (a.getKind() != TemplateArgument::Type) return false;
    const auto* alloc = a.getAsType()->getAsCXXRecordDecl();
    if (alloc != nullptr && alloc->getQualifiedNameAsString() == "std::allocator") continue;
    if (!is_numbers(a.getAsType())) return false;
  }
  return true;
}

// An aggregate of tensors (tl::nn::GRU::Result): its fields are values of their own
// (a Pack, in the order of the fields), read by name (Lowerer::struct_value). Fields
// of type tl::nn::Params (tl::nn::BatchNorm2d::Result's running statistics) may stand
// beside the tensors: they are not followed (kUnfollowed in the Pack), their values
// never computed, and reading one is refused.
bool is_tensor_struct(QualType t) {
  const auto* r = t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  if (r == nullptr || !r->hasDefinition() || !r->isAggregate() || r->isLambda() || r->getNumBases() != 0 ||
      r->field_empty())
    return false;
  const auto tensor = [](const FieldDecl* f) { return is_tensor(f->getType()); };
  const auto followed_or_params = [](const FieldDecl* f) {
    return is_tensor(f->getType()) || is_params(f->getType());
  };
  return std::any_of(r->field_begin(), r->field_end(), tensor) &&
         std::all_of(r->field_begin(), r->field_end(), followed_or_params);
}

// A std::function (tl::nn::MLP's activation): called, it is inlined from the lambda
// the object was made with (Lowerer::function_call).
bool is_function(QualType t) {
  const auto* r = t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  return r != nullptr && r->getQualifiedNameAsString() == "std::function";
}

// An aggregate of numbers (a layer's sizes, tl::nn::Linear; a user's settings):
// fields of arithmetic, enumeration or container-of-numbers types, or such aggregates,
// or functions (tl::nn::MLP's activation).
bool is_number_struct(QualType t) {
  const auto* r = t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  if (r == nullptr || !r->hasDefinition() || !r->isAggregate() || r->isLambda() || r->getNumBases() != 0 ||
      r->field_empty())
    return false;
  for (const FieldDecl* f : r->fields()) {
    const QualType ft = f->getType();
    if (!(ft->isArithmeticType() || ft->isEnumeralType() || (ft->isRecordType() && is_numbers(ft)) ||
          is_function(ft) || is_number_struct(ft)))
      return false;
  }
  return true;
}

// std::string or std::string_view: names and messages, such as the losses' own names
// that their checks report.
bool is_text(QualType t) {
  const auto* r = t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  if (r == nullptr) return false;
  const std::string name = r->getQualifiedNameAsString();
  return name == "std::basic_string_view" || name == "std::basic_string";
}

const Expr* strip(const Expr* e) {
  for (;;) {
    e = e->IgnoreParens();
    if (const auto* c = dyn_cast<ExprWithCleanups>(e))
      e = c->getSubExpr();
    else if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(e))
      e = m->getSubExpr();
    else if (const auto* b = dyn_cast<CXXBindTemporaryExpr>(e))
      e = b->getSubExpr();
    else if (const auto* i = dyn_cast<ImplicitCastExpr>(e))
      e = i->getSubExpr();
    else if (const auto* k = dyn_cast<CXXConstructExpr>(e);
             k && k->getNumArgs() == 1 && is_tensor(k->getType()))
      e = k->getArg(0);
    else
      return e;
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

// Whether s is a loop: for, range-for, while or do.
bool is_loop(const Stmt* s) {
  return isa<ForStmt>(s) || isa<CXXForRangeStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s);
}

// Whether every path through a statement ends in a `return` (a loop may end without one).
bool always_returns(const Stmt* s) {
  if (isa<ReturnStmt>(s)) return true;
  if (const auto* c = dyn_cast<CompoundStmt>(s)) return !c->body_empty() && always_returns(c->body_back());
  if (const auto* f = dyn_cast<IfStmt>(s))
    return f->getElse() != nullptr && always_returns(f->getThen()) && always_returns(f->getElse());
  return false;
}

// The tensor variables a statement assigns to (loop-carried values).
void assigned_tensors(const Stmt* s, std::set<const ValueDecl*>& out) {
  if (s == nullptr) return;
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s); op && op->isAssignmentOp() && op->getNumArgs() == 2)
    if (const auto* ref = dyn_cast<DeclRefExpr>(op->getArg(0)->IgnoreParenImpCasts());
        ref && is_tensor(ref->getType())) {
      out.insert(ref->getDecl());
      // Through a reference to one of two tensors (or references), either may change.
      const std::function<void(const ValueDecl*)> through = [&](const ValueDecl* d) {
        const auto* v = dyn_cast<VarDecl>(d);
        if (const auto targets = v ? alias_targets(v) : std::nullopt) {
          out.insert({targets->first, targets->second});
          through(targets->first);
          through(targets->second);
        }
      };
      through(ref->getDecl());
    }
  for (const Stmt* c : s->children()) assigned_tensors(c, out);
}

// The variable `v = e`, `v op= e`, `++v` or `v--` assigns, or null.
const VarDecl* assigned_variable(const Stmt* s) {
  const Expr* target = nullptr;
  if (const auto* b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp()) target = b->getLHS();
  if (const auto* u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp()) target = u->getSubExpr();
  const auto* ref = target ? dyn_cast<DeclRefExpr>(target->IgnoreParenImpCasts()) : nullptr;
  return ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
}

// Whether names written unqualified in d may not resolve where the generated code
// is, in a namespace of its own at global scope: d is inside a named namespace (the
// library's tlaloc::nn, a user's), other than the generated code's own, whose texts
// a Hessian's second parse reads.
bool in_named_namespace(const Decl* d) {
  for (const DeclContext* c = d->getDeclContext(); c != nullptr; c = c->getParent())
    if (const auto* n = dyn_cast<NamespaceDecl>(c); n != nullptr && !n->isAnonymousNamespace())
      return n->getName() != "tlaloc_generated";
  return false;
}

std::vector<const Stmt*> statements(const Stmt* s) {
  if (s == nullptr) return {};
  if (const auto* c = dyn_cast<CompoundStmt>(s)) return {c->body_begin(), c->body_end()};
  return {s};
}

bool no_derivative(const FunctionDecl& fd) {
  if (zero_derivative(fd.getNameAsString())) return true;
  for (const auto* a : fd.specific_attrs<AnnotateAttr>())
    if (a->getAnnotation() == "tlaloc::no_derivative") return true;
  return false;
}

const Rule* operator_rule(OverloadedOperatorKind k, unsigned args) {
  return find_operator(getOperatorSpelling(k), args);
}
const Rule* compound_rule(OverloadedOperatorKind k) {
  const BinaryOperatorKind assign = BinaryOperator::getOverloadedOpcode(k);
  if (!BinaryOperator::isCompoundAssignmentOp(assign)) return nullptr;
  return find_operator(BinaryOperator::getOpcodeStr(BinaryOperator::getOpForCompoundAssignment(assign)).str(),
                       2);
}

namespace {
bool refers_to(const Stmt* s, const ValueDecl* v) {
  if (s == nullptr) return false;
  if (const auto* ref = dyn_cast<DeclRefExpr>(s); ref != nullptr && ref->getDecl() == v) return true;
  return std::any_of(s->child_begin(), s->child_end(), [&](const Stmt* c) { return refers_to(c, v); });
}
}  // namespace

void Lowerer::function(const FunctionDecl& fn, const LambdaExpr* lambda) {
  top_ = &fn;
  reserve_names(fn.getBody());
  refuse_nested_transforms(fn.getBody());
  for (const ParmVarDecl* pd : fn.parameters()) param(pd, pd->getType(), true);
  p_.explicit_params = p_.params.size();
  if (lambda != nullptr)
    for (const LambdaCapture& c : lambda->captures()) {
      if (!c.capturesVariable())
        refuse(Code::unsupported_construct, loc(c.getLocation()),
               "capturing `this` (capture the members you need)");
      const auto* var = cast<VarDecl>(c.getCapturedVar());
      param(var, var->getType(), false);
      // A variable captured by name that the body never reads (`[mode, &rows]`): the
      // generated function takes it all the same.
      Param& captured = p_.params.back();
      if (!captured.type.starts_with("[[") && !refers_to(fn.getBody(), var))
        captured.type = "[[maybe_unused]] " + captured.type;
    }
  for (std::size_t w : p_.wrt) {
    if (w < p_.explicit_params && p_.params[w].list && (p_.listed || p_.wrt.size() > 1))
      refuse(Code::unsupported_construct, p_.loc,
             "parameter " + std::to_string(w) + " is a " +
                 (p_.params[w].named ? "tl::nn::Params" : "std::vector<tl::Tensor>") +
                 ": tl::argnums lists tl::Tensor "
                 "arguments only (differentiate the list alone, as tl::grad(f)(list, ...))");
    if (w >= p_.explicit_params || (p_.params[w].value < 0 && !p_.params[w].list))
      refuse(Code::not_differentiable, p_.loc, "parameter " + std::to_string(w) + " is not a tl::Tensor");
  }
  if (forward_only_) find_tensor_conditions(fn.getBody());
  const auto r = block(statements(fn.getBody()), 0, p_.body);
  if (!r)
    refuse(Code::unsupported_construct, loc(fn.getEndLoc()), "the function ends without returning a tensor");
  if (p_.values[std::size_t(*r)].undefined)
    refuse(Code::unsupported_construct, loc(fn.getEndLoc()),
           "the function returns tensor '" + p_.values[std::size_t(*r)].name + "' before it has a value");
  p_.result = *r;
  if (!forward_only_) mark_unread(p_.body);
}

// Generated names avoid the user's (scalar text refers to them by name); a user
// name keeps its spelling unless an inlined function already took it.
// Variables in the order of their declarations in the translation unit, so that
// what the generated code lists follows the source and not where a parse put the
// declarations in memory (a precompiled header changes that).
std::vector<const ValueDecl*> Lowerer::in_source_order(const std::set<const ValueDecl*>& vars) const {
  std::vector<const ValueDecl*> v(vars.begin(), vars.end());
  std::stable_sort(v.begin(), v.end(), [this](const ValueDecl* a, const ValueDecl* b) {
    return sm_.isBeforeInTranslationUnit(a->getLocation(), b->getLocation());
  });
  return v;
}
std::vector<const ValueDecl*> Lowerer::in_source_order(
    const std::map<const ValueDecl*, ValueId>& vars) const {
  std::set<const ValueDecl*> keys;
  for (const auto& kv : vars) keys.insert(kv.first);
  return in_source_order(keys);
}

void Lowerer::reserve_names(const Stmt* s) {
  if (s == nullptr) return;
  if (const auto* d = dyn_cast<DeclStmt>(s))
    for (const Decl* decl : d->decls())
      if (const auto* v = dyn_cast<VarDecl>(decl)) reserved_.insert(v->getNameAsString());
  for (const Stmt* c : s->children()) reserve_names(c);
}

std::string Lowerer::unique(const std::string& base) {
  std::string n = base;
  for (int k = 1; names_.count(n) != 0 || reserved_.count(n) != 0; ++k) n = base + "_" + std::to_string(k);
  names_.insert(n);
  return n;
}

// A user's name keeps its spelling unless taken, or shaped like the names the
// generated code gives its own variables (d_x is x's cotangent, t_x its tangent, ct
// the pullback's cotangent, ...): such a name gets a `u_` in front.
std::string Lowerer::claim(const std::string& user) {
  static const char* const generated[] = {"d_", "t_",   "saved_", "steps_",    "cond_",  "e_",     "z_",
                                          "m_", "hit_", "share_", "centered_", "count_", "stats_", "root_"};
  bool looks_generated = user == "ct" || user == "pullback" ||
                         (user.size() > 1 && user[0] == 'k' &&
                          std::all_of(user.begin() + 1, user.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }));
  for (const char* prefix : generated) looks_generated = looks_generated || user.rfind(prefix, 0) == 0;
  if (looks_generated) return unique("u_" + user);
  if (names_.insert(user).second) return user;
  return unique(user);
}

// traced: a parameter of the function (symbolic when tl::grad traces it), not a capture.
void Lowerer::param(const ValueDecl* d, QualType t, bool traced) {
  const std::string outer = d->getNameAsString(), name = claim(outer);
  if (name != outer) renamed_[d] = name;
  // A parameter marked so may go unread, as a generated gradient's (lowered again for
  // a Hessian) whose lambda captured a variable it does not read.
  const std::string unread = d->hasAttr<UnusedAttr>() ? "[[maybe_unused]] " : "";
  if (is_tensor(t)) {
    const bool wrt = std::find(p_.wrt.begin(), p_.wrt.end(), p_.params.size()) != p_.wrt.end();
    const ValueId v = p_.add_value(name, wrt, traced);
    tensors_[d] = v;
    p_.params.push_back({unread + "const tl::Tensor&", name, v, outer});
    return;
  }
  if (is_tensor_list(t) || is_params(t)) {
    const bool wrt = std::find(p_.wrt.begin(), p_.wrt.end(), p_.params.size()) != p_.wrt.end();
    const bool named = is_params(t);
    list_params_[d] = {name, wrt, traced || wrt, named};
    p_.params.push_back(
        {unread + (named ? "const ::tlaloc::nn::Params&" : "const std::vector<::tlaloc::Tensor>&"), name, -1,
         outer, true, named});
    return;
  }
  const QualType plain = t.getNonReferenceType().getUnqualifiedType();
  if (is_custom(plain) || is_options(plain) || (plain->isRecordType() && is_numbers(plain)) ||
      is_number_struct(plain)) {
    // An object whose operator() reads none of its fields (tl::nn::Embedding) is not read.
    const std::string unused = is_number_struct(plain) && !is_options(plain) ? "[[maybe_unused]] " : "";
    p_.params.push_back(
        {(unused.empty() ? unread : unused) + "const " + type_name(plain) + "&", name, -1, outer});
    return;
  }
  if (!plain->isArithmeticType() && !plain->isEnumeralType())
    refuse(Code::unsupported_construct, loc(d->getLocation()),
           "parameter or capture '" + name + "' of type " + t.getAsString() +
               ": only tl::Tensor, std::vector<tl::Tensor>, tl::nn::Params, arithmetic and enumeration "
               "types, standard containers of numbers, and the library's options structs");
  const std::string type = type_name(plain);
  p_.params.push_back({unread + "const " + type, name, -1, outer});
  // A parameter taken by value may be assigned in the body, as a local.
  if (const auto* pv = dyn_cast<ParmVarDecl>(d); pv && !t->isReferenceType() && !forward_only_)
    declare_scalar(pv, name, type, false);
}

// Names as the generated code writes them: fully qualified, without the scopes no
// one can write (an anonymous namespace, whose names its parent's lookup finds).
PrintingPolicy Lowerer::written_policy() const {
  PrintingPolicy policy = ctx_.getPrintingPolicy();
  policy.SuppressUnwrittenScope = true;
  return policy;
}
std::string Lowerer::type_name(QualType t) const {
  return TypeName::getFullyQualifiedName(t, ctx_, written_policy());
}
std::string Lowerer::written_name(const NamedDecl& d) const {
  std::string name;
  llvm::raw_string_ostream os(name);
  d.printQualifiedName(os, written_policy());
  return "::" + os.str();
}

// An expression's source as written, on one line.
std::string Lowerer::raw(const Expr* e) const {
  std::string src(
      Lexer::getSourceText(CharSourceRange::getTokenRange(e->getSourceRange()), sm_, ctx_.getLangOpts()));
  std::string out;
  for (char c : src)
    if (!(c == '\n' || ((c == ' ' || c == '\t') && !out.empty() && out.back() == ' ')))
      out += c == '\t' ? ' ' : c;
  return out;
}

// An expression's source with the variables renamed to the generated function's.
std::string Lowerer::text(const Expr* e) {
  refuse_assignment_in(e);
  return assignment_text(e);
}

// The same for an expression that may assign scalars: a statement `n += 1;`, or a
// loop's step.
std::string Lowerer::assignment_text(const Expr* e) {
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

// A scalar (or other non-tensor) expression's text. It may read a tensor's shape,
// but not a value that depends on the differentiated argument: that value's
// derivative would be lost (tracing refuses it as well: item() of a traced tensor).
std::string Lowerer::scalar_text(const Expr* e) {
  refuse_active_in(e, nullptr, e);
  return text(e);
}

void Lowerer::refuse_active_in(const Stmt* s, const Stmt* parent, const Expr* whole) {
  if (s == nullptr) return;
  if (const auto* ref = dyn_cast<DeclRefExpr>(s)) {
    // Reads of what a tensor is, not of its values: also `y.is_same(x)`, either side.
    static const std::set<std::string> shape_reads{"shape", "size",    "numel",  "rank",
                                                   "dtype", "defined", "is_same"};
    const auto* member = dyn_cast_or_null<MemberExpr>(parent);
    const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(parent);
    const bool compared = call != nullptr && call->getMethodDecl() != nullptr &&
                          call->getMethodDecl()->getNameAsString() == "is_same";
    // A differentiated list may give its size; its tensors are read as elements only.
    static const std::set<std::string> list_reads{"size", "empty"};
    const std::string read = member == nullptr ? "" : member->getMemberNameInfo().getAsString();
    const auto it = tensors_.find(ref->getDecl());
    const auto list = list_params_.find(ref->getDecl());
    if ((it != tensors_.end() && active(it->second) && shape_reads.count(read) == 0 && !compared) ||
        (list != list_params_.end() && list->second.active && list_reads.count(read) == 0))
      refuse(Code::not_differentiable, loc(ref->getBeginLoc()),
             "'" + raw(whole) + "' (not a tl::Tensor) uses '" + ref->getDecl()->getNameAsString() +
                 "', which depends on the differentiated argument: its derivative would be lost");
  }
  // Implicit conversions and parentheses do not change what a name is used for.
  const bool transparent = isa<ImplicitCastExpr>(s) || isa<ParenExpr>(s);
  for (const Stmt* c : s->children()) refuse_active_in(c, transparent ? parent : s, whole);
}

// A local constant of an enclosing function read in the body (`const int axis = 0;`
// outside a [&] lambda) is not captured, as its value is all the body uses: its value
// is written instead, since the generated function cannot see the name.
std::string Lowerer::constant_value(const DeclRefExpr& ref) {
  const auto* v = dyn_cast<VarDecl>(ref.getDecl());
  if (v == nullptr || ref.isNonOdrUse() != NOUR_Constant || !v->isLocalVarDecl()) return "";
  // A constant the lowered code declares itself keeps its name.
  const DeclContext* owner = v->getParentFunctionOrMethod();
  if (owner == top_ || std::find(inlining_.begin(), inlining_.end(), owner) != inlining_.end()) return "";
  const APValue* value = v->evaluateValue();
  const QualType t = v->getType().getUnqualifiedType();
  if (value != nullptr)
    if (auto spelled = constant_text(*value, t)) return *spelled;
  refuse(Code::unsupported_construct, loc(ref.getBeginLoc()),
         "the constant '" + v->getNameAsString() + "' of the enclosing function, of type " + t.getAsString() +
             ": capture it by value ([" + v->getNameAsString() + "]) or pass it as an argument");
}

// A constant of type t written out: a number, a bool, or an enumerator by its
// qualified name (none for other types).
std::optional<std::string> Lowerer::constant_text(const APValue& value, QualType t) const {
  if (value.isInt()) {
    if (t->isBooleanType()) return value.getInt().isZero() ? "false" : "true";
    if (const auto* e = t->getAs<EnumType>()) {
      for (const EnumConstantDecl* c : e->getDecl()->enumerators())
        if (llvm::APSInt::isSameValue(c->getInitVal(), value.getInt())) return written_name(*c);
      return "static_cast<" + type_name(t) + ">(" + toString(value.getInt(), 10) + ")";
    }
    return toString(value.getInt(), 10);
  }
  if (value.isFloat() &&
      (t->isSpecificBuiltinType(BuiltinType::Double) || t->isSpecificBuiltinType(BuiltinType::Float))) {
    const bool is_float = t->isSpecificBuiltinType(BuiltinType::Float);
    char buf[40];
    std::snprintf(buf, sizeof buf, is_float ? "%.9gf" : "%.17g", value.getFloat().convertToDouble());
    std::string out = buf;
    if (out.find_first_of(".eEn") == std::string::npos)
      out.insert(is_float ? out.size() - 1 : out.size(), ".0");
    return out;
  }
  return std::nullopt;
}

// A non-tensor argument's text. A default argument is written where the call is, so
// it must be a constant (its text belongs to the callee's scope), or `{}`.
std::string Lowerer::argument_text(const Expr* a, const FunctionDecl& callee, const ParmVarDecl& param) {
  const auto* d = dyn_cast<CXXDefaultArgExpr>(a);
  if (d == nullptr) return text(a);
  const QualType t = param.getType().getNonReferenceType().getUnqualifiedType();
  Expr::EvalResult r;
  if (d->getExpr()->EvaluateAsRValue(r, ctx_))
    if (auto spelled = constant_text(r.Val, t)) return *spelled;
  const Expr* init = d->getExpr()->IgnoreImplicit();
  if (const auto* c = dyn_cast<CXXConstructExpr>(init); c != nullptr && c->getNumArgs() == 0) return "{}";
  if (const auto* l = dyn_cast<InitListExpr>(init); l != nullptr && l->getNumInits() == 0) return "{}";
  refuse(Code::unsupported_construct, loc(d->getUsedLocation()),
         "the default argument of '" + param.getNameAsString() + "' in '" + callee.getNameAsString() +
             "' is not a constant: pass it at the call");
}

void Lowerer::collect_renames(const Stmt* s, unsigned begin,
                              std::vector<std::pair<unsigned, std::pair<unsigned, std::string>>>& out) {
  if (s == nullptr) return;
  // The source from `first` to the end of the token at `last` replaced by `to`.
  const auto replace = [&](SourceLocation first, SourceLocation last, std::string to) {
    const unsigned at = sm_.getFileOffset(first);
    const unsigned end = sm_.getFileOffset(Lexer::getLocForEndOfToken(last, 0, sm_, ctx_.getLangOpts()));
    out.push_back({at - begin, {end - at, std::move(to)}});
  };
  // An element of a Pack, or its length, read in a scalar's text: its value's name,
  // or the length written out.
  const auto* e = dyn_cast<Expr>(s);
  if (e != nullptr) refuse_if_unfollowed(e);
  const auto* size = dyn_cast_or_null<CXXMemberCallExpr>(s);
  const auto* sized = size != nullptr && size->getMethodDecl()->getNameAsString() == "size"
                          ? dyn_cast<DeclRefExpr>(strip(size->getImplicitObjectArgument()))
                          : nullptr;
  const std::optional<ValueId> element = e != nullptr ? pack_read(e, nullptr) : std::nullopt;
  if (element || (sized != nullptr && packs_.count(sized->getDecl()) != 0)) {
    replace(s->getBeginLoc(), s->getEndLoc(),
            element ? p_.values[std::size_t(*element)].name
                    : "std::size_t{" + std::to_string(packs_.at(sized->getDecl()).size()) + "}");
    return;
  }
  // A tensor field of an aggregate the function holds (`r.y` in `r.y.shape()`): the
  // field's value.
  if (const auto* m = dyn_cast_or_null<MemberExpr>(s);
      m != nullptr && !m->isArrow() && is_tensor_struct(m->getBase()->getType()))
    if (const auto* ref = dyn_cast<DeclRefExpr>(strip(m->getBase()));
        ref && packs_.count(ref->getDecl()) != 0)
      if (const auto* field = dyn_cast<FieldDecl>(m->getMemberDecl())) {
        const ValueId id = packs_.at(ref->getDecl()).at(field->getFieldIndex());
        if (id == kUnfollowed) refuse_unfollowed(field, m->getMemberLoc());
        const Value& v = p_.values[std::size_t(id)];
        replace(m->getBeginLoc(), m->getEndLoc(), v.undefined ? "tl::Tensor()" : v.name);
        return;
      }
  if (const auto* ref = dyn_cast<DeclRefExpr>(s)) {
    if (packs_.count(ref->getDecl()) != 0)
      refuse(Code::unsupported_construct, loc(ref->getBeginLoc()),
             "the std::vector<tl::Tensor> '" + ref->getDecl()->getNameAsString() +
                 "' used whole: read its elements (" + ref->getDecl()->getNameAsString() +
                 "[0]) or its size");
    if (const auto* v = dyn_cast<VarDecl>(ref->getDecl())) read_scalar(v);
    std::string to;
    // An undefined tensor is not written out: its text is one (`d.defined()`).
    const std::function<std::string(const ValueDecl*)> spelled = [&](const ValueDecl* d) -> std::string {
      if (auto a = aliases_.find(d); a != aliases_.end())
        return a->second.first == a->second.second
                   ? spelled(a->second.first)
                   : "(" + a->second.which + " ? " + spelled(a->second.first) + " : " +
                         spelled(a->second.second) + ")";
      const ValueId v = tensors_.at(d);
      return p_.values[std::size_t(v)].undefined ? std::string("tl::Tensor()")
                                                 : p_.values[std::size_t(v)].name;
    };
    if (tensors_.count(ref->getDecl()) != 0 || aliases_.count(ref->getDecl()) != 0)
      to = spelled(ref->getDecl());
    else if (auto r = renamed_.find(ref->getDecl()); r != renamed_.end())
      to = r->second;
    else if (const auto* c = dyn_cast<EnumConstantDecl>(ref->getDecl()); c && in_named_namespace(current()))
      to = written_name(*c);
    else if (const auto* f = dyn_cast<FunctionDecl>(ref->getDecl());
             f && in_named_namespace(current()) && f->getDeclName().isIdentifier() &&
             !isa<CXXMethodDecl>(f) && !ref->hasExplicitTemplateArgs())
      to = written_name(*f);
    else
      to = constant_value(*ref);
    if (!to.empty()) replace(ref->getBeginLoc(), ref->getEndLoc(), to);
  }
  // In an inlined member function, `this` is the object: a field read through it
  // (`bias`, `this->bias`) is read from the object, and `*this` is the object.
  if (object_.name.empty()) {
    for (const Stmt* c : s->children()) collect_renames(c, begin, out);
    return;
  }
  const auto* m = dyn_cast<MemberExpr>(s);
  if (const auto* self =
          m != nullptr ? dyn_cast<CXXThisExpr>(m->getBase()->IgnoreParenImpCasts()) : nullptr) {
    replace(
        self->isImplicit() ? m->getMemberLoc() : m->getBeginLoc(), m->getMemberLoc(),
        code::Expr::member(code::Expr::text(object_.name), "." + m->getMemberNameInfo().getAsString()).str());
    return;
  }
  if (const auto* deref = dyn_cast<UnaryOperator>(s);
      deref != nullptr && deref->getOpcode() == UO_Deref &&
      isa<CXXThisExpr>(deref->getSubExpr()->IgnoreParenImpCasts())) {
    replace(deref->getBeginLoc(), deref->getEndLoc(), object_.name);
    return;
  }
  for (const Stmt* c : s->children()) collect_renames(c, begin, out);
}

ValueId Lowerer::op(Block& out, const Expr* e, std::string fn, std::vector<Arg> args, std::string spelled) {
  bool active = false, traced = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    if (a.is_tensor()) refuse_undefined(a.value, e);
    active = active || (a.is_tensor() && moves_with(fn, args, i) && this->active(a.value));
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
  s.result = p_.add_value(unique((s.fn.empty() ? "t" : s.fn) + "_" + std::to_string(p_.values.size())),
                          active, traced);
  out.push_back(std::move(s));
  if (!out.back().fn.empty()) note_shape(out.back(), out.back().fn);
  return out.back().result;
}

// The result's type where its operands' are known at build time (shapes.hpp); a
// shape the library refuses stops the build here.
void Lowerer::note_shape(const Node& s, const std::string& fn) {
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
std::vector<Arg> Lowerer::arguments(const CallExpr* e, Block& out) {
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

// `p.entries()` holds what `p` does (a Params' entries, ranged over or read at a
// position): p; else e.
static const Expr* entries_of(const Expr* e) {
  const auto* m = dyn_cast<CXXMemberCallExpr>(strip(e));
  if (m == nullptr || m->getNumArgs() != 0 || m->getMethodDecl()->getNameAsString() != "entries" ||
      !is_params(m->getImplicitObjectArgument()->getType()))
    return e;
  return m->getImplicitObjectArgument();
}

Arg Lowerer::arg(const Expr* e, Block& out) {
  if (is_tensor(e->getType())) return {expr(e, out), {}};
  return {-1, scalar_text(e)};
}

void Lowerer::shape_operands(const CallExpr* e, const std::string& name, std::vector<Arg>& args, Block& out) {
  const Rule* rule = find_rule(name);
  if (rule == nullptr || rule->op == nullptr) return;
  for (const std::size_t k : rule->op->public_call().by_shape) {
    if (k >= args.size()) continue;
    const auto* m = dyn_cast<CXXMemberCallExpr>(strip(e->getArg(unsigned(k))));
    const Expr* t = m != nullptr && m->getNumArgs() == 0 && m->getMethodDecl()->getNameAsString() == "shape"
                        ? m->getImplicitObjectArgument()
                        : nullptr;
    if (t == nullptr || !is_tensor(t->getType()))
      refuse(Code::unsupported_construct, loc(e->getArg(unsigned(k))->getBeginLoc()),
             "tl::derivatives::" + name + " takes argument " + std::to_string(k + 1) +
                 " as t.shape() of a tensor t here, got '" + args[k].text + "'");
    args[k] = {expr(t, out), {}};
  }
}

ValueId Lowerer::expr(const Expr* e, Block& out) {
  e = strip(e);
  if (const auto* ref = dyn_cast<DeclRefExpr>(e)) {
    if (auto it = tensors_.find(ref->getDecl()); it != tensors_.end()) return it->second;
    if (aliases_.count(ref->getDecl()) != 0) return alias_read(ref->getDecl(), e, out);
    return op(out, e, {}, {}, text(e));  // a tensor from outside (a global): a constant
  }
  if (const auto* c = dyn_cast<ConditionalOperator>(e)) return conditional(c, out);
  if (const MemberExpr* m = scan_member(e)) {
    const auto [carry, ys] = scan_call(scan_of(m->getBase()), out);
    return (m->getMemberDecl()->getName() == "first" ? carry : ys).at(0);
  }
  if (const auto* m = dyn_cast<MemberExpr>(e))
    if (const auto value = custom_value(m, out)) return *value;
  // p.entries()[k].second: a Params' element at a position (as a generated range-for
  // over it reads its elements, which a Hessian lowers again).
  if (const auto* m = dyn_cast<MemberExpr>(e); m && m->getMemberDecl()->getName() == "second")
    if (const auto* at = dyn_cast<CXXOperatorCallExpr>(strip(m->getBase()));
        at && at->getOperator() == OO_Subscript)
      if (const Expr* entries = strip(at->getArg(0)); entries_of(entries) != entries)
        if (const auto l = list_of(entries_of(entries))) {
          if (!l->prefix.empty() || !l->computed.empty())
            refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
                   "'" + raw(e) +
                       "': a position in part of a Params (its sub(...)) is not one in the Params: " +
                       "read the tensor by name");
          return element(*l, scalar_text(at->getArg(1)), e, out);
        }
  if (const auto* m = dyn_cast<MemberExpr>(e);
      m && !m->isArrow() && is_tensor_struct(m->getBase()->getType()))
    if (const auto* field = dyn_cast<FieldDecl>(m->getMemberDecl())) {
      const ValueId v = struct_value(m->getBase(), out)[field->getFieldIndex()];
      if (v == kUnfollowed) refuse_unfollowed(field, e->getBeginLoc());
      return v;
    }
  if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(e)) return operator_call(oc, out);
  if (const auto* mc = dyn_cast<CXXMemberCallExpr>(e)) return member_call(mc, out);
  if (const auto* c = dyn_cast<CallExpr>(e)) return call(c, out);
  if (const auto* c = dyn_cast<CXXConstructExpr>(e); c != nullptr && c->getNumArgs() == 0)
    return undefined_tensor(c->getBeginLoc(), "undefined", raw(e), out);
  refuse_scan_in(e);
  refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
         std::string("a tensor expression of kind ") + e->getStmtClassName());
}

ValueId Lowerer::operator_call(const CXXOperatorCallExpr* e, Block& out) {
  if (const auto element = pack_read(e, &out)) return *element;
  if (e->getOperator() == OO_Subscript)
    if (const auto l = list_of(e->getArg(0))) return element(*l, scalar_text(e->getArg(1)), e, out);
  if (e->getOperator() == OO_Call && is_custom(e->getArg(0)->getType())) return custom_call(e, out);
  if (const auto* m = dyn_cast_or_null<CXXMethodDecl>(e->getDirectCallee()); m && m->getParent()->isLambda())
    return lambda_call(e, out);
  if (e->getOperator() == OO_Call && is_function(e->getArg(0)->getType())) return function_call(e, out);
  // layer(p, x) for an aggregate of numbers with a visible operator(): its body
  // inlined, its fields read from the object.
  if (const auto* m = dyn_cast_or_null<CXXMethodDecl>(e->getDirectCallee());
      m && e->getOperator() == OO_Call && is_number_struct(e->getArg(0)->getType())) {
    const FunctionDecl* def = nullptr;
    if (m->hasBody(def) && !sm_.isInSystemHeader(def->getLocation())) {
      const Object saved = std::exchange(object_, object_of(e, e->getArg(0), out));
      const ValueId v = inline_call(e, *def, out, 1);
      object_ = saved;
      return v;
    }
  }
  if (const auto saved = tape_read(e, out)) return *saved;
  std::vector<Arg> args = arguments(e, out);
  if (const Rule* rule = operator_rule(e->getOperator(), e->getNumArgs()))
    return op(out, e, rule->name, args, {});
  // Comparisons and logical operators: bool results, no derivative. Spelled over
  // the lowered operands, which are not computed a second time.
  if (e->getOperator() == OO_Subscript || e->getOperator() == OO_Call) return inactive(out, e, args);
  const std::string spelling = getOperatorSpelling(e->getOperator());
  const auto operand = [&](std::size_t i) {
    const std::string t = args[i].is_tensor() ? p_.values[std::size_t(args[i].value)].name : args[i].text;
    const bool simple = std::all_of(t.begin(), t.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    });
    return simple ? t : "(" + t + ")";
  };
  const std::string spelled =
      args.size() == 2 ? operand(0) + " " + spelling + " " + operand(1) : spelling + operand(0);
  return inactive(out, e, args, spelled);
}

// The object of `call`, a member function inlined. Generated code names it as
// written, or a temporary (`RMSNorm{.eps = b.eps}(p, h)`) a constant of its own,
// since its type's name is written as the user's scope sees it and its fields are
// read apart.
Lowerer::Object Lowerer::object_of(const CallExpr* call, const Expr* object, Block& out) {
  const auto* ref = dyn_cast<DeclRefExpr>(strip(object));
  Object o{text(object), ref != nullptr ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr, call->getBeginLoc()};
  const auto* cast = dyn_cast<CXXFunctionalCastExpr>(strip(object));
  const auto* list = cast != nullptr ? dyn_cast<InitListExpr>(cast->getSubExpr()->IgnoreImplicit()) : nullptr;
  if (list == nullptr) return o;
  std::string word = cast->getType()->getAsCXXRecordDecl()->getNameAsString();
  for (char& c : word) c = char(std::tolower(static_cast<unsigned char>(c)));
  o.name = inlining_.empty() ? claim(word) : unique(scope_prefix() + "_" + word);
  scalar(out, object->getBeginLoc(),
         "const " + type_name(cast->getType().getUnqualifiedType()) + " " + o.name + text(list) + ";");
  out.back().declares = o.name;
  return o;
}

// The fields of an aggregate of tensors: a variable bound to one, one made in braces,
// or one returned by a function with a visible body (a member function of an
// aggregate of numbers, `gru.apply(p, x, h0)`, or a free function), inlined.
Lowerer::Pack Lowerer::struct_value(const Expr* e, Block& out) {
  e = strip(e);
  if (const auto* k = dyn_cast<CXXConstructExpr>(e);
      k && k->getNumArgs() == 1 && is_tensor_struct(k->getArg(0)->getType()))
    return struct_value(k->getArg(0), out);
  if (const auto* ref = dyn_cast<DeclRefExpr>(e))
    if (auto it = packs_.find(ref->getDecl()); it != packs_.end()) return it->second;
  if (const auto* f = dyn_cast<CXXFunctionalCastExpr>(e); f && braced_tensors(f->getSubExpr(), true))
    return pack(e, out);
  const auto* call = dyn_cast<CallExpr>(e);
  const FunctionDecl* def = nullptr;
  if (call != nullptr && call->getDirectCallee() != nullptr && call->getDirectCallee()->hasBody(def) &&
      !sm_.isInSystemHeader(def->getLocation())) {
    Pack fields;
    const auto* oc = dyn_cast<CXXOperatorCallExpr>(call);
    const auto* mc = dyn_cast<CXXMemberCallExpr>(call);
    if (oc == nullptr && mc == nullptr) {
      inline_body(call, *def, out, 0, &fields);
      return fields;
    }
    // A member function (`gru.apply(p, x, h0)`) or operator() (`bn(p, state, x, true)`)
    // of an aggregate of numbers: for operator(), the object is the call's first argument.
    const Expr* object = mc != nullptr                  ? mc->getImplicitObjectArgument()
                         : oc->getOperator() == OO_Call ? oc->getArg(0)
                                                        : nullptr;
    if (object != nullptr && is_number_struct(object->getType())) {
      const Object saved = std::exchange(object_, object_of(call, object, out));
      inline_body(call, *def, out, oc != nullptr ? 1 : 0, &fields);
      object_ = saved;
      return fields;
    }
  }
  refuse(
      Code::unsupported_construct, loc(e->getBeginLoc()),
      "'" + raw(e) + "' of type " + type_name(e->getType().getUnqualifiedType()) +
          ": tlaloc-grad follows an aggregate of tensors made in braces, held in a variable, or returned by "
          "a function with a visible body");
}

// `r.state`, a tl::nn::Params beside the tensors of an aggregate: not followed, refused.
void Lowerer::refuse_if_unfollowed(const Expr* e) const {
  const auto* m = dyn_cast<MemberExpr>(strip(e));
  if (m == nullptr || !is_params(m->getType()) || !is_tensor_struct(m->getBase()->getType())) return;
  if (const auto* f = dyn_cast<FieldDecl>(m->getMemberDecl())) refuse_unfollowed(f, m->getMemberLoc());
}

void Lowerer::refuse_unfollowed(const FieldDecl* field, SourceLocation at) const {
  refuse(Code::unsupported_construct, loc(at),
         "the field '" + field->getNameAsString() + "' of " +
             type_name(ctx_.getRecordType(field->getParent())) +
             ", a tl::nn::Params: tlaloc-grad follows an aggregate's tensors only (compute it outside the "
             "differentiated function)");
}

// `fn(...)` over arguments already lowered, which are not computed a second time.
std::string Lowerer::spelled_over(const std::string& fn, const std::vector<Arg>& args) const {
  std::vector<std::string> spelled;
  for (const Arg& a : args) {
    if (!a.is_tensor()) {
      spelled.push_back(a.text);
      continue;
    }
    const Value& v = p_.values[std::size_t(a.value)];
    spelled.push_back(v.undefined ? "tl::Tensor()" : v.name);
  }
  return code::Expr::call(fn, code::texts(spelled)).str();
}

// An op with no derivative, spelled as written with the renamed arguments.
ValueId Lowerer::inactive(Block& out, const Expr* e, const std::vector<Arg>& args,
                          const std::string& spelled) {
  for (const Arg& a : args)
    if (a.is_tensor() && active(a.value) && is_floating_result(e) && !in_head_)
      refuse(Code::not_differentiable, loc(e->getBeginLoc()),
             "'" + text(e) +
                 "' has no build-time derivative rule (docs/BUILD_TIME_GRADIENTS.md lists them); "
                 "take it out of the differentiated function or use the traced tl::grad");
  return op(out, e, {}, args, spelled.empty() ? text(e) : spelled);
}

// Results that would carry a derivative: anything but bool and integer tensors is
// assumed floating, since the dtype is known only at run time.
bool Lowerer::is_floating_result(const Expr* e) {
  if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(e)) {
    switch (oc->getOperator()) {
      case OO_Less:
      case OO_Greater:
      case OO_LessEqual:
      case OO_GreaterEqual:
      case OO_EqualEqual:
      case OO_ExclaimEqual:
      case OO_AmpAmp:
      case OO_PipePipe:
      case OO_Exclaim:
        return false;
      default:
        return true;
    }
  }
  return true;
}

// f(x...) for a tl::CustomFunction f: its own rule gives the derivative. The
// residuals of its forward half are kept beside the value (per iteration in loops).
ValueId Lowerer::custom_call(const CXXOperatorCallExpr* e, Block& out) {
  std::vector<Arg> args;
  for (const Pack& v : object_call_arguments(e, out, "a custom rule function", false))
    args.push_back({v[0], {}});
  const std::string callee = text(e->getArg(0));
  const ValueId v = op(out, e, "custom", args, {});
  out.back().callee = callee;
  return v;
}

// The arguments of `f(x...)` for a function object f (a custom rule function, a
// lambda), which must be tensors, lowered in the compiler's order.
std::vector<Lowerer::Pack> Lowerer::object_call_arguments(const CXXOperatorCallExpr* e, Block& out,
                                                          const std::string& what, bool packs) {
  std::vector<const Expr*> given(e->arg_begin() + 1, e->arg_end());
  std::vector<Pack> args(given.size());
  for (std::size_t k = 0; k < given.size(); ++k) {
    const std::size_t i = right_to_left_ ? given.size() - 1 - k : k;
    if (packs && is_tensor_list(given[i]->getType()) && is_pack(given[i])) {
      args[i] = pack(given[i], out);
      continue;
    }
    if (!is_tensor(given[i]->getType()))
      refuse(Code::unsupported_construct, loc(given[i]->getBeginLoc()),
             what + " called with an argument that is not a tensor");
    args[i] = {expr(given[i], out)};
  }
  return args;
}

// The build-time rule of a call of a tlaloc function, or null: the form of the call
// must be the one the rule is for.
const Rule* Lowerer::rule_for(const CallExpr* e, const FunctionDecl& fd, const std::vector<Arg>& args) {
  const std::string name = fd.getNameAsString();
  const Rule* rule = find_rule(name);
  if (rule == nullptr) return nullptr;
  // An elementwise op's registry derivative is for its plain form: tl::gelu(x), not
  // tl::gelu(x, true).
  if (!engine_elementwise(*rule) || int(args.size()) == rule->op->arity()) return rule;
  for (const Arg& a : args)
    if (a.is_tensor() && active(a.value))
      refuse(Code::not_differentiable, loc(e->getBeginLoc()),
             "tl::" + name + " with " + std::to_string(args.size()) +
                 " arguments has no build-time rule (its rule is for " + std::to_string(rule->op->arity()) +
                 ")");
  return nullptr;
}

// The tensors of a braced list (`{a, b}` passed as a std::vector<tl::Tensor>), or none.
// With `fields` (an aggregate made in braces), a tl::nn::Params among them is null.
std::optional<std::vector<const Expr*>> Lowerer::braced_tensors(const Expr* e, bool fields) {
  for (;;) {
    e = e->IgnoreImplicit();
    if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
    else if (const auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) e = b->getSubExpr();
    else if (const auto* c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() >= 1) e = c->getArg(0);
    else if (const auto* l = dyn_cast<CXXStdInitializerListExpr>(e)) e = l->getSubExpr();
    else break;
  }
  const auto* list = dyn_cast<InitListExpr>(e);
  if (list == nullptr || list->getNumInits() == 0) return std::nullopt;
  std::vector<const Expr*> tensors;
  for (const Expr* x : list->inits()) {
    const bool unfollowed = fields && is_params(x->getType());
    if (!is_tensor(x->getType()) && !unfollowed) return std::nullopt;
    tensors.push_back(unfollowed ? nullptr : x);
  }
  return tensors;
}

// tl::concat({a, b, ...}, axis) and tl::stack: the listed tensors (lowered left to
// right, as a braced list is evaluated, or the elements of a list the function holds),
// then the other arguments.
ValueId Lowerer::joined(const CallExpr* e, const std::string& name, const std::vector<ValueId>& items,
                        Block& out) {
  std::vector<Arg> args;
  for (const ValueId x : items) args.push_back({x, {}});
  for (unsigned i = 1; i < e->getNumArgs(); ++i)
    if (!isa<CXXDefaultArgExpr>(e->getArg(i))) args.push_back(arg(e->getArg(i), out));
  return op(out, e, name, args, {});
}

ValueId Lowerer::member_call(const CXXMemberCallExpr* e, Block& out) {
  if (const auto element = pack_read(e, &out)) return *element;
  if (const auto l = list_of(e->getImplicitObjectArgument())) {
    const std::string method = e->getMethodDecl()->getNameAsString();
    const bool at = method == "at" && e->getNumArgs() == 1;
    if (l->named && at) return named_element(*l, e->getArg(0), e, out);
    if (!l->named && at) return element(*l, scalar_text(e->getArg(0)), e, out, true);
    if (!l->named && (method == "front" || method == "back"))
      return element(*l, method == "front" ? "0" : l->name + ".size() - 1", e, out);
    refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
           "'" + raw(e) + "': " +
               (l->named ? "a tl::nn::Params is read by name (" + l->name + ".at(\"weight\"))"
                         : "a list of tensors is read by element (" + l->name +
                               "[i], .at(i), .front(), .back())"));
  }
  std::vector<Arg> args{arg(e->getImplicitObjectArgument(), out)};
  // A method that records one op (x.astype(dtype)): the op, its arguments attributes.
  const std::string method = e->getMethodDecl()->getNameAsString();
  const tlaloc::detail::OpDef* def = tlaloc::detail::find_called_as(method);
  if (def != nullptr && def->public_call().method &&
      e->getNumArgs() == def->public_call().attributes.size()) {
    for (const Expr* a : e->arguments()) args.push_back(arg(a, out));
    return op(out, e, method, args, {});
  }
  return inactive(out, e, args);
}

// The list parameter e names, if it names one. `p.sub("fc1")` of a Params is the
// entries under "fc1.": the same list, its names prefixed. A prefix computed at run
// time (`p.sub("layers." + std::to_string(i))`, tl::nn::MLP's) is kept as C++ text,
// which the generated code evaluates where it reads an element, as the library does.
std::optional<Lowerer::ListParam> Lowerer::list_of(const Expr* e) {
  e = strip(e);
  refuse_if_unfollowed(e);
  if (const auto* m = dyn_cast<CXXMemberCallExpr>(e);
      m && m->getNumArgs() == 1 && m->getMethodDecl()->getNameAsString() == "sub") {
    std::optional<ListParam> l = list_of(m->getImplicitObjectArgument());
    if (!l || !l->named) return std::nullopt;
    if (const StringLiteral* name = string_literal(m->getArg(0))) {
      l->prefix += name->getString().str() + ".";
      return l;
    }
    l->computed = computed_name(*l, m->getArg(0));
    l->prefix = ".";
    return l;
  }
  const auto* ref = dyn_cast<DeclRefExpr>(e);
  if (ref == nullptr) return std::nullopt;
  const auto it = list_params_.find(ref->getDecl());
  if (it == list_params_.end()) return std::nullopt;
  return it->second;
}

// C++ text of l's names followed by `name`, a string known at run time.
std::string Lowerer::computed_name(const ListParam& l, const Expr* name) {
  const std::string part = "std::string(" + scalar_text(name) + ")";
  return l.computed.empty() && l.prefix.empty() ? part : name_text(l, "") + " + " + part;
}

// The name of l's element `name` as C++ text: a string literal, or a std::string
// built on the computed prefix.
std::string Lowerer::name_text(const ListParam& l, const std::string& name) {
  const std::string rest = "\"" + l.prefix + name + "\"";
  return l.computed.empty() ? rest : l.computed + " + " + rest;
}

// A string literal, through the conversions to std::string_view or std::string.
const StringLiteral* string_literal(const Expr* e) {
  const Expr* n = e->IgnoreImplicit();
  if (const auto* k = dyn_cast<CXXConstructExpr>(n); k && k->getNumArgs() >= 1)
    n = k->getArg(0)->IgnoreImplicit();
  return dyn_cast<StringLiteral>(n);
}

// An element of a list parameter: a value of its own, whose cotangent is the list's
// cotangent's element (Value::list). A computed index is kept in a scalar, which the
// reverse sweep computes again where it adds to that element. Traced, the element
// is the argument itself and each use adds its share to it, in the order of the
// reverse sweep, as here. `checked`: read by .at(i), which keeps its bounds check.
ValueId Lowerer::element(const ListParam& l, std::string at, const Expr* e, Block& out, bool checked) {
  const bool literal = !at.empty() && std::all_of(at.begin(), at.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  if (!literal) at = index_scalar("at", at, e, out);
  const std::string read = l.named   ? l.name + ".entries()[" + at + "].second"
                           : checked ? l.name + ".at(" + at + ")"
                                     : l.name + "[" + at + "]";
  return element_value(l, at, read, l.name + "_" + at, e, out);
}

// p.at("w") of a tl::nn::Params: an element whose position the generated code finds
// by its name (Params::index), where it reads it. A name computed at run time is
// evaluated there, and where the reverse sweep adds to the element.
ValueId Lowerer::named_element(const ListParam& l, const Expr* name, const Expr* e, Block& out) {
  const StringLiteral* literal = string_literal(name);
  const std::string full = literal != nullptr ? l.prefix + literal->getString().str() : "entry";
  const std::string quoted =
      literal != nullptr ? name_text(l, literal->getString().str()) : computed_name(l, name);
  std::string word;
  for (const char c : full)
    if (!word.empty() || c != '.') word += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  // Only a differentiated Params' cotangent is indexed.
  const std::string at =
      l.active ? index_scalar("at_" + word, l.name + ".index(" + quoted + ")", e, out) : "";
  return element_value(l, at, l.name + ".at(" + quoted + ")", l.name + "_" + word, e, out);
}

// A scalar holding an element's index, which the reverse sweep computes again where
// it adds to that element.
std::string Lowerer::index_scalar(const std::string& base, const std::string& index, const Expr* e,
                                  Block& out) {
  const std::string name = unique(base);
  // In a branch or a loop only the reverse sweep's copy may read it.
  scalar(out, e->getBeginLoc(),
         std::string(structured_ > 0 ? "[[maybe_unused]] " : "") + "const std::size_t " + name + " = " +
             index + ";");
  out.back().declares = name;
  read_versions_.insert(name);
  return name;
}

ValueId Lowerer::element_value(const ListParam& l, const std::string& at, const std::string& read,
                               const std::string& base, const Expr* e, Block& out) {
  if (!region_.empty())
    refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
           "'" + raw(e) + "' inside " + region_ + ": read the list's elements before it (the engine sums a " +
               "region's shares of what it uses from outside, apart)");
  const ValueId v = op(out, e, {}, {}, read);
  Value& value = p_.values[std::size_t(v)];
  value.name = unique(base);
  value.active = l.active;
  value.traced = l.traced;
  value.list = l.name;
  value.at = at;
  return v;
}

ValueId Lowerer::call(const CallExpr* e, Block& out) {
  const FunctionDecl* fd = e->getDirectCallee();
  if (fd == nullptr)
    refuse(Code::unsupported_construct, loc(e->getBeginLoc()), "a call through a pointer or function object");
  const std::string qualified = fd->getQualifiedNameAsString();
  // A library function: tl::name, or a derivative helper tl::derivatives::name.
  const std::size_t last = qualified.rfind("::");
  const std::string_view space = std::string_view(qualified).substr(0, last == std::string::npos ? 0 : last);
  if (space == "tlaloc" || space == "tlaloc::derivatives") {
    if (is_structured(e)) return state(e, out)[0];
    const std::string name = fd->getNameAsString();
    // A derived op (tlaloc/derived_ops.hpp: softmax, var, ...) has no rule of its own:
    // its body is differentiated, as the engine differentiates what it records.
    const FunctionDecl* def = nullptr;
    if (find_rule(name) == nullptr && fd->getTemplatedKind() == FunctionDecl::TK_NonTemplate &&
        is_tensor(fd->getReturnType()) && fd->hasBody(def) && !sm_.isInSystemHeader(def->getLocation()))
      return inline_call(e, *def, out);
    // A function of a list of tensors that records one op of them (tl::concat, tl::stack).
    if (const Rule* joining = find_rule(name); joining != nullptr && joining->op->public_call().list) {
      if (const auto list = braced_tensors(e->getArg(0))) {
        std::vector<ValueId> items;
        for (const Expr* x : *list) items.push_back(expr(x, out));
        return joined(e, name, items, out);
      }
      if (is_pack(e->getArg(0))) return joined(e, name, pack_elements(e->getArg(0), out), out);
      if (const auto steps = tape_joined(e, name, out)) return *steps;
    }
    std::vector<Arg> args = arguments(e, out);
    shape_operands(e, name, args, out);
    const bool constant = no_derivative(*fd);
    const std::string spelled_space = space == "tlaloc" ? "tl::" : "tl::derivatives::";
    if (rule_for(e, *fd, args) != nullptr && !constant) {
      const ValueId y = op(out, e, name, args, {});
      out.back().space = spelled_space;
      return y;
    }
    const ValueId v =
        constant ? op(out, e, {}, args, spelled_over(spelled_space + name, args)) : inactive(out, e, args);
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
ValueId Lowerer::inline_call(const CallExpr* e, const FunctionDecl& def, Block& out, unsigned first) {
  if (!is_tensor(def.getReturnType()))
    refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
           "a call of '" + def.getNameAsString() + "', which does not return a tl::Tensor");
  return inline_body(e, def, out, first, nullptr);
}

// def's body lowered in place of the call e, its parameters bound to e's arguments
// from `first` on; what it returns: a tensor, or with `returned`, an aggregate of
// tensors, whose fields go there.
ValueId Lowerer::inline_body(const CallExpr* e, const FunctionDecl& def, Block& out, unsigned first,
                             Pack* returned) {
  if (std::find(inlining_.begin(), inlining_.end(), &def) != inlining_.end())
    refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
           "a recursive call of '" + def.getNameAsString() + "'");
  // A call among the arguments may inline the same function (fc1(p.sub("a"),
  // fc1(p.sub("b"), x))): each restores the bindings it found.
  const auto saved = tensors_;
  const auto saved_renamed = renamed_;
  const auto saved_lists = list_params_;
  const auto saved_packs = packs_;
  for (unsigned k = 0; k < def.getNumParams(); ++k) {
    const unsigned i = right_to_left_ ? def.getNumParams() - 1 - k : k;
    const ParmVarDecl* pd = def.getParamDecl(i);
    const Expr* a = e->getArg(first + i);  // first: 1 for an object's operator()
    if (is_tensor(pd->getType())) {
      tensors_[pd] = expr(a, out);
    } else if (is_tensor_list(pd->getType()) && is_pack(a)) {
      packs_[pd] = pack(a, out);
    } else if (is_tensor_list(pd->getType()) || is_params(pd->getType())) {
      const auto l = list_of(a);
      if (!l || l->named != is_params(pd->getType()))
        refuse(Code::unsupported_construct, loc(a->getBeginLoc()),
               "'" + raw(a) + "' passed as a " +
                   (is_params(pd->getType()) ? "tl::nn::Params" : "std::vector<tl::Tensor>") +
                   ": only a parameter of that type is");
      list_params_[pd] = *l;
    } else {
      const std::string name = unique(inlined_name(def) + "_" + pd->getNameAsString());
      const QualType plain = pd->getType().getNonReferenceType().getUnqualifiedType();
      const std::string type = type_name(plain);
      scalar(out, a->getBeginLoc(), "const " + type + " " + name + " = " + argument_text(a, def, *pd) + ";");
      renamed_[pd] = name;
      // A parameter taken by value may be assigned in the body, as a local.
      if (!pd->getType()->isReferenceType() && !forward_only_) {
        declare_scalar(pd, name, type, false);
        out.back().declares = name;
      }
    }
  }
  note_header(def);
  inlining_.push_back(&def);
  Pack* const pair = std::exchange(pair_second_, nullptr);
  Pack* const outer_return = std::exchange(pack_return_, returned);
  refuse_nested_transforms(def.getBody());
  const auto r = block(statements(def.getBody()), 0, out);
  pack_return_ = outer_return;
  pair_second_ = pair;
  inlining_.pop_back();
  if (!r)
    refuse(Code::unsupported_construct, loc(def.getEndLoc()),
           "'" + def.getNameAsString() + "' ends without returning");
  tensors_ = saved;
  renamed_ = saved_renamed;
  list_params_ = saved_lists;
  packs_ = saved_packs;
  return *r;
}

// An inlined function of the library (namespace tlaloc) names its header's
// declarations (tl::nn::Reduction): the generated file includes that header, by its
// path from the `tlaloc/` directory.
void Lowerer::note_header(const FunctionDecl& def) {
  if (def.getQualifiedNameAsString().rfind("tlaloc::", 0) != 0) return;
  const std::string file = sm_.getFilename(sm_.getExpansionLoc(def.getLocation())).str();
  const std::size_t at = file.rfind("/tlaloc/");
  if (at != std::string::npos && file.ends_with(".hpp")) p_.headers.insert(file.substr(at + 1));
}

// What an inlined function's scalars are prefixed with: its name, `lambda`, or for
// another operator() its class's name (`LayerNorm_axes`).
std::string Lowerer::scope_prefix() const { return inlined_name(*inlining_.back()); }
std::string inlined_name(const FunctionDecl& f) {
  if (const auto* m = dyn_cast<CXXMethodDecl>(&f); m && m->getParent()->isLambda()) return "lambda";
  if (const auto* m = dyn_cast<CXXMethodDecl>(&f); m && m->isOverloadedOperator())
    return m->getParent()->getNameAsString();
  return f.getNameAsString();
}

void Lowerer::scalar(Block& out, SourceLocation at, std::string statement) {
  Node s;
  s.kind = Node::Kind::scalar;
  s.loc = loc(at);
  s.text = std::move(statement);
  out.push_back(std::move(s));
}

void Lowerer::statement(const Stmt* s, Block& out) {
  if (isa<NullStmt>(s)) return;
  if (const auto* a = dyn_cast<AttributedStmt>(s)) return statement(a->getSubStmt(), out);
  if (const auto* d = dyn_cast<DeclStmt>(s)) return declaration(d, out);
  if (const auto* f = dyn_cast<ForStmt>(s))
    return loop(f, f->getInit(), f->getCond(), f->getInc(), f->getBody(), out);
  if (const auto* w = dyn_cast<WhileStmt>(s))
    return loop(w, nullptr, w->getCond(), nullptr, w->getBody(), out);
  if (const auto* e = dyn_cast<Expr>(s)) return expression_statement(strip(e), out);
  if (const auto* r = dyn_cast<CXXForRangeStmt>(s))
    if (const auto l = list_of(entries_of(r->getRangeInit()))) return range_loop(r, *l, out);
  refuse(Code::unsupported_construct, loc(s->getBeginLoc()),
         std::string("a statement of kind ") + s->getStmtClassName() + " in a differentiated function");
}

void Lowerer::declaration(const DeclStmt* d, Block& out) {
  for (const Decl* decl : d->decls()) {
    const auto* v = dyn_cast<VarDecl>(decl);
    if (v == nullptr) continue;  // local types and using-declarations need nothing
    if (const auto* dd = dyn_cast<DecompositionDecl>(v);
        dd && scan_of(dd->getInit()) && dd->bindings().size() == 2) {
      const std::size_t before = p_.values.size();
      const auto [carry, ys] = scan_call(scan_of(dd->getInit()), out);
      for (const auto& [binding, values] :
           {std::pair{dd->bindings()[0], carry}, std::pair{dd->bindings()[1], ys}}) {
        if (is_tensor_list(binding->getType()))
          bind_pack(binding, values, before);
        else
          bind(binding, values.at(0), before);
      }
      continue;
    }
    if (const auto* dd = dyn_cast<DecompositionDecl>(v); dd && is_tensor_struct(dd->getType())) {
      const std::size_t before = p_.values.size();
      const Pack fields = struct_value(dd->getInit(), out);
      for (std::size_t i = 0; i < fields.size(); ++i) {
        const BindingDecl* b = dd->bindings()[i];
        if (fields[i] != kUnfollowed)
          bind(b, fields[i], before);
        else if (b->isReferenced())
          refuse_unfollowed(
              std::next(dd->getType()->getAsCXXRecordDecl()->field_begin(), i)->getCanonicalDecl(),
              b->getLocation());
      }
      continue;
    }
    if (is_tensor_struct(v->getType()) && v->hasInit()) {
      packs_[v] = struct_value(v->getInit(), out);
      continue;
    }
    if (custom_half_declaration(v, out) || tape_declaration(v, out)) continue;
    if (is_tensor_list(v->getType())) {
      declare_pack(v, out);
      continue;
    }
    if (is_tensor(v->getType())) {
      const auto* made = v->hasInit() ? dyn_cast<CXXConstructExpr>(strip(v->getInit())) : nullptr;
      if (!v->hasInit() || (made != nullptr && made->getNumArgs() == 0)) {
        tensors_[v] = undefined_tensor(v, out);
        continue;
      }
      const std::size_t before = p_.values.size();
      bind(v, expr(v->getInit(), out), before);
      continue;
    }
    // A lambda is lowered where it is called or passed to tl::cond or a tl:: loop.
    if (const auto* r = v->getType()->getAsCXXRecordDecl(); r != nullptr && r->isLambda()) continue;
    // Scalars: numbers, and enumerations such as a tl::DType; constants of numbers in
    // containers (a tl::Shape) and of text, which nothing can change.
    const QualType vt = v->getType();
    const bool constant =
        vt.isConstQualified() && (is_numbers(vt) || is_options(vt) || is_number_struct(vt) || is_text(vt));
    if (vt->isReferenceType() || !(vt->isArithmeticType() || vt->isEnumeralType() || constant)) {
      refuse_scan_in(v->getInit());
      refuse(Code::unsupported_construct, loc(v->getLocation()),
             "local '" + v->getNameAsString() + "' of type " + v->getType().getAsString() +
                 ": a differentiated function's locals are tl::Tensor, arithmetic or enumerations, or "
                 "constants of numbers or text");
    }
    const bool is_const = v->getType().isConstQualified();
    // Forward only, a scalar is assigned where it stands; otherwise a loop changes it
    // in place, and other assignments declare new versions.
    // A scalar declared without a value gets one later (`double k; k = 2.0;`).
    const bool changeable = !is_const && (changed(v, !forward_only_) || !v->hasInit());
    if (forward_only_ && changeable) assigned_scalars_.insert(v);
    const std::string type = type_name(v->getType().getUnqualifiedType());
    std::string name = v->getNameAsString();
    if (!inlining_.empty()) {
      name = unique(scope_prefix() + "_" + name);
      renamed_[v] = name;
    } else {
      name = claim(name);
      if (name != v->getNameAsString()) renamed_[v] = name;
    }
    if (!forward_only_) declare_scalar(v, name, type, changeable);
    std::string decl_text = (v->hasAttr<UnusedAttr>() ? "[[maybe_unused]] " : "") +
                            std::string(changeable ? "" : "const ") + type + " " + name;
    if (v->hasInit()) {
      // `const tl::Shape s{1, n};`: a constructor's text starts at the variable's name.
      const std::string init = scalar_text(v->getInit());
      const std::string written = v->getNameAsString();
      const bool constructed = v->getInitStyle() != VarDecl::CInit && init.rfind(written, 0) == 0 &&
                               init.size() > written.size() &&
                               (init[written.size()] == '{' || init[written.size()] == '(');
      decl_text += constructed ? init.substr(written.size()) : " = " + init;
    }
    scalar(out, v->getBeginLoc(), decl_text + ";");
    out.back().declares = name;
  }
}

void Lowerer::refuse_undefined(ValueId v, const Expr* at) {
  if (p_.values[std::size_t(v)].undefined)
    refuse(Code::unsupported_construct, loc(at->getBeginLoc()),
           "tensor '" + p_.values[std::size_t(v)].name + "' is used before it has a value");
}

// `tl::Tensor t;`: an undefined tensor until its first assignment, which may be in a
// branch or a loop (a branch that assigns none leaves it undefined after it).
ValueId Lowerer::undefined_tensor(const VarDecl* v, Block& out) {
  return undefined_tensor(v->getLocation(), v->getNameAsString(), "tl::Tensor " + v->getNameAsString(), out);
}
// `tl::Tensor()` in an expression (a generated gradient's zero cotangent): the same.
ValueId Lowerer::undefined_tensor(SourceLocation at, const std::string& name, std::string source,
                                  Block& out) {
  Node s;
  s.kind = Node::Kind::op;
  s.loc = loc(at);
  s.source = std::move(source);
  s.result = p_.add_value(claim(name), false, false);
  p_.values[std::size_t(s.result)].undefined = true;
  out.push_back(std::move(s));
  return out.back().result;
}

// A declared tensor: the op computed for it takes the variable's name.
void Lowerer::bind(const ValueDecl* v, ValueId value, std::size_t values_before) {
  if (std::size_t(value) >= values_before) {
    names_.erase(p_.values[std::size_t(value)].name);
    p_.values[std::size_t(value)].name = claim(v->getNameAsString());
  }
  tensors_[v] = value;
}

// Whether v is assigned after its declaration (in_loops_only: inside a loop that
// its declaration is not in).
bool Lowerer::changed(const VarDecl* v, bool in_loops_only) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl* var = nullptr;
    bool in_loops_only = false;
    int loops = 0, declared_in = 0;
    bool found = false;
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
    bool TraverseCXXForRangeStmt(CXXForRangeStmt* f) {
      ++loops;
      const bool r = RecursiveASTVisitor::TraverseCXXForRangeStmt(f);
      --loops;
      return r;
    }
    bool VisitVarDecl(VarDecl* d) {
      if (d == var) declared_in = loops;
      return true;
    }
    bool VisitExpr(Expr* e) {
      if (assigned_variable(e) == var) found = found || !in_loops_only || loops > declared_in;
      return true;
    }
  } finder;
  finder.var = v;
  finder.in_loops_only = in_loops_only;
  const auto* parent = dyn_cast<FunctionDecl>(v->getDeclContext());
  if (parent != nullptr) finder.TraverseStmt(parent->getBody());
  return finder.found;
}

// `n += 1;`: an assignment to a local scalar.
const VarDecl* Lowerer::assigned_scalar(const Expr* e) const {
  const VarDecl* v = assigned_variable(e);
  return v && (scalars_.count(v) || assigned_scalars_.count(v)) ? v : nullptr;
}

void Lowerer::expression_statement(const Expr* e, Block& out) {
  if (const VarDecl* v = assigned_scalar(e)) {
    if (assigned_scalars_.count(v) == 0) return assign_scalar(v, e, out);
    scalar(out, e->getBeginLoc(), scalar_text(e) + ";");
    return;
  }
  if (tape_push(e, out) || tape_store(e, out) || custom_half_assignment(e, out)) return;
  if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(e);
      oc && oc->isAssignmentOp() && oc->getNumArgs() == 2) {
    const auto* ref = dyn_cast<DeclRefExpr>(oc->getArg(0)->IgnoreParenImpCasts());
    if (ref != nullptr && aliases_.count(ref->getDecl()) != 0 && oc->getOperator() == OO_Equal)
      return alias_write(ref->getDecl(), expr(oc->getArg(1), out), e, out);
    if (ref != nullptr && packs_.count(ref->getDecl()) != 0)
      refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
             "an assignment to the std::vector<tl::Tensor> '" + ref->getDecl()->getNameAsString() +
                 "': declare a new one (each holds the values it was declared with)");
    if (ref == nullptr || tensors_.count(ref->getDecl()) == 0)
      refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
             "an assignment to something other than a local tensor");
    if (oc->getOperator() == OO_Equal) {
      tensors_[ref->getDecl()] = expr(oc->getArg(1), out);
      return;
    }
    const Rule* rule = compound_rule(oc->getOperator());
    if (rule == nullptr)
      refuse(Code::unsupported_construct, loc(e->getBeginLoc()), "the assignment '" + text(e) + "'");
    const ValueId lhs = tensors_.at(ref->getDecl());
    tensors_[ref->getDecl()] = op(out, e, rule->name, {{lhs, {}}, arg(oc->getArg(1), out)}, {});
    return;
  }
  if (void_call(e, out)) return;
  refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
         "the statement '" + text(e) + "' (a differentiated function may only compute tensors and scalars)");
}

// A call of a function that returns nothing and can write none of its arguments (a
// check, such as the losses' of their inputs): copied as written. Tensors are
// immutable, so it cannot change a value; it may throw.
bool Lowerer::void_call(const Expr* e, Block& out) {
  const auto* c = dyn_cast<CallExpr>(e);
  const FunctionDecl* fd = c != nullptr ? c->getDirectCallee() : nullptr;
  if (fd == nullptr || !c->getType()->isVoidType() || isa<CXXMemberCallExpr>(c) ||
      isa<CXXOperatorCallExpr>(c))
    return false;
  for (const ParmVarDecl* pd : fd->parameters()) {
    const QualType t = pd->getType();
    if ((t->isReferenceType() || t->isPointerType()) && !t->getPointeeType().isConstQualified())
      refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
             "a call of '" + fd->getNameAsString() + "', which may write its argument '" +
                 pd->getNameAsString() +
                 "' (a differentiated function may only compute tensors and scalars)");
  }
  scalar(out, e->getBeginLoc(), text(e) + ";");
  return true;
}

// `if (c) throw E;`: a check, copied as written (the reverse sweep, which computes a
// branch's or a loop's scalars again, leaves it out).
bool Lowerer::check(const Stmt* s, Block& out) {
  const auto* f = dyn_cast<IfStmt>(s);
  if (f == nullptr || f->getElse() != nullptr || f->getInit() != nullptr ||
      f->getConditionVariable() != nullptr)
    return false;
  const std::vector<const Stmt*> then = statements(f->getThen());
  const auto* e = then.size() == 1 ? dyn_cast<Expr>(then[0]) : nullptr;
  const auto* t = e != nullptr ? dyn_cast<CXXThrowExpr>(e->IgnoreImplicit()) : nullptr;
  if (t == nullptr) return false;
  scalar(out, f->getBeginLoc(), "if (" + condition(f->getCond()) + ") " + text(t) + ";");
  out.back().check = true;
  return true;
}

Program lower(ASTContext& ctx, const FunctionDecl& fn, const LambdaExpr* lambda, std::string name,
              std::vector<std::size_t> wrt, const Lowering& how) {
  Program p;
  p.name = std::move(name);
  p.wrt = std::move(wrt);
  p.listed = how.listed;
  p.loc = location(ctx.getSourceManager(), lambda != nullptr ? lambda->getBeginLoc() : fn.getLocation());
  const std::string file = std::filesystem::path(p.loc.file).filename().string();
  p.what = (lambda != nullptr ? "the lambda at " : "'" + fn.getNameAsString() + "' at ") + file + ":" +
           std::to_string(p.loc.line);
  Lowerer(ctx, p, how).function(fn, lambda);
  return p;
}

}  // namespace tlaloc_grad
