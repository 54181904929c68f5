// tl::cond, tl::fori_loop, tl::while_loop and tl::scan (include/tlaloc/control.hpp),
// and lambdas a differentiated function defines or passes to them.
//
// Their functions' bodies are lowered in place, as branches and loops. Traced, each
// is one op with regions, whose engine rule sums the cotangents of what a region
// uses from outside per step before adding them there; the nodes are marked so that
// the reverse sweep sums in that order too.
#include "lowerer.hpp"

namespace tlaloc_grad {

// A function given to tl::cond or a tl:: loop: a lambda written in the call, or a
// variable initialized with one.
const LambdaExpr* Lowerer::lambda_arg(const Expr* e, const std::string& what) {
  for (;;) {
    e = strip(e);
    if (const auto* c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() == 1)
      e = c->getArg(0);
    else
      break;
  }
  if (const auto* l = dyn_cast<LambdaExpr>(e)) {
    if (l->isGenericLambda())
      refuse(Code::unsupported_construct, loc(l->getBeginLoc()),
             what + " is a generic lambda: give its parameters the type tl::Tensor");
    return l;
  }
  const auto* ref = dyn_cast<DeclRefExpr>(e);
  const auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (var == nullptr || !var->hasInit())
    refuse(Code::unsupported_construct, loc(e->getBeginLoc()), what + " is not a lambda with a visible body");
  const LambdaExpr* l = lambda_arg(var->getInit(), what);
  // A copy taken where the lambda was written may hold an older value than the
  // variable's at the call, which is what the body would be lowered with.
  // So may a scalar's, when the function assigns it.
  for (const LambdaCapture& c : l->captures()) {
    if (!c.capturesVariable() || c.getCaptureKind() != LCK_ByCopy) continue;
    const auto* captured = dyn_cast<VarDecl>(c.getCapturedVar());
    const bool tensor = is_tensor(captured->getType());
    if (tensor || (scalars_.count(captured) != 0 && changed(captured, false)))
      refuse(Code::unsupported_construct, loc(c.getLocation()),
             what + " captures " + (tensor ? "tensor '" : "scalar '") + captured->getNameAsString() +
                 "' by copy" + (tensor ? "" : ", which the function assigns") +
                 ": capture it by reference, or write the lambda in the call");
  }
  return l;
}

// A lambda's body lowered in place, its parameters bound to args (a tensor's a Pack
// of one); returns what it returns: a tensor, as a Pack of one, or a
// std::vector<tl::Tensor>'s elements. Traced, the body runs once to record its
// region, so it may not change the tensors and counters outside it.
// With `second`, the lambda returns a pair (tl::scan's function: each a tensor or a
// std::vector<tl::Tensor>), whose second's elements go there.
Lowerer::Pack Lowerer::lambda_body(const LambdaExpr* l, const std::vector<Pack>& args, Block& out,
                                   const std::string& what, Pack* second) {
  const CXXMethodDecl* fn = l->getCallOperator();
  // tl::scan's function returns a pair, whose first is a std::vector<tl::Tensor> where
  // that is what it carries.
  const bool returns_pack = second != nullptr
                                ? fn->getNumParams() > 0 && is_tensor_list(fn->getParamDecl(0)->getType())
                                : is_tensor_list(fn->getReturnType());
  if (second == nullptr && !is_tensor(fn->getReturnType()) && !returns_pack)
    refuse(Code::unsupported_construct, loc(l->getBeginLoc()),
           what + " returns " + fn->getReturnType().getAsString() +
               "; tlaloc-grad writes these with a tl::Tensor or a std::vector<tl::Tensor> carried");
  if (fn->getNumParams() != args.size())
    refuse(Code::unsupported_construct, loc(l->getBeginLoc()),
           what + " takes " + std::to_string(fn->getNumParams()) + " parameters, not " +
               std::to_string(args.size()));
  const auto saved = tensors_;
  const auto saved_packs = packs_;
  const auto saved_renamed = renamed_;
  for (unsigned i = 0; i < fn->getNumParams(); ++i) {
    const ParmVarDecl* pd = fn->getParamDecl(i);
    if (is_tensor_list(pd->getType()))
      packs_[pd] = args[i];
    else if (is_tensor(pd->getType()) && args[i].size() == 1)
      tensors_[pd] = args[i][0];
    else
      refuse(Code::unsupported_construct, loc(pd->getLocation()),
             what + "'s parameter '" + pd->getNameAsString() + "' is not a tl::Tensor");
  }
  inlining_.push_back(fn);
  Node* const outer = loop_;
  loop_ = nullptr;
  // A lambda called directly runs inline; one passed to a tl:: function is its region.
  const std::string outer_region = region_;
  if (what.rfind("tl::", 0) == 0) region_ = what;
  // Its body may not change the scalars outside it either (lower_scalars.cpp).
  std::set<const VarDecl*> outside;
  for (const auto& kv : scalars_) outside.insert(kv.first);
  std::swap(outside, outside_lambda_);
  Pack* const pair = std::exchange(pair_second_, second);
  Pack returned;
  Pack* const outer_return = std::exchange(pack_return_, returns_pack ? &returned : nullptr);
  // The lambda may be written outside every body walked so far (at namespace scope).
  refuse_nested_transforms(fn->getBody());
  const auto r = block(statements(fn->getBody()), 0, out);
  pack_return_ = outer_return;
  pair_second_ = pair;
  loop_ = outer;
  region_ = outer_region;
  std::swap(outside, outside_lambda_);
  inlining_.pop_back();
  for (const auto& [var, v] : saved)
    if (tensors_.at(var) != v)
      refuse(Code::unsupported_construct, loc(l->getBeginLoc()),
             what + " assigns '" + var->getNameAsString() + "', a tensor from outside it: return it instead");
  tensors_ = saved;
  packs_ = saved_packs;
  renamed_ = saved_renamed;
  if (!r) refuse(Code::unsupported_construct, loc(fn->getEndLoc()), what + " ends without returning");
  return returns_pack ? returned : Pack{*r};
}

// tl::scan anywhere in s, used in a way the lowering does not follow: refused by name.
void Lowerer::refuse_scan_in(const Stmt* s) {
  if (s == nullptr) return;
  if (const auto* c = dyn_cast<CallExpr>(s);
      c && c->getDirectCallee() && c->getDirectCallee()->getQualifiedNameAsString() == "tlaloc::scan")
    refuse(
        Code::unsupported_construct, loc(c->getBeginLoc()),
        "tl::scan's result used other than as `auto [carry, ys] = tl::scan(...)` or its .first or .second");
  for (const Stmt* child : s->children()) refuse_scan_in(child);
}

// A transform called in a body the tool lowers (`tl::grad(g)(x)` inside the function
// differentiated, or inside a function it calls): refused by name, as the tool writes
// no nesting but tl::hessian's and tl::jvp(tl::grad(f), x, t)'s (rewrite.cpp).
void Lowerer::refuse_nested_transforms(const Stmt* s) {
  if (s == nullptr) return;
  if (const auto* c = dyn_cast<CallExpr>(s); c && c->getDirectCallee())
    if (const std::string t = transform_name(*c->getDirectCallee()); !t.empty())
      refuse(Code::unsupported_construct, loc(c->getBeginLoc()),
             "tl::" + t +
                 " inside a function tlaloc-grad differentiates: it writes no nested transforms but "
                 "tl::hessian and tl::jvp(tl::grad(f), x, t); compute it outside, or leave the outer "
                 "transform to trace at run time "
                 "(docs/BUILD_TIME_GRADIENTS.md, \"Refusals\")");
  for (const Stmt* child : s->children()) refuse_nested_transforms(child);
}

// A call of a lambda the function defines: its body lowered in place.
ValueId Lowerer::lambda_call(const CXXOperatorCallExpr* e, Block& out) {
  const std::string what = "the lambda '" + text(e->getArg(0)) + "'";
  const LambdaExpr* l = lambda_arg(e->getArg(0), what);
  const std::vector<Pack> args = object_call_arguments(e, out, what, true);
  if (is_tensor_list(l->getCallOperator()->getReturnType()))
    refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
           what +
               " returns a std::vector<tl::Tensor>: tlaloc-grad follows those as a tl:: loop's or "
               "tl::cond's state");
  return lambda_body(l, args, out, what)[0];
}

// A std::function member called (tl::nn::MLP's activation): the lambda it was made
// from, inlined. That is known where the object is a const variable whose initializer
// gives the member a lambda, or leaves it the lambda of its class's default. The
// lambda captures nothing: the differentiated function could not see what it holds.
ValueId Lowerer::function_call(const CXXOperatorCallExpr* e, Block& out) {
  const auto* member = dyn_cast<MemberExpr>(strip(e->getArg(0)));
  const auto* field = member != nullptr ? dyn_cast<FieldDecl>(member->getMemberDecl()) : nullptr;
  const bool of_this = field != nullptr && isa<CXXThisExpr>(strip(member->getBase()));
  const VarDecl* object = of_this ? object_.decl : nullptr;
  if (const auto* ref = field != nullptr ? dyn_cast<DeclRefExpr>(strip(member->getBase())) : nullptr)
    object = dyn_cast<VarDecl>(ref->getDecl());
  const std::string what = "the std::function '" +
                           (field != nullptr ? field->getNameAsString() : raw(e->getArg(0))) + "'" +
                           (of_this ? " of '" + object_.name + "'" : "");
  const auto* list = object != nullptr && object->getType().isConstQualified() && object->hasInit()
                         ? dyn_cast<InitListExpr>(strip(object->getInit()))
                         : nullptr;
  // A refusal inside an inlined member function names the user's call of it.
  if (list == nullptr || field->getFieldIndex() >= list->getNumInits())
    refuse(Code::unsupported_construct, loc(of_this ? object_.at : e->getBeginLoc()),
           what + ": tlaloc-grad inlines the lambda such a member was given where the object is a const " +
               "variable initialized in braces in the file (`const tl::nn::MLP mlp{...};`)");
  const Expr* init = list->getInit(field->getFieldIndex());
  if (isa<CXXDefaultInitExpr>(strip(init))) init = field->getInClassInitializer();
  const LambdaExpr* l = lambda_arg(init, what);
  if (l->capture_size() != 0)
    refuse(Code::unsupported_construct, loc(l->getBeginLoc()),
           what + " is a lambda with captures: tlaloc-grad inlines those that capture nothing");
  const std::vector<Pack> args = object_call_arguments(e, out, what, true);
  return lambda_body(l, args, out, what)[0];
}

const ParmVarDecl* Lowerer::parameter(const LambdaExpr* l, unsigned i, unsigned count,
                                      const std::string& what) {
  const CXXMethodDecl* fn = l->getCallOperator();
  if (fn->getNumParams() != count)
    refuse(
        Code::unsupported_construct, loc(l->getBeginLoc()),
        what + " takes " + std::to_string(fn->getNumParams()) + " parameters, not " + std::to_string(count));
  return fn->getParamDecl(i);
}

// tl::cond(pred, on_true, on_false). A condition the trace knows (it depends on no
// parameter) only picks a branch there, as C++'s if does.
Lowerer::Pack Lowerer::cond_call(const CallExpr* e, Block& out) {
  const LambdaExpr* on_true = lambda_arg(e->getArg(1), "tl::cond's on_true");
  const LambdaExpr* on_false = lambda_arg(e->getArg(2), "tl::cond's on_false");
  const ValueId pred = expr(e->getArg(0), out);
  Node s = branch(e->getBeginLoc(), p_.values[std::size_t(pred)].name + ".item<bool>()");
  if (traced(pred)) s.structured = "tl::cond";
  ++structured_;
  const Pack a = lambda_body(on_true, {}, s.body, "tl::cond's on_true");
  const Pack b = lambda_body(on_false, {}, s.orelse, "tl::cond's on_false");
  --structured_;
  check_state(b, a, e, "tl::cond's on_false");
  Pack joined;
  for (std::size_t k = 0; k < a.size(); ++k) joined.push_back(joined_value(s, "cond", a[k], b[k]));
  out.push_back(std::move(s));
  return joined;
}

Node Lowerer::structured_loop(const CallExpr* e, const char* fn) {
  Node s;
  s.kind = Node::Kind::loop;
  s.loc = loc(e->getBeginLoc());
  s.id = next_id_++;
  s.structured = fn;
  return s;
}

// tl::fori_loop(lo, hi, body, init): carry = body(i, carry) for i in [lo, hi).
Lowerer::Pack Lowerer::fori_call(const CallExpr* e, Block& out) {
  const std::string what = "tl::fori_loop's body";
  const LambdaExpr* fn = lambda_arg(e->getArg(2), what);
  const ParmVarDecl* index = parameter(fn, 0, 2, what);
  const ParmVarDecl* carry = parameter(fn, 1, 2, what);
  const Pack init = state(e->getArg(3), out);
  Node s = structured_loop(e, "tl::fori_loop");
  const std::string i = unique("step_" + std::to_string(s.id));
  s.init = "std::int64_t " + i + " = " + text(e->getArg(0));
  s.text = i + " < " + text(e->getArg(1));
  s.step = "++" + i;
  const Pack after = carry_through(s, carried_state(carry, init), [&](Block& body) {
    const ValueId at = op(body, e, {}, {}, "tl::scalar_tensor(" + i + ", tl::DType::i64)");
    body.back().source = "the step index";
    if (!index->getName().empty()) {
      names_.erase(p_.values[std::size_t(at)].name);
      p_.values[std::size_t(at)].name = claim(index->getNameAsString());
    }
    const Pack end = lambda_body(fn, {{at}, current_state(carry)}, body, what);
    check_state(end, init, e, what);
    return end;
  });
  out.push_back(std::move(s));
  return after;
}

const CallExpr* Lowerer::scan_of(const Expr* e) {
  if (e == nullptr) return nullptr;
  const auto* c = dyn_cast<CallExpr>(strip(e));
  const FunctionDecl* fd = c ? c->getDirectCallee() : nullptr;
  return fd && fd->getQualifiedNameAsString() == "tlaloc::scan" ? c : nullptr;
}

// `return std::pair{carry, y};` (or std::make_pair, or a braced list) in tl::scan's
// function: the carry is returned, y goes to pair_second_; either may be a
// std::vector<tl::Tensor> (a Pack). Braces evaluate left to right; a call's arguments
// in the compiler's order.
ValueId Lowerer::pair_return(const Expr* e, Block& out) {
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
             call && call->getDirectCallee() &&
             call->getDirectCallee()->getQualifiedNameAsString() == "std::make_pair") {
    parts.assign(call->arg_begin(), call->arg_end());
  }
  // A std::vector<tl::Tensor> carried is returned as the pair's first (a braced list).
  const bool listed = pack_return_ != nullptr;
  const auto fits = [](const Expr* part) {
    return is_tensor(part->getType()) || is_tensor_list(part->getType());
  };
  if (parts.size() != 2 || !fits(parts[0]) || listed != is_tensor_list(parts[0]->getType()) ||
      !fits(parts[1]))
    refuse(Code::unsupported_construct, loc(e->getBeginLoc()),
           "tl::scan's function returns '" + raw(e) + "'; write the pair in the return: std::pair{carry, y}");
  Pack v[2];
  for (std::size_t k = 0; k < 2; ++k) {
    const std::size_t i = !in_order && right_to_left_ ? 1 - k : k;
    v[i] = is_tensor_list(parts[i]->getType()) ? pack(parts[i], out) : Pack{expr(parts[i], out)};
  }
  if (listed) *pack_return_ = v[0];
  Pack* const second = pair_second_;
  *second = v[1];
  return v[0].front();
}

// tl::scan(f, init, xs, reverse): for each slice x of xs along axis 0 (last first if
// reverse), (carry, y) = f(carry, x); returns the carry and the ys stacked. xs is a
// tl::Tensor or a std::vector<tl::Tensor> of sequences sharing their leading axis
// (a Pack), whose slices the function takes as a std::vector.
std::pair<Lowerer::Pack, Lowerer::Pack> Lowerer::scan_call(const CallExpr* e, Block& out) {
  const std::string what = "tl::scan's function";
  const LambdaExpr* fn = lambda_arg(e->getArg(0), what);
  const ParmVarDecl* carry = parameter(fn, 0, 2, what);
  const ParmVarDecl* slice = parameter(fn, 1, 2, what);
  const bool listed = is_tensor_list(e->getArg(2)->getType());
  for (const ParmVarDecl* pd : {carry, slice})
    if (!is_tensor(pd->getType()) && !is_tensor_list(pd->getType()))
      refuse(Code::unsupported_construct, loc(pd->getBeginLoc()),
             what + " takes '" + pd->getType().getAsString() +
                 "': tlaloc-grad writes scans whose function takes its carry and its slices each as a "
                 "tl::Tensor or a std::vector<tl::Tensor>");
  Pack init, xs;
  // (pack refuses an empty list: `std::vector<tl::Tensor>{}` is no braced list of tensors)
  const auto sequences = [&] { xs = listed ? pack(e->getArg(2), out) : Pack{expr(e->getArg(2), out)}; };
  if (right_to_left_) {
    sequences();
    init = state(e->getArg(1), out);
  } else {
    init = state(e->getArg(1), out);
    sequences();
  }
  Node s = structured_loop(e, "tl::scan");
  const std::string id = std::to_string(s.id);
  const std::string reverse =
      e->getNumArgs() > 3 && !isa<CXXDefaultArgExpr>(e->getArg(3)) ? text(e->getArg(3)) : "false";
  const std::string step = unique("step_" + id);
  s.count = unique("length_" + id);
  s.index = unique("at_" + id);
  s.init = "std::int64_t " + step + " = 0";
  s.text = step + " < " + s.count;
  s.step = "++" + step;
  s.scalars.push_back({step, "std::int64_t"});
  s.xs = xs;
  const std::string seq = p_.values[std::size_t(xs[0])].name, line = std::to_string(s.loc.line);
  scalar(out, e->getBeginLoc(),
         "const std::int64_t " + s.count + " = " + seq + ".rank() > 0 ? " + seq + ".shape()[0] : 0;");
  for (std::size_t k = 1; k < xs.size(); ++k) {
    if (xs[k] == xs[0]) continue;
    const std::string other = p_.values[std::size_t(xs[k])].name;
    scalar(out, e->getBeginLoc(),
           "if (" + other + ".rank() == 0 || " + other + ".shape()[0] != " + s.count +
               ") throw tl::ShapeError(\"tlaloc-grad: tl::scan at line " + line +
               ": its sequences must share a leading axis, got \" + tl::shape_string(" + seq +
               ".shape()) + \" and \" + tl::shape_string(" + other + ".shape()));");
  }
  scalar(out, e->getBeginLoc(),
         "if (" + s.count + " == 0) throw tl::ValueError(\"tlaloc-grad: tl::scan at line " + line +
             " needs a sequence with at least one step along axis 0\");");
  Pack y;
  const Pack after = carry_through(s, carried_state(carry, init), [&](Block& body) {
    const std::string last_first = s.count + " - 1 - " + step;
    scalar(body, e->getBeginLoc(),
           "const std::int64_t " + s.index + " = " +
               (reverse == "false"  ? step
                : reverse == "true" ? last_first
                                    : reverse + " ? " + last_first + " : " + step) +
               ";");
    const std::string named = slice->getName().empty() ? "x_" + id : slice->getNameAsString();
    s.x.clear();  // the body may be lowered again, once its carried values are known
    for (std::size_t k = 0; k < xs.size(); ++k) {
      const ValueId x = op(body, e, "scan_slice", {{xs[k], {}}}, s.index);
      body.back().source =
          "the step's slice of " + (listed ? p_.values[std::size_t(xs[k])].name : raw(e->getArg(2)));
      names_.erase(p_.values[std::size_t(x)].name);
      p_.values[std::size_t(x)].name = claim(listed ? named + "_" + std::to_string(k) : named);
      s.x.push_back(x);
    }
    const Pack end = lambda_body(fn, {current_state(carry), s.x}, body, what, &y);
    check_state(end, init, e, what);
    return end;
  });
  s.y = y;
  for (ValueId step_y : y) s.ys.push_back(p_.add_value(unique("ys"), active(step_y), traced(step_y)));
  const Pack ys = s.ys;
  out.push_back(std::move(s));
  return {after, ys};
}

// tl::while_loop(cond, body, init): its condition is computed at the start of each
// iteration from the carried value (the loop's head), and differentiated nowhere.
Lowerer::Pack Lowerer::while_call(const CallExpr* e, Block& out) {
  const std::string what = "tl::while_loop's body";
  const LambdaExpr* cond = lambda_arg(e->getArg(0), "tl::while_loop's condition");
  const LambdaExpr* fn = lambda_arg(e->getArg(1), what);
  const ParmVarDecl* carry = parameter(fn, 0, 1, what);
  const Pack init = state(e->getArg(2), out);
  Node s = structured_loop(e, "tl::while_loop");
  const Pack after = carry_through(s, carried_state(carry, init), [&](Block& body) {
    const Pack end = lambda_body(fn, {current_state(carry)}, body, what);
    check_state(end, init, e, what);
    return end;
  });
  Pack in;
  for (const Phi& ph : s.phis) in.push_back(ph.in);
  ++structured_;
  in_head_ = true;
  const ValueId pred = lambda_body(cond, {is_tensor_list(carry->getType()) ? in : Pack{in[0]}}, s.head,
                                   "tl::while_loop's condition")[0];
  in_head_ = false;
  --structured_;
  s.text = p_.values[std::size_t(pred)].name + ".item<bool>()";
  out.push_back(std::move(s));
  return after;
}

}  // namespace tlaloc_grad
