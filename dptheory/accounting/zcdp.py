"""zCDP noise calibration and zCDP -> (epsilon, delta) conversion.

Every function takes its first argument positionally and the others by keyword only
(``zcdp_to_epsilon(rho, delta=1e-5)``), so that two numbers of the same kind cannot be swapped.

Equations encoded here:

* seed 004, Thm 1.1 (Denisov et al. 2022; Bun & Steinke 2016): DP-FTRL with noise-correlation matrix ``B``
  and clip norm ``G`` is ``rho``-zCDP when the noise multiplier is ``sigma_dp = gamma(B) / sqrt(2 rho)``,
  where ``gamma(B)`` is the sensitivity of ``B`` (max column norm of ``B^{-1}``).
* seed 004, App. A.2 (Balle et al. 2020, Thm 21): ``rho``-zCDP implies ``(eps, delta)``-DP with
  ``eps = inf_{alpha > 1} [ rho*alpha + log(1/(alpha*delta))/(alpha-1) + log(1 - 1/alpha) ]``.
* Bun & Steinke 2016, Prop. 1.3: ``rho``-zCDP implies ``(rho + 2 sqrt(rho log(1/delta)), delta)``-DP.

Notes on the "optimal" conversion (derived here, checked in ``tests/test_accounting.py``).  Write
``L = log(1/delta) > 0`` and ``x = alpha - 1 > 0``.  The objective is

    f(x) = rho*(1 + x) + (L - log(1 + x)) / x + log(x / (1 + x)),

and its derivative simplifies (the two ``1/(alpha(alpha-1))`` terms cancel) to

    f'(x) = rho - (L - log(1 + x)) / x**2.

So ``f'(x) = 0`` iff ``g(x) = rho*x**2 + log(1 + x) - L = 0``; ``g`` is strictly increasing with
``g(0) = -L < 0``, so the stationary point is unique and is the global minimiser (``f`` decreases before
it and increases after it; ``f`` is convex on ``(0, 1/delta - 1]``, which contains it, but not on all of
``(0, inf)``).  We find the root of ``g`` by bracketing on ``log x``, which stays well scaled for
``rho`` from ``1e-300`` to ``1e300`` and ``delta`` down to the smallest subnormal, since only
``L = -log(delta)`` ever enters.

Since ``rho*alpha >= rho`` and the rest of the objective is minimised (over ``alpha``, at ``rho = 0``) at
``alpha = 1/delta`` with value ``log(1 - delta)``, the infimum is ``>= rho + log(1 - delta)``; this gives
the upper bracket when inverting.  For small ``rho`` the infimum is negative (as ``rho -> 0`` it tends
to ``log(1 - delta)``).  A negative epsilon says no more than ``epsilon = 0``, so the result is
reported as ``max(infimum, 0)``: ``zcdp_to_epsilon(rho, delta=delta) == 0`` for ``rho`` below a threshold
(about ``1.36e-10`` at ``delta = 1e-5``, ``0.386`` at ``delta = 0.5``), and for ``rho = 0``.
"""

from __future__ import annotations

import math
import sys

from scipy.optimize import brentq

from .._validation import check_in_interval, check_real_values

__all__ = [
    "CONVERSION_METHODS",
    "noise_multiplier",
    "zcdp_to_epsilon",
    "epsilon_to_zcdp",
    "noise_multiplier_for",
]

#: Names accepted by the ``method`` argument of the conversion functions.
CONVERSION_METHODS = ("optimal", "bun_steinke")

_INF = math.inf
_MACH_EPS = sys.float_info.epsilon
_TINY = sys.float_info.min  # smallest positive normal double


# --------------------------------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------------------------------


def _check_method(method) -> str:
    if method not in CONVERSION_METHODS:
        allowed = ", ".join(repr(m) for m in CONVERSION_METHODS)
        raise ValueError(f"method must be one of {allowed}, got {method!r}")
    return method


def _check_sensitivity(sensitivity) -> float:
    """Sensitivity lies in ``(0, inf]``; ``inf`` is allowed (it gives an infinite noise multiplier)."""
    x = check_real_values("sensitivity", sensitivity, 0.0, _INF, hi_closed=True)
    if x.ndim != 0:
        raise ValueError(f"sensitivity must be a real number, got an array of shape {x.shape}")
    return float(x)


def _check_rho(rho, *, allow_zero: bool) -> float:
    return check_in_interval("rho", rho, 0.0, _INF, lo_closed=allow_zero)


def _check_delta(delta) -> float:
    return check_in_interval("delta", delta, 0.0, 1.0)


def _check_epsilon(epsilon) -> float:
    return check_in_interval("epsilon", epsilon, 0.0, _INF)


# --------------------------------------------------------------------------------------------------
# the two conversions, on validated floats
# --------------------------------------------------------------------------------------------------


def _log1p_exp(u: float) -> float:
    """``log(1 + e^u)`` without overflow."""
    return u + math.log1p(math.exp(-u)) if u > 0 else math.log1p(math.exp(u))


def _log_optimal_order_minus_one(log_rho: float, log_inv_delta: float) -> float:
    """Return ``u* = log(alpha* - 1)``, where ``x* = alpha* - 1`` is the unique root of
    ``g(x) = rho x^2 + log(1 + x) - log(1/delta)``.

    ``g(x) = 0`` is the stationarity condition of the seed 004, App. A.2 objective (module docstring).
    Everything is done in ``u = log x`` so that neither ``x`` nor ``rho x^2`` is ever formed when they
    could overflow (``delta`` subnormal, ``rho`` near the float limits).
    """
    L = log_inv_delta
    log_L = math.log(L)
    # Bracket.  At x_lo = min(L/2, sqrt(L/(2 rho)))/2: rho x^2 <= L/8 and log1p(x) <= x <= L/4, so g < 0.
    # At x_hi = min(sqrt(2L/rho), e^(2L) - 1): rho x^2 >= 2L or log1p(x) >= 2L, so g > 0 (the factor 2
    # keeps the sign right despite rounding).
    log_2 = math.log(2.0)
    u_lo = -log_2 + min(log_L - log_2, 0.5 * (log_L - log_2 - log_rho))
    u_hi = min(0.5 * (log_L + log_2 - log_rho), 2.0 * L + math.log(-math.expm1(-2.0 * L)))

    def g(u: float) -> float:
        return math.exp(min(log_rho + 2.0 * u, 700.0)) + _log1p_exp(u) - L

    return brentq(g, u_lo, u_hi, xtol=1e-15, rtol=4 * _MACH_EPS, maxiter=200)


def _balle_objective(rho: float, log_inv_delta: float, u: float) -> float:
    """seed 004, App. A.2 objective at ``alpha = 1 + e^u``:
    ``rho*alpha + log(1/(alpha*delta))/(alpha-1) + log(1 - 1/alpha)``."""
    rho_x = math.exp(math.log(rho) + u)
    log_alpha = _log1p_exp(u)
    # log(1 - 1/alpha) = log(x / (1 + x)) = -log1p(1/x): no cancellation for large alpha.
    return rho + rho_x + (log_inv_delta - log_alpha) * math.exp(-u) - math.log1p(math.exp(-u))


def _eps_optimal(rho: float, delta: float) -> float:
    """seed 004, App. A.2 (Balle et al. 2020, Thm 21), clipped below at 0."""
    if rho == 0.0:
        return 0.0
    L = -math.log(delta)
    u = _log_optimal_order_minus_one(math.log(rho), L)
    return max(_balle_objective(rho, L, u), 0.0)


def _eps_bun_steinke(rho: float, delta: float) -> float:
    """Bun & Steinke 2016, Prop. 1.3: ``eps = rho + 2 sqrt(rho log(1/delta))``."""
    return rho + 2.0 * math.sqrt(rho * -math.log(delta))


def _rho_bun_steinke(epsilon: float, delta: float) -> float:
    """Inverse of Bun & Steinke 2016, Prop. 1.3:
    ``sqrt(rho) = sqrt(log(1/delta) + eps) - sqrt(log(1/delta))``.

    Written as ``eps / (sqrt(L + eps) + sqrt(L))`` to avoid cancellation when ``eps << L``.
    """
    L = -math.log(delta)
    s = epsilon / (math.sqrt(L + epsilon) + math.sqrt(L))
    return s * s


def _largest_feasible_below(rho: float, epsilon: float, delta: float) -> float:
    """Step ``rho`` down by relative amounts eps_mach, 2 eps_mach, 4 eps_mach, ... until
    ``eps_delta(rho) <= epsilon`` (absorbs rounding in the last few ulps)."""
    step = _MACH_EPS
    while _eps_optimal(rho, delta) > epsilon:
        rho *= 1.0 - step
        step *= 2.0
    return rho


def _rho_optimal(epsilon: float, delta: float) -> float:
    """Largest ``rho`` with seed 004, App. A.2 ``eps_delta(rho) <= epsilon`` (the map is increasing)."""
    # Lower end: the optimal conversion is never worse than Bun-Steinke, so the Bun-Steinke rho is
    # feasible (up to rounding, which the step-down absorbs).
    lo = _rho_bun_steinke(epsilon, delta)
    if lo < _TINY:  # Bun-Steinke rho underflows; the optimal one may still be representable
        lo = _TINY
        if _eps_optimal(lo, delta) > epsilon:
            raise ValueError(
                f"epsilon={epsilon:g} is too small: the admissible rho underflows double precision"
            )
    lo = _largest_feasible_below(lo, epsilon, delta)
    # Upper end: rho*alpha >= rho and the rest of the objective is >= its inf at rho = 0, attained at
    # alpha = 1/delta, which is log(1 - delta); so eps_delta(rho) >= rho + log(1 - delta).
    hi = max(epsilon - math.log1p(-delta), lo)
    while _eps_optimal(hi, delta) < epsilon:  # only rounding can make the bound fail; double then
        hi *= 2.0

    def h(log_rho: float) -> float:
        return _eps_optimal(math.exp(log_rho), delta) - epsilon

    # Widen the bracket by 1e-9 relative so that rounding in exp(log(.)) cannot flip the end signs.
    log_rho = brentq(
        h, math.log(lo) - 1e-9, math.log(hi) + 1e-9, xtol=1e-14, rtol=4 * _MACH_EPS, maxiter=500
    )
    # brentq returns a point within tolerance of the root, possibly on the infeasible side.
    return _largest_feasible_below(math.exp(log_rho), epsilon, delta)


# --------------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------------


def noise_multiplier(sensitivity, *, rho) -> float:
    """Noise multiplier ``sigma_dp = sensitivity / sqrt(2 rho)`` giving ``rho``-zCDP.

    seed 004, Thm 1.1 (Denisov et al. 2022; Bun & Steinke 2016): DP-FTRL with correlation matrix ``B``
    (clipping on) is ``rho``-zCDP when ``sigma_dp = gamma(B) / sqrt(2 rho)``, ``gamma(B)`` the
    sensitivity of ``B``.  The added noise has standard deviation ``G * sigma_dp`` per coordinate.

    Parameters
    ----------
    sensitivity : float in (0, inf]
        ``gamma(B)``; ``inf`` (an unbounded-sensitivity ``B``) gives ``math.inf``.
    rho : float in (0, inf)
        zCDP parameter.

    Returns
    -------
    float
        ``sigma_dp``, ``math.inf`` for an infinite ``sensitivity``.
    """
    rho = _check_rho(rho, allow_zero=False)
    gamma = _check_sensitivity(sensitivity)
    if gamma == _INF:
        return _INF
    return gamma / math.sqrt(2.0 * rho)


def zcdp_to_epsilon(rho, *, delta, method: str = "optimal") -> float:
    """The ``epsilon`` such that ``rho``-zCDP implies ``(epsilon, delta)``-DP.

    ``method="optimal"``: seed 004, App. A.2 (Balle et al. 2020, Thm 21),
    ``eps = inf_{alpha>1} [rho*alpha + log(1/(alpha*delta))/(alpha-1) + log(1 - 1/alpha)]``, evaluated
    at the unique stationary point ``rho (alpha-1)^2 + log(alpha) = log(1/delta)``, and reported as
    ``max(eps, 0)`` (the infimum is negative for tiny ``rho``).

    ``method="bun_steinke"``: Bun & Steinke 2016, Prop. 1.3, ``eps = rho + 2 sqrt(rho log(1/delta))``.

    Parameters
    ----------
    rho : float in [0, inf)
        The zCDP parameter.
    delta : float in (0, 1)
        The target ``delta``.
    method : {"optimal", "bun_steinke"}, default "optimal"
        The conversion (see above).

    Returns
    -------
    float
        ``epsilon >= 0``.
    """
    method = _check_method(method)
    rho = _check_rho(rho, allow_zero=True)
    delta = _check_delta(delta)
    if method == "optimal":
        return _eps_optimal(rho, delta)
    return _eps_bun_steinke(rho, delta)


def epsilon_to_zcdp(epsilon, *, delta, method: str = "optimal") -> float:
    """The largest ``rho`` such that ``rho``-zCDP implies ``(epsilon, delta)``-DP under ``method``.

    ``method="optimal"``: inverts seed 004, App. A.2 (Balle et al. 2020, Thm 21) by bracketing and
    ``brentq`` on ``log rho`` (the map ``rho -> eps`` is strictly increasing where positive; its
    derivative is ``alpha* > 1``); the result satisfies ``zcdp_to_epsilon(rho, delta=delta) <= epsilon`` and
    is within ~1e-14 relative of the largest such ``rho``.

    ``method="bun_steinke"``: closed-form inverse of Bun & Steinke 2016, Prop. 1.3,
    ``sqrt(rho) = sqrt(log(1/delta) + eps) - sqrt(log(1/delta))``.

    Parameters
    ----------
    epsilon : float in (0, inf)
        The target ``epsilon``.
    delta : float in (0, 1)
        The target ``delta``.
    method : {"optimal", "bun_steinke"}, default "optimal"
        The conversion to invert (see above).

    Returns
    -------
    float
        The largest admissible ``rho``.

    Raises
    ------
    ValueError
        If that ``rho`` is below the smallest normal double (only for absurdly small ``epsilon``, e.g. 1e-200).
    """
    method = _check_method(method)
    epsilon = _check_epsilon(epsilon)
    delta = _check_delta(delta)
    if method == "optimal":
        return _rho_optimal(epsilon, delta)
    return _rho_bun_steinke(epsilon, delta)


def noise_multiplier_for(
    sensitivity, *, rho=None, epsilon=None, delta=None, method: str = "optimal"
) -> float:
    """Noise multiplier ``sigma_dp`` for a privacy target stated as ``rho`` or as ``(epsilon, delta)``.

    With ``rho``: seed 004, Thm 1.1, ``sigma_dp = sensitivity / sqrt(2 rho)``.  With
    ``(epsilon, delta)``: first the largest admissible ``rho`` (seed 004, App. A.2 via
    :func:`epsilon_to_zcdp`, or Bun & Steinke 2016, Prop. 1.3 with ``method="bun_steinke"``), then
    seed 004, Thm 1.1.

    Parameters
    ----------
    sensitivity : float in (0, inf]
        ``gamma(B)``; ``inf`` gives ``math.inf``.
    rho : float in (0, inf), optional
        The target as ``rho``-zCDP.
    epsilon : float in (0, inf), optional
        The target's ``epsilon``, given with ``delta``.
    delta : float in (0, 1), optional
        The target's ``delta``, given with ``epsilon``.
    method : {"optimal", "bun_steinke"}, default "optimal"
        The conversion used for an ``(epsilon, delta)`` target.

    Returns
    -------
    float
        ``sigma_dp``.

    Raises
    ------
    ValueError
        Unless exactly one of the two forms is given (``rho``, or both ``epsilon`` and ``delta``).
    """
    method = _check_method(method)
    by_rho = rho is not None
    by_eps = epsilon is not None or delta is not None
    if by_rho == by_eps:
        raise ValueError(
            "state the privacy target in exactly one form: rho=... or (epsilon=..., delta=...); "
            f"got rho={rho!r}, epsilon={epsilon!r}, delta={delta!r}"
        )
    if by_eps and (epsilon is None or delta is None):
        raise ValueError(
            "an (epsilon, delta) target needs both epsilon and delta; "
            f"got epsilon={epsilon!r}, delta={delta!r}"
        )
    if by_eps:
        rho = epsilon_to_zcdp(epsilon, delta=delta, method=method)
    return noise_multiplier(sensitivity, rho=rho)
