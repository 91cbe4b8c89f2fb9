r"""The closed-form DP-SGD guarantee of seed 001 (van Dijk et al., *Proactive DP*, ICML 2024).

Notation (``docs/notation.md``): ``N`` local data-set size, ``s_i`` sample size of round ``i``, ``T`` rounds,
``K = Σ s_i = kN`` gradient computations (``k`` epochs), ``s̄ = K/T``, ``θ = s_max/s̄``, ``L = ln(1/δ)``,
``x = εN/K = ε/k`` and ``ᾱ = x/γ``. Sampling in the analysis is Poisson with rate ``s_i/N`` and the
neighbouring relation is add/remove one record (seed 001, footnotes 5 and 14).

Equations encoded here, one function each:

* eq. (6): ``σ(ε, δ) = √(2(ε + L)/ε)`` and its inverse ``ε(σ, δ) = 2L/(σ² − 2)`` (App. D.4 step 1);
* the legacy ``σ = √(2L/ε)`` that Tables 3–8 actually use (errata 001 §9.2);
* eq. (54) ``h(x) = (√(1 + (e/x)²) − e/x)²`` and Thm B.4's ``g(x) = min{1/(ex), h(x)}``;
* eq. (55): the right-hand side ``RHS(γ)`` whose smallest fixed point is ``γ``, in the printed form
  (``variant="paper"``) and the corrected form (default; see :func:`gamma_rhs`), the smallest root
  :func:`gamma_min`, the one-step value :func:`gamma_one_step` that the paper's calculators return, and the
  expansion :func:`gamma_linear`;
* eq. (8) ``T_min = γθ²k²/ε``, ``s_max = kN/T_min``, App. C.2's ``T_min,asym = θ²k²/(2ε)`` and
  ``s_max,asym``.

>>> round(sigma_from_eps(0.5, 1e-4), 4)        # Thm 3.1 at ε = 0.5, N = 10⁴ (errata 001 §7 #1)
6.2323
>>> round(eps_from_sigma(19.29962, 1e-4), 6)   # Table 9's ε_target
0.049722
>>> round(gamma_one_step(19.29962, 0.049722 / 5, variant="paper"), 4)   # Table 9's γ
3.815
"""

from __future__ import annotations

import math

from scipy.optimize import brentq

from .._validation import check_in_interval, check_variant

__all__ = [
    "sigma_from_eps",
    "eps_from_sigma",
    "legacy_sigma_from_eps",
    "legacy_eps_from_sigma",
    "h",
    "g",
    "rhs55",
    "gamma_rhs",
    "gamma_domain",
    "gamma_min",
    "gamma_one_step",
    "gamma_linear",
    "gamma",
    "GAMMA_READINGS",
    "check_reading",
    "T_min",
    "T_min_asym",
    "s_max",
    "s_max_asym",
]

E = math.e
#: ``gamma=`` readings of eq. (55): the one-step value the paper's calculators return, or the smallest root.
GAMMA_READINGS = ("paper", "min")


def _log_inv_delta(delta) -> float:
    return -math.log(check_in_interval("delta", delta, 0.0, 1.0))


def sigma_from_eps(eps, delta) -> float:
    """Noise multiplier of eq. (6), ``σ = √(2(ε + ln(1/δ))/ε)`` (Thm 3.1; also (35), (42), (62)).

    The abstract and App. E print ``√(2(ε + ln(1/δ)))/ε``; that placement gives σ ≈ 86 at ε = 0.05 and
    contradicts every table (errata 001 §9.1), so the form of eq. (6) is the only one implemented.

    Parameters
    ----------
    eps : float in (0, inf)
        Privacy parameter ε.
    delta : float in (0, 1)
        The δ of (ε, δ)-DP; ``ln(1/δ)`` enters the formula.

    Returns
    -------
    float
        The noise multiplier σ of eq. (6).

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    eps = check_in_interval("eps", eps, 0.0)
    return math.sqrt(2.0 * (eps + _log_inv_delta(delta)) / eps)


def eps_from_sigma(sigma, delta) -> float:
    """Inverse of eq. (6): ``ε = 2 ln(1/δ)/(σ² − 2)``.

    This is App. D.4 step 1; it needs ``σ² > 2``.

    Parameters
    ----------
    sigma : float
        Noise multiplier σ, with ``σ² > 2``.
    delta : float in (0, 1)
        The δ of (ε, δ)-DP; ``ln(1/δ)`` enters the formula.

    Returns
    -------
    float
        The ε that eq. (6) certifies at ``σ``.

    Raises
    ------
    ValueError
        If ``σ² ≤ 2`` (eq. (6) has no finite ε), or an argument lies outside its range.
    """
    sigma = check_in_interval("sigma", sigma, 0.0)
    if sigma * sigma <= 2.0:
        raise ValueError(
            f"sigma must satisfy sigma**2 > 2 (eq. (6) has no finite eps for sigma <= sqrt(2) = 1.41421), got {sigma:g}"
        )
    return 2.0 * _log_inv_delta(delta) / (sigma * sigma - 2.0)


def legacy_sigma_from_eps(eps, delta) -> float:
    """``σ = √(2 ln(1/δ)/ε)``: the older formula behind Tables 3–8 (no ``+ε``; errata 001 §9.2).

    For the printed σ it certifies less than eq. (6) does: e.g. Table 3's σ = 19.29962 is printed with
    ε = 0.04945, while eq. (6) certifies only ε = 0.049722 at that σ.

    Parameters
    ----------
    eps : float in (0, inf)
        Privacy parameter ε.
    delta : float in (0, 1)
        The δ of (ε, δ)-DP; ``ln(1/δ)`` enters the formula.

    Returns
    -------
    float
        The legacy noise multiplier ``√(2 ln(1/δ)/ε)``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    eps = check_in_interval("eps", eps, 0.0)
    return math.sqrt(2.0 * _log_inv_delta(delta) / eps)


def legacy_eps_from_sigma(sigma, delta) -> float:
    """Inverse of :func:`legacy_sigma_from_eps`: ``ε = 2 ln(1/δ)/σ²`` (Tables 3–5's ε).

    Parameters
    ----------
    sigma : float in (0, inf)
        Noise multiplier σ.
    delta : float in (0, 1)
        The δ of (ε, δ)-DP; ``ln(1/δ)`` enters the formula.

    Returns
    -------
    float
        The legacy ε, ``2 ln(1/δ)/σ²``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    sigma = check_in_interval("sigma", sigma, 0.0)
    return 2.0 * _log_inv_delta(delta) / (sigma * sigma)


def h(x) -> float:
    """eq. (54): ``h(x) = (√(1 + (e/x)²) − e/x)²``, evaluated as ``1/(√(1 + a²) + a)²`` with ``a = e/x``.

    ``ᾱ ≤ h(σ)`` is equivalent to ``ᾱ < 1`` and ``σ(1 − ᾱ) > 2e√ᾱ`` (B.3, (52)–(54)). The rewritten form
    avoids the cancellation of the printed one for small ``x``.

    Parameters
    ----------
    x : float in (0, inf)
        The argument (σ where (54) is used as ``h(σ)``).

    Returns
    -------
    float
        ``h(x)``, in ``(0, 1)``.

    Raises
    ------
    ValueError
        If ``x ≤ 0``.
    """
    x = check_in_interval("x", x, 0.0)
    a = E / x
    return 1.0 / (math.hypot(1.0, a) + a) ** 2


def g(x) -> float:
    """Thm B.4: ``g(x) = min{1/(e x), h(x)}`` (the spurious ``/ε`` of the printed (38) is dropped).

    Parameters
    ----------
    x : float in (0, inf)
        The argument (``σ(ε, δ)`` in (32)).

    Returns
    -------
    float
        ``min{1/(e x), h(x)}``.

    Raises
    ------
    ValueError
        If ``x ≤ 0``.
    """
    return min(1.0 / (E * check_in_interval("x", x, 0.0)), h(x))


def gamma_domain(sigma, variant: str = "corrected") -> float:
    """Supremum of the ``ᾱ`` at which eq. (55)'s right-hand side is finite.

    Printed form: ``ᾱ < h(σ)`` (from ``ᾱ < 1`` and ``σ(1 − ᾱ) > 2e√ᾱ``). Corrected form: additionally
    ``1 − ᾱ − 2√ᾱ > 0``, i.e. ``ᾱ < 3 − 2√2 ≈ 0.1716`` (the true meaning of ``u₀ < 1``; the paper's (37)
    turns it into ``α < 1``).

    Parameters
    ----------
    sigma : float in (0, inf)
        Noise multiplier σ.
    variant : {"corrected", "paper"}, default "corrected"
        The corrected or the printed right-hand side (see :func:`rhs55`).

    Returns
    -------
    float
        The supremum of the admissible ``ᾱ``: ``h(σ)``, or ``min(h(σ), 3 − 2√2)`` for the corrected form.
    """
    check_variant(variant)
    hs = h(sigma)
    return hs if variant == "paper" else min(hs, 3.0 - 2.0 * math.sqrt(2.0))


def rhs55(abar, sigma, variant: str = "corrected") -> float:
    r"""Right-hand side of eq. (55) as a function of ``ᾱ = εN/(γK)``; ``inf`` off its domain.

    .. math:: \frac{2}{1-\bar\alpha} + \frac{2^4\bar\alpha}{1-\bar\alpha}\Big(\frac{\sigma}{D(\bar\alpha)}
              + \frac{e^3}{\sigma(\sigma(1-\bar\alpha) - 2e\sqrt{\bar\alpha})}\Big)e^{3/\sigma^2}

    ``variant="paper"``: ``D = (1 − √ᾱ)²`` as printed in (55), App. D.4 and E.1. ``variant="corrected"``
    (default): ``D = 1 − ᾱ − 2√ᾱ``. With ``r₀ = ασ``, Lemma B.3's ``u₀ = 2√(r₀σ)/(σ − r₀) = 2√α/(1 − α)``,
    so ``1/(1 − u₀) = (1 − α)/(1 − α − 2√α)``; the printed ``(1 − √α)² = 1 − 2√α + α`` is larger, which makes
    the printed γ slightly too small (anti-conservative; errata 001 §9.4). The e³ term is the form of (55);
    Thm 3.1's statement prints a garbled one that gives NaN for Table 11 (§9.3).

    Parameters
    ----------
    abar : float in (0, inf)
        ``ᾱ = εN/(γK)``.
    sigma : float in (0, inf)
        Noise multiplier σ.
    variant : {"corrected", "paper"}, default "corrected"
        ``D = 1 − ᾱ − 2√ᾱ`` (corrected) or ``D = (1 − √ᾱ)²`` (as printed).

    Returns
    -------
    float
        The right-hand side of eq. (55); ``inf`` when ``ᾱ`` is at or beyond :func:`gamma_domain`.

    Raises
    ------
    ValueError
        If ``sigma`` or ``abar`` is not positive, or ``variant`` is unknown.
    """
    check_variant(variant)
    sigma = check_in_interval("sigma", sigma, 0.0)
    abar = check_in_interval("abar", abar, 0.0)
    if abar >= gamma_domain(sigma, variant):
        return math.inf
    ra = math.sqrt(abar)
    d = (1.0 - ra) ** 2 if variant == "paper" else 1.0 - abar - 2.0 * ra
    bracket = sigma / d + E**3 / (sigma * (sigma * (1.0 - abar) - 2.0 * E * ra))
    return 2.0 / (1.0 - abar) + 16.0 * abar / (1.0 - abar) * bracket * math.exp(3.0 / sigma**2)


def gamma_rhs(gamma_, sigma, x, variant: str = "corrected") -> float:
    """:func:`rhs55` at ``ᾱ = x/γ`` with ``x = εN/K = ε/k``: the map whose smallest fixed point is γ.

    Parameters
    ----------
    gamma_ : float in (0, inf)
        The current γ.
    sigma : float in (0, inf)
        Noise multiplier σ.
    x : float in (0, inf)
        ``x = εN/K = ε/k``.
    variant : {"corrected", "paper"}, default "corrected"
        The corrected or the printed right-hand side (see :func:`rhs55`).

    Returns
    -------
    float
        ``RHS(55)`` at ``ᾱ = x/γ``; ``inf`` off its domain.
    """
    return rhs55(check_in_interval("x", x, 0.0) / check_in_interval("gamma", gamma_, 0.0), sigma, variant)


def gamma_one_step(sigma, x, variant: str = "corrected") -> float:
    """``RHS(55)`` at ``γ = 2``, i.e. ``ᾱ = x/2``: what the calculators of App. D.4 and E.1 return.

    Their signed stopping test "γ_new − γ ≤ 10⁻⁴γ" fires at the second update (RHS overshoots from 2, the
    next update decreases), so the printed tables use this value (errata 001 §6). It is an upper bound on
    the smallest root whenever ``x/2`` lies in the domain (B.3: RHS decreases in γ), hence valid but loose:
    3.815 instead of 3.125 for Table 9. ``inf`` if ``x/2`` is off the domain.

    Parameters
    ----------
    sigma : float in (0, inf)
        Noise multiplier σ.
    x : float in (0, inf)
        ``x = εN/K = ε/k``.
    variant : {"corrected", "paper"}, default "corrected"
        The corrected or the printed right-hand side (see :func:`rhs55`).

    Returns
    -------
    float
        ``RHS(55)`` at ``γ = 2``; ``inf`` if ``x/2`` is off the domain.
    """
    return gamma_rhs(2.0, sigma, x, variant)


def gamma_min(sigma, x, variant: str = "corrected") -> float:
    """The smallest ``γ ≥ 2`` with ``γ ≥ RHS(55)(γ)`` (Thm 3.1 / B.4's definition), by bracketed root finding.

    ``γ − RHS(γ)`` is increasing (RHS decreases in γ because ``ᾱ = x/γ`` does), negative at ``γ = 2`` and
    non-negative at ``RHS(2)``, so the root is bracketed; where ``x/2`` is off the domain the bracket starts
    just above ``x/ᾱ_max``, where RHS blows up. Plain iteration ``γ ← RHS(γ)`` is not used: it oscillates
    and can converge to a wrong value for large ``x`` (errata 001 §3.11a).

    Parameters
    ----------
    sigma : float in (0, inf)
        Noise multiplier σ.
    x : float in (0, inf)
        ``x = εN/K = ε/k``.
    variant : {"corrected", "paper"}, default "corrected"
        The corrected or the printed right-hand side (see :func:`rhs55`).

    Returns
    -------
    float
        The smallest ``γ ≥ 2`` with ``γ ≥ RHS(55)(γ)``.
    """
    sigma = check_in_interval("sigma", sigma, 0.0)
    x = check_in_interval("x", x, 0.0)
    f = lambda gm: gm - gamma_rhs(gm, sigma, x, variant)
    lo = max(2.0, x / gamma_domain(sigma, variant) * (1.0 + 1e-12))
    while not math.isfinite(f(lo)):
        lo *= 1.0 + 1e-9
    hi = max(lo, gamma_rhs(lo, sigma, x, variant))
    while f(hi) < 0:
        hi *= 2.0
    if f(lo) >= 0:
        return lo
    return brentq(f, lo, hi, xtol=1e-14, rtol=1e-15)


def check_reading(reading: str) -> str:
    """``reading`` if it is one of :data:`GAMMA_READINGS`, else raise listing them (the argument is ``gamma=``).

    Parameters
    ----------
    reading : str
        The ``gamma=`` argument to check.

    Returns
    -------
    str
        ``reading`` itself.

    Raises
    ------
    ValueError
        If ``reading`` is not in :data:`GAMMA_READINGS`.
    """
    if reading not in GAMMA_READINGS:
        raise ValueError(f"gamma must be one of {GAMMA_READINGS}, got {reading!r}")
    return reading


def gamma(sigma, x, reading: str = "paper", variant: str = "corrected") -> float:
    """``γ`` of eq. (55) under a reading: ``"paper"`` (one step, the calculators) or ``"min"`` (smallest root).

    Parameters
    ----------
    sigma : float in (0, inf)
        Noise multiplier σ.
    x : float in (0, inf)
        ``x = εN/K = ε/k``.
    reading : {"paper", "min"}, default "paper"
        :func:`gamma_one_step` (``"paper"``) or :func:`gamma_min` (``"min"``).
    variant : {"corrected", "paper"}, default "corrected"
        The corrected or the printed right-hand side (see :func:`rhs55`).

    Returns
    -------
    float
        γ under the chosen reading.

    Raises
    ------
    ValueError
        If ``reading`` is not in :data:`GAMMA_READINGS`.
    """
    return (gamma_one_step if check_reading(reading) == "paper" else gamma_min)(sigma, x, variant)


def gamma_linear(sigma, abar) -> float:
    """B.3's expansion ``γ = 2 + (2 + 2⁴(σ + e³/σ²)e^{3/σ²})ᾱ + O(ᾱ^{3/2})`` without the remainder.

    Parameters
    ----------
    sigma : float in (0, inf)
        Noise multiplier σ.
    abar : float in [0, inf)
        ``ᾱ = x/γ``.

    Returns
    -------
    float
        ``2 + (2 + 2⁴(σ + e³/σ²)e^{3/σ²})ᾱ``.
    """
    sigma = check_in_interval("sigma", sigma, 0.0)
    abar = check_in_interval("abar", abar, 0.0, lo_closed=True)
    return 2.0 + (2.0 + 16.0 * (sigma + E**3 / sigma**2) * math.exp(3.0 / sigma**2)) * abar


def T_min(eps, k, gamma_, theta=1.0) -> float:
    """eq. (8): the fewest rounds ``T_min = γθ²k²/ε`` of Thm 3.1 (``k`` epochs, ``θ = s_max/s̄``).

    Parameters
    ----------
    eps : float in (0, inf)
        Privacy parameter ε.
    k : float in (0, inf)
        Number of epochs, ``K = kN``.
    gamma_ : float in [2, inf)
        The factor γ, as returned by :func:`gamma`.
    theta : float in [1, inf), default 1.0
        ``θ = s_max/s̄``.

    Returns
    -------
    float
        ``γθ²k²/ε``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    eps = check_in_interval("eps", eps, 0.0)
    k = check_in_interval("k", k, 0.0)
    theta = check_in_interval("theta", theta, 1.0, lo_closed=True, why="theta = s_max/s_bar >= 1")
    return check_in_interval("gamma", gamma_, 2.0, lo_closed=True) * theta**2 * k**2 / eps


def T_min_asym(eps, k, theta=1.0) -> float:
    """App. C.2 / D.4 step 5: ``T_min,asym = θ²k²/(2ε)``, the paper's claimed floor for ``T`` (eq. (8) with γ replaced by 1/2).

    Parameters
    ----------
    eps : float in (0, inf)
        Privacy parameter ε.
    k : float in (0, inf)
        Number of epochs.
    theta : float in [1, inf), default 1.0
        ``θ = s_max/s̄``.

    Returns
    -------
    float
        ``θ²k²/(2ε)``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    eps = check_in_interval("eps", eps, 0.0)
    theta = check_in_interval("theta", theta, 1.0, lo_closed=True, why="theta = s_max/s_bar >= 1")
    return theta**2 * check_in_interval("k", k, 0.0) ** 2 / (2.0 * eps)


def s_max(N, k, T) -> float:
    """App. D.4 step 6: ``s = kN/T`` (the tables print ``⌊kN/T_min⌋``).

    Parameters
    ----------
    N : float in (0, inf)
        Local data-set size.
    k : float in (0, inf)
        Number of epochs.
    T : float in (0, inf)
        Number of rounds (``T_min`` or ``T_min,asym``).

    Returns
    -------
    float
        ``kN/T``, unrounded.

    Raises
    ------
    ValueError
        If an argument is not positive.
    """
    return check_in_interval("k", k, 0.0) * check_in_interval("N", N, 0.0) / check_in_interval("T", T, 0.0)


def s_max_asym(eps, N, k, theta=1.0) -> float:
    """``s_max,asym = kN/T_min,asym = 2εN/(θ²k)`` (App. D.4 step 6).

    Parameters
    ----------
    eps : float in (0, inf)
        Privacy parameter ε.
    N : float in (0, inf)
        Local data-set size.
    k : float in (0, inf)
        Number of epochs.
    theta : float in [1, inf), default 1.0
        ``θ = s_max/s̄``.

    Returns
    -------
    float
        ``2εN/(θ²k)``, unrounded.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    return s_max(N, k, T_min_asym(eps, k, theta))
