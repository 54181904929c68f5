// The collectives' derivative rules (src/ops/collective_rules.cpp) across processes:
// each process differentiates its own loss L_p, and the rules make process q's
// gradient that of the sum of every process's loss with respect to x_q. Checked
// against central differences that move one process's input at a time, in f64; the
// JVP against differences that move every process's input along its tangent.
#include <gtest/gtest.h>

#include <functional>

#include "ad/gradcheck.hpp"
#include "ad/region_ops.hpp"
#include "interp/parallel.hpp"
#include "tlaloc/tlaloc.hpp"

namespace {

namespace tl = tlaloc;
using tl::Tensor;
using Loss = std::function<Tensor(std::int64_t process, const Tensor& x)>;

Tensor groups(std::vector<std::int64_t> ids, tl::Shape shape) { return tl::tensor(ids, shape); }

// Each process's loss: its weights (different on every process) times sin of what the
// collective gives it, summed.
Tensor weighted(std::int64_t process, const Tensor& y) {
  const Tensor w =
      tl::reshape(tl::linspace(0.5, 1.5 + double(process), y.numel(), tl::DType::f64), y.shape());
  return tl::sum(tl::sin(y) * w);
}

std::vector<std::vector<Tensor>> on_processes(std::int64_t replicas, std::int64_t partitions,
                                              const std::function<std::vector<Tensor>(std::int64_t)>& f) {
  return tl::interp::run_processes(replicas, partitions, f);
}

// sum_p L_p with process q's input moved by `step` at element j.
double total(std::int64_t replicas, std::int64_t partitions, const std::vector<Tensor>& x, const Loss& loss,
             std::int64_t q, std::int64_t j, double step) {
  const auto values = on_processes(replicas, partitions, [&](std::int64_t p) {
    Tensor xp = x[std::size_t(p)];
    if (p == q) {
      std::vector<double> v = xp.to_vector<double>();
      v[std::size_t(j)] += step;
      xp = tl::tensor(v, xp.shape());
    }
    return std::vector<Tensor>{loss(p, xp)};
  });
  double s = 0;
  for (const auto& v : values) s += v.at(0).item<double>();
  return s;
}

void check(std::int64_t replicas, std::int64_t partitions, const tl::Shape& shape, const Loss& loss) {
  const std::int64_t n = replicas * partitions;
  std::vector<Tensor> x, t;
  for (std::int64_t p = 0; p < n; ++p) {
    x.push_back(gradcheck::uniform(shape, -1, 1, 700 + std::uint64_t(p)));
    t.push_back(gradcheck::uniform(shape, -1, 1, 800 + std::uint64_t(p)));
  }
  const auto grads = on_processes(replicas, partitions, [&](std::int64_t p) {
    return std::vector<Tensor>{tl::grad([&](const Tensor& xp) { return loss(p, xp); })(x[std::size_t(p)])};
  });
  const double h = 1e-6;
  for (std::int64_t q = 0; q < n; ++q) {
    const std::vector<double> g = grads[std::size_t(q)].at(0).to_vector<double>();
    for (std::int64_t j = 0; j < x[0].numel(); ++j) {
      const double fd =
          (total(replicas, partitions, x, loss, q, j, h) - total(replicas, partitions, x, loss, q, j, -h)) /
          (2 * h);
      EXPECT_NEAR(g[std::size_t(j)], fd, 1e-7) << "process " << q << ", element " << j;
    }
  }
  // Forward mode: every process moves along its tangent; each sees its own loss change.
  const auto jvps = on_processes(replicas, partitions, [&](std::int64_t p) {
    return std::vector<Tensor>{
        tl::jvp([&](const Tensor& xp) { return loss(p, xp); }, x[std::size_t(p)], t[std::size_t(p)]).second};
  });
  const auto moved = [&](double step) {
    return on_processes(replicas, partitions, [&](std::int64_t p) {
      return std::vector<Tensor>{loss(p, x[std::size_t(p)] + t[std::size_t(p)] * step)};
    });
  };
  const auto plus = moved(h), minus = moved(-h);
  for (std::int64_t p = 0; p < n; ++p) {
    const double fd =
        (plus[std::size_t(p)][0].item<double>() - minus[std::size_t(p)][0].item<double>()) / (2 * h);
    EXPECT_NEAR(jvps[std::size_t(p)][0].item<double>(), fd, 1e-7) << "process " << p;
  }
}

Tensor call(const char* op, const Tensor& x, const tl::detail::Attrs& attrs) {
  return tl::detail::call1(*tl::detail::find_op(op), {x}, attrs);
}

TEST(CollectiveGrad, AllReduceSum) {
  check(3, 1, {3}, [](std::int64_t p, const Tensor& x) {
    return weighted(
        p, region_ops::with_body("all_reduce", {x}, {{"replica_groups", groups({0, 1, 2}, {1, 3})}}, "add"));
  });
}

// Cross replica and partition: one group of all four processes of a 2 x 2 grid.
TEST(CollectiveGrad, AllReduceSumOverReplicasAndPartitions) {
  check(2, 2, {2}, [](std::int64_t p, const Tensor& x) {
    return weighted(
        p, region_ops::with_body(
               "all_reduce", {x},
               {{"replica_groups", groups({0, 1}, {1, 2})}, {"channel_id", std::int64_t{1}}}, "add"));
  });
}

TEST(CollectiveGrad, AllGatherAndReduceScatterAreEachOthersDual) {
  check(2, 1, {2, 2}, [](std::int64_t p, const Tensor& x) {
    return weighted(p, call("all_gather", x,
                            {{"all_gather_dim", std::int64_t{0}},
                             {"replica_groups", groups({1, 0}, {1, 2})},
                             {"result_shape", std::vector<std::int64_t>{4, 2}}}));
  });
  check(2, 1, {4}, [](std::int64_t p, const Tensor& x) {
    return weighted(p, region_ops::with_body("reduce_scatter", {x},
                                             {{"scatter_dimension", std::int64_t{0}},
                                              {"replica_groups", groups({0, 1}, {1, 2})},
                                              {"result_shape", std::vector<std::int64_t>{2}}},
                                             "add"));
  });
}

TEST(CollectiveGrad, AllToAll) {
  check(2, 1, {2, 2}, [](std::int64_t p, const Tensor& x) {
    return weighted(p, call("all_to_all", x,
                            {{"split_dimension", std::int64_t{0}},
                             {"concat_dimension", std::int64_t{1}},
                             {"split_count", std::int64_t{2}},
                             {"replica_groups", groups({0, 1}, {1, 2})}}));
  });
}

// A cycle, and a chain whose first process receives nothing and whose last sends
// nothing (its input gets no derivative).
TEST(CollectiveGrad, CollectivePermute) {
  for (const std::vector<std::int64_t>& pairs : {std::vector<std::int64_t>{0, 1, 1, 2, 2, 0}, {0, 1, 1, 2}})
    check(3, 1, {2}, [&](std::int64_t p, const Tensor& x) {
      return weighted(p, call("collective_permute", x,
                              {{"source_target_pairs", groups(pairs, {std::int64_t(pairs.size() / 2), 2})}}));
    });
}

// Broadcast from the group's first (process 1), and a sum to the group's first
// (process 2): each other's duals. Process 0 is in no group of the broadcast: it
// gets zeros, and its input no derivative.
TEST(CollectiveGrad, CollectiveBroadcastAndReduceAreEachOthersDual) {
  check(3, 1, {2}, [](std::int64_t p, const Tensor& x) {
    return weighted(p, call("collective_broadcast", x, {{"replica_groups", groups({1, 2}, {1, 2})}}));
  });
  check(3, 1, {2}, [](std::int64_t p, const Tensor& x) {
    return weighted(p, region_ops::with_body("collective_reduce", {x},
                                             {{"replica_groups", groups({2, 0, 1}, {1, 3})}}, "add"));
  });
}

}  // namespace
