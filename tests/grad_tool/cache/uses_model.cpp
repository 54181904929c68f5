// tlaloc-grad's cache (check_cache.cmake): the differentiated body calls a function
// of a header that the cache's precompiled header holds. The Hessian parses its
// generated gradient again, through the cache too; its branches and loop join and
// carry several tensors, whose order in the generated code must follow the source
// whether or not the headers came from the cache.
#include <cachelib/model.hpp>
#include <tlaloc/tlaloc.hpp>

tl::Tensor slope(const tl::Tensor& x) {
  return tl::grad([](const tl::Tensor& a) { return cachelib::model(a); })(x);
}

tl::Tensor curvature(const tl::Tensor& x, int steps) {
  const auto f = [steps](const tl::Tensor& a) {
    tl::Tensor p = a, q = a * 2.0, r = tl::sin(a);
    for (int i = 0; i < steps; ++i) {
      if (i % 2 == 0) {
        p = p * q;
        r = r + p;
      } else {
        q = tl::cos(q) + r;
        p = p - q;
      }
    }
    return tl::sum(p * q + r) + cachelib::model(a);
  };
  return tl::hessian(f)(x);
}
