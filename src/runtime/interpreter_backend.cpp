// The embedded backend: StableHLO parsed into IR and run by the host interpreter; a
// device buffer is a host tensor. Tensors are immutable values, so a buffer and the
// tensors it came from or went to share storage safely; a kernel writes in place
// only into storage nothing else holds.
#include <utility>

#include "interp/interpreter.hpp"
#include "runtime/backend.hpp"
#include "stablehlo/stablehlo.hpp"
#include "tlaloc/version.hpp"

namespace tlaloc::runtime::detail {
namespace {

BufferType buffer_type(const ir::TensorType& t) { return {t.dtype, t.shape}; }

class HostBuffer final : public DeviceBuffer {
 public:
  explicit HostBuffer(Tensor t) : t_(std::move(t)) {}
  BufferType type() const override { return {t_.dtype(), t_.shape()}; }
  Tensor to_host() const override { return t_; }
  const Tensor& tensor() const { return t_; }

 private:
  Tensor t_;
};

class InterpretedProgram final : public DeviceExecutable {
 public:
  explicit InterpretedProgram(ir::Module m) : program_(std::move(m)) {
    for (const ir::TensorType& t : program_.entry().param_types()) inputs_.push_back(buffer_type(t));
    for (const ir::TensorType& t : program_.entry().result_types()) outputs_.push_back(buffer_type(t));
  }
  const std::vector<BufferType>& input_types() const override { return inputs_; }
  const std::vector<BufferType>& output_types() const override { return outputs_; }

  std::vector<std::shared_ptr<DeviceBuffer>> run(std::span<const std::shared_ptr<DeviceBuffer>> args,
                                                 const std::vector<bool>&) const override {
    // A donated argument's last handle goes with `args`, so the interpreter holds
    // the only reference and may reuse its memory.
    std::vector<Tensor> in;
    in.reserve(args.size());
    for (const auto& a : args) in.push_back(static_cast<const HostBuffer&>(*a).tensor());
    std::vector<std::shared_ptr<DeviceBuffer>> out;
    for (Tensor& t : program_.run(in)) out.push_back(std::make_shared<HostBuffer>(std::move(t)));
    return out;
  }

 private:
  interp::Program program_;
  std::vector<BufferType> inputs_, outputs_;
};

class InterpreterBackend final : public DeviceBackend {
 public:
  std::string platform_name() const override { return "interpreter"; }
  std::string platform_version() const override { return version_string; }
  std::unique_ptr<DeviceExecutable> compile(std::string_view text, std::string_view name) override {
    return std::make_unique<InterpretedProgram>(stablehlo::parse(text, std::string(name)));
  }
  std::shared_ptr<DeviceBuffer> to_device(const Tensor& t) override { return std::make_shared<HostBuffer>(t); }
};

}  // namespace

std::unique_ptr<DeviceBackend> make_interpreter_backend() { return std::make_unique<InterpreterBackend>(); }

}  // namespace tlaloc::runtime::detail
