// Every failure the library reports is a tl::Error; the subclasses say what kind.
// Messages name the op and the shapes / dtypes involved.
#pragma once

#include <stdexcept>
#include <string>

#include "tlaloc/export.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class ShapeError : public Error {  // shapes that do not fit together
 public:
  using Error::Error;
};
class DTypeError : public Error {  // a dtype the op does not accept, or a read of the wrong type
 public:
  using Error::Error;
};
class AxisError : public Error {  // an axis or index out of range
 public:
  using Error::Error;
};
class ValueError : public Error {  // an argument value that makes no sense (negative size, ...)
 public:
  using Error::Error;
};

class IOError : public Error {  // a file that cannot be opened, read, written, synced or renamed
 public:
  using Error::Error;
};

class NotDifferentiableError : public Error {  // a derivative through an op that has no rule for it
 public:
  using Error::Error;
};

}  // namespace tlaloc
TLALOC_PUBLIC_END
