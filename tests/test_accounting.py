"""Tests for dptheory.accounting: zCDP calibration (seed 004, Thm 1.1) and zCDP -> (eps, delta)
conversion (seed 004, App. A.2 / Balle et al. 2020, Thm 21; Bun & Steinke 2016, Prop. 1.3)."""

from __future__ import annotations

import math

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import log_ndtr

from dptheory.accounting import (
    CONVERSION_METHODS,
    epsilon_to_zcdp,
    noise_multiplier,
    noise_multiplier_for,
    zcdp_to_epsilon,
)

HYP = settings(deadline=None, max_examples=50, derandomize=True)

log_uniform = lambda lo, hi: st.floats(math.log(lo), math.log(hi)).map(math.exp)  # noqa: E731


# ------------------------------------------------------------------------------------------------
# independent oracles
# ------------------------------------------------------------------------------------------------


def balle_oracle(rho: float, delta: float, dps: int = 40) -> mpmath.mpf:
    """inf_{alpha>1} [rho a + log(1/(a delta))/(a-1) + log(1 - 1/a)] in mpmath: the objective as
    written in seed 004 App. A.2, minimised on a dense log grid of alpha - 1, then refined by
    mpmath.findroot on its numerical derivative (no use of the closed-form stationarity condition)."""
    with mpmath.workdps(dps):
        r, d = mpmath.mpf(rho), mpmath.mpf(delta)

        def f(a):
            return r * a + mpmath.log(1 / (a * d)) / (a - 1) + mpmath.log(1 - 1 / a)

        grid = [1 + mpmath.mpf(10) ** (k / mpmath.mpf(100)) for k in range(-6 * 100, 8 * 100)]
        a0 = min(grid, key=f)
        a_star = mpmath.findroot(lambda a: mpmath.diff(f, a), a0)
        assert a_star > 1
        return +f(a_star)


def log_delta_gaussian_exact(eps: float, sigma: float) -> float:
    """Exact privacy profile of the Gaussian mechanism, sensitivity 1, noise sigma (Balle & Wang 2018):
    delta(eps) = Phi(-eps sigma + 1/(2 sigma)) - e^eps Phi(-eps sigma - 1/(2 sigma)), in log space."""
    log_a = log_ndtr(-eps * sigma + 1 / (2 * sigma))
    log_b = log_ndtr(-eps * sigma - 1 / (2 * sigma))
    return float(log_a + math.log1p(-math.exp(eps + log_b - log_a)))


# ------------------------------------------------------------------------------------------------
# seed 004, Thm 1.1: sigma_dp = gamma / sqrt(2 rho)
# ------------------------------------------------------------------------------------------------


def test_noise_multiplier_for_unit_sensitivity_and_rho_one_half_is_one():
    assert noise_multiplier(1.0, rho=0.5) == 1.0


@pytest.mark.parametrize("gamma, rho", [(1.0, 2.0), (3.7, 0.01), (1e-3, 1e4)])
def test_noise_multiplier_is_sensitivity_over_sqrt_two_rho(gamma, rho):
    assert noise_multiplier(gamma, rho=rho) == pytest.approx(gamma / math.sqrt(2 * rho), rel=1e-15)


def test_infinite_sensitivity_gives_infinite_noise_multiplier():
    assert noise_multiplier(math.inf, rho=0.5) == math.inf
    assert noise_multiplier_for(math.inf, epsilon=1.0, delta=1e-6) == math.inf


def test_gaussian_mechanism_with_noise_sigma_is_one_over_two_sigma_squared_zcdp():
    # Bun & Steinke 2016, Prop. 1.6: sensitivity-1 Gaussian mechanism with noise sigma is 1/(2 sigma^2)-zCDP
    for sigma in (0.5, 1.0, 7.0):
        assert noise_multiplier(1.0, rho=1 / (2 * sigma**2)) == pytest.approx(sigma, rel=1e-15)


def test_noise_multiplier_for_rho_target_matches_noise_multiplier():
    assert noise_multiplier_for(2.5, rho=0.3) == noise_multiplier(2.5, rho=0.3)


@pytest.mark.parametrize("method", CONVERSION_METHODS)
def test_noise_multiplier_for_eps_delta_target_meets_the_target(method):
    gamma, eps, delta = 3.0, 2.0, 1e-6
    sigma = noise_multiplier_for(gamma, epsilon=eps, delta=delta, method=method)
    rho = epsilon_to_zcdp(eps, delta=delta, method=method)
    assert sigma == noise_multiplier(gamma, rho=rho)
    achieved_rho = (gamma / sigma) ** 2 / 2
    assert zcdp_to_epsilon(achieved_rho, delta=delta, method=method) <= eps * (1 + 1e-12)


def test_optimal_conversion_needs_less_noise_than_bun_steinke():
    opt = noise_multiplier_for(1.0, epsilon=1.0, delta=1e-5)
    bs = noise_multiplier_for(1.0, epsilon=1.0, delta=1e-5, method="bun_steinke")
    assert opt < bs


# ------------------------------------------------------------------------------------------------
# seed 004, App. A.2 (Balle et al. 2020, Thm 21) vs Bun & Steinke 2016, Prop. 1.3
# ------------------------------------------------------------------------------------------------


@HYP
@given(rho=log_uniform(1e-6, 50.0), delta=log_uniform(1e-12, 0.1))
def test_optimal_conversion_is_never_worse_than_bun_steinke(rho, delta):
    opt = zcdp_to_epsilon(rho, delta=delta, method="optimal")
    bs = zcdp_to_epsilon(rho, delta=delta, method="bun_steinke")
    assert 0.0 <= opt < bs


def test_optimal_conversion_is_strictly_better_at_rho_one_half_delta_1e_5():
    opt = zcdp_to_epsilon(0.5, delta=1e-5)
    bs = zcdp_to_epsilon(0.5, delta=1e-5, method="bun_steinke")
    assert bs == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e5)), rel=1e-15)
    assert bs == pytest.approx(5.298525912188081, rel=1e-14)
    assert opt == pytest.approx(4.728386984943314, rel=1e-12)
    assert bs - opt > 0.5


@pytest.mark.parametrize(
    "rho, delta",
    [(0.5, 1e-5), (1e-4, 1e-5), (1e-8, 1e-5), (0.01, 1e-6), (2.0, 0.1), (100.0, 1e-300), (1e-8, 1e-300)],
)
def test_optimal_conversion_matches_40_digit_mpmath_oracle(rho, delta):
    assert zcdp_to_epsilon(rho, delta=delta) == pytest.approx(float(balle_oracle(rho, delta)), rel=1e-9)


@pytest.mark.parametrize("sigma", [0.3, 1.0, 5.0, 100.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-10, 1e-50])
def test_zcdp_conversion_is_a_valid_bound_for_the_exact_gaussian_mechanism(sigma, delta):
    # The Gaussian mechanism is exactly 1/(2 sigma^2)-zCDP; its exact privacy profile at the converted
    # epsilon must not exceed delta (the conversion is conservative) -- and it is not absurdly loose.
    rho = 1 / (2 * sigma**2)
    log_delta_at_eps = log_delta_gaussian_exact(zcdp_to_epsilon(rho, delta=delta), sigma)
    assert log_delta_at_eps <= math.log(delta)
    assert log_delta_at_eps >= math.log(delta) + math.log(0.05)
    # Bun & Steinke is valid too, and looser (a larger epsilon -> a smaller exact delta)
    log_delta_bs = log_delta_gaussian_exact(zcdp_to_epsilon(rho, delta=delta, method="bun_steinke"), sigma)
    assert log_delta_bs < log_delta_at_eps


@pytest.mark.parametrize("method", CONVERSION_METHODS)
@pytest.mark.parametrize("delta", [1e-300, 1e-12, 1e-5, 0.1])
@pytest.mark.parametrize("rho", [1e-8, 1e-3, 0.5, 10.0, 1e6])
def test_round_trip_rho_to_epsilon_to_rho(rho, delta, method):
    eps = zcdp_to_epsilon(rho, delta=delta, method=method)
    if eps == 0.0:  # the optimal bound clips at 0 for tiny rho and large delta; nothing to invert
        assert method == "optimal"
        return
    assert epsilon_to_zcdp(eps, delta=delta, method=method) == pytest.approx(rho, rel=1e-9)


@HYP
@given(eps=log_uniform(1e-6, 1e4), delta=log_uniform(1e-300, 0.5))
def test_epsilon_to_zcdp_returns_the_largest_admissible_rho(eps, delta):
    rho = epsilon_to_zcdp(eps, delta=delta)
    assert zcdp_to_epsilon(rho, delta=delta) <= eps
    assert zcdp_to_epsilon(rho * (1 + 1e-10), delta=delta) > eps


def test_bun_steinke_inverse_is_the_closed_form():
    eps, delta = 1.0, 1e-6
    L = math.log(1 / delta)
    assert epsilon_to_zcdp(eps, delta=delta, method="bun_steinke") == pytest.approx(
        (math.sqrt(L + eps) - math.sqrt(L)) ** 2, rel=1e-13
    )


@HYP
@given(rho=log_uniform(1e-6, 50.0), factor=st.floats(1.001, 10.0), delta=log_uniform(1e-12, 0.1))
@pytest.mark.parametrize("method", CONVERSION_METHODS)
def test_epsilon_increases_with_rho(method, rho, factor, delta):
    lo = zcdp_to_epsilon(rho, delta=delta, method=method)
    hi = zcdp_to_epsilon(rho * factor, delta=delta, method=method)
    assert hi >= lo
    if lo > 0:
        assert hi > lo


def test_epsilon_decreases_as_delta_grows():
    eps = [zcdp_to_epsilon(0.1, delta=d) for d in (1e-300, 1e-50, 1e-10, 1e-5, 1e-2)]
    assert all(a > b for a, b in zip(eps, eps[1:]))


def test_zero_rho_gives_zero_epsilon():
    for method in CONVERSION_METHODS:
        assert zcdp_to_epsilon(0.0, delta=1e-5, method=method) == 0.0


def test_optimal_epsilon_is_clipped_at_zero_where_the_infimum_is_negative():
    # As rho -> 0 the infimum tends to log(1 - delta) < 0 (oracle); the reported epsilon is 0.
    assert float(balle_oracle(1e-6, 0.5)) < 0
    assert zcdp_to_epsilon(1e-6, delta=0.5) == 0.0


@HYP
@given(rho=log_uniform(1e-12, 1e6), delta=log_uniform(1e-300, 0.9))
def test_optimal_epsilon_is_at_least_rho_plus_log_one_minus_delta(rho, delta):
    # rho*alpha >= rho, and the rest of the objective is >= its value at alpha = 1/delta, log(1 - delta)
    assert zcdp_to_epsilon(rho, delta=delta) >= (rho + math.log1p(-delta)) * (1 - 1e-14)


@pytest.mark.parametrize("delta, threshold", [(1e-5, 1.35914091429108e-10), (0.5, 0.385755893817960)])
def test_tiny_epsilon_target_gives_the_rho_where_the_infimum_crosses_zero(delta, threshold):
    rho = epsilon_to_zcdp(1e-100, delta=delta)
    assert rho == pytest.approx(threshold, rel=1e-9)
    assert float(balle_oracle(rho * (1 - 1e-6), delta)) < 0 < float(balle_oracle(rho * (1 + 1e-6), delta))


def test_epsilon_so_small_that_rho_underflows_is_refused():
    with pytest.raises(ValueError, match="epsilon"):
        epsilon_to_zcdp(1e-200, delta=1e-300)


def test_extreme_inputs_stay_finite():
    assert math.isfinite(zcdp_to_epsilon(1e-300, delta=1e-300))
    assert zcdp_to_epsilon(1e300, delta=5e-324) == pytest.approx(1e300, rel=1e-12)
    assert math.isfinite(epsilon_to_zcdp(1e-12, delta=1e-300))
    assert epsilon_to_zcdp(1e-12, delta=1e-300) > 0


# ------------------------------------------------------------------------------------------------
# bad input: ValueError naming the parameter
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: noise_multiplier(1.0, rho=0.0), "rho"),
        (lambda: noise_multiplier(1.0, rho=-1.0), "rho"),
        (lambda: noise_multiplier(1.0, rho=math.inf), "rho"),
        (lambda: noise_multiplier(0.0, rho=1.0), "sensitivity"),
        (lambda: noise_multiplier(-2.0, rho=1.0), "sensitivity"),
        (lambda: noise_multiplier(math.nan, rho=1.0), "sensitivity"),
        (lambda: noise_multiplier("big", rho=1.0), "sensitivity"),
        (lambda: zcdp_to_epsilon(-0.1, delta=1e-5), "rho"),
        (lambda: zcdp_to_epsilon(math.nan, delta=1e-5), "rho"),
        (lambda: zcdp_to_epsilon(0.5, delta=0.0), "delta"),
        (lambda: zcdp_to_epsilon(0.5, delta=1.0), "delta"),
        (lambda: zcdp_to_epsilon(0.5, delta=1e-5, method="rdp"), "method"),
        (lambda: epsilon_to_zcdp(0.0, delta=1e-5), "epsilon"),
        (lambda: epsilon_to_zcdp(-1.0, delta=1e-5), "epsilon"),
        (lambda: epsilon_to_zcdp(math.inf, delta=1e-5), "epsilon"),
        (lambda: epsilon_to_zcdp(1.0, delta=2.0), "delta"),
        (lambda: epsilon_to_zcdp(1.0, delta=1e-5, method="Optimal"), "method"),
        (lambda: noise_multiplier_for(1.0, epsilon=1.0, delta=1e-5, method="x"), "method"),
        (lambda: noise_multiplier_for(-1.0, rho=0.5), "sensitivity"),
        (lambda: noise_multiplier_for(1.0, epsilon=1.0, delta=0.0), "delta"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_range_is_stated_in_the_message():
    with pytest.raises(ValueError, match=r"delta must lie in \(0, 1\), got 1"):
        zcdp_to_epsilon(0.5, delta=1.0)
    with pytest.raises(ValueError, match=r"rho must lie in \[0, inf\), got -0\.1"):
        zcdp_to_epsilon(-0.1, delta=1e-5)
    with pytest.raises(ValueError, match=r"sensitivity must lie in \(0, inf\], got 0"):
        noise_multiplier(0.0, rho=1.0)
    with pytest.raises(ValueError, match=r"'optimal', 'bun_steinke'"):
        zcdp_to_epsilon(0.5, delta=1e-5, method="rdp")


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"rho": 0.5, "epsilon": 1.0, "delta": 1e-5},
        {"rho": 0.5, "delta": 1e-5},
        {"epsilon": 1.0},
        {"delta": 1e-5},
    ],
)
def test_noise_multiplier_for_needs_exactly_one_form_of_the_target(kwargs):
    with pytest.raises(ValueError, match=r"rho.*epsilon|epsilon.*delta"):
        noise_multiplier_for(1.0, **kwargs)


@pytest.mark.parametrize("mu, eps", [(0.5, 0.0), (2.0, 4.0), (30.0, 480.0), (37.0, 720.0), (1e3, 5.01e5), (40.0, 880.0)])
def test_gdp_delta_matches_60_digit_mpmath_on_both_sides_of_the_log_form(mu, eps):
    """δ(ε) of μ-GDP (Dong–Roth–Su eq. 64) against mpmath at 60 digits: the log form up to ε = 700, the erfcx form
    above (where ``exp(ε + ln Φ)`` overflowed from ε ≈ 1e100). Tolerance 1e-11 relative: both lose digits to the
    cancellation of two terms near δ·e^{x²/2}, and ``x = ε/μ − μ/2`` to the subtraction."""
    from dptheory.accounting.gdp import gdp_delta

    with mpmath.workdps(60):
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        exact = mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
    assert 1e-12 < exact < 1
    assert gdp_delta(eps, mu=mu) == pytest.approx(float(exact), rel=1e-11)


@pytest.mark.parametrize("rho", [1.0, 200.0, 1e3, 1e10, 1e100, 1e200, 1e300])
def test_exact_conversion_matches_mpmath_up_to_huge_rho(rho):
    """ε of ρ-zCDP read as μ-GDP (μ = √(2ρ)) against a 60-digit mpmath root of eq. (64), to 1e-13 relative. Above
    ε = 700 the root is taken in x = ε/μ − μ/2 (ε itself is ill conditioned there); the ε-root overflowed at 1e100."""
    import dptheory as dpt

    delta = 1e-6
    with mpmath.workdps(60):
        m = mpmath.sqrt(2 * mpmath.mpf(rho))
        f = lambda x: mpmath.ncdf(-x) - mpmath.npdf(x) * mpmath.ncdf(-x - m) / mpmath.npdf(x + m) - delta  # noqa: E731
        lo, hi = mpmath.mpf(-1), mpmath.mpf(6)  # f decreases in x: bisection to 2^-200
        for _ in range(200):
            lo, hi = ((lo + hi) / 2, hi) if f((lo + hi) / 2) > 0 else (lo, (lo + hi) / 2)
        x = (lo + hi) / 2
        exact = float(m * x + m * m / 2)
    assert dpt.epsilon_from_rho(rho, delta=delta, conversion="exact") == pytest.approx(exact, rel=1e-13)


def test_exact_conversion_refuses_rho_past_the_float_range():
    import dptheory as dpt

    with pytest.raises(ValueError, match=r"rho must lie in \[0, 1e\+300\] for conversion='exact'"):
        dpt.epsilon_from_rho(1e308, delta=1e-6, conversion="exact")
