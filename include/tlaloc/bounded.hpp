// Bounded dimensions: one function that takes every size up to a bound, compiled once
// per bucket (docs/DYNAMIC_SHAPES.md).
//
//   auto prog = tl::bounded(f, {{"batch", 256}, {"seq", 512}},
//                           {tl::dims("batch", 784), tl::dims("batch", "seq")});
//   prog(x, tokens);                  // padded to the smallest bucket, results sliced
//   prog.buckets(tl::powers_of_two(8));
//   prog.check_padding(x, tokens);    // exact and padded runs agree, or a named error
//
// Inside f, tl::valid_length("seq") is the true size (an i64 scalar) and
// tl::valid_mask("seq") marks the valid positions of the bucket; a padded position
// holds zero. A bucket is a jit program of its own: `traces()` counts them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/transforms.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc {

// A bounded dimension: its name, the largest size it takes, and its buckets (the
// sizes calls are padded to, ascending, the last one the bound; left empty: powers of
// two up to the bound). `{{"batch", 256}, {"seq", 512, {16, 64, 512}}}`.
struct BoundedDim {
  std::string name;
  std::int64_t bound = 0;
  std::vector<std::int64_t> ladder = {};
};

// The axes of one argument or result: a bounded dimension's name, or a fixed size.
struct Axis {
  std::string name;        // "" for a fixed axis
  std::int64_t size = -1;  // the fixed size; -1 for a named axis
};
struct Dims {
  std::vector<Axis> axes;
};

namespace detail {
inline void add_axis(Dims& d, std::string_view name) { d.axes.push_back({std::string(name), -1}); }
inline void add_axis(Dims& d, std::int64_t size) { d.axes.push_back({"", size}); }
}  // namespace detail

// tl::dims("batch", 784): an argument's axes in order. tl::dims() is a scalar.
template <class... A>
Dims dims(const A&... axes) {
  Dims d;
  (detail::add_axis(d, axes), ...);
  return d;
}

// The bucket sizes of a dimension, ascending, the last one its bound.
struct Ladder {
  std::vector<std::int64_t> sizes;  // explicit sizes; empty: powers of two
  std::int64_t smallest = 1;        // powers of two from this one, then the bound
};
inline Ladder powers_of_two(std::int64_t smallest = 1) { return Ladder{{}, smallest}; }

// The valid length of bounded dimension `dim` in the running bounded function (an i64
// scalar), and its mask: bool [bucket], or with `rank` and `axis`, that mask shaped
// to broadcast along `axis` of a rank-`rank` tensor (size 1 on the other axes).
Tensor valid_length(std::string_view dim);
Tensor valid_mask(std::string_view dim);
Tensor valid_mask(std::string_view dim, std::int64_t rank, std::int64_t axis);

namespace detail {

// What a bounded function declares, and what it learned (src/transforms/bounded.cpp).
class BoundedState;
std::shared_ptr<BoundedState> make_bounded(std::vector<BoundedDim> bounds, std::vector<Dims> inputs,
                                           std::vector<Dims> outputs);
void set_ladder(BoundedState& s, std::string_view dim, const Ladder& ladder);
std::size_t bounded_traces(const BoundedState& s);

// For each flat tensor of a call: the index of its argument's dims, or npos for a
// tensor of an argument that is not a Tensor (Params, vectors: never bounded).
template <class... A>
std::vector<std::size_t> bounded_slots(const A&... args) {
  std::vector<std::size_t> slots;
  std::size_t next = 0;
  const auto add = [&](const auto& a) {
    using T = std::decay_t<decltype(a)>;
    if constexpr (std::is_same_v<T, Tensor>)
      slots.push_back(next++);
    else
      slots.insert(slots.end(), tensor_count(a), static_cast<std::size_t>(-1));
  };
  (add(args), ...);
  return slots;
}

// Pads the call to its bucket, runs its jit program, slices the results.
std::vector<Tensor> run_bounded(BoundedState& s, const FlatCall& call, std::span<const std::size_t> slots,
                                ResultLayout& layout);
void check_bounded_padding(BoundedState& s, const FlatCall& call, std::span<const std::size_t> slots);

template <class F>
class BoundedFn {
 public:
  BoundedFn(F f, std::vector<BoundedDim> bounds, std::vector<Dims> inputs, std::vector<Dims> outputs)
      : f_(std::move(f)), state_(make_bounded(std::move(bounds), std::move(inputs), std::move(outputs))) {}

  template <class... A>
  auto operator()(const A&... args) const {
    using R =
        std::decay_t<std::invoke_result_t<const F&, decltype(rebuild_arg(args, std::span<const Tensor>{},
                                                                         std::declval<std::size_t&>()))...>>;
    const FlatCall call = make_call(f_, args...);
    ResultLayout layout;
    const std::vector<Tensor> flat = run_bounded(*state_, call, bounded_slots(args...), layout);
    Cursor cursor{flat, layout};
    return Unflatten<R>::get(cursor);
  }
  // Runs f at the exact sizes and padded to the bucket; throws ValueError naming the
  // first result and element that differ (beyond rounding for floating results).
  template <class... A>
  void check_padding(const A&... args) const {
    check_bounded_padding(*state_, make_call(f_, args...), bounded_slots(args...));
  }
  // The same ladder for every dimension, or for one.
  BoundedFn& buckets(const Ladder& ladder) {
    set_ladder(*state_, "", ladder);
    return *this;
  }
  BoundedFn& buckets(std::string_view dim, const Ladder& ladder) {
    set_ladder(*state_, dim, ladder);
    return *this;
  }
  BoundedFn& buckets(std::string_view dim, std::vector<std::int64_t> sizes) {
    return buckets(dim, Ladder{std::move(sizes), 1});
  }
  // Buckets traced so far.
  std::size_t traces() const { return bounded_traces(*state_); }

  const F& function() const { return f_; }
  BoundedState& state() const { return *state_; }

 private:
  F f_;
  std::shared_ptr<BoundedState> state_;
};

}  // namespace detail

// f over arguments whose axes `inputs` names, one Dims per Tensor argument in order
// (other arguments, such as nn::Params, keep their sizes). `outputs`, one Dims per
// result tensor, may be left out: the first call then learns which result axes follow
// which dimension by tracing f once more with each dimension's size changed.
template <class F>
auto bounded(F f, std::vector<BoundedDim> bounds, std::vector<Dims> inputs, std::vector<Dims> outputs = {}) {
  return detail::BoundedFn<F>(std::move(f), std::move(bounds), std::move(inputs), std::move(outputs));
}

}  // namespace tlaloc
TLALOC_PUBLIC_END
