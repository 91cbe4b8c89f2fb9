r"""Gaussian differential privacy (Dong, Roth & Su 2022): the ``δ(ε)`` of μ-GDP, its inverses, and the CLT μ of
DP-SGD.

* Dong–Roth–Su Cor. 2.13 (seed 001, eq. (64)): μ-GDP is ``(ε, δ(ε))``-DP for every ``ε ≥ 0`` with
  ``δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)``; exact for one Gaussian mechanism with ``μ = Δ/σ``.
* Dong–Roth–Su Cor. 5.4 (seed 001, eq. (65)): ``T`` rounds of DP-SGD with noise multiplier ``σ`` and sampling
  rate ``q`` are asymptotically μ-GDP (:func:`mu_clt`).

Every function takes its first argument positionally and the others by keyword only
(``gdp_epsilon(mu, delta=1e-5)``, ``gdp_delta(eps, mu=0.5)``), so that ε, δ and μ cannot be swapped.
"""

from __future__ import annotations

import math

from scipy.optimize import brentq
from scipy.special import erfcx, log_ndtr, ndtr, ndtri

from .._validation import check_in_interval

__all__ = ["gdp_delta", "gdp_epsilon", "gdp_mu", "mu_clt"]

_SQRT2 = math.sqrt(2.0)
_LOG_FORM_MAX_EPS = 700.0  # below, δ's second term as exp(ε + ln Φ) cannot overflow


def gdp_delta(eps, *, mu) -> float:
    """The δ at which μ-GDP gives ε.

    Dong–Roth–Su Cor. 2.13, eq. (64): ``δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)`` of μ-GDP, its second term
    as ``exp(ε + ln Φ(·))`` for ``ε ≤ 700``. Above, ``ε + ln Φ`` cancels and ``exp`` overflowed (from ε ≈ 1e100):
    with ``x = ε/μ − μ/2`` the factor ``e^ε`` is ``φ(x)/φ(x + μ)``, so the term is ``φ(x)·√(π/2)·erfcx((x + μ)/√2)``
    and no ``e^ε`` is formed. (That form is also exact below 700, but loses up to 5e-12 relative to the cancellation
    between the two terms at ``μ = 10⁻³``, against 1e-12 for the log form: mpmath at 60 digits,
    ``tests/test_accounting.py``.)

    Parameters
    ----------
    eps : float
        The ε at which δ is evaluated.
    mu : float in (0, inf)
        The GDP parameter μ.

    Returns
    -------
    float
        ``δ(ε)``.
    """
    if eps <= _LOG_FORM_MAX_EPS:
        a = -eps / mu
        return float(ndtr(a + mu / 2) - math.exp(eps + log_ndtr(a - mu / 2)))
    return _delta_at(eps / mu - mu / 2, mu)


def _delta_at(x: float, mu: float) -> float:
    """``δ`` of μ-GDP as a function of ``x = ε/μ − μ/2``: ``Φ(−x) − φ(x)·√(π/2)·erfcx((x + μ)/√2)`` (no ``e^ε``),
    with ``φ(x)·√(π/2) = ½·e^{−x²/2}``."""
    return float(ndtr(-x) - 0.5 * math.exp(-0.5 * x * x) * erfcx((x + mu) / _SQRT2))


def gdp_epsilon(mu, *, delta) -> float:
    """The ε at which μ-GDP gives ``δ`` (root of eq. (64); 0 if ``δ(0) ≤ δ``).

    Parameters
    ----------
    mu : float in (0, inf)
        The GDP parameter μ.
    delta : float in (0, 1)
        The target δ.

    Returns
    -------
    float
        The ε with ``δ(ε) = δ``, or 0 if ``δ(0) ≤ δ``.
    """
    mu = check_in_interval("mu", mu, 0.0)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    if gdp_delta(0.0, mu=mu) <= delta:
        return 0.0
    if gdp_delta(_LOG_FORM_MAX_EPS, mu=mu) > delta:
        # ε > 700: solve for x = ε/μ − μ/2, where δ is well conditioned (as a function of ε it is not once
        # μ²/2 dwarfs μ·x: ε = 1e100 has an ulp of 1e84), then ε = μ·x + μ²/2. δ(x) ≤ Φ(−x) brackets x ≤ z_δ.
        lo, hi = _LOG_FORM_MAX_EPS / mu - mu / 2, float(-ndtri(delta))
        x = brentq(lambda t: _delta_at(t, mu) - delta, lo, hi, xtol=1e-15, rtol=1e-15)
        return mu * x + mu * mu / 2
    hi = 1.0
    while gdp_delta(hi, mu=mu) > delta:
        hi *= 2.0
    return brentq(lambda e: gdp_delta(e, mu=mu) - delta, 0.0, hi, xtol=1e-15, rtol=1e-14)


def gdp_mu(eps, *, delta) -> float:
    """The μ at which μ-GDP gives exactly ``(ε, δ)``.

    Eq. (64) increases in μ; this is ``μ*(ε, δ)`` of errata 001 §3.11d.

    Parameters
    ----------
    eps : float in [0, inf)
        The target ε.
    delta : float in (0, 1)
        The target δ.

    Returns
    -------
    float
        The μ with ``δ_μ(ε) = δ``.
    """
    eps = check_in_interval("eps", eps, 0.0, lo_closed=True)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    hi = 1.0
    while gdp_delta(eps, mu=hi) < delta:
        hi *= 2.0
    return brentq(lambda m: gdp_delta(eps, mu=m) - delta, 1e-12, hi, xtol=1e-14)


def mu_clt(sigma, *, q, T, form: str = "uniform") -> float:
    """GDP parameter of DP-SGD by the CLT (Dong–Roth–Su Cor. 5.4; seed 001 eq. (65)).

    Parameters
    ----------
    sigma : float in (0, inf)
        The noise multiplier σ.
    q : float in (0, 1]
        The sampling rate.
    T : float in (0, inf)
        The number of rounds (a real ``T`` is accepted).
    form : {"uniform", "poisson"}, default "uniform"
        Which CLT formula (see Notes).

    Returns
    -------
    float
        The asymptotic GDP parameter μ.

    Raises
    ------
    ValueError
        Naming the parameter, for ``σ ≤ 0``, ``q ∉ (0, 1]``, ``T ≤ 0`` or an unknown ``form``.

    Notes
    -----
    ``"uniform"``: ``μ = q√T·√2·√(e^{σ⁻²}Φ(1.5/σ) + 3Φ(−0.5/σ) − 2)`` (tf-privacy ``compute_mu_uniform``,
    what Tables 9–11 used). ``"poisson"``: ``μ = q√(T(e^{σ⁻²} − 1))``.

    Raises ``ValueError`` naming the parameter for ``σ ≤ 0``, ``q ∉ (0, 1]`` or ``T ≤ 0`` (a real ``T`` is accepted:
    the calculators of seed 001 evaluate the CLT at the real ``T_min`` of eq. (6)).
    """
    sigma = check_in_interval("sigma", sigma, 0.0)
    q = check_in_interval("q", q, 0.0, 1.0, hi_closed=True, why="a sampling rate")
    T = check_in_interval("T", T, 0.0)
    if form == "uniform":
        inner = math.exp(sigma**-2) * ndtr(1.5 / sigma) + 3.0 * ndtr(-0.5 / sigma) - 2.0
        return q * math.sqrt(T) * math.sqrt(2.0) * math.sqrt(inner)
    if form == "poisson":
        return q * math.sqrt(T * math.expm1(sigma**-2))
    raise ValueError(f"form must be 'uniform' or 'poisson', got {form!r}")
