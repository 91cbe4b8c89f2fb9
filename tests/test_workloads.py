"""The workload ``W = A · diag(η) · M_β`` of momentum-SGD's iterates (``dptheory.mechanisms.workloads``).

Every structured accessor against ``W`` built here by a plain loop from its definition
``W_{t,r} = Σ_{s=r}^{t} η_s β^{s−r}`` (jax_privacy's ``momentum_sgd_matrix``; the peer values of that matrix's
errors are in ``tests/test_workload_losses.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

from dptheory.mechanisms import PREFIX_SUMS, Workload, momentum_workload, prefix_sums


def loop_matrix(momentum: float, rates: np.ndarray) -> np.ndarray:
    """``W_{t,r} = Σ_{s=r}^{t} η_s β^{s−r}`` by three loops (the definition, nothing shared with the module)."""
    n = len(rates)
    W = np.zeros((n, n))
    for t in range(n):
        for r in range(t + 1):
            W[t, r] = sum(rates[s] * momentum ** (s - r) for s in range(r, t + 1))
    return W


def reassemble(bands: np.ndarray) -> np.ndarray:
    """The dense lower-triangular matrix of diagonal storage ``bands[o, j] = L_{j+o, j}``."""
    n = bands.shape[1]
    return sum(np.diag(bands[o, : n - o], -o) for o in range(bands.shape[0]))


N = 24
SCHEDULES = {
    "constant 1": None,
    "constant 0.3": np.full(N, 0.3),
    "cosine": 0.1 + 0.45 * (1.0 + np.cos(np.pi * np.arange(N) / N)),
    "linear decay": 1.0 - 0.9 * np.arange(N) / N,
}
CASES = [(beta, name) for beta in (0.0, 0.5, 0.9, 0.99) for name in SCHEDULES]


def _workload(beta, name):
    return momentum_workload(beta, SCHEDULES[name])


@pytest.mark.parametrize("beta, name", CASES)
def test_matrix_is_the_loop_definition(beta, name):
    """``matrix`` (cumulative sums of ``diag(η) M_β``) equals the triple loop to 1e-13 relative (3e-16 measured):
    both sum at most ``n = 24`` positive terms in different orders (a few ulps each)."""
    rates = np.ones(N) if SCHEDULES[name] is None else SCHEDULES[name]
    W, ref = _workload(beta, name).matrix(N), loop_matrix(beta, rates)
    assert np.array_equal(W == 0.0, ref == 0.0)
    nz = ref != 0.0
    assert np.max(np.abs(W[nz] - ref[nz]) / ref[nz]) < 1e-13


@pytest.mark.parametrize("beta, name", CASES)
def test_toeplitz_coeffs_are_the_first_column_for_a_constant_rate_and_none_for_a_schedule(beta, name):
    """``w_k = η(1 − β^{k+1})/(1 − β)`` (expm1 form) is ``W``'s first column to 1e-14 relative, and ``W`` is then
    Toeplitz; a varying schedule has no Toeplitz coefficients."""
    wl = _workload(beta, name)
    w = wl.toeplitz_coeffs(N)
    if name in ("cosine", "linear decay"):
        assert w is None
        return
    rates = np.ones(N) if SCHEDULES[name] is None else SCHEDULES[name]
    ref = loop_matrix(beta, rates)
    assert np.max(np.abs(w - ref[:, 0]) / ref[:, 0]) < 1e-14
    toeplitz = np.array([[w[t - r] if t >= r else 0.0 for r in range(N)] for t in range(N)])
    assert np.allclose(toeplitz, ref, rtol=1e-14, atol=0.0)


@pytest.mark.parametrize("beta, name", CASES)
def test_inverse_bands_reassembled_invert_the_matrix(beta, name):
    """``reassemble(inverse_bands) @ W = I`` to 1e-13 (absolute; 2.3e-14 measured): each entry is at most three
    products of a band (``≤ (1 + β)/min η ≈ 20``) and an entry of ``W`` (``≤ 24``), cancelling to 0 or 1, so the
    rounding is a few ulps of those products; the loop's ``W`` is used, not the module's."""
    rates = np.ones(N) if SCHEDULES[name] is None else SCHEDULES[name]
    bands = _workload(beta, name).inverse_bands(N)
    assert bands.shape == (3, N)
    assert bands[1, -1] == bands[2, -1] == bands[2, -2] == 0.0
    L = reassemble(bands)
    W = loop_matrix(beta, rates)
    assert np.max(np.abs(L @ W - np.eye(N))) < 1e-13


def test_inverse_bands_for_n_one_and_two():
    wl = momentum_workload(0.5, [0.5, 0.25])
    assert np.array_equal(wl.inverse_bands(1), [[2.0], [0.0], [0.0]])
    L = reassemble(wl.inverse_bands(2))
    assert np.allclose(L @ loop_matrix(0.5, [0.5, 0.25]), np.eye(2), rtol=0, atol=1e-15)


def test_prefix_sums_is_the_all_ones_lower_triangle():
    for n in (1, 2, 7, 33):
        assert np.array_equal(prefix_sums().matrix(n), np.tril(np.ones((n, n))))
        assert np.array_equal(prefix_sums().toeplitz_coeffs(n), np.ones(n))
    assert prefix_sums() is PREFIX_SUMS and PREFIX_SUMS.is_prefix_sums and repr(PREFIX_SUMS) == "Workload(prefix sums)"
    assert momentum_workload(0.0).is_prefix_sums and momentum_workload(0.0, [1.0] * 5).is_prefix_sums
    assert not momentum_workload(0.5).is_prefix_sums and not momentum_workload(0.0, [1.0, 0.5]).is_prefix_sums


def test_names_and_keys():
    assert momentum_workload(0.9).name == "momentum(β=0.9, η=1)"
    assert momentum_workload(0.9, [1.0, 0.5]).name == "momentum(β=0.9, 2 learning rates)"
    assert momentum_workload(0.9, [1.0, 0.5]) == Workload(momentum=0.9, learning_rates=(1.0, 0.5))
    assert momentum_workload(0.9).cache_key() != momentum_workload(0.9, [1.0]).cache_key()


@pytest.mark.parametrize("call, match", [
    (lambda: momentum_workload(1.0), "momentum"),
    (lambda: momentum_workload(-0.1), "momentum"),
    (lambda: momentum_workload(float("nan")), "momentum"),
    (lambda: momentum_workload(0.5, [1.0, 0.0]), "learning_rates"),
    (lambda: momentum_workload(0.5, [1.0, -0.5]), "learning_rates"),
    (lambda: momentum_workload(0.5, [1.0, float("inf")]), "learning_rates"),
    (lambda: momentum_workload(0.5, [1.0, 0.5]).matrix(3), r"learning_rates.*n = 3"),
    (lambda: momentum_workload(0.5, [1.0, 0.5]).rates(3), r"learning_rates.*n = 3"),
    (lambda: momentum_workload(0.5).matrix(0), r"\bn\b"),
])
def test_bad_inputs_name_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()
