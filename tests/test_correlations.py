"""Noise correlations and their sensitivities (seed 004 Thm 1.1, eq. 5, eq. 7, Table 2; errata 004 §8 #1–#7, #33).

Each closed form is checked against an independent route: the time-domain sum of squared inverse
coefficients, the frequency integral (adaptive periodic trapezoid), and the dense triangular inverse.
"""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st
from scipy import special as sc
from scipy.signal import lfilter

import scipy.linalg

import dptheory as dpt
from dptheory.mechanisms import dense_sensitivity
from dptheory.mechanisms.spectral import is_minimum_phase, series_inverse


@pytest.mark.parametrize(
    "nu, gamma_sq", [(0.5, 1.0731820071), (0.1, 1.4518426734), (0.01, 2.1368782611), (0.001, 2.8619855542)]
)
def test_nu_ftrl_limiting_sensitivity_closed_form_equals_time_and_frequency_routes(nu, gamma_sq):
    """γ∞(β^ν)² = (2/π)K(1−ν) = Σ_t c_t² = (1/2π)∫|1−ν−e^{iω}|^{-1} (errata 004 §8 #1: all agree to 1e-15)."""
    beta = dpt.nu_ftrl(nu)
    closed = beta.limiting_sensitivity(method="closed_form") ** 2
    assert closed == pytest.approx(gamma_sq, rel=1e-10)
    assert beta.limiting_sensitivity(method="time") ** 2 == pytest.approx(closed, rel=1e-12)
    assert beta.limiting_sensitivity(method="frequency") ** 2 == pytest.approx(closed, rel=1e-12)


def test_nu_ftrl_finite_T_sensitivity_is_below_its_limit():
    """errata 004 §8 #2: ν = 1e-3, T = 2000 gives γ_T² = 2.8607841342 < γ∞² = 2.8619855542."""
    beta = dpt.nu_ftrl(1e-3)
    assert beta.sensitivity(2000) ** 2 == pytest.approx(2.8607841342, rel=1e-10)
    assert beta.sensitivity(2000) < beta.limiting_sensitivity()


@pytest.mark.parametrize("T, gamma_sq", [(10, 1.7913439), (100, 2.5313521), (10**4, 3.9980103), (10**6, 5.4638894)])
def test_optimal_cc_sensitivity_grows_without_bound(T, gamma_sq):
    """Table 2, Fichtenberger et al.: γ_T² = (1/π)(ln T + γ_E + 4 ln 2) + o(1) → ∞ (errata 004 §8 #3)."""
    beta = dpt.optimal_cc()
    assert beta.sensitivity(T) ** 2 == pytest.approx(gamma_sq, rel=1e-7)
    assert beta.limiting_sensitivity() == math.inf


@pytest.mark.parametrize("T", [5, 50, 500, 10**5])
def test_anti_pgd_sensitivity_is_sqrt_T(T):
    """Table 2: B⁻¹ of anti-PGD is the all-ones lower triangle, so γ_T² = T exactly; γ∞ = ∞."""
    assert dpt.anti_pgd().sensitivity(T) ** 2 == pytest.approx(T, rel=1e-12)
    assert dpt.anti_pgd().limiting_sensitivity() == math.inf


@pytest.mark.parametrize("nu, gamma_sq", [(0.1, 5.2631579), (0.01, 50.2512563)])
def test_damped_anti_pgd_limiting_sensitivity(nu, gamma_sq):
    """Table 2: γ∞² = 1/(ν(2−ν)) (errata 004 §8 #5), by the frequency and the time-domain routes."""
    beta = dpt.damped_anti_pgd(nu)
    assert beta.limiting_sensitivity() ** 2 == pytest.approx(1 / (nu * (2 - nu)), rel=1e-12)
    assert beta.limiting_sensitivity(method="time") ** 2 == pytest.approx(gamma_sq, rel=1e-7)
    assert beta.sensitivity(3000) ** 2 == pytest.approx(1 / (nu * (2 - nu)), rel=1e-12)


def test_non_minimum_phase_beta_has_infinite_limiting_sensitivity_although_its_integral_is_finite():
    """β = (1, −2): (1/2π)∫|B|^{-2} = 1/3, but γ_T² = (4^T − 1)/3 → ∞ (errata 004 §8 #33, §10.17)."""
    beta = dpt.toeplitz([1.0, -2.0])
    omega = np.linspace(-np.pi, np.pi, 200001)
    integral = np.trapezoid(1.0 / beta.spectrum(omega), omega) / (2 * np.pi)
    assert integral == pytest.approx(1 / 3, rel=1e-6)
    for T in (5, 10, 20):
        assert beta.sensitivity(T) ** 2 == pytest.approx((4.0**T - 1) / 3, rel=1e-12)
    assert beta.limiting_sensitivity() == math.inf
    assert beta.sensitivity(10**4) == math.inf  # beyond double precision
    assert dpt.F_inf(beta, dpt.MeanEstimation(0.1), rho=1.0) == math.inf


def test_nu_ftrl_coefficient_norms():
    """errata 004 §8 #6: ‖β^ν‖₁ = 2 − √ν and ‖β^ν‖₂² = (2/π)(2E(1−ν) − ν(2−ν)K(1−ν)) (modulus convention)."""
    for nu in (0.5, 0.01):
        b = dpt.nu_ftrl(nu).noising_coeffs(2 * 10**6)
        m1 = nu * (2 - nu)
        assert np.sum(np.abs(b)) == pytest.approx(2 - math.sqrt(nu), rel=1e-6)  # tail ~ t^{-1/2}(1−ν)^t
        l2 = 2 / math.pi * (2 * sc.ellipe(1 - m1) - m1 * sc.ellipkm1(m1))
        assert np.dot(b, b) == pytest.approx(l2, rel=1e-10)


def test_mean_estimation_optimal_coefficients_and_their_decay():
    """errata 004 §8 #7: β* at η = 0.1 and |C(1/2, t)|·t^{3/2}·2√π → 1 (App. B)."""
    beta = dpt.mean_estimation_optimal(0.1)
    np.testing.assert_allclose(
        beta.noising_coeffs(6), [1, -0.45, -0.10125, -0.0455625, -0.02562891, -0.01614621], rtol=1e-6
    )
    c = dpt.optimal_cc().noising_coeffs(1001)  # C(1/2, t)(−1)^t
    for t, expected in [(10, 1.0396), (100, 1.0038), (1000, 1.00038)]:
        assert abs(c[t]) * t**1.5 * 2 * math.sqrt(math.pi) == pytest.approx(expected, abs=1e-4)


def test_sqrt_family_inverse_is_the_series_inverse_of_its_coefficients():
    beta = dpt.nu_ftrl(0.05)
    np.testing.assert_allclose(beta.strategy_coeffs(5000), series_inverse(beta.noising_coeffs(5000), 5000), rtol=1e-11, atol=1e-15)


def test_fast_toeplitz_sensitivity_equals_the_dense_inverse_column_maximum():
    """Thm 1.1 (eq. 24) by the generic O(T³) route of the base class vs the Toeplitz column-0 shortcut."""
    rng = np.random.default_rng(1)
    for beta in (dpt.nu_ftrl(0.2), dpt.toeplitz(np.r_[1.0, 0.4 * rng.standard_normal(6)]), dpt.toeplitz([1.0, -2.0])):
        for T in (1, 7, 60):
            dense_inverse = scipy.linalg.solve_triangular(beta.noising_matrix(T), np.eye(T), lower=True)
            assert beta.sensitivity(T) == pytest.approx(dense_sensitivity(dense_inverse), rel=1e-10)


def test_newton_series_inverse_agrees_with_the_recurrence_for_long_beta():
    rng = np.random.default_rng(2)
    beta = np.r_[1.0, 0.3 * rng.standard_normal(999) / np.arange(1, 1000)]
    impulse = np.zeros(20000)
    impulse[0] = 1.0
    np.testing.assert_allclose(series_inverse(beta, 20000), lfilter([1.0], beta, impulse), rtol=0, atol=1e-13)


def test_minimum_phase_test_by_roots_and_by_winding_number():
    assert is_minimum_phase([1.0, -0.6, 0.1])
    assert not is_minimum_phase([1.0, -2.0])
    assert not is_minimum_phase([1.0, -1.0])  # zero on the circle
    # Long sequences use the argument principle; compare with companion-matrix roots.
    for scale, expected in [(1.9 / 2, True), (2.5, False)]:
        beta = np.r_[1.0, -scale / 300 * np.ones(300)]
        assert bool(np.min(np.abs(np.roots(beta[::-1]))) > 1) is expected
        assert is_minimum_phase(beta) is expected


def test_rescaling_beta_does_not_change_F_inf():
    """F∞ is invariant to β → cβ: the noise is normalised by γ∞(β) (errata 004 §9)."""
    problem = dpt.MeanEstimation(0.3)
    assert dpt.F_inf([2.0, -1.2, 0.2], problem, rho=1.0) == pytest.approx(
        dpt.F_inf([1.0, -0.6, 0.1], problem, rho=1.0), rel=1e-13
    )


min_phase_betas = st.lists(st.floats(-0.4, 0.4), min_size=1, max_size=6).map(
    lambda tail: np.r_[1.0, np.asarray(tail) / np.arange(1, len(tail) + 1)]
)


@given(min_phase_betas)
def test_sensitivity_is_nondecreasing_in_T_and_converges_to_the_limit(beta):
    """Thm 1.1 / eq. (5): γ_T ↑ γ∞ for minimum-phase β (Σ_{t≥1}|β_t| ≤ 0.4·H_6 < β_0 ensures it, by Rouché)."""
    corr = dpt.toeplitz(beta)
    assert corr.is_minimum_phase()
    gammas = np.array([corr.sensitivity(T) for T in (1, 2, 5, 20, 100, 2000)])
    assert np.all(np.diff(gammas) >= -1e-14)
    assert gammas[-1] == pytest.approx(corr.limiting_sensitivity(), rel=1e-10)
    assert corr.limiting_sensitivity(method="time") == pytest.approx(corr.limiting_sensitivity(), rel=1e-12)


@given(min_phase_betas, st.floats(-0.99, 0.99))
def test_pole_integral_time_and_frequency_routes_agree_and_are_even_in_omega(beta, q):
    """Lemma C.4: Σ_k y_k² = (1/2π)∫|B|²/|1−qe^{iω}|²; the integrand's ω ↦ −ω symmetry makes the DTFT sign moot."""
    corr = dpt.toeplitz(beta)
    assert corr.filtered_energy(q, method="time") == pytest.approx(corr.filtered_energy(q, method="frequency"), rel=1e-10)
    omega = np.linspace(0.1, 3.0, 7)
    np.testing.assert_allclose(corr.spectrum(omega), corr.spectrum(-omega), rtol=1e-13)


@pytest.mark.parametrize("bad", [[0.0, 1.0], [0.0], []])
def test_beta_with_zero_leading_coefficient_is_refused(bad):
    with pytest.raises(ValueError, match="beta"):
        dpt.toeplitz(bad)


@pytest.mark.parametrize("nu", [0.0, 1.0, -0.2, 1.5])
def test_nu_outside_0_1_is_refused(nu):
    with pytest.raises(ValueError, match=r"nu must lie in \(0, 1\), got"):
        dpt.nu_ftrl(nu)
    with pytest.raises(ValueError, match=r"nu must lie in \(0, 1\), got"):
        dpt.damped_anti_pgd(nu)


def test_nan_nu_is_refused():
    with pytest.raises(ValueError, match="nu must be finite"):
        dpt.nu_ftrl(float("nan"))


@pytest.mark.parametrize("eta", [0.0, 2.0, -1.0])
def test_mean_estimation_optimum_needs_eta_in_0_2(eta):
    with pytest.raises(ValueError, match=r"eta must lie in \(0, 2\)"):
        dpt.mean_estimation_optimal(eta)


@pytest.mark.parametrize("T", [0, -3, 2.5, True])
def test_sensitivity_horizon_must_be_a_positive_integer(T):
    with pytest.raises(ValueError, match=r"n must (lie in|be an integer in) \[1, inf\)|n must be a real number"):
        dpt.nu_ftrl(0.1).sensitivity(T)


def test_filtered_energy_refuses_an_unstable_pole():
    with pytest.raises(ValueError, match=r"q must lie in \(-1, 1\)"):
        dpt.dpsgd().filtered_energy(1.0)
