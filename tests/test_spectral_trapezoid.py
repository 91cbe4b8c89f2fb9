"""γ∞ of a finite β by one certified FFT (issue 20, "long β"): :func:`inverse_energy_by_trapezoid`,
:func:`inverse_decay_bound` and the routes of :class:`FiniteToeplitz` built on them (seed 004, eq. 5, Property C.1).

Oracles, independent of the FFT: the time-domain sum ``Σ_t c_t²`` at 40 digits (mpmath) by the sparse recurrence of
``β = (1, −h, …, −h)`` (``(1 − z)B(z) = 1 − (1 + h)z + h z^N`` has three terms), the Levinson step-down recursion at
60 digits, LAPACK's triangular solve, and the package's own time route (blocked substitution with its a-posteriori
bound). Tolerances: the trapezoid route certifies 1e-12 relative (1e-13 aliasing + its rounding bound); where it is
compared with the time route (certified 1e-12 too) the tolerance is 2e-12.
"""

import math

import mpmath
import numpy as np
import pytest
import scipy.linalg

import dptheory as dpt
from dptheory.mechanisms.spectral import (
    _zero_free_annulus,
    inverse_decay_bound,
    inverse_energy_by_step_down,
    inverse_energy_by_trapezoid,
    is_minimum_phase,
    series_inverse,
)

LONG_BETA = np.r_[1.0, -0.5 * np.ones(9999) / 10000]  # the benchmark's β of 10⁴ taps
# γ∞² of LONG_BETA: Σ_{t<4·10⁵} c_t² at 40 digits by the sparse recurrence of flat_mp_gamma_sq (7 s, hence stored);
# the remaining terms are below 1e-40 (|c_t| ≤ 2.5e-26 at t = 4·10⁵, decaying geometrically).
LONG_BETA_GAMMA_SQ = 1.000049987501624818776246411826635825367


def flat(taps: int) -> np.ndarray:
    """``β = (1, −h, …, −h)`` with ``h = 1/(2·taps)``: its zero nearest the circle is real, at ``1 + ≈1.26/taps``."""
    return np.r_[1.0, -0.5 * np.ones(taps - 1) / taps]


def flat_mp_gamma_sq(beta: np.ndarray, terms: int, dps: int = 40) -> float:
    """``Σ_{t<terms} c_t²`` for ``β = (1, −h, …, −h)`` in mpmath: ``c_k = h·(c_{k−1} + … + c_{k−N+1})``, kept as a running
    window sum on the exact binary ``h``, O(terms) operations."""
    taps = beta.size
    with mpmath.workdps(dps):
        h = -mpmath.mpf(float(beta[1]))
        c, window, total = [mpmath.mpf(1)], mpmath.mpf(1), mpmath.mpf(1)
        for k in range(1, terms):
            ck = h * window
            c.append(ck)
            total += ck * ck
            window += ck
            if k >= taps - 1:
                window -= c[k - (taps - 1)]
        return float(total)


def random_min_phase(taps: int, seed: int, r_max: float) -> np.ndarray:
    """β with a zero pair at radius ``1/r_max`` and the others at radii ≥ √taps/2 (as in tests/test_long_beta.py)."""
    rng = np.random.default_rng(seed)
    npairs = (taps - 1) // 2
    radius = rng.uniform(0.0, 2.0 / math.sqrt(taps), npairs)
    radius[0] = r_max
    z = radius * np.exp(1j * rng.uniform(0.0, math.pi, npairs))
    return np.real(np.poly(np.concatenate([z, z.conj(), rng.uniform(-0.5, 0.5, (taps - 1) % 2)])))


# -- the quadrature against independent oracles ------------------------------------------------------------------

@pytest.mark.parametrize("taps", [10, 100, 1000])
def test_trapezoid_equals_the_40_digit_time_domain_sum(taps):
    beta = flat(taps)
    exact = flat_mp_gamma_sq(beta, 40 * taps)  # |c_t| ~ e^{−1.26 t/taps}: the rest is below 1e-40
    assert inverse_energy_by_trapezoid(beta) == pytest.approx(exact, rel=1e-12)


def test_trapezoid_for_the_benchmark_beta_of_1e4_taps():
    """Observed error 1e-16; the time route (blocked substitution) is off by 2e-14, within its 1e-12 certificate."""
    assert inverse_energy_by_trapezoid(LONG_BETA) == pytest.approx(LONG_BETA_GAMMA_SQ, rel=1e-12)
    assert dpt.toeplitz(LONG_BETA).limiting_sensitivity() ** 2 == pytest.approx(LONG_BETA_GAMMA_SQ, rel=1e-12)


@pytest.mark.parametrize("taps, seed, r_max", [(29, 1, 0.9), (97, 0, 0.9), (150, 1, 0.9), (500, 1, 0.8)])
def test_trapezoid_equals_the_step_down_recursion(taps, seed, r_max):
    """Random minimum-phase β with a zero pair at 1/r_max, against the 60-digit Levinson step-down recursion."""
    beta = random_min_phase(taps, seed, r_max)
    assert inverse_energy_by_trapezoid(beta) == pytest.approx(inverse_energy_by_step_down(beta), rel=1e-12)


@pytest.mark.parametrize("beta", [[3.0], [1.0, 0.3], [1.0, -0.6, 0.1], [2.0, 0.0, 0.0, -0.5]])
def test_short_beta_against_lapack(beta):
    """Σ c_t² of the first column of B⁻¹ by LAPACK's triangular solve (3000 terms: the rest is below 1e-30)."""
    n = 3000
    col = np.zeros(n)
    col[: len(beta)] = beta
    e0 = np.zeros(n)
    e0[0] = 1.0
    c = scipy.linalg.solve_triangular(scipy.linalg.toeplitz(col, np.zeros(n)), e0, lower=True)
    assert inverse_energy_by_trapezoid(np.array(beta)) == pytest.approx(float(np.dot(c, c)), rel=1e-12)


@pytest.mark.parametrize("beta, gamma_sq", [
    ([1.0, 2.2250738585072014e-308, 0.0, 0.5], 4.0 / 3.0),  # a subnormal tap (found by hypothesis: m/L₁ overflowed)
    ([1.0, 5e-324], 1.0),
    ([1e100, 0.0, -5e99], 1e-200 / 0.75),  # 1/(β_0²(1 − (β_2/β_0)²)): the radius search works in logarithms
    ([1e-100, 0.0, 5e-101], 1e200 / 0.75),
])
def test_extreme_taps_and_scales(beta, gamma_sq):
    assert inverse_energy_by_trapezoid(beta) == pytest.approx(gamma_sq, rel=1e-12)
    R, K = inverse_decay_bound(beta)
    assert R > 1.0 and math.isfinite(K)


# -- the certificates are bounds -------------------------------------------------------------------------------

@pytest.mark.parametrize("beta", [flat(1000), random_min_phase(150, 1, 0.999), np.array([1.0, -0.6, 0.1]), np.array([2.0])],
                         ids=["flat 1000", "random 150", "3 taps", "1 tap"])
def test_every_inverse_coefficient_obeys_the_decay_bound(beta):
    R, K = inverse_decay_bound(beta)
    assert R > 1.0
    c = series_inverse(beta, 200_000)
    t = np.arange(c.size)
    bound = K * np.power(R, -t.astype(float))  # R = inf (one tap): c_0 alone
    assert np.all(np.abs(c) <= bound)


def test_decay_radius_lies_inside_the_nearest_zero_and_is_not_far_from_it():
    """For flat(1000) the nearest zero is real, at the root of B(x) = 1 − h(x − x^N)/(1 − x) above 1."""
    beta = flat(1000)
    R, _ = inverse_decay_bound(beta)
    with mpmath.workdps(30):
        h = mpmath.mpf(float(-beta[1]))
        poly = lambda x: 1 - h * x * (x ** (beta.size - 1) - 1) / (x - 1)
        zero = mpmath.findroot(poly, (mpmath.mpf("1.0001"), mpmath.mpf("1.003")), solver="illinois")
    assert 1.0 < R < zero
    assert math.log(R) > 0.4 * math.log(zero)


@pytest.mark.parametrize("points", [256, 512, 1024, 2048])
def test_aliasing_bound_covers_the_error_of_coarse_grids(points):
    """The trapezoid on M points is off by Σ_{j≠0} r_{jM}, at most 2K/(R^M − 1) with K = 1/(low_out·low_in): checked on
    grids too coarse for 1e-13 (flat(200) needs ~10⁴ points), where the error is visible."""
    beta = flat(200)
    exact = flat_mp_gamma_sq(beta, 40 * 200)
    R, low_out, low_in, _, _ = _zero_free_annulus(beta, 1e-13)
    X = np.fft.fft(beta, points)
    coarse = float(np.mean(1.0 / np.abs(X) ** 2))
    error = abs(coarse - exact)
    assert error > 1e-12  # the check bites
    assert error <= 2.0 / (low_out * low_in) / (R**points - 1.0)


# -- what it refuses ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("beta", [[1.0, -2.0], [1.0, 2.5, 1.0], np.convolve(random_min_phase(350, 0, 0.999), [1.0, -1.5])])
def test_a_zero_inside_the_disk_is_refused(beta):
    """β = (1, −2) has the finite frequency integral 1/3 but γ∞ = ∞ (errata 004 §10.17): not a value to return."""
    for f in (inverse_energy_by_trapezoid, inverse_decay_bound):
        with pytest.raises(ValueError, match="not minimum phase"):
            f(np.asarray(beta))
    assert not dpt.toeplitz(beta).is_minimum_phase()


@pytest.mark.parametrize("beta", [[1.0, -1.0], [1.0, 0.0, 1.0], np.convolve(random_min_phase(350, 0, 0.999), [1.0, -1.0])])
def test_a_zero_on_the_circle_cannot_be_certified(beta):
    for f in (inverse_energy_by_trapezoid, inverse_decay_bound):
        with pytest.raises(RuntimeError):
            f(np.asarray(beta))
    assert not dpt.toeplitz(beta).is_minimum_phase()
    assert dpt.toeplitz(beta).limiting_sensitivity() == math.inf


@pytest.mark.parametrize("taps, seed, r_max", [(29, 1, 0.99999), (150, 1, 0.999), (350, 0, 0.9)])
def test_where_the_rounding_bound_exceeds_1e_12_auto_is_the_time_route(taps, seed, r_max):
    """A zero pair at 1/0.99999 needs 4e7 points for the aliasing bound; at 1/0.999 (and with Σ|β_t| = 14 for 350 taps) the
    bound 4u·log₂M·Σ|β_t| on each FFT entry, against min|B|, leaves more than 1e-12 of rounding. ``"auto"`` then takes
    the time route (with the step-down recursion behind it), which stays exact."""
    beta = random_min_phase(taps, seed, r_max)
    with pytest.raises(RuntimeError, match="rounding|points"):
        inverse_energy_by_trapezoid(beta)
    mech = dpt.toeplitz(beta)
    assert mech._gamma_inf_sq_certified() is None
    assert mech.limiting_sensitivity() ** 2 == pytest.approx(inverse_energy_by_step_down(beta), rel=1e-12)


@pytest.mark.parametrize("call, match", [
    (lambda: inverse_energy_by_trapezoid([0.0, 1.0]), r"beta\[0\] must be nonzero"),
    (lambda: inverse_energy_by_trapezoid([1.0, float("nan")]), "beta"),
    (lambda: inverse_decay_bound([]), "beta"),
    (lambda: inverse_decay_bound("x"), "beta"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# -- the mechanism's routes -------------------------------------------------------------------------------------

@pytest.mark.parametrize("beta", [flat(1000), random_min_phase(150, 1, 0.9), random_min_phase(500, 1, 0.8)],
                         ids=["flat 1000", "random 150", "random 500"])
def test_auto_route_is_the_trapezoid_and_agrees_with_the_time_and_frequency_routes(beta):
    mech = dpt.toeplitz(beta)
    assert mech._gamma_inf_sq_certified() is not None
    auto = mech.limiting_sensitivity()
    assert auto == pytest.approx(mech.limiting_sensitivity(method="time"), rel=2e-12)
    assert auto == pytest.approx(mech.limiting_sensitivity(method="frequency"), rel=1e-12)
    assert mech.is_minimum_phase() == is_minimum_phase(beta) is True


def test_F_inf_of_the_benchmark_beta_takes_the_trapezoid_and_matches_the_time_route():
    """Mean estimation and linear regression (d = 128): the time route sums 3.2·10⁵ inverse coefficients; the frequency
    route (adaptive trapezoid, rtol 1e-13) for mean estimation (for d = 128 it is the benchmark's check)."""
    mech = dpt.toeplitz(LONG_BETA)  # γ∞ is kept per route, so each route runs once
    for problem in (dpt.MeanEstimation(0.05), dpt.LinearRegression(0.02, 1.0 / np.arange(1, 129))):
        assert dpt.F_inf(mech, problem, rho=1.0) == pytest.approx(dpt.F_inf(mech, problem, rho=1.0, method="time"), rel=2e-12)
    problem = dpt.MeanEstimation(0.05)
    assert dpt.F_inf(mech, problem, rho=1.0) == pytest.approx(dpt.F_inf(mech, problem, rho=1.0, method="frequency"), rel=1e-11)


def test_gamma_T_is_gamma_inf_once_the_decay_bound_makes_the_tail_negligible():
    """flat(1000): the bound puts Σ_{t≥n} c_t² below 1e-17·c_0² by n ≈ 4·10⁴; at n = 10⁶ γ_n is γ∞ (against the direct
    norm of 10⁶ coefficients, rel 1e-13), at n = 20 000 it is not and c_{0:n} is summed (equal to the direct norm)."""
    mech = dpt.toeplitz(flat(1000))
    assert mech._tail_below_rounding(10**6) and not mech._tail_below_rounding(20_000)
    direct = float(np.linalg.norm(series_inverse(mech.beta, 10**6)))
    assert mech.sensitivity(10**6) == mech.limiting_sensitivity()
    assert mech.sensitivity(10**6) == pytest.approx(direct, rel=1e-13)
    assert mech.sensitivity(20_000) == pytest.approx(float(np.linalg.norm(series_inverse(mech.beta, 20_000))), rel=1e-15)
    assert mech.sensitivity(20_000) <= mech.sensitivity(10**6)


def test_gamma_T_of_the_benchmark_beta_at_1e6():
    mech = dpt.toeplitz(LONG_BETA)
    assert mech.sensitivity(10**6) ** 2 == pytest.approx(LONG_BETA_GAMMA_SQ, rel=1e-12)
