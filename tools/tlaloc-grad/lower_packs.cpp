// std::vector<tl::Tensor>s whose length the differentiated function fixes: the state
// a tl::fori_loop or tl::while_loop carries and a tl::cond returns (a position and a
// velocity), written as a braced list or returned by tl::split, kept in a local or
// passed to a lambda or an inlined function. The trace sees a list of values, not a
// vector: so does the lowering, where each element is a value of its own (a Pack),
// read at an index known at compile time (`s[0]`, `s.at(1)`, `s.front()`,
// `s.back()`; `s.size()` is the length).
#include "lowerer.hpp"

namespace tlaloc_grad {

// A call of tl::cond, tl::fori_loop or tl::while_loop.
bool Lowerer::is_structured(const Expr* e) {
  const auto* c = dyn_cast<CallExpr>(strip(e));
  const FunctionDecl* fd = c != nullptr ? c->getDirectCallee() : nullptr;
  if (fd == nullptr) return false;
  const std::string name = fd->getQualifiedNameAsString();
  return name == "tlaloc::cond" || name == "tlaloc::fori_loop" || name == "tlaloc::while_loop";
}

// A call of tl::split.
const CallExpr* Lowerer::split_call(const Expr* e) {
  const auto* c = dyn_cast<CallExpr>(strip(e));
  const FunctionDecl* fd = c != nullptr ? c->getDirectCallee() : nullptr;
  return fd != nullptr && fd->getQualifiedNameAsString() == "tlaloc::split" ? c : nullptr;
}

namespace {
// e without the copy or move of a whole std::vector<tl::Tensor>.
const Expr* uncopied(const Expr* e) {
  for (;;) {
    e = strip(e);
    const auto* k = dyn_cast<CXXConstructExpr>(e);
    if (k == nullptr || k->getNumArgs() != 1 || !is_tensor_list(k->getArg(0)->getType())) return e;
    e = k->getArg(0);
  }
}
}  // namespace

// tl::scan(...).first or .second.
const MemberExpr* Lowerer::scan_member(const Expr* e) {
  const auto* m = dyn_cast<MemberExpr>(e);
  return m != nullptr && scan_of(m->getBase()) != nullptr ? m : nullptr;
}

// Whether e is a Pack: a variable bound to one, a tl:: call whose state is a vector, or
// a tl::scan's .first or .second that is one.
bool Lowerer::is_pack(const Expr* e) const {
  e = uncopied(e);
  if (const auto* ref = dyn_cast<DeclRefExpr>(e)) return packs_.count(ref->getDecl()) != 0;
  return is_tensor_list(e->getType()) &&
         (is_structured(e) || scan_member(e) != nullptr || split_call(e) != nullptr);
}

Lowerer::Pack Lowerer::pack(const Expr* e, Block& out) {
  e = uncopied(e);
  if (const auto* ref = dyn_cast<DeclRefExpr>(e))
    if (auto it = packs_.find(ref->getDecl()); it != packs_.end()) return it->second;
  if (is_structured(e)) return state(e, out);
  if (const CallExpr* c = split_call(e)) return split_parts(c, out);
  if (const MemberExpr* m = scan_member(e)) {
    const auto [carry, ys] = scan_call(scan_of(m->getBase()), out);
    return m->getMemberDecl()->getName() == "first" ? carry : ys;
  }
  const Expr* braced = e;
  if (const auto* f = dyn_cast<CXXFunctionalCastExpr>(braced)) braced = f->getSubExpr();
  if (const auto list = braced_tensors(braced, true)) {
    Pack p;  // a braced list is evaluated left to right
    for (const Expr* x : *list) p.push_back(x != nullptr ? expr(x, out) : kUnfollowed);
    return p;
  }
  refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
         "the std::vector<tl::Tensor> '" + raw(e) +
             "': tlaloc-grad follows those written as a braced list of tensors ({a, b}), returned by "
             "tl::cond, tl::fori_loop or tl::while_loop, or named by a variable holding one");
}

// The state of a tl:: loop or branch: one tensor (a Pack of one), or a vector's elements.
Lowerer::Pack Lowerer::state(const Expr* e, Block& out) {
  e = uncopied(e);
  if (const auto* c = dyn_cast<CallExpr>(e); c && is_structured(c)) {
    const std::string name = c->getDirectCallee()->getQualifiedNameAsString();
    if (name == "tlaloc::cond") return cond_call(c, out);
    if (name == "tlaloc::fori_loop") return fori_call(c, out);
    return while_call(c, out);
  }
  if (is_tensor(e->getType())) return {expr(e, out)};
  return pack(e, out);
}

// A tl:: loop's carried parameter as carry_through takes it: the tensor, or each element.
std::vector<Lowerer::Carried> Lowerer::carried_state(const ValueDecl* carry, const Pack& init) const {
  if (!is_tensor_list(carry->getType())) return {{carry, init.at(0)}};
  std::vector<Carried> carried;
  for (std::size_t k = 0; k < init.size(); ++k) carried.push_back({carry, init[k], int(k)});
  return carried;
}

Lowerer::Pack Lowerer::current_state(const ValueDecl* carry) const {
  if (auto it = packs_.find(carry); it != packs_.end()) return it->second;
  return {tensors_.at(carry)};
}

// A region's function returns as many tensors as its state holds: traced, a different
// count is refused when the region is recorded.
void Lowerer::check_state(const Pack& returned, const Pack& init, const Expr* at,
                          const std::string& what) const {
  if (returned.size() != init.size())
    refuse(Code::shape_mismatch, loc(at->getBeginLoc()),
           what + " returns " + std::to_string(returned.size()) + " tensors, but its state holds " +
               std::to_string(init.size()));
}

Lowerer::Pack Lowerer::pack_elements(const Expr* e, Block& out) {
  const Pack p = pack(e, out);
  for (const ValueId v : p)
    if (v == kUnfollowed || p_.values[std::size_t(v)].undefined)
      refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
             "'" + raw(e) +
                 "' holds a tensor without a value; tl::concat and tl::stack join tensors with values");
  return p;
}

// `s[k]`, `s.at(k)`, `s.front()` or `s.back()` of a Pack: the element's value
// (refused when k is not a constant or is out of range), or none when e reads no
// Pack. Without `out`, only a variable's Pack is read (in a scalar's text).
std::optional<ValueId> Lowerer::pack_read(const Expr* e, Block* out) {
  e = strip(e);
  const Expr* list = nullptr;
  const Expr* index = nullptr;
  std::string method;
  if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(e); oc && oc->getOperator() == OO_Subscript) {
    list = oc->getArg(0);
    index = oc->getArg(1);
  } else if (const auto* mc = dyn_cast<CXXMemberCallExpr>(e)) {
    method = mc->getMethodDecl()->getNameAsString();
    list = mc->getImplicitObjectArgument();
    if (method == "at" && mc->getNumArgs() == 1)
      index = mc->getArg(0);
    else if (method != "front" && method != "back")
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (list == nullptr || !is_pack(list) || (out == nullptr && !isa<DeclRefExpr>(uncopied(list))))
    return std::nullopt;
  const Pack p = out != nullptr ? pack(list, *out) : packs_.at(cast<DeclRefExpr>(uncopied(list))->getDecl());
  std::int64_t k = method == "back" ? std::int64_t(p.size()) - 1 : 0;
  if (index != nullptr) {
    const auto constant = index->getIntegerConstantExpr(ctx_);
    if (!constant)
      refuse(Code::unsupported_construct, loc(index->getBeginLoc()),
             "'" + raw(e) +
                 "': the elements of a std::vector<tl::Tensor> the function builds are read at "
                 "indices known at compile time");
    k = constant->getExtValue();
  }
  if (k < 0 || std::size_t(k) >= p.size())
    refuse(Code::shape_mismatch, loc(e->getBeginLoc()),
           "'" + raw(e) + "' reads element " + std::to_string(k) + " of a std::vector<tl::Tensor> holding " +
               std::to_string(p.size()) + " tensors");
  return p[std::size_t(k)];
}

// tl::split(x, sections, axis) or tl::split(x, {sizes...}, axis), into as many parts as
// the build can count (a constant number of sections, a braced list of sizes): each
// part is a slice of x, as the library's split takes it, between the offsets
// tl::derivatives::split_offsets computes with split's own checks.
Lowerer::Pack Lowerer::split_parts(const CallExpr* c, Block& out) {
  const Expr* parts = strip(c->getArg(1));
  // A braced list of sizes reaches the std::vector parameter through an initializer_list.
  for (;;) {
    if (const auto* k = dyn_cast<CXXConstructExpr>(parts); k && k->getNumArgs() >= 1)
      parts = strip(k->getArg(0));
    else if (const auto* l = dyn_cast<CXXStdInitializerListExpr>(parts))
      parts = strip(l->getSubExpr());
    else if (const auto* f = dyn_cast<CXXFunctionalCastExpr>(parts))
      parts = strip(f->getSubExpr());
    else
      break;
  }
  std::size_t n = 0;
  const auto sections = parts->getIntegerConstantExpr(ctx_);
  if (const auto* braced = dyn_cast<InitListExpr>(parts)) {
    n = braced->getNumInits();
  } else if (sections && sections->isStrictlyPositive()) {
    n = std::size_t(sections->getExtValue());
  } else if (sections) {
    // tl::split itself would throw tl::ValueError, traced or not.
    refuse(Code::unsupported_construct, loc(c->getBeginLoc()),
           "'" + raw(c) + "': tl::split needs a positive number of sections, got " +
               std::to_string(sections->getExtValue()));
  } else {
    refuse(Code::unsupported_construct, loc(c->getBeginLoc()),
           "'" + raw(c) +
               "': tlaloc-grad follows a tl::split into a number of parts known at compile time "
               "(a constant number of sections, or a braced list of sizes)");
  }
  const ValueId x = expr(c->getArg(0), out);
  const FunctionDecl& fd = *c->getDirectCallee();
  const std::string axis = argument_text(c->getArg(2), fd, *fd.getParamDecl(2));
  const std::string at = unique("split_at");
  // In a branch or a loop only the reverse sweep's copy may read it.
  scalar(out, c->getBeginLoc(),
         std::string(structured_ > 0 ? "[[maybe_unused]] " : "") + "const std::vector<std::int64_t> " + at +
             " = tl::derivatives::split_offsets(" + p_.values[std::size_t(x)].name + ".shape(), " + text(c->getArg(1)) +
             ", " + axis + ");");
  out.back().declares = at;
  read_versions_.insert(at);
  Pack p;
  for (std::size_t k = 0; k < n; ++k)
    p.push_back(op(out, c, "slice",
                   {{x, {}},
                    {-1, axis},
                    {-1, at + "[" + std::to_string(k) + "]"},
                    {-1, at + "[" + std::to_string(k + 1) + "]"}},
                   {}));
  return p;
}

// A local std::vector<tl::Tensor> with a value: its elements take its name (`state_0`).
void Lowerer::declare_pack(const VarDecl* v, Block& out) {
  if (!v->hasInit())
    refuse(Code::unsupported_construct, loc(v->getLocation()),
           "the std::vector<tl::Tensor> '" + v->getNameAsString() + "' declared without a value");
  const std::size_t before = p_.values.size();
  bind_pack(v, pack(v->getInit(), out), before);
}

// A declared std::vector<tl::Tensor>: the elements computed for it take its name.
void Lowerer::bind_pack(const ValueDecl* v, const Pack& p, std::size_t values_before) {
  std::set<ValueId> named;
  for (std::size_t k = 0; k < p.size(); ++k) {
    if (std::size_t(p[k]) < values_before || !named.insert(p[k]).second) continue;
    names_.erase(p_.values[std::size_t(p[k])].name);
    p_.values[std::size_t(p[k])].name = claim(v->getNameAsString() + "_" + std::to_string(k));
  }
  packs_[v] = p;
}

}  // namespace tlaloc_grad
