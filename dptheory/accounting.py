"""Privacy accounting: zCDP noise calibration and zCDP -> (epsilon, delta) conversion.

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

For very small ``rho`` the infimum is negative (as ``rho -> 0`` it tends to ``log(1 - delta)``).  A
negative epsilon carries no more meaning than ``epsilon = 0`` here, so the result is reported as
``max(inf, 0)``; ``zcdp_to_epsilon(0, delta) == 0``.
"""

from __future__ import annotations

import math
import sys

from scipy.optimize import brentq

from ._validation import check_in_interval

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
    try:
        x = float(sensitivity)
    except (TypeError, ValueError):
        raise ValueError(f"sensitivity must be a real number, got {sensitivity!r}") from None
    if x == _INF:
        return x
    return check_in_interval("sensitivity", x, 0.0, _INF, hi_closed=True)


def _check_rho(rho, *, allow_zero: bool) -> float:
    return check_in_interval("rho", rho, 0.0, _INF, lo_closed=allow_zero)


def _check_delta(delta) -> float:
    return check_in_interval("delta", delta, 0.0, 1.0)


def _check_epsilon(epsilon) -> float:
    return check_in_interval("epsilon", epsilon, 0.0, _INF)


# --------------------------------------------------------------------------------------------------
# the two conversions, on validated floats
# --------------------------------------------------------------------------------------------------


def _optimal_order_minus_one(rho: float, log_inv_delta: float) -> float:
    """Return ``x* = alpha* - 1``, the unique root of ``rho x^2 + log(1+x) = log(1/delta)`` (rho > 0).

    The stationarity condition of the seed 004, App. A.2 objective (see the module docstring).
    """
    L = log_inv_delta
    # Bracket: at x_lo both rho x^2 <= L/8 and log1p(x) <= x <= L/4, so g(x_lo) < 0;
    # at x_hi either rho x^2 >= L or log1p(x) >= L, so g(x_hi) >= 0.
    x_lo = 0.5 * min(0.5 * L, math.sqrt(0.5 * L / rho))
    x_hi = min(math.sqrt(L / rho), math.expm1(L))

    def g(u: float) -> float:
        x = math.exp(u)
        return rho * x * x + math.log1p(x) - L

    u = brentq(g, math.log(x_lo), math.log(x_hi), xtol=1e-15, rtol=4 * _MACH_EPS, maxiter=200)
    return math.exp(u)


def _balle_objective(rho: float, log_inv_delta: float, x: float) -> float:
    """seed 004, App. A.2 objective at ``alpha = 1 + x``:
    ``rho*alpha + log(1/(alpha*delta))/(alpha-1) + log(1 - 1/alpha)``."""
    # log(1 - 1/alpha) = log(x / (1 + x)) = -log1p(1/x): no cancellation for large alpha.
    return rho * (1.0 + x) + (log_inv_delta - math.log1p(x)) / x - math.log1p(1.0 / x)


def _eps_optimal(rho: float, delta: float) -> float:
    """seed 004, App. A.2 (Balle et al. 2020, Thm 21), clipped below at 0."""
    if rho == 0.0:
        return 0.0
    L = -math.log(delta)
    x = _optimal_order_minus_one(rho, L)
    return max(_balle_objective(rho, L, x), 0.0)


def _eps_bun_steinke(rho: float, delta: float) -> float:
    """Bun & Steinke 2016, Prop. 1.3: ``eps = rho + 2 sqrt(rho log(1/delta))``."""
    return rho + 2.0 * math.sqrt(rho * -math.log(delta))


def _rho_bun_steinke(epsilon: float, delta: float) -> float:
    """Inverse of Bun & Steinke 2016, Prop. 1.3: ``sqrt(rho) = sqrt(log(1/delta) + eps) - sqrt(log(1/delta))``.

    Written as ``eps / (sqrt(L + eps) + sqrt(L))`` to avoid cancellation when ``eps << L``.
    """
    L = -math.log(delta)
    s = epsilon / (math.sqrt(L + epsilon) + math.sqrt(L))
    return s * s


def _rho_optimal(epsilon: float, delta: float) -> float:
    """Largest ``rho`` with seed 004, App. A.2 ``eps_delta(rho) <= epsilon`` (the map is increasing)."""
    # The optimal conversion is never worse than Bun-Steinke, so the Bun-Steinke rho is feasible.
    lo = _rho_bun_steinke(epsilon, delta)
    hi = 2.0 * lo
    for _ in range(2100):  # at most ~2^2100 growth: far beyond the float range, so it never runs out
        if _eps_optimal(hi, delta) >= epsilon:
            break
        lo, hi = hi, 2.0 * hi
    else:  # pragma: no cover - unreachable for finite epsilon
        raise RuntimeError("could not bracket rho")

    def h(log_rho: float) -> float:
        return _eps_optimal(math.exp(log_rho), delta) - epsilon

    log_rho = brentq(h, math.log(lo), math.log(hi), xtol=1e-14, rtol=4 * _MACH_EPS, maxiter=500)
    rho = math.exp(log_rho)
    # brentq returns a point within tolerance of the root, possibly on the infeasible side: step down
    # by relative amounts eps_mach, 2 eps_mach, 4 eps_mach, ... until eps_delta(rho) <= epsilon.
    step = _MACH_EPS
    while _eps_optimal(rho, delta) > epsilon:
        rho *= 1.0 - step
        step *= 2.0
    return rho


# --------------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------------


def noise_multiplier(sensitivity, rho) -> float:
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
    """
    rho = _check_rho(rho, allow_zero=False)
    gamma = _check_sensitivity(sensitivity)
    if gamma == _INF:
        return _INF
    return gamma / math.sqrt(2.0 * rho)


def zcdp_to_epsilon(rho, delta, *, method: str = "optimal") -> float:
    """The ``epsilon`` such that ``rho``-zCDP implies ``(epsilon, delta)``-DP.

    ``method="optimal"``: seed 004, App. A.2 (Balle et al. 2020, Thm 21),
    ``eps = inf_{alpha>1} [rho*alpha + log(1/(alpha*delta))/(alpha-1) + log(1 - 1/alpha)]``, evaluated
    at the unique stationary point ``rho (alpha-1)^2 + log(alpha) = log(1/delta)``, and reported as
    ``max(eps, 0)`` (the infimum is negative for tiny ``rho``).

    ``method="bun_steinke"``: Bun & Steinke 2016, Prop. 1.3, ``eps = rho + 2 sqrt(rho log(1/delta))``.

    Parameters
    ----------
    rho : float in [0, inf)
    delta : float in (0, 1)
    method : {"optimal", "bun_steinke"}
    """
    method = _check_method(method)
    rho = _check_rho(rho, allow_zero=True)
    delta = _check_delta(delta)
    if method == "optimal":
        return _eps_optimal(rho, delta)
    return _eps_bun_steinke(rho, delta)


def epsilon_to_zcdp(epsilon, delta, *, method: str = "optimal") -> float:
    """The largest ``rho`` such that ``rho``-zCDP implies ``(epsilon, delta)``-DP under ``method``.

    ``method="optimal"``: inverts seed 004, App. A.2 (Balle et al. 2020, Thm 21) by bracketing and
    ``brentq`` on ``log rho`` (the map ``rho -> eps`` is strictly increasing where positive; its
    derivative is ``alpha* > 1``); the result satisfies ``zcdp_to_epsilon(rho, delta) <= epsilon``.

    ``method="bun_steinke"``: closed-form inverse of Bun & Steinke 2016, Prop. 1.3,
    ``sqrt(rho) = sqrt(log(1/delta) + eps) - sqrt(log(1/delta))``.

    Parameters
    ----------
    epsilon : float in (0, inf)
    delta : float in (0, 1)
    method : {"optimal", "bun_steinke"}
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
    seed 004, Thm 1.1.  Give exactly one of the two forms, else ``ValueError``.
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
        rho = epsilon_to_zcdp(epsilon, delta, method=method)
    return noise_multiplier(sensitivity, rho)
