// The interpreter's memory plan: each value is released right after its last use
// (before the op that uses it last runs, so that op's kernel holds the only
// reference), and unused results are released at once.
#include <gtest/gtest.h>

#include <algorithm>

#include "interp/plan.hpp"
#include "ir/builder.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;
using tl::ir::TensorType;
using tl::ir::ValueId;

namespace {

bool has(const std::vector<ValueId>& vs, ValueId v) { return std::find(vs.begin(), vs.end(), v) != vs.end(); }

TEST(InterpreterPlan, ReleasesEachValueAfterItsLastUse) {
  tl::ir::Module m;
  m.functions.push_back(tl::ir::trace("f", std::vector<TensorType>{{tl::DType::f32, {4}}}, [](auto a) {
    const tl::Tensor e = tl::exp(a[0]);
    (void)tl::tanh(e);  // an unused result
    return std::vector<tl::Tensor>{tl::neg(e) + a[0]};
  }));
  const tl::ir::Function& f = m.functions[0];
  const tl::interp::ModulePlan plan = tl::interp::plan_module(m);
  const tl::interp::RegionPlan& r = plan.function(f).region(f.body);
  ASSERT_EQ(f.body.ops.size(), 4u);  // exp, tanh, neg, add
  const ValueId x = f.body.args[0], e = f.body.ops[0].results[0], t = f.body.ops[1].results[0],
                n = f.body.ops[2].results[0];
  EXPECT_TRUE(r.ops[0].release_before.empty());  // x is used again by add
  EXPECT_TRUE(has(r.ops[1].release_after, t));   // tanh's result is never used
  EXPECT_TRUE(has(r.ops[2].release_before, e));  // neg is e's last use
  EXPECT_TRUE(has(r.ops[3].release_before, n));
  EXPECT_TRUE(has(r.ops[3].release_before, x));
  EXPECT_TRUE(r.ops[3].release_after.empty());  // the result is returned, not released
}

}  // namespace
