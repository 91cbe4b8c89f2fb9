"""BandedToeplitz and the banded square root (BSR; Kalinin & Lampert 2024; seed 003 §2.4): every quantity against an
independent route — dense triangular solves and enumerations of the n x n strategy, FFTs, the frequency integral of
gamma_inf, the finite-horizon F_inf and a Monte-Carlo simulation."""

import math

import numpy as np
import pytest
import scipy.linalg

import dptheory
from dptheory.mechanisms import (
    BandedToeplitz,
    DenseMechanism,
    Participation,
    banded_sqrt,
    banded_sqrt_toeplitz,
    dense_sensitivity,
    optimal_cc,
)


def _signed_stable():
    """Five bands, ``C(z) ∝ Π(z − r)`` over the roots ``r = 1.5, −2, 1.3e^{±i}`` (all ``|r| > 1``): stable noise,
    coefficients of both signs."""
    c = np.polynomial.polynomial.polyfromroots([1.5, -2.0, 1.3 * np.exp(1j), 1.3 * np.exp(-1j)]).real
    return BandedToeplitz(c / c[0])


MECHANISMS = {
    "bsr8": banded_sqrt_toeplitz(8),
    "bsr3": banded_sqrt_toeplitz(3),
    "signed5": _signed_stable(),
    "single": BandedToeplitz([2.0]),
}


@pytest.mark.parametrize("key", sorted(MECHANISMS))
def test_noising_coeffs_invert_the_strategy_dense_solve(key):
    mech, n = MECHANISMS[key], 300
    dense_N = scipy.linalg.solve_triangular(mech.strategy_matrix(n), np.eye(n), lower=True)
    np.testing.assert_allclose(mech.noising_matrix(n), dense_N, rtol=0, atol=1e-13 * np.max(np.abs(dense_N)))
    assert np.allclose(mech.noising_matrix(n) @ mech.strategy_matrix(n), np.eye(n), atol=1e-12)


@pytest.mark.parametrize("key", sorted(MECHANISMS))
def test_dtft_against_fft_of_noise_and_of_the_band(key):
    mech = MECHANISMS[key]
    M = mech._support()
    omega = 2 * np.pi * np.arange(M) / M
    B = mech.dtft(omega)
    np.testing.assert_allclose(B, np.fft.fft(mech.noising_coeffs(M)), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(B * np.fft.fft(mech.coeffs, M), 1.0, rtol=0, atol=1e-13)


@pytest.mark.parametrize("key", sorted(MECHANISMS))
def test_gamma_inf_closed_form_time_and_frequency_routes_agree(key):
    mech = MECHANISMS[key]
    closed = mech.limiting_sensitivity(method="closed_form")
    assert closed == pytest.approx(np.linalg.norm(mech.coeffs), rel=1e-15)
    assert mech.limiting_sensitivity(method="time") == pytest.approx(closed, rel=1e-14)
    assert mech.limiting_sensitivity(method="frequency") == pytest.approx(closed, rel=1e-13)
    assert mech.sensitivity(mech.bands + 5) == pytest.approx(closed, rel=1e-15)  # γ_n = ‖c‖ for n ≥ b̂


@pytest.mark.parametrize("key", ["bsr8", "bsr3", "signed5"])
@pytest.mark.parametrize("n", [9, 23, 40])
def test_sensitivity_with_min_sep_at_least_bands_matches_dense_enumeration(key, n):
    mech = MECHANISMS[key]
    C = mech.strategy_matrix(n)
    for k in (1, 2, 3, 5):
        for b in (mech.bands, mech.bands + 1, 2 * mech.bands + 3):
            p = Participation(max_participations=k, min_sep=b)
            assert mech.sensitivity(n, p) == pytest.approx(dense_sensitivity(C, p), rel=1e-13), (k, b)
            if p.participations(n) > 1:
                assert "Thm 2" in mech.sensitivity_route(n, p)


@pytest.mark.parametrize("c", [banded_sqrt_toeplitz(8).coeffs, [1.0, 0.9, 0.9, 0.2, 0.1], [1.0, 2.0, 0.5, 0.25]])
def test_sensitivity_with_min_sep_below_bands_matches_dense_enumeration(c):
    mech, n = BandedToeplitz(c), 24
    for k, b in ((2, 1), (3, 2), (4, mech.bands - 1)):
        p = Participation(max_participations=k, min_sep=b)
        assert mech.sensitivity(n, p) == pytest.approx(dense_sensitivity(mech.strategy_matrix(n), p), rel=1e-13)
        assert "Thm 2" not in mech.sensitivity_route(n, p)


@pytest.mark.parametrize("c", [banded_sqrt_toeplitz(6).coeffs, [1.0, 2.0, 0.5], _signed_stable().coeffs])
def test_streaming_limit_of_the_sensitivity_is_the_long_horizon_value(c):
    mech = BandedToeplitz(c)
    for k, b in ((3, mech.bands), (2, 2 * mech.bands), (3, 1), (2, 2)):
        p = Participation(max_participations=k, min_sep=b)
        try:
            long = dense_sensitivity(mech.strategy_matrix(60), p)
        except ValueError:  # a negative Gram entry: no exact route at b < bands for these signs
            continue
        assert mech.sensitivity(None, p) == pytest.approx(long, rel=1e-13), (k, b)
        if b >= mech.bands:
            assert mech.sensitivity(None, p) == pytest.approx(math.sqrt(k) * np.linalg.norm(mech.coeffs), rel=1e-14)


@pytest.mark.parametrize("key", sorted(MECHANISMS))
def test_row_energies_match_the_dense_base_route(key):
    mech, n = MECHANISMS[key], 150
    q = np.array([1.0, 0.9, 0.3, -0.6])
    dense = DenseMechanism(mech.strategy_matrix(n)).row_energies(q, n)
    np.testing.assert_allclose(mech.row_energies(q, n), dense, rtol=1e-11)
    assert mech.final_row_energy(0.9, n) == pytest.approx(dense[1, -1], rel=1e-11)


@pytest.mark.parametrize("key", sorted(MECHANISMS))
@pytest.mark.parametrize("splits", [[97], [1] * 97, [5, 1, 40, 2, 49]])
def test_noise_stream_equals_the_dense_product_for_any_block_split(key, splits):
    mech, n = MECHANISMS[key], sum(splits)
    z = np.random.default_rng(3).standard_normal((n, 3, 2))
    stream = mech.noise_stream((3, 2), z, None)
    out = np.concatenate([stream(block) for block in np.split(z, np.cumsum(splits)[:-1])])
    expected = np.einsum("ts,sij->tij", mech.noising_matrix(n), z)
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-12 * np.max(np.abs(expected)))
    assert mech.exact_stream
    with pytest.raises(ValueError, match="shape"):
        stream(np.zeros((2, 3)))


def test_F_inf_stationary_is_finite_and_the_long_horizon_limit():
    mech = banded_sqrt_toeplitz(8)
    problem = dptheory.MeanEstimation(eta=0.1, sigma_sgd=0.0)
    stationary = dptheory.F_inf(mech, problem, rho=1.0)
    assert math.isfinite(stationary) and stationary > 0
    # F_n → F∞ geometrically (rate max(|1 − η|, 1/|zero of C|)^n): at n = 20000 only rounding is left
    assert dptheory.F_inf(mech, problem, rho=1.0, horizon=20000) == pytest.approx(stationary, rel=1e-12)
    assert dptheory.F_inf(mech, problem, rho=1.0, method="frequency") == pytest.approx(stationary, rel=1e-10)


def test_simulation_at_a_finite_horizon_brackets_the_exact_value():
    mech = banded_sqrt_toeplitz(4)
    problem = dptheory.MeanEstimation(eta=0.1, sigma_sgd=0.0)
    exact = dptheory.F_inf(mech, problem, rho=1.0, horizon=200)
    result = dptheory.simulate(mech, problem, rho=1.0, horizon=200, seeds=400, seed=0)
    lo, hi = result.interval(0.99)
    assert lo <= exact <= hi


def test_stationary_simulation_streams_the_mechanism_whole():
    mech = banded_sqrt_toeplitz(4)
    problem = dptheory.MeanEstimation(eta=0.1, sigma_sgd=0.0)
    result = dptheory.simulate(mech, problem, rho=1.0, seeds=64, seed=1)
    assert result.mechanism is mech and result.truncation is None
    lo, hi = result.interval(0.99)
    assert lo <= dptheory.F_inf(mech, problem, rho=1.0) <= hi


def test_bsr_with_bands_at_least_n_is_the_square_root_factorisation():
    n = 64
    full, cc = banded_sqrt_toeplitz(n), optimal_cc()
    np.testing.assert_allclose(full.strategy_coeffs(n), cc.strategy_coeffs(n), rtol=1e-14)
    np.testing.assert_allclose(full.noising_coeffs(n), cc.noising_coeffs(n), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(banded_sqrt_toeplitz(5).strategy_matrix(n), banded_sqrt(n, 5).C, rtol=0, atol=0)


def test_noise_stability_and_its_refusals():
    assert all(banded_sqrt_toeplitz(b).noise_is_stable() for b in (1, 2, 16, 300))
    unstable = BandedToeplitz([1.0, -2.0])  # zero at z = 1/2: β_t = 2^t
    on_circle = BandedToeplitz([1.0, 1.0])  # zero at z = −1: β_t = (−1)^t
    for mech in (unstable, on_circle):
        assert not mech.noise_is_stable() and mech.is_minimum_phase()
        assert mech.limiting_sensitivity(method="time") == pytest.approx(math.sqrt(np.sum(mech.coeffs**2)))
        with pytest.raises(ValueError, match="do not decay"):
            mech._support()
        with pytest.raises(ValueError, match="do not decay"):
            dptheory.F_inf(mech, dptheory.MeanEstimation(eta=0.1), rho=1.0)
    np.testing.assert_array_equal(unstable.noising_coeffs(6), 2.0 ** np.arange(6))


@pytest.mark.parametrize("bad, match", [
    ([], "non-empty"), ([0.0, 1.0], "coeffs\\[0\\] must be nonzero"), ([1.0, np.nan], "finite"),
    ([[1.0, 0.5]], "1-D"), (2.0, "1-D"), ("abc", "real numbers"), ([1.0, 1j], "real numbers"),
])
def test_bad_coefficients_are_refused_naming_coeffs(bad, match):
    with pytest.raises(ValueError, match=match) as info:
        BandedToeplitz(bad)
    assert "coeffs" in str(info.value)


@pytest.mark.parametrize("bands", [0, -1, 2.5, "4", None])
def test_bad_bands_are_refused(bands):
    with pytest.raises(ValueError, match="bands"):
        banded_sqrt_toeplitz(bands)


def test_identity_name_trailing_zeros_and_cache_key():
    mech = BandedToeplitz([1.0, 0.5, 0.25, 0.0, 0.0])
    assert mech.bands == 3 and mech.name == "BandedToeplitz(bands=3)"
    assert mech.cache_key() == BandedToeplitz([1.0, 0.5, 0.25]).cache_key()
    assert mech.cache_key() != BandedToeplitz([1.0, 0.5, 0.26]).cache_key()
    assert banded_sqrt_toeplitz(4).name == "banded_sqrt_toeplitz(bands=4)"
    assert {"BandedToeplitz", "banded_sqrt_toeplitz"} <= set(dptheory.mechanisms.__all__)
