"""Asymptotic suboptimality F∞ (seed 004 eq. 4; App. B eq. 18; App. C; errata 004 §8 #18–#28).

Independent routes: the closed forms of Thm 2.1, the frequency integral (periodic trapezoid), the exact
time-domain geometric-filter sum, the digest's Monte-Carlo values (computed outside this package), and for
the exact Gaussian linear-regression value a direct solve of the second-moment fixed point of an augmented
state (no diagonalisation, no pole integrals).
"""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import dptheory as dpt
from dptheory.data import golden

HARMONIC_8 = 1.0 / np.arange(1, 9)
HARMONIC_128 = 1.0 / np.arange(1, 129)


# --- mean estimation (Thm 2.1, App. B) ---------------------------------------------------------------


def test_mean_estimation_dpsgd_closed_form():
    """errata 004 §8 #19: lim Eδ² = ηG²/(2ρ(2−η)) = 0.0263157895 at η = 0.1; F∞ = E[F − F⋆] is half of it."""
    problem = dpt.MeanEstimation(0.1)
    assert dpt.F_inf(dpt.dpsgd(), problem, rho=1.0, variant="paper") == pytest.approx(0.0263157895, rel=1e-9)
    assert dpt.F_inf(dpt.dpsgd(), problem, rho=1.0) == pytest.approx(0.0263157895 / 2, rel=1e-9)
    assert dpt.mean_estimation_dpsgd(0.1, rho=1.0) == pytest.approx(dpt.F_inf(dpt.dpsgd(), problem, rho=1.0), rel=1e-14)


@pytest.mark.parametrize("eta, second_moment", [(0.1, 0.010539236), (0.5, 0.143964953)])
def test_mean_estimation_optimum_closed_form_equals_the_generic_routes(eta, second_moment):
    """errata 004 §8 #20: 2η²G²K(|1−η|)²/(π²ρ) is attained by β*; closed form = F.15 route = time = frequency."""
    problem = dpt.MeanEstimation(eta)
    beta = dpt.mean_estimation_optimal(eta)
    closed = dpt.mean_estimation_optimum(eta, rho=1.0, variant="paper")
    assert closed == pytest.approx(second_moment, rel=5e-8)  # the digest prints 8 digits
    for method in ("auto", "time", "frequency"):
        assert dpt.F_inf(beta, problem, rho=1.0, variant="paper", method=method) == pytest.approx(closed, rel=1e-10)


@pytest.mark.parametrize(
    "beta",
    [dpt.dpsgd(), dpt.nu_ftrl(0.01), dpt.mean_estimation_optimal(0.2), dpt.damped_anti_pgd(0.05), [1.0, -0.6, 0.1, 0.05]],
    ids=repr,
)
@pytest.mark.parametrize("eta, sigma_sgd", [(0.2, 0.0), (0.05, 0.3), (1.5, 0.1)])
def test_mean_estimation_frequency_integral_equals_time_domain_sum(beta, eta, sigma_sgd):
    """App. B eq. (18) by the frequency integral and by the time-domain sum agree to 1e-10 relative."""
    problem = dpt.MeanEstimation(eta, sigma_sgd)
    by_time = dpt.F_inf(beta, problem, rho=0.7, G=1.3, method="time")
    by_freq = dpt.F_inf(beta, problem, rho=0.7, G=1.3, method="frequency")
    assert by_time == pytest.approx(by_freq, rel=1e-10)


@pytest.mark.parametrize(
    "eta, ratio", [(1e-3, 0.016374), (1e-2, 0.090868), (0.1, 0.400491), (0.5, 0.863790), (1.0, 1.0), (1.5, 0.863790), (1.99, 0.090868)]
)
def test_figure1_ratio_of_optimum_to_dpsgd(eta, ratio):
    """errata 004 §8 #21: 4η(2−η)K(|1−η|)²/π², symmetric in η ↔ 2−η and 1 at η = 1 (not 'better at η→1')."""
    assert float(dpt.mean_estimation_ratio(eta)) == pytest.approx(ratio, abs=1e-6)
    problem = dpt.MeanEstimation(eta)
    generic = dpt.F_inf(dpt.mean_estimation_optimal(eta), problem, rho=1.0) / dpt.F_inf(dpt.dpsgd(), problem, rho=1.0)
    assert generic == pytest.approx(float(dpt.mean_estimation_ratio(eta)), rel=1e-10)


def test_figure1_ratio_small_eta_asymptote():
    """ratio ≈ (2η/π²) log²(8/η) as η → 0 (errata 004 §8 #21): relative gap O(1/log(8/η))-small at η = 1e-8."""
    eta = 1e-8
    assert float(dpt.mean_estimation_ratio(eta)) == pytest.approx(2 * eta / math.pi**2 * math.log(8 / eta) ** 2, rel=1e-6)


random_betas = st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=8).map(lambda t: np.r_[1.0, t])


@given(random_betas, st.floats(0.01, 1.9))
def test_no_beta_beats_the_cauchy_schwarz_optimum_for_mean_estimation(beta, eta):
    """Thm 2.1: inf_β F∞(β) = F∞(β*) — a random β (minimum phase or not) is never better."""
    problem = dpt.MeanEstimation(eta)
    assert dpt.F_inf(beta, problem, rho=1.0) >= dpt.mean_estimation_optimum(eta, rho=1.0) * (1 - 1e-12)


def test_paper_variant_is_twice_the_corrected_value():
    problem = dpt.MeanEstimation(0.3, sigma_sgd=0.2)
    beta = dpt.nu_ftrl(0.1)
    assert dpt.F_inf(beta, problem, rho=2.0, variant="paper") == pytest.approx(2 * dpt.F_inf(beta, problem, rho=2.0), rel=1e-15)


@pytest.mark.parametrize("beta", [dpt.optimal_cc(), dpt.anti_pgd()], ids=repr)
def test_divergent_sensitivity_gives_infinite_F_inf(beta):
    """Table 2: F∞ = ∞ for Optimal-CC (ν = 0) and anti-PGD."""
    assert dpt.F_inf(beta, dpt.MeanEstimation(0.1), rho=1.0) == math.inf
    assert dpt.F_inf(beta, dpt.LinearRegression(0.02, HARMONIC_8), rho=1.0) == math.inf


# --- linear regression (Thm 2.2, App. C) --------------------------------------------------------------


def test_lti_values_of_the_digest():
    """errata 004 §8 #22, #24, #25, #28 (exact LTI formulas, F.16 and Lemma C.4 routes)."""
    p8 = dpt.LinearRegression(0.05, HARMONIC_8)
    assert dpt.F_inf(dpt.nu_ftrl(0.05 / 8), p8, rho=1.0, kind="lti") == pytest.approx(6.77476e-3, rel=1e-5)
    assert dpt.F_inf(dpt.dpsgd(), p8, rho=1.0, kind="lti") == pytest.approx(0.0504308, rel=1e-6)
    p128 = dpt.LinearRegression(0.02, HARMONIC_128)
    assert dpt.F_inf(dpt.nu_ftrl(0.02 / 128), p128, rho=1.0, kind="lti") == pytest.approx(4.5195e-3, rel=1e-4)
    assert dpt.F_inf_lti_infimum(p128, rho=1.0) == pytest.approx(4.1483e-3, rel=1e-4)
    assert dpt.F_inf(dpt.dpsgd(), p128, rho=1.0, kind="lti") == pytest.approx(0.32014, rel=1e-4)
    p64 = dpt.LinearRegression(0.02, 1.0 / np.arange(1, 65))
    assert dpt.F_inf(dpt.damped_anti_pgd(0.1), p64, rho=1.0, kind="lti") == pytest.approx(1.068220e-2, rel=1e-6)


def test_noisy_sgd_lti_closed_form():
    """errata 004 §8 #24: F^LTI = (ηG²/(4ρ))Σ_j 1/(2−ηλ_j) + (ησ²/2)Σ_j λ_j/(2−ηλ_j) for β = e_0."""
    eta, lam, s = 0.03, HARMONIC_8, 0.4
    p = dpt.LinearRegression(eta, lam, sigma_sgd=s)
    expected = eta * 1.5**2 / (4 * 0.3) * np.sum(1 / (2 - eta * lam)) + eta * s**2 / 2 * np.sum(lam / (2 - eta * lam))
    assert dpt.F_inf(dpt.dpsgd(), p, rho=0.3, G=1.5, kind="lti") == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize(
    "eta, mc_over_lti_nu, mc_over_lti_sgd",
    [(0.01, 1.016, 1.020), (0.02, 1.033, 1.034), (0.05, 1.089, 1.085), (0.1, 1.200, 1.190)],
)
def test_exact_gaussian_value_matches_the_digests_monte_carlo(eta, mc_over_lti_nu, mc_over_lti_sgd):
    """errata 004 §8 #23 (independent MC, 100 chains × 1.5e5 steps): MC/LTI ratios on d = 8, λ_k = 1/k.

    Tolerance 1%: the digest's MC ratios carry ~0.5% sampling error (its §8 #23b quotes ±2% for d = 128).
    """
    p = dpt.LinearRegression(eta, HARMONIC_8)
    for beta, mc in ((dpt.nu_ftrl(eta / 8), mc_over_lti_nu), (dpt.dpsgd(), mc_over_lti_sgd)):
        ratio = dpt.F_inf(beta, p, rho=1.0) / dpt.F_inf(beta, p, rho=1.0, kind="lti")
        assert ratio == pytest.approx(mc, rel=0.01)


@pytest.mark.parametrize("eta, mc_over_lti",
                         [(float(eta), mc) for eta, mc in golden("004", "linreg.exact_over_lti").value.items()])
def test_exact_gaussian_noisy_sgd_d128_matches_the_digests_monte_carlo(eta, mc_over_lti):
    """errata 004 §8 #23b: MC/LTI for Noisy-SGD, d = 128, λ_k = 1/k (64–192 chains; ±2% stated, we use 1%)."""
    p = dpt.LinearRegression(eta, HARMONIC_128)
    ratio = dpt.F_inf(dpt.dpsgd(), p, rho=1.0) / dpt.F_inf(dpt.dpsgd(), p, rho=1.0, kind="lti")
    assert ratio == pytest.approx(mc_over_lti, rel=0.01)


def _augmented_state_second_moment(beta, eigvecs, eigs, eta, sigma2_dp, sigma_sgd):
    """Stationary ½Tr(H S) from the second-moment fixed point of z = (θ', w_{t−1}, …, w_{t−n+1}).

    z_{t+1} = (M̄ + Δ_t) z_t + noise, Δ_t = −η(x_tx_tᵀ − H) on the θ block. With Gaussian x,
    E[Δ P Δᵀ] = η²(H P_θθ H + Tr(H P_θθ) H) (Property C.3). Solved as one dense linear system, in a
    rotated (non-diagonal) basis, with no pole integral: an independent route to the exact value.
    """
    beta = np.asarray(beta, float)
    d, n = eigs.size, beta.size
    H = eigvecs @ np.diag(eigs) @ eigvecs.T
    N = d * n
    sd = math.sqrt(sigma2_dp)
    Mbar = np.zeros((N, N))
    Mbar[:d, :d] = np.eye(d) - eta * H
    for k in range(1, n):
        Mbar[:d, k * d : (k + 1) * d] = -eta * sd * beta[k] * np.eye(d)
    for k in range(1, n - 1):
        Mbar[(k + 1) * d : (k + 2) * d, k * d : (k + 1) * d] = np.eye(d)
    Q = np.zeros((N, N))
    Q[:d, :d] = (eta * sd * beta[0]) ** 2 * np.eye(d) + eta**2 * sigma_sgd**2 * H
    if n > 1:
        Q[:d, d : 2 * d] = Q[d : 2 * d, :d] = -eta * sd * beta[0] * np.eye(d)
        Q[d : 2 * d, d : 2 * d] = np.eye(d)
    # vec(M P Mᵀ) = (M ⊗ M) vec(P); the multiplicative term acts on the θθ block only
    op = np.kron(Mbar, Mbar)
    for i in range(d):
        for j in range(d):
            E = np.zeros((N, N))
            E[i, j] = 1.0
            Pth = E[:d, :d]
            out = np.zeros((N, N))
            out[:d, :d] = eta**2 * (H @ Pth @ H + np.trace(H @ Pth) * H)
            op[:, i * N + j] += out.reshape(-1)
    P = np.linalg.solve(np.eye(N * N) - op, Q.reshape(-1)).reshape(N, N)
    return 0.5 * np.trace(H @ P[:d, :d])


@pytest.mark.parametrize("beta", [[1.0], [1.0, -0.6, 0.1], [1.0, -0.9]], ids=str)
@pytest.mark.parametrize("eta, sigma_sgd", [(0.05, 0.0), (0.2, 0.5)])
def test_exact_gaussian_value_equals_the_augmented_state_fixed_point(beta, eta, sigma_sgd):
    eigs = np.array([1.0, 0.5, 0.2])
    U, _ = np.linalg.qr(np.random.default_rng(3).standard_normal((3, 3)))
    rho, G = 0.8, 1.2
    p = dpt.LinearRegression(eta, eigs, sigma_sgd=sigma_sgd)
    gamma = dpt.toeplitz(beta).limiting_sensitivity()
    expected = _augmented_state_second_moment(beta, U, eigs, eta, G**2 * gamma**2 / (2 * rho), sigma_sgd)
    assert dpt.F_inf(beta, p, rho=rho, G=G) == pytest.approx(expected, rel=1e-10)


def _augmented_state_at_horizon(beta, eigvecs, eigs, eta, sigma2_dp, sigma_sgd, n):
    """½Tr(H P_θθ) after ``n`` steps of the augmented-state recursion of ``_augmented_state_second_moment``, iterated
    in time from ``P = 0`` (no noise before step 0) instead of solved for its fixed point."""
    beta = np.asarray(beta, float)
    d, m = eigs.size, max(beta.size, 2)
    H = eigvecs @ np.diag(eigs) @ eigvecs.T
    sd = math.sqrt(sigma2_dp)
    # state z_t = (θ'_t, w_{t−1}, …, w_{t−m+1}); θ'_{t+1} = (I − ηx xᵀ)θ' + ηξx − η sd Σ_k β_k w_{t−k}
    M = np.zeros((d * m, d * m))
    M[:d, :d] = np.eye(d) - eta * H
    for k in range(1, beta.size):
        M[:d, k * d:(k + 1) * d] = -eta * sd * beta[k] * np.eye(d)
    for k in range(1, m - 1):
        M[(k + 1) * d:(k + 2) * d, k * d:(k + 1) * d] = np.eye(d)
    Q = np.zeros_like(M)
    Q[:d, :d] = (eta * sd * beta[0]) ** 2 * np.eye(d) + eta**2 * sigma_sgd**2 * H
    Q[:d, d:2 * d] = Q[d:2 * d, :d] = -eta * sd * beta[0] * np.eye(d)
    Q[d:2 * d, d:2 * d] = np.eye(d)
    P = np.zeros_like(M)
    for _ in range(n):
        Pth = P[:d, :d]
        P = M @ P @ M.T + Q
        P[:d, :d] += eta**2 * (H @ Pth @ H + np.trace(H @ Pth) * H)
    return 0.5 * np.trace(H @ P[:d, :d])


@pytest.mark.parametrize("beta", [[1.0], [1.0, -0.6, 0.1], [1.0, 0.7]], ids=str)
@pytest.mark.parametrize("eta, sigma_sgd, n", [(0.05, 0.0, 40), (0.4, 0.5, 25), (0.9, 0.3, 7)])
def test_exact_gaussian_value_at_a_horizon_equals_the_augmented_state_recursion(beta, eta, sigma_sgd, n):
    """F_n for Gaussian linear regression (docs/linear_regression_exact.md, at a finite horizon) against the
    time-iterated second moments of the augmented state in a rotated basis (no eigen-decomposition, no row energies);
    η = 0.9 lies beyond the stationary range (η_max_gaussian = 0.73), where only a finite horizon has a value."""
    eigs = np.array([1.0, 0.5, 0.2])
    U, _ = np.linalg.qr(np.random.default_rng(5).standard_normal((3, 3)))
    rho, G = 0.8, 1.2
    p = dpt.LinearRegression(eta, eigs, sigma_sgd=sigma_sgd)
    sens = dpt.toeplitz(beta).sensitivity(n)
    expected = _augmented_state_at_horizon(beta, U, eigs, eta, G**2 * sens**2 / (2 * rho), sigma_sgd, n)
    assert dpt.F_inf(beta, p, rho=rho, G=G, horizon=n) == pytest.approx(expected, rel=1e-11)


@pytest.mark.parametrize("mechanism", [dpt.dpsgd(), dpt.nu_ftrl(0.05), dpt.BLT([0.95, 0.5], [0.2, 0.3])], ids=repr)
def test_exact_gaussian_value_at_a_horizon_tends_to_the_stationary_value(mechanism):
    p = dpt.LinearRegression(0.1, HARMONIC_8, sigma_sgd=0.3)
    stationary = dpt.F_inf(mechanism, p, rho=1.0)
    assert dpt.F_inf(mechanism, p, rho=1.0, horizon=20_000) == pytest.approx(stationary, rel=1e-6)
    # the multiplicative noise only adds variance: above the LTI part at every horizon
    for n in (10, 100, 1000):
        exact, lti = (dpt.F_inf(mechanism, p, rho=1.0, horizon=n, kind=k) for k in ("exact", "lti"))
        assert lti < exact


@pytest.mark.parametrize("beta", [dpt.dpsgd(), dpt.nu_ftrl(0.02 / 128), dpt.damped_anti_pgd(0.05), [1.0, -0.6, 0.1]], ids=repr)
@pytest.mark.parametrize("eta, sigma_sgd", [(0.01, 0.0), (0.05, 1.0), (0.1, 0.3)])
def test_exact_value_lies_between_the_papers_lower_and_upper_bounds(beta, eta, sigma_sgd):
    """Thm C.18 ≤ LTI ≤ exact ≤ Thm C.15 (all need η < 1/R²; R² = 7.43 here)."""
    p = dpt.LinearRegression(eta, HARMONIC_128 if eta < 0.1 else HARMONIC_8, sigma_sgd=sigma_sgd)
    values = [dpt.F_inf(beta, p, rho=1.0, kind=k) for k in ("lower", "lti", "exact", "upper")]
    assert values == sorted(values)


@given(random_betas.filter(lambda b: dpt.toeplitz(b).is_minimum_phase()), st.floats(0.001, 0.3))
def test_no_beta_beats_the_lti_infimum_for_linear_regression(beta, eta):
    """Thm C.18 (second display): γ∞(β)²∫|B|²h ≥ ((1/2π)∫√h)²·2π for every β (Cauchy–Schwarz)."""
    p = dpt.LinearRegression(eta, HARMONIC_8)
    assert dpt.F_inf(beta, p, rho=1.0, kind="lti") >= dpt.F_inf_lti_infimum(p, rho=1.0) * (1 - 1e-10)


def test_lti_infimum_paper_variant_uses_the_weaker_sgd_term():
    p = dpt.LinearRegression(0.05, HARMONIC_8, sigma_sgd=1.0)
    gap = dpt.F_inf_lti_infimum(p, rho=1.0) - dpt.F_inf_lti_infimum(p, rho=1.0, variant="paper")
    lam = HARMONIC_8
    assert gap == pytest.approx(0.05 / 2 * np.sum(lam / (2 - 0.05 * lam)) - 0.05 / 4 * lam.sum(), rel=1e-12)


# --- bad input ----------------------------------------------------------------------------------------


def test_exact_gaussian_value_refuses_eta_beyond_the_stationarity_region():
    p = dpt.LinearRegression(0.33, HARMONIC_128)  # η·λ_max < 2 (stable in mean) but c(η) > 1
    assert p.coupling() > 1
    with pytest.raises(ValueError, match=r"eta must lie in \(0, 0\.3253.*second moment"):
        dpt.F_inf(dpt.dpsgd(), p, rho=1.0)
    assert math.isfinite(dpt.F_inf(dpt.dpsgd(), p, rho=1.0, kind="lti"))


def test_eta_max_gaussian_is_where_the_coupling_reaches_one():
    p = dpt.LinearRegression(0.02, HARMONIC_128)
    assert p.coupling(p.eta_max_gaussian) == pytest.approx(1.0, rel=1e-10)


def test_bounds_refuse_eta_at_or_above_one_over_R2():
    p = dpt.LinearRegression(0.2, HARMONIC_128)
    for kind in ("lower", "upper"):
        with pytest.raises(ValueError, match=r"eta must lie in \(0, 1/R\^2\)"):
            dpt.F_inf(dpt.dpsgd(), p, rho=1.0, kind=kind)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(eta=0.0, eigs=[1.0]), r"eta must lie in \(0, 2\)"),
        (dict(eta=-0.1, eigs=[1.0]), "eta must lie in"),
        (dict(eta=0.5, eigs=[4.0, 1.0]), r"eta must lie in \(0, 0\.5\)"),
        (dict(eta=0.1, eigs=[1.0, -0.5]), "eigs must be strictly positive"),
        (dict(eta=0.1, eigs=[]), "eigs must be a non-empty"),
        (dict(eta=0.1, eigs=[1.0], sigma_sgd=-1.0), "sigma_sgd must lie in"),
    ],
)
def test_linear_regression_refuses_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        dpt.LinearRegression(**kwargs)


@pytest.mark.parametrize("eta", [0.0, 2.0, -0.5, 3.0])
def test_mean_estimation_refuses_unstable_eta(eta):
    with pytest.raises(ValueError, match=r"eta must lie in \(0, 2\)"):
        dpt.MeanEstimation(eta)


@pytest.mark.parametrize("rho, G, match", [(0.0, 1.0, "rho must"), (-1.0, 1.0, "rho must"), (1.0, 0.0, "G must")])
def test_F_inf_refuses_nonpositive_privacy_parameters(rho, G, match):
    with pytest.raises(ValueError, match=match):
        dpt.F_inf(dpt.dpsgd(), dpt.MeanEstimation(0.1), rho=rho, G=G)


def test_F_inf_refuses_unknown_kind_and_variant():
    with pytest.raises(ValueError, match="kind must be one of"):
        dpt.F_inf(dpt.dpsgd(), dpt.MeanEstimation(0.1), rho=1.0, kind="upper")
    with pytest.raises(ValueError, match="variant='paper' exists only for MeanEstimation"):
        dpt.F_inf(dpt.dpsgd(), dpt.LinearRegression(0.1, [1.0]), rho=1.0, variant="paper")


def test_simulation_interval_contains_the_exact_gaussian_value_at_a_horizon():
    """Monte-Carlo of Noisy-FTRL with x ~ N(0, H) (the simulator's own draws) against F_n; the LTI part lies outside."""
    p = dpt.LinearRegression(0.3, HARMONIC_8, sigma_sgd=0.5)
    mech = dpt.nu_ftrl(0.1)
    exact = dpt.F_inf(mech, p, rho=1.0, horizon=40)
    sim = dpt.simulate(mech, p, rho=1.0, horizon=40, seeds=20_000, seed=11)
    lo, hi = sim.interval(0.999)
    assert lo <= exact <= hi
    assert not lo <= dpt.F_inf(mech, p, rho=1.0, horizon=40, kind="lti") <= hi
