#!/usr/bin/env python3
"""Writes C++ functions of random control flow for tlaloc-grad's differential test.

Each function takes a tensor `m` and captures an int `mode`; its body mixes tensor
and scalar locals, assignments, ifs (with and without else), for and while loops
(run-time bounds, nested, with break and continue), early returns at the top and
in loops, and scalars changed in loops and branches and read after them: the
constructs whose lowering (versions, joins, tapes, replays) is the tool's most
intricate code. The file is built twice (tests/grad_tool/CMakeLists.txt), traced
and generated; both print every gradient, Hessian and jvp's bits and dtype, in f64
and again in f32 (the argument and every tensor a function captures), which must be
equal, and check the f64 ones against central differences and the gradient's
projection.

  random_programs.py [--seeds S...] [--ops-seeds S...] [--mixed-seeds S...]
                     [--ranged-seeds S...] [--windowed-seeds S...] [--channels-seeds S...]
                     [--params-seeds S...] [--layers-seeds S...] [--pair-seeds S...]
                     --count N [--depth D]
                     [--entry NAME] -o FILE

N functions per seed; the same seeds write the same file. Functions of --ops-seeds
(g<seed>_<k>) are of a wider grammar: reductions and layout ops with their axes,
joins, slices, matmul and where, tl::cond and tl::fori_loop, lambdas the body
defines and calls, tl::while_loop and tl::scan, a function with a custom rule, lists of
tensors read by index, tensors declared without a value. Functions of --mixed-seeds
(h<seed>_<k>) add to that grammar operands of other shapes that broadcast against
[2, 3] ([1, 3], [3], [2, 1], [1]) in +, -, *, /, maximum and where, and read a list
and a tl::nn::Params they capture. Functions of --ranged-seeds (r<seed>_<k>) add to
that grammar range-fors over the captured list (by reference or by value) and Params
(a structured binding [name, w], over it or its entries(), the name tested first),
whose element is an operand that broadcasts. Functions of --windowed-seeds
(w<seed>_<k>) add to that grammar edge pads (of values used again after them, in a
mode known only at run time too), conv2d and the pools. Functions of --channels-seeds
(c<seed>_<k>) add to that grammar conv2d, conv_transpose2d and the pools over two and
three channels, a batch of two, groups, strides and dilations. Functions of
--params-seeds (d<seed>_<k>) are of the grammar of --ranged-seeds over a differentiated
tl::nn::Params p ("m", "scale", "shift"), read by name and ranged over, and may call a
custom_vjp function (no other grammar does: they are checked in forward mode too);
their gradient is a Params (tl::grad, tl::value_and_grad). Functions of --layers-seeds
(l<seed>_<k>) add to that grammar tl::nn layers over p's sub-Params ("lin", "norm",
"rms"): a Linear of 3 features into 1, a LayerNorm and an RMSNorm. Functions of --pair-seeds (p<seed>_<k>) are of the
wider grammar over two tensors m and k, each body written three times: a scalar
function differentiated with respect to both (tl::argnums, in either order, with and
without the value), the same function of a list of both (its gradient, and its jvp
against the gradient's projection), and the tensor it sums, whose
pullback (tl::vjp) is checked from a cotangent that is not a scalar. Values stay
bounded (sin, cos and tanh around every tensor assignment, scalars scaled by at most
1.5 per step, at most three iterations per loop), so that central differences are
accurate. With --entry, the checks run in `void NAME()` instead of main: one part of a
program built from several files (the test build writes one per seed, so that they
compile side by side), whose main calls each part and prints the summary.
"""
import argparse
import random

MODES = (0, 1, 2)


class Scope:
    def __init__(self, parent=None):
        self.parent = parent
        self.tensors = []  # names of tl::Tensor variables declared here
        self.scalars = []  # names of double variables declared here
        self.counters = []  # loop counters (int), read only
        self.elements = []  # range-for variables over `rows` or `weights`: operands that broadcast

    def all(self, kind):
        s, out = self, []
        while s is not None:
            out += getattr(s, kind)
            s = s.parent
        return out


class Function:
    def __init__(self, rng, name, depth, ops=False, mixed=False, pair=False, ranged=False, windowed=False,
                 channels=False, model=False, layers=False):
        model = model or layers
        self.rng = rng
        self.depth = depth
        self.ops = ops or mixed or pair or ranged or windowed or channels or model  # the wider grammar: data ops, tl:: regions, lambdas, late values
        self.mixed = mixed or ranged or windowed or channels or model  # and operands that broadcast, a list and a Params captured
        self.ranged = ranged or windowed or channels or model  # and range-fors over that list and Params
        self.model = model  # m read from a Params p, which is differentiated, with two more entries
        self.layers = layers  # and tl::nn layers over p's sub-Params
        self.windowed = windowed or channels  # and edge pads, convolutions and pools
        self.channels = channels  # over several channels, a batch, groups, strides and dilations
        self.params = ["m", "k"] if pair else ["m"]  # a pair: two tensors differentiated
        self.in_region = False  # inside a tl:: region's function, which reads no list element
        self.in_lambda = False  # inside a lambda, which cannot capture a structured binding (Clang 14)
        self.name = name
        self.names = 0
        self.lines = []

    def fresh(self, base):
        self.names += 1
        return f"{base}{self.names}"

    # ---- expressions --------------------------------------------------------------

    def literal(self):
        return self.rng.choice(["0.5", "0.75", "1.25", "1.5", "0.9", "0.3"])

    def scalar(self, scope):
        r = self.rng.random()
        scalars, counters = scope.all("scalars"), scope.all("counters")
        if r < 0.45 and scalars:
            return self.rng.choice(scalars)
        if r < 0.6 and counters:
            return f"0.25 * {self.rng.choice(counters)}"
        if r < 0.7:
            return "(0.5 + 0.25 * mode)"
        return self.literal()

    def tensor(self, scope, depth=0):
        tensors = scope.all("tensors") + self.params
        r = self.rng.random()
        if depth >= 2 or r < 0.3:
            return self.rng.choice(tensors)
        if self.mixed and self.rng.random() < 0.25:
            return self.broadcast_op(scope, depth)
        if self.ops and self.rng.random() < 0.35:
            return self.data_op(scope, depth)
        if self.layers and not self.in_region and self.rng.random() < 0.2:
            return self.layer(scope, depth)
        a = self.tensor(scope, depth + 1)
        if r < 0.45:
            return f"tl::{self.rng.choice(['sin', 'cos', 'tanh'])}({a})"
        if r < 0.65:
            return f"{a} * {self.scalar(scope)}"
        b = self.tensor(scope, depth + 1)
        if r < 0.72:
            return f"({self.condition(scope)} ? {a} : {b})"
        if r < 0.8:
            return f"bent({a}, {self.scalar(scope)})"
        return f"{a} {self.rng.choice(['+', '-', '*'])} {b}"

    def data_op(self, scope, depth):
        """Reductions, layout ops with their axes, joins, slices, matmul and where, each
        giving the [2, 3] shape of m back."""
        a, b = self.tensor(scope, depth + 1), self.tensor(scope, depth + 1)
        windows = self.windows(a, b)
        if windows and self.rng.random() < 0.4:
            return self.rng.choice(windows)
        return self.rng.choice([
            f"({a} - tl::mean({a}, {{1}}, true))",
            f"({a} * tl::sum({b}, {{0}}, true) * 0.5)",
            f"tl::softmax({a}, -1)",
            f"(tl::log_softmax({a}, 0) * 0.5)",
            f"(tl::logsumexp({a}, {{1}}, true) - {b})",
            f"(tl::cumsum({a}, 1) * 0.5)",
            f"tl::cumprod({a}, 1)",
            f"tl::reverse({a}, {{{self.rng.choice(['0', '1', '0, 1'])}}})",
            f"tl::reshape(tl::transpose({a}), {{2, 3}})",
            f"tl::concat({{tl::slice({a}, 1, 1, 3), tl::slice({b}, 1, 0, 1)}}, 1)",
            f"tl::pad(tl::slice({a}, 0, 0, 1), {{{{0, 1}}, {{0, 0}}}})",
            f"tl::tile(tl::slice({a}, 0, 1, 2), {{2, 1}})",
            f"(tl::matmul(tl::matmul({a}, tl::transpose({b})), m) * 0.25)",
            f"tl::where({a} > {b}, {a}, {b})",
            f"(tl::stack({{tl::sum({a}, {{0}}), tl::prod({b}, {{0}})}}, 0) * 0.5)",
            f"(tl::broadcast_to(tl::sum({a}, {{1}}, true), {{2, 3}}) * 0.3)",
            f"(tl::var({a}, {{1}}, true) + {b})",
            f"tl::take({a}, tl::tensor(std::vector<std::int64_t>{{2, 0, 1}}, {{3}}), 1)",
            f"(tl::exp({a}) * 0.5)",
            f"tl::square({a})",
        ])

    def windows(self, a, b):
        """For the grammar of --windowed-seeds: edge pads (of a value the body may use
        again, and an axis of size 1), in a mode chosen at run time too, conv2d (its
        kernel taken from b) and the pools over m's shape as an image [1, 1, 2, 3], each
        cut back to [2, 3]; none for the other grammars, whose choices stay as they were."""
        if not self.windowed:
            return []
        image = f"tl::reshape({a}, {{1, 1, 2, 3}})"
        pool = "{{2, 2}, {1, 1}, {1, 1}}"  # kernel, stride, padding: [1, 1, 3, 4]
        return [
            f"tl::slice(tl::pad({a}, {{{{1, 0}}, {{2, 1}}}}, tl::PadMode::edge), {{0, 1}}, {{2, 4}})",
            f"tl::slice(tl::pad({a}, {{{{0, 2}}, {{1, 1}}}}, mode == 1 ? tl::PadMode::edge : tl::PadMode::constant), {{1, 0}}, {{3, 3}})",
            f"tl::pad(tl::slice({a}, 0, 1, 2), {{{{1, 0}}, {{0, 0}}}}, tl::PadMode::edge)",
            f"tl::reshape(tl::slice(tl::max_pool2d({image}, {pool}), {{0, 0, 1, 0}}, {{1, 1, 3, 3}}), {{2, 3}})",
            f"tl::reshape(tl::slice(tl::avg_pool2d({image}, {pool}), {{0, 0, 0, 1}}, {{1, 1, 2, 4}}), {{2, 3}})",
            f"tl::reshape(tl::slice(tl::conv2d({image}, tl::reshape(tl::slice({b}, {{0, 0}}, {{2, 2}}), {{1, 1, 2, 2}}), "
            f"{{{{1, 1}}, {{1, 1}}}}), {{0, 0, 1, 1}}, {{1, 1, 3, 4}}), {{2, 3}})",
        ] + self.channel_windows(a, b)

    def channel_windows(self, a, b):
        """For the grammar of --channels-seeds: m's shape read as images of two channels
        ([1, 2, 1, 3]), a batch of two ([2, 1, 1, 3]) or three channels ([1, 3, 1, 2]),
        through conv2d (channels mixed, grouped, strided, dilated), conv_transpose2d and the
        pools, the kernels taken from b, each cut back to [2, 3]."""
        if not self.channels:
            return []
        two, batch = f"tl::reshape({a}, {{1, 2, 1, 3}})", f"tl::reshape({a}, {{2, 1, 1, 3}})"
        three, image = f"tl::reshape({a}, {{1, 3, 1, 2}})", f"tl::reshape({a}, {{1, 1, 2, 3}})"
        square = f"tl::slice({b}, {{0, 0}}, {{2, 2}})"
        return [
            # [O 2, C 2, 1, 1]: the channels mixed at each place.
            f"tl::reshape(tl::conv2d({two}, tl::reshape({square}, {{2, 2, 1, 1}})), {{2, 3}})",
            # [2, 2, 1, 3], padded: each output reads all of both channels' rows.
            f"tl::reshape(tl::conv2d({two}, tl::reshape(tl::concat({{{b}, {b} * 0.5}}, 0), {{2, 2, 1, 3}}), "
            f"{{{{1, 1}}, {{0, 1}}}}), {{2, 3}})",
            # A batch of two through one kernel [1, 1, 1, 3].
            f"tl::reshape(tl::conv2d({batch}, tl::reshape(tl::slice({b}, 0, 0, 1), {{1, 1, 1, 3}}), "
            f"{{{{1, 1}}, {{0, 1}}}}), {{2, 3}})",
            # Two groups of one channel, kernel [2, 1, 1, 2]: [1, 2, 1, 4] cut to [1, 2, 1, 3].
            f"tl::reshape(tl::slice(tl::conv2d({two}, tl::reshape({square}, {{2, 1, 1, 2}}), "
            f"{{{{1, 1}}, {{0, 1}}, {{1, 1}}, 2}}), {{0, 0, 0, 1}}, {{1, 2, 1, 4}}), {{2, 3}})",
            # Stride 2 across: [1, 1, 3, 2].
            f"tl::reshape(tl::conv2d({image}, tl::reshape({square}, {{1, 1, 2, 2}}), {{{{1, 2}}, {{1, 1}}}}), {{2, 3}})",
            # Dilation 2 across: [1, 1, 3, 3] cut to [1, 1, 2, 3].
            f"tl::reshape(tl::slice(tl::conv2d({image}, tl::reshape({square}, {{1, 1, 2, 2}}), "
            f"{{{{1, 1}}, {{1, 1}}, {{1, 2}}}}), {{0, 0, 1, 0}}, {{1, 1, 3, 3}}), {{2, 3}})",
            # Three channels into one, stride 2 across, output padding 1: [1, 1, 1, 5] cut to
            # [1, 3], which broadcasts against a.
            f"(tl::reshape(tl::slice(tl::conv_transpose2d({three}, tl::reshape({b}, {{3, 1, 1, 2}}), "
            f"{{{{1, 2}}, {{0, 0}}, {{0, 1}}}}), {{0, 0, 0, 1}}, {{1, 1, 1, 4}}), {{1, 3}}) * 0.5 + {a})",
            # Two groups of one channel: [1, 2, 1, 3].
            f"tl::reshape(tl::conv_transpose2d({two}, tl::reshape(tl::slice({b}, 1, 0, 1), {{2, 1, 1, 1}}), "
            f"{{{{1, 1}}, {{0, 0}}, {{0, 0}}, {{1, 1}}, 2}}), {{2, 3}})",
            # [1, 1, 2, 3] to [1, 1, 3, 4], a kernel [1, 1, 2, 2]: cut to [1, 1, 2, 3].
            f"tl::reshape(tl::slice(tl::conv_transpose2d({image}, tl::reshape({square}, {{1, 1, 2, 2}})), "
            f"{{0, 0, 1, 1}}, {{1, 1, 3, 4}}), {{2, 3}})",
            f"tl::reshape(tl::slice(tl::max_pool2d({two}, {{{{1, 2}}, {{1, 1}}, {{0, 1}}}}), {{0, 0, 0, 0}}, "
            f"{{1, 2, 1, 3}}), {{2, 3}})",
            f"tl::reshape(tl::avg_pool2d({batch}, {{{{1, 3}}, {{1, 1}}, {{0, 1}}}}), {{2, 3}})",
            f"tl::reshape(tl::max_pool2d({image}, {{{{2, 2}}, {{1, 2}}, {{1, 1}}}}), {{2, 3}})",
            f"tl::reshape(tl::slice(tl::avg_pool2d({three}, {{{{1, 2}}, {{1, 1}}, {{0, 1}}}}), {{0, 0, 0, 1}}, "
            f"{{1, 3, 1, 3}}), {{2, 3}})",
        ]

    def broadcast_op(self, scope, depth):
        """Binary ops and where with an operand of another shape, broadcast to [2, 3]:
        a slice, a reduction, an element of the captured list `rows` ([1, 3], [3], [2, 1])
        or of the captured Params `weights` ("scale" [2, 1], "shift" [3], "gain" [1])."""
        a, b = self.tensor(scope, depth + 1), self.tensor(scope, depth + 1)
        computed = [f"tl::slice({b}, 0, 1, 2)", f"tl::sum({b}, {{0}})", f"tl::mean({b}, {{1}}, true)",
                    f"tl::slice({b}, 1, 2, 3)"]
        captured = ["rows[0]", "rows[1]", "rows[2]", 'weights.at("scale")', 'weights.at("shift")',
                    'weights.at("gain")', f"(rows[{self.rng.randint(0, 2)}] * {b})"]
        # tlaloc-grad refuses a list's element read inside a tl:: region's function.
        small = self.rng.choice(computed + ([] if self.in_region else captured))
        if self.model and not self.in_region and self.rng.random() < 0.4:
            small = self.rng.choice(['p.at("scale")', 'p.at("shift")'])
        elements = [] if self.in_region or self.in_lambda else scope.all("elements")
        if elements and self.rng.random() < 0.5:
            small = self.rng.choice(elements)
        return self.rng.choice([
            f"({a} + {small})",
            f"({small} - {a})",
            f"({a} * {small})",
            f"({a} / (2.0 + tl::cos({small})))",
            f"tl::maximum({a}, {small} * 0.5)",
            # Continuous where the condition flips, for central differences.
            f"tl::where({a} > 0.0, {a} * {small}, {a} * 0.5)",
            f"tl::where({small} > 0.0, {a} * {small}, {a} * {small} * 0.5)",
        ])

    def layer(self, scope, depth):
        """A tl::nn layer of p's sub-Params: a Linear of 3 features into 1 ([2, 1], times a
        [2, 3] operand), a LayerNorm or an RMSNorm over the last axis."""
        a = self.tensor(scope, depth + 1)
        return self.rng.choice([f"({self.tensor(scope, depth + 1)} * lin(p.sub(\"lin\"), {a}))",
                                f"norm(p.sub(\"norm\"), {a})", f"rms(p.sub(\"rms\"), {a})"])

    def bounded(self, scope):
        """A tensor expression whose values stay within [-1.5, 1.5]."""
        f = self.rng.choice(["sin", "cos", "tanh"])
        e = f"tl::{f}({self.tensor(scope)})"
        if self.rng.random() < 0.3:
            e = f"{e} * {self.rng.choice(['0.5', '0.75', '1.25', '1.5'])}"
        return e

    def condition(self, scope):
        counters, scalars = scope.all("counters"), scope.all("scalars")
        r = self.rng.random()
        if r < 0.35 and counters:
            i = self.rng.choice(counters)
            return self.rng.choice([f"{i} != {self.rng.randint(0, 2)}", f"{i} == {self.rng.randint(0, 2)}",
                                    f"({i} + mode) % 2 == 0"])
        if r < 0.55 and scalars:
            return f"{self.rng.choice(scalars)} > {self.literal()}"
        return self.rng.choice([f"mode == {self.rng.randint(0, 2)}", f"mode > {self.rng.randint(0, 1)}",
                                f"mode != {self.rng.randint(0, 2)}"])

    # ---- statements ---------------------------------------------------------------

    def emit(self, depth, text):
        self.lines.append("  " * depth + text)

    def block(self, scope, depth, budget, in_loop, top):
        """Statements into self.lines, most often ending with an assignment to a tensor
        from outside the block, so that what the block computes is used."""
        n = self.rng.randint(1, 2 + budget)
        for k in range(n):
            self.statement(scope, depth, budget - 1, in_loop, top, last=k == n - 1)
        outer = scope.parent.all("tensors") if scope.parent else []
        if outer and self.rng.random() < 0.8:
            self.emit(depth, f"{self.rng.choice(outer)} = {self.bounded(scope)};")

    def statement(self, scope, depth, budget, in_loop, top, last):
        if self.ranged and budget > 0 and self.rng.random() < 0.15:
            return self.range_for(scope, depth, budget, top)
        if self.ops and self.rng.random() < 0.2:
            return self.wider_statement(scope, depth, budget, in_loop, top)
        r = self.rng.random()
        outer_tensors = scope.all("tensors")
        if budget > 0 and r < 0.2:
            return self.if_statement(scope, depth, budget, in_loop, top)
        if budget > 0 and r < 0.38:
            return self.loop(scope, depth, budget, top)
        if r < 0.44:
            name = self.fresh("s")
            self.emit(depth, f"double {name} = {self.scalar(scope)};")
            scope.scalars.append(name)
            return
        if r < 0.58 and scope.all("scalars"):
            s = self.rng.choice(scope.all("scalars"))
            self.emit(depth, self.rng.choice([f"{s} = {s} * {self.literal()} + {self.scalar(scope)};",
                                              f"{s} += {self.literal()};", f"{s} *= {self.literal()};",
                                              f"{s} = {s} - 0.25;"]))
            return
        if r < 0.66:
            name = self.fresh("t")
            self.emit(depth, f"tl::Tensor {name} = {self.bounded(scope)};")
            scope.tensors.append(name)
            return
        if in_loop and r < 0.72 and not last:
            self.emit(depth, f"if ({self.condition(scope)}) {self.rng.choice(['break', 'continue'])};")
            return
        if top and r < 0.76 and not last:
            self.emit(depth, f"if ({self.condition(scope)}) return {RESULT}({self.tensor(scope)} * m);")
            return
        if outer_tensors:
            t = self.rng.choice(outer_tensors)
            self.emit(depth, f"{t} = {self.bounded(scope)};")
            return
        name = self.fresh("t")
        self.emit(depth, f"tl::Tensor {name} = {self.bounded(scope)};")
        scope.tensors.append(name)

    def wider_statement(self, scope, depth, budget, in_loop, top):
        """tl::cond, tl::fori_loop, tl::while_loop, tl::scan, a function with a custom rule,
        a lambda called twice, a list of tensors read by index, and a tensor declared
        without a value and given one on each path of an if."""
        name = self.fresh("t")
        kind = self.rng.choice(["cond", "fori", "while", "scan", "custom", "lambda", "list", "late"])
        self.in_region = kind in ("cond", "fori", "while", "scan")
        if kind == "cond":
            pred = f"tl::sum({self.tensor(scope)}) > {self.rng.choice(['0.1', '-0.2', '0.5'])}"
            self.emit(depth, f"tl::Tensor {name} = tl::cond({pred}, [&] {{ return {self.bounded(scope)}; }},")
            self.emit(depth + 2, f"[&] {{ return {self.bounded(scope)}; }});")
        elif kind in ("fori", "while"):
            inner = Scope(scope)
            c = self.fresh("c")
            inner.tensors.append(c)
            if kind == "fori":
                self.emit(depth, f"tl::Tensor {name} = tl::fori_loop(")
                self.emit(depth + 2, f"0, {self.rng.randint(1, 3)},")
                self.emit(depth + 2, f"[&](const tl::Tensor&, const tl::Tensor& {c}) {{ return tl::sin({c}) * 0.9 + "
                                     f"{self.bounded(inner)} * 0.5; }},")
            else:
                # Each step leaves every element at least 1.1 away from 0, so that at most
                # two steps run.
                self.emit(depth, f"tl::Tensor {name} = tl::while_loop(")
                self.emit(depth + 2, "[](const tl::Tensor& c) { return tl::sum(c * c) < 4.0; },")
                self.emit(depth + 2, f"[&](const tl::Tensor& {c}) {{ return tl::sqrt({c} * {c} + 1.0) * 1.2 + "
                                     f"tl::tanh({self.tensor(inner)}) * 0.1; }},")
            self.emit(depth + 2, f"{self.bounded(scope)});")
        elif kind == "scan":
            # The carry and each row have shape [3], which the expressions of the [2, 3]
            # grammar do not take: they stand in fixed places.
            c, row = self.fresh("c"), self.fresh("row")
            last, outs = self.fresh("last"), self.fresh("outs")
            self.emit(depth, f"auto [{last}, {outs}] = tl::scan(")
            self.emit(depth + 2, f"[&](const tl::Tensor& {c}, const tl::Tensor& {row}) {{")
            self.emit(depth + 3, f"const tl::Tensor next = tl::tanh({c} * {row} + tl::sum({self.bounded(scope)}, {{0}}) * 0.3);")
            self.emit(depth + 3, "return std::pair{next, next * " + row + "};")
            self.emit(depth + 2, "},")
            self.emit(depth + 2, f"tl::sum({self.tensor(scope)}, {{0}}) * 0.1, {self.bounded(scope)});")
            self.emit(depth, f"tl::Tensor {name} = tl::broadcast_to({last}, {{2, 3}}) * 0.5 + {outs};")
        elif kind == "custom":
            # Chosen by the name's number, not drawn from rng: the seeds kept from before
            # softsign still write the same functions, but for this call.
            custom = "softsign" if self.model and self.names % 2 else "soft"
            self.emit(depth, f"tl::Tensor {name} = {custom}({self.bounded(scope)}) * {self.tensor(scope)};")
        elif kind == "lambda":
            g = self.fresh("g")
            inner = Scope(scope)
            a = self.fresh("a")
            inner.tensors.append(a)
            self.in_lambda = True
            self.emit(depth, f"const auto {g} = [&](const tl::Tensor& {a}) {{ return {self.bounded(inner)}; }};")
            self.in_lambda = False
            self.emit(depth, f"tl::Tensor {name} = ({g}({self.tensor(scope)}) + {g}({self.tensor(scope)})) * 0.5;")
        elif kind == "list":
            parts = self.fresh("parts")
            self.emit(depth, f"const std::vector<tl::Tensor> {parts} = tl::split({self.bounded(scope)}, 3, 1);")
            order = self.rng.sample(["0", "1", "2"], 3)
            self.emit(depth, f"tl::Tensor {name} = tl::concat({{{parts}[{order[0]}] * 0.5, {parts}[{order[1]}], "
                             f"tl::sin({parts}[{order[2]}])}}, 1);")
        else:
            self.emit(depth, f"tl::Tensor {name};")
            self.emit(depth, f"if ({self.condition(scope)}) {{")
            self.emit(depth + 1, f"{name} = {self.bounded(scope)};")
            self.emit(depth, "} else {")
            self.emit(depth + 1, f"{name} = {self.bounded(scope)};")
            self.emit(depth, "}")
        self.in_region = False
        scope.tensors.append(name)

    def if_statement(self, scope, depth, budget, in_loop, top):
        self.emit(depth, f"if ({self.condition(scope)}) {{")
        self.block(Scope(scope), depth + 1, budget - 1, in_loop, top)
        if self.rng.random() < 0.5:
            self.emit(depth, "} else {")
            self.block(Scope(scope), depth + 1, budget - 1, in_loop, top)
        self.emit(depth, "}")

    def loop(self, scope, depth, budget, top):
        inner = Scope(scope)
        bound = self.rng.choice(["1", "2", "3", "mode + 1", "3 - mode"])
        if self.rng.random() < 0.25:
            n = self.fresh("n")
            self.emit(depth, f"int {n} = 0;")
            self.emit(depth, f"while ({n} < {bound}) {{")
            inner.counters.append(n)
            self.emit(depth + 1, f"++{n};")  # first: a continue must not skip it
            self.block(inner, depth + 1, budget - 1, True, top)
        else:
            i = self.fresh("i")
            self.emit(depth, f"for (int {i} = 0; {i} < {bound}; ++{i}) {{")
            inner.counters.append(i)
            self.block(inner, depth + 1, budget - 1, True, top)
        self.emit(depth, "}")

    def range_for(self, scope, depth, budget, top):
        """A range-for over the captured list `rows` (by reference or by value) or Params
        `weights` (a structured binding, or over its entries(), whose name the body may
        test before anything else), its element an operand that broadcasts."""
        inner = Scope(scope)
        e = self.fresh("e")
        inner.elements.append(e)
        if self.rng.random() < 0.5:
            kind = self.rng.choice(["const tl::Tensor&", "const auto&", "auto"])
            self.emit(depth, f"for ({kind} {e} : rows) {{")
        else:
            key = self.fresh("key")
            over = ["weights", "weights.entries()"] + (["p", "p.entries()"] if self.model else [])
            self.emit(depth, f"for (const auto& [{key}, {e}] : {self.rng.choice(over)}) {{")
            if self.rng.random() < 0.5:
                name = self.rng.choice(["scale", "shift", "gain"] + (["m"] if self.model else []))
                self.emit(depth + 1, f'if ({key} == "{name}") {self.rng.choice(["continue", "break"])};')
        t = self.rng.choice(scope.all("tensors"))
        f = self.rng.choice(["sin", "cos", "tanh"])
        self.emit(depth + 1, f"{t} = tl::{f}({self.tensor(inner)} {self.rng.choice(['+', '-', '*'])} {e} * "
                             f"{self.scalar(inner)});")
        self.block(inner, depth + 1, budget - 1, True, top)
        self.emit(depth, "}")

    def write(self):
        if len(self.params) == 2:
            return self.write_pair()
        if self.model:
            return self.write_model()
        scope = Scope()
        name = self.name
        captures = "mode, &rows, &weights" if self.mixed else "mode"
        self.emit(2, f"auto {name} = [{captures}](const tl::Tensor& m) {{")
        self.body(scope)
        self.emit(2, "};")
        self.emit(2, f'check("{name}", mode, tl::grad({name}), tl::hessian({name}), {name}, m0);')
        self.emit(2, f"auto [{name}_value, {name}_dot] = tl::jvp({name}, m0, dir);")
        self.emit(2, f'check_jvp("{name}", mode, {name}_value, {name}_dot, tl::grad({name})(m0), dir);')
        return [line.replace(RESULT, "tl::sum") for line in self.lines]

    def body(self, scope):
        """The function's statements; its results are RESULT(tensor) * scalar."""
        self.emit(3, "tl::Tensor r = tl::sin(m);")
        scope.tensors.append("r")
        self.block(scope, 3, self.depth, False, True)
        self.emit(3, f"return {RESULT}(({self.tensor(scope)}) * m) * {self.scalar(scope)};")

    def write_model(self):
        """A function of a tl::nn::Params p ("m" [2, 3], "scale" [2, 1], "shift" [3]),
        its gradient a Params (tl::grad, tl::value_and_grad), each entry's against central
        differences."""
        name = self.name
        self.emit(2, f"auto {name} = [mode, &rows, &weights](const tl::nn::Params& p) {{")
        self.emit(3, 'const tl::Tensor& m = p.at("m");')
        if self.layers:
            self.emit(3, "const tl::nn::Linear lin{3, 1};")
            self.emit(3, "const tl::nn::LayerNorm norm{{3}};")
            self.emit(3, "const tl::nn::RMSNorm rms{{3}};")
        self.body(Scope())
        self.emit(2, "};")
        layers = ""
        if self.layers:
            layers = (', {"lin.weight", in({0.4, -0.3, 0.6}, {1, 3})}, {"lin.bias", in({0.1}, {1})}, '
                      '{"norm.weight", in({1.1, 0.9, 1.2}, {3})}, {"norm.bias", in({0.05, -0.1, 0.2}, {3})}, '
                      '{"rms.weight", in({0.8, 1.3, 1.0}, {3})}')
        # No entry is 0: where(e > 0.0, a * e, a * e * 0.5) has a kink there, which central
        # differences straddle.
        self.emit(2, f"const tl::nn::Params {name}_p0{{{{\"m\", m0}}, {{\"scale\", tl::slice(k0, 1, 0, 1)}}, "
                     f"{{\"shift\", tl::sum(dir, {{0}}) * 0.25 + 0.1}}{layers}}};")
        self.emit(2, f'check_params("{name}", mode, "gradient", tl::grad({name})({name}_p0), {name}, {name}_p0);')
        self.emit(2, f"auto [{name}_value, {name}_grads] = tl::value_and_grad({name})({name}_p0);")
        self.emit(2, f'print_bits("{name} (mode " + std::to_string(mode) + ") value", {name}_value);')
        self.emit(2, f'check_params("{name}", mode, "value_and_grad", {name}_grads, {name}, {name}_p0);')
        return [line.replace(RESULT, "tl::sum") for line in self.lines]

    def write_pair(self):
        """One body as three functions: a scalar one of (m, k), differentiated with respect
        to both by tl::argnums (in either order); the same of a list {m, k}, whose
        gradient is a list and whose tl::jvp takes the tangents {dir, dir_k}; and one of
        (m, k) whose result is the tensor the first sums, whose pullback (tl::vjp) takes
        the cotangent `dir`."""
        name = self.name
        self.body(Scope())
        body, self.lines = self.lines, []
        for fn, result in ((name, "tl::sum"), (f"{name}_t", "")):
            self.emit(2, f"auto {fn} = [mode](const tl::Tensor& m, const tl::Tensor& k) {{")
            self.lines += [line.replace(RESULT, result) for line in body]
            self.emit(2, "};")
        self.emit(2, f"auto {name}_list = [mode](const std::vector<tl::Tensor>& mk) {{")
        self.emit(3, "const tl::Tensor& m = mk[0];")
        self.emit(3, "const tl::Tensor& k = mk.at(1);")
        self.lines += [line.replace(RESULT, "tl::sum") for line in body]
        self.emit(2, "};")
        self.emit(2, f"const std::vector<tl::Tensor> {name}_both = tl::grad({name}, tl::argnums{{0, 1}})(m0, k0);")
        self.emit(2, f'check_pair("{name}", mode, "gradient", {name}_both, {{0, 1}}, {name}, m0, k0);')
        self.emit(2, f"auto [{name}_value, {name}_swapped] = tl::value_and_grad({name}, tl::argnums{{1, 0}})(m0, k0);")
        self.emit(2, f'print_bits("{name} (mode " + std::to_string(mode) + ") value", {name}_value);')
        self.emit(2, f'check_pair("{name}", mode, "value_and_grad", {name}_swapped, {{1, 0}}, {name}, m0, k0);')
        self.emit(2, f"const std::vector<tl::Tensor> {name}_listed = tl::grad({name}_list)(std::vector{{m0, k0}});")
        self.emit(2, f'check_pair("{name}", mode, "list", {name}_listed, {{0, 1}}, {name}, m0, k0);')
        self.emit(2, f"auto [{name}_lv, {name}_ldot] = tl::jvp({name}_list, std::vector{{m0, k0}}, std::vector{{dir, dir_k}});")
        self.emit(2, f'check_jvp("{name} list", mode, {name}_lv, {name}_ldot, tl::stack({name}_listed), tl::stack({{dir, dir_k}}));')
        self.emit(2, f"auto [{name}_y, {name}_pullback] = tl::vjp({name}_t, m0, k0);")
        self.emit(2, f'print_bits("{name} (mode " + std::to_string(mode) + ") vjp value", {name}_y);')
        self.emit(2, f'check_pair("{name}", mode, "pullback", {name}_pullback(dir), {{0, 1}},')
        self.emit(4, f"[&](const tl::Tensor& a, const tl::Tensor& b) {{ return tl::sum({name}_t(a, b) * dir); }}, m0, k0);")
        return self.lines


# Where a function's result is written: tl::sum for a scalar function, nothing for
# the tensor one of a pair (write_pair).
RESULT = "@result@"


HEADER = """\
// Written by tests/grad_tool/random_programs.py {seeds} --count {count}: functions
// of random control flow, built traced and generated (tests/grad_tool/CMakeLists.txt).
#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include "checks.hpp"

namespace tl = tlaloc;

namespace {{
// A function with a visible body, inlined where a random function calls it.
tl::Tensor bent(const tl::Tensor& x, double k) {{
  return k > 1.0 ? tl::sin(x) * k : tl::tanh(x * k) + x;
}}
// A function with a custom rule (its derivative the true one): a custom_jvp softplus,
// which reverse mode transposes.
const auto soft = tl::custom_jvp([](const tl::Tensor& v) {{ return tl::softplus(v); }},
                                 [](const std::vector<tl::Tensor>& p, const std::vector<tl::Tensor>& t) {{
                                   return std::pair{{tl::softplus(p[0]), tl::sigmoid(p[0]) * t[0]}};
                                 }});
// And a custom_vjp softsign, whose backward pass reads the denominator its forward pass
// saved. It has no forward mode: only the functions of --params-seeds and
// --layers-seeds call it, which are checked by tl::grad and tl::value_and_grad alone.
const auto softsign = tl::custom_vjp(
    [](const tl::Tensor& v) {{ return v / (tl::abs(v) + 1.0); }},
    [](const tl::Tensor& v) {{
      const tl::Tensor d = tl::abs(v) + 1.0;
      return std::pair{{v / d, std::vector<tl::Tensor>{{d}}}};
    }},
    [](const std::vector<tl::Tensor>& saved, const tl::Tensor& ct) {{
      return std::vector<tl::Tensor>{{ct / tl::square(saved[0])}};
    }});
}}  // namespace

{signature} {{
  // Random bodies declare scalars that nothing reads, lambdas may leave their parameter
  // unread, and a function may leave a capture unread
  // (the generated function's parameter is [[maybe_unused]] then). Inside the function,
  // so that the generated code, included before it, is checked as usual.
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wunused-lambda-capture"
#endif
  using grad_tool_checks::check;
  using grad_tool_checks::check_jvp;
  using grad_tool_checks::check_pair;
  using grad_tool_checks::check_params;
  using grad_tool_checks::print_bits;
  // Every check runs in f64, against central differences too, and in f32, where only the
  // bits are compared between the builds (checks.hpp).
  for (const tl::DType dtype : {{tl::DType::f64, tl::DType::f32}}) {{
  const auto in = [dtype](std::vector<double> v, tl::Shape shape) {{ return tl::tensor(v, shape).astype(dtype); }};
  const tl::Tensor m0 = in({{0.3, -0.5, 0.7, 0.2, -0.4, 0.9}}, {{2, 3}});
  const tl::Tensor dir = in({{0.5, 1.0, -0.25, 0.75, -1.0, 0.125}}, {{2, 3}});
  // The second argument of the functions of --pair-seeds, and its tangent.
  const tl::Tensor k0 = in({{-0.2, 0.6, 0.1, -0.8, 0.4, 0.5}}, {{2, 3}});
  const tl::Tensor dir_k = in({{-0.75, 0.25, 1.5, 0.5, -0.125, 1.0}}, {{2, 3}});
  // What the functions of --mixed-seeds capture: operands that broadcast against m. No
  // entry equals an entry of m0 it meets, where `rows[k] - m` would be an exact 0 at
  // the kink of a `where(r > 0.0, ...)` (seed 713 met one).
  const std::vector<tl::Tensor> rows{{in({{0.4, -0.3, 0.8}}, {{1, 3}}), in({{-0.6, 0.2, 0.5}}, {{3}}),
                                     in({{0.65, -0.1}}, {{2, 1}})}};
  const tl::nn::Params weights{{{{"scale", in({{1.2, 0.8}}, {{2, 1}})}}, {{"shift", in({{0.1, -0.2, 0.3}}, {{3}})}},
                               {{"gain", in({{0.9}}, {{1}})}}}};
  for (const int mode : {{{modes}}}) {{
"""

# The end of main, or of an entry of one part (--entry), which prints nothing more.
FOOTER = """\
  }
  }
  return grad_tool_checks::summary();
}
"""
ENTRY_FOOTER = """\
  }
  }
}
"""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="*", default=[], help="seeds of functions of control flow")
    p.add_argument("--count", type=int, default=30)
    p.add_argument("--ops-seeds", type=int, nargs="*", default=[],
                   help="seeds of functions in the wider grammar (data ops, tl:: regions, lambdas)")
    p.add_argument("--mixed-seeds", type=int, nargs="*", default=[],
                   help="seeds of functions in the wider grammar with operands that broadcast")
    p.add_argument("--ranged-seeds", type=int, nargs="*", default=[],
                   help="seeds of functions in the grammar of --mixed-seeds with range-fors over its list and Params")
    p.add_argument("--windowed-seeds", type=int, nargs="*", default=[],
                   help="seeds of functions in the grammar of --ranged-seeds with edge pads, conv2d and pools")
    p.add_argument("--channels-seeds", type=int, nargs="*", default=[],
                   help="seeds of functions in the grammar of --windowed-seeds over several channels, a batch, "
                        "groups, strides and dilations")
    p.add_argument("--params-seeds", type=int, nargs="*", default=[],
                   help="seeds of functions of a differentiated tl::nn::Params in the grammar of --ranged-seeds")
    p.add_argument("--layers-seeds", type=int, nargs="*", default=[],
                   help="seeds of functions in the grammar of --params-seeds with tl::nn layers over p's sub-Params")
    p.add_argument("--pair-seeds", type=int, nargs="*", default=[],
                   help="seeds of functions of two tensors in the wider grammar (tl::argnums, a list, tl::vjp)")
    p.add_argument("--depth", type=int, default=3, help="how deep statements nest")
    p.add_argument("--entry", default="main",
                   help="the function that runs the checks: main, or `void ENTRY()` of one part of a "
                        "program whose main calls each part's and prints the summary")
    p.add_argument("-o", "--output", required=True)
    a = p.parse_args()
    # Each grammar: its option, the letter its functions' names start with, its flags.
    grammars = (("seeds", "f", {}), ("ops_seeds", "g", {"ops": True}), ("mixed_seeds", "h", {"mixed": True}),
                ("ranged_seeds", "r", {"ranged": True}), ("windowed_seeds", "w", {"windowed": True}),
                ("channels_seeds", "c", {"channels": True}), ("params_seeds", "d", {"model": True}),
                ("layers_seeds", "l", {"layers": True}), ("pair_seeds", "p", {"pair": True}))
    seeds = " ".join(w for option, _, _ in grammars for w in
                     ["--" + option.replace("_", "-")] * bool(getattr(a, option)) + list(map(str, getattr(a, option))))
    signature = "int main()" if a.entry == "main" else f"void {a.entry}()"
    out = HEADER.format(seeds=seeds, count=a.count, modes=", ".join(map(str, MODES)), signature=signature)
    for option, letter, flags in grammars:
        for seed in getattr(a, option):
            rng = random.Random(seed)
            for k in range(a.count):
                out += "\n".join(Function(rng, f"{letter}{seed}_{k}", a.depth, **flags).write()) + "\n"
    out += FOOTER if a.entry == "main" else ENTRY_FOOTER
    with open(a.output, "w") as f:
        f.write(out)


if __name__ == "__main__":
    main()
