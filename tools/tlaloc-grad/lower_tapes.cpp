// What only a generated gradient writes, lowered again for tl::hessian (forward only,
// lower.hpp's Lowering): the vectors a loop's reverse sweep reads back (tapes), and
// the reference `tl::Tensor& d_in = k == 0 ? d_x : d_in_next;` by which a loop's
// first iteration gives its shares straight to the initial value.
#include "lowerer.hpp"

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

const ValueDecl* referenced(const Expr* e) {
  const auto* r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  return r != nullptr ? r->getDecl() : nullptr;
}

}  // namespace

// The two tensors `tl::Tensor& r = c ? a : b;` may refer to.
std::optional<std::pair<const ValueDecl*, const ValueDecl*>> alias_targets(const VarDecl* v) {
  if (!v->getType()->isReferenceType() || v->getType().getNonReferenceType().isConstQualified() ||
      !is_tensor(v->getType()) || !v->hasInit())
    return std::nullopt;
  const auto* c = dyn_cast<ConditionalOperator>(v->getInit()->IgnoreParenImpCasts());
  const ValueDecl* a = c ? referenced(c->getTrueExpr()) : nullptr;
  const ValueDecl* b = c ? referenced(c->getFalseExpr()) : nullptr;
  if (a == nullptr || b == nullptr) return std::nullopt;
  return std::pair{a, b};
}

bool Lowerer::tape_declaration(const VarDecl* v, Block& out) {
  if (!forward_only_) return false;
  const std::string type = TypeName::getFullyQualifiedName(v->getType(), ctx_, ctx_.getPrintingPolicy());
  if (const auto element = vector_element(v->getType()); element && !v->getType()->isReferenceType()) {
    const bool tensors = is_tensor(*element);
    if (!tensors && !((*element)->isArithmeticType()))
      refuse(Code::unsupported_construct, loc(v->getLocation()), "a vector of " + element->getAsString());
    const std::string name = claim(v->getNameAsString());
    if (name != v->getNameAsString()) renamed_[v] = name;
    scalar(out, v->getBeginLoc(), type + " " + name + ";");
    if (tensors) {
      lists_[v] = name;
      out.back().list = name;
    }
    return true;
  }
  const auto targets = alias_targets(v);
  if (!targets) return false;
  const auto* c = cast<ConditionalOperator>(v->getInit()->IgnoreParenImpCasts());
  const std::string which = unique("which_" + v->getNameAsString());
  scalar(out, v->getBeginLoc(), "const bool " + which + " = " + condition(c->getCond()) + ";");
  aliases_[v] = {which, targets->first, targets->second};
  return true;
}

// Reading r is reading a or b, whichever it refers to.
ValueId Lowerer::alias_read(const ValueDecl* r, const Expr* at, Block& out) {
  const Alias& a = aliases_.at(r);
  const ValueId first = tensors_.at(a.first), second = tensors_.at(a.second);
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
  Node s;
  s.kind = Node::Kind::branch;
  s.loc = loc(at->getBeginLoc());
  s.text = a.which;
  s.id = next_id_++;
  for (const auto& [var, first, second] : {std::tuple{a.first, value, tensors_.at(a.first)},
                                           std::tuple{a.second, tensors_.at(a.second), value}}) {
    const ValueId v = p_.add_value(unique(var->getNameAsString()), active(first) || active(second),
                                   traced(first) || traced(second));
    s.phis.push_back({v, -1, first, second});
    tensors_[var] = v;
  }
  out.push_back(std::move(s));
}

// `tape.push_back(x);`: a tensor onto a tape (its tangent onto the tangents' tape), or
// a scalar, copied as written.
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
  const ValueId v = expr(m->getArg(0), out);
  if (p_.values[std::size_t(v)].undefined)
    refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
           "tensor '" + p_.values[std::size_t(v)].name + "' is used before it has a value");
  Node s;
  s.kind = Node::Kind::scalar;
  s.loc = loc(e->getBeginLoc());
  s.list = list->second;
  s.args = {{v, {}}};
  out.push_back(std::move(s));
  if (active(v)) p_.active_lists.insert(list->second);
  return true;
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

}  // namespace tlaloc_grad
