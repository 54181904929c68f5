// The lowering of a differentiated function's body (lower.hpp): the Lowerer, whose
// parts are in lower.cpp (expressions, calls, declarations), lower_flow.cpp
// (blocks, branches, loops) and lower_control.cpp (tl::cond, the tl:: loops,
// lambdas). Private to tlaloc-grad.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/ExprCXX.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lower.hpp"
#include "rules.hpp"
#include "shapes.hpp"

namespace tlaloc_grad {

using namespace clang;

// Helpers on clang's AST (lower.cpp).
bool is_params(QualType t);
const VarDecl* assigned_variable(const Stmt* s);
std::optional<std::pair<const ValueDecl*, const ValueDecl*>> alias_targets(const VarDecl* v);
bool is_custom(QualType t);
bool has_return(const Stmt* s);
bool is_loop(const Stmt* s);
bool always_returns(const Stmt* s);
void assigned_tensors(const Stmt* s, std::set<const ValueDecl*>& out);
std::vector<const Stmt*> statements(const Stmt* s);
bool in_named_namespace(const Decl* d);
bool is_number_struct(QualType t);
bool is_function(QualType t);
bool is_tensor_struct(QualType t);
std::string inlined_name(const FunctionDecl& f);
const StringLiteral* string_literal(const Expr* e);
// Whether a library function's result carries no derivative: the one op it records
// says so (zero_derivative), or its declaration (TLALOC_NO_DERIVATIVE,
// tlaloc/export.hpp).
bool no_derivative(const FunctionDecl& fd);
const Rule* operator_rule(OverloadedOperatorKind k, unsigned args);
const Rule* compound_rule(OverloadedOperatorKind k);

class Lowerer {
 public:
  Lowerer(ASTContext& ctx, Program& p, const Lowering& how)
      : ctx_(ctx),
        sm_(ctx.getSourceManager()),
        p_(p),
        right_to_left_(how.right_to_left),
        forward_only_(how.forward_only) {}

  // Lowers fn (lambda: its lambda, whose captures become parameters) into the program.
  void function(const FunctionDecl& fn, const LambdaExpr* lambda);

 private:
  ASTContext& ctx_;
  const SourceManager& sm_;
  Program& p_;
  bool right_to_left_;
  bool forward_only_;
  std::map<const ValueDecl*, ValueId> tensors_;      // each tensor variable's current value
  std::map<ValueId, Known> known_;                   // types known at build time
  std::map<const ValueDecl*, std::string> renamed_;  // variables of inlined functions
  std::set<std::string> names_, reserved_;
  std::set<const VarDecl*> assigned_scalars_;  // forward only: scalars assigned anywhere
  // Forward only: the conditions a generated gradient reads from a tensor
  // (`cond_1 = t_6.item<bool>();`), a tl::cond's: an if on one is the traced `if` op's,
  // forward or reverse, whose derivative gives zeros where a path gives none.
  std::set<const ValueDecl*> tensor_conditions_;
  // Scalars are versioned as tensors are (lower_scalars.cpp): an assignment declares a
  // new constant (`k = k * 2.0;` becomes `const double k_1 = k * 2.0;`), so that each
  // use keeps the value it read when the reverse sweep reads it again; a loop that
  // changes a scalar carries it in a variable, saved per iteration. A scalar's current
  // version is its name in renamed_.
  struct ScalarState {
    std::string base, type;   // the name versions are made from; the type as written
    int depth = 0;            // structured_ where a new version may be declared
    int home = 0;             // structured_ where the variable holding it is declared
    bool changeable = false;  // not const: a loop may change it in place
    bool read = false;        // read since this version was made
    // A version in the body of the loop that carries it: its node there, the name it
    // replaced and the statement as written, which replaces the version when nothing
    // reads it (`n += 1;`).
    std::ptrdiff_t node = -1;
    std::string prior, in_place;
    bool kept = false;  // the final value of a nested loop, saved per iteration (Node::kept)
  };
  // A scalar a loop changes, the variable carrying it, and whether that is the
  // variable it had before the loop (changed in place).
  struct LoopScalar {
    const VarDecl* var;
    std::string name;
    bool in_place;
    ScalarState before;
  };
  // A scalar an if changes, the variable its paths join in after it, and its version
  // and state before the if.
  struct BranchScalar {
    const VarDecl* var;
    std::string join, prior;
    ScalarState before;
  };
  std::map<const VarDecl*, ScalarState> scalars_;
  std::set<std::string> read_versions_;           // versions something reads
  std::map<std::string, std::string> kept_holders_;  // a loop's kept value -> the version it copies
  std::vector<const VarDecl*> carried_by_loops_;  // by the loops being lowered
  bool counting_reads_ = true;
  std::set<const VarDecl*> outside_lambda_;  // scalars declared outside the lambda being lowered
  // Forward only (lower_tapes.cpp): vectors of tensors, by their generated names, and
  // references to one of two tensors, chosen by a saved condition.
  struct Alias {
    std::string which;
    const ValueDecl* first;
    const ValueDecl* second;
  };
  std::map<const ValueDecl*, std::string> lists_;
  std::map<const ValueDecl*, Alias> aliases_;
  // Parameters and captures of type std::vector<tl::Tensor>, read by element (ps[i]),
  // or tl::nn::Params, read by name (p.at("w")): their names, whether they are
  // differentiated, whether they are traced, and which of the two they are.
  struct ListParam {
    std::string name;
    bool active = false, traced = false, named = false;
    std::string prefix;    // a Params' sub("fc1"): "fc1.", put before the names read
    std::string computed;  // C++ text of a prefix known at run time, put before prefix
  };
  std::map<const ValueDecl*, ListParam> list_params_;
  // A std::vector<tl::Tensor> whose length the function fixes (lower_packs.cpp): a
  // braced list, a tl:: loop's or tl::cond's state, a local or a parameter bound to
  // one. Its elements are values of their own, read at indices known at compile time.
  using Pack = std::vector<ValueId>;
  // An aggregate's field that is not followed (a tl::nn::Params beside its tensors).
  static constexpr ValueId kUnfollowed = -2;
  std::map<const ValueDecl*, Pack> packs_;
  Pack* pack_return_ = nullptr;  // lowering a function that returns a Pack: where its return goes
  std::string region_;  // the tl:: region whose function is being lowered (tl::cond's on_true, ...)
  Node* loop_ = nullptr;                      // the loop being lowered
  std::vector<const FunctionDecl*> inlining_;
  const FunctionDecl* top_ = nullptr;  // the function lowered
  // The object whose member function is being inlined: as generated code names it, its
  // variable where it is one, and where the user's code calls the function.
  struct Object {
    std::string name;
    const VarDecl* decl = nullptr;
    SourceLocation at;
  };
  Object object_;
  int structured_ = 0;  // depth of branches and loops
  // Of those, the paths that run on to the function's return (an if that returns, the
  // rest of the body after a loop that returns): a loop there may return too.
  int returning_paths_ = 0;
  int loop_body_ = -1;  // structured_ inside the innermost loop's body
  int next_id_ = 0;
  bool in_head_ = false;            // lowering a tl::while_loop's condition: nothing in it is differentiated
  Pack* pair_second_ = nullptr;     // lowering tl::scan's function: where its return's y goes
  // In the innermost loop's body: the saved conditions of the branches being lowered
  // (`cond_3` on a then path, `!cond_3` on an else path), and when each break or
  // continue inside a branch is taken, in those conditions (lower_flow.cpp).
  std::vector<std::string> jump_path_;
  std::vector<std::string> jumps_taken_;
  // A loop of the function's own body with returns in it (lower_flow.cpp,
  // returning_loop): each return sets `result` and `returned` and breaks; after the
  // loop, the function returns `result` where `returned` holds. Variables the
  // lowering declares itself, as if the function had them.
  struct Returning {
    const VarDecl* result = nullptr;
    const VarDecl* returned = nullptr;
  };
  Returning returning_;
  // Whether a return met now is one of the returning loop's.
  bool returns_from_loop() const { return returning_.result != nullptr && inlining_.empty(); }

  Loc loc(SourceLocation l) const { return location(sm_, l); }
  std::vector<const ValueDecl*> in_source_order(const std::map<const ValueDecl*, ValueId>& vars) const;
  std::vector<const ValueDecl*> in_source_order(const std::set<const ValueDecl*>& vars) const;

  bool active(ValueId v) const { return p_.values[std::size_t(v)].active; }
  bool traced(ValueId v) const { return p_.values[std::size_t(v)].traced; }
  bool maybe_undefined(ValueId v) const {
    return p_.values[std::size_t(v)].undefined || p_.values[std::size_t(v)].maybe_undefined;
  }

  // `if (c) continue;` or `if (c) break;`, or an if whose then ends with one
  // (`if (c) { ...; break; }`, with or without an else): `with`.
  struct Jump {
    const Expr* cond = nullptr;
    bool is_break = false;
    const IfStmt* with = nullptr;
  };

  // A loop's carried value: the variable (a local the body assigns, or the carry
  // parameter of a tl:: loop's function) and its value before the loop.
  struct Carried {
    const ValueDecl* var;
    ValueId init;
    int element = -1;  // a Pack's element, when var is a std::vector<tl::Tensor>
  };

  // lower.cpp: the function, expressions, calls and declarations
  void reserve_names(const Stmt* s);
  std::string unique(const std::string& base);
  std::string claim(const std::string& user);
  void param(const ValueDecl* d, QualType t, bool traced);
  std::string raw(const Expr* e) const;
  clang::PrintingPolicy written_policy() const;
  std::string type_name(clang::QualType t) const;
  std::string written_name(const clang::NamedDecl& d) const;
  std::string text(const Expr* e);
  std::string assignment_text(const Expr* e);
  std::string scalar_text(const Expr* e);
  void refuse_active_in(const Stmt* s, const Stmt* parent, const Expr* whole);
  std::string constant_value(const DeclRefExpr& ref);
  std::optional<std::string> constant_text(const APValue& value, QualType t) const;
  std::string argument_text(const Expr* a, const FunctionDecl& callee, const ParmVarDecl& param);
  void collect_renames(const Stmt* s, unsigned begin,
                       std::vector<std::pair<unsigned, std::pair<unsigned, std::string>>>& out);
  ValueId op(Block& out, const Expr* e, std::string fn, std::vector<Arg> args, std::string spelled);
  void note_shape(const Node& s, const std::string& fn);
  std::vector<Arg> arguments(const CallExpr* e, Block& out);
  Arg arg(const Expr* e, Block& out);
  // The tensors a library call takes as `t.shape()` (OpDef::PublicCall::by_shape): t
  // itself, in args, an operand of the op the call records.
  void shape_operands(const CallExpr* e, const std::string& name, std::vector<Arg>& args, Block& out);
  ValueId expr(const Expr* e, Block& out);
  ValueId operator_call(const CXXOperatorCallExpr* e, Block& out);
  std::string spelled_over(const std::string& fn, const std::vector<Arg>& args) const;
  ValueId inactive(Block& out, const Expr* e, const std::vector<Arg>& args, const std::string& spelled = {});
  static bool is_floating_result(const Expr* e);
  ValueId custom_call(const CXXOperatorCallExpr* e, Block& out);
  std::vector<Pack> object_call_arguments(const CXXOperatorCallExpr* e, Block& out, const std::string& what,
                                          bool packs);
  ValueId member_call(const CXXMemberCallExpr* e, Block& out);
  std::optional<ListParam> list_of(const Expr* e);
  static std::string name_text(const ListParam& l, const std::string& name);
  std::string computed_name(const ListParam& l, const Expr* name);
  ValueId element(const ListParam& l, std::string at, const Expr* e, Block& out, bool checked = false);
  ValueId named_element(const ListParam& l, const Expr* name, const Expr* e, Block& out);
  std::string index_scalar(const std::string& base, const std::string& index, const Expr* e, Block& out);
  ValueId element_value(const ListParam& l, const std::string& at, const std::string& read,
                        const std::string& base, const Expr* e, Block& out);
  static std::optional<std::vector<const Expr*>> braced_tensors(const Expr* e, bool fields = false);
  ValueId joined(const CallExpr* e, const std::string& name, const std::vector<ValueId>& items, Block& out);
  // The elements of a list the function holds, given whole to tl::concat or tl::stack:
  // each a tensor with a value (else refused).
  Pack pack_elements(const Expr* e, Block& out);
  ValueId call(const CallExpr* e, Block& out);
  const Rule* rule_for(const CallExpr* e, const FunctionDecl& fd, const std::vector<Arg>& args);
  ValueId inline_call(const CallExpr* e, const FunctionDecl& def, Block& out, unsigned first = 0);
  std::string scope_prefix() const;
  void note_header(const FunctionDecl& def);
  // The function whose body is being lowered: the innermost inlined one, or the top.
  const FunctionDecl* current() const { return inlining_.empty() ? top_ : inlining_.back(); }
  void scalar(Block& out, SourceLocation at, std::string statement);
  void statement(const Stmt* s, Block& out);
  void declaration(const DeclStmt* d, Block& out);
  ValueId undefined_tensor(const VarDecl* v, Block& out);
  ValueId undefined_tensor(SourceLocation at, const std::string& name, std::string source, Block& out);
  void refuse_undefined(ValueId v, const Expr* at);
  void bind(const ValueDecl* v, ValueId value, std::size_t values_before);
  void bind_pack(const ValueDecl* v, const Pack& p, std::size_t values_before);
  bool changed(const VarDecl* v, bool in_loops_only);
  const VarDecl* assigned_scalar(const Expr* e) const;
  void expression_statement(const Expr* e, Block& out);
  bool check(const Stmt* s, Block& out);
  bool void_call(const Expr* e, Block& out);

  // lower_flow.cpp: blocks, branches and loops
  bool never_defined(const Expr* cond) const;
  ValueId conditional(const ConditionalOperator* c, Block& out);
  Node branch(SourceLocation at, const Expr* cond);
  Node branch(SourceLocation at, const std::string& text);
  ValueId joined_value(Node& s, const std::string& base, ValueId a, ValueId b);
  ValueId meet(Node s, ValueId a, ValueId b, const std::string& base, Block& out);
  std::optional<ValueId> block(const std::vector<const Stmt*>& stmts, std::size_t from, Block& out);
  std::string condition(const Expr* c);
  void plain_if(const IfStmt* f, Block& out);
  // Forward only: tensor_conditions_, from the assignments in s.
  void find_tensor_conditions(const Stmt* s);
  int if_over(const IfStmt* f, const std::vector<const Stmt*>& then, Block& out);
  void branch_over(Node s, const std::vector<const Stmt*>& then, const std::vector<const Stmt*>& orelse,
                   Block& out, const std::vector<BranchScalar>& joined = {});
  static Jump loop_jump(const Stmt* s);
  static Jump ending_jump(const Stmt* s);
  void skip_rest(const Jump& j, const std::vector<const Stmt*>& stmts, std::size_t rest, Block& out);
  void break_on(const std::string& cond, SourceLocation at, const std::vector<const Stmt*>& stmts,
                std::size_t rest, Block& out, bool is_break = true);
  void inner_returning_loop(const Stmt* loop, const std::vector<const Stmt*>& stmts, std::size_t rest,
                            Block& out);
  void jump_taken(const std::string& last, bool is_break, SourceLocation at);
  void guard_rest(SourceLocation at, const std::string& cond, const std::vector<const Stmt*>& stmts,
                  std::size_t rest, Block& out);
  void guard_rest(SourceLocation at, Node s, const std::vector<const Stmt*>& stmts, std::size_t rest,
                  Block& out);
  std::optional<ValueId> returning_if(const IfStmt* f, const std::vector<const Stmt*>& stmts,
                                      std::size_t rest, Block& out);
  std::optional<ValueId> returning_loop(const Stmt* loop, const std::vector<const Stmt*>& stmts,
                                        std::size_t rest, Block& out);
  void loop_return(const ReturnStmt* r, Block& out);
  const VarDecl* declared_here(const std::string& name, QualType type, SourceLocation at);
  static const Expr* breaking(const Stmt* s);
  std::vector<ValueId> carry_through(Node& s, const std::vector<Carried>& carried,
                                     const std::function<std::vector<ValueId>(Block&)>& body);
  void loop(const Stmt* at, const Stmt* init, const Expr* cond, const Expr* inc, const Stmt* body,
            Block& out);
  void range_loop(const CXXForRangeStmt* r, const ListParam& l, Block& out);
  Node loop_node(const Stmt* at, const Stmt* body);
  void loop_body(const Stmt* at, Node s, const std::vector<LoopScalar>& scalars, const Stmt* body,
                 const std::function<void(Block&)>& first, Block& out);

  // lower_scalars.cpp: scalars' versions
  void declare_scalar(const VarDecl* v, const std::string& name, const std::string& type, bool changeable);
  std::string current(const VarDecl* v) const;
  void read_scalar(const VarDecl* v);
  void refuse_outside_lambda(const VarDecl* v, SourceLocation at);
  void refuse_assignment_in(const Stmt* s);
  void assign_scalar(const VarDecl* v, const Expr* e, Block& out);
  void set_scalar(const VarDecl* v, const std::string& value, std::string in_place, SourceLocation at,
                  Block& out);
  const VarDecl* return_flag() const { return returns_from_loop() ? returning_.returned : nullptr; }
  std::vector<LoopScalar> enter_loop(const Stmt* at, Node& s, Block& out);
  void start_body(const std::vector<LoopScalar>& carried);
  void end_body(const std::vector<LoopScalar>& carried, Node& s, Block& lowered);
  void leave_loop(const std::vector<LoopScalar>& carried, Block& out);
  std::vector<BranchScalar> changed_in(const std::vector<const Stmt*>& stmts, SourceLocation at);
  std::vector<BranchScalar> enter_branch(const std::vector<const Stmt*>& stmts, SourceLocation at,
                                         Block& out);
  void start_path(const std::vector<BranchScalar>& joined);
  void restore_path(const std::vector<BranchScalar>& scoped);
  void end_path(const std::vector<BranchScalar>& joined, Block& path);
  void leave_branch(const std::vector<BranchScalar>& joined, Block& out);
  void settle(const VarDecl* v, const std::string& holder, Block& out, bool replayed = false);
  void mark_unread(Block& b) const;

  // lower_tapes.cpp: a generated gradient's tapes and references, lowered again
  void tape_statement(const std::string& tape, const std::string& text, const std::string& tangent,
                      SourceLocation at, Block& out);
  bool tape_declaration(const VarDecl* v, Block& out);
  ValueId alias_read(const ValueDecl* r, const Expr* at, Block& out);
  void alias_write(const ValueDecl* r, ValueId value, const Expr* at, Block& out);
  bool tape_push(const Expr* e, Block& out);
  std::optional<ValueId> tape_read(const CXXOperatorCallExpr* e, Block& out);
  bool tape_store(const Expr* e, Block& out);
  void tape_write(const std::string& tape, const Expr* x, std::string index, const Expr* e, Block& out);
  std::optional<ValueId> tape_joined(const CallExpr* e, const std::string& fn, Block& out);
  void custom_half(const CXXMemberCallExpr* m, const std::string& list, const std::string& type, Block& out);
  bool custom_half_declaration(const VarDecl* v, Block& out);
  bool custom_half_assignment(const Expr* e, Block& out);
  std::optional<ValueId> custom_value(const MemberExpr* m, Block& out);

  // lower_control.cpp: tl::cond, the tl:: loops and lambdas
  const LambdaExpr* lambda_arg(const Expr* e, const std::string& what);
  Pack lambda_body(const LambdaExpr* l, const std::vector<Pack>& args, Block& out, const std::string& what,
                   Pack* second = nullptr);
  void refuse_scan_in(const Stmt* s);
  void refuse_nested_transforms(const Stmt* s);
  ValueId lambda_call(const CXXOperatorCallExpr* e, Block& out);
  ValueId function_call(const CXXOperatorCallExpr* e, Block& out);
  Object object_of(const CallExpr* call, const Expr* object, Block& out);
  Pack struct_value(const Expr* e, Block& out);
  [[noreturn]] void refuse_unfollowed(const FieldDecl* field, SourceLocation at) const;
  void refuse_if_unfollowed(const Expr* e) const;
  ValueId inline_body(const CallExpr* e, const FunctionDecl& def, Block& out, unsigned first, Pack* returned);
  const ParmVarDecl* parameter(const LambdaExpr* l, unsigned i, unsigned count, const std::string& what);
  Pack cond_call(const CallExpr* e, Block& out);
  Node structured_loop(const CallExpr* e, const char* fn);
  Pack fori_call(const CallExpr* e, Block& out);
  static const CallExpr* scan_of(const Expr* e);
  static const MemberExpr* scan_member(const Expr* e);
  ValueId pair_return(const Expr* e, Block& out);
  std::pair<Pack, Pack> scan_call(const CallExpr* e, Block& out);
  Pack while_call(const CallExpr* e, Block& out);

  // lower_packs.cpp: std::vector<tl::Tensor>s of a length fixed in the function
  static bool is_structured(const Expr* e);
  static const CallExpr* split_call(const Expr* e);
  bool is_pack(const Expr* e) const;
  Pack pack(const Expr* e, Block& out);
  Pack split_parts(const CallExpr* c, Block& out);
  Pack state(const Expr* e, Block& out);
  std::vector<Carried> carried_state(const ValueDecl* carry, const Pack& init) const;
  Pack current_state(const ValueDecl* carry) const;
  void check_state(const Pack& returned, const Pack& init, const Expr* at, const std::string& what) const;
  std::optional<ValueId> pack_read(const Expr* e, Block* out);
  void declare_pack(const VarDecl* v, Block& out);
};

}  // namespace tlaloc_grad
