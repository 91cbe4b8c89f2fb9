"""Reference banded strategies from jax_privacy 2.0 (``matrix_factorization.toeplitz.optimize_banded_toeplitz``,
``matrix_factorization.banded.optimize`` / ``per_query_error``), for tests/test_bandtoep.py and tests/test_banded.py.

Run in a scratch venv with `pip install jax-privacy==2.0.0` (not a dependency of dptheory):
    python tests/peer_values/jax_privacy_banded.py   (writes the JSON beside it)

Losses are jax's: SQUARED (error^2 x sens^2; dptheory's are unsquared, errata 003 C11). Every case stores its inputs
and jax's optimised coefficients, so a test can evaluate dptheory's loss at jax's point and compare optima.
"""
import json
import time
from importlib.metadata import version
from pathlib import Path

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
from jax_privacy.matrix_factorization import banded, streaming_matrix, toeplitz  # noqa: E402

# BandToep: (n, bands, reduction) on the prefix workload, single-participation sensitivity ||c||^2
TOEP = [(2052, 342, "mean"), (2052, 32, "mean"), (500, 20, "mean"), (1000, 8, "max"), (300, 300, "mean")]
# BandMF: (n, bands, momentum, lr schedule or None, steps)
MF = [(64, 8, 0.0, None, 200), (96, 12, 0.9, None, 200), (80, 10, 0.5, "cosine", 200)]


def lr_schedule(kind, n):
    if kind is None:
        return None
    t = np.arange(n)
    return 0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * t / n))  # cosine decay from 1 to 0.1


out = {"jax_privacy": version("jax-privacy"), "bandtoep": [], "bandmf": []}
for n, b, red in TOEP:
    fn = jnp.mean if red == "mean" else jnp.max
    t0 = time.perf_counter()
    c = toeplitz.optimize_banded_toeplitz(n, b, reduction_fn=fn)
    seconds = time.perf_counter() - t0
    loss = float(toeplitz.loss(c, n, reduction_fn=fn))
    out["bandtoep"].append({"n": n, "bands": b, "reduction": red, "coeffs": np.asarray(c).tolist(),
                            "loss_squared": loss, "seconds": seconds})
    print("bandtoep", n, b, red, loss, seconds)
for n, b, beta, kind, steps in MF:
    lrs = lr_schedule(kind, n)
    A = streaming_matrix.momentum_sgd_matrix(beta, None if lrs is None else jnp.asarray(lrs))
    t0 = time.perf_counter()
    C = banded.optimize(n, bands=b, A=A, max_optimizer_steps=steps)
    seconds = time.perf_counter() - t0
    err = np.asarray(banded.per_query_error(C, A=A))
    out["bandmf"].append({"n": n, "bands": b, "momentum": beta, "learning_rates": None if lrs is None else lrs.tolist(),
                          "steps": steps, "C": np.asarray(C.materialize()).tolist(),
                          "per_query_error": err.tolist(), "mean_error": float(err.mean()), "seconds": seconds})
    print("bandmf", n, b, beta, kind, float(err.mean()), seconds)
Path(__file__).with_suffix(".json").write_text(json.dumps(out, indent=1))
