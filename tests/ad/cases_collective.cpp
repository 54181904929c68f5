// Rows for the collectives, each inside a shard_map over two devices (threads of the
// interpreter): the engine differentiates through the mapped function and records
// each collective's dual, and the differences run the same two devices. A printed
// function runs as one process, so the C++ table refuses these rows by name
// (tests/cppgen/table_main.cpp).
#include "ad/gradcheck.hpp"

namespace gradcheck {
namespace {

using Fn = std::function<Tensor(std::span<const Tensor>)>;

const tl::Mesh kTwo({{"d", 2}});

Case row(std::string name, std::string op, Tensor x, Fn fn, std::string torch) {
  Case c{"collective/" + std::move(name), {std::move(op)}, {std::move(x)}, std::move(fn)};
  c.torch = std::move(torch);
  return c;
}

// `f` on each device's part of a, split as `in` says, put together as `out` says.
Fn mapped(std::function<Tensor(const Tensor&)> f, tl::P in, tl::P out) {
  return [f = std::move(f), in = std::move(in), out = std::move(out)](std::span<const Tensor> a) {
    return tl::shard_map(f, kTwo, {in}, out)(a[0]);
  };
}

const bool added = add({
    // Rows 0-1 on device 0, rows 2-3 on device 1, summed over the devices.
    row("psum", "all_reduce", uniform({4, 3}, -2, 2, 900),
        mapped([](const Tensor& x) { return tl::psum(tl::sin(x), "d"); }, tl::P("d"), tl::P()),
        "torch.sin(a[0:2]) + torch.sin(a[2:4])"),
    // Each device's rows gathered back into the whole, on every device.
    row("all_gather", "all_gather", uniform({4, 3}, -2, 2, 901),
        mapped([](const Tensor& x) { return tl::all_gather(tl::tanh(x), "d", 0); }, tl::P("d"), tl::P()),
        "torch.tanh(a)"),
    // Every device holds all of a; the sum over the two, each keeping its rows.
    row("psum_scatter", "reduce_scatter", uniform({4, 3}, -2, 2, 902),
        mapped([](const Tensor& x) { return tl::psum_scatter(x * x, "d", 0); }, tl::P(), tl::P("d")),
        "2 * a * a"),
    // Rows split, exchanged into columns split.
    row("all_to_all", "all_to_all", uniform({4, 6}, -2, 2, 903),
        mapped([](const Tensor& x) { return tl::all_to_all(tl::sin(x), "d", 1, 0); }, tl::P("d"),
               tl::P(nullptr, "d")),
        "torch.sin(a)"),
    // The two devices swap their rows.
    row("ppermute", "collective_permute", uniform({4, 3}, -2, 2, 904),
        mapped(
            [](const Tensor& x) {
              return tl::ppermute(tl::sin(x) * x, "d", {{0, 1}, {1, 0}});
            },
            tl::P("d"), tl::P("d")),
        "torch.cat([torch.sin(a[2:4]) * a[2:4], torch.sin(a[0:2]) * a[0:2]])"),
});

}  // namespace
}  // namespace gradcheck
