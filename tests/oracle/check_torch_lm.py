#!/usr/bin/python3
"""The oracle lane's check of examples/lm's generation: loads the weights the artifact
serves (its weights.safetensors, read here with the standard library: Debian's
PyTorch has no safetensors module) into the same DecoderLM written in PyTorch with
load_state_dict(strict=True), generates greedily from the same prompt recomputing the
whole sequence for each token (no cache), and requires the artifact's ids exactly and
each step's logits within TOLERANCE.

    /usr/bin/python3 check_torch_lm.py TRACE.json [--perturb] [--verbose]

TRACE.json is what `lm --trace` writes. The bound is absolute: logits are not
normalised, but this small model's rows stay within about +-10, where f32 spacing is
~1e-6 and the two sides' different summation orders through two blocks leave a few
of those; 1e-4 (the bound asked of this check) is two orders above that and far
below what a wrong rotary position, cache entry or mask gives. --perturb adds 1e-2
to one element of norm.weight before comparing: the check must then fail
(a test of the checker). Exits 1 on any failure.
"""

import json
import struct
import sys

from check_torch_train import DecoderLM
from oracle_torch import torch

TOLERANCE = 1e-4
USAGE = "usage: check_torch_lm.py TRACE.json [--perturb] [--verbose]"


def read_safetensors(path):
    """The file's F32 tensors by name, as torch tensors."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    header.pop("__metadata__", None)
    tensors = {}
    for name, info in header.items():
        if info["dtype"] != "F32":
            raise ValueError(f"{path}: {name} is {info['dtype']}, this reader takes F32 only")
        begin, end = info["data_offsets"]
        raw = bytearray(data[8 + n + begin:8 + n + end])
        tensors[name] = torch.frombuffer(raw, dtype=torch.float32).reshape(info["shape"])
    return tensors


def load_model(trace):
    """The PyTorch DecoderLM of the trace's sizes with the artifact's weights."""
    model = DecoderLM(trace)
    model.load_state_dict(read_safetensors(trace["weights"]), strict=True)
    return model.eval()


def check(trace, model):
    """The failures, as strings, and the largest logit difference."""
    prompt, ours = trace["prompt"], trace["ids"]
    failures, worst = [], 0.0
    ids = list(prompt)
    with torch.no_grad():
        for step, row in enumerate(trace["logits"]):
            logits = model(torch.tensor([ids]))[0, -1]
            diff = float((torch.tensor(row) - logits).abs().max())
            worst = max(worst, diff)
            if diff > TOLERANCE:
                failures.append(f"step {step}: logits differ by {diff:.2e} (bound {TOLERANCE:g})")
            ids.append(int(logits.argmax()))
    if ids != ours:
        at = next(i for i, (a, b) in enumerate(zip(ids, ours)) if a != b) if len(ids) == len(ours) else -1
        failures.append(f"ids differ from position {at}: torch {ids[len(prompt):]} artifact {ours[len(prompt):]}")
    return failures, worst, ids == ours


def main(argv):
    if len(argv) < 2:
        print(USAGE, file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    with open(argv[1], encoding="utf-8") as f:
        trace = json.load(f)
    model = load_model(trace)
    if "--perturb" in argv:
        with torch.no_grad():
            model.norm.weight[0] += 1e-2
    if len(trace["logits"]) != len(trace["ids"]) - len(trace["prompt"]):
        print(f"FAIL lm_generation: {len(trace['logits'])} logit rows for "
              f"{len(trace['ids']) - len(trace['prompt'])} generated ids")
        return 1
    failures, worst, same = check(trace, model)
    for f in failures:
        print(f"FAIL lm_generation: {f}")
    scale = max(abs(v) for row in trace["logits"] for v in row)
    print(f"lm_generation: {len(trace['logits'])} steps, ids {'equal' if same else 'differ'}, "
          f"largest logit difference {worst:.2e} (logits up to {scale:.1f})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
