// The engine's forward mode, run at build time one op at a time. The op is recorded on
// values whose types are known only at run time (src/ops/like.cpp), tl::ad::JvpPass
// steps over it, calling its JVP rule, which records each public op it calls, and
// the recording is written back as one C++ expression over the generated function's
// names. So the tool writes what the engine computes, op for op, from the rule itself
// rather than from a copy of it.
#include "engine_rules.hpp"

#include <map>
#include <stdexcept>

#include "ad/modes.hpp"
#include "core/tensor_impl.hpp"
#include "engine_lowering.hpp"
#include "engine_writer.hpp"
#include "ir/builder.hpp"
#include "ops/like.hpp"
#include "ops/rule.hpp"

namespace tlaloc_grad {
namespace {

namespace tl = tlaloc;
namespace ir = tl::ir;
using tl::Tensor;
using tl::detail::OpDef;

// The operands of one op, as values of unknown type named by the generated
// function's text.
struct Call {
  ir::Function f;
  std::vector<Tensor> in;
  std::map<ir::ValueId, Expr> names;
  std::map<ir::ValueId, Kind> kinds;
  std::map<ir::ValueId, std::pair<std::string, ir::ValueId>> scalars;  // a scalar operand and its partner
};

// Operand k's type class: the result's where every other operand is a scalar (which
// takes the tensor's type), else its own. A tangent has its operand's.
int class_of(const Names& n, std::size_t k) {
  std::size_t tensors = 0;
  for (bool t : n.tensor) tensors += t ? 1 : 0;
  return tensors == 1 ? 0 : int(k) + 1;
}

void name_values(Call& c, ir::Builder& b, const Names& n) {
  const auto param = [&](const std::string& text, int cls) {
    Tensor t = b.param(tl::detail::unknown_type());
    const ir::ValueId v = b.value_of(t);
    c.names[v] = Expr::text(text);
    c.kinds[v] = of_class(cls);
    return t;
  };
  for (std::size_t k = 0; k < n.args.size(); ++k)
    c.in.push_back(n.tensor[k] ? param(n.args[k], class_of(n, k)) : b.param(tl::detail::unknown_type()));
  // A scalar sits beside the one tensor operand (elementwise ops take one or two), and
  // takes its dtype, the result's.
  for (std::size_t k = 0; k < n.args.size(); ++k)
    for (std::size_t j = 0; j < n.args.size() && !n.tensor[k]; ++j)
      if (n.tensor[j]) {
        c.scalars[b.value_of(c.in[k])] = {n.args[k], b.value_of(c.in[j])};
        c.kinds[b.value_of(c.in[k])] = scalar_of_class(0);
      }
}

}  // namespace

tl::detail::Attrs called_attributes(const OpDef& def, const std::vector<tl::detail::AttrValue>& arguments) {
  const OpDef::PublicCall& pc = def.public_call();
  if (arguments.size() > pc.attributes.size())
    throw std::invalid_argument("tl::" + pc.names.at(0) + " with more arguments than " + def.name() + " has");
  tl::detail::Attrs attrs = pc.defaults;
  for (std::size_t k = 0; k < arguments.size(); ++k) attrs.set(pc.attributes[k], arguments[k]);
  return attrs;
}

Tensor record_called(const OpDef& def, std::vector<Tensor> in, const std::vector<std::string>& written) {
  std::vector<tl::detail::AttrValue> arguments;
  for (const std::string& text : written) arguments.emplace_back(tl::detail::Written{text});
  const tl::detail::Attrs attrs = called_attributes(def, arguments);
  for (const auto& [i, j] : def.public_call().converted)
    in.at(i) = tl::detail::astype_like(in.at(i), in.at(j));
  return tl::detail::call1(def, in, attrs);
}

const OpDef& elementwise_op(const Rule& r) {
  if (!engine_elementwise(r)) throw std::logic_error("no elementwise registry op for " + r.name);
  return *r.op;
}

std::string engine_tangent(const Rule& r, const Names& n, const std::vector<std::string>& t) {
  // f: the op on parameters standing for its arguments; an elementwise op records its
  // registry op (a scalar a parameter beside its tensor), any other the op its
  // function records.
  Call c;
  ir::Builder b(c.f);
  name_values(c, b, n);
  std::vector<Tensor> tensors;
  for (std::size_t k = 0; k < n.args.size(); ++k)
    if (n.tensor[k]) tensors.push_back(c.in[k]);
  std::vector<std::string> written;
  for (std::size_t k = 0; k < n.args.size(); ++k)
    if (!n.tensor[k]) written.push_back(n.args[k]);
  const Tensor y = engine_elementwise(r) ? tl::detail::call1(elementwise_op(r), c.in)
                                         : record_called(*r.op, tensors, written);
  // g: the engine's forward mode of f, each parameter and the tangents given named as
  // the generated function names them, the op's result as its result.
  ir::Function g;
  ir::Builder bg(g);
  tl::ad::JvpPass pass(c.f, bg);
  std::map<ir::ValueId, Expr> names;
  std::map<ir::ValueId, Kind> kinds;
  std::map<ir::ValueId, std::pair<std::string, ir::ValueId>> scalars;
  for (const ir::ValueId v : c.f.body.args) pass.rp.primal[v] = bg.param(tl::detail::unknown_type());
  const auto in_g = [&](ir::ValueId v) { return bg.value_of(pass.rp.primal.at(v)); };
  for (const auto& [v, name] : c.names) names[in_g(v)] = name;
  for (const auto& [v, kind] : c.kinds) kinds[in_g(v)] = kind;
  for (const auto& [v, s] : c.scalars) scalars[in_g(v)] = {s.first, in_g(s.second)};
  for (std::size_t k = 0; k < n.args.size(); ++k) {
    if (!n.tensor[k] || t[k].empty()) continue;
    const Tensor tangent = bg.param(tl::detail::unknown_type());
    names[bg.value_of(tangent)] = Expr::text(t[k]);
    kinds[bg.value_of(tangent)] = of_class(class_of(n, k));
    pass.tangent[b.value_of(c.in[k])] = tangent;
  }
  for (const ir::Op& op : c.f.body.ops) pass.step(op);
  names[bg.value_of(pass.rp.at(b.value_of(y)))] = Expr::text(n.y);
  kinds[bg.value_of(pass.rp.at(b.value_of(y)))] = of_class(0);
  const Tensor dy = pass.tangent_of(b.value_of(y));
  if (!dy.defined()) return std::string();
  Recording w(g, names, kinds, scalars, n.y);
  return w.write(bg.value_of(dy)).str();
}

}  // namespace tlaloc_grad
