// Scalars' versions. The reverse sweep reads a scalar again where an op used it, so
// each use must keep the value it read: an assignment declares a new constant
// (`k = k * 2.0;` becomes `const double k_1 = k * 2.0;`), as an op declares a new
// tensor. A loop that changes a scalar carries it in a variable of its own, saved at
// the start of each iteration and restored there by the reverse sweep; inside the
// body the same versioning holds, and the body's last version is written back to the
// variable at its end (in place, `n += 1;`, when nothing reads the version).
#include "lowerer.hpp"

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include <algorithm>
#include <set>

#include "cppgen/code.hpp"

namespace tlaloc_grad {

namespace {

// The scalars a statement assigns, in the order it first assigns them; `on_return`,
// when a return in it sets that flag (a returning loop's), last.
std::vector<const VarDecl*> assigned_scalars(const Stmt* s, const VarDecl* on_return) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const VarDecl*> found;
    bool VisitExpr(Expr* e) {
      const VarDecl* v = assigned_variable(e);
      if (v && std::find(found.begin(), found.end(), v) == found.end()) found.push_back(v);
      return true;
    }
  } finder;
  finder.TraverseStmt(const_cast<Stmt*>(s));
  if (on_return != nullptr && has_return(s)) finder.found.push_back(on_return);
  return finder.found;
}

}  // namespace

void Lowerer::declare_scalar(const VarDecl* v, const std::string& name, const std::string& type,
                             bool changeable) {
  ScalarState st;
  st.base = name;
  st.type = type;
  st.depth = st.home = structured_;
  st.changeable = changeable;
  scalars_[v] = std::move(st);
}

std::string Lowerer::current(const VarDecl* v) const {
  const auto r = renamed_.find(v);
  return r == renamed_.end() ? v->getNameAsString() : r->second;
}

// A read of v's current version: the reverse sweep keeps it.
void Lowerer::read_scalar(const VarDecl* v) {
  const auto it = scalars_.find(v);
  if (it == scalars_.end() || !counting_reads_) return;
  it->second.read = true;
  read_versions_.insert(current(v));
}

// A lambda's body is lowered where it is called or passed, but traced it runs once to
// record its region: it may not change a scalar from outside it.
void Lowerer::refuse_outside_lambda(const VarDecl* v, SourceLocation at) {
  if (outside_lambda_.count(v) != 0)
    refuse(Code::unsupported_construct, loc(at),
           "a lambda changes scalar '" + v->getNameAsString() +
               "', declared outside it: return a tensor instead");
}

// An assignment to a scalar is a statement of its own (or a loop's step): inside an
// expression it would be copied into the generated code, changing a constant.
void Lowerer::refuse_assignment_in(const Stmt* s) {
  if (s == nullptr || isa<LambdaExpr>(s)) return;
  if (const VarDecl* v = assigned_variable(s); v && scalars_.count(v) != 0)
    refuse(Code::unsupported_construct, loc(s->getBeginLoc()),
           "scalar '" + v->getNameAsString() +
               "' assigned inside an expression; assign it in a statement of its own");
  for (const Stmt* c : s->children()) refuse_assignment_in(c);
}

// `k = e;`, `k op= e;`, `++k;`: a new constant version of k.
void Lowerer::assign_scalar(const VarDecl* v, const Expr* e, Block& out) {
  refuse_outside_lambda(v, e->getBeginLoc());
  ScalarState& st = scalars_.at(v);
  if (structured_ != st.depth)
    refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
           "scalar '" + v->getNameAsString() +
               "' changes inside a branch that cannot join it (tlaloc-grad joins those of ifs, of the "
               "rest of a loop body after a break or continue, and of the paths of an if that returns)");
  const std::string prior = current(v);
  // `k op= e` and `++k` read k.
  const auto* b = dyn_cast<BinaryOperator>(e);
  if (b == nullptr || b->isCompoundAssignmentOp()) read_scalar(v);
  std::string value;
  if (b != nullptr) {
    value = scalar_text(b->getRHS());
    if (b->isCompoundAssignmentOp())
      value =
          code::Expr::binary(
              BinaryOperator::getOpcodeStr(BinaryOperator::getOpForCompoundAssignment(b->getOpcode())).str(),
              code::Expr::text(prior), code::Expr::text(value))
              .str();
  } else {
    value = prior + (cast<UnaryOperator>(e)->isIncrementOp() ? " + 1" : " - 1");
  }
  counting_reads_ = false;
  std::string in_place = assignment_text(e) + ";";
  counting_reads_ = true;
  set_scalar(v, value, std::move(in_place), e->getBeginLoc(), out);
}

// v's new version, `value`; in_place: the assignment as written, which replaces it
// when nothing reads it in the body of the loop that carries v.
void Lowerer::set_scalar(const VarDecl* v, const std::string& value, std::string in_place, SourceLocation at,
                         Block& out) {
  ScalarState& st = scalars_.at(v);
  const std::string prior = current(v);
  const bool in_body =
      loop_ != nullptr && structured_ == loop_body_ && st.depth == loop_body_ &&
      std::find(carried_by_loops_.begin(), carried_by_loops_.end(), v) != carried_by_loops_.end();
  if (!in_body) in_place.clear();
  const std::string name = unique(st.base);
  scalar(out, at, "const " + st.type + " " + name + " = " + value + ";");
  out.back().declares = name;
  renamed_[v] = name;
  st.changeable = st.read = st.kept = false;
  st.home = structured_;
  st.node = in_body ? std::ptrdiff_t(out.size()) - 1 : -1;
  st.prior = prior;
  st.in_place = std::move(in_place);
}

// Before loop s: the scalars declared outside it that it changes, each in a variable
// the loop carries and saves per iteration. A changeable variable nothing has read
// since its last value is changed in place; otherwise the loop starts a new one.
std::vector<Lowerer::LoopScalar> Lowerer::enter_loop(const Stmt* at, Node& s, Block& out) {
  std::vector<LoopScalar> carried;
  for (const VarDecl* v : assigned_scalars(at, return_flag())) {
    const auto it = scalars_.find(v);
    if (it == scalars_.end() || sm_.isPointWithin(v->getLocation(), at->getBeginLoc(), at->getEndLoc()))
      continue;  // not a local scalar, or declared inside the loop
    refuse_outside_lambda(v, at->getBeginLoc());
    ScalarState& st = it->second;
    LoopScalar c{v, current(v), true, st};
    if (!st.changeable || st.read) {
      if (structured_ != st.depth)
        refuse(Code::unsupported_construct, loc(at->getBeginLoc()),
               "scalar '" + v->getNameAsString() +
                   "' is read before this loop changes it, inside a branch of where it is declared "
                   "(declare a new scalar for the loop)");
      read_scalar(v);
      c.name = unique(st.base);
      c.in_place = false;
      scalar(out, at->getBeginLoc(), st.type + " " + c.name + " = " + current(v) + ";");
      out.back().declares = c.name;
      renamed_[v] = c.name;
      st.home = structured_;
      st.changeable = true;
    }
    st.read = false;
    s.scalars.push_back({c.name, st.type});
    carried.push_back(std::move(c));
  }
  for (const LoopScalar& c : carried) carried_by_loops_.push_back(c.var);
  return carried;
}

// At the start of the loop's body: the carried variables hold the iteration's values,
// and may get new versions at the body's level.
void Lowerer::start_body(const std::vector<LoopScalar>& carried) {
  for (const LoopScalar& c : carried) {
    renamed_[c.var] = c.name;
    ScalarState& st = scalars_.at(c.var);
    st.depth = structured_;
    st.read = st.kept = false;
    st.node = -1;
  }
}

// At the end of loop s's body: each carried scalar's last version written back to
// the loop's variable, or the assignment made in place when nothing read the version.
// A nested loop's final value nothing read is not kept.
void Lowerer::end_body(const std::vector<LoopScalar>& carried, Node& s, Block& lowered) {
  std::set<std::string> unkept;
  for (const auto& [name, type] : s.kept)
    if (read_versions_.count(name) == 0)
      unkept.insert(name);
    else
      read_versions_.insert(kept_holders_.at(name));
  for (const LoopScalar& c : carried) {
    const ScalarState& st = scalars_.at(c.var);
    // An unread kept value is the nested loop's own variable.
    const std::string now = st.kept && unkept.count(current(c.var)) != 0 ? st.prior : current(c.var);
    renamed_[c.var] = c.name;
    if (now == c.name) continue;
    if (st.node >= 0 && !st.read && st.prior == c.name && !st.kept) {
      Node& n = lowered[std::size_t(st.node)];
      n.text = st.in_place;
      n.declares.clear();
      n.assignment = true;
    } else {
      scalar(lowered, c.var->getLocation(), c.name + " = " + now + ";");
      lowered.back().assignment = true;
      read_versions_.insert(now);
    }
  }
  const auto dropped = [&](const Node& n) {
    return n.kind == Node::Kind::scalar && n.assignment && unkept.count(n.declares) != 0;
  };
  lowered.erase(std::remove_if(lowered.begin(), lowered.end(), dropped), lowered.end());
  std::erase_if(s.kept, [&](const auto& k) { return unkept.count(k.first) != 0; });
}

// After the loop: each carried scalar is its variable, holding the last iteration's
// value (settle).
void Lowerer::leave_loop(const std::vector<LoopScalar>& carried, Block& out) {
  carried_by_loops_.resize(carried_by_loops_.size() - carried.size());
  for (const LoopScalar& c : carried) {
    renamed_[c.var] = c.name;
    ScalarState& st = scalars_.at(c.var);
    st.depth = c.in_place ? c.before.depth : structured_;
    st.home = c.in_place ? c.before.home : structured_;
    st.changeable = true;
    st.read = st.kept = false;
    st.node = -1;
    settle(c.var, c.name, out);
  }
}

// The scalars declared outside stmts that they change, with their current versions
// and states: those a branch over stmts versions inside and joins after it.
std::vector<Lowerer::BranchScalar> Lowerer::changed_in(const std::vector<const Stmt*>& stmts,
                                                       SourceLocation at) {
  std::vector<BranchScalar> found;
  if (forward_only_ || stmts.empty()) return found;
  for (const Stmt* s : stmts)
    for (const VarDecl* v : assigned_scalars(s, return_flag())) {
      const auto it = scalars_.find(v);
      const auto same = [v](const BranchScalar& b) { return b.var == v; };
      if (it == scalars_.end() || std::any_of(found.begin(), found.end(), same) ||
          sm_.isPointWithin(v->getLocation(), stmts.front()->getBeginLoc(), stmts.back()->getEndLoc()))
        continue;  // not a local scalar, seen, or declared inside
      refuse_outside_lambda(v, at);
      if (structured_ != it->second.depth) continue;  // assign_scalar refuses it, where it changes
      found.push_back({v, "", current(v), it->second});
    }
  return found;
}

// Before a branch over stmts (an if's, or the rest of a loop body after a jump): each
// scalar they change is joined after it in a variable of its own (`double s_1 = s;`),
// which a path that changed it assigns at its end. Inside, the paths read and version
// the value from before the branch, which the reverse sweep reads again; the join
// variable only takes the result.
std::vector<Lowerer::BranchScalar> Lowerer::enter_branch(const std::vector<const Stmt*>& stmts,
                                                         SourceLocation at, Block& out) {
  std::vector<BranchScalar> joined = changed_in(stmts, at);
  for (BranchScalar& b : joined) {
    read_scalar(b.var);
    b.before = scalars_.at(b.var);
    b.join = unique(b.before.base);
    scalar(out, at, b.before.type + " " + b.join + " = " + b.prior + ";");
    out.back().declares = b.join;
  }
  return joined;
}

// At the start of each path: the value from before the if, which a loop in the path
// may not change in place (the reverse sweep of the path reads it again).
void Lowerer::start_path(const std::vector<BranchScalar>& joined) {
  for (const BranchScalar& b : joined) {
    renamed_[b.var] = b.prior;
    ScalarState& st = scalars_.at(b.var) = b.before;
    st.depth = structured_;
    st.changeable = st.kept = false;
    st.node = -1;
  }
}

// After a path that returns: its scalars as they were before it.
void Lowerer::restore_path(const std::vector<BranchScalar>& scoped) {
  for (const BranchScalar& b : scoped) {
    renamed_[b.var] = b.prior;
    scalars_.at(b.var) = b.before;
  }
}

// At the end of a path: the join variable takes the path's last version. The
// assignment is not computed again by the reverse sweep, which does not need it.
void Lowerer::end_path(const std::vector<BranchScalar>& joined, Block& path) {
  for (const BranchScalar& b : joined) {
    const std::string now = current(b.var);
    if (now == b.prior) continue;
    scalar(path, b.var->getLocation(), b.join + " = " + now + ";");
    path.back().assignment = true;
    read_versions_.insert(now);
  }
}

// After the if: each scalar it changed is its join variable (settle).
void Lowerer::leave_branch(const std::vector<BranchScalar>& joined, Block& out) {
  for (const BranchScalar& b : joined) {
    renamed_[b.var] = b.join;
    ScalarState& st = scalars_.at(b.var) = b.before;
    st.depth = st.home = structured_;
    st.changeable = st.read = st.kept = false;
    st.node = -1;
    settle(b.var, b.join, out, true);
  }
}

// v's new value, after a loop or an if changed it, is in `holder`. Where the
// reverse sweep declares that variable again or restores it (the loop or if is inside
// a branch or a loop body that declares it, or inside a loop that carries it), a later
// use would read its value from before. After an if (`replayed`), the reverse sweep
// runs the if's scalar statements again (Writer::scalars_of), except directly in a
// loop body. A loop's final value is kept in a constant of its own: directly in an
// enclosing loop's body, saved per iteration of that loop and restored by its reverse;
// inside a branch, in a variable declared before the outermost branch around it
// (Node::hoisted), which the replay of the branch's scalars leaves alone, and which an
// enclosing loop saves per iteration too.
void Lowerer::settle(const VarDecl* v, const std::string& holder, Block& out, bool replayed) {
  ScalarState& st = scalars_.at(v);
  const bool enclosing =
      std::find(carried_by_loops_.begin(), carried_by_loops_.end(), v) != carried_by_loops_.end();
  if (st.home == 0 && !enclosing) return;
  const bool in_body = loop_ != nullptr && structured_ == loop_body_;
  if (replayed && !in_body) return;
  const std::string name = unique(st.base);
  if (in_body) {
    scalar(out, v->getLocation(), "const " + st.type + " " + name + " = " + holder + ";");
  } else {
    scalar(out, v->getLocation(), name + " = " + holder + ";");
    out.back().hoisted = st.type;
  }
  out.back().declares = name;
  out.back().assignment = true;  // restored or left, not computed again, by the reverse sweep
  // A kept value nothing reads is dropped at the loop body's end (end_body), and with
  // it this read of the holder.
  if (loop_ != nullptr)
    kept_holders_[name] = holder;
  else
    read_versions_.insert(holder);
  if (loop_ != nullptr) loop_->kept.push_back({name, st.type});
  renamed_[v] = name;
  st.depth = st.home = structured_;
  st.changeable = false;
  st.kept = loop_ != nullptr;
  st.prior = holder;
}

// Declarations nothing reads get [[maybe_unused]]: a version the user's code only
// assigns, or one a loop replaced.
void Lowerer::mark_unread(Block& b) const {
  for (Node& s : b) {
    // A hoisted value nothing reads is declared where it is assigned.
    if (!s.hoisted.empty() && read_versions_.count(s.declares) == 0)
      s.text = "const " + std::exchange(s.hoisted, "") + " " + s.text;
    if (s.kind == Node::Kind::scalar && !s.declares.empty() && read_versions_.count(s.declares) == 0 &&
        s.text.rfind("[[maybe_unused]]", 0) != 0)
      s.text = "[[maybe_unused]] " + s.text;
    mark_unread(s.body);
    mark_unread(s.orelse);
    mark_unread(s.head);
  }
}

}  // namespace tlaloc_grad
