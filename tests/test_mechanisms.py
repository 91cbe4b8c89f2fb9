"""The mechanism layer (issue 10): one Mechanism type that every consumer works through.

Every quantity of a mechanism is checked against an oracle written here from its definition, not through the
package's route: the sensitivity against brute force over all participation patterns and all sign choices
(seed 003 eq. 6), the row energies against the dense product ``F_q N``, the finite-horizon suboptimality
against the variance of the explicit linear map ``θ_n = Σ_t (…)``, and against a simulation. A toy dense
strategy (not Toeplitz) goes through ``F_inf``, ``simulate`` and the calibration without any consumer knowing
its type; the Toeplitz family is checked the same way at a finite horizon and unchanged at ``horizon=None``.
"""

import itertools
import math

import numpy as np
import pytest
import scipy.linalg

import dptheory as dpt
from dptheory.accounting import calibrate_noise

# A toy non-Toeplitz strategy: lower-triangular, non-negative, time-varying (rows do not shift).
TOY_C = np.array(
    [
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.5, 1.2, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.3, 0.1, 0.9, 0.0, 0.0, 0.0, 0.0],
        [0.2, 0.6, 0.2, 1.1, 0.0, 0.0, 0.0],
        [0.1, 0.0, 0.4, 0.3, 0.8, 0.0, 0.0],
        [0.4, 0.2, 0.1, 0.0, 0.5, 1.0, 0.0],
        [0.0, 0.3, 0.2, 0.2, 0.1, 0.6, 1.3],
    ]
)
TOY = dpt.DenseMechanism(TOY_C, name="toy")


def brute_force_sensitivity(C, k, b):
    """seed 003 eq. 6 by definition: the largest ‖Σ_{i∈π} s_i C[:, i]‖ over every pattern π of at most k steps
    pairwise ≥ b apart and every sign s_i ∈ {−1, 0, 1} (for non-negative C, the vector maximum is at s = 1)."""
    n = C.shape[1]
    best = 0.0
    for size in range(1, k + 1):
        for pi in itertools.combinations(range(n), size):
            if any(j - i < b for i, j in zip(pi, pi[1:])):
                continue
            for signs in itertools.product((-1.0, 1.0), repeat=size):
                best = max(best, float(np.linalg.norm(C[:, list(pi)] @ np.array(signs))))
    return best


def dense_last_iterate(N, eta, sigma_dp, G=1.0, sigma_sgd=0.0):
    """``E[F(θ_n) − F⋆]`` of mean estimation from θ_0 = θ⋆ by the explicit linear map (no recursion):
    ``δ_n = Σ_t (1 − η)^{n−1−t} η (z_t − Gσ_dp (N w)_t)``, so ``E δ_n² = η²(G²σ_dp²‖a N‖² + σ_sgd²‖a‖²)``
    with ``a_t = (1 − η)^{n−1−t}``; ``F − F⋆ = ½δ²``."""
    n = N.shape[0]
    a = (1.0 - eta) ** (n - 1 - np.arange(n))
    return 0.5 * eta**2 * (G**2 * sigma_dp**2 * float(np.sum((a @ N) ** 2)) + sigma_sgd**2 * float(np.sum(a**2)))


# -- participation -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("n, k, b", [(7, 2, 1), (7, 3, 2), (9, 3, 3), (10, 4, 2), (5, 6, 1), (6, 2, 6)])
def test_participation_enumerates_every_min_separated_pattern(n, k, b):
    p = dpt.Participation(max_participations=k, min_sep=b)
    kk = min(k, math.ceil(n / b))
    expected = [pi for pi in itertools.combinations(range(n), kk) if all(j - i >= b for i, j in zip(pi, pi[1:]))]
    got = [tuple(row) for row in p.patterns(n)]
    assert sorted(got) == expected and len(got) == p.count_patterns(n)
    assert p.participations(n) == kk and list(p.earliest(n)) == [i * b for i in range(kk)]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(max_participations=0), r"max_participations must lie in \[1, inf\)"),
        (dict(min_sep=2.5), "min_sep must be an integer"),
        (dict(min_sep=None), "min_sep must be a real number"),
    ],
)
def test_participation_refuses_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        dpt.Participation(**kwargs)


def test_participation_is_keyword_only():
    with pytest.raises(TypeError):
        dpt.Participation(3, 2)


# -- the toy dense mechanism -------------------------------------------------------------------------------


@pytest.mark.parametrize("n, k, b", [(7, 1, 1), (7, 2, 1), (7, 2, 3), (7, 3, 2), (6, 4, 1), (5, 2, 4)])
def test_dense_sensitivity_equals_brute_force_over_all_patterns(n, k, b):
    p = dpt.Participation(max_participations=k, min_sep=b)
    assert TOY.sensitivity(n, p) == pytest.approx(brute_force_sensitivity(TOY_C[:n, :n], k, b), rel=1e-13)


def test_dense_row_energies_equal_the_dense_product():
    n = 7
    for q in (-0.6, 0.0, 0.8, 1.0):
        F = np.tril(q ** np.subtract.outer(np.arange(n), np.arange(n)).clip(0))
        oracle = np.sum((F @ np.linalg.inv(TOY_C)) ** 2, axis=1)
        np.testing.assert_allclose(TOY.row_energies(q, n), oracle, rtol=1e-12)
    np.testing.assert_allclose(TOY.row_energies([0.3, 1.0], n)[1], np.sum(TOY.decoder_matrix(n) ** 2, axis=1), rtol=1e-12)


def test_dense_row_energies_of_a_wide_noising_matrix_equal_the_dense_product_for_every_q_at_once():
    """The recursion over rows (every q at once) against ``F_q N`` formed whole, on the tree's n × m noising matrix
    (m = 2n − 1 nodes), q = −1, 0, 1 included; rtol 1e-12 (the product and the recursion round differently)."""
    n, qs = 200, np.array([-1.0, -0.3, 0.0, 0.5, 0.95, 1.0 - 1e-9])
    tree = dpt.TreeAggregation("honaker")
    N = tree.noising_matrix(n)
    assert N.shape[1] > n
    oracle = [np.sum((np.tril(q ** np.subtract.outer(np.arange(n), np.arange(n)).clip(0)) @ N) ** 2, axis=1) for q in qs]
    np.testing.assert_allclose(tree.row_energies(qs, n), oracle, rtol=1e-12)
    np.testing.assert_allclose(tree.row_energies(0.5, n), oracle[3], rtol=1e-12)


def test_dense_final_row_energy_is_the_last_row_of_the_dense_product():
    """The one-matrix-product route for the last row against ``F_q N`` formed whole, q = 0 and q = ±1 included."""
    n, qs = 7, np.array([-1.0, -0.6, 0.0, 0.8, 1.0])
    oracle = []
    for q in qs:
        F = np.tril(q ** np.subtract.outer(np.arange(n), np.arange(n)).clip(0))
        oracle.append(np.sum((F @ np.linalg.inv(TOY_C))[-1] ** 2))
    np.testing.assert_allclose(TOY.final_row_energy(qs, n), oracle, rtol=1e-12)
    assert TOY.final_row_energy(0.8, n) == pytest.approx(oracle[3], rel=1e-12)


def test_dense_noise_stream_is_the_noising_matrix_applied_to_white_noise():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((7, 3, 2))
    stream = TOY.noise_stream((3, 2), w, 7)
    out = np.concatenate([stream(w[:2]), stream(w[2:3]), stream(w[3:])])
    np.testing.assert_allclose(out, np.einsum("ts,scd->tcd", np.linalg.inv(TOY_C), w), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("participation", [None, dpt.Participation(max_participations=2, min_sep=3)], ids=["single", "k2b3"])
def test_toy_F_inf_at_a_finite_horizon_equals_the_explicit_linear_map(participation):
    problem = dpt.MeanEstimation(0.3, sigma_sgd=0.4)
    sigma = brute_force_sensitivity(TOY_C, participation.max_participations if participation else 1,
                                    participation.min_sep if participation else 1) / math.sqrt(2 * 0.5)
    exact = dense_last_iterate(np.linalg.inv(TOY_C), 0.3, sigma, G=1.5, sigma_sgd=0.4)
    assert dpt.F_inf(TOY, problem, rho=0.5, G=1.5, horizon=7, participation=participation) == pytest.approx(exact, rel=1e-12)


def test_toy_simulation_interval_contains_the_exact_finite_horizon_value():
    problem = dpt.MeanEstimation(0.3, sigma_sgd=0.4)
    p = dpt.Participation(max_participations=2, min_sep=2)
    sim = dpt.simulate(TOY, problem, rho=0.5, horizon=7, participation=p, seeds=4000, seed=3)
    exact = dpt.F_inf(TOY, problem, rho=0.5, horizon=7, participation=p)
    lo, hi = sim.interval(0.999)
    assert lo <= exact <= hi, (sim, exact)
    assert sim.mechanism is TOY and sim.settings["horizon"] == 7


def test_a_mechanism_without_a_stationary_form_is_refused_at_horizon_none():
    problem = dpt.MeanEstimation(0.3)
    with pytest.raises(ValueError, match="horizon must be a number of steps for toy: its noising matrix is not Toeplitz"):
        dpt.F_inf(TOY, problem, rho=1.0)
    with pytest.raises(ValueError, match="horizon must be a number of steps for toy"):
        dpt.simulate(TOY, problem, rho=1.0)
    with pytest.raises(ValueError, match="mechanism must be stationary"):
        dpt.F_inf_bound(TOY, dpt.StronglyConvex(0.1, 0.5, 1.0), rho=1.0)
    with pytest.raises(ValueError, match=r"n must lie in \[1, 7\] \(toy is defined for 7 steps\)"):
        TOY.sensitivity(8)
    with pytest.raises(ValueError, match="no streaming limit"):
        TOY.sensitivity(None)


@pytest.mark.parametrize(
    "strategy, match",
    [
        (np.triu(np.ones((3, 3))), "strategy must be lower-triangular"),
        (np.diag([1.0, 0.0, 1.0]), "strategy must have a nonzero diagonal"),
        (np.ones((2, 3)), "strategy must be a non-empty square matrix"),
        (np.array([[1.0, 0.0], [np.nan, 1.0]]), "strategy must be finite"),
    ],
)
def test_dense_mechanism_refuses_bad_strategies(strategy, match):
    with pytest.raises(ValueError, match=match):
        dpt.DenseMechanism(strategy)


def test_mixed_sign_gram_under_multiple_participation_is_refused_not_guessed():
    # three participations meeting a negative Gram entry: a semidefinite program, refused (two are exact: below)
    C = np.array([[1.0, 0.0, 0.0], [-0.8, 1.0, 0.0], [0.0, -0.8, 1.0]])
    with pytest.raises(ValueError, match="negative entry on a participation pattern"):
        dpt.DenseMechanism(C).sensitivity(3, dpt.Participation(max_participations=3))
    assert dpt.DenseMechanism(C).sensitivity(3) == pytest.approx(brute_force_sensitivity(C, 1, 1), rel=1e-14)


# -- the Toeplitz family through the same interface ------------------------------------------------------------


@pytest.mark.parametrize("mechanism", [dpt.nu_ftrl(0.2), dpt.anti_pgd(), dpt.damped_anti_pgd(0.1), dpt.optimal_cc()], ids=repr)
@pytest.mark.parametrize("k, b", [(1, 1), (2, 1), (2, 3), (3, 2)])
def test_toeplitz_min_sep_sensitivity_equals_brute_force(mechanism, k, b):
    """seed 003 Thm 3.1: with non-negative, non-increasing strategy coefficients the earliest pattern is worst."""
    n = 8
    C = scipy.linalg.solve_triangular(mechanism.noising_matrix(n), np.eye(n), lower=True)  # independent of strategy_coeffs
    p = dpt.Participation(max_participations=k, min_sep=b)
    assert mechanism.sensitivity(n, p) == pytest.approx(brute_force_sensitivity(C, k, b), rel=1e-12)


def test_thm31_needs_monotone_coefficients_and_the_dense_route_takes_over():
    """errata 003 §3.5: c = (1, 0, 1), b = 1, k = 2: π* = (0, 1) gives √3, the true sensitivity is √5 (π = (0, 2))."""
    beta = dpt.mechanisms.spectral.series_inverse([1.0, 0.0, 1.0], 3)  # noising coefficients with strategy (1, 0, 1)
    mech = dpt.toeplitz(beta)
    np.testing.assert_allclose(mech.strategy_coeffs(3), [1.0, 0.0, 1.0], atol=1e-15)
    assert mech.sensitivity(3, dpt.Participation(max_participations=2)) == pytest.approx(math.sqrt(5), rel=1e-14)


def test_toeplitz_streaming_limit_under_min_sep_participation_is_the_limit_of_finite_horizons():
    mech, p = dpt.nu_ftrl(0.002), dpt.Participation(max_participations=3, min_sep=40)
    limit = mech.sensitivity(None, p)
    assert mech.sensitivity(200, p) < mech.sensitivity(2000, p) < limit
    assert mech.sensitivity(100_000, p) == pytest.approx(limit, rel=1e-12)
    assert mech.sensitivity(None) == mech.limiting_sensitivity()


@pytest.mark.parametrize("mechanism", [dpt.nu_ftrl(0.05), dpt.toeplitz([1.0, -0.6, 0.05]), dpt.anti_pgd()], ids=repr)
def test_toeplitz_row_energies_and_finite_horizon_F_inf_equal_the_dense_oracle(mechanism):
    n, eta = 40, 0.2
    N = mechanism.noising_matrix(n)
    for q in (0.5, 1.0 - eta, 1.0):
        F = np.tril(q ** np.subtract.outer(np.arange(n), np.arange(n)).clip(0))
        np.testing.assert_allclose(mechanism.row_energies(q, n), np.sum((F @ N) ** 2, axis=1), rtol=1e-11)
    p = dpt.Participation(max_participations=2, min_sep=7)
    C = np.linalg.inv(N)
    sigma = brute_force_sensitivity(C, 2, 7) / math.sqrt(2.0)
    exact = dense_last_iterate(N, eta, sigma, sigma_sgd=0.3)
    problem = dpt.MeanEstimation(eta, sigma_sgd=0.3)
    assert dpt.F_inf(mechanism, problem, rho=1.0, horizon=n, participation=p) == pytest.approx(exact, rel=1e-10)
    dense_twin = dpt.DenseMechanism(C)
    assert dpt.F_inf(dense_twin, problem, rho=1.0, horizon=n, participation=p) == pytest.approx(exact, rel=1e-10)


def test_linear_regression_lti_at_a_finite_horizon_is_the_sum_over_directions():
    """Per direction j the LTI surrogate is mean estimation with step ηλ_j, weight λ_j and gradient noise σ_sgd²λ_j."""
    mech, n, eta, lam = dpt.nu_ftrl(0.1), 60, 0.1, np.array([1.0, 0.5, 0.25])
    problem = dpt.LinearRegression(eta, lam, sigma_sgd=0.2)
    sigma = mech.sensitivity(n) / math.sqrt(2.0)
    N = mech.noising_matrix(n)
    expected = 0.0
    for lj in lam:
        a = (1.0 - eta * lj) ** (n - 1 - np.arange(n))
        expected += 0.5 * lj * eta**2 * (sigma**2 * np.sum((a @ N) ** 2) + 0.04 * lj * np.sum(a**2))
    assert dpt.F_inf(mech, problem, rho=1.0, horizon=n, kind="lti") == pytest.approx(expected, rel=1e-11)
    with pytest.raises(ValueError, match="kind must be 'exact' or 'lti'"):
        dpt.F_inf(mech, problem, rho=1.0, horizon=n, kind="upper")


def test_finite_horizon_F_tends_to_the_stationary_F_inf():
    problem = dpt.MeanEstimation(0.1, sigma_sgd=0.5)
    for mech in (dpt.nu_ftrl(0.05), dpt.toeplitz([1.0, -0.6, 0.1])):
        stationary = dpt.F_inf(mech, problem, rho=1.0)
        assert dpt.F_inf(mech, problem, rho=1.0, horizon=100_000) == pytest.approx(stationary, rel=1e-9)
        assert dpt.F_inf(mech, problem, rho=1.0, horizon=20) < stationary


def test_anti_pgd_has_a_finite_value_at_every_horizon_and_none_in_the_limit():
    """γ_n² = n for anti-PGD (Table 2): F_n is finite and the simulation agrees, while F∞ = ∞."""
    problem = dpt.MeanEstimation(0.2, sigma_sgd=0.5)
    assert dpt.F_inf(dpt.anti_pgd(), problem, rho=1.0) == math.inf
    exact = dpt.F_inf(dpt.anti_pgd(), problem, rho=1.0, horizon=50)
    sim = dpt.simulate(dpt.anti_pgd(), problem, rho=1.0, horizon=50, seeds=3000, seed=11)
    lo, hi = sim.interval(0.999)
    assert math.isfinite(exact) and lo <= exact <= hi, (sim, exact)


def test_nu_ftrl_simulation_at_a_finite_horizon_under_min_sep_participation():
    problem = dpt.MeanEstimation(0.05, sigma_sgd=0.3)
    p = dpt.Participation(max_participations=4, min_sep=25)
    exact = dpt.F_inf(dpt.nu_ftrl(0.02), problem, rho=2.0, horizon=100, participation=p)
    sim = dpt.simulate(dpt.nu_ftrl(0.02), problem, rho=2.0, horizon=100, participation=p, seeds=3000, seed=4)
    lo, hi = sim.interval(0.999)
    assert lo <= exact <= hi, (sim, exact)
    with pytest.raises(ValueError, match="steps, taps must be None at a finite horizon"):
        dpt.simulate(dpt.nu_ftrl(0.02), problem, rho=2.0, horizon=100, steps=10, taps=5)


def test_calibration_is_the_mechanisms_sensitivity_over_root_two_rho():
    p = dpt.Participation(max_participations=2, min_sep=3)
    assert calibrate_noise(TOY, rho=0.5, horizon=7, participation=p) == pytest.approx(TOY.sensitivity(7, p), rel=1e-15)
    assert calibrate_noise(dpt.nu_ftrl(0.1), rho=2.0) == pytest.approx(dpt.nu_ftrl(0.1).limiting_sensitivity() / 2.0, rel=1e-15)
    assert calibrate_noise(dpt.anti_pgd(), rho=1.0) == math.inf


def test_F_inf_bound_calibrates_to_the_horizon():
    """The bound scales its DP part with σ_dp²: at σ_sgd = 0 and μ = L (the closed-form limit) the ratio of the
    bounds at two horizons is the ratio of the squared sensitivities."""
    problem = dpt.StronglyConvex(0.1, 1.0, 1.0)
    mech = dpt.nu_ftrl(0.01)
    stationary = dpt.F_inf_bound(mech, problem, rho=1.0).value
    at_100 = dpt.F_inf_bound(mech, problem, rho=1.0, horizon=100).value
    assert at_100 / stationary == pytest.approx((mech.sensitivity(100) / mech.limiting_sensitivity()) ** 2, rel=1e-12)


def test_cache_keys_are_stable_and_tell_mechanisms_apart():
    keys = {m.cache_key() for m in (dpt.nu_ftrl(0.1), dpt.nu_ftrl(0.2), dpt.mean_estimation_optimal(0.3), dpt.damped_anti_pgd(0.1),
                                    dpt.toeplitz([1.0, -0.9]), TOY, dpt.DenseMechanism(2 * TOY_C))}
    assert len(keys) == 7
    assert dpt.toeplitz([1.0, -0.5]).cache_key() == dpt.toeplitz(np.array([1.0, -0.5, 0.0])).cache_key()
    assert dpt.DenseMechanism(TOY_C.copy()).cache_key() == TOY.cache_key()


# -- two participations: exact for any signs of CᵀC --------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_two_participations_is_exact_for_signed_strategies(seed):
    """k' = 2: sens² = max_{j−i≥b} X_ii + X_jj + 2|X_ij|. Independent routes: for a non-negative C the enumeration
    of patterns with all u equal (every pattern of at most two steps, written out here); for a signed C, the value
    attained by u_j = ±u_i (a lower bound by construction) and no random pair of unit vectors in R³ exceeding it
    (5000 draws; 1e-12 relative)."""
    rng = np.random.default_rng(seed)
    n, b = 9, 1 + seed % 4
    part = dpt.Participation(max_participations=2, min_sep=b)
    signed = np.tril(rng.normal(size=(n, n)))
    positive = np.abs(signed)
    pairs = [(i, j) for i in range(n) for j in range(i + b, n)]
    enumerated = max(np.linalg.norm(positive[:, i] + positive[:, j]) for i, j in pairs)
    assert dpt.dense_sensitivity(positive, part) == pytest.approx(enumerated, rel=1e-12)
    got = dpt.dense_sensitivity(signed, part)
    attained = max(max(np.linalg.norm(signed[:, i] + s * signed[:, j]) for s in (1.0, -1.0)) for i, j in pairs)
    assert got == pytest.approx(attained, rel=1e-12)
    u = rng.normal(size=(5000, 2, 3))
    u /= np.linalg.norm(u, axis=2, keepdims=True)
    idx = rng.integers(len(pairs), size=5000)
    for (i, j), (ui, uj) in zip((pairs[t] for t in idx), u):
        assert np.linalg.norm(np.outer(signed[:, i], ui) + np.outer(signed[:, j], uj)) <= got * (1 + 1e-12)
