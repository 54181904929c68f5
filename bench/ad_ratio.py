"""Ratios from ad_bench's JSON and ad_torch_bench.py's, each possibly from several
rounds run alternately (a case's time is the median over rounds of each round's
median). Usage: ad_ratio.py --ours r1.json [r2.json ...] --theirs t1.json [t2.json ...]"""
import sys

from compare import combine, load_ours, load_theirs


def main():
    args = sys.argv[1:]
    split = args.index("--theirs")
    m = combine([load_ours(p) for p in args[1:split]])
    m.update(combine([load_theirs(p) for p in args[split + 1:]]))
    threads = sorted({int(n.rsplit("/", 1)[1]) for n in m if n.startswith("BM_mlp_value_and_grad/")})
    for t in threads:
        fwd, vg = m[f"BM_mlp_loss_forward/{t}"], m[f"BM_mlp_value_and_grad/{t}"]
        print(f"MLP 784-512-512-10 batch 256 f32, {t} thread(s):")
        print(f"  jit(value_and_grad(loss)) {vg * 1e3:.3f} ms / jit(loss) {fwd * 1e3:.3f} ms = {vg / fwd:.2f} (target <= 3)")
        if f"torch_mlp_forward_backward/{t}" in m:
            tfb = m[f"torch_mlp_forward_backward/{t}"]
            print(f"  jit(value_and_grad(loss)) / PyTorch forward + backward {tfb * 1e3:.3f} ms = {vg / tfb:.2f}"
                  " (target <= 0.8)")
            tf = m[f"torch_mlp_loss_forward/{t}"]
            print(f"  (jit(loss) / PyTorch forward {tf * 1e3:.3f} ms = {fwd / tf:.2f})")
        first, cached = m[f"BM_mlp_grad_first_call/{t}"], m[f"BM_mlp_grad_cached_call/{t}"]
        print(f"  first call of jit(grad(loss)): {first * 1e3:.2f} ms (target <= 20 ms), {first / cached:.1f} cached "
              f"calls")
        compile_ = m[f"BM_mlp_grad_compile/{t}"]
        print(f"  of which trace + differentiate + optimize + plan alone: {compile_ * 1e3:.2f} ms")
        prog = m[f"BM_mlp_value_and_grad_program/{t}"]
        print(f"  cached jit(value_and_grad) call - its program run directly: {(vg - prog) * 1e6:.1f} us"
              " (the difference of two ~ms times: within their noise; the 8-element case below measures it)")
        tiny, tiny_prog = m[f"BM_tiny_grad_cached_call/{t}"], m[f"BM_tiny_grad_program/{t}"]
        print(f"  8 elements: cached jit(grad) call {tiny * 1e6:.2f} us - program {tiny_prog * 1e6:.2f} us = "
              f"{(tiny - tiny_prog) * 1e6:.2f} us overhead (target <= 5 us)")


if __name__ == "__main__":
    main()
