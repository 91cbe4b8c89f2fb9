r"""Frequency- and time-domain numerics shared by every Toeplitz mechanism (seed 004, App. F.1).

Conventions: the DTFT is ``B(ω) = Σ_t β_t e^{−iωt}`` (errata 004 §10.2: only ``|B(ω)|²`` is ever used, so
the sign of ω is immaterial), and a mean over ω means ``(1/2π)∫_{−π}^{π} · dω``.

The primitives:

* :func:`periodic_mean` — the trapezoid rule on a uniform grid, doubled until it has converged. For a
  periodic analytic integrand its error decays geometrically in the grid size (it equals the aliasing
  sum), so it is an exact-to-rounding quadrature for every integrand of the paper away from ``|q| = 1``.
* :func:`series_inverse` — the first ``n`` coefficients of ``1/B(z)`` (the first column of ``B⁻¹``),
  by the recurrence ``lfilter`` when ``len(β)·n`` is small and by blocked substitution with FFT products,
  ``O(n log len(β))``, otherwise, checked a posteriori (:func:`series_inverse_error_bound`).
* :func:`geometric_filter_energy` — the time-domain form of the pole integral (Lemma C.4 / F.12),
  ``(1/2π)∫|B(ω)|²/|1 − q e^{iω}|² dω = Σ_k y_k²`` with ``y = β * (1, q, q², …)``.
* :func:`inverse_energy_by_trapezoid` / :func:`inverse_decay_bound` — ``γ∞²`` of a finite ``β`` by one FFT whose
  size a certified aliasing bound fixes, and Cauchy's bound ``|c_t| ≤ K R^{−t}`` on the inverse coefficients,
  both from a zero-free annulus ``|z| ≤ R`` certified on the unit-circle grid.
"""

from __future__ import annotations

import math
from typing import Callable

import mpmath
import numpy as np
from scipy import fft as sfft
from scipy import integrate

from .._validation import (
    check_callable,
    check_in_interval,
    check_int,
    check_positive_array,
    check_real_array,
    check_real_values,
    check_size,
)

__all__ = [
    "periodic_mean",
    "series_inverse",
    "series_inverse_error_bound",
    "geometric_filter_energy",
    "is_minimum_phase",
    "clustered_even_mean",
    "pole_modulus_sq",
    "inverse_energy_by_step_down",
    "inverse_energy_by_trapezoid",
    "inverse_decay_bound",
]

_MAX_GRID = 1 << 24


def _next_pow2(n: float) -> int:
    return 1 << max(0, int(math.ceil(math.log2(max(1.0, n)))))


def periodic_mean(
    f: Callable[[np.ndarray], np.ndarray], *, min_points: int = 1024, rtol: float = 1e-13
) -> np.ndarray:
    r"""``(1/2π)∫_{−π}^{π} f(ω) dω`` for a 2π-periodic ``f`` by the trapezoid rule, doubling the grid.

    ``f`` maps a 1-D array of frequencies ``ω_k = 2πk/M`` to values of shape ``(M,)`` or ``(M, p)``
    (``p`` integrands at once). Stops when successive estimates agree to ``rtol``; raises
    :class:`RuntimeError` if that needs more than 2²⁴ points (an integrand with a near-singularity on the
    unit circle, e.g. ``ν`` or ``ηλ`` below ~1e-6). ``min_points`` is at least 16: on coarser grids two
    successive trapezoid sums can agree by accident (``cos²`` on 1 and 2 points gives 1, not ½).

    Parameters
    ----------
    f : callable
        The integrand: a 1-D array of ``M`` frequencies to values of shape ``(M,)`` or ``(M, p)``.
    min_points : int, default 1024
        The size of the first grid (rounded up to a power of two), at least 16.
    rtol : float, default 1e-13
        The relative agreement of two successive estimates at which the doubling stops.

    Returns
    -------
    float or numpy.ndarray
        The mean: a scalar for values of shape ``(M,)``, shape ``(p,)`` for ``(M, p)``.

    Raises
    ------
    RuntimeError
        If ``rtol`` is not reached with 2²⁴ points.
    """
    check_callable("f", f)
    min_points = check_int("min_points", min_points, 16, why="coarser grids can agree by accident")
    rtol = check_in_interval("rtol", rtol, 0.0, lo_closed=True)
    M = _next_pow2(min_points)
    omega = 2.0 * np.pi * np.arange(M) / M
    prev = np.mean(f(omega), axis=0)
    while True:
        M *= 2
        if M > _MAX_GRID:
            raise RuntimeError(
                f"periodic_mean did not reach rtol={rtol:g} with {_MAX_GRID} points: the integrand is "
                "nearly singular on the unit circle"
            )
        # The new grid's even points are the old grid: evaluate the odd points only.
        odd = 2.0 * np.pi * (np.arange(M // 2) + 0.5) / (M // 2)
        cur = 0.5 * (prev + np.mean(f(odd), axis=0))
        scale = np.maximum(np.abs(cur), np.finfo(float).tiny)
        if np.all(np.abs(cur - prev) <= rtol * scale):
            return cur
        prev = cur


#: Bytes the series inversion holds per coefficient: the result and the FFT work arrays of the blocked route
_INVERSE_BYTES = 64.0
_RECURRENCE_WORK = 1 << 26  # multiply-adds below which the recurrence is used outright (~0.1 s)
_INVERSE_RTOL = 1e-12  # relative ℓ² error the FFT route must certify, else the recurrence is used
UNIT_ROUNDOFF = np.finfo(float).eps / 2  #: u, the unit roundoff of float64
_INVERSE_METHODS = ("auto", "recurrence", "blocked")


def _inverse_by_recurrence(beta: np.ndarray, n: int) -> np.ndarray:
    """``c_k = −(1/β_0)Σ_{j≥1} β_j c_{k−j}``: forward substitution, backward stable, ``O(len(β)·n)``."""
    from scipy.signal import lfilter  # here, not at import: scipy.signal takes ~0.45 s to load

    impulse = np.zeros(n)
    impulse[0] = 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        return lfilter([1.0], beta[: min(beta.size, n)], impulse)


def _inverse_by_blocks(beta: np.ndarray, n: int, block: int) -> np.ndarray:
    r"""Blocked forward substitution with FFT products, ``O(n log len(β))``.

    The first ``block`` coefficients come from the recurrence; block ``k`` then solves the leading
    triangle, whose inverse is Toeplitz with those coefficients, against the right-hand side
    ``−Σ_{j>i} β_j c_{kb+i−j}`` left by the earlier coefficients (only the last ``len(β) − 1`` matter).
    Unlike Newton's iteration it never re-uses a computed block as exact input to a doubling, so its
    rounding is propagated once through ``1/B`` (measured ≲ u‖β‖₁‖c‖₁), not compounded.
    """
    p, m = beta.size, min(block, n)
    c = np.empty(n)
    c[:m] = _inverse_by_recurrence(beta, m)
    L_hist = sfft.next_fast_len(2 * m + p, real=True)
    L_solve = sfft.next_fast_len(2 * m, real=True)
    beta_f = sfft.rfft(beta, L_hist)
    head_f = sfft.rfft(c[:m], L_solve)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(m, n, m):
            w = min(m, n - k)
            lo = max(0, k - (p - 1))
            carried = sfft.irfft(sfft.rfft(c[lo:k], L_hist) * beta_f, L_hist)[k - lo : k - lo + w]
            c[k : k + w] = -sfft.irfft(sfft.rfft(carried, L_solve) * head_f, L_solve)[:w]
    return c


def series_inverse_error_bound(beta: np.ndarray, c: np.ndarray) -> float:
    r"""A-posteriori bound on ``‖ĉ − c‖₂/‖ĉ‖₂`` for computed inverse coefficients ``ĉ`` of ``β``.

    With ``r = (β * ĉ)_{0:n} − e₀`` the error is exactly ``ĉ − c = c * r`` (lower-triangular Toeplitz), so
    ``‖ĉ − c‖₂ ≤ H‖r‖₂`` with ``H = min(‖ĉ‖₁, sup_ω 1/|B(ω)|)`` (Young's inequality, resp. the symbol bound of a
    Toeplitz operator). ``r`` is evaluated by FFT, whose rounding is covered by adding ``u‖β‖₁‖ĉ‖₂``; the sup
    is taken on a grid of ``M ≥ 8·len(β)`` points lowered by the Lipschitz slack ``(π/M)Σ_t t|β_t|``. Returns
    ``inf`` when ``ĉ`` is not finite.

    Parameters
    ----------
    beta : array_like
        The taps ``β``, 1-D.
    c : array_like
        The computed inverse coefficients ``ĉ``, 1-D and non-empty (non-finite entries allowed).

    Returns
    -------
    float
        The bound on the relative ℓ² error, ``inf`` when ``ĉ`` is not finite.
    """
    beta = check_real_array("beta", beta)
    c = check_real_values("c", c, ndim=1, allow_empty=False, allow_nonfinite=True)
    if not np.all(np.isfinite(c)):
        return math.inf
    n = c.size
    L = sfft.next_fast_len(n + beta.size, real=True)
    r = sfft.irfft(sfft.rfft(c, L) * sfft.rfft(beta, L), L)[:n]
    r[0] -= 1.0
    norm_c = float(np.linalg.norm(c))
    residual = float(np.linalg.norm(r)) + UNIT_ROUNDOFF * float(np.sum(np.abs(beta))) * norm_c
    min_abs = _min_modulus_on_circle(beta)
    gain = float(np.sum(np.abs(c)))
    if min_abs > 0:
        gain = min(gain, 1.0 / min_abs)
    return gain * residual / norm_c


def _check_leading_tap(beta: np.ndarray) -> np.ndarray:
    if beta[0] == 0.0:
        raise ValueError("beta[0] must be nonzero (valid range: beta[0] != 0): 1/B(z) has no power series otherwise")
    return beta


def series_inverse(beta: np.ndarray, n: int, *, method: str = "auto") -> np.ndarray:
    r"""First ``n`` coefficients of ``1/B(z)``, ``B(z) = Σ_t β_t z^t``: the first column of ``B⁻¹``.

    For lower-triangular Toeplitz ``B`` the inverse is lower-triangular Toeplitz (seed 004, App. A,
    footnote) with this first column. Routes (``method``):

    * ``"recurrence"`` — forward substitution (``scipy.signal.lfilter``), ``O(len(β)·n)``, backward stable;
    * ``"blocked"`` — blocked substitution with FFT products, ``O(n log len(β))``;
    * ``"auto"`` (default) — the recurrence when ``len(β)·n ≤ 2²⁶``; otherwise the blocked route, accepted
      only if :func:`series_inverse_error_bound` certifies a relative ℓ² error ≤ 1e-12, else the recurrence.

    Coefficients that overflow (a non-minimum-phase ``β``, whose inverse grows geometrically) come back
    as ``±inf``/``nan``; callers treat any non-finite entry as an infinite norm.

    Parameters
    ----------
    beta : array_like
        The taps ``β``, 1-D, with ``β_0 ≠ 0``.
    n : int
        The number of coefficients (at least 0).
    method : {"auto", "recurrence", "blocked"}, default "auto"
        The route (above).

    Returns
    -------
    numpy.ndarray
        The coefficients ``c_0, …, c_{n−1}`` of ``1/B(z)``, shape ``(n,)``.

    Raises
    ------
    ValueError
        If ``β_0 = 0`` or ``method`` is not one of the routes.
    """
    beta = _check_leading_tap(check_real_array("beta", beta))
    n = check_size("n", check_int("n", n, 0), lambda m: _INVERSE_BYTES * m, what="the inverse coefficients", lo=0)
    if method not in _INVERSE_METHODS:
        raise ValueError(f"method must be one of {_INVERSE_METHODS}, got {method!r}")
    if n == 0:
        return np.zeros(0)
    if method == "recurrence" or (method == "auto" and beta.size * n <= _RECURRENCE_WORK):
        return _inverse_by_recurrence(beta, n)
    c = _inverse_by_blocks(beta, n, block=max(1024, beta.size // 2))
    if method == "blocked" or series_inverse_error_bound(beta, c) <= _INVERSE_RTOL:
        return c
    return _inverse_by_recurrence(beta, n)


def clustered_even_mean(f: Callable[[float], float], widths, *, rtol: float = 1e-12) -> float:
    r"""``(1/2π)∫_{−π}^{π} f(ω) dω`` for an even ``f`` with features of widths ``widths`` clustered at ``ω = 0``.

    The uniform trapezoid of :func:`periodic_mean` needs ~``1/width`` points, so a near-singularity of width
    1e-6 is out of its reach; here ``[0, π]`` is split at the widths (and 10× them) and each piece goes to
    adaptive Gauss–Kronrod (:func:`scipy.integrate.quad`), which resolves every scale in ``O(log)`` pieces.
    Raises :class:`RuntimeError` if a piece does not reach ``rtol``.

    Parameters
    ----------
    f : callable
        The even integrand, a float ``ω`` to a float.
    widths : array_like
        The positive widths of its features at ``ω = 0``.
    rtol : float, default 1e-12
        The relative tolerance of each piece's quadrature (at least ``50·eps``).

    Returns
    -------
    float
        The mean of ``f`` over ``[−π, π]``.

    Raises
    ------
    RuntimeError
        If a piece does not reach ``rtol``.
    """
    check_callable("f", f)
    w = check_positive_array("widths", widths)
    rtol = check_in_interval("rtol", rtol, 50 * np.finfo(float).eps, lo_closed=True, why="the floor of scipy.integrate.quad")
    cuts = np.unique(np.concatenate([[0.0, math.pi], w[w < math.pi], 10 * w[10 * w < math.pi]]))
    total = 0.0
    for a, b in zip(cuts[:-1], cuts[1:]):
        value, err, *info = integrate.quad(f, a, b, epsabs=0.0, epsrel=rtol, limit=200, full_output=1)
        if len(info) > 2:
            raise RuntimeError(f"adaptive quadrature on [{a:.3g}, {b:.3g}] did not converge: {info[1]}")
        total += value
    return total / math.pi


def inverse_energy_by_step_down(beta, *, max_taps: int = 1024) -> float:
    r"""``(1/2π)∫|B(ω)|^{-2} dω = Σ_t c_t²`` for a minimum-phase ``β``, by the Levinson step-down recursion.

    With ``A = B/β_0`` and reflection coefficients ``k_m`` (Schur–Cohn: ``a^{(m−1)}_i = (a^{(m)}_i − k_m
    a^{(m)}_{m−i})/(1 − k_m²)``, ``k_m = a^{(m)}_m``), the variance of the AR process ``A(q)x = e`` is
    ``1/Π(1 − k_m²)``, so ``γ∞² = 1/(β_0² Π_m (1 − k_m²))``. Evaluated in mpmath on the exact binary
    coefficients at 60 digits, raised until ``min(1 − k_m²)`` keeps 30 significant digits: the route for
    minimum-phase β whose inverse decays too slowly for a time-domain sum (a zero within ~1e-8 of the circle).
    ``O(len(β)²)`` multi-precision operations, so refused above ``max_taps``. Raises ``ValueError`` if some
    ``|k_m| ≥ 1`` (not minimum phase).

    Parameters
    ----------
    beta : array_like
        The taps ``β``, 1-D, minimum phase.
    max_taps : int, default 1024
        The most taps accepted.

    Returns
    -------
    float
        ``γ∞² = Σ_t c_t²``.

    Raises
    ------
    ValueError
        If ``len(β) > max_taps`` or some ``|k_m| ≥ 1`` (``β`` not minimum phase).
    """
    beta = np.asarray(beta, dtype=float)
    if beta.size > max_taps:
        raise ValueError(f"the step-down recursion is O(len(beta)^2) in multi-precision: len(beta) must be <= {max_taps}, got {beta.size}")
    dps = 60
    while True:
        with mpmath.workdps(dps):
            a = [mpmath.mpf(float(x)) / mpmath.mpf(float(beta[0])) for x in beta]
            product, smallest = mpmath.mpf(1), mpmath.mpf(1)
            for m in range(len(a) - 1, 0, -1):
                k = a[m]
                one_minus_k2 = 1 - k * k
                if one_minus_k2 <= 0:
                    raise ValueError("beta is not minimum phase: a reflection coefficient has |k| >= 1")
                product *= one_minus_k2
                smallest = min(smallest, one_minus_k2)
                a = [(a[i] - k * a[m - i]) / one_minus_k2 for i in range(m)]
            if smallest > mpmath.mpf(10) ** (30 - dps) or dps >= 960:
                return float(1 / (mpmath.mpf(float(beta[0])) ** 2 * product))
        dps *= 2


_TRAPEZOID_ALIAS_RTOL = 1e-13  # aliasing error the trapezoid route allows, relative to c_0² ≤ γ∞²
_TRAPEZOID_RTOL = 1e-12  # total relative error (aliasing + rounding) it must certify, else RuntimeError
_RADIUS_FRACTIONS = np.geomspace(0.95, 1e-3, 24)  # trial radii of the annulus (see _zero_free_annulus)


def _zero_free_annulus(beta: np.ndarray, rtol: float) -> tuple[float, float, float, np.ndarray, float]:
    r"""A radius ``R > 1`` with ``B(z) = Σ_t β_t z^t`` zero-free on ``|z| ≤ R``, and lower bounds on ``|B|`` there.

    Returns ``(R, low_out, low_in, X, delta)``: ``low_out ≤ min_{|z|=R}|B|``,
    ``low_in ≤ min_{|z|=1/R}|B|``, the half-circle grid ``X = rfft(β, M)`` it was certified on and the bound
    ``delta = 4u·log₂M·Σ|β_t|`` on the rounding of its entries (the floor :func:`is_minimum_phase` uses). Steps:

    1. the unit circle: with ``L₁ = Σ_t t|β_t| ≥ sup|B'|``, every point lies within ``π/M`` of a grid point, so
       ``m = min_k|X_k| − delta − πL₁/M``; the grid is refined until ``min_k|X_k| − delta > 2πL₁/M``, which keeps
       ``B`` inside the disc ``|w − B(ω_k)| < |B(ω_k)|`` on each arc: no zero on the circle, every phase step
       below π/2, and the argument principle counts the zeros in the disc exactly (``ValueError`` if any);
    2. radially: ``|B(se^{iθ}) − B(e^{iθ})| = |Σ_t β_t(s^t − 1)e^{itθ}| ≤ Σ_t |β_t||s^t − 1|``, increasing in ``|log s|``,
       so ``|B| ≥ low_out = m − Σ_t|β_t|(R^t − 1) > 0`` on ``1 ≤ |z| ≤ R`` (no zero there either) and
       ``|B| ≥ low_in = m − Σ_t|β_t|(1 − R^{−t})`` on ``1/R ≤ |z| ≤ 1``. ``R = 1 + f·min(m/L₁, 1)`` (``low_out > 0``
       needs ``R − 1 < m/L₁``) is taken among trial fractions ``f`` to minimise ``log(β_0²/(rtol·low_out·low_in))/log R``,
       the length after which ``R^{−t}/(low_out·low_in)`` is below ``rtol·c_0²``.

    Raises :class:`RuntimeError` where ``|B|`` is within rounding of zero on the grid or the arcs need more than
    2²⁴ points (``min|B| < 2πL₁/2²⁴ ≈ 4e-7·L₁`` on the circle: a zero close to it).
    """
    abs_beta = np.abs(beta)
    total = float(np.sum(abs_beta))
    t = np.arange(beta.size)
    L1 = float(np.dot(t, abs_beta))
    M = _next_pow2(max(8 * beta.size, 4096))
    while True:
        X = sfft.rfft(beta, M)  # B(e^{−iω_k}), ω_k = 2πk/M, k ≤ M/2: the whole circle for real β (conjugate half)
        delta = 4 * UNIT_ROUNDOFF * math.log2(M) * total
        low = float(np.min(np.abs(X))) - delta
        if low > 2 * math.pi * L1 / M:
            break
        if low <= 0.0 or 2 * math.pi * L1 / low > _MAX_GRID:
            raise RuntimeError("B(z) is too close to zero on the unit circle to certify a zero-free annulus")
        M = _next_pow2(2 * math.pi * L1 / low + 1)
    winding = float(np.sum(np.angle(X[1:] * np.conj(X[:-1])))) / math.pi  # the half circle: P(±1) are real
    if abs(winding) > 0.5:
        raise ValueError("beta is not minimum phase: B(z) has a zero in the unit disk (argument principle)")
    m = float(low - math.pi * L1 / M)
    log_b0 = math.log(abs(float(beta[0])))
    if L1 == 0.0:  # a single tap: B is constant, zero-free everywhere
        return math.inf, m, m, X, delta
    best, fractions = None, _RADIUS_FRACTIONS
    scale = 1.0 if m >= L1 else m / L1  # R ≤ 2 leaves under 50 points of aliasing; m/L₁ overflows for tiny taps
    while best is None:  # as f → 0, Σ|β_t|(R^t − 1) → 0 and low_out → m > 0: some f qualifies
        for a in fractions * scale:
            R = 1.0 + float(a)
            if R == 1.0:
                raise RuntimeError("the zero-free annulus of B(z) is thinner than the rounding of 1 + (R - 1)")
            with np.errstate(over="ignore", invalid="ignore"):
                low_out = m - float(np.dot(abs_beta, np.expm1(t * math.log(R))))
            low_in = m + float(np.dot(abs_beta, np.expm1(-t * math.log(R))))
            if low_out > 0.0:
                length = (2.0 * log_b0 - math.log(rtol) - math.log(low_out) - math.log(low_in)) / math.log(R)
                if best is None or length < best[0]:
                    best = (length, R, low_out, low_in)
        fractions = fractions * _RADIUS_FRACTIONS[-1]
    _, R, low_out, low_in = best
    return R, low_out, low_in, X, delta


def inverse_decay_bound(beta) -> tuple[float, float]:
    r"""Cauchy's bound ``|c_t| ≤ K R^{−t}`` on the inverse coefficients of a finite minimum-phase ``β``.

    ``(R, K)`` with ``R > 1`` and ``|c_t| ≤ K R^{−t}`` for every coefficient ``c_t`` of ``1/B(z)``, the first
    column of ``B⁻¹`` (seed 004, App. A), for a finite minimum-phase ``β``.

    ``1/B`` is analytic on the zero-free disc ``|z| ≤ R`` certified by :func:`_zero_free_annulus`, so Cauchy's
    estimate gives ``|c_t| ≤ R^{−t} max_{|z|=R} 1/|B| ≤ R^{−t}/low_out``. Hence the tail of ``γ∞² = Σ_t c_t²``
    (eq. 5, Property C.1) past ``n`` is at most ``K² R^{−2n}/(1 − R^{−2})`` and ``γ_n = γ∞`` in double precision
    once that is below ``1e-17·c_0²``. ``R = inf`` for a single tap. Raises ``ValueError`` if ``β`` is not minimum
    phase, :class:`RuntimeError` where no annulus can be certified (a zero within rounding of the circle).

    Parameters
    ----------
    beta : array_like
        The taps ``β``, 1-D, with ``β_0 ≠ 0``.

    Returns
    -------
    tuple of float
        ``(R, K)``.

    Raises
    ------
    ValueError
        If ``β`` is not minimum phase or ``β_0 = 0``.
    RuntimeError
        Where no annulus can be certified (a zero within rounding of the circle).
    """
    beta = _check_leading_tap(check_real_array("beta", beta))
    R, low_out, _, _, _ = _zero_free_annulus(beta, _TRAPEZOID_ALIAS_RTOL)
    return R, 1.0 / float(low_out)


def inverse_energy_by_trapezoid(beta) -> float:
    r"""``γ∞² = (1/2π)∫|B(ω)|^{-2} dω`` for a finite minimum-phase ``β``, by one FFT.

    ``γ∞² = (1/2π)∫|B(ω)|^{-2} dω = Σ_t c_t²`` (eq. 5, 26; Property C.1) for a finite minimum-phase ``β``, by
    one FFT, with a certified relative error ≤ 1e-12.

    The ``M``-point trapezoid rule returns ``Σ_j r_{jM}``, ``r_l`` the Fourier coefficients of ``1/|B|²``. On the
    annulus ``1/R ≤ |z| ≤ R`` of :func:`_zero_free_annulus` that function continues to ``1/(B(z)B(1/z))``,
    analytic and bounded by ``K = 1/(low_out·low_in)``, so ``|r_l| ≤ K R^{−|l|}`` and the aliasing error is at most
    ``2K/(R^M − 1)`` (the exponential convergence of the periodic trapezoid rule, Trefethen & Weideman 2014, Thm 3.2).
    ``M`` is the smallest even FFT size (at least the certificate's grid, ``≥ 8·len(β)``) that puts this below
    ``1e-13·c_0² ≤ 1e-13·γ∞²``, about ``32/log R`` points. Rounding adds at most the weighted mean of
    ``(|X_k|/(|X_k| − δ))² − 1`` (entries of the FFT within ``δ = 4u·log₂M·Σ|β_t|`` of ``B(ω_k)``) and
    ``(4 + log₂M)u`` (the reciprocals and a pairwise sum).

    Raises ``ValueError`` if ``β`` is not minimum phase (argument principle) and :class:`RuntimeError` where the
    certificate would exceed 1e-12 or need more than 2²⁴ points (a zero close to the unit circle: the time-domain
    sum or :func:`inverse_energy_by_step_down` serve there).

    Parameters
    ----------
    beta : array_like
        The taps ``β``, 1-D, with ``β_0 ≠ 0``.

    Returns
    -------
    float
        ``γ∞²``, to a certified relative error ≤ 1e-12.

    Raises
    ------
    ValueError
        If ``β`` is not minimum phase or ``β_0 = 0``.
    RuntimeError
        Where the certificate would exceed 1e-12 or need more than 2²⁴ points.
    """
    beta = _check_leading_tap(check_real_array("beta", beta))
    R, low_out, low_in, X, delta = _zero_free_annulus(beta, _TRAPEZOID_ALIAS_RTOL)
    M = 2 * (X.size - 1)
    if math.isfinite(R):
        # R^M − 1 ≥ x = 2K/(rtol·c_0²) = 2β_0²/(rtol·low_out·low_in), in logarithms (β may be tiny or huge)
        log_x = (math.log(2.0 / _TRAPEZOID_ALIAS_RTOL) + 2.0 * math.log(abs(float(beta[0])))
                 - math.log(low_out) - math.log(low_in))
        needed = (log_x + math.log1p(math.exp(-log_x))) / math.log(R)
        if needed > _MAX_GRID:
            raise RuntimeError(f"the trapezoid rule for 1/|B|^2 would need {needed:.3g} points to certify its aliasing error")
        if needed > M:
            M = 2 * sfft.next_fast_len(math.ceil(needed / 2), real=True)
            X = sfft.rfft(beta, M)
            delta = 4 * UNIT_ROUNDOFF * math.log2(M) * float(np.sum(np.abs(beta)))
    absX = np.abs(X)
    if float(np.min(absX)) <= 2.0 * delta:
        raise RuntimeError("|B| is within the FFT's rounding of zero on the trapezoid grid")
    inv = 1.0 / (absX * absX)
    total = 2.0 * float(np.sum(inv)) - float(inv[0]) - float(inv[-1])  # the conjugate half of the circle counts twice
    # |B(ω_k)| ≥ |X_k| − δ, so the term 1/|X_k|² is off by at most (|X_k|/(|X_k| − δ))² − 1 ≤ 3δ/(|X_k| − δ) of
    # itself (as |X_k| ≥ 2δ); the sum by at most 3δ·Σ_k 1/(|X_k|²(|X_k| − δ)) (each k counted twice: an upper bound)
    rounding = 6.0 * delta * float(np.sum(inv / (absX - delta))) / total + (4.0 + math.log2(M)) * UNIT_ROUNDOFF
    if _TRAPEZOID_ALIAS_RTOL + rounding > _TRAPEZOID_RTOL:
        raise RuntimeError(f"the FFT's rounding near the minimum of |B| ({rounding:.2g} relative) exceeds {_TRAPEZOID_RTOL:g}")
    return total / M


def pole_modulus_sq(gap, omega):
    r"""``|1 − q e^{iω}|² = g² + 4q sin²(ω/2)`` with ``q = 1 − g``, formed from the gap ``g = 1 − q = ηλ``.

    The form in ``g`` keeps full relative precision as ``g → 0`` where ``|1 − q e^{iω}|`` computed from ``q``
    cancels near ``ω = 0``. Broadcasts over ``gap`` and ``omega``.

    Parameters
    ----------
    gap : float or array_like
        The gap ``g = 1 − q``.
    omega : float or array_like
        The frequencies ``ω``.

    Returns
    -------
    float or numpy.ndarray
        ``|1 − q e^{iω}|²``, broadcast over ``gap`` and ``omega``.
    """
    return _pole_modulus_sq(check_real_values("gap", gap), check_real_values("omega", omega))


def _pole_modulus_sq(gap, omega):
    """:func:`pole_modulus_sq` without argument checks, for integrands evaluated thousands of times."""
    return gap**2 + 4.0 * (1.0 - gap) * np.sin(0.5 * omega) ** 2


def geometric_filter_energy(beta: np.ndarray, gap) -> np.ndarray:
    r"""``(1/2π)∫|B(ω)|²/|1 − q e^{iω}|² dω`` for a finite ``β`` and ``q = 1 − gap``, ``gap ∈ (0, 2)``, exactly.

    ``y = β * (1, q, q², …)`` (the response of ``y_{k+1} = q y_k + β_{k+1}``) has energy ``Σ_k y_k²``
    (Parseval). Past the last tap ``y`` decays as ``q^j y_{n−1}``, contributing ``y_{n−1}² q²/(1 − q²)`` with
    ``1 − q² = g(2 − g)`` (no cancellation as ``g → 0``). Equals ``⟨β, T_q β⟩/(1 − q²)`` of Lemma C.4 with
    ``g = ηλ``. Vectorised over ``gap``.

    Parameters
    ----------
    beta : array_like
        The taps ``β``, 1-D.
    gap : float or array_like
        The gap ``g = 1 − q = ηλ``, in ``(0, 2)``.

    Returns
    -------
    float or numpy.ndarray
        The energy, a float for scalar ``gap``, else an array of ``gap``'s shape.
    """
    beta = check_real_array("beta", beta)
    gap = check_real_values("gap", gap, 0.0, 2.0, why="gap = 1 - q = eta*lambda")
    from scipy.signal import lfilter  # here, not at import: scipy.signal takes ~0.45 s to load

    gaps = gap.ravel()
    out = np.empty(gaps.shape)
    for i, g in enumerate(gaps):
        q = 1.0 - g
        y = lfilter([1.0], [1.0, -q], beta)
        out[i] = np.dot(y, y) + y[-1] ** 2 * q**2 / (g * (2.0 - g))
    return out.reshape(gap.shape) if gap.ndim else out[0]


def _roots_outside_disk(beta: np.ndarray) -> bool:
    r"""All zeros of ``P(z) = Σ_t β_t z^t`` strictly outside the closed unit disk, by companion-matrix roots.

    A root ``ẑ`` is decided when ``||ẑ| − 1|`` exceeds its first-order error bound
    ``8·deg·u·Σ_t|β_t||ẑ|^t / |P'(ẑ)|``; the undecided ones (a zero within rounding of the circle, e.g.
    damped anti-PGD at ν = 1e-9) are refined by Newton's method in 60-digit arithmetic on the exact binary
    coefficients and decided there. No fixed tolerance: a zero at ``1 + 1e-12`` is outside, one at ``1`` is not.
    """
    roots = np.roots(beta[::-1])
    distance = np.abs(roots) - 1.0
    if np.any(distance <= -0.5):
        return False
    near = roots[distance < 0.5]  # the others are decided whatever their rounding (|z|^t would overflow)
    powers = np.abs(near)[:, None] ** np.arange(beta.size)[None, :]
    deriv = np.polynomial.polynomial.polyval(near, np.arange(1, beta.size) * beta[1:])
    with np.errstate(divide="ignore", invalid="ignore"):
        slack = 8 * beta.size * UNIT_ROUNDOFF * (powers @ np.abs(beta)) / np.abs(deriv)
    distance = np.abs(near) - 1.0
    if np.any(distance < -slack):
        return False
    undecided = near[~(distance > slack)]
    if undecided.size == 0:
        return True
    coeffs = [mpmath.mpf(float(x)) for x in beta[::-1]]
    with mpmath.workdps(60):
        try:
            refined = [mpmath.findroot(lambda x: mpmath.polyval(coeffs, x), mpmath.mpc(z), tol=mpmath.mpf(10) ** -50)
                       for z in undecided]
        except (ValueError, ZeroDivisionError):  # a multiple root stalls Newton: all roots at once instead
            refined = mpmath.polyroots(coeffs, maxsteps=500, extraprec=200)
        return all(abs(z) > 1 for z in refined)


def is_minimum_phase(beta: np.ndarray) -> bool:
    r"""Whether ``P(z) = Σ_t β_t z^t`` has no zero in the closed unit disk.

    This is the condition under which ``B⁻¹e_0 ∈ ℓ²`` and the frequency formula (5) for ``γ∞`` is the
    limit of ``γ_T`` (errata 004 §10.17; counterexample ``β = (1, −2)``, §8 #33). Decided without a fixed
    tolerance:

    * trailing taps below ``1e-15·max|β|`` are set aside when that is provably harmless (Rouché: they cannot
      move a zero across the circle if their ℓ¹ norm is below ``min_{|z|=1}|P|``), since they would wreck the
      conditioning of the companion matrix;
    * up to 256 remaining taps: companion-matrix roots, each compared with the circle against its own
      rounding error and refined in extended precision where that does not decide (:func:`_roots_outside_disk`);
    * longer, or where the tiny taps cannot be set aside: the argument principle on a uniform grid of the
      circle (winding number of ``P(e^{iω})``, grid refined until no phase step exceeds π/4), with a zero on
      the circle declared only when ``min|P|`` is below the rounding error of its FFT evaluation,
      ``4u·log₂M·Σ|β_t|``.

    Parameters
    ----------
    beta : array_like
        The coefficients ``β``, 1-D, not all zero.

    Returns
    -------
    bool
        Whether every zero of ``P`` lies strictly outside the closed unit disk.

    Raises
    ------
    ValueError
        If every entry of ``beta`` is zero.
    """
    beta = check_real_array("beta", beta)
    if not np.any(beta):
        raise ValueError("beta must have a nonzero entry (the zero polynomial has zeros everywhere)")
    keep = np.nonzero(np.abs(beta) > 1e-15 * np.max(np.abs(beta)))[0]
    head, dropped = beta[: keep[-1] + 1], float(np.sum(np.abs(beta[keep[-1] + 1 :])))
    if dropped > 0 and not dropped < _min_modulus_on_circle(head):
        return _winding_number_is_zero(beta)
    if head.size <= 1:
        return True
    if head.size <= 256:
        return _roots_outside_disk(head)
    return _winding_number_is_zero(head)


def _winding_number_is_zero(head: np.ndarray) -> bool:
    """The argument principle on the unit circle (see :func:`is_minimum_phase`). ``β`` is real, so ``P(e^{−iω})`` is
    the conjugate of ``P(e^{iω})``: the half circle ``0 ≤ ω ≤ π`` (one ``rfft``) carries every modulus and phase step,
    and the winding number is its phase change over π (``P(±1)`` are real)."""
    M = _next_pow2(16 * head.size)
    floor = 4 * UNIT_ROUNDOFF * float(np.sum(np.abs(head)))
    while True:
        P = sfft.rfft(head, M)  # P(e^{−iω_k}), ω_k = 2πk/M, k ≤ M/2
        if np.min(np.abs(P)) <= floor * math.log2(M):
            return False
        steps = np.angle(P[1:] * np.conj(P[:-1]))
        if np.max(np.abs(steps)) < np.pi / 4 or M >= _MAX_GRID:
            break
        M *= 2
    return int(round(np.sum(steps) / np.pi)) == 0


def _min_modulus_on_circle(beta: np.ndarray) -> float:
    """A lower bound on ``min_{|z|=1}|P(z)|``: the grid minimum less the Lipschitz slack ``(π/M)Σ t|β_t|``."""
    M = _next_pow2(max(8 * beta.size, 4096))
    return float(np.min(np.abs(sfft.rfft(beta, M)))) - math.pi / M * float(np.sum(np.arange(beta.size) * np.abs(beta)))
