// The recording writer (engine_writer.hpp).
#include "engine_writer.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"

namespace tlaloc_grad {
namespace {

namespace tl = tlaloc;

// A recorded op as its spelling (OpDef::cpp) sees it, its operands holes for the code
// model to fill (Expr::spelled).
class Spelling final : public tl::detail::CppOp {
 public:
  Spelling(const ir::Function& f, const ir::Op& op) : f_(f), op_(op) {
    for (std::size_t i = 0; i < op.operands.size(); ++i) names_.push_back(Expr::hole(i));
  }
  std::size_t num_operands() const override { return op_.operands.size(); }
  const std::string& operand(std::size_t i) const override { return names_.at(i); }
  const tl::detail::TensorType& operand_type(std::size_t i) const override {
    return known(f_.type(op_.operands.at(i)));
  }
  std::size_t num_results() const override { return op_.results.size(); }
  const tl::detail::TensorType& result_type(std::size_t i) const override {
    return known(f_.type(op_.results.at(i)));
  }
  const tl::detail::Attrs& attrs() const override { return op_.attrs; }
  std::size_t num_regions() const override { return op_.regions.size(); }
  std::string lambda(std::size_t) override { return refuse_statements(); }
  const std::string& result(std::size_t) const override { refuse_statements(); }
  void line(const std::string&) override { refuse_statements(); }
  void open(const std::string&) override { refuse_statements(); }
  void close(const std::string&) override { refuse_statements(); }
  void reopen(const std::string&) override { refuse_statements(); }
  std::vector<std::string> region(std::size_t, const std::vector<std::string>&) override {
    refuse_statements();
  }
  std::string fresh(std::string_view) override { refuse_statements(); }

 private:
  // A spelling that reads a type cannot be written before run time.
  const tl::detail::TensorType& known(const tl::detail::TensorType& t) const {
    if (t.unknown)
      throw std::logic_error("the spelling of op '" + op_.name() + "' reads a type known only at run time");
    return t;
  }
  [[noreturn]] std::string refuse_statements() const {
    throw std::logic_error("a rule recorded op '" + op_.name() + "', whose spelling writes statements");
  }
  const ir::Function& f_;
  const ir::Op& op_;
  std::vector<std::string> names_;
};

// A weak scalar's number as C++ text.
Expr literal(const tl::detail::Attrs& attrs) {
  for (const auto& [key, value] : attrs.items()) {
    if (key != "value") continue;
    std::string text;
    if (const auto* d = std::get_if<double>(&value)) text = tl::detail::cpp_double(*d);
    if (const auto* i = std::get_if<std::int64_t>(&value)) text = std::to_string(*i);
    if (const auto* b = std::get_if<bool>(&value)) text = *b ? "true" : "false";
    return Expr::text(text);
  }
  throw std::logic_error("weak_scalar without a value");
}

}  // namespace

Recording::Recording(const ir::Function& f, std::map<ir::ValueId, Expr> names,
                     std::map<ir::ValueId, Kind> kinds,
                     std::map<ir::ValueId, std::pair<std::string, ir::ValueId>> scalars, std::string y,
                     std::map<ir::ValueId, ir::ValueId> alike)
    : f_(f),
      names_(std::move(names)),
      kinds_(std::move(kinds)),
      scalars_(std::move(scalars)),
      y_(std::move(y)),
      alike_(std::move(alike)) {
  update();
}

void Recording::update() {
  for (; seen_ < f_.body.ops.size(); ++seen_) {
    const ir::Op& op = f_.body.ops[seen_];
    for (ir::ValueId v : op.results) made_by_[v] = seen_;
    if (op.results.size() == 1 && !kinds_.count(op.results[0])) kinds_[op.results[0]] = kind_of(op);
  }
}

const ir::Op* Recording::made_by(ir::ValueId v) const {
  const auto it = made_by_.find(v);
  return it == made_by_.end() ? nullptr : &f_.body.ops[it->second];
}

void Recording::retire(ir::ValueId v) {
  names_.erase(v);
  retired_.insert(v);
}

Expr Recording::write(ir::ValueId v) {
  if (const auto it = names_.find(v); it != names_.end()) return it->second;
  return define(v);
}

Expr Recording::define(ir::ValueId v) {
  if (retired_.count(v) != 0)
    throw std::logic_error(fmt::format("value %{} is read after its variable was given another value", v));
  if (const auto it = scalars_.find(v); it != scalars_.end()) {
    const Expr like = y_.empty() ? write(it->second.second) : Expr::text(y_);
    return Expr::call("tl::scalar_tensor", {Expr::text(it->second.first), Expr::member(like, ".dtype()")});
  }
  const ir::Op* made = made_by(v);
  if (made == nullptr) throw std::logic_error(fmt::format("value %{} has no name and no op", v));
  const ir::Op& op = *made;
  if (op.def->is_identity_where_same_type() && same_as_first(op)) return write(op.operands[0]);
  // A prefix operator (`-x`), and a sum of shares written as one.
  const std::string& symbol = op.def->public_call().symbol;
  if (!symbol.empty() && op.operands.size() == 1) return Expr::prefix(symbol, write(op.operands[0]));
  if (symbol == "+" && adds_itself(op.operands[1])) return sum(write(op.operands[0]), op.operands[1]);
  return spelled(op);
}

// The op's spelling with its operands put in.
Expr Recording::spelled(const ir::Op& op) {
  Spelling spelling(f_, op);
  std::vector<Expr> operands;
  for (std::size_t i = 0; i < op.operands.size(); ++i) operands.push_back(side(op, i));
  return Expr::spelled(op.def->cpp_spelling()(spelling), std::move(operands));
}

bool Recording::adds_itself(ir::ValueId v) const {
  const ir::Op* made = made_by(v);
  return made != nullptr && made->def->adds_parts_to_so_far(made->operands.size(), made->attrs);
}

Expr Recording::sum(const Expr& so_far, ir::ValueId share) {
  if (!adds_itself(share)) return Expr::binary("+", so_far, write(share));
  // The share's call given the cotangent so far as its last argument
  // (OpDef::adds_parts_to_so_far).
  return spelled(*made_by(share)).with_last_argument(so_far);
}

// Operand k of op. A number was passed beside a tensor operand of the same call (the
// public overloads taking a Scalar make it a weak_scalar like that operand): it is
// written as the number, which the overload turns into the same rank-0 tensor. So is
// the user's scalar beside a tensor of its partner's type.
Expr Recording::side(const ir::Op& op, std::size_t k) {
  const ir::ValueId v = op.operands[k];
  if (const ir::Op* made = made_by(v); made != nullptr && made->name() == "weak_scalar")
    for (ir::ValueId other : op.operands)
      if (other != v && made->operands[0] == other) return literal(made->attrs);
  if (const auto it = scalars_.find(v); it != scalars_.end() && op.def->is_elementwise() &&
                                        op.operands.size() == 2 &&
                                        same_as(op.operands[1 - k], it->second.second))
    return Expr::text(it->second.first);
  return write(v);
}

// A result's shape and dtype classes, from where its op says they come from
// (`OpDef::type_origin`): an operand's, rank 0 (a shape's class 0), the operands'
// broadcast shape (rank 0 changes none) or common dtype. What is not derived so is a
// class of the value's own.
Kind Recording::kind_of(const ir::Op& op) const {
  // Of what no rule here knows, a shape and a dtype of its own: a class no name has.
  const int own = -1 - int(op.results.at(0));
  Kind k = derived_kind(op, own);
  if (!k.shape) k.shape = own;
  if (!k.dtype) k.dtype = own;
  return k;
}

Kind Recording::derived_kind(const ir::Op& op, int own) const {
  using Origin = tl::detail::OpDef::TypeOrigin;
  const Origin origin = op.def->type_origin(op.attrs);
  const auto operand = [&](std::size_t i) { return kind(op.operands[i]); };
  Kind k;
  if (origin.shape == Origin::kRank0) k.shape = 0;
  if (origin.shape == Origin::kOwn) k.shape = own;
  if (origin.shape >= 0) k.shape = operand(std::size_t(origin.shape)).shape;
  if (origin.shape == Origin::kBroadcast) {
    k.shape = 0;
    for (std::size_t i = 0; i < op.operands.size(); ++i) {
      const std::optional<int> s = operand(i).shape;
      if (!s || (*s != 0 && *k.shape != 0 && *s != *k.shape)) k.shape.reset();
      if (!k.shape) break;
      if (*s != 0) k.shape = s;
    }
  }
  if (origin.dtype == Origin::kOwn) k.dtype = own;
  if (origin.dtype >= 0) k.dtype = operand(std::size_t(origin.dtype)).dtype;
  if (origin.dtype == Origin::kCommon) {
    for (std::size_t i = origin.common_from; i < op.operands.size(); ++i) {
      const std::optional<int> d = operand(i).dtype;
      if (!d || (i > origin.common_from && d != k.dtype)) return {k.shape, std::nullopt};
      k.dtype = d;
    }
  }
  return k;
}

Kind Recording::kind(ir::ValueId v) const {
  if (const auto it = kinds_.find(v); it != kinds_.end()) return it->second;
  if (const auto it = scalars_.find(v); it != scalars_.end()) return {0, kind(it->second.second).dtype};
  if (const auto it = alike_.find(v); it != alike_.end()) return kind(it->second);
  return {};
}

bool Recording::same_as(ir::ValueId a, ir::ValueId b) const {
  const Kind x = kind(a);
  return x.known() && x == kind(b);
}

// Whether op's result has its first operand's type: its shape and its dtype each the
// first operand's, or known to be of the same class (OpDef::type_origin).
bool Recording::same_as_first(const ir::Op& op) const {
  const tl::detail::OpDef::TypeOrigin origin = op.def->type_origin(op.attrs);
  const Kind first = kind(op.operands.at(0));
  const auto same = [&](int from, auto field) {
    if (from == 0) return true;
    if (from < 0) return false;
    const auto of = field(kind(op.operands.at(std::size_t(from))));
    return of.has_value() && of == field(first);
  };
  return same(origin.shape, [](const Kind& k) { return k.shape; }) &&
         same(origin.dtype, [](const Kind& k) { return k.dtype; });
}

}  // namespace tlaloc_grad
