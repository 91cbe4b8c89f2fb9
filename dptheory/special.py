r"""Elliptic-integral closed forms used by the ν-DP-FTRL theory (seed 004, App. F.4–F.5).

Convention: complete elliptic integrals take the **modulus** ``k`` as in the paper (``K(k) = ∫_0^{π/2}
(1 − k² sin² w)^{-1/2} dw``, eq. 94); scipy and mpmath take the parameter ``m = k²``. Near ``k → 1`` we
pass the complementary parameter ``1 − k²`` to :func:`scipy.special.ellipkm1`, which keeps full relative
precision where ``ellipk(k**2)`` loses digits (errata 004 §8 #8: 4e-8 relative at ``a = 1e-5``).
"""

from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
from scipy import special as sc

from ._validation import check_real_values

__all__ = ["ellipk_complement", "int_inv_abs", "sqrt_pole_integral"]


def ellipk_complement(kc2):
    r"""``K(k)`` given the complementary parameter ``kc2 = 1 − k²`` (stable as ``k → 1``).

    Parameters
    ----------
    kc2 : float or array_like
        The complementary parameter ``1 − k² ≥ 0``. ``kc2 > 1`` (an imaginary modulus) is the analytic
        continuation; ``kc2 < 0`` is refused.

    Returns
    -------
    float or numpy.ndarray
        ``K(k)``; ``inf`` at ``kc2 = 0`` (``k = 1``), as ``K`` diverges logarithmically there (Property F.10).
    """
    kc2 = check_real_values("kc2", kc2, 0.0, lo_closed=True, why="kc2 = 1 - k^2 with a real modulus k <= 1")
    return sc.ellipkm1(kc2)


def int_inv_abs(a):
    r"""The integral ``∫_{−π}^{π} dω / |1 − a − e^{iω}|`` in closed form (Lemma F.15).

    Lemma F.15: ``∫_{−π}^{π} dω / |1 − a − e^{iω}| = (4/(2−a)) K(√(1−a)/(1−a/2)) = 4 K(|1 − a|)``.

    The two forms agree by Landen's transformation (errata 004 §7); we evaluate the second one as
    ``4·ellipkm1(a(2 − a))``, valid for ``a ∈ (0, 2)`` and stable as ``a → 0``.

    Parameters
    ----------
    a : float or array_like
        ``a ∈ [0, 2)``.

    Returns
    -------
    float or numpy.ndarray
        The integral; ``a = 0`` gives ``inf`` (Lemma F.14).
    """
    a = check_real_values("a", a, 0.0, 2.0, lo_closed=True, why="Lemma F.15")
    return 4.0 * sc.ellipkm1(a * (2.0 - a))


def _working_digits(a: float, b: float) -> int:
    # Lemma F.16 cancels ~2 log10(1/a) digits when a ≪ b (errata 004 §7: at a = 1e-11, dps 30 overflows).
    return 20 + int(math.ceil(2.0 * max(0.0, -math.log10(min(a, b)))))


@functools.lru_cache(maxsize=65536)
def _pole_integral_mpmath(a: float, b: float) -> float:
    with mpmath.workdps(_working_digits(a, b)):
        A, Bq = mpmath.mpf(a), mpmath.mpf(b)
        half = 1 - A / 2
        alpha2 = (Bq**2 * (1 - A) - A**2 * (1 - Bq)) / (Bq**2 * half**2)
        m = (1 - A) / half**2
        return float(2 * A**2 / (Bq**2 * half) * mpmath.ellippi(alpha2, m))


def _pole_integral_carlson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # Π(n, k) = R_F(0, k'², 1) + (n/3) R_J(0, k'², 1, 1 − n) (DLMF 19.25.14), with the complements formed
    # without cancellation: k'² = (a/(2 − a))², 1 − α² = (a(2 − b))² / (b(2 − a))².
    kc2 = (a / (2.0 - a)) ** 2
    one_minus_n = (a * (2.0 - b)) ** 2 / (b * (2.0 - a)) ** 2
    pi = sc.elliprf(0.0, kc2, 1.0) + (1.0 - one_minus_n) / 3.0 * sc.elliprj(0.0, kc2, 1.0, one_minus_n)
    return 2.0 * a**2 / (b**2 * (1.0 - a / 2.0)) * pi


def sqrt_pole_integral(a, b):
    r"""The integral ``I(a, b)`` of eq. 49 in closed form (Lemma F.16), vectorised.

    Lemma F.16: ``I(a, b) = ∫_{−π}^{π} |1 − a − e^{iω}| / |1 − b − e^{iω}|² dω`` (eq. 49).

    Closed form ``(2a² / (b²(1 − a/2))) · Π(α², k)`` with ``α² = (b²(1−a) − a²(1−b)) / (b²(1−a/2)²)`` and
    ``k = √(1−a)/(1−a/2)``. For ``a < b`` (``α² ∈ (0, 1)``, the case ν ≤ ηλ of the theory) Π is evaluated by
    Carlson's symmetric integrals (:func:`scipy.special.elliprf`, :func:`~scipy.special.elliprj`), with no
    cancellation: 2e-13 relative against mpmath over ``1e-11 ≤ a < b < 2``. For ``a > b`` (``α² < 0``) that sum
    cancels (1e-7), so :func:`mpmath.ellippi` is used at ``20 + 2·log10(1/min(a, b))`` digits (memoised).
    The paper states the lemma for ``a, b ∈ (0, 1)``; it continues analytically to ``a, b ∈ (0, 2)``
    (checked against quadrature in ``tests/test_special.py``), which covers ``β*`` of Thm 2.1 for
    ``η ∈ (1, 2)`` and eigen-directions with ``ηλ ∈ [1, 2)``. At ``a = b`` it reduces to Lemma F.15.

    Parameters
    ----------
    a : float or array_like
        ``a ∈ (0, 2)``.
    b : float or array_like
        ``b ∈ (0, 2)``, broadcast with ``a``.

    Returns
    -------
    float or numpy.ndarray
        ``I(a, b)`` (a float when both are scalars).

    Raises
    ------
    ValueError
        For values outside ``(0, 2)`` or shapes that do not broadcast.
    """
    a = check_real_values("a", a, 0.0, 2.0, why="Lemma F.16")
    b = check_real_values("b", b, 0.0, 2.0, why="Lemma F.16")
    scalar = a.ndim == 0 and b.ndim == 0
    try:
        a_arr, b_arr = (np.atleast_1d(x) for x in np.broadcast_arrays(a, b))
    except ValueError:
        raise ValueError(f"a and b must broadcast together, got shapes {a.shape} and {b.shape}") from None
    out = np.empty(a_arr.shape)
    below, equal, above = a_arr < b_arr, a_arr == b_arr, a_arr > b_arr
    out[below] = _pole_integral_carlson(a_arr[below], b_arr[below])
    out[equal] = int_inv_abs(a_arr[equal])
    out[above] = [_pole_integral_mpmath(float(x), float(y)) for x, y in zip(a_arr[above], b_arr[above])]
    return float(out[0]) if scalar else out
