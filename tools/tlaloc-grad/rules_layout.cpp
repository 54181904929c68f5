// Rules of the data-moving functions that do not record one op of their own yet: pad
// (and its transpose pad_backward) and take_along_axis. Each is linear, so its forward
// rule is the function applied to the tangents, and each cotangent is its transpose,
// as the engine's rules write it.
#include <algorithm>

#include "rules_text.hpp"
#include "shapes.hpp"

namespace tlaloc_grad {
namespace {

using Tangents = std::vector<std::string>;

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

// t's extent along axis `a` (C++ text, negative counting from the end).
std::string axis_extent(const std::string& t, const std::string& a) {
  const auto literal = int_literal(a);
  if (literal && *literal >= 0) return t + ".shape()[" + a + "]";
  if (literal && *literal == -1) return t + ".shape().back()";
  return t + ".size(" + a + ")";
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
