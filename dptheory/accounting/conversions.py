r"""ρ-zCDP → (ε, δ): the three conversions a tree-aggregation paper needs, side by side, and their inverses.

Seed 000 (Kairouz et al. 2021) uses two conversions and the exact one is a third (errata 000 §2.11, §7 #7):

* ``"classic"`` — Bun & Steinke 2016, Prop. 1.3, ``ε = ρ + 2√(ρ ln(1/δ))`` (the minimum over all orders of
  ``αρ + ln(1/δ)/(α − 1)``); seed 000 used it for the federated tables (Tables 3–5). Delegates to
  :func:`~dptheory.accounting.zcdp.zcdp_to_epsilon` with ``method="bun_steinke"``.
* ``"improved"`` — the CKS / Asoodeh / Balle et al. 2020 Thm 21 conversion
  ``ε = min_α αρ + ln(1/δ)/(α − 1) + ln(1 − 1/α) − ln α/(α − 1)``, which is the formula of seed 004 App. A.2;
  seed 000 used it for the image tables (Tables 6–7). ``orders=None`` minimises over all real ``α > 1``
  (:func:`~dptheory.accounting.zcdp.zcdp_to_epsilon`, ``method="optimal"``). The authors computed it on the
  **finite grid** ``α ∈ {1.1, 1.2, …, 199.9}`` (their ``convert_gaussian_renyi_to_dp``, errata 000 §2.11);
  ``orders="paper"`` reproduces that grid (:data:`PAPER_ORDERS`), and any other sequence of orders > 1 may be
  given. A grid can only give a larger ε than the continuous minimum.
* ``"exact"`` — a ρ-zCDP **Gaussian** mechanism (every tree-aggregation release is one: adaptive composition
  of Gaussian node releases) is μ-GDP with ``μ = √(2ρ)``; its ε at δ is the exact Gaussian curve
  (:func:`~dptheory.accounting.gdp.gdp_epsilon`). Valid only for Gaussian mechanisms, not for an arbitrary
  ρ-zCDP mechanism; it is the smallest of the three.

For every ρ > 0 and δ ∈ (0, 1): ``classic ≥ improved ≥ exact`` and ``improved(grid) ≥ improved`` (tested); the
grid is also below classic unless the best order exceeds 199.9 (ρ tiny against ln(1/δ), e.g. ρ = 1e-4 at
δ = 1e-10, where the grid's ε is 0.104 and classic's 0.096).

>>> from dptheory.accounting import epsilon_from_rho
>>> rho = 11 / (2 * 2.33**2)          # seed 000 Table 4, DP-FTRLM at σ = 2.33, k = 11
>>> round(epsilon_from_rho(rho, delta=1e-6, conversion="classic"), 2)
8.5
>>> round(epsilon_from_rho(rho, delta=1e-6, conversion="exact"), 2) < 8.5
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.optimize import brentq

from .._validation import check_in_interval
from .gdp import gdp_epsilon, gdp_mu
from .zcdp import epsilon_to_zcdp, zcdp_to_epsilon

__all__ = ["CONVERSIONS", "PAPER_ORDERS", "epsilon_from_rho", "rho_from_epsilon", "sigma_for_epsilon"]

#: Names accepted by ``conversion=``.
CONVERSIONS = ("classic", "improved", "exact")

#: The Rényi orders on which seed 000's authors minimised the improved conversion: 1.1, 1.2, …, 199.9
#: (``np.arange(1, 200, 0.1)[1:]``), errata 000 §2.11.
PAPER_ORDERS = tuple(round(1.0 + i / 10, 1) for i in range(1, 1990))


def _check_conversion(conversion) -> str:
    if conversion not in CONVERSIONS:
        raise ValueError(f"conversion must be one of {CONVERSIONS}, got {conversion!r}")
    return conversion


def _check_orders(orders, conversion: str) -> np.ndarray | None:
    if orders is None:
        return None
    if conversion != "improved":
        raise ValueError(f"orders applies to conversion='improved' only, got orders={orders!r:.40} with conversion={conversion!r}")
    if isinstance(orders, str):
        if orders != "paper":
            raise ValueError(f"orders must be None, 'paper' or a sequence of orders > 1, got {orders!r}")
        return np.asarray(PAPER_ORDERS)
    arr = np.asarray(orders, dtype=float).ravel()
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 1.0):
        raise ValueError(f"orders must be a non-empty sequence of finite orders in (1, inf), got {orders!r:.80}")
    return arr


def _improved_on_grid(rho: float, delta: float, orders: np.ndarray) -> float:
    """Balle et al. 2020 Thm 21 minimised over ``orders`` (as seed 000's authors did), clipped below at 0."""
    a = orders
    vals = a * rho + (-math.log(delta) - np.log(a)) / (a - 1.0) + np.log1p(-1.0 / a)
    return max(float(np.min(vals)), 0.0)


#: the largest ρ the exact (μ-GDP) conversion takes: ε ≈ ρ + 2√ρ·z must stay well inside the float range
_RHO_MAX_EXACT = 1e300


def epsilon_from_rho(rho, *, delta, conversion: str = "improved", orders: str | Sequence[float] | None = None) -> float:
    """The ε at which ρ-zCDP (of a Gaussian mechanism, for ``"exact"``) gives ``(ε, δ)``-DP.

    Parameters
    ----------
    rho : float in [0, inf)
        The zCDP parameter ρ.
    delta : float in (0, 1)
        The target δ.
    conversion : {"classic", "improved", "exact"}, default "improved"
        See the module docstring (errata 000 §2.11).
    orders : None, "paper" or sequence of float, optional
        ``"improved"`` only: ``None`` (default) minimises over all α > 1; ``"paper"`` on seed 000's grid
        1.1 … 199.9; a sequence of orders > 1 on those orders.

    Returns
    -------
    float
        The ε (0 at ``ρ = 0``).

    Raises
    ------
    ValueError
        For an unknown ``conversion``, ``orders`` with a conversion other than ``"improved"``, malformed
        ``orders``, or ``rho``/``delta`` out of range.
    """
    conversion = _check_conversion(conversion)
    grid = _check_orders(orders, conversion)
    rho = check_in_interval("rho", rho, 0.0, math.inf, lo_closed=True)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    if conversion == "classic":
        return zcdp_to_epsilon(rho, delta=delta, method="bun_steinke")
    if conversion == "exact":
        if rho > _RHO_MAX_EXACT:
            raise ValueError(f"rho must lie in [0, {_RHO_MAX_EXACT:g}] for conversion='exact' (μ = √(2ρ) must stay "
                             f"finite and ε = ρ + μ·z below the largest float), got {rho!r}")
        return 0.0 if rho == 0.0 else gdp_epsilon(math.sqrt(2.0 * rho), delta=delta)
    if grid is None:
        return zcdp_to_epsilon(rho, delta=delta, method="optimal")
    return _improved_on_grid(rho, delta, grid)


def rho_from_epsilon(epsilon, *, delta, conversion: str = "improved", orders: str | Sequence[float] | None = None) -> float:
    """The largest ρ with ``epsilon_from_rho(ρ, delta=δ, conversion=…) ≤ ε`` (each map increases in ρ).

    ``"classic"`` and continuous ``"improved"`` invert through :func:`~dptheory.accounting.zcdp.epsilon_to_zcdp`,
    ``"exact"`` through :func:`~dptheory.accounting.gdp.gdp_mu` (``ρ = μ²/2``); an order grid by root finding
    (``brentq`` on ``ln ρ``).

    Parameters
    ----------
    epsilon : float in (0, inf)
        The target ε.
    delta : float in (0, 1)
        The target δ.
    conversion : {"classic", "improved", "exact"}, default "improved"
        The conversion to invert (see :func:`epsilon_from_rho`).
    orders : None, "paper" or sequence of float, optional
        ``"improved"`` only: the Rényi orders, as in :func:`epsilon_from_rho`.

    Returns
    -------
    float
        The largest ρ whose ε under ``conversion`` is at most ``epsilon``.
    """
    conversion = _check_conversion(conversion)
    grid = _check_orders(orders, conversion)
    epsilon = check_in_interval("epsilon", epsilon, 0.0, math.inf)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    if conversion == "classic":
        return epsilon_to_zcdp(epsilon, delta=delta, method="bun_steinke")
    if conversion == "exact":
        rho = 0.5 * gdp_mu(epsilon, delta=delta) ** 2
        while epsilon_from_rho(rho, delta=delta, conversion="exact") > epsilon:  # the root may be a few ulps over
            rho *= 1.0 - 1e-13
        return rho
    if grid is None:
        return epsilon_to_zcdp(epsilon, delta=delta, method="optimal")
    # the grid's ε is >= the continuous one, so the continuous ρ is an upper end; Bun–Steinke's is below both
    # unless the grid is coarse, so step the lower end down until feasible
    hi = epsilon_to_zcdp(epsilon, delta=delta, method="optimal")
    lo = epsilon_to_zcdp(epsilon, delta=delta, method="bun_steinke")
    while _improved_on_grid(lo, delta, grid) > epsilon:
        lo /= 2.0
    if _improved_on_grid(hi, delta, grid) <= epsilon:
        return hi
    log_rho = brentq(lambda u: _improved_on_grid(math.exp(u), delta, grid) - epsilon, math.log(lo), math.log(hi),
                     xtol=1e-14, rtol=1e-14)
    rho = math.exp(log_rho)
    while _improved_on_grid(rho, delta, grid) > epsilon:  # brentq may land a few ulps on the infeasible side
        rho *= 1.0 - 1e-15
    return rho


def sigma_for_epsilon(epsilon, *, delta, sensitivity_sq, conversion: str = "improved",
                      orders: str | Sequence[float] | None = None) -> float:
    """The smallest noise multiplier σ of a Gaussian mechanism that meets ``(ε, δ)`` under ``conversion``.

    The mechanism has squared sensitivity ``sensitivity_sq`` (in units of the clip norm, so ``ρ = S²/(2σ²)``);
    ``σ = √(S²/(2ρ*))`` with ρ* from :func:`rho_from_epsilon`.

    Parameters
    ----------
    epsilon : float in (0, inf)
        The target ε.
    delta : float in (0, 1)
        The target δ.
    sensitivity_sq : float in (0, inf)
        The squared sensitivity ``S²`` in units of the clip norm.
    conversion : {"classic", "improved", "exact"}, default "improved"
        The ρ-zCDP → (ε, δ) conversion (see :func:`epsilon_from_rho`).
    orders : None, "paper" or sequence of float, optional
        ``"improved"`` only: the Rényi orders, as in :func:`epsilon_from_rho`.

    Returns
    -------
    float
        The noise multiplier σ.

    Notes
    -----
    A tree over n steps has ``S² = ⌊lg n⌋ + 1`` (errata 000 §2.11); e.g. n = 1024, δ = 1e-5, ε = 1, classic:
    σ = 16.253 (errata 000 §5 #24).
    """
    s2 = check_in_interval("sensitivity_sq", sensitivity_sq, 0.0, math.inf)
    rho = rho_from_epsilon(epsilon, delta=delta, conversion=conversion, orders=orders)
    return math.sqrt(s2 / (2.0 * rho))
