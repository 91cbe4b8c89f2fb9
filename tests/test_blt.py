"""BLT(θ, ω) strategies (seed 003 §2, Eq. 2, Alg. 2, 3, 5; Thm 3.1; Prop. 3.3): every closed form against an
independent route — the dense matrices (triangular solve, explicit decoder), the generic Toeplitz recursions,
brute force over participation patterns, quadrature — and the errata 003 claims C1–C10.

Tolerances: identities between exact routes 1e-12 relative (they differ by rounding of O(n) or O(d²) sums);
the digest's recomputed values to its printed digits (1e-7 relative for 8 digits).
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
import scipy.linalg

import dptheory as dpt
from dptheory.mechanisms import BLT, blt_coeffs, output_scales, prefix_loss, sensitivity_bounds
from dptheory.mechanisms.toeplitz import ToeplitzMechanism

C1_THETA, C1_THETA_HAT = np.array([0.99, 0.7, 0.3]), np.array([0.95, 0.5, 0.1])
APP_A_400 = BLT(
    [0.9999999999921251, 0.9944453083640997, 0.8985923474607591, 0.4912001418098778],
    [0.0070314825502323835, 0.10613806907600574, 0.1898159060327625, 0.1966594748073734],
)


def random_blt(rng, d: int) -> BLT:
    """A random valid BLT: decreasing decays in (0, 1) and inverse decays interlacing them."""
    cuts = np.sort(rng.uniform(0.02, 0.98, size=2 * d))[::-1]
    return BLT.from_theta_pair(cuts[0::2], cuts[1::2])


# -- Alg. 5 and the inverse pair (C1, C2, C5) ---------------------------------------------------------------------
def test_c1_output_scales_match_the_digest_and_alg5_as_printed_equals_the_product_form():
    omega = output_scales(C1_THETA, C1_THETA_HAT)
    np.testing.assert_allclose(omega, [0.08717641, 0.25862069, 0.09420290], atol=5e-9)
    np.testing.assert_allclose(output_scales(C1_THETA_HAT, C1_THETA), [-0.01699346, -0.10888889, -0.31411765], atol=5e-9)
    rng = np.random.default_rng(3)
    for d in (1, 2, 3, 5):
        th, thh = rng.uniform(0.05, 0.99, d), rng.uniform(0.05, 0.99, d)
        np.testing.assert_allclose(output_scales(th, thh, form="alg5"), output_scales(th, thh), rtol=1e-10, atol=1e-14)


def test_c1_the_strategy_times_its_inverse_is_the_identity():
    blt = BLT.from_theta_pair(C1_THETA, C1_THETA_HAT)
    n = 50
    C = scipy.linalg.toeplitz(blt_coeffs(blt.theta, blt.omega, n), np.zeros(n))
    N = scipy.linalg.toeplitz(blt_coeffs(C1_THETA_HAT, output_scales(C1_THETA_HAT, C1_THETA), n), np.zeros(n))
    assert np.max(np.abs(C @ N - np.eye(n))) < 1e-15


def test_c2_inverse_decays_are_the_eigenvalues_and_interlace():
    blt = BLT(C1_THETA, output_scales(C1_THETA, C1_THETA_HAT))  # built from (θ, ω): θ̂ by eig + Newton polish
    np.testing.assert_allclose(blt.inverse_decays(), C1_THETA_HAT, rtol=1e-14)
    assert np.all(blt.inverse_scales() < 0)
    rng = np.random.default_rng(4)
    for _ in range(20):
        b = random_blt(rng, int(rng.integers(1, 6)))
        fresh = BLT(b.theta, b.omega)
        thh = fresh.inverse_decays()
        np.testing.assert_allclose(thh, b.inverse_decays(), rtol=1e-9)
        assert np.all(thh[:-1] > b.theta[1:]) and np.all(thh < b.theta)  # interlacing
        assert math.isclose(b.omega.sum(), b.theta.sum() - thh.sum(), rel_tol=1e-11)  # trace: c_1 = Σθ − Σθ̂


def test_the_inverse_of_the_inverse_is_the_strategy():
    blt = BLT.from_theta_pair(C1_THETA, C1_THETA_HAT)
    inv = blt.inverse()
    np.testing.assert_allclose(inv.noising_coeffs(40), blt.strategy_coeffs(40), rtol=1e-12, atol=1e-16)
    np.testing.assert_allclose(inv.strategy_coeffs(40), blt.noising_coeffs(40), rtol=1e-12, atol=1e-16)


def test_c5_first_noising_coefficient_is_minus_the_sum_of_scales():
    c, chat = APP_A_400.strategy_coeffs(2), APP_A_400.noising_coeffs(2)
    assert math.isclose(c[1], 0.49964493, rel_tol=2e-8) and math.isclose(chat[1], -c[1], rel_tol=1e-12)


# -- coefficients and closed forms against the dense matrices and the generic routes ---------------------------
@pytest.mark.parametrize("blt", [BLT.from_theta_pair(C1_THETA, C1_THETA_HAT), APP_A_400], ids=["C1", "AppA-b400"])
def test_noising_coefficients_by_alg5_equal_the_triangular_solve(blt):
    n = 600
    solve = scipy.linalg.solve_triangular(blt.strategy_matrix(n), np.eye(n)[:, 0], lower=True)
    np.testing.assert_allclose(blt.noising_coeffs(n), solve, rtol=0, atol=1e-13)


def test_strategy_energy_geometric_sums_equal_the_coefficient_sum_also_for_a_decay_one_minus_1e_11():
    for blt, n in ((BLT.from_theta_pair(C1_THETA, C1_THETA_HAT), 300), (APP_A_400, 4000)):
        c = blt.strategy_coeffs(n)
        assert math.isclose(blt.strategy_energy(n), math.fsum(c * c), rel_tol=1e-12)
    blt = BLT.from_theta_pair(C1_THETA, C1_THETA_HAT)
    c = blt.strategy_coeffs(20000)
    assert math.isclose(blt.strategy_energy(None), math.fsum(c * c), rel_tol=1e-12)
    assert math.isclose(blt.limiting_sensitivity(), blt.limiting_sensitivity(method="frequency"), rel_tol=1e-10)
    # θ_1 = 1 − 7.9e-12: the limit 1 + Σ ω_jω_k/(1 − θ_jθ_k) ≈ 3.1e6 needs 1 − θ_jθ_k without cancellation
    mp.mp.dps = 50
    th, om = [mp.mpf(float(t)) for t in APP_A_400.theta], [mp.mpf(float(w)) for w in APP_A_400.omega]
    exact = 1 + mp.fsum(om[j] * om[k] / (1 - th[j] * th[k]) for j in range(4) for k in range(4))
    assert math.isclose(APP_A_400.strategy_energy(None), float(exact), rel_tol=1e-13)
    assert BLT([1.0, 0.5], [0.1, 0.2]).strategy_energy(None) == math.inf and not BLT([1.0, 0.5], [0.1, 0.2]).is_minimum_phase()


@pytest.mark.parametrize("q", [1.0, 0.9, 0.2, -0.5])
def test_row_energies_equal_the_dense_rows(q):
    blt = BLT.from_theta_pair(C1_THETA, C1_THETA_HAT)
    n = 120
    F = scipy.linalg.toeplitz(q ** np.arange(n), np.zeros(n))
    dense = np.sum((F @ blt.noising_matrix(n)) ** 2, axis=1)
    np.testing.assert_allclose(blt.row_energies(q, n), dense, rtol=1e-12)
    np.testing.assert_allclose(blt.row_energies(q, n), ToeplitzMechanism.row_energies(blt, q, n), rtol=1e-12)


def _mp_row_energies(blt: BLT, q: float, n: int) -> np.ndarray:
    """``Σ_{s≤t} y_s²`` with ``y = F_q β`` at 30 digits, ``β_t = ω̂·θ̂^{t−1}`` (``t ≥ 1``) from the inverse pair."""
    mp.mp.dps = 30
    thh = [mp.mpf(float(x)) for x in blt.inverse_decays()]
    omh = [mp.mpf(float(x)) for x in blt.inverse_scales()]
    qm, y, E, powers, out = mp.mpf(q), mp.mpf(0), mp.mpf(0), [mp.mpf(1)] * len(thh), np.empty(n)
    for t in range(n):
        beta = mp.mpf(1) if t == 0 else mp.fsum(o * p for o, p in zip(omh, powers))
        if t:
            powers = [p * h for p, h in zip(powers, thh)]
        y = qm * y + beta
        E += y * y
        out[t] = float(E)
    return out


def test_row_energies_take_the_more_accurate_route_at_and_below_q_1():
    """At ``q = 1`` the closed form (the recursion accumulates rounding over ``n``: 2.6e-12 at ``n = 10⁵``); next to
    an inverse decay the recursion (the partial fractions, with weights ``|a| ≈ 500`` at ``q = 0.5``, lose 1.3e-10):
    both against mpmath at 30 digits."""
    blt = BLT([0.999], [0.5])  # θ̂ = 0.499
    exact = _mp_row_energies(blt, 1.0, 20_000)
    np.testing.assert_allclose(blt.row_energies(1.0, 20_000), exact, rtol=1e-13)
    assert blt.final_row_energy(1.0, 20_000) == pytest.approx(exact[-1], rel=1e-13)
    exact = _mp_row_energies(blt, 0.5, 300)
    np.testing.assert_allclose(blt.row_energies(0.5, 300), exact, rtol=1e-14)
    assert blt.final_row_energy(0.5, 300) == pytest.approx(exact[-1], rel=1e-14)


def test_final_row_energy_in_closed_form_equals_the_dense_last_row_and_the_recursion():
    """``Σ_{u,v} a_u a_v (1 − (λ_uλ_v)^n)/(1 − λ_uλ_v)`` (``O(d²)`` per ``q``) against the last dense row of
    ``F_q N`` and the ``O(n)`` recursion; ``q`` next to an inverse decay takes the recursion (partial fractions
    would cancel) and must agree all the same. 1e-12: both routes are good to ~1e-14 against mpmath here."""
    blt = BLT.from_theta_pair(C1_THETA, C1_THETA_HAT)
    q = np.concatenate([[1.0, 0.9, 0.2, 0.0, -0.5, -1.0], blt.inverse_decays() * (1 + 1e-6)])
    for n in (1, 2, 120):
        F = [scipy.linalg.toeplitz(qi ** np.arange(n), np.zeros(n)) for qi in q]
        dense = np.array([np.sum((Fi @ blt.noising_matrix(n))[-1] ** 2) for Fi in F])
        np.testing.assert_allclose(blt.final_row_energy(q, n), dense, rtol=1e-12)
        np.testing.assert_allclose(blt.final_row_energy(q, n), ToeplitzMechanism.row_energies(blt, q, n)[:, -1], rtol=1e-12)
    assert isinstance(blt.final_row_energy(0.5, 7), float)
    assert blt.final_row_energy(0.5, 7) == pytest.approx(float(blt.row_energies(0.5, 7)[-1]), rel=1e-13)
    with pytest.raises(ValueError, match="q must lie in"):
        blt.final_row_energy(1.5, 7)


def test_pole_integral_closed_form_equals_mpmath_quadrature_and_the_time_sum():
    blt = BLT.from_theta_pair(C1_THETA, C1_THETA_HAT)
    q = np.array([0.3, 0.9, 0.999])
    closed = blt.filtered_energy(q, method="closed_form")
    mp.mp.dps = 30
    for qi, value in zip(q, closed):
        f = lambda w: abs(1 / complex(blt.dtft(float(w)))) ** -2 / abs(1 - qi * mp.expj(w)) ** 2
        assert math.isclose(value, float(mp.quad(f, [0, 0.001, 0.05, mp.pi]) / mp.pi), rel_tol=1e-11)
    np.testing.assert_allclose(closed, blt.filtered_energy(q, method="frequency"), rtol=1e-10)
    # the generic time route truncates ĉ where its energy is below 1e-17; the pole at q = 0.999 amplifies the
    # truncated tail's sum by 1/(1 − q), so that route is good to ~1e-8 there
    np.testing.assert_allclose(closed, blt.filtered_energy(q, method="time"), rtol=3e-8)


def test_dtft_is_the_fft_of_the_noising_coefficients():
    blt = BLT.from_theta_pair(C1_THETA, C1_THETA_HAT)
    M = 64
    w = 2 * np.pi * np.arange(M) / M
    folded = blt.noising_coeffs(M * 40).reshape(40, M).sum(axis=0)  # |θ̂|^{M·40} ≈ 0
    np.testing.assert_allclose(blt.dtft(w), np.fft.fft(folded), atol=1e-13)


def test_minimum_phase_of_the_strategy_iff_inverse_decays_inside_the_disk():
    assert BLT.from_theta_pair(C1_THETA, C1_THETA_HAT).strategy_is_minimum_phase()
    big = BLT([0.9, 0.5], [1.5, 1.2], signed=True)  # Σω large: an inverse decay leaves the disk
    assert np.min(big.inverse_decays()) < -1 and not big.strategy_is_minimum_phase()


# -- streaming: Alg. 2 and Alg. 3 with d buffers (C3, C4) ----------------------------------------------------
def test_c3_c4_streams_equal_the_dense_products_block_by_block():
    blt = BLT.from_theta_pair(C1_THETA, C1_THETA_HAT)
    n, rng = 50, np.random.default_rng(0)
    z = rng.standard_normal((n, 2, 3))
    flat = z.reshape(n, -1)
    inv = blt.noise_stream((2, 3), z)
    out = np.concatenate([inv(z[:7]), inv(z[7:30]), inv(z[30:])]).reshape(n, -1)
    np.testing.assert_allclose(out, blt.noising_matrix(n) @ flat, rtol=0, atol=1e-12)
    fwd = blt.strategy_stream((2, 3), z)
    np.testing.assert_allclose(fwd(z).reshape(n, -1), blt.strategy_matrix(n) @ flat, rtol=0, atol=1e-12)
    roundtrip = blt.strategy_stream((2, 3), z)(blt.noise_stream((2, 3), z)(z))
    np.testing.assert_allclose(roundtrip, z, rtol=0, atol=1e-12)
    impulse = blt.noise_stream((1,), z)(np.eye(n)[:, :1])[:, 0]
    np.testing.assert_allclose(impulse, blt.noising_coeffs(n), atol=1e-15)


def test_stream_memory_is_d_buffers():
    s = APP_A_400.noise_stream((8, 5), np.zeros(1))
    assert s.state.shape == (4, 8, 5)


# -- Thm 3.1 (C7, C8), Remark 3.2 -------------------------------------------------------------------------------
def brute_force(C: np.ndarray, b: int, k: int) -> float:
    """max over every π with |π| ≤ k, pairwise ≥ b apart, of ‖C u(π)‖ (seed 003 eq. 6 for C ≥ 0)."""
    n = C.shape[1]
    best = 0.0
    for size in range(1, k + 1):
        for pi in itertools.combinations(range(n), size):
            if all(j - i >= b for i, j in zip(pi, pi[1:])):
                best = max(best, float(np.linalg.norm(C[:, list(pi)].sum(axis=1))))
    return best


def test_c7_theorem_3_1_equals_brute_force_on_random_blts_and_the_digest_value():
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(4, 12))
        b, k = int(rng.integers(1, n)), int(rng.integers(1, 5))
        theta = np.sort(rng.uniform(0.05, 0.99, int(rng.integers(1, 4))))[::-1]
        omega = rng.dirichlet(np.ones(theta.size)) * rng.uniform(0.1, 1.0)  # Σω ≤ 1: the hypothesis holds
        blt = BLT(theta, omega)
        P = dpt.Participation(max_participations=k, min_sep=b)
        assert math.isclose(blt.sensitivity(n, P), brute_force(blt.strategy_matrix(n), b, k), rel_tol=1e-12)
    P = dpt.Participation(max_participations=3, min_sep=3)
    assert math.isclose(BLT([0.9, 0.5], [0.2, 0.15]).sensitivity(12, P), 2.41075167, rel_tol=2e-9)
    assert "Thm 3.1" in BLT([0.9, 0.5], [0.2, 0.15]).sensitivity_report(12, P).route


def test_c8_without_monotone_coefficients_the_earliest_pattern_is_not_the_worst():
    C = np.array([[1.0, 0, 0], [0, 1, 0], [1, 0, 1]])  # c = (1, 0, 1)
    P = dpt.Participation(max_participations=2, min_sep=1)
    lower, _ = sensitivity_bounds(C, P)
    assert math.isclose(lower, math.sqrt(3))  # Thm 3.1's formula, here only Remark 3.2's lower bound
    assert math.isclose(dpt.DenseMechanism(C).sensitivity(3, P), math.sqrt(5))  # the truth, π = (0, 2)


def test_a_blt_with_scales_summing_above_one_is_not_given_theorem_3_1():
    blt = BLT([0.9, 0.5], [0.8, 0.5])  # c_1 = 1.3 > c_0 = 1
    P = dpt.Participation(max_participations=3, min_sep=3)
    report = blt.sensitivity_report(12, P)
    assert report.exact and "enumeration" in report.route
    assert math.isclose(report.value, brute_force(blt.strategy_matrix(12), 3, 3), rel_tol=1e-12)
    assert report.value >= float(np.linalg.norm(blt.strategy_matrix(12)[:, [0, 3, 6]].sum(axis=1)))  # Remark 3.2


def test_a_signed_blt_gets_labelled_bounds_not_a_value():
    inv = BLT([0.9, 0.5], [0.2, 0.15]).inverse()  # negative scales: negative Gram entries
    P = dpt.Participation(max_participations=3, min_sep=2)
    report = inv.sensitivity_report(10, P)
    assert not report.exact and report.lower < report.upper
    assert report.lower <= brute_force_any_sign(inv.strategy_matrix(10), 2, 3) <= report.upper + 1e-12
    with pytest.raises(ValueError, match="only bounded"):
        report.value
    with pytest.raises(ValueError, match="negative entry"):
        inv.sensitivity(10, P)


def brute_force_any_sign(C: np.ndarray, b: int, k: int) -> float:
    """A lower estimate of the true sensitivity for any sign: the best of ±1 signs per participation."""
    n, best = C.shape[1], 0.0
    for size in range(1, k + 1):
        for pi in itertools.combinations(range(n), size):
            if all(j - i >= b for i, j in zip(pi, pi[1:])):
                for signs in itertools.product((1.0, -1.0), repeat=size):
                    best = max(best, float(np.linalg.norm(C[:, list(pi)] @ np.array(signs))))
    return best


# -- Prop. 3.3 errors (C6, C10) ----------------------------------------------------------------------------------
def test_c6_prop_3_3_errors_equal_the_dense_decoder_and_the_printed_sum_is_wrong():
    blt = BLT([0.99, 0.8, 0.3], [0.05, 0.2, 0.2])
    n = 300
    loss = prefix_loss(blt, n)
    assert math.isclose(loss.max_error, 3.2101998, rel_tol=3e-8) and math.isclose(loss.rms_error, 2.6795765, rel_tol=3e-8)
    B = np.tril(np.ones((n, n))) @ scipy.linalg.solve_triangular(blt.strategy_matrix(n), np.eye(n), lower=True)
    rows = np.sum(B**2, axis=1)
    assert math.isclose(loss.max_error, math.sqrt(rows.max()), rel_tol=1e-12)
    assert math.isclose(loss.rms_error, math.sqrt(rows.mean()), rel_tol=1e-12)
    exclusive = np.concatenate([[0.0], np.cumsum(blt.noising_coeffs(n))[:-1]])  # Prop. 3.3 as printed (errata 003 §3.6)
    assert math.isclose(math.sqrt(np.sum(exclusive**2)), 3.2073, abs_tol=5e-5)


def test_c10_toeplitz_row_energies_are_non_decreasing_so_the_max_error_is_the_last_row():
    e = APP_A_400.row_energies(1.0, 4000)
    assert np.all(np.diff(e) >= 0) and e.argmax() == e.size - 1


# -- bad input -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: BLT([1.2], [0.3]), r"theta must lie in \(0, 1\]"),
        (lambda: BLT([0.0], [0.3]), r"theta must lie in \(0, 1\]"),
        (lambda: BLT([0.5], [-0.3]), r"omega must be positive"),
        (lambda: BLT([0.5], [np.nan]), "omega must be finite"),
        (lambda: BLT([0.5, 0.5], [0.1, 0.2]), "distinct decays"),
        (lambda: BLT([0.5, 0.4], [0.1]), "same length"),
        (lambda: BLT.from_theta_pair([0.9, 0.5], [0.4, 0.3]), "not the inverse decays"),
        (lambda: output_scales([0.9, 0.5], [0.4, 0.3], form="printed"), "form must be one of"),
        (lambda: APP_A_400.sensitivity(0), "n must"),
        (lambda: APP_A_400.noise_stream((2,), np.zeros(1))(np.zeros((3, 4))), "z must have shape"),
        (lambda: dpt.nu_ftrl_blt(0.0), r"nu must lie in \(0, 1\)"),
        (lambda: dpt.nu_ftrl_blt(1.0), r"nu must lie in \(0, 1\)"),
        (lambda: dpt.nu_ftrl_blt(0.1, step=0.0), r"step must lie in \(0, 1\]"),
        (lambda: dpt.nu_ftrl_blt(0.1, step=1.5), r"step must lie in \(0, 1\]"),
        (lambda: BLT.from_noising([0.5, 0.5], [-0.1, -0.2]), "distinct decays"),
        (lambda: BLT.from_noising([0.5], [0.0]), "omega must be nonzero"),
        (lambda: BLT.from_noising([0.5, 0.4], [-0.1]), "same length"),
    ],
)
def test_bad_input_names_the_parameter(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# -- seed 004's engine on a BLT (issue: a BLT judged on a learning problem, not only on prefix sums) -------------
TABLE3_BLT = BLT([0.995335, 0.812293], [0.128287, 0.329059])  # errata 003 C17 (rounded to the digest's 6 digits)


@pytest.mark.parametrize("mechanism", [TABLE3_BLT, dpt.nu_ftrl(0.05)], ids=["BLT", "nu-FTRL"])
def test_finite_horizon_F_of_a_blt_and_of_nu_ftrl_lie_in_the_simulated_interval(mechanism):
    problem = dpt.MeanEstimation(eta=0.05, sigma_sgd=0.5)
    P = dpt.Participation(max_participations=3, min_sep=100)
    theory = dpt.F_inf(mechanism, problem, rho=1.0, horizon=300, participation=P)
    sim = dpt.simulate(mechanism, problem, rho=1.0, horizon=300, participation=P, seeds=2000, seed=11)
    lo, hi = sim.interval(0.999)
    assert lo <= theory <= hi, (theory, sim)


def test_stationary_simulation_of_a_blt_streams_its_buffers_without_truncation():
    blt = BLT.from_theta_pair(C1_THETA, C1_THETA_HAT)
    problem = dpt.MeanEstimation(eta=0.2, sigma_sgd=0.5)
    sim = dpt.simulate(blt, problem, rho=1.0, seeds=64, seed=5)
    assert sim.mechanism is blt and sim.truncation is None and sim.settings["taps"] is None
    lo, hi = sim.interval(0.999)
    assert lo <= dpt.F_inf(blt, problem, rho=1.0) <= hi


def test_streaming_limit_under_participation_closed_form_equals_the_time_sum():
    blt = BLT.from_theta_pair(C1_THETA, C1_THETA_HAT)
    for P in (dpt.Participation(max_participations=3, min_sep=50), dpt.Participation(max_participations=5, min_sep=7)):
        generic = ToeplitzMechanism.sensitivity(blt, None, P)  # Thm 3.1 over the inverse's support + (k − 1)b
        assert math.isclose(blt.sensitivity(None, P), generic, rel_tol=1e-13)
        assert math.isclose(blt.sensitivity(None, P), blt.sensitivity(200_000, P), rel_tol=1e-13)
    # θ_1 = 1 − 7.9e-12: O(k²d²), where a time-domain sum would need ~10¹² coefficients
    assert BLT([1.0, 0.5], [0.1, 0.2]).sensitivity(None, dpt.Participation(max_participations=2, min_sep=9)) == math.inf
    assert 8858 < APP_A_400.sensitivity(None, dpt.Participation(max_participations=5, min_sep=400)) < 8860


# -- ν-DP-FTRL's BLT approximation (a trapezoid sum of exponentials; seed 004 eq. 7) ---------------------------------
FIG2_PROBLEM = dpt.LinearRegression(0.02, 1.0 / np.arange(1, 129))  # seed 004 Fig. 2's base point, d = 128


@pytest.mark.parametrize("nu", [1e-5, 1.5625e-4, 0.01, 0.5])
def test_nu_ftrl_blt_has_nu_ftrls_coefficients_and_F_inf_to_the_documented_accuracy(nu):
    """‖β̃ − β‖₂ ≤ 1e-7 against the recurrence of eq. 7, and F∞ (BLT partial fractions and strategy energy) within
    1e-6 of ν-DP-FTRL's (elliptic closed forms, Lemma F.15/F.16): two independent routes (2.3e-7 measured)."""
    approx, exact = dpt.nu_ftrl_blt(nu), dpt.nu_ftrl(nu)
    n = min(exact._support(), 1 << 21)
    assert np.linalg.norm(approx.noising_coeffs(n) - exact.noising_coeffs(n)) <= 1e-7
    assert abs(dpt.F_inf(approx, FIG2_PROBLEM, rho=1.0) / dpt.F_inf(exact, FIG2_PROBLEM, rho=1.0) - 1) <= 1e-6
    assert approx.is_minimum_phase() and approx.strategy_is_minimum_phase()


def test_a_coarser_step_is_a_worse_approximation():
    """The quadrature error is what the step controls: at h = 1 the coefficients are off by > 1e-5 (so the test above
    can fail)."""
    exact = dpt.nu_ftrl(0.01).noising_coeffs(4000)
    assert np.linalg.norm(dpt.nu_ftrl_blt(0.01, step=1.0).noising_coeffs(4000) - exact) > 1e-5


def test_a_blt_defined_by_its_noising_blt_has_closed_forms_equal_to_its_coefficients_routes():
    """F∞ and γ∞ of ``nu_ftrl_blt`` (~40 clustered decays) by the BLT closed forms equal the finite-β routes on its
    own coefficients (certified DTFT trapezoid, Σ c_t²) to 1e-11: the clustered decays cost no accuracy."""
    approx = dpt.nu_ftrl_blt(0.01)
    finite = dpt.toeplitz(approx.noising_coeffs(approx._support()))
    assert math.isclose(dpt.F_inf(approx, FIG2_PROBLEM, rho=1.0), dpt.F_inf(finite, FIG2_PROBLEM, rho=1.0), rel_tol=1e-11)
    assert math.isclose(approx.sensitivity(None), finite.sensitivity(None), rel_tol=1e-11)
    np.testing.assert_array_equal(approx.inverse_decays(), np.sort(approx.inverse_decays())[::-1])


def test_the_noising_blts_chunked_stream_equals_the_dense_noising_matrix_block_by_block():
    """Alg. 2 on (θ̂, ω̂) in chunks of 32 steps (three matrix products each), blocks cut across chunk boundaries."""
    approx = dpt.nu_ftrl_blt(0.05)
    n, rng = 150, np.random.default_rng(3)
    z = rng.standard_normal((n, 2, 3))
    stream = approx.noise_stream((2, 3), z)
    out = np.concatenate([stream(z[:7]), stream(z[7:70]), stream(z[70:71]), stream(z[71:])]).reshape(n, -1)
    np.testing.assert_allclose(out, approx.noising_matrix(n) @ z.reshape(n, -1), rtol=0, atol=1e-12)
    impulse = approx.noise_stream((1,), z)(np.eye(n)[:, :1])[:, 0]
    np.testing.assert_allclose(impulse, dpt.nu_ftrl(0.05).noising_coeffs(n), atol=1e-9)


def test_stationary_simulation_of_nu_ftrls_blt_approximation_matches_nu_ftrls_F_inf():
    """Seed 004 Thm 2.2 by simulation: the approximation run whole (no truncation, no history) against ν-FTRL's exact
    F∞ (elliptic closed forms), within the 99.9% interval."""
    problem = dpt.LinearRegression(0.05, 1.0 / np.arange(1, 9), sigma_sgd=0.3)
    approx = dpt.nu_ftrl_blt(problem.eta * problem.mu)
    sim = dpt.simulate(approx, problem, rho=1.0, seeds=64, seed=4)
    assert sim.mechanism is approx and sim.truncation is None
    lo, hi = sim.interval(0.999)
    assert lo <= dpt.F_inf(dpt.nu_ftrl(problem.eta * problem.mu), problem, rho=1.0) <= hi, sim


@pytest.mark.parametrize("nu", [1e-4, 0.05])
def test_nu_ftrl_blt_stands_in_for_nu_ftrl_on_mean_estimation_at_finite_horizons_and_under_participation(nu):
    """The other quantities a user asks of ν-DP-FTRL agree with its BLT approximation to 1e-6 (measured ≤ 2e-8): F∞ and
    F_n of mean estimation (App. B eq. 18; ν-FTRL's by its elliptic closed forms and recurrences, the BLT's by partial
    fractions) and the sensitivity under 4 participations 500 apart (seed 003 Thm 3.1, each on its own coefficients)."""
    approx, exact = dpt.nu_ftrl_blt(nu), dpt.nu_ftrl(nu)
    me, P = dpt.MeanEstimation(0.1, sigma_sgd=0.3), dpt.Participation(max_participations=4, min_sep=500)
    assert math.isclose(dpt.F_inf(approx, me, rho=1.0), dpt.F_inf(exact, me, rho=1.0), rel_tol=1e-6)
    assert math.isclose(dpt.F_inf(approx, me, rho=1.0, horizon=1000), dpt.F_inf(exact, me, rho=1.0, horizon=1000), rel_tol=1e-6)
    assert math.isclose(approx.sensitivity(2000, P), exact.sensitivity(2000, P), rel_tol=1e-6)
