#include "interp/fusion.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "core/parallel.hpp"
#include "core/tensor_impl.hpp"
#include "ops/cpp_spelling.hpp"

namespace tlaloc::interp {
namespace {

using ir::Op;
using ir::Region;
using ir::ValueId;

// Elements per chunk: every value of a chunk stays in the L2 cache.
constexpr std::int64_t kChunk = std::int64_t(1) << 14;

// Runs its region on the whole tensors when something other than a FusionPlan
// meets it; the interpreter runs it chunk by chunk. Printed, it is its region's
// ops in place: the chunks compute each element as the whole ops do.
const OpDef& fusion_def =
    detail::def_op("fusion")
        .region_kernel(1, [](std::span<const Tensor> in, const Attrs&, std::span<const TensorType>,
                             const detail::RegionCalls& r) { return r.call(0, in); })
        .cpp(detail::cpp_inline_region);
const OpDef& fusion_op() { return fusion_def; }

bool is_scalar(const TensorType& t) { return ir::is_static(t) && detail::numel_of(t.shape) == 1; }

// An op the chunked loop can run: elementwise, one result of the group's shape,
// operands of that shape or single elements (which broadcast).
bool fusible(const ir::Function& f, const Op& op, const Shape& shape) {
  if (!op.def->is_elementwise() || op.results.size() != 1 || !op.regions.empty() || !op.def->has_kernel() ||
      op.def->has_side_effects())
    return false;
  const TensorType& out = f.type(op.results[0]);
  if (!ir::is_static(out) || out.shape != shape) return false;
  for (ValueId v : op.operands)
    if (f.type(v).shape != shape && !is_scalar(f.type(v))) return false;
  return true;
}

void uses_in(const Region& r, std::unordered_set<ValueId>& out) {
  for (const Op& op : r.ops) {
    out.insert(op.operands.begin(), op.operands.end());
    for (const Region& inner : op.regions) uses_in(inner, out);
  }
  out.insert(r.results.begin(), r.results.end());
}

// Replaces ops[begin, end) of r with one fusion op.
Op make_fusion(ir::Function& f, Region& r, std::size_t begin, std::size_t end) {
  std::unordered_set<ValueId> defined, used_later;
  for (std::size_t i = begin; i < end; ++i) defined.insert(r.ops[i].results[0]);
  Region later;
  later.results = r.results;
  for (std::size_t i = end; i < r.ops.size(); ++i) later.ops.push_back(r.ops[i]);
  uses_in(later, used_later);

  Op fused{&fusion_op(), {}, {}, {}, {}, r.ops[begin].loc};
  Region body;
  std::unordered_map<ValueId, ValueId> inner;  // outer value -> region argument
  for (std::size_t i = begin; i < end; ++i) {
    Op op = r.ops[i];
    for (ValueId& v : op.operands) {
      if (defined.count(v)) continue;
      auto [it, fresh] = inner.try_emplace(v, ValueId(0));
      if (fresh) {
        it->second = f.add_value(f.type(v));
        fused.operands.push_back(v);
        body.args.push_back(it->second);
      }
      v = it->second;
    }
    if (used_later.count(op.results[0])) {
      body.results.push_back(op.results[0]);
      fused.results.push_back(f.add_value(f.type(op.results[0])));
    }
    body.ops.push_back(std::move(op));
  }
  fused.regions.push_back(std::move(body));
  return fused;
}

// Constants first: they have no operands, so moving them keeps every use after its
// definition, and a constant recorded in the middle of a chain no longer splits it.
void hoist_constants(Region& r) {
  std::stable_partition(r.ops.begin(), r.ops.end(), [](const Op& op) { return op.name() == "constant"; });
}

void fuse_region(ir::Function& f, Region& r) {
  hoist_constants(r);
  std::vector<Op> out;
  std::unordered_map<ValueId, ValueId> rename;  // a fused result -> the fusion op's result
  std::size_t i = 0;
  while (i < r.ops.size()) {
    const Op& first = r.ops[i];
    std::size_t j = i;
    if (first.results.size() == 1 && ir::is_static(f.type(first.results[0])) &&
        detail::numel_of(f.type(first.results[0]).shape) >= kFusionMinElements) {
      const Shape shape = f.type(first.results[0]).shape;
      while (j < r.ops.size() && fusible(f, r.ops[j], shape)) ++j;
    }
    if (j - i >= 2) {
      Op fused = make_fusion(f, r, i, j);
      const Region& body = fused.regions[0];
      for (std::size_t k = 0; k < body.results.size(); ++k) rename[body.results[k]] = fused.results[k];
      out.push_back(std::move(fused));
      i = j;
      continue;
    }
    for (Region& inner : r.ops[i].regions) fuse_region(f, inner);
    out.push_back(std::move(r.ops[i]));
    ++i;
  }
  // Later ops read the fusion's results instead of the values inside it.
  auto fix = [&rename](std::vector<ValueId>& vs) {
    for (ValueId& v : vs)
      if (auto it = rename.find(v); it != rename.end()) v = it->second;
  };
  std::function<void(Region&)> fix_region = [&](Region& reg) {
    for (Op& op : reg.ops) {
      if (is_fusion(op) && &reg == &r) {
        fix(op.operands);
        continue;
      }
      fix(op.operands);
      for (Region& inner : op.regions) fix_region(inner);
    }
    fix(reg.results);
  };
  r.ops = std::move(out);
  fix_region(r);
}

// Elements [begin, begin + len) of a contiguous tensor, sharing its storage.
Tensor chunk_of(const Tensor& t, std::int64_t begin, std::int64_t len) {
  auto impl = std::make_shared<detail::TensorImpl>(t.impl());
  impl->shape = {len};
  impl->numel = len;
  impl->offset += std::size_t(begin) * itemsize(t.dtype());
  return Tensor(std::move(impl));
}

}  // namespace

bool is_fusion(const Op& op) { return op.def == &fusion_op(); }

ir::Function fuse(const ir::Function& f) {
  ir::Function g = f;
  fuse_region(g, g.body);
  return g;
}

FusionPlan::FusionPlan(const ir::Function& f, const Op& op) {
  const Region& body = op.regions.at(0);
  std::unordered_map<ValueId, int> slot;
  for (ValueId v : body.args) slot[v] = slots_++;
  for (const Op& inner : body.ops) {
    Step s{inner.def, &inner.attrs, {}, 0, f.type(inner.results[0]).dtype};
    for (ValueId v : inner.operands) s.in.push_back(slot.at(v));
    s.out = slot[inner.results[0]] = slots_++;
    steps_.push_back(std::move(s));
  }
  for (ValueId v : body.results) {
    results_.push_back(slot.at(v));
    result_types_.push_back(f.type(v));
  }
  shape_ = result_types_.at(0).shape;
  numel_ = detail::numel_of(shape_);
}

std::vector<Tensor> FusionPlan::run_chunk(std::span<const Tensor> in, std::int64_t begin,
                                          std::int64_t len) const {
  std::vector<Tensor> slot(static_cast<std::size_t>(slots_));
  for (std::size_t i = 0; i < in.size(); ++i)
    slot[i] = in[i].numel() == 1 ? detail::view(in[i], {}) : chunk_of(in[i], begin, len);
  std::vector<Tensor> args;
  for (const Step& s : steps_) {
    args.clear();
    for (int k : s.in) args.push_back(slot[std::size_t(k)]);
    const TensorType type{s.dtype, {len}};
    slot[std::size_t(s.out)] =
        std::move(s.def->run(args, *s.attrs, std::span<const TensorType>(&type, 1))[0]);
  }
  std::vector<Tensor> out;
  for (int k : results_) out.push_back(slot[std::size_t(k)]);
  return out;
}

std::vector<Tensor> FusionPlan::run(std::span<const Tensor> in) const {
  std::vector<Tensor> out;
  for (const TensorType& t : result_types_) out.push_back(detail::empty(t.shape, t.dtype));
  const std::int64_t chunks = (numel_ + kChunk - 1) / kChunk;
  // Whole chunks per thread; the kernels inside see one chunk and run inline.
  detail::parallel_for(chunks, 1, [&](std::int64_t c0, std::int64_t c1) {
    for (std::int64_t c = c0; c < c1; ++c) {
      const std::int64_t begin = c * kChunk, len = std::min(kChunk, numel_ - begin);
      const std::vector<Tensor> part = run_chunk(in, begin, len);
      for (std::size_t r = 0; r < out.size(); ++r) {
        const std::size_t bytes = itemsize(out[r].dtype());
        std::memcpy(static_cast<char*>(out[r].impl().data()) + std::size_t(begin) * bytes, part[r].raw_data(),
                    std::size_t(len) * bytes);
      }
    }
  });
  return out;
}

}  // namespace tlaloc::interp
