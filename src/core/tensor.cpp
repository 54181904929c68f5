#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <unordered_map>
#include <new>

#include <sys/mman.h>
#include <ostream>
#include <sstream>

#include "core/check.hpp"
#include "core/convert.hpp"
#include "core/dispatch_type.hpp"
#include "core/narrow.hpp"
#include "core/tensor_impl.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace detail {

namespace {
// Buffers of 16 KB and more are kept for reuse when freed. Fresh memory is mapped by
// the kernel page by page on first touch, which costs more than an elementwise pass
// over it; and handing buffers of tens or hundreds of KB back to malloc made glibc return
// the top of its heap to the kernel again and again as tensors came and went, so
// eager code paid those faults on every call (docs/PERFORMANCE.md). Smaller buffers
// go straight to malloc. Blocks of 1 MB and more are rounded up to 64 KB, so that
// nearby sizes share them.
class BlockCache {
 public:
  static constexpr std::size_t min_block = std::size_t(1) << 14;
  static constexpr std::size_t granular_block = std::size_t(1) << 20;
  static constexpr std::size_t max_cached = std::size_t(1) << 30;

  static BlockCache& get() {
    static auto* cache = new BlockCache;  // never destroyed: tensors may outlive statics
    return *cache;
  }
  static std::size_t round(std::size_t n) {
    constexpr std::size_t align = 64;
    const std::size_t a = std::max<std::size_t>(align, (n + align - 1) / align * align);
    if (a < granular_block) return a;
    constexpr std::size_t granule = std::size_t(1) << 16;
    return (a + granule - 1) / granule * granule;
  }
  void* take(std::size_t rounded) {
    if (rounded >= min_block) {
      std::lock_guard lock(mu_);
      auto it = free_.find(rounded);
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        cached_ -= rounded;
        return p;
      }
    }
    void* p = allocate(rounded);
    if (p == nullptr) {
      release_all();
      p = allocate(rounded);
      if (p == nullptr) fail("allocate", "out of memory: a tensor of {} bytes does not fit", rounded);
    }
    return p;
  }
  // Blocks of 2 MiB and more are aligned to 2 MiB and offered to the kernel as
  // transparent huge pages: fewer TLB misses when a kernel streams through them.
  static void* allocate(std::size_t rounded) {
    constexpr std::size_t huge = std::size_t(2) << 20;
    if (rounded < huge) return std::aligned_alloc(64, rounded);
    void* p = std::aligned_alloc(huge, (rounded + huge - 1) / huge * huge);
    if (p != nullptr) madvise(p, rounded, MADV_HUGEPAGE);
    return p;
  }
  void give(void* p, std::size_t rounded) {
    if (rounded >= min_block) {
      std::lock_guard lock(mu_);
      if (cached_ + rounded <= max_cached) {
        free_[rounded].push_back(p);
        cached_ += rounded;
        return;
      }
    }
    std::free(p);
  }
  void release_all() {
    std::lock_guard lock(mu_);
    for (auto& [size, blocks] : free_)
      for (void* b : blocks) std::free(b);
    free_.clear();
    cached_ = 0;
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::size_t, std::vector<void*>> free_;
  std::size_t cached_ = 0;
};
}  // namespace

Storage::Storage(std::size_t n) : data(BlockCache::get().take(BlockCache::round(n))), bytes(n) {}
Storage::~Storage() { BlockCache::get().give(data, BlockCache::round(bytes)); }

std::int64_t numel_of(const Shape& s) {
  std::int64_t n = 1;
  for (std::int64_t d : s) {
    if (d < 0) fail<ValueError>("shape", "negative dimension in {}", shape_string(s));
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d)
      fail<ValueError>("shape", "{} has too many elements", shape_string(s));
    n *= d;
  }
  return n;
}

Tensor empty(const Shape& shape, DType t) {
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = t;
  impl->shape = shape;
  impl->numel = numel_of(shape);
  impl->storage = std::make_shared<Storage>(std::size_t(impl->numel) * itemsize(t));
  return Tensor(std::move(impl));
}

Tensor view(const Tensor& x, const Shape& shape) {
  const TensorImpl& src = x.impl();
  auto impl = std::make_shared<TensorImpl>(src);
  impl->shape = shape;
  impl->numel = numel_of(shape);
  if (impl->numel != src.numel)
    fail<ShapeError>("view", "{} elements cannot be viewed as {}", src.numel, shape_string(shape));
  return Tensor(std::move(impl));
}

Tensor elements(const Tensor& x, std::int64_t start, std::int64_t count) {
  const TensorImpl& src = x.impl();
  if (start < 0 || count < 0 || start + count > src.numel)
    fail<ShapeError>("elements", "elements [{}, {}) are not among the {} of {}", start, start + count,
                     src.numel, shape_string(src.shape));
  auto impl = std::make_shared<TensorImpl>(src);
  impl->shape = {count};
  impl->numel = count;
  impl->offset += std::size_t(start) * itemsize(src.dtype);
  return Tensor(std::move(impl));
}

std::int64_t normalize_axis(std::string_view op, std::int64_t axis, std::int64_t rank) {
  if (axis < -rank || axis >= rank || (rank == 0 && axis != 0 && axis != -1))
    fail<AxisError>(op, "axis {} is out of range for rank {}", axis, rank);
  return axis < 0 ? axis + rank : axis;
}

std::vector<std::int64_t> normalize_axes(std::string_view op, const std::vector<std::int64_t>& axes,
                                         std::int64_t rank) {
  std::vector<std::int64_t> out;
  out.reserve(axes.size());
  for (std::int64_t a : axes) {
    if (a < -rank || a >= rank) fail<AxisError>(op, "axis {} is out of range for rank {}", a, rank);
    out.push_back(a < 0 ? a + rank : a);
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    fail<AxisError>(op, "axis repeated in {}", axes);
  return out;
}

}  // namespace detail

using detail::fail;

namespace {
const detail::TensorImpl& host_impl(const Tensor& t, std::string_view what) {
  const detail::TensorImpl& impl = t.impl();
  if (!impl.storage)
    fail(what,
         "the tensor is symbolic (inside a trace: grad, jit, ...) and has no host data; to branch on its "
         "value use "
         "tl::cond or tl::where, to loop on it tl::while_loop (tlaloc/control.hpp)");
  return impl;
}
}  // namespace

detail::TensorImpl& Tensor::impl() const {
  if (!impl_) throw ValueError("tl::Tensor: use of an undefined tensor");
  return *impl_;
}
bool Tensor::is_symbolic() const { return impl().symbol != nullptr; }
namespace {
[[noreturn, gnu::noinline, gnu::cold]] void refuse_untyped(std::string_view what) {
  throw detail::UnknownTypeError("tl::Tensor::" + std::string(what) +
                                 ": the value is traced at build time, and its " + std::string(what) +
                                 " is known only at run time");
}
const detail::TensorImpl& typed_impl(const Tensor& t, std::string_view what) {
  const detail::TensorImpl& impl = t.impl();
  if (impl.untyped) [[unlikely]]
    refuse_untyped(what);
  return impl;
}
}  // namespace
DType Tensor::dtype() const { return typed_impl(*this, "dtype").dtype; }
const Shape& Tensor::shape() const { return typed_impl(*this, "shape").shape; }
std::int64_t Tensor::numel() const { return typed_impl(*this, "numel").numel; }
std::int64_t Tensor::size(std::int64_t axis) const {
  return shape()[std::size_t(detail::normalize_axis("size", axis, rank()))];
}
const void* Tensor::raw_data() const { return host_impl(*this, "data").data(); }

template <class T> const T* Tensor::data() const {
  const auto& impl = host_impl(*this, "data");
  if (impl.dtype != dtype_v<T>)
    fail<DTypeError>("data", "the tensor holds {}, not {}", impl.dtype, dtype_v<T>);
  return static_cast<const T*>(impl.data());
}

// Whole tensors convert with the convert op's kernel (parallel, and compiled once).
template <class U> std::vector<U> Tensor::to_vector() const {
  const auto& impl = host_impl(*this, "to_vector");
  std::vector<U> out(std::size_t(impl.numel));
  const Tensor as_u = dtype() == dtype_v<U> ? *this : detail::converted(*this, dtype_v<U>);
  if (!out.empty()) std::memcpy(out.data(), as_u.raw_data(), out.size() * sizeof(U));
  return out;
}

template <class U> U Tensor::item() const {
  const auto& impl = host_impl(*this, "item");
  if (impl.numel != 1)
    fail<ShapeError>("item", "needs exactly one element, the tensor has shape {}",
                     shape_string(impl.shape));
  if (is_narrow(impl.dtype)) return detail::widened(*this).item<U>();
  U value{};
  TLALOC_SWITCH_WITH_COMPLEX(impl.dtype, "item",
                             value = detail::convert_value<U>(*static_cast<const T*>(impl.data())))
  return value;
}

#define TLALOC_INSTANTIATE(T)                          \
  template const T* Tensor::data<T>() const;           \
  template std::vector<T> Tensor::to_vector<T>() const; \
  template T Tensor::item<T>() const;
TLALOC_INSTANTIATE(float)
TLALOC_INSTANTIATE(double)
TLALOC_INSTANTIATE(bf16)
TLALOC_INSTANTIATE(f16)
TLALOC_INSTANTIATE(std::int8_t)
TLALOC_INSTANTIATE(std::int16_t)
TLALOC_INSTANTIATE(std::int32_t)
TLALOC_INSTANTIATE(std::int64_t)
TLALOC_INSTANTIATE(std::uint8_t)
TLALOC_INSTANTIATE(std::uint16_t)
TLALOC_INSTANTIATE(std::uint32_t)
TLALOC_INSTANTIATE(std::uint64_t)
TLALOC_INSTANTIATE(std::complex<float>)
TLALOC_INSTANTIATE(std::complex<double>)
#undef TLALOC_INSTANTIATE
// std::vector<bool> has no contiguous storage, so bool gets its own definitions.
template <> std::vector<bool> Tensor::to_vector<bool>() const {
  const Tensor b = dtype() == DType::boolean ? *this : detail::converted(*this, DType::boolean);
  std::vector<std::uint8_t> bytes = b.to_vector<std::uint8_t>();
  return {bytes.begin(), bytes.end()};
}
template <> bool Tensor::item<bool>() const { return item<std::uint8_t>() != 0; }
template <> const bool* Tensor::data<bool>() const {
  const auto& impl = host_impl(*this, "data");
  if (impl.dtype != DType::boolean)
    fail<DTypeError>("data", "the tensor holds {}, not bool", impl.dtype);
  return static_cast<const bool*>(impl.data());
}

std::string shape_string(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

namespace {
template <class T> std::string format_element(T v) {
  if constexpr (detail::is_complex_v<T>) {
    return format_element(v.real()) + (std::signbit(v.imag()) ? "-" : "+") +
           format_element(std::abs(v.imag())) + "j";
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_floating_point_v<detail::compute_t<T>>) {
    const double d = double(static_cast<detail::compute_t<T>>(v));
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
    std::string s = fmt::format("{:.6g}", d);
    if (s.find_first_of(".e") == std::string::npos) s += ".";
    return s;
  } else if constexpr (std::is_unsigned_v<T>) {
    return fmt::format("{}", std::uint64_t(v));
  } else {
    return fmt::format("{}", std::int64_t(v));
  }
}

template <class T>
void print_rec(std::ostringstream& os, const T* data, const Shape& shape, std::size_t dim, int indent) {
  if (dim == shape.size()) {
    os << format_element(*data);
    return;
  }
  std::int64_t stride = 1;
  for (std::size_t d = dim + 1; d < shape.size(); ++d) stride *= shape[d];
  const std::string sep =
      dim + 1 < shape.size() ? ",\n" + std::string(std::size_t(indent + 1), ' ') : ", ";
  constexpr std::int64_t edge = 3;  // long axes print their first and last three
  const std::int64_t n = shape[dim];
  os << '[';
  for (std::int64_t i = 0; i < n; ++i) {
    if (i > 0) os << sep;
    if (n > 2 * edge + 1 && i == edge) {
      os << "...";
      i = n - edge - 1;
      continue;
    }
    print_rec(os, data + i * stride, shape, dim + 1, indent + 1);
  }
  os << ']';
}
}  // namespace

std::string Tensor::to_string() const {
  if (!defined()) return "tensor(undefined)";
  const auto& impl = this->impl();
  if (!impl.storage)
    return fmt::format("tensor(symbolic, shape={}, dtype={})", shape_string(impl.shape), impl.dtype);
  std::ostringstream os;
  os << "tensor(";
  const Tensor shown = is_narrow(impl.dtype) ? detail::widened(*this) : *this;  // values exact
  TLALOC_SWITCH_WITH_COMPLEX(shown.dtype(), "to_string", print_rec(os, shown.data<T>(), impl.shape, 0, 7))
  os << ", dtype=" << dtype_name(impl.dtype) << ')';
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.to_string(); }

}  // namespace tlaloc
