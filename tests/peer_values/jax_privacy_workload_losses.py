"""Reference per-query squared errors ‖e_tᵀ W C⁻¹‖² from jax_privacy 2.0 for momentum / learning-rate workloads W
(seed 003 Eq. 9 with B = W C⁻¹; read by tests/test_workload_losses.py).

Run in a scratch venv with `pip install jax-privacy==2.0.0` (not a dependency of dptheory), in float64:
    python tests/peer_values/jax_privacy_workload_losses.py   (writes the JSON beside it)

Mechanisms (jax_privacy names; the strategy C or its noising matrix C⁻¹, both lower-triangular Toeplitz):
  * sqrt: toeplitz.optimal_max_error_strategy_coefs(n) / optimal_max_error_noising_coefs(n) (dptheory optimal_cc());
  * banded: the banded Toeplitz strategy coefs BANDED_STRATEGY (dptheory BandedToeplitz(BANDED_STRATEGY));
  * finite_noising: the finite noising coefs FINITE_NOISING (dptheory toeplitz(FINITE_NOISING));
  * blt: buffered_toeplitz.BufferedToeplitz.build(buf_decay=BLT_DECAY, output_scale=BLT_SCALE) as the strategy C
    (dptheory BLT(BLT_DECAY, BLT_SCALE)); its toeplitz_coefs(n) and inverse().toeplitz_coefs(n) are stored too.
Workloads: streaming_matrix.momentum_sgd_matrix(momentum=β, learning_rates=η) for β in MOMENTA and the schedules of
SCHEDULES. Toeplitz W (a constant rate): toeplitz.per_query_error(noising_coef=ĉ, workload_coef=w) (for the BLT:
strategy_coef=c), w the first column of the materialised W. Any W: the squared row norms of
W.materialize(n) @ materialize_lower_triangular(ĉ) (dense, jax) and, as a cross-check inside jax,
(W @ C⁻¹ as a StreamingMatrix).row_norms_squared(n).

Each case stores the energies at INDEX(n) (all of them for n <= 16), their max and mean, and the two within-jax
cross-checks (max relative difference of per_query_error or the streaming product against the dense product).
"""
import json
import time
from importlib.metadata import version
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax_privacy.matrix_factorization import buffered_toeplitz, streaming_matrix, toeplitz  # noqa: E402

NS = [16, 100, 512]
MOMENTA = [0.0, 0.5, 0.9]
BANDED_STRATEGY = [1.0, 0.6, 0.35, 0.15]
FINITE_NOISING = [1.0, -0.6, 0.1]
BLT_DECAY = [0.95, 0.6]
BLT_SCALE = [0.3, 0.2]


def schedule(name, n):
    """The learning rates η_0 … η_{n−1} of a named schedule (stored in the JSON as well)."""
    t = np.arange(n)
    if name == "constant_1":
        return np.ones(n)
    if name == "constant_0.3":
        return np.full(n, 0.3)
    if name == "cosine":  # 1 → 0.1 over the horizon
        return 0.1 + 0.45 * (1.0 + np.cos(np.pi * t / n))
    if name == "linear_decay":  # 1 → 0.1 + 0.9/n
        return 1.0 - 0.9 * t / n
    raise ValueError(name)


SCHEDULES = ["constant_1", "constant_0.3", "cosine", "linear_decay"]


def index(n):
    if n <= 16:
        return list(range(n))
    geo = np.unique(np.round(np.geomspace(1, n - 1, 16)).astype(int))
    return sorted(set([0, 1, 2, n // 2, n - 2, n - 1] + geo.tolist()))


def mechanism(name, n):
    """(noising coefs ĉ, strategy coefs c or None, C⁻¹ as a StreamingMatrix)."""
    if name == "sqrt":
        c = toeplitz.optimal_max_error_strategy_coefs(n)
        return toeplitz.optimal_max_error_noising_coefs(n), c, toeplitz.inverse_as_streaming_matrix(c)
    if name == "banded":
        c = jnp.array(BANDED_STRATEGY)
        return toeplitz.inverse_coef(c, n), toeplitz.pad_coefs_to_n(c, n), toeplitz.inverse_as_streaming_matrix(c)
    if name == "finite_noising":
        chat = toeplitz.pad_coefs_to_n(jnp.array(FINITE_NOISING), n)
        return chat, None, None
    if name == "blt":
        blt = buffered_toeplitz.BufferedToeplitz.build(buf_decay=BLT_DECAY, output_scale=BLT_SCALE)
        return blt.inverse().toeplitz_coefs(n), blt.toeplitz_coefs(n), blt.inverse_as_streaming_matrix()
    raise ValueError(name)


def rel(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b)) / np.abs(np.asarray(b))))


def main():
    cases, inputs = [], {"learning_rates": {}, "blt_coefs": {}}
    worst_cross = 0.0
    for n in NS:
        for s in SCHEDULES:
            inputs["learning_rates"][f"{s}/{n}"] = schedule(s, n).tolist()
        blt = buffered_toeplitz.BufferedToeplitz.build(buf_decay=BLT_DECAY, output_scale=BLT_SCALE)
        inv = blt.inverse()
        inputs["blt_coefs"][str(n)] = {
            "strategy": np.asarray(blt.toeplitz_coefs(n)).tolist(),
            "noising": np.asarray(inv.toeplitz_coefs(n)).tolist(),
            "inverse_buf_decay": np.asarray(inv.buf_decay).tolist(),
            "inverse_output_scale": np.asarray(inv.output_scale).tolist(),
        }
        for mech in ["sqrt", "banded", "finite_noising", "blt"]:
            chat, c, cinv_stream = mechanism(mech, n)
            Cinv = toeplitz.materialize_lower_triangular(chat)
            for beta in MOMENTA:
                for s in SCHEDULES:
                    t0 = time.time()
                    lrs = jnp.array(schedule(s, n))
                    W_stream = streaming_matrix.momentum_sgd_matrix(momentum=beta, learning_rates=lrs)
                    W = W_stream.materialize(n)
                    dense = np.asarray(jnp.sum((W @ Cinv) ** 2, axis=1))
                    rec = dict(n=n, mechanism=mech, momentum=beta, schedule=s)
                    checks = {}
                    if s.startswith("constant"):
                        w = W[:, 0]
                        if mech == "blt":
                            pq = toeplitz.per_query_error(strategy_coef=c, workload_coef=w)
                        else:
                            pq = toeplitz.per_query_error(noising_coef=chat, workload_coef=w)
                        pq = np.asarray(pq)
                        checks["per_query_error_vs_dense"] = rel(pq, dense)
                        energies, route = pq, "toeplitz.per_query_error"
                    else:
                        energies, route = dense, "dense W @ C^-1"
                    if cinv_stream is not None:
                        stream = np.asarray((W_stream @ cinv_stream).row_norms_squared(n))
                        checks["streaming_vs_dense"] = rel(stream, dense)
                    worst_cross = max([worst_cross, *checks.values()])
                    idx = index(n)
                    rec.update(route=route, index=idx, energies=[float(energies[i]) for i in idx],
                               max=float(np.max(energies)), mean=float(np.mean(energies)), cross_checks=checks,
                               seconds=round(time.time() - t0, 3))
                    cases.append(rec)
                    print(n, mech, beta, s, route, f"max={rec['max']:.10g}", checks, flush=True)

    source = (
        f"jax_privacy {version('jax-privacy')}, jax {version('jax')}, jaxlib {version('jaxlib')}, "
        f"numpy {version('numpy')}, float64 (jax_enable_x64). Workload W = "
        "streaming_matrix.momentum_sgd_matrix(momentum, learning_rates).materialize(n); energies = "
        "toeplitz.per_query_error(noising_coef=chat | strategy_coef=c (blt), workload_coef=W[:, 0]) for constant "
        "rates, else sum((W @ toeplitz.materialize_lower_triangular(chat))**2, axis=1). Mechanisms: sqrt = "
        "toeplitz.optimal_max_error_{strategy,noising}_coefs(n); banded = toeplitz.inverse_coef(BANDED_STRATEGY, n); "
        "finite_noising = FINITE_NOISING padded; blt = buffered_toeplitz.BufferedToeplitz.build(buf_decay=BLT_DECAY, "
        "output_scale=BLT_SCALE) as the strategy, noising = .inverse().toeplitz_coefs(n). "
        f"Largest within-jax cross-check (per_query_error or streaming row_norms_squared vs dense): {worst_cross:.3g}.")
    out = dict(source=source, banded_strategy=BANDED_STRATEGY, finite_noising=FINITE_NOISING, blt_decay=BLT_DECAY,
               blt_scale=BLT_SCALE, momenta=MOMENTA, schedules=SCHEDULES, ns=NS, inputs=inputs, cases=cases)
    with open(Path(__file__).with_suffix(".json"), "w") as f:
        json.dump(out, f, indent=0)
    print("worst within-jax cross-check:", worst_cross, "cases:", len(cases))


if __name__ == "__main__":
    main()
