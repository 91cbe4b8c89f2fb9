r"""The importance-sampling proposals of :mod:`.montecarlo`: exponential tilts of each direction's privacy loss.

One round of DP-SGD's privacy loss ``ℓ`` (:mod:`.montecarlo`, *Model*) and, for each direction of the add/remove
relation, its exponential tilt ``dP_θ ∝ e^{θ L} dP`` with the normaliser ``κ(θ)``, on the host in floats:

* ``"remove"``: at an integer order ``θ`` the tilt is a finite Gaussian mixture ``Σ_k w_k N(k, σ²)``, its far
  components dropped where they cannot matter (``_remove_terms``, ``_remove_kappa``, ``_remove_tilt``);
* ``"add"``: the tilt sampled by rejection from a shifted normal envelope, ``κ`` by adaptive quadrature
  (``_add_tilt``);
* :func:`default_proposal`: the orders the estimator uses when the caller names none, and ``_log_sup``, the bound
  ``e^{Tκ − θε}(θ/(1 + θ))^θ/(1 + θ)`` on every weighted integrand.

Why these proposals, and how well they do, is in the module docstring of :mod:`.montecarlo` (*Estimator*,
*Automatic proposal*). The kernel that draws paths from them is :mod:`.montecarlo_paths`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import integrate, optimize, special

from .._validation import check_in_interval, check_int

__all__ = ["default_proposal"]

#: Half-width, in standard deviations of the noise, of the quadrature ranges (log-concave integrands).
_QUAD_HALF_WIDTH = 40.0
_SQRT_2PI = math.sqrt(2.0 * math.pi)
#: Largest ``θ_remove``: the mixture of the ``"remove"`` tilt has ``θ + 2`` components (cost of :func:`_remove_kappa`).
MAX_REMOVE_ORDER = 10**6


def _check_model(sigma, q, T) -> tuple[float, float, int]:
    sigma = check_in_interval("sigma", sigma, 0.0)
    q = check_in_interval("q", q, 0.0, 1.0, hi_closed=True)
    return sigma, q, check_int("T", T, 1)


def _quad(f, mode: float, points=(), epsabs: float = 0.0) -> float:
    """``∫ f(n) dn`` over ``mode ± 40`` (``f`` log-concave-like around ``mode``; breakpoints in range kept)."""
    lo, hi = mode - _QUAD_HALF_WIDTH, mode + _QUAD_HALF_WIDTH
    pts = sorted({p for p in (mode, *points) if lo < p < hi})
    return integrate.quad(f, lo, hi, points=pts or None, limit=500, epsabs=epsabs, epsrel=1e-11)[0]


def _loss(q: float, z: float) -> float:
    """One round's loss ``log(1 − q + q·e^z)`` of a float (quadrature integrands)."""
    if q == 1.0:
        return z
    return max(z, 0.0) + math.log1p((1.0 - q if z > 0.0 else q) * math.expm1(-abs(z)))


def _softplus_float(y: float) -> float:
    return max(y, 0.0) + math.log1p(math.exp(-abs(y)))


def _phi(n: float) -> float:
    return math.exp(-0.5 * n * n) / _SQRT_2PI


def _round_moments(sigma: float, q: float) -> tuple[float, float]:
    """``(E ℓ, E ℓ²)`` of one round's loss for ``x ~ Q = N(0, σ²)``."""
    c = -0.5 / sigma**2
    kink = [sigma * (-math.log(q / (1.0 - q)) - c)] if q < 1.0 else []
    # E ℓ under N(0, σ²) is a near-cancelling O(q²/σ²) mean of O(q/σ) values: an absolute tolerance at
    # 1e-12 of the integrand's scale (these moments only aim the proposal).
    tol = 1e-12 * (abs(_loss(q, c + 1.0 / sigma)) + abs(_loss(q, c - 1.0 / sigma)))
    m1 = _quad(lambda n: _phi(n) * _loss(q, c + n / sigma), 0.0, kink, tol)
    m2 = _quad(lambda n: _phi(n) * _loss(q, c + n / sigma) ** 2, 0.0, kink, tol**2)
    return m1, m2


@dataclass(frozen=True)
class _AddTilt:
    """The ``"add"`` proposal ``Q_θ ∝ Q·e^{θ L_t}``: ``κ(θ)``, the envelope shift ``d`` and its bound ``H*``."""

    theta: float
    kappa: float
    d: float
    h_star: float
    acceptance: float


def _add_tilted(sigma: float, q: float, theta: float) -> tuple[float, float, float]:
    """``(log Z, E_θ softplus(z + λ), mode)`` with ``Z = E_Q e^{−θ softplus(z + λ)}`` (``q < 1``)."""
    lam = math.log(q) - math.log1p(-q)
    c = lam - 0.5 / sigma**2  # z + λ = n/σ + c for x = σn ~ Q

    def logf(n):  # log of the tilted density of n, unnormalised; log-concave
        return -0.5 * n * n - theta * _softplus_float(n / sigma + c)

    # mode: n + (θ/σ)·expit(n/σ + c) = 0, bracketed by [−θ/σ − 1, 0]
    mode = 0.0
    if theta > 0.0:
        mode = optimize.brentq(lambda n: n + theta / sigma * special.expit(n / sigma + c), -theta / sigma - 1.0, 0.0)
    top = logf(mode)
    kink = [-sigma * c]
    Z = _quad(lambda n: math.exp(logf(n) - top), mode, kink)
    S = _quad(lambda n: math.exp(logf(n) - top) * _softplus_float(n / sigma + c), mode, kink)
    return math.log(Z) + top - math.log(_SQRT_2PI), S / Z, mode


def _add_tilt(sigma: float, q: float, theta: float) -> _AddTilt:
    """``κ(θ) = log E_Q e^{θ L_t}`` and the rejection envelope ``N(−d, σ²)`` of ``Q_θ`` (module docstring)."""
    if theta == 0.0:
        return _AddTilt(0.0, 0.0, 0.0, 0.0, 1.0)
    if q == 1.0:  # L_t = −z: Q_θ = N(−θ, σ²), sampled directly
        return _AddTilt(theta, (theta + theta**2) / (2.0 * sigma**2), theta, 0.0, 1.0)
    lam = math.log(q) - math.log1p(-q)
    s2 = sigma**2
    # envelope shift d = θp minimising H*(d): logit(p) + θp/σ² = λ − 1/(2σ²)
    rhs = lam - 0.5 / s2
    y = optimize.brentq(lambda y: y + theta * special.expit(y) / s2 - rhs, rhs - theta / s2 - 1.0, rhs + 1.0)
    d = theta * special.expit(y)
    h_star = -theta * _softplus_float(y) + d * (y - lam) + (d + d * d) / (2.0 * s2)
    log_z, _, _ = _add_tilted(sigma, q, theta)
    return _AddTilt(theta, -theta * math.log1p(-q) + log_z, d, h_star, math.exp(log_z - h_star))


def _aim(eps: float, m: float, s: float):
    """Proposal mean of ``L`` for ``δ(ε)``: ``ε + s/max(a, 1)``, ``a = (ε − m)/s``; ``None`` when ``ε ≤ m``."""
    if s <= 0.0 or eps <= m:
        return None
    return eps + s / max((eps - m) / s, 1.0)


def _log_sup(t_kappa: float, theta: float, eps: float) -> float:
    """``log sup_L (1 − e^{ε−L})₊ e^{−θL + Tκ}`` (``t_kappa = Tκ(θ)``, the log-normaliser of the ``T`` rounds): the
    bound on a weighted integrand ``Y`` of an exponential tilt.

    The supremum is at ``e^{ε−L} = θ/(1 + θ)``, which gives ``Tκ − θε − log(1 + θ) + θ log(θ/(1 + θ))`` (``0`` at
    ``θ = 0``): the conversion of Rényi DP of order ``1 + θ`` to ``(ε, δ)`` of Balle et al. 2020 (AISTATS, Thm 21;
    Canonne, Kamath & Steinke 2020, Prop. 12), since ``δ = E Y ≤ sup Y``."""
    if theta == 0.0:
        return 0.0
    return t_kappa - theta * eps - math.log1p(theta) + theta * (math.log(theta) - math.log1p(theta))


#: Log of the relative weight below which a component of the ``"remove"`` mixture counts as never drawn, and of
#: the share of the far components that the weights neglect where they are dropped (:func:`_remove_terms`).
_NEVER_DRAWN = math.log(1e-30)
_NEGLECTED = math.log(1e-17)
#: Standard deviations of the noise that a drawn round is taken not to exceed there (``P(|n| > 10) = 1.5e-23``).
_REACH = 10.0


@dataclass(frozen=True)
class _RemoveTilt:
    """The ``"remove"`` proposal ``P_θ ∝ P·e^{θℓ}`` at an integer ``θ``: the log-normaliser ``κ`` of the components
    kept (``κ(θ)``, or ``κ_main(θ)`` where the far ones are dropped) and the tail probabilities ``P(k ≥ j)``,
    ``j ≥ 1``, of the component ``k`` (module docstring)."""

    theta: int
    kappa: float
    tail: tuple[float, ...]


def _remove_log_terms(sigma: float, q: float, theta: int) -> np.ndarray:
    """``log[C(p, k)(1 − q)^{p−k} q^k e^{k(k−1)/(2σ²)}]``, ``k = 0 … p``, ``p = 1 + θ`` (``q < 1``)."""
    p = theta + 1
    k = np.arange(p + 1, dtype=np.float64)
    log_binom = special.gammaln(p + 1.0) - special.gammaln(k + 1.0) - special.gammaln(p - k + 1.0)
    return log_binom + (p - k) * math.log1p(-q) + k * math.log(q) + k * (k - 1.0) / (2.0 * sigma**2)


def _remove_terms(sigma: float, q: float, theta: int) -> np.ndarray:
    """The log-weights of the components the ``"remove"`` proposal keeps (module docstring, *far components*).

    All of :func:`_remove_log_terms`, unless they have a valley at ``k_v`` and the components beyond it are
    separated from those below: at every ``x`` a kept component draws (``x ≤ k_hi + 10σ``, ``k_hi`` the largest
    ``k ≤ k_v`` of relative weight ``≥ 1e-30``) the dropped part of ``(1 − q + qe^z)^p = Σ_k c_k e^{kz}`` is below
    ``1e-17`` of the kept part; then only ``k ≤ k_v`` are kept."""
    terms = _remove_log_terms(sigma, q, theta)
    rise = np.diff(terms)
    valleys = np.flatnonzero((rise[:-1] < 0.0) & (rise[1:] >= 0.0))
    if valleys.size == 0:
        return terms
    kv = int(valleys[0]) + 1
    main = terms[: kv + 1]
    reach = float(np.flatnonzero(main >= main.max() + _NEVER_DRAWN)[-1]) + _REACH * sigma
    k = np.arange(terms.size, dtype=np.float64)
    at_reach = terms + k * ((2.0 * reach - 1.0) / (2.0 * sigma**2) - (k - 1.0) / (2.0 * sigma**2))  # log c_k e^{kz}
    dropped = special.logsumexp(at_reach[kv + 1 :]) - special.logsumexp(at_reach[: kv + 1])
    return main if dropped < _NEGLECTED else terms


def _remove_kappa(sigma: float, q: float, theta: int) -> float:
    """The log-normaliser of the ``"remove"`` tilt at an integer ``θ``: ``κ(θ) = log E_P e^{θℓ} = log E_Q
    (P/Q)^{1+θ}`` in closed form, or ``κ_main(θ)`` where the far components are dropped (module docstring)."""
    if q == 1.0:
        return theta * (theta + 1.0) / (2.0 * sigma**2)
    return float(special.logsumexp(_remove_terms(sigma, q, theta)))


def _remove_tilt(sigma: float, q: float, theta: int) -> _RemoveTilt:
    """``κ`` and ``P(k ≥ j)`` of the ``"remove"`` proposal (mixture weights ∝ :func:`_remove_terms`)."""
    if q == 1.0:  # a single component, k = p
        return _RemoveTilt(theta, _remove_kappa(sigma, q, theta), (1.0,) * (theta + 1))
    terms = _remove_terms(sigma, q, theta)
    kappa = float(special.logsumexp(terms))
    log_tail = np.logaddexp.accumulate(terms[::-1])[::-1] - kappa  # log P(k ≥ j), j = 0, 1, …
    return _RemoveTilt(theta, kappa, tuple(float(x) for x in np.minimum(np.exp(log_tail[1:]), 1.0)))


def _remove_order(sigma: float, q: float, T: int, eps: float) -> int:
    """The integer ``θ ≥ 0`` minimising :func:`_log_sup` of the ``"remove"`` tilt (convex in ``θ``), at most
    :data:`MAX_REMOVE_ORDER`."""

    def rise(theta):  # B(θ + 1) − B(θ), nondecreasing
        b = [_log_sup(T * _remove_kappa(sigma, q, t), float(t), eps) for t in (theta, theta + 1)]
        return b[1] - b[0]

    if rise(0) >= 0.0:
        return 0
    lo, hi = 0, 1  # rise(lo) < 0
    while rise(hi) < 0.0:
        if hi >= MAX_REMOVE_ORDER:
            return MAX_REMOVE_ORDER
        lo, hi = hi, min(2 * hi, MAX_REMOVE_ORDER)
    while hi - lo > 1:  # rise(lo) < 0 ≤ rise(hi): the minimum is at hi
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if rise(mid) < 0.0 else (lo, mid)
    return hi


def default_proposal(sigma, *, q, T, eps) -> tuple[int, float]:
    """The automatic ``(θ_remove, θ_add)`` for ``δ(ε)`` (module docstring, *Automatic proposal*).

    ``θ_remove`` is the integer order that minimises the bound :func:`_log_sup` on the ``"remove"`` integrand
    (the best Rényi order of the RDP-to-DP conversion); ``θ_add ≥ 0`` sets the ``"add"`` proposal mean of ``L`` at
    ``ε + s/max(a, 1)``, ``m, s`` the mean and standard deviation of ``L`` under ``Q`` and ``a = (ε − m)/s``
    (untilted when ``ε ≤ m``).

    Parameters
    ----------
    sigma : float in (0, inf)
        The noise multiplier σ.
    q : float in (0, 1]
        The Poisson sampling rate.
    T : int
        The number of rounds, ``T ≥ 1``.
    eps : float in [0, inf)
        The ε at which ``δ(ε)`` is to be estimated.

    Returns
    -------
    tuple of (int, float)
        ``(θ_remove, θ_add)``.

    Examples
    --------
    >>> theta_remove, theta_add = default_proposal(6.572, q=406.8 / 50000, T=860, eps=0.107)
    >>> bool(theta_remove > 0 and theta_add > 0.0)
    True
    """
    sigma, q, T = _check_model(sigma, q, T)
    eps = check_in_interval("eps", eps, 0.0, math.inf, lo_closed=True)
    order = _remove_order(sigma, q, T, eps)
    a0, e0 = _round_moments(sigma, q)
    # "add": x ~ Q_θ; E L = T κ'(θ), increasing from −T a0 to −T log(1 − q).
    aim = _aim(eps, -T * a0, math.sqrt(max(T * (e0 - a0**2), 0.0)))
    if aim is None:
        return order, 0.0
    if q == 1.0:  # κ'(θ) = (1 + 2θ)/(2σ²)
        return order, max((2.0 * sigma**2 * aim / T - 1.0) / 2.0, 0.0)
    top = -T * math.log1p(-q)
    if eps >= top:  # L ≤ −T log(1 − q) ≤ ε: δ_add = 0 exactly, nothing to tilt towards
        return order, 0.0
    aim = min(aim, 0.5 * (eps + top))
    target = -math.log1p(-q) - aim / T  # E_θ softplus(z + λ), decreasing in θ

    def gap(theta):
        return _add_tilted(sigma, q, theta)[1] - target

    hi = 1.0
    while gap(hi) > 0.0:
        hi *= 4.0
    return order, float(optimize.brentq(gap, 0.0, hi, rtol=1e-6))
