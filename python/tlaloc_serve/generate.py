"""Greedy generation over a language-model artifact laid out as examples/lm exports it:
entry points prefill_<bucket> (tokens i32[1, bucket] padded, the prompt length i32[])
and decode (token i32[1, 1], position i32[], then the caches), each giving the logits
f32[1, vocab] and the caches. The same loop as the C++ and C ones (docs/SERVING.md).

    python3 -m tlaloc_serve.generate DIR PROMPT TOKENS [IDS_FILE]

runs it on the plugin named by TLALOC_PJRT_PLUGIN_PATH, the prompt's bytes as tokens.

Model.run takes and gives host data, so the caches come back to the host after each
step and go in again as the next step's inputs (a copy per step the C++ loop avoids).
"""

import array
import os
import sys

from .errors import InputError, TlalocServeError
from .model import Model

PREFILL = "prefill_"


def lm_shape(model):
    """(buckets ascending, cache capacity) read from the entry points."""
    buckets = sorted(model.entry_point(n).inputs[0].shape[1] for n in model.entry_points() if n.startswith(PREFILL))
    names = model.entry_points()
    decode = model.entry_point("decode") if "decode" in names else None
    if not buckets or decode is None or len(decode.inputs) < 3:
        raise InputError("tlaloc_serve.generate: the artifact has no prefill_<n> entry points or no caches in decode")
    return buckets, decode.inputs[2].shape[1]  # cache.0.k: [1, capacity, kv_heads, d_head]


def check_fits(buckets, capacity, prompt, count):
    """Refuses, naming the sizes, what the artifact cannot run (the C++ loop's wording)."""
    who = "tlaloc_serve.generate"
    if prompt == 0:
        raise InputError(f"{who}: the prompt is empty; prefill needs at least one token")
    if prompt > buckets[-1]:
        raise InputError(f"{who}: a prompt of {prompt} tokens is longer than the largest prefill bucket "
                         f"(buckets: {', '.join(str(b) for b in buckets)})")
    if count < 0 or prompt + count > capacity:
        raise InputError(f"{who}: a prompt of {prompt} tokens and {count} generated do not fit the KV cache of "
                         f"{capacity} positions")


def argmax(logits):
    """The first largest entry of logits f32[1, vocab]."""
    values = logits.to_array()
    return max(range(len(values)), key=values.__getitem__)


def i32(*values):
    return array.array("i", values)


def greedy(model, prompt, count):
    """The prompt's ids (a sequence of ints) then `count` greedy ones, as a list."""
    buckets, capacity = lm_shape(model)
    n = len(prompt)
    check_fits(buckets, capacity, n, count)
    bucket = next(b for b in buckets if b >= n)
    out = model.run(f"{PREFILL}{bucket}", [i32(*prompt, *([0] * (bucket - n))), i32(n)])
    ids = list(prompt)
    for t in range(count):
        ids.append(argmax(out[0]))
        if t + 1 == count:
            break
        out = model.run("decode", [i32(ids[-1]), i32(n + t)] + out[1:])
    return ids


def main(argv):
    if len(argv) not in (4, 5) or not argv[3].isdigit() or int(argv[3]) < 1:
        print("usage: python3 -m tlaloc_serve.generate DIR PROMPT TOKENS [IDS_FILE]  (TOKENS: a whole number >= 1)",
              file=sys.stderr)
        return 2
    prompt = list(os.fsencode(argv[2]))  # the bytes the C loop sees
    try:
        with Model.load(argv[1]) as model:
            ids = greedy(model, prompt, int(argv[3]))
    except TlalocServeError as e:
        print(e, file=sys.stderr)
        return 1
    line = " ".join(str(i) for i in ids)
    print(f"ids: {line}")
    print(bytes(ids).decode("utf-8", "replace"))
    if len(argv) == 5:
        with open(argv[4], "w") as f:
            f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
