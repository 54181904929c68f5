// What tl::serve's export needs of a bounded function: its dimensions and ladders,
// the sizes of a call, the call made at a bucket, and the results' dims.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tlaloc/bounded.hpp"

namespace tlaloc::detail {

const std::vector<BoundedDim>& bounded_dims(const BoundedState& s);
// One Dims per Tensor argument, as declared.
const std::vector<Dims>& bounded_input_dims(const BoundedState& s);
// The size of each dimension in this call (ValueError, by name, for ranks, fixed
// sizes and sizes over a bound that do not fit the declaration).
std::vector<std::int64_t> bounded_sizes(const BoundedState& s, const FlatCall& call,
                                        std::span<const std::size_t> slots);
// The smallest bucket holding each size.
std::vector<std::int64_t> bucket_for(const BoundedState& s, const std::vector<std::int64_t>& sizes);
// The tensors of a call at `sizes` for its bounded axes: the call's own tensors padded
// with zeros, or (with `placeholders`) zeros for the bounded arguments.
std::vector<Tensor> sized_args(const BoundedState& s, const FlatCall& call,
                               std::span<const std::size_t> slots, const std::vector<std::int64_t>& sizes,
                               bool placeholders);
// The call over `args` with one i64 scalar per dimension (its valid length) inserted
// at `lengths_at`; its function reads them through tl::valid_length. `call` must
// outlive the result.
FlatCall with_lengths(const BoundedState& s, const FlatCall& call, std::span<const std::size_t> slots,
                      std::vector<Tensor> args, std::vector<Tensor> lengths, std::size_t lengths_at);
std::vector<Tensor> length_tensors(const std::vector<std::int64_t>& sizes);
// check_padding, naming the results as well as numbering them ("result 0 ('logits')").
void check_padding_named(BoundedState& s, const FlatCall& call, std::span<const std::size_t> slots,
                         std::span<const std::string> names);
// x cut down to `sizes` on the axes `d` names.
Tensor slice_to(const BoundedState& s, const Tensor& x, const Dims& d,
                const std::vector<std::int64_t>& sizes);
// The results' dims: declared, or learned at this call.
const std::vector<Dims>& bounded_outputs(BoundedState& s, const FlatCall& call,
                                         std::span<const std::size_t> slots);

}  // namespace tlaloc::detail
