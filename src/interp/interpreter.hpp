// The host interpreter: runs IR functions with the same kernels as eager calls.
//
// A Program is planned once (when each value dies, which ops need their types
// recomputed) and run many times. Values are released right after their last use,
// so the block cache (src/core/tensor.cpp) hands their memory to the next op that
// needs the same size; a last use also passes the only reference, so a kernel may
// write in place.
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "ir/ir.hpp"
#include "ops/host_queue.hpp"

namespace tlaloc::interp {

struct ProgramOptions {
  bool fuse = true;  // elementwise fusion (interp/fusion.hpp); results are the same bits
  // Where the program's infeed ops take values and its outfeed ops leave them
  // (ops/host_queue.hpp); it must outlive the program's runs. Null: none.
  detail::HostQueue* host_queue = nullptr;
};

class Program {
 public:
  using Options = ProgramOptions;
  explicit Program(ir::Module m, std::string_view entry = {}, const Options& options = {});
  explicit Program(ir::Function f, const Options& options = {});
  ~Program();
  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;

  // Runs the entry function; checks the arguments against its parameter types.
  std::vector<Tensor> run(std::span<const Tensor> args) const;
  std::vector<Tensor> run(std::initializer_list<Tensor> args) const {
    return run(std::span<const Tensor>(args.begin(), args.size()));
  }
  // Runs the entry as every process of the module's grid (mhlo.num_replicas x
  // mhlo.num_partitions, row-major), process k on args[k], each a thread meeting the
  // others in their collectives (a PJRT client's devices); returns each one's results.
  std::vector<std::vector<Tensor>> run_devices(std::span<const std::vector<Tensor>> args) const;
  const ir::Module& module() const;
  const ir::Function& entry() const;

 private:
  std::vector<Tensor> run_spmd(std::span<const Tensor> args) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Where the op that last failed on this thread came from (its line in a parsed
// file); {0, 0} when it had none. Set when an op's kernel throws.
ir::Location last_failure_location();

// One-shot helpers.
std::vector<Tensor> run(const ir::Function& f, std::span<const Tensor> args);
std::vector<Tensor> run(const ir::Module& m, std::span<const Tensor> args, std::string_view entry = {});

}  // namespace tlaloc::interp
