"""Bad input to seed 004's public API (issue 18, item 4): every case is refused with a ValueError that names the
parameter, and nothing is returned silently (NaN, inf, a coerced value) or raised from deep inside numpy.

One parametrized test per module family; each case was, before the fix, either a silent wrong answer or an
error that did not name the parameter (TypeError, IndexError, numpy's own messages).
"""

from __future__ import annotations

import numpy as np
import pytest

import dptheory as dpt
from dptheory import accounting, rates, special
from dptheory.mechanisms import spectral

NAN, INF = float("nan"), float("inf")
NU, FT, TWO = dpt.nu_ftrl(0.1), dpt.toeplitz([1.0, -0.5, 0.1]), dpt.toeplitz([1.0, -0.5])
ME, LR = dpt.MeanEstimation(0.1), dpt.LinearRegression(0.1, [1.0, 0.5])


def _cases(*rows):
    return pytest.mark.parametrize("call, match", [pytest.param(c, m, id=i) for i, c, m in rows])


@_cases(
    ("coeffs-float", lambda: NU.noising_coeffs(2.5), r"n must be an integer in \[0, inf\)"),
    ("coeffs-negative", lambda: FT.noising_coeffs(-3), r"n must lie in \[0, inf\)"),
    ("coeffs-None", lambda: NU.noising_coeffs(None), "n must be a real number"),
    ("coeffs-bool", lambda: NU.noising_coeffs(True), "n must be a real number"),
    ("strategy_coeffs-str", lambda: FT.strategy_coeffs("5"), "n must be a real number"),
    ("strategy_coeffs-nan", lambda: NU.strategy_coeffs(NAN), "n must be finite"),
    ("strategy_coeffs-two-taps", lambda: TWO.strategy_coeffs(-1), r"n must lie in \[0, inf\)"),
    ("dtft-nan", lambda: NU.dtft(NAN), "omega must be finite"),
    ("dtft-inf-entry", lambda: FT.dtft([0.0, INF]), "omega must be finite"),
    ("dtft-None", lambda: FT.dtft(None), "omega must be a real number"),
    ("spectrum-str", lambda: NU.spectrum("abc"), "omega must be a real number"),
    ("spectrum-complex", lambda: FT.spectrum(1j), "omega must be a real number"),
    ("spectrum-nan-entry", lambda: FT.spectrum([NAN, 1.0]), "omega must be finite"),
    ("sensitivity-float", lambda: TWO.sensitivity(2.7), r"n must be an integer in \[1, inf\)"),
    ("matrix-nan", lambda: FT.noising_matrix(NAN), "n must be finite"),
    ("filtered_energy-q-nan", lambda: NU.filtered_energy(NAN), "q must be finite"),
    ("filtered_energy-gap-2d", lambda: FT.filtered_energy(gap=[[0.1]]), "gap must be a non-empty 1-D"),
    ("filtered_energy-method", lambda: FT.filtered_energy(0.5, method="bogus"), "method must be one of"),
    ("limiting_sensitivity-method", lambda: NU.limiting_sensitivity(method=None), "method must be one of"),
    ("toeplitz-empty", lambda: dpt.toeplitz([]), "beta must be a non-empty 1-D"),
    ("toeplitz-bool", lambda: dpt.toeplitz([True]), "beta must be a sequence of real numbers"),
    ("nu_ftrl-str", lambda: dpt.nu_ftrl("0.1"), "nu must be a real number"),
    ("damped_anti_pgd-inf", lambda: dpt.damped_anti_pgd(INF), "nu must be finite"),
    ("mean_estimation_optimal-bool", lambda: dpt.mean_estimation_optimal(True), "eta must be a real number"),
)
def test_correlations_refuse_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@_cases(
    ("F_inf-rho-nan", lambda: dpt.F_inf(NU, ME, rho=NAN), "rho must be finite"),
    ("F_inf-G-str", lambda: dpt.F_inf(NU, ME, rho=1.0, G="1"), "G must be a real number"),
    ("F_inf-problem", lambda: dpt.F_inf(NU, "me", rho=1.0), "problem must be one of"),
    ("F_inf-kind", lambda: dpt.F_inf(NU, ME, rho=1.0, kind="lti"), "kind must be one of"),
    ("F_inf-variant", lambda: dpt.F_inf(NU, ME, rho=1.0, variant=None), "variant must be one of"),
    ("F_inf-method", lambda: dpt.F_inf(NU, ME, rho=1.0, method="x"), "method must be one of"),
    ("F_inf-beta", lambda: dpt.F_inf([1.0, NAN], ME, rho=1.0), "beta must be finite"),
    ("lti_infimum-problem-None", lambda: dpt.F_inf_lti_infimum(None, rho=1.0), "problem must be a LinearRegression"),
    ("lti_infimum-problem-str", lambda: dpt.F_inf_lti_infimum("x", rho=1.0), "problem must be a LinearRegression"),
    ("lti_infimum-rho", lambda: dpt.F_inf_lti_infimum(LR, rho=True), "rho must be a real number"),
    ("dpsgd-variant", lambda: dpt.mean_estimation_dpsgd(0.1, rho=1.0, variant="x"), "variant must be one of"),
    ("optimum-variant", lambda: dpt.mean_estimation_optimum(0.1, rho=1.0, variant=None), "variant must be one of"),
    ("optimum-eta-nan", lambda: dpt.mean_estimation_optimum(NAN, rho=1.0), "eta must be finite"),
    ("ratio-str", lambda: dpt.mean_estimation_ratio("abc"), "eta must be a real number"),
    ("ratio-bool", lambda: dpt.mean_estimation_ratio(True), "eta must be a real number"),
    ("ratio-complex", lambda: dpt.mean_estimation_ratio(1j), "eta must be a real number"),
    ("ratio-inf-entry", lambda: dpt.mean_estimation_ratio([0.5, INF]), r"eta must lie in \(0, 2\)"),
)
def test_suboptimality_refuses_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@_cases(
    ("coupling-nan", lambda: LR.coupling(NAN), "eta must be finite"),
    ("coupling-inf", lambda: LR.coupling(INF), "eta must be finite"),
    ("coupling-str", lambda: LR.coupling("5"), "eta must be a real number"),
    ("coupling-complex", lambda: LR.coupling(1j), "eta must be a real number"),
    ("coupling-negative", lambda: LR.coupling(-1.0), r"eta must lie in \[0, inf\)"),
    ("fourth_moment_gain-nan", lambda: LR.fourth_moment_gain(NAN), "eta must be finite"),
    ("fourth_moment_gain-bool", lambda: LR.fourth_moment_gain(True), "eta must be a real number"),
    ("StronglyConvex-d-str", lambda: dpt.StronglyConvex(0.1, 1.0, 2.0, d="5"), "d must be a real number"),
    ("StronglyConvex-d-None", lambda: dpt.StronglyConvex(0.1, 1.0, 2.0, d=None), "d must be a real number"),
    ("StronglyConvex-d-list", lambda: dpt.StronglyConvex(0.1, 1.0, 2.0, d=[1]), "d must be a real number"),
    ("StronglyConvex-d-float", lambda: dpt.StronglyConvex(0.1, 1.0, 2.0, d=2.5), "d must be a positive integer"),
    ("StronglyConvex-loss", lambda: dpt.StronglyConvex(0.1, 1.0, 2.0, loss=None), "loss must be one of"),
    ("MeanEstimation-eta", lambda: dpt.MeanEstimation(NAN), "eta must be finite"),
    ("LinearRegression-eigs", lambda: dpt.LinearRegression(0.1, [[1.0, 2.0]]), "eigs must be a non-empty 1-D"),
)
def test_problems_refuse_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@_cases(
    ("ellipk_complement-nan", lambda: special.ellipk_complement(NAN), r"kc2 must lie in \[0, inf\)"),
    ("ellipk_complement-negative", lambda: special.ellipk_complement(-1.0), r"kc2 must lie in \[0, inf\)"),
    ("ellipk_complement-str", lambda: special.ellipk_complement("5"), "kc2 must be a real number"),
    ("ellipk_complement-bool", lambda: special.ellipk_complement(True), "kc2 must be a real number"),
    ("int_inv_abs-bool", lambda: special.int_inv_abs(True), "a must be a real number"),
    ("int_inv_abs-complex", lambda: special.int_inv_abs(1j), "a must be a real number"),
    ("int_inv_abs-nan", lambda: special.int_inv_abs(NAN), r"a must lie in \[0, 2\)"),
    ("sqrt_pole_integral-a-bool", lambda: special.sqrt_pole_integral(True, 0.1), "a must be a real number"),
    ("sqrt_pole_integral-b-str", lambda: special.sqrt_pole_integral(0.1, "abc"), "b must be a real number"),
    ("sqrt_pole_integral-b-nan", lambda: special.sqrt_pole_integral(0.1, NAN), r"b must lie in \(0, 2\)"),
    ("sqrt_pole_integral-shapes", lambda: special.sqrt_pole_integral([0.1, 0.2], [0.1, 0.2, 0.3]), "a and b must broadcast"),
)
def test_special_refuses_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


_COS2 = lambda w: np.cos(w) ** 2  # noqa: E731


@_cases(
    ("periodic_mean-f", lambda: spectral.periodic_mean(None), "f must be callable"),
    ("periodic_mean-min_points-0", lambda: spectral.periodic_mean(_COS2, min_points=0), r"min_points must lie in \[16, inf\)"),
    ("periodic_mean-min_points-nan", lambda: spectral.periodic_mean(_COS2, min_points=NAN), "min_points must be finite"),
    ("periodic_mean-min_points-float", lambda: spectral.periodic_mean(_COS2, min_points=100.5), "min_points must be an integer"),
    ("periodic_mean-rtol-nan", lambda: spectral.periodic_mean(_COS2, rtol=NAN), "rtol must be finite"),
    ("periodic_mean-rtol-negative", lambda: spectral.periodic_mean(_COS2, rtol=-1.0), r"rtol must lie in \[0, inf\)"),
    ("series_inverse-beta-nan", lambda: spectral.series_inverse([1.0, NAN], 10), "beta must be finite"),
    ("series_inverse-beta-empty", lambda: spectral.series_inverse([], 10), "beta must be a non-empty 1-D"),
    ("series_inverse-beta-None", lambda: spectral.series_inverse(None, 10), "beta must be a sequence of real numbers"),
    ("series_inverse-beta0", lambda: spectral.series_inverse([0.0, 1.0], 10), r"beta\[0\] must be nonzero"),
    ("series_inverse-n-float", lambda: spectral.series_inverse([1.0, -0.5], 2.5), "n must be an integer"),
    ("series_inverse-n-negative", lambda: spectral.series_inverse([1.0, -0.5], -3), r"n must lie in \[0, inf\)"),
    ("series_inverse-n-str", lambda: spectral.series_inverse([1.0, -0.5], "5"), "n must be a real number"),
    ("series_inverse-method", lambda: spectral.series_inverse([1.0, -0.5], 10, method="x"), "method must be one of"),
    ("error_bound-beta-empty", lambda: spectral.series_inverse_error_bound([], [1.0, 0.5]), "beta must be a non-empty"),
    ("error_bound-c-empty", lambda: spectral.series_inverse_error_bound([1.0, -0.5], []), "c must be non-empty"),
    ("error_bound-c-2d", lambda: spectral.series_inverse_error_bound([1.0, -0.5], [[1.0]]), "c must be a 1-D array"),
    ("geometric_filter_energy-beta-empty", lambda: spectral.geometric_filter_energy([], 0.5), "beta must be a non-empty"),
    ("geometric_filter_energy-beta-nan", lambda: spectral.geometric_filter_energy([1.0, NAN], 0.5), "beta must be finite"),
    ("geometric_filter_energy-gap-nan", lambda: spectral.geometric_filter_energy([1.0, 0.5], NAN), r"gap must lie in \(0, 2\)"),
    ("geometric_filter_energy-gap-str", lambda: spectral.geometric_filter_energy([1.0, 0.5], "5"), "gap must be a real number"),
    ("geometric_filter_energy-gap-0", lambda: spectral.geometric_filter_energy([1.0, 0.5], 0.0), r"gap must lie in \(0, 2\)"),
    ("is_minimum_phase-empty", lambda: spectral.is_minimum_phase([]), "beta must be a non-empty"),
    ("is_minimum_phase-nan", lambda: spectral.is_minimum_phase([1.0, NAN]), "beta must be finite"),
    ("is_minimum_phase-zero", lambda: spectral.is_minimum_phase([0.0]), "beta must have a nonzero entry"),
    ("clustered_even_mean-widths-nan", lambda: spectral.clustered_even_mean(lambda w: 1.0, [NAN]), "widths must be finite"),
    ("clustered_even_mean-widths-negative", lambda: spectral.clustered_even_mean(lambda w: 1.0, [-1.0]), "widths must be strictly positive"),
    ("clustered_even_mean-rtol-0", lambda: spectral.clustered_even_mean(lambda w: 1.0, [0.1], rtol=0.0), "rtol must lie in"),
    ("pole_modulus_sq-gap-nan", lambda: spectral.pole_modulus_sq(NAN, 0.3), "gap must be finite"),
    ("pole_modulus_sq-gap-str", lambda: spectral.pole_modulus_sq("5", 0.3), "gap must be a real number"),
    ("pole_modulus_sq-omega-None", lambda: spectral.pole_modulus_sq(0.1, None), "omega must be a real number"),
)
def test_spectral_refuses_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@_cases(
    ("noise_multiplier-sensitivity-str", lambda: accounting.noise_multiplier("5", rho=1.0), "sensitivity must be a real number"),
    ("noise_multiplier-sensitivity-bool", lambda: accounting.noise_multiplier(True, rho=1.0), "sensitivity must be a real number"),
    ("noise_multiplier-sensitivity-nan", lambda: accounting.noise_multiplier(NAN, rho=1.0), r"sensitivity must lie in \(0, inf\]"),
    ("noise_multiplier-sensitivity-array", lambda: accounting.noise_multiplier([1.0, 2.0], rho=1.0), "sensitivity must be a real number"),
    ("noise_multiplier-rho-inf", lambda: accounting.noise_multiplier(1.0, rho=INF), "rho must be finite"),
    ("zcdp_to_epsilon-delta-nan", lambda: accounting.zcdp_to_epsilon(1.0, delta=NAN), "delta must be finite"),
    ("zcdp_to_epsilon-method", lambda: accounting.zcdp_to_epsilon(1.0, delta=1e-5, method=None), "method must be one of"),
    ("epsilon_to_zcdp-epsilon-str", lambda: accounting.epsilon_to_zcdp("1", delta=1e-5), "epsilon must be a real number"),
    ("noise_multiplier_for-sensitivity", lambda: accounting.noise_multiplier_for("x", rho=1.0), "sensitivity must be a real number"),
)
def test_accounting_refuses_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


_R = rates.table2()["nu-Noisy-FTRL"]["F_inf"]
_GOOD = dict(eta=0.1, G=1.0, trace_H=1.0, nu=0.1, rho=1.0)


@_cases(
    ("spectrum-d-str", lambda: rates.spectrum("constant", "5"), "d must be a real number"),
    ("spectrum-d-None", lambda: rates.spectrum("constant", None), "d must be a real number"),
    ("spectrum-d-float", lambda: rates.spectrum("constant", 2.5), "d must be a positive integer"),
    ("spectrum-d-list", lambda: rates.spectrum("constant", [5]), "d must be a real number"),
    ("spectrum-a-str", lambda: rates.spectrum("power_gt1", 5, "5"), "a must be a real number"),
    ("spectrum-a-inf", lambda: rates.spectrum("power_gt1", 5, INF), "a must be finite"),
    ("spectrum-a-complex", lambda: rates.spectrum("power_lt1", 5, 1j), "a must be a real number"),
    ("evaluate-str", lambda: _R.evaluate(**{**_GOOD, "eta": "5"}), "eta must be a real number"),
    ("evaluate-bool", lambda: _R.evaluate(**{**_GOOD, "rho": True}), "rho must be a real number"),
    ("evaluate-complex", lambda: _R.evaluate(**{**_GOOD, "nu": 1j}), "nu must be a real number"),
    ("evaluate-nan", lambda: _R.evaluate(**{**_GOOD, "G": NAN}), r"G must lie in \(0, inf\)"),
    ("Rate-expr", lambda: rates.Rate(1, "r", "q", "abc(", "O", "", ""), "expr must be a sympy expression"),
    ("table4-variant", lambda: rates.table4("x"), "variant must be one of"),
)
def test_rates_refuse_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_valid_inputs_unchanged_at_the_edges():
    """The checks leave the documented edge values alone: γ∞ = inf for a non-minimum-phase β, inf sensitivity,
    K at kc2 = 0, the zero polynomial's neighbour z (not minimum phase), n = 0 coefficients, vectorised ω."""
    assert dpt.toeplitz([1.0, -2.0]).limiting_sensitivity() == INF
    assert accounting.noise_multiplier(INF, rho=1.0) == INF
    assert special.ellipk_complement(0.0) == INF and special.int_inv_abs(0.0) == INF
    assert spectral.is_minimum_phase([0.0, 1.0]) is False
    assert NU.noising_coeffs(0).size == 0 and FT.strategy_coeffs(np.int64(3)).size == 3
    assert FT.spectrum(np.zeros((2, 3))).shape == (2, 3)
    assert spectral.geometric_filter_energy([1.0, 0.5], [[0.1, 0.2]]).shape == (1, 2)
    assert LR.coupling(1.5) == INF and LR.coupling(0.0) == 0.0
