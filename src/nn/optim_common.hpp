// What the optimizers share (src/nn/optim_*.cpp): argument checks named after the
// optimizer, looking up gradients and state buffers, and zero state.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "tlaloc/error.hpp"
#include "tlaloc/nn/optim.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::nn::detail {

// What every optimizer checks and looks up, named after it in errors.
class Checked {
 public:
  Checked(std::string_view who, const Params& params, const std::set<std::string>& frozen)
      : who_(who), frozen_(frozen) {
    for (const std::string& name : frozen)
      if (!params.contains(name))
        throw ValueError(
            fmt::format("tl::nn::{}: frozen parameter '{}' is not among the parameters", who, name));
    for (const auto& [name, p] : params)
      if (!is_floating(p.dtype()))
        throw DTypeError(
            fmt::format("tl::nn::{}: parameter '{}' is {}, not floating", who, name, dtype_name(p.dtype())));
  }
  bool frozen(const std::string& name) const { return frozen_.count(name) != 0; }

  const Tensor& grad(const Params& grads, const std::string& name, const Tensor& p) const {
    if (!grads.contains(name))
      throw ValueError(fmt::format("tl::nn::{}::update: no gradient for parameter '{}'", who_, name));
    const Tensor& g = grads.at(name);
    if (g.shape() != p.shape() || g.dtype() != p.dtype())
      throw ShapeError(fmt::format("tl::nn::{}::update: gradient '{}' is {} {}, parameter is {} {}", who_,
                                   name, dtype_name(g.dtype()), shape_string(g.shape()),
                                   dtype_name(p.dtype()), shape_string(p.shape())));
    return g;
  }

  const Tensor& slot(const OptimizerState& s, std::string_view buffer, const std::string& name,
                     const Tensor& p) const {
    const std::string key = fmt::format("{}.{}", buffer, name);
    if (!s.slots.contains(key))
      throw ValueError(
          fmt::format("tl::nn::{}::update: the state has no '{}' (make it with init of these "
                      "parameters and options)",
                      who_, key));
    const Tensor& t = s.slots.at(key);
    if (t.shape() != p.shape())
      throw ShapeError(fmt::format("tl::nn::{}::update: state '{}' is {}, parameter is {}", who_, key,
                                   shape_string(t.shape()), shape_string(p.shape())));
    return t;
  }

  void check_step(const OptimizerState& s) const {
    if (!s.step.defined() || s.step.rank() != 0 || s.step.dtype() != DType::i64)
      throw ValueError(fmt::format("tl::nn::{}::update: the state's step must be an i64 scalar", who_));
  }

 private:
  std::string_view who_;
  const std::set<std::string>& frozen_;
};

// A Python float as PyTorch passes it to an f32 kernel: rounded once.
inline Tensor coef(double v, DType t) { return scalar_tensor(v, t); }

// The state init gives: step 0 and a zero buffer per listed name and unfrozen parameter.
OptimizerState zero_state(std::string_view who, const Params& params, const std::set<std::string>& frozen,
                          const std::vector<std::string_view>& buffers);

void check_lr(std::string_view who, const Schedule& lr);

}  // namespace tlaloc::nn::detail
