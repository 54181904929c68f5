#include "ad/programs.hpp"

#include <fmt/format.h>

#include "ad/engine.hpp"
#include "ir/passes.hpp"

namespace tlaloc::ad {

ir::Function grad_program(const ir::Function& f, const std::vector<bool>& wrt, bool with_value) {
  std::vector<bool> all = wrt;
  all.resize(f.body.args.size(), false);
  ir::Function g = vjp(f, all, true);
  if (!with_value) g.body.results.erase(g.body.results.begin());
  return g;
}

ir::Function jvp_program(const ir::Function& f, const std::vector<bool>& wrt) {
  std::vector<bool> all = wrt;
  all.resize(f.body.args.size(), false);
  return ir::optimize(jvp(f, all));
}

ir::Function vjp_program(const ir::Function& f, const std::vector<bool>& wrt) {
  std::vector<bool> all = wrt;
  all.resize(f.body.args.size(), false);
  return ir::optimize(vjp(f, all));
}

ir::Function hvp_program(const ir::Function& f, std::size_t wrt) {
  std::vector<bool> one(f.body.args.size(), false);
  one.at(wrt) = true;
  const ir::Function g = ir::optimize(grad_program(f, one));
  std::vector<bool> tangents(g.body.args.size(), false);
  tangents[wrt] = true;
  ir::Function h = jvp(g, tangents);
  // (params, v) -> (gradient, H v): keep H v.
  h.body.results.erase(h.body.results.begin(), h.body.results.begin() + std::ptrdiff_t(g.body.results.size()));
  return ir::optimize(h);
}

}  // namespace tlaloc::ad
