// The structured control-flow front end (include/tlaloc/control.hpp): outside a
// trace the C++ runs directly; inside one, each construct becomes one op with
// regions, traced by the innermost builder.
#include <fmt/format.h>

#include <algorithm>

#include "core/check.hpp"
#include "ir/builder.hpp"
#include "tlaloc/control.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

const OpDef& registry_op(std::string_view name) {
  const OpDef* op = find_op(name);
  if (op == nullptr) throw Error(fmt::format("the op registry has no '{}'", name));
  return *op;
}

std::string types_string(std::span<const Tensor> ts) {
  std::vector<std::string> s;
  for (const Tensor& t : ts) s.push_back(fmt::format("{}{}", dtype_name(t.dtype()), shape_string(t.shape())));
  return fmt::format("({})", fmt::join(s, ", "));
}

std::vector<TensorType> types_of(std::span<const Tensor> ts) {
  std::vector<TensorType> t;
  for (const Tensor& x : ts) t.push_back(type_of(x));
  return t;
}

void check_same(std::string_view op, std::string_view what, std::span<const Tensor> got,
                std::span<const TensorType> want) {
  bool same = got.size() == want.size();
  for (std::size_t i = 0; same && i < got.size(); ++i) same = type_of(got[i]) == want[i];
  if (!same) {
    std::vector<std::string> w;
    for (const TensorType& t : want) w.push_back(fmt::format("{}{}", dtype_name(t.dtype), shape_string(t.shape)));
    fail<ShapeError>(op, "{} {} where {} was expected", what, types_string(got), fmt::format("({})", fmt::join(w, ", ")));
  }
}

void check_predicate(std::string_view op, const Tensor& p) {
  if (p.dtype() != DType::boolean || p.rank() != 0)
    fail<DTypeError>(op, "the condition must be a bool scalar, got {}{}", dtype_name(p.dtype()),
                     shape_string(p.shape()));
}

bool host_bool(const Tensor& p) { return p.item<bool>(); }

Tensor slice_at(const Tensor& x, std::int64_t i) {
  return reshape(slice(x, 0, i, i + 1), Shape(x.shape().begin() + 1, x.shape().end()));
}

}  // namespace

Values cond_values(const Tensor& pred, const std::function<Values()>& on_true, const std::function<Values()>& on_false) {
  check_predicate("cond", pred);
  ir::Builder* b = ir::current_builder();
  if (b == nullptr || !pred.is_symbolic()) return host_bool(pred) ? on_true() : on_false();
  Values t_out;
  ir::Region rt = b->region({}, [&](std::span<const Tensor>) { return t_out = on_true(); });
  Values f_out;
  ir::Region rf = b->region({}, [&](std::span<const Tensor>) { return f_out = on_false(); });
  const std::vector<TensorType> types = types_of(t_out);
  check_same("cond", "the false branch returns", f_out, types);
  std::vector<ir::Region> regions;
  regions.push_back(std::move(rt));
  regions.push_back(std::move(rf));
  const Tensor in[] = {pred};
  return b->record(registry_op("if"), in, {}, types, std::move(regions));
}

Values while_values(const std::function<Tensor(const Values&)>& cond, const std::function<Values(const Values&)>& body,
                    Values init) {
  ir::Builder* b = ir::current_builder();
  if (b == nullptr) {
    for (;;) {
      const Tensor p = cond(init);
      check_predicate("while_loop", p);
      if (!host_bool(p)) return init;
      Values next = body(init);
      check_same("while_loop", "the body returns", next, types_of(init));
      init = std::move(next);
    }
  }
  const std::vector<TensorType> types = types_of(init);
  std::vector<ir::Region> regions;
  regions.push_back(b->region(types, [&](std::span<const Tensor> a) {
    const Tensor p = cond(Values(a.begin(), a.end()));
    check_predicate("while_loop", p);
    return Values{p};
  }));
  regions.push_back(b->region(types, [&](std::span<const Tensor> a) {
    Values next = body(Values(a.begin(), a.end()));
    check_same("while_loop", "the body returns", next, types);
    return next;
  }));
  return b->record(registry_op("while"), init, {}, types, std::move(regions));
}

Values scan_values(const std::function<std::pair<Values, Values>(const Values&, const Values&)>& f, Values init,
                   Values xs, bool reverse) {
  if (xs.empty()) fail<ValueError>("scan", "needs at least one sequence (use fori_loop for a counted loop)");
  for (const Tensor& x : xs)
    if (x.rank() == 0 || x.size(0) != xs[0].size(0))
      fail<ShapeError>("scan", "the sequences {} must share a leading axis", types_string(xs));
  const std::int64_t length = xs[0].size(0);
  ir::Builder* b = ir::current_builder();
  if (b == nullptr) {
    // The ys' types are unknown without running the body once; a trace finds them.
    if (length == 0) fail<ValueError>("scan", "cannot run an empty scan eagerly; call it inside tl::jit");
    std::vector<Values> ys;
    for (std::int64_t step = 0; step < length; ++step) {
      const std::int64_t i = reverse ? length - 1 - step : step;
      Values x;
      for (const Tensor& s : xs) x.push_back(slice_at(s, i));
      auto [carry, y] = f(init, x);
      check_same("scan", "the body returns the carry", carry, types_of(init));
      init = std::move(carry);
      ys.push_back(std::move(y));
    }
    if (reverse) std::reverse(ys.begin(), ys.end());
    Values out = init;
    for (std::size_t k = 0; !ys.empty() && k < ys[0].size(); ++k) {
      Values column;
      for (const Values& y : ys) column.push_back(y[k]);
      out.push_back(stack(column, 0));
    }
    return out;
  }
  std::vector<TensorType> arg_types = types_of(init);
  for (const Tensor& x : xs) arg_types.push_back({x.dtype(), Shape(x.shape().begin() + 1, x.shape().end())});
  const std::size_t nc = init.size();
  Values y_slices;
  ir::Region body = b->region(arg_types, [&](std::span<const Tensor> a) {
    auto [carry, y] = f(Values(a.begin(), a.begin() + std::ptrdiff_t(nc)), Values(a.begin() + std::ptrdiff_t(nc), a.end()));
    check_same("scan", "the body returns the carry", carry, std::span<const TensorType>(arg_types.data(), nc));
    y_slices = y;
    carry.insert(carry.end(), y.begin(), y.end());
    return carry;
  });
  std::vector<TensorType> out_types(arg_types.begin(), arg_types.begin() + std::ptrdiff_t(nc));
  for (const Tensor& y : y_slices) {
    Shape s{length};
    s.insert(s.end(), y.shape().begin(), y.shape().end());
    out_types.push_back({y.dtype(), s});
  }
  Values operands = init;
  operands.insert(operands.end(), xs.begin(), xs.end());
  std::vector<ir::Region> regions;
  regions.push_back(std::move(body));
  const Attrs attrs{{"length", length}, {"num_carry", std::int64_t(nc)}, {"reverse", reverse}};
  return b->record(registry_op("scan"), operands, attrs, out_types, std::move(regions));
}

Values fori_values(std::int64_t lo, std::int64_t hi, const std::function<Values(const Tensor&, const Values&)>& body,
                   Values init) {
  if (ir::current_builder() == nullptr) {
    for (std::int64_t i = lo; i < hi; ++i) {
      Values next = body(scalar_tensor(i, DType::i64), init);
      check_same("fori_loop", "the body returns", next, types_of(init));
      init = std::move(next);
    }
    return init;
  }
  if (hi <= lo) return init;
  const Tensor index = arange(lo, hi, 1, DType::i64);
  return scan_values([&](const Values& c, const Values& x) { return std::pair{body(x[0], c), Values{}}; },
                     std::move(init), {index}, false);
}

}  // namespace tlaloc::detail
