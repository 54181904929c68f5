// What the StableHLO emitter and parser share: the printer and parser contexts a
// pretty format uses, the attribute codec, and the table of pretty formats.
//
// An op's spelling (StableHloSpelling, declared next to the op in src/ops) names a
// format; each format is one print function and one parse function, registered
// with `Format` objects in format_*.cpp. The generic form needs no format.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "ir/ir.hpp"
#include "stablehlo/attr.hpp"

namespace tlaloc::stablehlo {

using detail::StableHloAttr;
using detail::StableHloSpelling;

class OpPrinter {
 public:
  virtual ~OpPrinter() = default;
  virtual std::string use(ir::ValueId v) = 0;  // "%3", "%2#1"
  virtual const ir::Function& function() const = 0;
  std::string type(ir::ValueId v) { return type_text(function().type(v)); }
  std::string uses(const std::vector<ir::ValueId>& vs);   // "%a, %b"
  std::string types(const std::vector<ir::ValueId>& vs);  // "t1, t2"
  std::string functional_type(const ir::Op& op);          // "(t1, t2) -> t3"
  // ": t" when every operand and result has one type, else ": (..) -> ..".
  std::string trailing_type(const ir::Op& op);
  // A region in braces, with a `^bb0(...):` label when it has arguments and
  // `block_label` is set (a format that declared them passes false).
  virtual void region(const ir::Region& r, std::string& out, bool block_label = true) = 0;
  // Names a region's arguments for a format that declares them itself; returns
  // `%a: t, %b: t`.
  virtual std::string name_region_args(const ir::Region& r) = 0;
  // Gives `to`'s arguments the names of `from`'s (while's regions share its iterArgs).
  virtual void share_arg_names(const ir::Region& from, const ir::Region& to) = 0;
  virtual bool generic() const = 0;
  virtual int indent() const = 0;
};

// One op being parsed in pretty form: the format fills operands, attributes,
// regions and result types.
struct ParsedOp {
  const detail::OpDef* def = nullptr;
  const StableHloSpelling* spelling = nullptr;
  std::vector<ir::ValueId> operands;
  std::vector<TensorType> result_types;
  detail::Attrs attrs;
  std::vector<ir::Region> regions;
  std::size_t num_results = 0;  // as declared on the left of '='
  std::size_t pos = 0;
};

class OpParser {
 public:
  virtual ~OpParser() = default;
  virtual Cursor& cursor() = 0;
  virtual ir::ValueId operand() = 0;  // %name, resolved
  virtual const TensorType& type_of(ir::ValueId v) = 0;
  std::vector<ir::ValueId> operand_list();  // %a, %b, ... (possibly empty)
  // `(%a: t, ...)` region arguments declared by a pretty format, then `{ ops }`.
  virtual ir::Region region(const std::vector<std::pair<std::string, TensorType>>& args) = 0;
  // `{ ^bb0(...): ops }` or `{ ops }`.
  virtual ir::Region region() = 0;
  virtual std::string declare_pending_name() = 0;  // for formats that name values (while's %iterArg)
  // A new value of the function being parsed (a region a format builds itself,
  // such as reduce's `applies stablehlo.add`).
  virtual ir::ValueId new_value(const TensorType& t) = 0;
  // After `:`, a single type (all operands and results share it) or a function type.
  void trailing_type(ParsedOp& op);
  std::pair<std::vector<TensorType>, std::vector<TensorType>> functional_type();
};

// ---- attribute codec (attr_codec.cpp) -------------------------------------------
// The MLIR text of one attribute of an op (a struct attribute reads several entries).
std::string attr_text(const StableHloAttr& a, const detail::Attrs& attrs);
bool attr_present(const StableHloAttr& a, const detail::Attrs& attrs);
// `name = text` in an attribute dictionary; a unit attribute's name alone.
std::string attr_entry(const StableHloAttr& a, const detail::Attrs& attrs);
// Taken from the result type rather than written (result_shape, result_dtype).
inline bool implied(const StableHloAttr& a) {
  return a.kind == StableHloAttr::Kind::result_shape || a.kind == StableHloAttr::Kind::result_dtype;
}
// Sets the implied attributes once the result types are known.
void set_implied_attrs(const StableHloSpelling& s, const std::vector<TensorType>& results,
                       detail::Attrs& out);
// Decodes one parsed attribute into `out`; errors point at the node.
void decode_attr(const StableHloAttr& a, const AttrNode& node, detail::Attrs& out, Cursor& c);
// A dictionary attribute kept as one entry per field, each under `prefix` (a custom
// call's backend_config): `{name = value, ...}` of i64, f64, bool and string values;
// empty when there is none.
std::string prefixed_dict_text(const detail::Attrs& attrs, std::string_view prefix);
void decode_prefixed_dict(const AttrNode& dict, std::string_view prefix, detail::Attrs& out, Cursor& c);

// ---- pretty formats ---------------------------------------------------------------
struct Format {
  using Print = std::function<void(OpPrinter&, const ir::Op&, const StableHloSpelling&, std::string& out)>;
  using Parse = std::function<void(OpParser&, ParsedOp&)>;
  Format(const char* name, Print print, Parse parse);  // registers itself
};
struct FormatFns {
  Format::Print print;
  Format::Parse parse;
};
const FormatFns* find_format(std::string_view name);

// The op a StableHLO or chlo name stands for (from the registry's spellings), and
// that spelling; null when none does.
struct Spelled {
  const detail::OpDef* def = nullptr;
  const StableHloSpelling* spelling = nullptr;
};
Spelled find_spelling(std::string_view name);
const detail::OpDef* op_for_spelling(std::string_view name);

}  // namespace tlaloc::stablehlo
