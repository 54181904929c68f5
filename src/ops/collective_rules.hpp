// Derivative rules of the collectives (ops/collective.cpp). Each collective is linear:
// its JVP is the same collective on the tangents, its VJP the dual on the cotangents,
// with the same groups: a summing all_reduce is its own transpose, all_gather and a
// summing reduce_scatter are each other's, all_to_all's is all_to_all with the split
// and concat dimensions swapped, collective_permute's the inverse permutation, and
// collective_broadcast and a summing collective_reduce are each other's. Across
// processes they give the derivative of the sum of every process's result.
#pragma once

#include "ops/rule.hpp"

namespace tlaloc::detail {

std::vector<Tensor> all_reduce_jvp(const Rule& r);
std::vector<Tensor> all_reduce_vjp(const Rule& r);
std::vector<Tensor> all_gather_jvp(const Rule& r);
std::vector<Tensor> all_gather_vjp(const Rule& r);
std::vector<Tensor> reduce_scatter_jvp(const Rule& r);
std::vector<Tensor> reduce_scatter_vjp(const Rule& r);
std::vector<Tensor> all_to_all_jvp(const Rule& r);
std::vector<Tensor> all_to_all_vjp(const Rule& r);
std::vector<Tensor> collective_permute_jvp(const Rule& r);
std::vector<Tensor> collective_permute_vjp(const Rule& r);
std::vector<Tensor> collective_broadcast_jvp(const Rule& r);
std::vector<Tensor> collective_broadcast_vjp(const Rule& r);
std::vector<Tensor> collective_reduce_jvp(const Rule& r);
std::vector<Tensor> collective_reduce_vjp(const Rule& r);

}  // namespace tlaloc::detail
