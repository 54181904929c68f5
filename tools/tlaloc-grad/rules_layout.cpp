// Rules of pad and its transpose pad_backward, which do not record one op of their
// own yet. Each is linear, so its forward rule is the function applied to the
// tangents, and each cotangent is its transpose, as the engine's rules write it.
#include "rules_text.hpp"

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
}

}  // namespace tlaloc_grad
