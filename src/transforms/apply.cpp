#include "transforms/apply.hpp"

#include <fmt/format.h>

#include "ad/engine.hpp"
#include "interp/interpreter.hpp"

namespace tlaloc::transforms {

std::vector<Tensor> apply(const ir::Function& f, std::span<const Tensor> args) {
  if (args.size() != f.body.args.size())
    throw ValueError(fmt::format("@{} takes {} arguments, got {}", f.name, f.body.args.size(), args.size()));
  if (ir::owner_of(args) == nullptr) return interp::run(f, args);
  return ad::record_call(f, args);
}

}  // namespace tlaloc::transforms
