r"""Frequency- and time-domain numerics shared by every Toeplitz mechanism (seed 004, App. F.1).

Conventions: the DTFT is ``B(ω) = Σ_t β_t e^{−iωt}`` (digest 004 §10.2: only ``|B(ω)|²`` is ever used, so
the sign of ω is immaterial), and a mean over ω means ``(1/2π)∫_{−π}^{π} · dω``.

Three primitives:

* :func:`periodic_mean` — the trapezoid rule on a uniform grid, doubled until it has converged. For a
  periodic analytic integrand its error decays geometrically in the grid size (it equals the aliasing
  sum), so it is an exact-to-rounding quadrature for every integrand of the paper away from ``|q| = 1``.
* :func:`series_inverse` — the first ``n`` coefficients of ``1/B(z)`` (the first column of ``B⁻¹``),
  by the recurrence ``lfilter`` for short ``β`` and by Newton's iteration with FFT products,
  ``O(n log n)``, for long ``β``.
* :func:`geometric_filter_energy` — the time-domain form of the pole integral (Lemma C.4 / F.12),
  ``(1/2π)∫|B(ω)|²/|1 − q e^{iω}|² dω = Σ_k y_k²`` with ``y = β * (1, q, q², …)``.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy import fft as sfft
from scipy.signal import lfilter

__all__ = [
    "periodic_mean",
    "series_inverse",
    "geometric_filter_energy",
    "is_minimum_phase",
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
    unit circle, e.g. ``ν`` or ``ηλ`` below ~1e-6).
    """
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


def series_inverse(beta: np.ndarray, n: int) -> np.ndarray:
    r"""First ``n`` coefficients of ``1/B(z)``, ``B(z) = Σ_t β_t z^t``: the first column of ``B⁻¹``.

    For lower-triangular Toeplitz ``B`` the inverse is lower-triangular Toeplitz (seed 004, App. A,
    footnote) with this first column. Cost ``O(len(β)·n)`` by the recurrence when ``β`` is short (≤ 64
    taps), else ``O(n log n)`` by Newton's iteration ``c ← c(2 − βc) mod z^{2m}`` with FFT products.
    Coefficients that overflow (a non-minimum-phase ``β``, whose inverse grows geometrically) come back
    as ``±inf``/``nan``; callers treat any non-finite entry as an infinite norm.
    """
    beta = np.asarray(beta, dtype=float)
    if n <= 0:
        return np.zeros(0)
    if beta.size <= 64 or n <= 256:
        impulse = np.zeros(n)
        impulse[0] = 1.0
        with np.errstate(over="ignore", invalid="ignore"):
            return lfilter([1.0], beta[: min(beta.size, n)], impulse)
    c = np.array([1.0 / beta[0]])
    m = 1
    with np.errstate(over="ignore", invalid="ignore"):
        while m < n:
            m2 = min(2 * m, n)
            L = sfft.next_fast_len(m2 + m, real=True)
            # residual r(z) = (β c − 1) / z^m, only its first m2 − m coefficients are needed
            C = sfft.rfft(c, L)
            r = sfft.irfft(sfft.rfft(beta[:m2], L) * C, L)[m:m2]
            corr = sfft.irfft(C * sfft.rfft(r, L), L)[: m2 - m]
            c = np.concatenate([c, -corr])
            m = m2
    return c


def geometric_filter_energy(beta: np.ndarray, q) -> np.ndarray:
    r"""``(1/2π)∫|B(ω)|²/|1 − q e^{iω}|² dω`` for a finite ``β`` and ``|q| < 1``, exactly, in time domain.

    ``y = β * (1, q, q², …)`` (the response of ``y_{k+1} = q y_k + β_{k+1}``) has energy ``Σ_k y_k²``
    (Parseval). Past the last tap ``y`` decays as ``q^j y_{n−1}``, contributing ``y_{n−1}² q²/(1 − q²)``.
    Equals ``⟨β, T_q β⟩/(1 − q²)`` of Lemma C.4 with ``q = 1 − ηλ``. Vectorised over ``q``.
    """
    beta = np.asarray(beta, dtype=float)
    qs = np.atleast_1d(np.asarray(q, dtype=float))
    out = np.empty(qs.shape)
    for i, qi in enumerate(qs):
        y = lfilter([1.0], [1.0, -qi], beta)
        out[i] = np.dot(y, y) + y[-1] ** 2 * qi**2 / (1.0 - qi**2)
    return out if np.ndim(q) else out[0]


def is_minimum_phase(beta: np.ndarray, *, tol: float = 1e-9) -> bool:
    r"""Whether ``P(z) = Σ_t β_t z^t`` has no zero in the closed unit disk (``|z| ≤ 1 + tol``).

    This is the condition under which ``B⁻¹e_0 ∈ ℓ²`` and the frequency formula (5) for ``γ∞`` is the
    limit of ``γ_T`` (digest 004 §10.17; counterexample ``β = (1, −2)``, §8 #33). Polynomials of ≤ 256 taps
    use the companion-matrix roots; longer ones the argument principle on a uniform grid of the circle
    (winding number of ``P(e^{iω})``, grid refined until no phase step exceeds π/4), with a zero on the
    circle declared when ``min|P| ≤ tol·max|P|``.
    """
    beta = np.asarray(beta, dtype=float)
    # Drop trailing taps below 1e-15·max|β|: by Rouché they cannot move a zero across the circle unless
    # it lies within ~1e-15 of it, and they would wreck the conditioning of the companion matrix.
    keep = np.nonzero(np.abs(beta) > 1e-15 * np.max(np.abs(beta)))[0]
    beta = beta[: keep[-1] + 1]
    if beta.size <= 1:
        return True
    if beta.size <= 256:
        return bool(np.all(np.abs(np.roots(beta[::-1])) > 1.0 + tol))
    M = _next_pow2(16 * beta.size)
    while True:
        P = sfft.ifft(beta, M) * M  # P(e^{+iω_k}), ω_k = 2πk/M
        mod = np.abs(P)
        if np.min(mod) <= tol * np.max(mod):
            return False
        steps = np.angle(np.roll(P, -1) / P)
        if np.max(np.abs(steps)) < np.pi / 4 or M >= _MAX_GRID:
            break
        M *= 2
    return int(round(np.sum(steps) / (2.0 * np.pi))) == 0
