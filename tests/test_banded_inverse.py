"""``‖M⁻¹‖_F²`` of a banded lower-triangular ``M`` and its gradient by block selected inversion
(dptheory.mechanisms.banded_inverse), against the dense inverse and the dense gradient ``−2 M⁻ᵀ M⁻¹ M⁻ᵀ``."""

import numpy as np
import pytest

from dptheory.mechanisms import momentum_workload
from dptheory.mechanisms.banded import _band_index, banded_rms_objective
from dptheory.mechanisms.banded_inverse import block_size, inverse_frobenius_sq


def _random_bands(n, w, seed):
    rng = np.random.default_rng(seed)
    bands = rng.normal(size=(w + 1, n)) * 0.3
    bands[0] = 1.0 + rng.random(n)
    for o in range(w + 1):
        bands[o, n - o:] = 0.0
    return bands


def _dense(bands):
    w1, n = bands.shape
    M = np.zeros((n, n))
    for o in range(w1):
        M[np.arange(o, n), np.arange(n - o)] = bands[o, : n - o]
    return M


# (n, w): one block, n a multiple of the block, a ragged last block, w above the minimum block, w = n - 1
CASES = [(5, 1), (64, 3), (150, 70), (200, 130), (131, 65), (40, 39), (257, 2)]


@pytest.mark.parametrize("n, w", CASES)
def test_value_and_gradient_match_the_dense_inverse(n, w):
    # Tolerance 1e-12 relative: both are backward-stable triangular inversions of well-conditioned M (diag in [1, 2],
    # off-diagonal 0.3 N(0, 1)); the block recursion sums O(n/s) positive traces.
    bands = _random_bands(n, w, n + w)
    M_inv = np.linalg.inv(_dense(bands))
    value, grad = inverse_frobenius_sq(bands)
    assert value == pytest.approx(np.sum(M_inv**2), rel=1e-12)
    G = -2.0 * M_inv.T @ M_inv @ M_inv.T
    dense_grad = np.zeros_like(bands)
    for o in range(w + 1):
        dense_grad[o, : n - o] = G[np.arange(o, n), np.arange(n - o)]
    assert np.max(np.abs(grad - dense_grad)) <= 1e-12 * np.max(np.abs(dense_grad))
    assert inverse_frobenius_sq(bands, gradient=False) == value


def test_block_size_is_the_bandwidth_with_a_floor_of_64():
    assert block_size(2052, 343) == 343 and block_size(2052, 3) == 64 and block_size(10, 3) == 10


def test_bandmf_objective_with_a_momentum_schedule_is_the_dense_rms_error_of_w_c_inverse():
    # the objective's M = C W^-1 route against W @ inv(C) with W built by its definition, a loop
    n, bands = 70, 9
    rng = np.random.default_rng(5)
    rows, cols = _band_index(n, bands)
    x = rng.normal(size=rows.size) * 0.3
    x[rows == cols] = 1.0 + rng.random(n)
    eta = 0.1 + 0.9 * rng.random(n)
    beta = 0.8
    W = np.zeros((n, n))
    for t in range(n):
        for r in range(t + 1):
            W[t, r] = sum(eta[s] * beta ** (s - r) for s in range(r, t + 1))
    C = np.zeros((n, n))
    C[rows, cols] = x
    C /= np.linalg.norm(C, axis=0)
    f, g = banded_rms_objective(x, n, bands, workload=momentum_workload(beta, eta))
    assert f == pytest.approx(np.sum((W @ np.linalg.inv(C)) ** 2) / n, rel=1e-12)
    h = 1e-6
    wl = momentum_workload(beta, eta)
    for i in rng.choice(x.size, 12, replace=False):
        e = np.zeros_like(x)
        e[i] = h
        fd = (banded_rms_objective(x + e, n, bands, workload=wl)[0] - banded_rms_objective(x - e, n, bands, workload=wl)[0]) / (2 * h)
        assert fd == pytest.approx(g[i], rel=1e-5, abs=1e-6 * np.max(np.abs(g)))  # central differences: O(h²) + eps·f/h


def test_the_objective_refuses_a_schedule_shorter_than_n_and_a_non_workload():
    with pytest.raises(ValueError, match="learning_rates holds 3 rates"):
        banded_rms_objective(np.ones(10), 10, 1, workload=momentum_workload(0.5, [1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="^workload must be"):
        banded_rms_objective(np.ones(10), 10, 1, workload="momentum")
