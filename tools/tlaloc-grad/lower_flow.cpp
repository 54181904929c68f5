// Blocks, branches (if, ?:, early returns, jumps in loops) and C++ loops.
#include "lowerer.hpp"

#include <clang/AST/QualTypeNames.h>

#include <algorithm>
#include <utility>

namespace tlaloc_grad {

// Whether `cond` is `t.defined()` of a tensor that has no value on any path here: a
// generated gradient's test of a cotangent that nothing gave a share to (lowered
// again for a Hessian), whose other side would read a tensor that has no value.
bool Lowerer::never_defined(const Expr* cond) const {
  const auto* call = dyn_cast<CXXMemberCallExpr>(cond->IgnoreParenImpCasts());
  if (call == nullptr || call->getMethodDecl() == nullptr ||
      call->getMethodDecl()->getNameAsString() != "defined")
    return false;
  const auto* ref = dyn_cast<DeclRefExpr>(call->getImplicitObjectArgument()->IgnoreParenImpCasts());
  if (ref == nullptr) return false;
  // Through a reference to one tensor (`tl::Tensor& r = a;`), the tensor it refers to.
  const ValueDecl* d = ref->getDecl();
  for (auto a = aliases_.find(d); a != aliases_.end() && a->second.first == a->second.second;
       a = aliases_.find(d))
    d = a->second.first;
  const auto it = tensors_.find(d);
  return it != tensors_.end() && aliases_.count(d) == 0 && p_.values[std::size_t(it->second)].undefined;
}

ValueId Lowerer::conditional(const ConditionalOperator* c, Block& out) {
  if (never_defined(c->getCond())) return expr(c->getFalseExpr(), out);
  Node s = branch(c->getBeginLoc(), c->getCond());
  ++structured_;
  const ValueId a = expr(c->getTrueExpr(), s.body), b = expr(c->getFalseExpr(), s.orelse);
  --structured_;
  return meet(std::move(s), a, b, "select", out);
}

// A branch on a scalar condition.
Node Lowerer::branch(SourceLocation at, const Expr* cond) { return branch(at, condition(cond)); }
Node Lowerer::branch(SourceLocation at, const std::string& text) {
  Node s;
  s.kind = Node::Kind::branch;
  s.loc = loc(at);
  s.text = text;
  s.id = next_id_++;
  return s;
}

// The value after branch s: a from its `then`, b from its `else`.
ValueId Lowerer::joined_value(Node& s, const std::string& base, ValueId a, ValueId b) {
  const ValueId v = p_.add_value(unique(base), active(a) || active(b), traced(a) || traced(b));
  p_.values[std::size_t(v)].maybe_undefined = maybe_undefined(a) || maybe_undefined(b);
  s.phis.push_back({v, -1, a, b});
  return v;
}

// The branch's two results meet in one value after it.
ValueId Lowerer::meet(Node s, ValueId a, ValueId b, const std::string& base, Block& out) {
  const ValueId v = joined_value(s, base, a, b);
  out.push_back(std::move(s));
  return v;
}

// Lowers stmts[from...]; returns the returned value when the statements return.
std::optional<ValueId> Lowerer::block(const std::vector<const Stmt*>& stmts, std::size_t from, Block& out) {
  for (std::size_t i = from; i < stmts.size(); ++i) {
    const Stmt* s = stmts[i];
    if (const auto* r = dyn_cast<ReturnStmt>(s)) {
      if (r->getRetValue() == nullptr)
        refuse(Code::unsupported_construct, loc(r->getBeginLoc()), "a return without a value");
      if (returns_from_loop()) {
        loop_return(r, out);
        return std::nullopt;
      }
      if (pair_second_ != nullptr) return pair_return(r->getRetValue(), out);
      if (pack_return_ != nullptr) {
        *pack_return_ = pack(r->getRetValue(), out);
        return pack_return_->front();
      }
      return expr(r->getRetValue(), out);
    }
    if (const auto* c = dyn_cast<CompoundStmt>(s)) {
      std::vector<const Stmt*> inner(c->body_begin(), c->body_end());
      inner.insert(inner.end(), stmts.begin() + std::ptrdiff_t(i) + 1, stmts.end());
      return block(inner, 0, out);
    }
    if (pack_return_ != nullptr && has_return(s))
      refuse(Code::unsupported_construct, loc(s->getBeginLoc()),
             "a return inside a branch or loop of a function returning a std::vector<tl::Tensor>: return "
             "once, at its end");
    Jump j = loop_jump(s);
    if (j.cond == nullptr) j = ending_jump(s);
    if (j.cond != nullptr) {
      skip_rest(j, stmts, i + 1, out);
      return std::nullopt;
    }
    // A jump on the path of branches: what follows it in this block never runs.
    if (isa<BreakStmt>(s) || isa<ContinueStmt>(s)) {
      jump_taken("", isa<BreakStmt>(s), s->getBeginLoc());
      return std::nullopt;
    }
    if (check(s, out)) continue;
    if (const auto* f = dyn_cast<IfStmt>(s)) {
      if (has_return(f) && !returns_from_loop()) return returning_if(f, stmts, i + 1, out);
      const std::size_t taken = jumps_taken_.size();
      plain_if(f, out);
      // A jump inside the if: the rest of this block runs where none was taken.
      if (jumps_taken_.size() > taken && i + 1 < stmts.size()) {
        std::string any;
        for (std::size_t k = taken; k < jumps_taken_.size(); ++k)
          any += (any.empty() ? "(" : " || (") + jumps_taken_[k] + ")";
        guard_rest(f->getBeginLoc(), "!(" + any + ")", stmts, i + 1, out);
        return std::nullopt;
      }
      continue;
    }
    if (is_loop(s) && has_return(s) && !returns_from_loop()) return returning_loop(s, stmts, i + 1, out);
    if (is_loop(s) && has_return(s) && loop_ != nullptr) {
      inner_returning_loop(s, stmts, i + 1, out);
      return std::nullopt;
    }
    statement(s, out);
  }
  return std::nullopt;
}

std::string Lowerer::condition(const Expr* c) {
  if (is_tensor(c->getType()))
    refuse(Code::unsupported_construct, loc(c->getBeginLoc()),
           "a tensor used as a condition (use tl::where, or .item())");
  return scalar_text(c);
}

// `if` without returns: the tensors and scalars it assigns meet after it.
void Lowerer::plain_if(const IfStmt* f, Block& out) {
  if (f->getInit() != nullptr || f->getConditionVariable() != nullptr)
    refuse(Code::unsupported_construct, loc(f->getBeginLoc()),
           "an if with an initializer or a condition variable");
  if_over(f, never_defined(f->getCond()) ? std::vector<const Stmt*>{} : statements(f->getThen()), out);
}

// An if's paths (`then`, and its else): the tensors and scalars they assign meet
// after it. Returns the branch's id, which names its saved condition.
int Lowerer::if_over(const IfStmt* f, const std::vector<const Stmt*>& then, Block& out) {
  Node s = branch(f->getBeginLoc(), f->getCond());
  if (const auto* c = dyn_cast<DeclRefExpr>(f->getCond()->IgnoreParenImpCasts());
      c != nullptr && tensor_conditions_.count(c->getDecl()) != 0)
    s.structured = "tl::cond";
  const int id = s.id;
  const std::vector<BranchScalar> joined = enter_branch({f}, f->getBeginLoc(), out);
  branch_over(std::move(s), then, statements(f->getElse()), out, joined);
  leave_branch(joined, out);
  return id;
}

// Lowers the two paths of branch s; the tensors they assign meet after it, and the
// scalars in `joined` (lower_scalars.cpp).
void Lowerer::branch_over(Node s, const std::vector<const Stmt*>& then,
                          const std::vector<const Stmt*>& orelse, Block& out,
                          const std::vector<BranchScalar>& joined) {
  const auto before = tensors_;
  ++structured_;
  start_path(joined);
  jump_path_.push_back(cond_name(s.id));
  block(then, 0, s.body);
  end_path(joined, s.body);
  const auto after_then = tensors_;
  tensors_ = before;
  start_path(joined);
  jump_path_.back() = "!" + cond_name(s.id);
  block(orelse, 0, s.orelse);
  jump_path_.pop_back();
  end_path(joined, s.orelse);
  --structured_;
  const auto after_else = tensors_;
  tensors_ = before;
  for (const ValueDecl* var : in_source_order(before)) {
    const ValueId a = after_then.at(var), b = after_else.at(var);
    if (a == b) {
      tensors_[var] = a;
      continue;
    }
    tensors_[var] = joined_value(s, var->getNameAsString(), a, b);
  }
  out.push_back(std::move(s));
}

Lowerer::Jump Lowerer::loop_jump(const Stmt* s) {
  const auto* f = dyn_cast<IfStmt>(s);
  if (f == nullptr || f->getElse() != nullptr || f->getInit() != nullptr ||
      f->getConditionVariable() != nullptr)
    return {};
  const std::vector<const Stmt*> then = statements(f->getThen());
  if (then.size() != 1 || !(isa<ContinueStmt>(then[0]) || isa<BreakStmt>(then[0]))) return {};
  return {f->getCond(), isa<BreakStmt>(then[0])};
}

namespace {
// Whether s holds a break or continue of the loop it is in (not of a loop inside it),
// or a return (which leaves every loop around it).
bool jumps(const Stmt* s) {
  if (s == nullptr || isa<LambdaExpr>(s)) return false;
  if (is_loop(s)) return has_return(s);
  if (isa<BreakStmt>(s) || isa<ContinueStmt>(s) || isa<ReturnStmt>(s)) return true;
  for (const Stmt* c : s->children())
    if (jumps(c)) return true;
  return false;
}
}  // namespace

Lowerer::Jump Lowerer::ending_jump(const Stmt* s) {
  const auto* f = dyn_cast<IfStmt>(s);
  if (f == nullptr || f->getInit() != nullptr || f->getConditionVariable() != nullptr || has_return(f))
    return {};
  const std::vector<const Stmt*> then = statements(f->getThen());
  if (then.size() < 2 || !(isa<ContinueStmt>(then.back()) || isa<BreakStmt>(then.back()))) return {};
  if (std::any_of(then.begin(), then.end() - 1, jumps) || jumps(f->getElse())) return {};
  return {f->getCond(), isa<BreakStmt>(then.back()), f};
}

// A loop with returns inside the returning loop's body (or a loop nested in it): as
// if followed by `if (returned) break;`, so that a return leaves every loop around it.
void Lowerer::inner_returning_loop(const Stmt* loop, const std::vector<const Stmt*>& stmts, std::size_t rest,
                                   Block& out) {
  statement(loop, out);
  // Read by a branch whose condition is saved and by the forward sweep's break only:
  // nothing the reverse sweep computes again reads it, so the value a loop inside a
  // branch left is fine to read here (read_scalar refuses it for other reads).
  scalars_.at(returning_.returned).read = true;
  read_versions_.insert(current(returning_.returned));
  break_on(current(returning_.returned), loop->getBeginLoc(), stmts, rest, out);
}

// `if (c) break;` or `if (c) continue;` (or an if whose statements end with one): the
// rest of the block becomes a branch on !c. Directly in a loop's body, a break leaves
// the loop at the end of that iteration, where c still holds (scalars are
// single-assignment; counters change at the end, outside the branch). Inside a
// branch, the jump is taken where the branches' saved conditions say so (jump_taken).
// An if whose statements end with the jump is lowered first, without it; c is then
// the condition it saved.
void Lowerer::skip_rest(const Jump& j, const std::vector<const Stmt*>& stmts, std::size_t rest, Block& out) {
  const SourceLocation at = j.cond->getBeginLoc();
  std::string cond;
  if (j.with != nullptr) {
    std::vector<const Stmt*> then = statements(j.with->getThen());
    then.pop_back();
    cond = cond_name(if_over(j.with, then, out));
  } else {
    cond = condition(j.cond);
  }
  break_on(cond, at, stmts, rest, out, j.is_break);
}

// A jump where `cond` holds, here: the rest of the block runs where it does not.
void Lowerer::break_on(const std::string& cond, SourceLocation at, const std::vector<const Stmt*>& stmts,
                       std::size_t rest, Block& out, bool is_break) {
  if (jump_path_.empty()) {
    jump_taken(cond, is_break, at);
    guard_rest(at, "!(" + cond + ")", stmts, rest, out);
    return;
  }
  // The branch saves !c, which says when the jump is taken beside the path's conditions.
  Node s = branch(at, "!(" + cond + ")");
  jump_taken("!" + cond_name(s.id), is_break, at);
  guard_rest(at, std::move(s), stmts, rest, out);
}

// Notes a jump taken where the conditions of the branches around it hold, and `last`
// (directly in the loop's body: `last` alone, the jump's condition). A break leaves
// the loop at the end of the iteration; the statements after the branches holding
// the jump run where it was not taken (block).
void Lowerer::jump_taken(const std::string& last, bool is_break, SourceLocation at) {
  if (loop_ == nullptr)
    refuse(Code::unsupported_construct, loc(at),
           std::string("a ") + (is_break ? "break" : "continue") + " outside the loop being differentiated");
  std::string when;
  for (const std::string& c : jump_path_) when += (when.empty() ? "" : " && ") + c;
  if (!last.empty()) when += (when.empty() ? "" : " && ") + last;
  if (when.empty()) when = "true";
  if (!jump_path_.empty()) jumps_taken_.push_back(when);
  if (is_break)
    loop_->break_after = loop_->break_after.empty() ? when : "(" + loop_->break_after + ") || (" + when + ")";
}

// stmts[rest...] inside a branch on `cond`, the scalars they change joined after it.
void Lowerer::guard_rest(SourceLocation at, const std::string& cond, const std::vector<const Stmt*>& stmts,
                         std::size_t rest, Block& out) {
  guard_rest(at, branch(at, cond), stmts, rest, out);
}
void Lowerer::guard_rest(SourceLocation at, Node s, const std::vector<const Stmt*>& stmts, std::size_t rest,
                         Block& out) {
  const std::vector<const Stmt*> skipped(stmts.begin() + std::ptrdiff_t(rest), stmts.end());
  const std::vector<BranchScalar> joined = enter_branch(skipped, at, out);
  branch_over(std::move(s), skipped, {}, out, joined);
  leave_branch(joined, out);
}

// `if` with a return in a branch: the rest of the block runs on the other path,
// and the function's result is met after the if.
std::optional<ValueId> Lowerer::returning_if(const IfStmt* f, const std::vector<const Stmt*>& stmts,
                                             std::size_t rest, Block& out) {
  if (pair_second_ != nullptr)
    refuse(Code::unsupported_construct, loc(f->getBeginLoc()), "an early return in tl::scan's function");
  if (structured_ > 0 && !inlining_.empty())
    refuse(Code::unsupported_construct, loc(f->getBeginLoc()),
           "an early return in a function inlined inside a loop or a branch");
  Node s = branch(f->getBeginLoc(), f->getCond());
  // Each path runs to a return: the scalars it changes are versioned inside it, and
  // nothing after the if reads them. A path that may end without one (a loop that
  // returns, or an if with a return on one side) goes on with the rest of the block.
  const auto statements_of = [&](const Stmt* branch) {
    std::vector<const Stmt*> list = statements(branch);
    if (list.empty() || !always_returns(list.back()))
      list.insert(list.end(), stmts.begin() + std::ptrdiff_t(rest), stmts.end());
    return list;
  };
  const std::vector<const Stmt*> then = statements_of(f->getThen()), orelse = statements_of(f->getElse());
  const std::vector<BranchScalar> then_scalars = changed_in(then, f->getBeginLoc()),
                                  else_scalars = changed_in(orelse, f->getBeginLoc());
  const auto path = [&](const std::vector<const Stmt*>& list, const std::vector<BranchScalar>& scoped,
                        Block& into) {
    const auto saved = tensors_;
    start_path(scoped);
    const auto r = block(list, 0, into);
    restore_path(scoped);
    tensors_ = saved;
    if (!r)
      refuse(Code::unsupported_construct, loc(f->getBeginLoc()),
             "a path through this if ends without returning");
    return *r;
  };
  ++structured_;
  ++returning_paths_;
  const ValueId a = path(then, then_scalars, s.body), b = path(orelse, else_scalars, s.orelse);
  --returning_paths_;
  --structured_;
  return meet(std::move(s), a, b, "result", out);
}

// A variable the lowering declares itself, in the function lowered.
const VarDecl* Lowerer::declared_here(const std::string& name, QualType type, SourceLocation at) {
  auto* fn = const_cast<FunctionDecl*>(top_);
  return VarDecl::Create(ctx_, fn, at, at, &ctx_.Idents.get(name), type,
                         ctx_.getTrivialTypeSourceInfo(type, at), SC_None);
}

// A loop with returns in it, directly in the function's body: as if written
//   tl::Tensor result; bool returned = false;
//   for (...) { ... if (c) { result = e; returned = true; break; } ... }
//   if (returned) return result;
//   ... the rest of the body ...
// Traced, the loop unrolls up to the return, and the gradient flows from e; here
// it flows through `result`, carried by the loop, to the iteration that returned.
std::optional<ValueId> Lowerer::returning_loop(const Stmt* loop, const std::vector<const Stmt*>& stmts,
                                               std::size_t rest, Block& out) {
  const SourceLocation at = loop->getBeginLoc();
  if (structured_ > returning_paths_ || !inlining_.empty() || pair_second_ != nullptr || forward_only_)
    refuse(Code::unsupported_construct, loc(at),
           "a return inside a loop in a branch that does not return, or in a function called in the body");
  // Declared, as far as the scans of statements can tell, where the body opens.
  const SourceLocation opening = top_->getBody()->getBeginLoc();
  returning_ = {declared_here("result", top_->getReturnType().getUnqualifiedType(), opening),
                declared_here("returned", ctx_.BoolTy, opening)};
  tensors_[returning_.result] = undefined_tensor(returning_.result, out);
  const std::string flag = unique("returned");
  scalar(out, at, "bool " + flag + " = false;");
  out.back().declares = flag;
  declare_scalar(returning_.returned, flag, "bool", true);
  renamed_[returning_.returned] = flag;  // the rest of a body may be lowered once per path
  statement(loop, out);
  const Returning r = std::exchange(returning_, {});
  read_scalar(r.returned);
  Node s = branch(at, current(r.returned));
  const ValueId returned = tensors_.at(r.result);
  const std::vector<const Stmt*> after(stmts.begin() + std::ptrdiff_t(rest), stmts.end());
  const std::vector<BranchScalar> scoped = changed_in(after, at);
  ++structured_;
  ++returning_paths_;
  const auto saved = tensors_;
  start_path(scoped);
  const auto otherwise = block(after, 0, s.orelse);
  restore_path(scoped);
  tensors_ = saved;
  --returning_paths_;
  --structured_;
  if (!otherwise)
    refuse(Code::unsupported_construct, loc(at), "the function ends without returning after this loop");
  return meet(std::move(s), returned, *otherwise, "result", out);
}

// A return in the returning loop: `result = e; returned = true;` and a break.
void Lowerer::loop_return(const ReturnStmt* r, Block& out) {
  const SourceLocation at = r->getBeginLoc();
  const ValueId v = expr(r->getRetValue(), out);
  tensors_[returning_.result] = v;
  if (structured_ != scalars_.at(returning_.returned).depth)
    refuse(Code::unsupported_construct, loc(at), "a return the loop's branches cannot join");
  set_scalar(returning_.returned, "true", current(returning_.returned) + " = true;", at, out);
  jump_taken("", true, at);
}

// c in `if (c) break;`, or null.
const Expr* Lowerer::breaking(const Stmt* s) {
  const Jump j = loop_jump(s);
  return j.is_break ? j.cond : nullptr;
}

// Lowers a loop's body into s, each carried variable starting an iteration as its
// phi's `in` value; `body` returns their values at the end of an iteration. The body
// is lowered again when a carried value turns out to depend on the differentiated
// parameter through it. Returns the carried values after the loop.
std::vector<ValueId> Lowerer::carry_through(Node& s, const std::vector<Carried>& carried,
                                            const std::function<std::vector<ValueId>(Block&)>& body) {
  std::set<std::pair<const ValueDecl*, int>> active_carried;
  for (const Carried& c : carried)
    if (active(c.init)) active_carried.insert({c.var, c.element});
  const std::size_t values_before = p_.values.size();
  const auto names_before = names_;
  const auto scalars_before = s.scalars;
  for (;;) {
    std::vector<Phi> phis;
    const auto before = tensors_;
    const auto packs_before = packs_;
    for (const Carried& c : carried) {
      const bool a = active_carried.count({c.var, c.element}) != 0, t = a || traced(c.init);
      const std::string base =
          c.var->getNameAsString() + (c.element >= 0 ? "_" + std::to_string(c.element) : std::string());
      const ValueId out_v = p_.add_value(unique(base), a, t);
      const ValueId in_v = p_.add_value(unique(base + "_in"), a, t);
      p_.values[std::size_t(out_v)].maybe_undefined = p_.values[std::size_t(in_v)].maybe_undefined =
          maybe_undefined(c.init);
      phis.push_back({out_v, in_v, c.init, -1});
      if (c.element < 0) {
        tensors_[c.var] = in_v;
      } else {
        Pack& elements = packs_[c.var];
        elements.resize(std::max(elements.size(), std::size_t(c.element) + 1));
        elements[std::size_t(c.element)] = in_v;
      }
    }
    Block lowered;
    ++structured_;
    const std::vector<ValueId> ends = body(lowered);
    --structured_;
    bool again = false;
    for (std::size_t k = 0; k < carried.size(); ++k) {
      phis[k].second = ends[k];
      if (active(ends[k]) && !active(phis[k].in) &&
          active_carried.insert({carried[k].var, carried[k].element}).second)
        again = true;
    }
    tensors_ = before;
    packs_ = packs_before;
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

void Lowerer::loop(const Stmt* at, const Stmt* init, const Expr* cond, const Expr* inc, const Stmt* body,
                   Block& out) {
  // A generated tl::while_loop is `for (;;)`, left by a break after its condition.
  if (cond == nullptr && !forward_only_)
    refuse(Code::unsupported_construct, loc(at->getBeginLoc()), "a loop without a condition");
  Node s = loop_node(at, body);
  if (init != nullptr) {
    const auto* d = dyn_cast<DeclStmt>(init);
    if (d == nullptr)
      refuse(Code::unsupported_construct, loc(init->getBeginLoc()),
             "a loop initializer that is not a declaration");
    for (const Decl* decl : d->decls()) {
      const auto* v = cast<VarDecl>(decl);
      if (!v->getType()->isArithmeticType() || !v->hasInit())
        refuse(Code::unsupported_construct, loc(v->getLocation()),
               "a loop variable that is not an initialized arithmetic scalar");
      const std::string type = type_name(v->getType());
      s.init += (s.init.empty() ? type + " " : ", ") + v->getNameAsString() + " = " + scalar_text(v->getInit());
      s.scalars.push_back({v->getNameAsString(), type});
    }
  }
  const std::vector<LoopScalar> scalars = forward_only_ ? std::vector<LoopScalar>{} : enter_loop(at, s, out);
  s.text = cond != nullptr ? condition(cond) : "true";
  if (inc != nullptr) s.step = assignment_text(inc);
  loop_body(at, std::move(s), scalars, body, nullptr, out);
}

// `for (const tl::Tensor& p : ps)` over a list parameter or capture, or
// `for (const auto& [name, w] : params)` over a Params: a loop over its indices (a
// counter of the generated code's own), p (or w) the element read at each, and a
// Params' name read where the body reads it.
void Lowerer::range_loop(const CXXForRangeStmt* r, const ListParam& l, Block& out) {
  const VarDecl* var = r->getLoopVariable();
  const auto* entry = dyn_cast<DecompositionDecl>(var);
  const ValueDecl* element_var = var;
  if (l.named) element_var = entry && entry->bindings().size() == 2 ? entry->bindings()[1] : nullptr;
  if (r->getInit() != nullptr || element_var == nullptr || !is_tensor(element_var->getType()))
    refuse(Code::unsupported_construct, loc(r->getBeginLoc()),
           l.named
               ? "a range-for over the Params '" + l.name +
                     "' with an initializer, or whose variable is not a structured binding `[name, tensor]`"
               : "a range-for over the list '" + l.name +
                     "' with an initializer, or whose variable is not a tensor");
  if (!l.prefix.empty() || !l.computed.empty())
    refuse(Code::unsupported_construct, loc(r->getBeginLoc()),
           "a range-for over part of the Params '" + l.name +
               "' (its sub(...)): range over the whole Params, or read the tensors by name");
  Node s = loop_node(r, r->getBody());
  const std::string k = unique("k_" + element_var->getNameAsString());
  s.init = "std::size_t " + k + " = 0";
  s.scalars.push_back({k, "std::size_t"});
  const std::vector<LoopScalar> scalars = forward_only_ ? std::vector<LoopScalar>{} : enter_loop(r, s, out);
  s.text = k + " < " + l.name + ".size()";
  s.step = "++" + k;
  loop_body(
      r, std::move(s), scalars, r->getBody(),
      [&, k](Block& lowered) {
        const std::size_t before = p_.values.size();
        if (l.named) renamed_[entry->bindings()[0]] = l.name + ".entries()[" + k + "].first";
        bind(element_var, element(l, k, r->getRangeInit(), lowered), before);
      },
      out);
}

// A loop's node, its body not yet lowered.
Node Lowerer::loop_node(const Stmt* at, const Stmt* body) {
  if (has_return(body) && !returns_from_loop())
    refuse(Code::unsupported_construct, loc(at->getBeginLoc()),
           "a return inside a loop in a branch that does not return, or in a function called in the body");
  Node s;
  s.kind = Node::Kind::loop;
  s.loc = loc(at->getBeginLoc());
  s.id = next_id_++;
  return s;
}

// Loop s's body, lowered after `first` (a range-for's element, which a first
// `if (c) break;` may read: it then stays in the body, after the element).
void Lowerer::loop_body(const Stmt* at, Node s, const std::vector<LoopScalar>& scalars, const Stmt* body,
                        const std::function<void(Block&)>& first, Block& out) {
  // `if (c) break;` first in the body, or last with no jump before it (which would
  // skip it on some iterations), is written where it stands; others make the rest of
  // their block a branch (skip_rest).
  std::vector<const Stmt*> stmts = statements(body);
  const Expr* break_first = stmts.empty() || first ? nullptr : breaking(stmts.front());
  if (break_first != nullptr) stmts.erase(stmts.begin());
  const Expr* break_last =
      stmts.empty() || std::any_of(stmts.begin(), stmts.end() - 1, jumps) ? nullptr : breaking(stmts.back());
  if (break_last != nullptr) stmts.pop_back();
  std::set<const ValueDecl*> assigned;
  assigned_tensors(body, assigned);
  if (returns_from_loop()) assigned.insert(returning_.result);
  std::vector<Carried> carried;
  for (const ValueDecl* var : in_source_order(assigned))
    if (tensors_.count(var)) carried.push_back({var, tensors_.at(var)});  // else declared inside the body
  // The body may be lowered twice (carry_through): each time from the same versions.
  const auto scalars_before = scalars_;
  const auto renamed_before = renamed_;
  const std::vector<ValueId> after = carry_through(s, carried, [&](Block& lowered) {
    scalars_ = scalars_before;
    renamed_ = renamed_before;
    Node* const outer = loop_;
    const int outer_body = loop_body_;
    loop_ = &s;
    loop_body_ = structured_;
    s.break_after.clear();
    s.kept.clear();
    start_body(scalars);
    if (first) first(lowered);
    if (break_first != nullptr) s.break_before = condition(break_first);
    const auto outer_path = std::exchange(jump_path_, {});
    const auto outer_taken = std::exchange(jumps_taken_, {});
    block(stmts, 0, lowered);
    jump_path_ = outer_path;
    jumps_taken_ = outer_taken;
    end_body(scalars, s, lowered);
    if (break_last != nullptr) s.break_after = condition(break_last);
    loop_ = outer;
    loop_body_ = outer_body;
    std::vector<ValueId> ends;
    for (const Carried& c : carried) ends.push_back(tensors_.at(c.var));
    return ends;
  });
  for (std::size_t k = 0; k < carried.size(); ++k) tensors_[carried[k].var] = after[k];
  out.push_back(std::move(s));
  leave_loop(scalars, out);
}

}  // namespace tlaloc_grad
