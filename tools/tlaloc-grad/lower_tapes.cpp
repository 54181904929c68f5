// What only a generated gradient writes, lowered again for tl::hessian (forward only,
// lower.hpp's Lowering): the vectors a loop's reverse sweep reads back (tapes, and
// tapes of tapes for nested loops), and the reference
// `tl::Tensor& d_in = k == 0 ? d_x : d_in_next;` by which a loop's first iteration
// gives its shares straight to the initial value.
#include "lowerer.hpp"

#include <clang/AST/Attr.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/QualTypeNames.h>

namespace tlaloc_grad {

namespace {

// T for a std::vector<T>, or nothing.
std::optional<QualType> vector_element(QualType t) {
  const auto* s = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
  if (s == nullptr || s->getQualifiedNameAsString() != "std::vector") return std::nullopt;
  return s->getTemplateArgs()[0].getAsType();
}

// A custom rule's forward half as a generated gradient keeps it: std::pair of its
// value and residuals.
bool is_forward_half(QualType t) {
  const auto* s = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      t.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
  if (s == nullptr || s->getQualifiedNameAsString() != "std::pair") return false;
  const auto residuals = vector_element(s->getTemplateArgs()[1].getAsType());
  return is_tensor(s->getTemplateArgs()[0].getAsType()) && residuals && is_tensor(*residuals);
}

// A tape's innermost elements: tensors (true), numbers (false), or neither.
std::optional<bool> tape_of_tensors(QualType t) {
  if (is_forward_half(t)) return true;
  const auto element = vector_element(t);
  if (!element) return std::nullopt;
  if (is_tensor(*element)) return true;
  if ((*element)->isArithmeticType()) return false;
  return tape_of_tensors(*element);
}

const ValueDecl* referenced(const Expr* e) {
  const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  return r != nullptr ? r->getDecl() : nullptr;
}

// `f.forward(x...)` or `f.backward(residuals, cotangent)` of a tl::CustomFunction f.
const CXXMemberCallExpr* custom_half_call(const Expr* e) {
  const auto* m = e != nullptr ? dyn_cast<CXXMemberCallExpr>(strip(e)) : nullptr;
  if (m == nullptr || !is_custom(m->getImplicitObjectArgument()->getType())) return nullptr;
  const std::string half = m->getMethodDecl()->getNameAsString();
  return half == "forward" || half == "backward" ? m : nullptr;
}

}  // namespace

// The two tensors `tl::Tensor& r = c ? a : b;` may refer to; for `tl::Tensor& r = a;`,
// a twice.
std::optional<std::pair<const ValueDecl*, const ValueDecl*>> alias_targets(const VarDecl* v) {
  if (!v->getType()->isReferenceType() || v->getType().getNonReferenceType().isConstQualified() ||
      !is_tensor(v->getType()) || !v->hasInit())
    return std::nullopt;
  if (const ValueDecl* same = referenced(v->getInit()); same != nullptr && is_tensor(same->getType()))
    return std::pair{same, same};
  const auto* c = dyn_cast<ConditionalOperator>(v->getInit()->IgnoreParenImpCasts());
  const ValueDecl* a = c ? referenced(c->getTrueExpr()) : nullptr;
  const ValueDecl* b = c ? referenced(c->getFalseExpr()) : nullptr;
  if (a == nullptr || b == nullptr) return std::nullopt;
  return std::pair{a, b};
}

// A tape's statement, and in forward mode its twin for the tangents, when the tape
// holds active tensors.
void Lowerer::tape_statement(const std::string& tape, const std::string& text, const std::string& tangent,
                             SourceLocation at, Block& out) {
  scalar(out, at, text);
  out.back().list = tape;
  out.back().init = tangent;
}

// The gradient's tapes: `std::vector<tl::Tensor> saved_v;` (of vectors, for nested
// loops), an iteration's tape read back (`const std::vector<tl::Tensor>& saved_v =
// saved_saved_v[k];`), tapes of numbers and a saved count (`const std::size_t&
// steps_1 = ...`), copied as written; and the reference to one of two tensors.
bool Lowerer::tape_declaration(const VarDecl* v, Block& out) {
  if (!forward_only_) return false;
  const std::string type = type_name(v->getType());
  const bool reference = v->getType()->isReferenceType();
  // A constant vector (`const tl::Shape s = ...;`) is a value, not a tape.
  const auto tensors = v->getType().isConstQualified() ? std::nullopt : tape_of_tensors(v->getType());
  const bool number = reference && v->getType().getNonReferenceType()->isArithmeticType();
  if (tensors || number) {
    const std::string name = claim(v->getNameAsString());
    if (name != v->getNameAsString()) renamed_[v] = name;
    std::string init = v->hasInit() && reference ? " = " + scalar_text(v->getInit()) : "";
    // A scan's steps, written by index: `std::vector<tl::Tensor> ys_steps(length_0);`.
    const auto* sized =
        v->hasInit() && !reference ? dyn_cast<CXXConstructExpr>(strip(v->getInit())) : nullptr;
    if (sized != nullptr && sized->getNumArgs() >= 1 && sized->getArg(0)->getType()->isIntegerType() &&
        std::all_of(sized->arg_begin() + 1, sized->arg_end(),
                    [](const Expr* a) { return isa<CXXDefaultArgExpr>(a); }))
      init = "(" + scalar_text(sized->getArg(0)) + ")";
    const std::string unused = v->hasAttr<UnusedAttr>() ? "[[maybe_unused]] " : "";
    const std::string decl = unused + type + " " + name;
    if (!tensors.value_or(false)) {
      scalar(out, v->getBeginLoc(), decl + init + ";");
      return true;
    }
    lists_[v] = name;
    // A tape read back from an outer one holds active tensors when that one does.
    const auto* read = reference ? dyn_cast<CXXOperatorCallExpr>(strip(v->getInit())) : nullptr;
    const ValueDecl* outer = read != nullptr ? referenced(read->getArg(0)) : nullptr;
    if (reference && (outer == nullptr || lists_.count(outer) == 0))
      refuse(Code::unsupported_construct, loc(v->getLocation()),
             "a reference to a tape that is not an element of another");
    if (outer != nullptr && p_.active_lists.count(lists_.at(outer)) != 0) p_.active_lists.insert(name);
    const std::string tangent =
        unused + type + " t_" + name + (reference ? " = t_" + init.substr(3) : init) + ";";
    tape_statement(name, decl + init + ";", tangent, v->getBeginLoc(), out);
    return true;
  }
  const auto targets = alias_targets(v);
  if (!targets) return false;
  if (targets->first == targets->second) {
    aliases_[v] = {"", targets->first, targets->second};
    return true;
  }
  const auto* c = cast<ConditionalOperator>(v->getInit()->IgnoreParenImpCasts());
  const std::string which = unique("which_" + v->getNameAsString());
  // Unused where the gradient never reads or writes through the reference.
  scalar(out, v->getBeginLoc(),
         "[[maybe_unused]] const bool " + which + " = " + condition(c->getCond()) + ";");
  aliases_[v] = {which, targets->first, targets->second};
  return true;
}

// Reading r is reading a or b, whichever it refers to (each a tensor, or a reference
// of the same kind: a nested loop's first iteration gives its shares to the outer
// loop's).
ValueId Lowerer::alias_read(const ValueDecl* r, const Expr* at, Block& out) {
  const Alias& a = aliases_.at(r);
  const auto target = [&](const ValueDecl* t) {
    return aliases_.count(t) != 0 ? alias_read(t, at, out) : tensors_.at(t);
  };
  if (a.first == a.second) return target(a.first);
  const ValueId first = target(a.first), second = target(a.second);
  if (first == second) return first;
  Node s;
  s.kind = Node::Kind::branch;
  s.loc = loc(at->getBeginLoc());
  s.text = a.which;
  s.id = next_id_++;
  return meet(std::move(s), first, second, r->getNameAsString(), out);
}

// r = value assigns a or b, whichever r refers to; the other keeps its value.
void Lowerer::alias_write(const ValueDecl* r, ValueId value, const Expr* at, Block& out) {
  const Alias& a = aliases_.at(r);
  if (a.first == a.second) {  // `tl::Tensor& r = a;`, or either way the same
    if (aliases_.count(a.first) != 0) return alias_write(a.first, value, at, out);
    tensors_[a.first] = value;
    return;
  }
  Node s;
  s.kind = Node::Kind::branch;
  s.loc = loc(at->getBeginLoc());
  s.text = a.which;
  s.id = next_id_++;
  if (aliases_.count(a.first) == 0 && aliases_.count(a.second) == 0) {
    const ValueId first = joined_value(s, a.first->getNameAsString(), value, tensors_.at(a.first));
    const ValueId second = joined_value(s, a.second->getNameAsString(), tensors_.at(a.second), value);
    tensors_[a.first] = first;
    tensors_[a.second] = second;
    out.push_back(std::move(s));
    return;
  }
  // A target that is a reference itself is written through, in its side's block.
  const auto write = [&](const ValueDecl* t, Block& side) {
    if (aliases_.count(t) != 0) return alias_write(t, value, at, side);
    tensors_[t] = value;
  };
  const auto before = tensors_;
  write(a.first, s.body);
  const auto after_first = tensors_;
  tensors_ = before;
  write(a.second, s.orelse);
  const auto after_second = tensors_;
  tensors_ = before;
  for (const ValueDecl* var : in_source_order(before))
    if (after_first.at(var) != after_second.at(var))
      tensors_[var] = joined_value(s, var->getNameAsString(), after_first.at(var), after_second.at(var));
  out.push_back(std::move(s));
}

// `tape.push_back(x);`: a tensor onto a tape (its tangent onto the tangents' tape),
// an inner loop's tape onto an outer one, or a number, copied as written.
bool Lowerer::tape_push(const Expr* e, Block& out) {
  const auto* m = dyn_cast<CXXMemberCallExpr>(e);
  if (!forward_only_ || m == nullptr || m->getMethodDecl()->getNameAsString() != "push_back") return false;
  const ValueDecl* tape = referenced(m->getImplicitObjectArgument());
  if (tape == nullptr || !vector_element(tape->getType())) return false;
  const auto list = lists_.find(tape);
  if (list == lists_.end()) {
    scalar(out, e->getBeginLoc(), scalar_text(e) + ";");
    return true;
  }
  const Expr* pushed = m->getArg(0)->IgnoreImplicit();
  if (const auto* moved = dyn_cast<CallExpr>(pushed); moved && moved->getNumArgs() == 1)
    pushed = moved->getArg(0);  // std::move(inner)
  if (const ValueDecl* inner = referenced(pushed); inner != nullptr && lists_.count(inner) != 0) {
    const std::string& name = lists_.at(inner);
    if (p_.active_lists.count(name) != 0) p_.active_lists.insert(list->second);
    tape_statement(list->second, list->second + ".push_back(std::move(" + name + "));",
                   "t_" + list->second + ".push_back(std::move(t_" + name + "));", e->getBeginLoc(), out);
    return true;
  }
  tape_write(list->second, m->getArg(0), "", e, out);
  return true;
}

// x pushed onto a tape (index empty) or written at index; its tangent beside it.
void Lowerer::tape_write(const std::string& tape, const Expr* x, std::string index, const Expr* e,
                         Block& out) {
  const ValueId v = expr(x, out);
  refuse_undefined(v, e);
  Node s;
  s.kind = Node::Kind::scalar;
  s.loc = loc(e->getBeginLoc());
  s.list = tape;
  s.index = std::move(index);
  s.args = {{v, {}}};
  out.push_back(std::move(s));
  if (active(v)) p_.active_lists.insert(tape);
}

// `tape[k] = x;`: a scan's step written where it belongs (its tangent beside it).
bool Lowerer::tape_store(const Expr* e, Block& out) {
  const auto* assign = dyn_cast<CXXOperatorCallExpr>(e);
  if (!forward_only_ || assign == nullptr || assign->getOperator() != OO_Equal) return false;
  const auto* at = dyn_cast<CXXOperatorCallExpr>(assign->getArg(0)->IgnoreImplicit());
  const ValueDecl* tape =
      at != nullptr && at->getOperator() == OO_Subscript ? referenced(at->getArg(0)) : nullptr;
  const auto list = tape != nullptr ? lists_.find(tape) : lists_.end();
  if (list == lists_.end()) return false;
  tape_write(list->second, assign->getArg(1), scalar_text(at->getArg(1)), e, out);
  return true;
}

// tl::stack(tape, axis) or tl::concat of a scan's steps: their tangents joined alike.
std::optional<ValueId> Lowerer::tape_joined(const CallExpr* e, const std::string& fn, Block& out) {
  if (!forward_only_ || e->getNumArgs() < 1) return std::nullopt;
  const ValueDecl* tape = referenced(e->getArg(0));
  const auto list = tape != nullptr ? lists_.find(tape) : lists_.end();
  if (list == lists_.end()) return std::nullopt;
  std::string rest;
  for (unsigned i = 1; i < e->getNumArgs(); ++i)
    if (!isa<CXXDefaultArgExpr>(e->getArg(i))) rest += ", " + scalar_text(e->getArg(i));
  Node s;
  s.kind = Node::Kind::op;
  s.loc = loc(e->getBeginLoc());
  s.source = raw(e);
  s.list = list->second;
  s.text = "tl::" + fn + "(" + list->second + rest + ")";
  s.init = "tl::" + fn + "(t_" + list->second + rest + ")";
  const bool is_active = p_.active_lists.count(list->second) != 0;
  s.result = p_.add_value(unique(fn + "_" + std::to_string(p_.values.size())), is_active, is_active);
  out.push_back(std::move(s));
  return out.back().result;
}

// tape[k]: the tensor saved there, active when the tape holds active tensors.
std::optional<ValueId> Lowerer::tape_read(const CXXOperatorCallExpr* e, Block& out) {
  if (e->getOperator() != OO_Subscript) return std::nullopt;
  const ValueDecl* tape = referenced(e->getArg(0));
  const auto list = tape != nullptr ? lists_.find(tape) : lists_.end();
  if (list == lists_.end()) return std::nullopt;
  Node s;
  s.kind = Node::Kind::op;
  s.loc = loc(e->getBeginLoc());
  s.source = raw(e);
  s.list = list->second;
  s.text = list->second + "[" + scalar_text(e->getArg(1)) + "]";
  const bool is_active = p_.active_lists.count(list->second) != 0;
  s.result = p_.add_value(unique("saved_" + std::to_string(p_.values.size())), is_active, is_active);
  out.push_back(std::move(s));
  return out.back().result;
}

// A custom rule's half, as a generated gradient calls it: `X_fwd = f.forward(x...)`
// or `X_cts = f.backward(X_fwd.second, d_X)`, declaring X_fwd or X_cts when `type`
// is given. Both are lists (X_fwd.first and X_cts[i] are read from them), which
// forward mode fills with their tangents beside them (Writer::custom_half).
void Lowerer::custom_half(const CXXMemberCallExpr* m, const std::string& list, const std::string& type,
                          Block& out) {
  Node s;
  s.kind = Node::Kind::scalar;
  s.loc = loc(m->getBeginLoc());
  s.source = raw(m);
  s.list = list;
  s.init = type;
  s.callee = scalar_text(m->getImplicitObjectArgument());
  s.fn = m->getMethodDecl()->getNameAsString();
  bool moves = false;
  if (s.fn == "backward") {
    const auto* residuals = dyn_cast<MemberExpr>(strip(m->getArg(0)));
    const ValueDecl* half = residuals != nullptr ? referenced(residuals->getBase()) : nullptr;
    if (half == nullptr || lists_.count(half) == 0)
      refuse(Code::unsupported_construct, loc(m->getBeginLoc()),
             "a custom rule's backward half given residuals other than its forward half's");
    s.text = lists_.at(half);
    moves = p_.active_lists.count(s.text) != 0;
    s.args.push_back({expr(m->getArg(1), out), {}});
  } else {
    s.args = arguments(m, out);
  }
  for (const Arg& a : s.args) {
    refuse_undefined(a.value, m);
    moves = moves || active(a.value);
  }
  if (moves) p_.active_lists.insert(list);
  out.push_back(std::move(s));
}

// `const std::pair<...> X_fwd = f.forward(x...);` or
// `const std::vector<tl::Tensor> X_cts = f.backward(...);`.
bool Lowerer::custom_half_declaration(const VarDecl* v, Block& out) {
  const CXXMemberCallExpr* m = forward_only_ && v->hasInit() ? custom_half_call(v->getInit()) : nullptr;
  if (m == nullptr) return false;
  const std::string name = claim(v->getNameAsString());
  if (name != v->getNameAsString()) renamed_[v] = name;
  lists_[v] = name;
  custom_half(m, name, type_name(v->getType().getUnqualifiedType()), out);
  return true;
}

// `X_fwd = f.forward(x...);` where X_fwd was declared before a branch or in a loop.
bool Lowerer::custom_half_assignment(const Expr* e, Block& out) {
  const auto* assign = dyn_cast<CXXOperatorCallExpr>(e);
  if (!forward_only_ || assign == nullptr || assign->getOperator() != OO_Equal) return false;
  const ValueDecl* target = referenced(assign->getArg(0));
  const CXXMemberCallExpr* m = custom_half_call(assign->getArg(1));
  if (target == nullptr || m == nullptr || lists_.count(target) == 0) return false;
  custom_half(m, lists_.at(target), "", out);
  return true;
}

// X_fwd.first: a custom rule's value, read from its forward half.
std::optional<ValueId> Lowerer::custom_value(const MemberExpr* m, Block& out) {
  const ValueDecl* half = forward_only_ ? referenced(m->getBase()) : nullptr;
  const auto list = half != nullptr ? lists_.find(half) : lists_.end();
  if (list == lists_.end() || m->getMemberDecl()->getName() != "first") return std::nullopt;
  Node s;
  s.kind = Node::Kind::op;
  s.loc = loc(m->getBeginLoc());
  s.source = raw(m);
  s.list = list->second;
  s.text = list->second + ".first";
  const bool is_active = p_.active_lists.count(list->second) != 0;
  s.result = p_.add_value(unique("custom_" + std::to_string(p_.values.size())), is_active, is_active);
  out.push_back(std::move(s));
  return out.back().result;
}

void Lowerer::find_tensor_conditions(const Stmt* s) {
  if (s == nullptr) return;
  if (const auto* op = dyn_cast<BinaryOperator>(s); op != nullptr && op->getOpcode() == BO_Assign)
    if (const auto* m = dyn_cast<CXXMemberCallExpr>(op->getRHS()->IgnoreParenImpCasts());
        m != nullptr && m->getMethodDecl()->getNameAsString() == "item" &&
        is_tensor(m->getImplicitObjectArgument()->getType()))
      if (const ValueDecl* c = referenced(op->getLHS())) tensor_conditions_.insert(c);
  for (const Stmt* c : s->children()) find_tensor_conditions(c);
}

}  // namespace tlaloc_grad
