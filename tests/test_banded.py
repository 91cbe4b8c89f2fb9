"""BandMF and BandFHU (seed 003 §2.4, Table 1; Choquette-Choo et al. 2023): banded strategies, their exact
sensitivity for min_sep >= bands, and the column-normalised RmsLoss optimiser. Losses are unsquared."""

import math

import numpy as np
import pytest

from dptheory.mechanisms import Participation, dense_sensitivity, optimal_cc, prefix_loss
from dptheory.mechanisms.banded import (
    BandedMechanism,
    BandedResult,
    banded_rms_objective,
    banded_sqrt,
    optimize_banded,
)
from dptheory.mechanisms.banded import _band_index, _max_separated_sum


def _random_banded(n, bands, seed, *, signed=True):
    rng = np.random.default_rng(seed)
    rows, cols = _band_index(n, bands)
    C = np.zeros((n, n))
    C[rows, cols] = rng.standard_normal(rows.size) if signed else rng.uniform(0.1, 1.0, rows.size)
    C[np.arange(n), np.arange(n)] = np.abs(C[np.arange(n), np.arange(n)]) + 0.5
    return C / np.linalg.norm(C, axis=0)


@pytest.fixture(scope="module")
def bandmf_12_3():
    return optimize_banded(12, bands=3, participation=Participation(max_participations=3, min_sep=3))


# -- the objective and its gradient -------------------------------------------------------------------------------

def test_objective_is_the_squared_rms_error_of_the_column_normalised_strategy():
    n, bands = 10, 4
    rows, cols = _band_index(n, bands)
    X = _random_banded(n, bands, 1) * np.arange(1, n + 1)  # unnormalised columns: the objective normalises them
    f, _ = banded_rms_objective(X[rows, cols], n, bands)
    C = X / np.linalg.norm(X, axis=0)
    B = np.tril(np.ones((n, n))) @ np.linalg.inv(C)
    assert f == pytest.approx(np.sum(B**2) / n, rel=1e-12)


def test_analytic_gradient_matches_central_finite_differences():
    n, bands = 9, 4
    rows, cols = _band_index(n, bands)
    x = _random_banded(n, bands, 2)[rows, cols] * 1.7
    _, g = banded_rms_objective(x, n, bands)
    h = 1e-6
    fd = np.array([
        (banded_rms_objective(x + h * e, n, bands)[0] - banded_rms_objective(x - h * e, n, bands)[0]) / (2 * h)
        for e in np.eye(x.size)
    ])
    assert np.max(np.abs(fd - g)) <= 1e-6 * np.max(np.abs(g))


def test_gradient_is_orthogonal_to_each_column_the_objective_is_scale_invariant_per_column():
    n, bands = 8, 3
    rows, cols = _band_index(n, bands)
    x = _random_banded(n, bands, 3)[rows, cols]
    _, g = banded_rms_objective(x, n, bands)
    assert np.allclose(np.bincount(cols, weights=x * g, minlength=n), 0.0, atol=1e-12)


# -- sensitivity -----------------------------------------------------------------------------------------------------

def test_sens_is_sqrt_k_prime_for_unit_columns_when_min_sep_is_at_least_bands(bandmf_12_3):
    mech = bandmf_12_3.mechanism
    assert mech.column_normalised
    for b, k in [(3, 3), (3, 4), (4, 2), (5, 3), (12, 3)]:
        p = Participation(max_participations=k, min_sep=b)
        assert mech.sensitivity(12, p) == math.sqrt(p.participations(12))
        assert mech.sensitivity(12, p) == pytest.approx(dense_sensitivity(mech.strategy_matrix(12), p), rel=1e-12)


def test_sens_is_exact_for_any_signs_when_min_sep_is_at_least_bands():
    # columns k >= bands apart are orthogonal, so the Gram matrix on every pattern is diagonal
    C = _random_banded(12, 3, 4)
    assert np.any(C < 0)
    mech = BandedMechanism(C, bands=3)
    p = Participation(max_participations=3, min_sep=3)
    assert mech.sensitivity(12, p) == pytest.approx(dense_sensitivity(C, p), rel=1e-12) == math.sqrt(3)


def test_sens_of_unnormalised_bandfhu_is_the_best_separated_sum_of_column_norms():
    mech = banded_sqrt(12, 3)
    assert not mech.column_normalised
    for b, k in [(3, 3), (3, 4), (4, 2), (5, 3)]:
        p = Participation(max_participations=k, min_sep=b)
        for n in (12, 10):  # the leading block has shorter last columns
            assert mech.sensitivity(n, p) == pytest.approx(dense_sensitivity(mech.strategy_matrix(n), p), rel=1e-12)


def test_separated_sum_programme_matches_brute_force():
    rng = np.random.default_rng(5)
    for _ in range(20):
        n, k, b = rng.integers(1, 13), rng.integers(1, 5), rng.integers(1, 5)
        w = rng.uniform(0, 1, n)
        p = Participation(max_participations=int(k), min_sep=int(b))
        brute = max(w[list(pi)].sum() for kk in range(1, p.participations(n) + 1)
                    for pi in Participation(max_participations=kk, min_sep=int(b)).patterns(n))
        assert _max_separated_sum(w, int(k), int(b)) == pytest.approx(brute, rel=1e-14)


def test_sens_for_min_sep_below_bands_is_the_dense_enumeration():
    C = _random_banded(12, 4, 6, signed=False)
    mech = BandedMechanism(C, bands=4)
    p = Participation(max_participations=3, min_sep=2)
    assert mech.sensitivity(12, p) == dense_sensitivity(C, p)
    assert mech.sensitivity(12, p) > math.sqrt(3)  # overlapping nonnegative columns add up


def test_sensitivity_route_cites_the_theorem():
    mech = banded_sqrt(12, 3)
    assert "Thm 2" in mech.sensitivity_route(12, Participation(max_participations=2, min_sep=3))


# -- the optimiser ----------------------------------------------------------------------------------------------------

def test_bandmf_beats_its_bandfhu_initialisation_and_reports_its_own_losses(bandmf_12_3):
    res = bandmf_12_3
    assert isinstance(res, BandedResult) and res.converged and res.iterations > 0
    start = banded_sqrt(12, 3, normalise=True)
    p = res.participation
    assert res.initial_rms_loss == pytest.approx(prefix_loss(start, 12, p).rms_loss, rel=1e-12)
    assert res.rms_loss < res.initial_rms_loss
    check = prefix_loss(res.mechanism, 12, p)
    assert res.sensitivity == math.sqrt(3)
    assert (res.rms_loss, res.max_loss) == (pytest.approx(check.rms_loss, rel=1e-12), pytest.approx(check.max_loss, rel=1e-12))
    assert "RmsLoss=" in repr(res) and "converged" in repr(res)


def test_full_band_bandmf_is_the_single_participation_optimum():
    # bands = n: every lower-triangular C. The optimum is <= the square-root factorisation's RmsLoss, >= the
    # trace-norm bound ||A||_* / n, and satisfies the KKT condition of the convex problem over X = C^T C with
    # diag X = 1: X^-1 A^T A X^-1 = N (B^T B) N^T is diagonal.
    n = 24
    res = optimize_banded(n, bands=n)
    sqrt_loss = prefix_loss(optimal_cc(), n).rms_loss
    A = np.tril(np.ones((n, n)))
    assert np.linalg.svd(A, compute_uv=False).sum() / n <= res.rms_loss <= sqrt_loss
    N = res.mechanism.noising_matrix(n)
    B = A @ N
    K = N @ B.T @ B @ N.T
    assert np.max(np.abs(K - np.diag(np.diag(K)))) <= 1e-5 * np.max(np.diag(K))


def test_bandmf_rms_loss_decreases_weakly_in_bands():
    n = 16
    losses = [optimize_banded(n, bands=b).rms_loss for b in (1, 2, 3, 5, 8, 16)]
    assert losses[0] == pytest.approx(math.sqrt((n + 1) / 2), rel=1e-12)  # one band: C = I, DP-SGD
    assert all(later <= earlier * (1 + 1e-9) for earlier, later in zip(losses, losses[1:]))
    assert losses[-1] < losses[0]


def test_optimisation_is_deterministic():
    a, b = optimize_banded(14, bands=4, steps=30), optimize_banded(14, bands=4, steps=30)
    assert a.mechanism.cache_key() == b.mechanism.cache_key()


def test_bandfhu_at_full_band_is_the_square_root_factorisation():
    n = 20
    assert np.allclose(banded_sqrt(n, n).strategy_matrix(n), optimal_cc().strategy_matrix(n), rtol=1e-14, atol=0)
    assert np.allclose(np.linalg.norm(banded_sqrt(n, 5, normalise=True).C, axis=0), 1.0, rtol=1e-14)


def test_cache_key_names_the_bands():
    C = banded_sqrt(8, 2).C
    assert BandedMechanism(C, bands=2).cache_key() != BandedMechanism(C, bands=3).cache_key()


# -- bad inputs -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("strategy, bands, name", [
    (np.eye(4), 0, "bands"),
    (np.eye(4), 5, "bands"),
    (np.eye(4), 1.5, "bands"),
    (np.eye(4), True, "bands"),
    (np.tril(np.ones((4, 4))), 2, "strategy"),
    (np.ones((3, 4)), 2, "strategy"),
    (np.triu(np.ones((4, 4))), 4, "strategy"),
    ([["a"]], 1, "strategy"),
])
def test_bad_banded_mechanism_inputs_name_the_parameter(strategy, bands, name):
    with pytest.raises(ValueError, match=name):
        BandedMechanism(strategy, bands=bands)


@pytest.mark.parametrize("kwargs, name", [
    ({"n": 0, "bands": 1}, "n"),
    ({"n": 8, "bands": 9}, "bands"),
    ({"n": 8, "bands": 2, "loss": "max"}, "loss"),
    ({"n": 8, "bands": 2, "steps": -1}, "steps"),
    ({"n": 8, "bands": 3, "participation": Participation(max_participations=2, min_sep=2)}, "participation"),
    ({"n": 8, "bands": 2, "participation": "single"}, "participation"),
    ({"n": 8, "bands": 2, "init": np.eye(7)}, "init"),
    ({"n": 8, "bands": 2, "init": -np.eye(8)}, "init"),
    ({"n": 8, "bands": 2, "gtol": -1.0}, "gtol"),
])
def test_bad_optimiser_inputs_name_the_parameter(kwargs, name):
    n = kwargs.pop("n")
    with pytest.raises(ValueError, match=name):
        optimize_banded(n, **kwargs)


def test_bad_bandfhu_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="bands"):
        banded_sqrt(8, 0)
    with pytest.raises(ValueError, match="^n "):
        banded_sqrt(0, 1)
    with pytest.raises(ValueError, match="^n "):
        banded_sqrt(8, 2).sensitivity(9)


# -- against jax_privacy 2.0's banded.optimize / per_query_error (tests/peer_values/jax_privacy_banded.json) -----------

_PEER = __import__("json").loads(
    (__import__("pathlib").Path(__file__).parent / "peer_values" / "jax_privacy_banded.json").read_text())


@pytest.mark.parametrize("case", _PEER["bandmf"], ids=lambda c: f"n{c['n']}-b{c['bands']}-beta{c['momentum']}")
def test_workload_objective_at_jax_optimum_agrees_and_our_optimum_is_no_worse(case):
    # jax's per-query squared errors of its column-normalised C on momentum_sgd_matrix(β, η): dptheory's objective
    # (block selected inversion of C W^-1) at jax's C agrees to 1e-10 relative (float64 both; jax streams B row by
    # row), and optimize_banded reaches at most jax's mean error (1 + 1e-9) (jax ran 200 steps).
    from dptheory.mechanisms import momentum_workload

    n, bands = case["n"], case["bands"]
    wl = momentum_workload(case["momentum"], case["learning_rates"])
    C = np.asarray(case["C"])
    rows, cols = _band_index(n, bands)
    f, _ = banded_rms_objective(C[rows, cols], n, bands, workload=wl)
    assert f == pytest.approx(case["mean_error"], rel=1e-10)
    assert prefix_loss(BandedMechanism(C, bands=bands), n, workload=wl).rms_error ** 2 == pytest.approx(
        case["mean_error"], rel=1e-10)
    res = optimize_banded(n, bands=bands, workload=wl)
    assert res.rms_error**2 <= case["mean_error"] * (1 + 1e-9)
    assert res.workload == wl


@pytest.mark.slow
def test_bandmf_at_seed003_fig2_size_reaches_the_errata_optimum():
    # seed003.C34 (golden): BandMF with 400 bands at n = 2000, k = 2, b = 400 against the errata's 4.842; 150
    # L-BFGS-B iterations of the O(n b̂²) objective (about 20 s on one core) are within 5e-4 of it
    from dptheory.data import golden

    target = golden("003", "seed003.C34").value["k=2.b=400"]
    res = optimize_banded(2000, bands=400, participation=Participation(max_participations=2, min_sep=400), steps=150)
    assert 0.99 * target <= res.rms_loss <= target * (1 + 5e-4)
