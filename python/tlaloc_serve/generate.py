"""Greedy generation over a language-model artifact laid out as examples/lm exports it:
entry points prefill (tokens i32[1, seq], seq bounded: the runtime pads the prompt to a
bucket) and decode (token i32[1, 1], position i32[], then the caches), each giving the logits
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

def lm_shape(model):
    """(prefill's bound on the prompt's length, cache capacity) read from the entry points."""
    names = model.entry_points()
    prefill = model.entry_point("prefill") if "prefill" in names else None
    decode = model.entry_point("decode") if "decode" in names else None
    if prefill is None or len(prefill.bounded) != 1 or decode is None or len(decode.inputs) < 3:
        raise InputError("tlaloc_serve.generate: the artifact's prefill is not bounded in the prompt's length, or "
                         "decode has no caches")
    return prefill.bounded[0].bound, decode.inputs[2].shape[1]  # cache.0.k: [1, capacity, kv_heads, d_head]


def check_fits(bound, capacity, prompt, count):
    """Refuses, naming the sizes, what the artifact cannot run (the C++ loop's wording)."""
    who = "tlaloc_serve.generate"
    if prompt == 0:
        raise InputError(f"{who}: the prompt is empty; prefill needs at least one token")
    if prompt > bound:
        raise InputError(f"{who}: a prompt of {prompt} tokens is longer than prefill's bound of {bound}")
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
    bound, capacity = lm_shape(model)
    n = len(prompt)
    check_fits(bound, capacity, n, count)
    out = model.run("prefill", [i32(*prompt)])
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
