// Rules of the ops that move data without arithmetic: layout, joins, slices and
// indexing. Each is linear, so its forward rule is the op applied to the tangents,
// and each cotangent is the op's transpose, as the engine's rules write it (most
// pairs are each other's transposes: take and index_add, slice and slice_backward).
#include <algorithm>

#include "rules_text.hpp"
#include "shapes.hpp"

namespace tlaloc_grad {
namespace {

using Tangents = std::vector<std::string>;

// ---- layout -------------------------------------------------------------------

// ---- pad: the library's pad_backward, whose own transpose is pad ----------------

// pad(x, widths, mode, value): x's share is the library's transpose of the pad (the
// value gets none, as it is a scalar).
std::string pad_vjp(const Rule&, std::size_t i, const Names& n) {
  if (i != 0) return "";
  std::vector<std::string> args{n.g, shape_of(n.args[0]), n.args[1]};
  if (n.args.size() > 2) args.push_back(n.args[2]);
  return call("pad_backward", args);
}
// In edge mode (or a mode known only at run time) the engine adds the border's shares
// to x's cotangent one at a time, after the shares x already has: pad_backward takes
// those as its so_far.
std::string pad_with_so_far(const Rule& r, std::size_t i, const Names& n, const std::string& so_far) {
  // The mode as written: tl::PadMode::constant spelled out, or else known only at run time.
  const std::string mode = n.args.size() > 2 ? n.args[2] : "";
  const bool constant =
      mode.empty() || (mode.ends_with("PadMode::constant") &&
                       mode.find_first_not_of("abcdefghijklmnopqrstuvwxyzPM_:") == std::string::npos);
  if (i != 0 || constant) return "";
  std::string share = pad_vjp(r, i, n);
  share.insert(share.size() - 1, ", " + so_far);
  return share;
}
// pad_backward(g, shape, widths, mode, so_far) is linear in g and so_far: pad (with
// zeros, or edge mode's copies) is g's transpose, and so_far's share is the cotangent.
std::string pad_backward_vjp(const Rule&, std::size_t i, const Names& n) {
  if (i == 4) return n.g;
  if (i != 0) return "";
  std::vector<std::string> args{n.g, n.args[2]};
  if (n.args.size() > 3) args.push_back(n.args[3]);
  return call("pad", args);
}
// Its tangent: the same call on the tangents, where so_far's tangent is absent
// (not zeros, which would turn a -0 into +0), or so_far's tangent alone.
std::string pad_backward_jvp(const Rule& r, const Names& n, const Tangents& t) {
  if (t[0].empty()) return t.size() > 4 ? t[4] : "";
  std::vector<std::string> args = n.args;
  args[0] = t[0];
  if (args.size() > 4 && t[4].empty()) args.pop_back();
  if (args.size() > 4) args[4] = t[4];
  return call(r.name, args);
}

// ---- concat and stack: the listed tensors first, then the axis -----------------

std::size_t listed(const Names& n) { return std::size_t(std::count(n.tensor.begin(), n.tensor.end(), true)); }
std::string join_axis(const Names& n) { return n.args.size() > listed(n) ? n.args[listed(n)] : "0"; }
// `tl::concat({a, b}, axis)` with the listed tensors replaced by `items`.
std::string spell_joined(const Rule& r, const Names& n, const std::vector<std::string>& items) {
  std::vector<std::string> args{braced(items)};
  args.insert(args.end(), n.args.begin() + std::ptrdiff_t(listed(n)), n.args.end());
  return call(r.name, args);
}
// t's extent along axis `a` (C++ text, negative counting from the end).
std::string axis_extent(const std::string& t, const std::string& a) {
  const auto literal = int_literal(a);
  if (literal && *literal >= 0) return t + ".shape()[" + a + "]";
  if (literal && *literal == -1) return t + ".shape().back()";
  return t + ".size(" + a + ")";
}
// Tensor i's extent along the concatenated axis.
std::string extent(const Names& n, std::size_t i) { return axis_extent(n.args[i], join_axis(n)); }
// The engine's concatenate rule: each tensor's slice of the cotangent along the axis,
// converted back to the tensor's dtype (the public concat promotes the tensors first;
// astype returns the slice itself where they agree).
std::string concat_vjp(const Rule&, std::size_t i, const Names& n) {
  std::string start = "0";
  for (std::size_t j = 0; j < i; ++j) start = j == 0 ? extent(n, 0) : start + " + " + extent(n, j);
  const std::string stop = i == 0 ? extent(n, 0) : start + " + " + extent(n, i);
  return in_dtype_of(call("slice", {n.g, join_axis(n), start, stop}), n.args[i]);
}
// stack expands each tensor's dims, then concatenates: the slice reshaped back.
std::string stack_vjp(const Rule&, std::size_t i, const Names& n) {
  const std::string slice = call("slice", {n.g, join_axis(n), std::to_string(i), std::to_string(i + 1)});
  return in_dtype_of(call("reshape", {slice, shape_of(n.args[i])}), n.args[i]);
}
// Linear in every tensor: the tangents joined, zeros where a tensor has none.
std::string joined_jvp(const Rule& r, const Names& n, const Tangents& t) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < listed(n); ++i)
    items.push_back(t[i].empty() ? call("zeros_like", {n.args[i]}) : t[i]);
  return spell_joined(r, n, items);
}

// The operand's cotangent only (operand 0), as `share` writes it from the names.
template <class Share>
Rule moved(const char* name, Share share) {
  Rule r{name, spell_call};
  r.vjp = share;
  r.jvp = linear_jvp;
  return r;
}

}  // namespace

void add_layout_rules(RuleTable& t) {
  const auto add = [&t](Rule r) { t.emplace(r.name, std::move(r)); };
  // pad is linear in x: the tangent is padded alike, with zeros.
  Rule padded = moved("pad", pad_vjp);
  padded.jvp = [](const Rule& r, const Names& n, const Tangents& tg) {
    std::vector<std::string> args{tg[0], n.args[1]};
    if (n.args.size() > 2) args.push_back(n.args[2]);
    return call(r.name, args);
  };
  padded.with_so_far = pad_with_so_far;
  add(std::move(padded));
  Rule unpadded = moved("pad_backward", pad_backward_vjp);
  unpadded.jvp = pad_backward_jvp;
  add(std::move(unpadded));
  for (const char* join : {"concat", "stack"}) {
    Rule r{join, [](const Rule& u, const Names& n) {
             return spell_joined(
                 u, n, std::vector<std::string>(n.args.begin(), n.args.begin() + std::ptrdiff_t(listed(n))));
           }};
    r.vjp = std::string(join) == "concat" ? concat_vjp : stack_vjp;
    r.jvp = joined_jvp;
    add(std::move(r));
  }
  // take_along_axis(x, indices, axis): the engine's rule, the scatter_add of the
  // cotangent into zeros. The library's take_along_axis broadcasts x and the indices against each other
  // off the axis first; the rule is for the case without that broadcast (the common
  // one: indices [n, 1] into [n, c]), and the generated code checks it.
  Rule along = moved("take_along_axis", [](const Rule&, std::size_t i, const Names& n) {
    return i == 0 ? call("scatter_add", {call("zeros_like", {n.args[0]}), n.args[1], n.g, n.args[2]}) : "";
  });
  along.check = [](const Names& n) {
    const std::string &x = n.args[0], &a = n.args[2];
    const auto off_axis = [&](const std::string& t) {
      return t + ".numel() / std::max<std::int64_t>(1, " + axis_extent(t, a) + ")";
    };
    return "if (" + n.args[1] + ".shape() != " + n.y + ".shape() || " + off_axis(x) + " != " + off_axis(n.y) +
           ") throw tl::ShapeError(\"tlaloc-grad: this gradient's take_along_axis takes indices that match x "
           "off the "
           "axis (no broadcasting), got x \" + tl::shape_string(" +
           x +
           ".shape()) + \" and indices \" + "
           "tl::shape_string(" +
           n.args[1] + ".shape()));";
  };
  add(std::move(along));
}

}  // namespace tlaloc_grad
