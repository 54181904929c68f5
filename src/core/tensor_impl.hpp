// The representation behind tl::Tensor: contiguous row-major storage shared by
// views, or a symbolic value owned by a trace.
#pragma once

#include <cstddef>
#include <memory>

#include "tlaloc/error.hpp"
#include "tlaloc/tensor.hpp"

namespace tlaloc::detail {

class Tracer;

// A symbolic value: which trace owns it. The trace keeps everything else.
struct Symbol {
  virtual ~Symbol() = default;
  // False once the owning trace has ended: the tensor escaped it (kept in a variable
  // outside the traced function) and must not be used any more.
  virtual bool live() const { return true; }
  Tracer* tracer = nullptr;
  int level = 0;  // nesting depth of the owning trace; the deepest trace records
};

// A read of the rank, shape or dtype of a value traced at build time
// (docs/ENGINE_AT_BUILD_TIME.md): whatever needed it cannot run before run time.
class UnknownTypeError : public Error {
 public:
  using Error::Error;
};

struct Storage {
  explicit Storage(std::size_t bytes);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  void* data;
  std::size_t bytes;
};

struct TensorImpl {
  DType dtype = DType::f32;
  // A symbolic value whose rank, shape and dtype are known only at run time (a
  // build-time trace): reading them throws UnknownTypeError, and ops on it are
  // recorded with results of unknown type. Beside dtype, as every read tests it.
  bool untyped = false;
  Shape shape;
  std::int64_t numel = 0;
  std::shared_ptr<Storage> storage;  // null for symbolic values
  std::size_t offset = 0;            // in bytes
  std::shared_ptr<Symbol> symbol;    // null for host values

  void* data() const { return static_cast<char*>(storage->data) + offset; }
};

std::int64_t numel_of(const Shape& s);  // checks for negative sizes and overflow

// A host tensor with uninitialised elements.
Tensor empty(const Shape& shape, DType t);
// A host tensor sharing x's storage with another shape of the same numel.
Tensor view(const Tensor& x, const Shape& shape);
// A 1-D host tensor sharing elements [start, start + count) of x's storage, in
// row-major order.
Tensor elements(const Tensor& x, std::int64_t start, std::int64_t count);
template <class T> T* mutable_data(const Tensor& x) { return static_cast<T*>(x.impl().data()); }

}  // namespace tlaloc::detail
