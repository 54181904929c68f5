#!/usr/bin/python3
"""The oracle lane's training check: loads each run's initial Params into the same
model written in PyTorch, takes the same steps with torch.optim on the same batches
(with torch.nn.utils.clip_grad_norm_ where the run clips), and compares each step's
loss with tlaloc's.

    /usr/bin/python3 check_torch_train.py CASES.json [--verbose] [--filter SUBSTRING]

Both sides compute in f32 with sums in different orders, and the differences are
carried from step to step through the parameters; a loss passes within RELATIVE of
torch's (the bound tl::nn promises for 20 steps). A wrong gradient, update or
clipping is far more. The final parameters are reported with --verbose, not checked.
Exits 1 on any failure.
"""

import sys

from check_torch_layers import MLP
from check_torch_layers_attention import Block, RMSNorm
from oracle_torch import run_cases, torch

RELATIVE = 1e-5
USAGE = "usage: check_torch_train.py CASES.json [--verbose] [--filter SUBSTRING]"


class DecoderLM(torch.nn.Module):
    """tl::nn::DecoderLM: embedding, pre-norm blocks, final RMSNorm, linear head."""

    def __init__(self, c):
        super().__init__()
        self.embed = torch.nn.Embedding(c["vocab"], c["d_model"])
        self.blocks = torch.nn.ModuleList(Block(c) for _ in range(c["num_layers"]))
        self.norm = RMSNorm(c["d_model"], c["eps"])
        self.lm_head = torch.nn.Linear(c["d_model"], c["vocab"], bias=False)

    def forward(self, tokens):
        h = self.embed(tokens)
        for block in self.blocks:
            h = block(h)
        return self.lm_head(self.norm(h))


def tensor(t):
    dtype = torch.int64 if t["int"] else torch.float32
    return torch.tensor(t["data"], dtype=dtype).reshape(t["shape"])


def make_model(c):
    if c["kind"] == "mlp":
        return MLP(c["sizes"]), lambda out, y: torch.nn.functional.cross_entropy(out, y)
    if c["kind"] == "lm":
        vocab = c["vocab"]
        return DecoderLM(c), lambda out, y: torch.nn.functional.cross_entropy(out.reshape(-1, vocab), y.reshape(-1))
    raise ValueError(f"unknown model kind {c['kind']}")


def make_optimizer(o, params):
    kinds = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW}
    return kinds[o["kind"]](params, lr=o["lr"], weight_decay=o["weight_decay"])


def check_case(c):
    """The failures of one run, as strings, and the largest relative loss difference."""
    model, loss_fn = make_model(c)
    names = list(model.state_dict().keys())
    if names != c["params"]["order"]:
        return [f"names {c['params']['order']} are not torch's {names}"], 0.0
    model.load_state_dict({n: tensor(t) for n, t in c["params"]["tensors"].items()}, strict=True)
    opt = make_optimizer(c["optimizer"], model.parameters())
    failures, worst = [], 0.0
    for i, (b, ours) in enumerate(zip(c["batches"], c["losses"])):
        opt.zero_grad()
        loss = loss_fn(model(tensor(b["inputs"])), tensor(b["targets"]))
        loss.backward()
        if c["max_norm"] > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), c["max_norm"])
        opt.step()
        rel = abs(ours - loss.item()) / abs(loss.item())
        worst = max(worst, rel)
        if rel > RELATIVE:
            failures.append(f"step {i + 1}: loss {ours!r} is {rel:.2e} relative from torch's {loss.item()!r}")
    drift = max(float(((p.detach() - tensor(c["final"][n])).abs().max() / p.detach().abs().max()))
                for n, p in model.named_parameters())
    if "--verbose" in sys.argv:
        print(f"  {c['name']}: {len(c['losses'])} steps, losses {c['losses'][0]:.5f} -> {c['losses'][-1]:.5f}, "
              f"worst relative loss difference {worst:.2e}, final parameters within {drift:.2e} relative")
    return failures, worst


if __name__ == "__main__":
    sys.exit(run_cases(sys.argv, USAGE, "train_parity", "training runs", check_case, "relative"))
