"""The GPU check's JAX side: the same training step as tlaloc_gpu_check (MLP
784-256-10, softmax cross-entropy on integer labels, Adam lr 1e-3, batch 64) jitted
with the parameters and optimizer state donated, the loss fetched to the host every
step as Tlaloc's loop does. Prints one line: "jax <version> <platform>: S steps/s".

Usage: python3 jax_mlp.py [steps]
"""
import statistics
import sys
import time

import jax
import jax.numpy as jnp


def init(key, sizes):
    params = []
    for k, (n_in, n_out) in zip(jax.random.split(key, len(sizes) - 1), zip(sizes, sizes[1:])):
        bound = 1.0 / n_in ** 0.5
        kw, kb = jax.random.split(k)
        params.append((jax.random.uniform(kw, (n_in, n_out), minval=-bound, maxval=bound),
                       jax.random.uniform(kb, (n_out,), minval=-bound, maxval=bound)))
    return params


def loss_fn(params, x, y):
    for i, (w, b) in enumerate(params):
        x = x @ w + b
        if i + 1 < len(params):
            x = jax.nn.relu(x)
    logp = jax.nn.log_softmax(x)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


def step(params, m, v, t, x, y, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    loss, g = jax.value_and_grad(loss_fn)(params, x, y)
    t = t + 1
    m = jax.tree_util.tree_map(lambda m_, g_: b1 * m_ + (1 - b1) * g_, m, g)
    v = jax.tree_util.tree_map(lambda v_, g_: b2 * v_ + (1 - b2) * g_ * g_, v, g)
    c1, c2 = 1 - b1 ** t, 1 - b2 ** t
    params = jax.tree_util.tree_map(lambda p, m_, v_: p - lr * (m_ / c1) / (jnp.sqrt(v_ / c2) + eps), params, m, v)
    return params, m, v, t, loss


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    k = jax.random.split(jax.random.PRNGKey(7), 3)
    params = init(k[0], [784, 256, 10])
    m = jax.tree_util.tree_map(jnp.zeros_like, params)
    v = jax.tree_util.tree_map(jnp.zeros_like, params)
    t = jnp.zeros((), jnp.float32)
    x = jax.random.normal(k[1], (64, 784))
    y = jax.random.randint(k[2], (64,), 0, 10)
    train = jax.jit(step, donate_argnums=(0, 1, 2, 3))
    for _ in range(5):  # compile and warm up
        params, m, v, t, loss = train(params, m, v, t, x, y)
        float(loss)
    rates = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(steps):
            params, m, v, t, loss = train(params, m, v, t, x, y)
            float(loss)  # only the loss comes to the host, every step
        rates.append(steps / (time.perf_counter() - t0))
    print(f"jax {jax.__version__} {jax.devices()[0].platform}: {statistics.median(rates):.1f} steps/s")


if __name__ == "__main__":
    main()
