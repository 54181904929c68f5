// The StableHLO reference interpreter's instrumentation ops, as its per-op tests use
// them: `interpreter.probe` (an identity that keeps each value it sees under its
// probe_id, one per iteration), `check.expect_serialized_eq` (a value against the one
// a probe kept) and `interpreter.print` (writes its operand to stdout, whole, even
// from several interpreter threads). The reference writes probes to files; here they
// stay in memory for the run (clear_probes).
#include <fmt/format.h>

#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

#include "core/tensor_impl.hpp"
#include "ops/check.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/rule.hpp"

namespace tlaloc::detail {
namespace {

using Kind = StableHloAttr::Kind;

struct Probes {
  std::mutex mu;
  std::map<std::string, std::vector<Tensor>, std::less<>> by_id;
};
Probes& probes() {
  static Probes p;
  return p;
}

// A copy of x's elements: the interpreter may reuse x's buffer once the run is past it.
Tensor copied(const Tensor& x) {
  Tensor out = empty(x.shape(), x.dtype());
  if (x.numel() > 0)
    std::memcpy(mutable_data<std::byte>(out), x.raw_data(), std::size_t(x.numel()) * itemsize(x.dtype()));
  return out;
}

std::string no_spelling(CppOp&) {
  fail("interpreter.probe, interpreter.print, check.expect_serialized_eq",
       "are the reference interpreter's test instruments: they have no C++ spelling (remove them from the "
       "program)");
}

const OpDef& probe_op =
    def_op("interpreter.probe")
        .inputs(1)
        .side_effects()
        .shape_rule(
            [](std::span<const TensorType> in, const Attrs&) { return std::vector<TensorType>{in[0]}; })
        .kernel([](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
          Probes& p = probes();
          const std::lock_guard lock(p.mu);
          p.by_id[a.get<std::string>("probe_id")].push_back(copied(in[0]));
          return std::vector<Tensor>{in[0]};
        })
        .stablehlo({"interpreter.probe", {{"probe_id", Kind::string}}, "keywords"})
        .cpp(no_spelling);

const OpDef& expect_serialized_eq_op =
    def_op("check.expect_serialized_eq")
        .inputs(1)
        .side_effects()
        .no_derivative()  // no results
        .shape_rule(no_results)
        .kernel([](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
          const std::string& id = a.get<std::string>("probe_id");
          const std::int64_t iter = a.has("iter") ? a.get<std::int64_t>("iter") : 0;
          Tensor kept;
          {
            Probes& p = probes();
            const std::lock_guard lock(p.mu);
            const auto it = p.by_id.find(id);
            if (it == p.by_id.end() || iter < 0 || std::size_t(iter) >= it->second.size())
              throw CheckFailure(
                  fmt::format("check.expect_serialized_eq: probe \"{}\" kept {} values, none at iteration {}",
                              id, it == p.by_id.end() ? 0 : it->second.size(), iter));
            kept = it->second[std::size_t(iter)];
          }
          run_check("check.expect_eq", in[0], kept, Attrs{});
          return std::vector<Tensor>{};
        })
        .stablehlo({"check.expect_serialized_eq",
                    {{"probe_id", Kind::string}, StableHloAttr("iter", Kind::i64).optional()},
                    "check"})
        .cpp(no_spelling);

const OpDef& print_op =
    def_op("interpreter.print")
        .inputs(1)
        .side_effects()
        .no_derivative()  // no results
        .shape_rule(no_results)
        .kernel([](std::span<const Tensor> in, const Attrs&, std::span<const TensorType>) {
          std::ostringstream text;  // written at once, so that threads do not interleave
          text << in[0] << "\n";
          static std::mutex mu;
          const std::lock_guard lock(mu);
          std::cout << text.str() << std::flush;
          return std::vector<Tensor>{};
        })
        .stablehlo({"interpreter.print", {}, "check"})
        .cpp(no_spelling);

}  // namespace

void clear_probes() {
  Probes& p = probes();
  const std::lock_guard lock(p.mu);
  p.by_id.clear();
}

}  // namespace tlaloc::detail
