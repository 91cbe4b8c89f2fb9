"""Seed 003's errors and losses (Eqs. 9–10) for a general workload ``W`` (``losses.*(…, workload=)``).

The decoder is ``B = W C⁻¹``; its row energies ``‖e_tᵀ B‖²`` take three routes (``losses._workload_energies``):
prefix sums (the mechanism's ``row_energies(1, n)``), the Toeplitz convolution (Toeplitz mechanism and constant
rate), the forward substitution with ``W⁻¹``'s bands (any other pair). Each is checked against

* an independent dense oracle: ``W`` by the loop of its definition ``W_{t,r} = Σ_{s=r}^{t} η_s β^{s−r}`` (and
  ``Workload.matrix``) times ``np.linalg.inv`` of the mechanism's dense strategy (a tree: ``A⁻¹`` times its
  decoder), to 1e-12 relative on every energy at ``n ≤ 64``: each entry of ``B`` is a sum of at most 64 products,
  the inverse of a strategy of condition number ≤ 10³ is accurate to ~1e-13, and the energies sum squares (no
  cancellation), so both sides are within a few hundred ulps of the truth;
* jax_privacy 2.0 (``tests/peer_values/jax_privacy_workload_losses.json``, written by the script beside it;
  ``toeplitz.per_query_error(noising_coef=…, workload_coef=…)`` for a constant rate, the squared row norms of
  ``momentum_sgd_matrix(β, η).materialize(n) @ C⁻¹`` for a schedule): 144 cases, ``n ∈ {16, 100, 512}``,
  ``β ∈ {0, 0.5, 0.9}``, four schedules, four Toeplitz mechanisms (√-factorisation, a banded strategy, a finite
  noising, a BLT), to 1e-10 relative: both sides are float64 with rounding ``~ n·ε ≈ 1e-13`` at ``n = 512`` (jax's
  own routes agree to 1e-14), and the BLT's noising coefficients come from different inversions (jax's
  ``inverse()``, dptheory's Alg. 5), agreeing to ~1e-14; 1e-10 leaves a margin of 10³ while any error in a
  formula (an exclusive sum, a wrong power of β, a shifted rate) moves the energies by ≥ 1e-3.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dptheory as dpt
from dptheory.mechanisms import (BLT, BandedToeplitz, DenseMechanism, TreeAggregation, banded_sqrt, losses,
                                 momentum_workload, prefix_sums, workloads)

ROOT = Path(__file__).resolve().parent.parent
PEER = json.loads((Path(__file__).parent / "peer_values" / "jax_privacy_workload_losses.json").read_text())

DENSE_RTOL = 1e-12
JAX_RTOL = 1e-10


def loop_workload(momentum: float, rates) -> np.ndarray:
    """``W_{t,r} = Σ_{s=r}^{t} η_s β^{s−r}`` by loops (the definition; nothing shared with ``workloads.py``)."""
    n = len(rates)
    W = np.zeros((n, n))
    for t in range(n):
        for r in range(t + 1):
            W[t, r] = sum(rates[s] * momentum ** (s - r) for s in range(r, t + 1))
    return W


def oracle_energies(mechanism, W: np.ndarray) -> np.ndarray:
    """``‖e_tᵀ W C⁻¹‖²`` by ``np.linalg.inv`` of the dense strategy (a tree's is ``m × n``: ``W A⁻¹`` times its
    decoder)."""
    n = W.shape[0]
    C = mechanism.strategy_matrix(n)
    if C.shape[0] == n:
        B = W @ np.linalg.inv(C)
    else:
        B = W @ np.linalg.inv(np.tril(np.ones((n, n)))) @ mechanism.decoder_matrix(n)
    return np.sum(B * B, axis=1)


def rel(a, b) -> float:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b) / np.abs(b)))


N = 48
MECHANISMS = {
    "optimal_cc": lambda: dpt.optimal_cc(),
    "nu_ftrl": lambda: dpt.nu_ftrl(0.05),
    "finite": lambda: dpt.toeplitz([1.0, -0.6, 0.1]),
    "blt": lambda: BLT([0.9, 0.5], [0.2, 0.15]),
    "banded_toeplitz": lambda: BandedToeplitz([1.0, 0.6, 0.35, 0.15]),
    "banded_dense": lambda: banded_sqrt(64, 4),
    "dense": lambda: DenseMechanism(np.tril(np.random.default_rng(3).uniform(0.2, 1.0, (64, 64))) + 2 * np.eye(64)),
    "tree_honaker": lambda: TreeAggregation("honaker"),
    "tree_vanilla": lambda: TreeAggregation("vanilla"),
    "tree_full": lambda: TreeAggregation("full"),
}
SCHEDULES = {
    "constant 1": None,
    "constant 0.3": np.full(64, 0.3),
    "cosine": 0.1 + 0.45 * (1.0 + np.cos(np.pi * np.arange(64) / 64)),
}
MOMENTA = (0.0, 0.5, 0.9)
DENSE_CASES = [(m, beta, s) for m in MECHANISMS for beta in MOMENTA for s in SCHEDULES]


@pytest.mark.parametrize("mech, beta, schedule", DENSE_CASES)
def test_every_route_against_the_dense_oracle(mech, beta, schedule):
    mechanism = MECHANISMS[mech]()
    wl = momentum_workload(beta, SCHEDULES[schedule])
    rates = np.ones(N) if SCHEDULES[schedule] is None else SCHEDULES[schedule][:N]
    W = loop_workload(beta, rates)
    assert np.allclose(wl.matrix(N), W, rtol=1e-13, atol=0.0)
    e = losses._workload_energies(mechanism, N, wl)
    ref = oracle_energies(mechanism, W)
    assert rel(e, ref) < DENSE_RTOL
    assert math.isclose(losses.max_error(mechanism, N, workload=wl), math.sqrt(ref.max()), rel_tol=DENSE_RTOL)
    assert math.isclose(losses.rms_error(mechanism, N, workload=wl), math.sqrt(ref.mean()), rel_tol=DENSE_RTOL)


def test_routes_are_the_ones_the_module_names(monkeypatch):
    """The Toeplitz pair convolves, a schedule or a non-Toeplitz mechanism substitutes, prefix sums never leave
    ``row_energies``."""
    calls = []
    conv, solve = losses._truncated_convolution, losses._banded_solve_energies
    monkeypatch.setattr(losses, "_truncated_convolution", lambda *a: calls.append("conv") or conv(*a))
    monkeypatch.setattr(losses, "_banded_solve_energies", lambda *a: calls.append("solve") or solve(*a))
    losses.max_error(dpt.optimal_cc(), 16, workload=momentum_workload(0.9))
    losses.max_error(dpt.optimal_cc(), 16, workload=momentum_workload(0.9, np.linspace(1, 0.5, 16)))
    losses.max_error(TreeAggregation(), 16, workload=momentum_workload(0.9))
    losses.max_error(dpt.optimal_cc(), 16, workload=momentum_workload(0.0, np.ones(16)))
    losses.max_error(dpt.optimal_cc(), 16)
    assert calls == ["conv", "solve", "solve"]


def test_the_fft_convolution_matches_the_direct_one():
    """Above ``_DIRECT_CONVOLUTION_MAX`` steps the convolution is by FFT: its energies agree with the direct sum to
    1e-12 relative at n = 3000 (an absolute error of a few ulps of ``‖w‖₂‖ĉ‖₂`` on each ``b_k``, against energies
    ``≥ b_0² = 1``)."""
    n = 3000
    assert n > workloads._DIRECT_CONVOLUTION_MAX
    for mech in (dpt.optimal_cc(), BLT([0.95, 0.6], [0.3, 0.2])):
        w, c = momentum_workload(0.9).toeplitz_coeffs(n), mech.noising_coeffs(n)
        direct = np.cumsum(np.convolve(w, c)[:n] ** 2)
        assert rel(np.cumsum(losses._truncated_convolution(w, c) ** 2), direct) < 1e-12
        assert rel(losses._workload_energies(mech, n, momentum_workload(0.9)), direct) < 1e-12


def test_the_default_is_prefix_sums_unchanged():
    for mech in (dpt.optimal_cc(), BLT([0.9, 0.5], [0.2, 0.15]), TreeAggregation("honaker"), banded_sqrt(32, 4)):
        before = mech.row_energies(1.0, 32)
        for wl in (None, prefix_sums(), momentum_workload(0.0), momentum_workload(0.0, np.ones(40))):
            assert np.array_equal(losses._energies(mech, 32, wl), before)
            assert losses.max_error(mech, 32, workload=wl) == math.sqrt(before.max())
        assert losses.prefix_loss(mech, 32) == losses.prefix_loss(mech, 32, workload=prefix_sums())


def test_prefix_loss_carries_the_workload_and_the_sensitivity_is_unchanged():
    P = dpt.Participation(max_participations=2, min_sep=8)
    mech, wl = BLT([0.9, 0.5], [0.2, 0.15]), momentum_workload(0.9, np.linspace(1.0, 0.1, 32))
    plain, loss = losses.prefix_loss(mech, 32, P), losses.prefix_loss(mech, 32, P, workload=wl)
    assert loss.workload == wl and plain.workload == prefix_sums()
    assert loss.sensitivity == plain.sensitivity == mech.sensitivity(32, P)
    ref = oracle_energies(mech, loop_workload(0.9, np.linspace(1.0, 0.1, 32)))
    assert math.isclose(loss.max_error, math.sqrt(ref.max()), rel_tol=DENSE_RTOL)
    assert math.isclose(loss.max_loss, math.sqrt(ref.max()) * plain.sensitivity, rel_tol=DENSE_RTOL)
    assert math.isclose(loss.rms_loss, math.sqrt(ref.mean()) * plain.sensitivity, rel_tol=DENSE_RTOL)
    assert losses.max_loss(mech, 32, P, workload=wl) == loss.max_loss
    assert losses.rms_loss(mech, 32, P, workload=wl) == loss.rms_loss
    assert "workload=momentum(β=0.9, 32 learning rates)" in repr(loss)
    assert "workload" not in repr(plain)


# -- jax_privacy 2.0 ---------------------------------------------------------------------------------------------

def _peer_mechanism(name: str):
    if name == "sqrt":
        return dpt.optimal_cc()
    if name == "banded":
        return BandedToeplitz(PEER["banded_strategy"])
    if name == "finite_noising":
        return dpt.toeplitz(PEER["finite_noising"])
    if name == "blt":
        return BLT(PEER["blt_decay"], PEER["blt_scale"])
    raise ValueError(name)


def _peer_workload(case: dict):
    return momentum_workload(case["momentum"], PEER["inputs"]["learning_rates"][f"{case['schedule']}/{case['n']}"])


def test_the_peer_file_covers_the_cases_the_issue_names():
    cases = PEER["cases"]
    assert len(cases) == 144 and {c["n"] for c in cases} == {16, 100, 512}
    assert {c["momentum"] for c in cases} == {0.0, 0.5, 0.9}
    assert {c["route"] for c in cases} == {"toeplitz.per_query_error", "dense W @ C^-1"}
    assert max(v for c in cases for v in c["cross_checks"].values()) < 1e-13  # jax's routes agree among themselves
    assert "jax_privacy 2.0.0" in PEER["source"]


@pytest.mark.parametrize("n", [16, 100, 512])
def test_blt_coefficients_match_jax(n):
    """dptheory's BLT(θ, ω) is jax's BufferedToeplitz(buf_decay=θ, output_scale=ω) as the strategy; its inverse (Alg.
    5 here, ``.inverse()`` there) gives the same noising coefficients."""
    ref = PEER["inputs"]["blt_coefs"][str(n)]
    blt = _peer_mechanism("blt")
    assert rel(blt.strategy_coeffs(n), ref["strategy"]) < 1e-14
    chat = np.asarray(ref["noising"])
    assert np.max(np.abs(blt.noising_coeffs(n) - chat)) < 1e-14 * np.max(np.abs(chat))


@pytest.mark.parametrize("group", ["sqrt", "banded", "finite_noising", "blt"])
def test_workload_energies_match_jax_privacy(group):
    worst = 0.0
    for case in (c for c in PEER["cases"] if c["mechanism"] == group):
        mech, wl, n = _peer_mechanism(group), _peer_workload(case), case["n"]
        e = losses._energies(mech, n, wl)
        d = max(rel(e[case["index"]], case["energies"]), rel(e.max(), case["max"]), rel(e.mean(), case["mean"]))
        assert d < JAX_RTOL, (case["n"], case["momentum"], case["schedule"], d)
        assert math.isclose(losses.max_error(mech, n, workload=wl), math.sqrt(case["max"]), rel_tol=JAX_RTOL)
        worst = max(worst, d)
    print(f"{group}: worst relative difference against jax_privacy {worst:.2e}")


# -- bad inputs and size -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, match", [
    (lambda: losses.max_error(dpt.optimal_cc(), 8, workload="momentum"), "workload"),
    (lambda: losses.rms_error(dpt.optimal_cc(), 8, workload=0.9), "workload"),
    (lambda: losses.prefix_loss(dpt.optimal_cc(), 8, workload=np.ones((8, 8))), "workload"),
    (lambda: losses.max_loss(dpt.optimal_cc(), 8, workload=momentum_workload(0.5, [1.0] * 4)),
     r"learning_rates holds 4 rates, fewer than the n = 8"),
    (lambda: losses.rms_loss(TreeAggregation(), 8, workload=momentum_workload(0.0, [1.0] * 7)),
     r"learning_rates holds 7 rates, fewer than the n = 8"),
    (lambda: losses.max_error(dpt.optimal_cc(), 8, workload=momentum_workload(1.0)), "momentum"),
    (lambda: losses.max_error(dpt.optimal_cc(), 8, workload=momentum_workload(-0.1)), "momentum"),
    (lambda: losses.max_error(dpt.optimal_cc(), 8, workload=momentum_workload(0.5, [1.0, 0.0] * 4)), "learning_rates"),
    (lambda: losses.max_error(dpt.optimal_cc(), 0, workload=momentum_workload(0.5)), r"\bn\b"),
    (lambda: losses.max_error("optimal_cc", 8, workload=momentum_workload(0.5)), "mechanism"),
])
def test_bad_inputs_name_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


LIMIT = 2 << 30
SIZE_CASES = [
    ("tree-schedule", "L.max_error(M.TreeAggregation(), 10**5, workload=M.momentum_workload(0.9, np.linspace(1, 0.1, "
                      "10**5)))", "n = 100000 needs"),
    ("dense-constant", "L.rms_loss(M.TreeAggregation('full'), 10**6, workload=M.momentum_workload(0.9))",
     "n = 1000000 needs"),
    ("toeplitz-constant-1e9", "L.max_error(dpt.optimal_cc(), 10**9, workload=M.momentum_workload(0.9))",
     "n = 1000000000 needs"),
    ("blt-constant-1e6", "L.max_error(dpt.BLT([0.95, 0.6], [0.3, 0.2]), 10**6, workload=M.momentum_workload(0.9))",
     None),
]
CHILD = f"""
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))
import numpy as np
import dptheory as dpt
from dptheory import mechanisms as M
from dptheory.mechanisms import losses as L
out = {{}}
for ident, code in json.loads(sys.argv[1]):
    try:
        out[ident] = {{"value": float(eval(code))}}
    except BaseException as exc:
        out[ident] = {{"error": type(exc).__name__, "message": str(exc)[:300]}}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def size_outcomes():
    cases = json.dumps([(ident, code) for ident, code, _ in SIZE_CASES])
    proc = subprocess.run([sys.executable, "-c", CHILD, cases], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize("ident, code, begins", SIZE_CASES, ids=[c[0] for c in SIZE_CASES])
def test_refused_before_allocating_or_served(size_outcomes, ident, code, begins):
    """Under ``RLIMIT_AS = 2 GiB`` (``tests/test_size_refusals.py``): the dense route refuses a non-Toeplitz pair at
    ``n = 10⁵`` and the Toeplitz route at ``n = 10⁹`` before allocating, while the convolution serves ``n = 10⁶``."""
    got = size_outcomes[ident]
    if begins is None:
        assert "value" in got and math.isfinite(got["value"]), got
        return
    assert got.get("error") == "ValueError", got
    assert got["message"].startswith(begins) and "the largest" in got["message"], got["message"]
