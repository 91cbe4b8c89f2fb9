"""Elliptic closed forms of seed 004 App. F against adaptive quadrature and mpmath (errata 004 §8 #8–#11).

Tolerance 1e-10 relative: quad with epsrel 1e-13 and the closed forms both reach ~1e-14 here; the margin
covers the quadrature's error estimate being conservative only to a factor of ~100.
"""

import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, special as sc

from dptheory.special import int_inv_abs, sqrt_pole_integral


def quad_over_circle(f, peak):
    """∫_{−π}^{π} f(ω) dω for an even f peaked at ω = 0 with width ~peak."""
    val, _ = integrate.quad(f, 0.0, math.pi, points=[min(peak, 1.0)], limit=1000, epsabs=0.0, epsrel=1e-13)
    return 2.0 * val


@pytest.mark.parametrize(
    "a, expected",
    [(0.5, 6.74300141925), (0.1, 9.12219655369), (0.01, 13.4264020934), (1e-3, 17.9823855834), (1e-5, 27.1848599377)],
)
def test_lemma_F15_matches_quadrature_and_the_paper_form(a, expected):
    closed = float(int_inv_abs(a))
    q = quad_over_circle(lambda w: 1.0 / abs(1 - a - np.exp(1j * w)), a)
    with mpmath.workdps(40):
        A = mpmath.mpf(a)
        paper_form = float(4 / (2 - A) * mpmath.ellipk((1 - A) / (1 - A / 2) ** 2))
    assert closed == pytest.approx(q, rel=1e-10)
    assert closed == pytest.approx(paper_form, rel=1e-12)
    assert closed == pytest.approx(expected, rel=1e-10)


def test_lemma_F15_printed_form_in_double_precision_loses_digits():
    """Why we use ellipkm1: at a = 1e-5 the printed form with ellipk(k²) in floats is off by ~4e-8 relative
    (errata 004 §8 #8), since 1 − k² = a²/(2 − a)² is formed by cancellation."""
    a = 1e-5
    k = math.sqrt(1 - a) / (1 - a / 2)
    naive = 4 / (2 - a) * sc.ellipk(k**2)
    assert abs(naive / 27.1848599377 - 1) > 1e-9
    assert float(int_inv_abs(a)) == pytest.approx(27.1848599377, rel=1e-11)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (0.1, 0.3, 6.7471455390),
        (0.01, 0.2, 7.1483590620),
        (0.001, 0.01, 12.1227179023),
        (0.2, 0.05, 17.4513675602),
        (0.3, 0.9, 6.7295625885),
        (1e-4, 0.25, 6.9513886972),
    ],
)
def test_lemma_F16_matches_the_digest_and_quadrature(a, b, expected):
    closed = sqrt_pole_integral(a, b)
    q = quad_over_circle(lambda w: abs(1 - a - np.exp(1j * w)) / abs(1 - b - np.exp(1j * w)) ** 2, min(a, b))
    assert closed == pytest.approx(q, rel=1e-10)
    assert closed == pytest.approx(expected, rel=1e-9)  # digest values are printed to 10–11 digits


@pytest.mark.parametrize("a, b", [(0.5, 1.5), (1.5, 0.5), (1.5, 1.2), (0.3, 1.0), (1.0, 0.3), (1.9, 0.1)])
def test_lemma_F16_continues_to_a_and_b_in_0_2(a, b):
    """The paper states F.16 for a, b ∈ (0,1); we use it on (0,2) (β* for η > 1, ηλ ≥ 1): check that."""
    q = quad_over_circle(lambda w: abs(1 - a - np.exp(1j * w)) / abs(1 - b - np.exp(1j * w)) ** 2, min(a, b))
    assert sqrt_pole_integral(a, b) == pytest.approx(q, rel=1e-10)


def test_lemma_F16_reduces_to_F15_on_the_diagonal():
    assert sqrt_pole_integral(0.3, 0.3) == pytest.approx(float(int_inv_abs(0.3)), rel=1e-14)
    assert sqrt_pole_integral(0.3, 0.3 * (1 + 1e-9)) == pytest.approx(float(int_inv_abs(0.3)), rel=1e-8)


@pytest.mark.parametrize("a, b, approx", [(1e-11, 1e-2, 12.0937), (1e-11, 1e-6, 30.40364)])
def test_lemma_F16_stays_accurate_when_a_is_far_below_b(a, b, approx):
    """At a = 1e-11 the closed form cancels ~22 digits (errata 004 §7); the working precision adapts."""
    assert sqrt_pole_integral(a, b) == pytest.approx(approx, rel=1e-5)


def test_lemma_C21_bounds():
    """C.21(i) I(a,a) ≤ 5 log(8/a) (and ≈ 2 log(8/a)); C.21(ii) a ≤ b ≤ 1/4 ⇒ I(a,b) ≤ (128/49) log(8/a)(1+O(a))."""
    for a in (1e-3, 1e-5):
        assert float(int_inv_abs(a)) <= 5 * math.log(8 / a)
        assert float(int_inv_abs(a)) == pytest.approx(2 * math.log(8 / a), rel=1e-3)
    for a, b in [(0.01, 0.2), (0.001, 0.01), (1e-4, 0.25)]:
        assert sqrt_pole_integral(a, b) <= 128 / 49 * math.log(8 / a)


@pytest.mark.parametrize("a, b", [(0.0, 0.5), (0.5, 2.0), (-0.1, 0.5)])
def test_lemma_F16_rejects_arguments_outside_0_2(a, b):
    with pytest.raises(ValueError, match=r"[ab] must lie in \(0, 2\)"):
        sqrt_pole_integral(a, b)


def test_lemma_F16_carlson_route_equals_mpmath_for_a_below_b():
    """The vectorised Carlson evaluation (a < b) against mpmath's Π at adaptive precision: 1e-12 relative."""
    from dptheory.special import _pole_integral_mpmath

    rng = np.random.default_rng(0)
    a, b = np.sort(10.0 ** rng.uniform(-11, math.log10(1.99), size=(2, 200)), axis=0)
    fast = sqrt_pole_integral(a, b)
    slow = np.array([_pole_integral_mpmath(x, y) for x, y in zip(a, b)])
    np.testing.assert_allclose(fast, slow, rtol=1e-12)
