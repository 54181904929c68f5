// Tokens and point-to-point messages: after_all, send and recv. A token
// (`!stablehlo.token`) holds no data; it orders effects, and the interpreter runs a
// function's ops in order anyway. send leaves its values on a channel, and a recv on
// that channel, in any process of the run, takes the oldest (ops/processes.hpp).
#include <fmt/format.h>

#include "ir/ir.hpp"
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

// send(values..., token) -> token.
const OpDef& send_op =
    def_op("send")
        .takes_tokens()
        .side_effects()
        .shape_rule([](std::span<const TensorType> in, const Attrs&) {
          if (in.empty() || !in.back().token) fail<ShapeError>(kSend, "takes a token as its last operand");
          for (std::size_t i = 0; i + 1 < in.size(); ++i)
            if (in[i].token) fail<ShapeError>(kSend, "operand {} is a token; only the last one may be", i);
          return std::vector<TensorType>{token_type()};
        })
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
          std::vector<Tensor> got = current_processes().recv(kRecv, channel_of(attrs));
          if (got.size() != out.size() - 1)
            fail<ShapeError>(kRecv, "received {} values on channel {} where the program declares {}",
                             got.size(), channel_of(attrs), out.size() - 1);
          for (std::size_t i = 0; i < got.size(); ++i)
            if (got[i].dtype() != out[i].dtype || got[i].shape() != out[i].shape)
              fail<ShapeError>(kRecv,
                               "value {} received on channel {} is {}{}, where the program declares {}", i,
                               channel_of(attrs), dtype_name(got[i].dtype()), shape_string(got[i].shape()),
                               ir::type_string(out[i]));
          got.push_back(token());
          return got;
        })
        .stablehlo({std::string(kRecv), {channel_handle(), is_host_transfer()}, ""})
        .cpp(one_process_only(std::string(kRecv)));

}  // namespace
}  // namespace tlaloc::detail
