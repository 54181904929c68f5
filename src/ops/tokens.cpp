// Tokens and the ops they order: after_all, send and recv, infeed and outfeed. A token
// (`!stablehlo.token`) holds no data; it orders effects, and the interpreter runs a
// function's ops in order anyway. send leaves its values on a channel, and a recv on
// that channel, in any process of the run, takes the oldest (ops/processes.hpp).
// infeed takes the oldest values of the run's host queue, outfeed leaves its values
// there (ops/host_queue.hpp).
#include <fmt/format.h>

#include "ir/ir.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/host_queue.hpp"
#include "ops/processes.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

using Kind = StableHloAttr::Kind;

constexpr std::string_view kSend = "stablehlo.send";
constexpr std::string_view kRecv = "stablehlo.recv";

Tensor token() { return tlaloc::zeros({0}, DType::boolean); }

void require_tokens(std::string_view op, std::span<const TensorType> in, std::size_t from) {
  for (std::size_t i = from; i < in.size(); ++i)
    if (!in[i].token) fail<ShapeError>(op, "operand {} must be a token, got {}", i, ir::type_string(in[i]));
}

std::int64_t channel_of(const Attrs& attrs) { return attrs.get<std::int64_t>("channel_id"); }

StableHloAttr channel_handle() { return {"channel_handle", Kind::channel_handle}; }
StableHloAttr is_host_transfer() { return StableHloAttr("is_host_transfer", Kind::boolean).optional(); }

// after_all: a token that follows all of its operands, which are tokens.
const OpDef& after_all_op =
    def_op("after_all")
        .takes_tokens()
        .no_derivative()
        .shape_rule([](std::span<const TensorType> in, const Attrs&) {
          require_tokens("stablehlo.after_all", in, 0);
          return std::vector<TensorType>{token_type()};
        })
        .kernel([](std::span<const Tensor>, const Attrs&, std::span<const TensorType>) {
          return std::vector<Tensor>{token()};
        })
        .stablehlo({"stablehlo.after_all", {}, "keywords"})
        .cpp(one_process_only("stablehlo.after_all"));

// The shape rule of an op (values..., token) -> token: send, outfeed.
ShapeRule values_then_token(std::string_view op) {
  return [op](std::span<const TensorType> in, const Attrs&) {
    if (in.empty() || !in.back().token) fail<ShapeError>(op, "takes a token as its last operand");
    for (std::size_t i = 0; i + 1 < in.size(); ++i)
      if (in[i].token) fail<ShapeError>(op, "operand {} is a token; only the last one may be", i);
    return std::vector<TensorType>{token_type()};
  };
}

// What a recv or infeed took (`from`: "received on channel 1") must have the types the
// program declares before its token (which the caller checked before taking anything);
// the token is added.
std::vector<Tensor> arrived(std::string_view op, const std::string& from, std::vector<Tensor> got,
                            std::span<const TensorType> out) {
  if (got.size() != out.size() - 1)
    fail<ShapeError>(op, "{} values {} where the program declares {}", got.size(), from, out.size() - 1);
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i].dtype() != out[i].dtype || got[i].shape() != out[i].shape)
      fail<ShapeError>(op, "value {} {} is {}{}, where the program declares {}", i, from,
                       dtype_name(got[i].dtype()), shape_string(got[i].shape()), ir::type_string(out[i]));
  got.push_back(token());
  return got;
}

// send(values..., token) -> token.
const OpDef& send_op =
    def_op("send")
        .takes_tokens()
        .side_effects()
        .shape_rule(values_then_token(kSend))
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
          current_processes().send(kSend, channel_of(attrs), {in.begin(), in.end() - 1});
          return std::vector<Tensor>{token()};
        })
        .stablehlo({std::string(kSend), {channel_handle(), is_host_transfer()}, ""})
        .cpp(one_process_only(std::string(kSend)));

// recv(token) -> (values..., token). What arrives must have the types the program
// declares, so the op has no shape rule.
const OpDef& recv_op =
    def_op("recv")
        .inputs(1)
        .takes_tokens()
        .side_effects()
        .kernel([](std::span<const Tensor>, const Attrs& attrs, std::span<const TensorType> out) {
          if (out.empty() || !out.back().token) fail<ShapeError>(kRecv, "gives a token as its last result");
          return arrived(kRecv, fmt::format("received on channel {}", channel_of(attrs)),
                         current_processes().recv(kRecv, channel_of(attrs)), out);
        })
        .stablehlo({std::string(kRecv), {channel_handle(), is_host_transfer()}, ""})
        .cpp(one_process_only(std::string(kRecv)));

// ---- infeed and outfeed: values from and to the host queue (ops/host_queue.hpp) ----

constexpr std::string_view kInfeed = "stablehlo.infeed";
constexpr std::string_view kOutfeed = "stablehlo.outfeed";

HostQueue& queue_for(std::string_view op) {
  HostQueue* q = current_host_queue();
  if (q == nullptr)
    fail(op,
         "has no host queue: run the program with one (interp::ProgramOptions::host_queue, or "
         "interpreter.run_parallel's infeed)");
  return *q;
}

// A printed function has no host queue to read or write.
CppSpelling no_host_queue(std::string_view op) {
  return
      [op](CppOp&) -> std::string { fail(op, "has no C++ spelling: a printed function has no host queue"); };
}

// infeed(token) -> (values..., token): the oldest values queued.
const OpDef& infeed_op =
    def_op("infeed")
        .inputs(1)
        .takes_tokens()
        .side_effects()
        .kernel([](std::span<const Tensor>, const Attrs&, std::span<const TensorType> out) {
          if (out.empty() || !out.back().token) fail<ShapeError>(kInfeed, "gives a token as its last result");
          return arrived(kInfeed, "from the host queue", queue_for(kInfeed).pop_infeed(kInfeed), out);
        })
        .stablehlo({std::string(kInfeed),
                    {StableHloAttr("infeed_config", Kind::string).optional(),
                     StableHloAttr("layout", Kind::dictionary).optional()},
                    ""})
        .cpp(no_host_queue(kInfeed));

// outfeed(values..., token) -> token: the values join the queue's outfeed.
const OpDef& outfeed_op =
    def_op("outfeed")
        .takes_tokens()
        .side_effects()
        .shape_rule(values_then_token(kOutfeed))
        .kernel([](std::span<const Tensor> in, const Attrs&, std::span<const TensorType>) {
          queue_for(kOutfeed).push_outfeed({in.begin(), in.end() - 1});
          return std::vector<Tensor>{token()};
        })
        .stablehlo({std::string(kOutfeed), {StableHloAttr("outfeed_config", Kind::string).optional()}, ""})
        .cpp(no_host_queue(kOutfeed));

}  // namespace
}  // namespace tlaloc::detail
