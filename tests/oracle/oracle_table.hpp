// The oracle lane's case table. A case is a PyTorch expression over inputs named
// a, b, c, ..., the inputs themselves and what tlaloc computed from them; the table
// is written as JSON and tests/oracle/check_torch.py evaluates it with torch.
#pragma once

#include <tlaloc/tlaloc.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace oracle {

namespace tl = tlaloc;
using tl::DType;
using tl::Shape;
using tl::Tensor;
using Ints = std::vector<std::int64_t>;
using Ins = std::vector<Tensor>;

class Table {
 public:
  // Cases added from now on belong to `family` (the report counts per family).
  void family(std::string name) { family_ = std::move(name); }
  // Runs fn on the inputs and records the case. `terms` is how many values each
  // output element accumulates (its tolerance grows with it). A tl::Error thrown
  // by fn is recorded as the case's error: torch computes something there.
  void add(const std::string& name, const std::string& expr, const Ins& inputs,
           const std::function<std::vector<Tensor>(const Ins&)>& fn, std::int64_t terms = 1);
  void add1(const std::string& name, const std::string& expr, const Ins& inputs,
            const std::function<Tensor(const Ins&)>& fn, std::int64_t terms = 1);
  const nlohmann::json& json() const { return cases_; }

 private:
  std::string family_ = "misc";
  nlohmann::json cases_ = nlohmann::json::array();
};

// The dtypes PyTorch 1.13 has (it has no u16, u32 or u64): cases loop over these.
inline constexpr DType torch_dtypes[] = {DType::f32, DType::f64, DType::bf16, DType::f16, DType::i8,
                                         DType::i16, DType::i32, DType::i64,  DType::u8,  DType::boolean};

// ---- deterministic inputs ---------------------------------------------------
// Each call draws from the next key of one fixed sequence, so a case's inputs
// depend only on the order in which cases are built.
// Floating dtypes: uniform in [lo, hi); integer dtypes: integers in [lo, hi); bool: coin flips.
Tensor uniform(const Shape& shape, DType t, double lo, double hi);
Tensor normal(const Shape& shape, DType t, double scale = 1.0);
Tensor ints(const Shape& shape, std::int64_t lo, std::int64_t hi, DType t = DType::i64);
Tensor coin(const Shape& shape);
// Typical values of dtype t: normal floats, coin flips, integers in [-span, span)
// (in [0, 2 span) for unsigned types).
Tensor sample(DType t, const Shape& shape, std::int64_t span);
// Integers in [lo, hi) with a random sign and never 0 (divisors), as dtype t.
Tensor nonzero_ints(const Shape& shape, std::int64_t lo, std::int64_t hi, DType t);
// Literal values (NaN, infinities, signed zeros, halves) in dtype t.
Tensor literal(const std::vector<double>& values, const Shape& shape, DType t);

// {"dtype": "f32", "shape": [2, 3], "data": [...]}: non-finite floats as "nan", "inf", "-inf".
nlohmann::json tensor_json(const Tensor& x);

// ---- text for torch expressions ----------------------------------------------
std::string py_tuple(const Ints& v);  // "(0, 2)", "(1,)", "()"
std::string py_list(const Ints& v);   // "[0, 2]"
std::string py_bool(bool v);
std::string torch_dtype(DType t);       // "torch.float32"
std::string name_of(DType t);           // "f32"
std::string shape_str(const Shape& s);  // "[2,3]" for case names
inline bool is_float(DType t) { return tl::is_floating(t); }

// ---- the families (one file each) -----------------------------------------------
void add_unary_cases(Table& t);
void add_binary_cases(Table& t);
void add_select_cases(Table& t);
void add_reduce_cases(Table& t);
void add_linalg_cases(Table& t);
void add_shape_cases(Table& t);
void add_special_cases(Table& t);
void add_index_cases(Table& t);
void add_nn_cases(Table& t);

}  // namespace oracle
