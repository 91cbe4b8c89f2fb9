r"""Monte-Carlo ``δ(ε)`` and ``ε(δ)`` of DP-SGD from sampled privacy losses, by importance sampling, with a CI.

The independent route that :mod:`.dpsgd`'s PLD accountant (``dp_accounting``) must agree with: seed 001
("Proactive DP") App. C compares its closed form against exact accountants, and this module checks those
accountants by simulation.

**Model** (seed 001, footnotes 5 and 14; Abadi et al. 2016, §3.1, privacy loss): ``T`` rounds of the
Gaussian mechanism with noise multiplier ``σ`` and sensitivity 1 on a Poisson sample of rate ``q``; data
sets differ by adding or removing one record (``Sampling.POISSON``, ``Neighbouring.ADD_REMOVE`` of
:mod:`.models`). One round compares

    ``P = (1 − q)·N(0, σ²) + q·N(1, σ²)``  (the data set with the record)  and  ``Q = N(0, σ²)``.

With ``z(x) = (2x − 1)/(2σ²) = log N(1,σ²)(x)/N(0,σ²)(x)`` and ``λ = log(q/(1 − q))`` the privacy loss of
one round is

    ``ℓ(x) = log P(x)/Q(x) = log(1 − q + q·e^{z}) = log(1 − q) + softplus(z + λ)``,

evaluated as ``z⁺ + log1p(c·expm1(−|z|))`` (``c = 1 − q`` for ``z > 0``, ``q`` otherwise), which neither
overflows nor cancels for any ``z``. The two directions of the add/remove relation are

* ``"remove"``: ``x_t ~ P``, ``L = Σ_t ℓ(x_t)``;
* ``"add"``: ``x_t ~ Q``, ``L = −Σ_t ℓ(x_t)`` (at most ``−T log(1 − q)``);

and ``δ_dir(ε) = E_dir[(1 − e^{ε − L})₊]`` (the hockey-stick divergence of the ``T``-fold product). The
add/remove ``δ(ε)`` is ``max(δ_remove, δ_add)``, which is what ``dp_accounting``'s PLD accountant reports for
``ADD_OR_REMOVE_ONE``.

**Estimator.** Plain Monte Carlo is hopeless at ``δ ≈ 1e-5`` (``L > ε`` is rare), so each direction samples
paths from a proposal and weights each by its likelihood ratio ``W``; ``δ̂ = mean(W·(1 − e^{ε − L})₊)``.

* ``"remove"``: the Poisson inclusion is tilted from ``q`` to ``q'``: ``x_t ~ P' = (1 − q')N(0,σ²) +
  q'N(1,σ²)`` (``B ~ Binomial(T, q')`` included rounds), with the *marginal* weight ``Π_t P(x_t)/P'(x_t) =
  exp Σ_t [ℓ_q(x_t) − ℓ_{q'}(x_t)]`` rather than the ratio ``(q/q')^B((1 − q)/(1 − q'))^{T−B}`` of the
  inclusions: the former is the conditional expectation of the latter given the ``x_t`` (Rao–Blackwell), so
  it is unbiased too and never has larger variance -- and here far smaller: at seed 001's Table 9 setting
  the tilt is ``q = 0.0026 → q' ≈ 1``, where the Bernoulli ratio spans hundreds of orders of magnitude,
  while the marginal ratio is to first order in ``1/σ`` ``exp(−θL + const)``, ``θ = q'/q − 1``: close to the
  exponential tilt of ``L``, the large-deviation-optimal proposal. The family is indexed by the per-round
  mean ``q'`` of the signal and continues past ``q' = 1`` as ``x_t ~ N(q', σ²)`` (every round included and
  shifted further, weight ``exp Σ_t [ℓ_q(x_t) − (2q'x_t − q'²)/(2σ²)]``), so that any ``ε`` can be reached
  (``q' = 1`` caps the mean of ``L`` at ``T·E_{N(1,σ²)}ℓ``).
* ``"add"``: ``Q`` has no inclusion to tilt, so the proposal is the exact exponential tilt of the loss,
  ``x_t ~ Q_θ ∝ Q·e^{θ L_t}`` (``L_t = −ℓ(x_t)``), whose weight ``Π_t Q/Q_θ = exp(−θL + Tκ(θ))`` depends on the
  path only through ``L`` (``κ(θ) = log E_Q e^{θ L_t}``, by adaptive quadrature to ~1e-11). ``Q_θ`` is
  sampled exactly by rejection from the shifted envelope ``N(−d, σ²)``: ``Q_θ/N(−d,σ²) ∝ exp(−θ·softplus(z +
  λ) + d·z)`` is bounded for ``0 ≤ d ≤ θ`` with its maximum in closed form, and ``d`` minimises that maximum
  (``logit(d/θ) + d/σ² = λ − 1/(2σ²)``); the acceptance rate is 0.92–0.999 over the settings of the tests.
  (A mirrored mixture ``(1 − q')N(0,σ²) + q'N(−1,σ²)``, the analogue of the ``"remove"`` proposal, was tried
  first: it is fine at ``σ ≳ 5`` but at ``σ = 1, q = 0.01`` its weights collapse to an effective sample size
  of ~2 and it underestimated ``δ_add`` ten-fold; a plain Gaussian shift fails there too.)

``proposal="plain"`` (``q' = q``, ``θ = 0``) is plain Monte Carlo; both proposals give unbiased estimators for
every ``q' ≥ 0`` and ``θ ≥ 0``.

**Automatic proposal** (:func:`default_proposal`). The mean ``m`` and standard deviation ``s`` of ``L``
under each direction's own measure (quadrature) set the proposal mean of ``L`` to ``ε + s/max(a, 1)``,
``a = (ε − m)/s`` (no tilt when ``ε ≤ m``): for Gaussian ``L`` the variance-optimal shift is ``ε + 1.5 s/a``
for ``(L − ε)₊``-like integrands and ``ε + 0.5 s/a`` for an indicator; the rule sits between. The proposal
mean is ``T·E ℓ`` under the proposal, linear in ``q' ∈ [q, 1]`` and increasing in ``q' > 1`` (``"remove"``), and
``Tκ'(θ)`` (``"add"``).

**Confidence interval.** ``CI = δ̂ ± z_{(1+level)/2}·sd(Y)/√n`` from the standard error of the ``n`` weighted
integrands ``Y_i`` by the CLT (clipped to ``[0, 1]``). For ``max(δ_remove, δ_add)`` the CI is ``[max(lo_r,
lo_a), max(hi_r, hi_a)]``: it covers the true maximum whenever both direction CIs cover theirs, so its
coverage is at least ``1 − 2(1 − level)``. The CLT interval presumes a finite weight variance that ``n``
resolves; :attr:`DirectionDelta.ess`, the Kish effective sample size ``(ΣY)²/ΣY²``, is the diagnostic (a
few hundred or more is comfortable; ~10 means the interval is not to be trusted).

**Sampling.** Both directions start from the same standard normals (common random numbers; the ``"add"``
direction redraws only its rejected candidates), and the included rounds of a ``"remove"`` path are placed
first (``L`` and the weight are sums over rounds, so only their number matters). Rounds are processed
``chunk`` at a time (memory ``O(n_samples × chunk)``). Everything random comes from one
``get_backend(backend).rng(seed)``; the kernel is written against the array namespace and runs unchanged on
CuPy.

The public functions take ``σ`` positionally and the rest by keyword only (``mc_delta(σ, q=…, T=…, eps=…)``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import array_api_compat
import numpy as np
from scipy import integrate, optimize, special, stats

from .._validation import check_in_interval, check_int
from ..backend import get_backend
from .gdp import gdp_epsilon, mu_clt

__all__ = [
    "DirectionDelta",
    "MonteCarloDelta",
    "MonteCarloEpsilon",
    "default_proposal",
    "mc_delta",
    "mc_epsilon",
]

#: Elements ``n_samples × chunk`` of one array at the default chunk: 512 KiB in float64. Larger temporaries
#: are returned to the OS and faulted in again by glibc's malloc on every chunk (measured on NumPy at
#: n_samples = 2¹⁶: 33 ns per path and round at 512 KiB, 60 ns at 1 MiB).
_CHUNK_ELEMENTS = 2**16
#: Half-width, in standard deviations of the noise, of the quadrature ranges (log-concave integrands).
_QUAD_HALF_WIDTH = 40.0
_SQRT_2PI = math.sqrt(2.0 * math.pi)


# --------------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DirectionDelta:
    """``δ̂`` of one direction (``"remove"`` or ``"add"``), its CLT interval and standard error.

    ``proposal`` is the tilt of that direction: ``q'`` (``"remove"``) or ``θ`` (``"add"``).
    """

    direction: str
    estimate: float
    lo: float
    hi: float
    stderr: float
    proposal: float
    ess: float  # Kish effective sample size of the weighted integrands

    def __repr__(self) -> str:
        tilt = "q'" if self.direction == "remove" else "theta"
        return (
            f"DirectionDelta({self.direction}: {self.estimate:.6g}, CI [{self.lo:.6g}, {self.hi:.6g}], "
            f"stderr={self.stderr:.3g}, {tilt}={self.proposal:.4g}, ess={self.ess:.4g})"
        )


@dataclass(frozen=True)
class MonteCarloDelta:
    """Monte-Carlo ``δ(ε)`` of ``T``-fold Poisson-subsampled Gaussian (add/remove), with its CI and settings.

    ``estimate = max(remove.estimate, add.estimate)``; ``(lo, hi) = (max(lo_r, lo_a), max(hi_r, hi_a))`` with
    each direction's interval at ``level`` (module docstring). ``proposal = (q', θ)``.
    """

    estimate: float
    lo: float
    hi: float
    level: float
    remove: DirectionDelta
    add: DirectionDelta
    sigma: float
    q: float
    T: int
    eps: float
    n_samples: int
    proposal: tuple[float, float]
    seed: int

    @property
    def half_width(self) -> float:
        """Half the CI width relative to the estimate (``inf`` when the estimate is 0)."""
        return (self.hi - self.lo) / (2.0 * self.estimate) if self.estimate > 0 else math.inf

    def __float__(self) -> float:
        return self.estimate

    def __repr__(self) -> str:
        return (
            f"MonteCarloDelta(delta={self.estimate:.6g}, {self.level:.0%} CI [{self.lo:.6g}, {self.hi:.6g}] at "
            f"eps={self.eps:g}; sigma={self.sigma:g}, q={self.q:g}, T={self.T}, n_samples={self.n_samples}, "
            f"proposal=(q'={self.proposal[0]:.4g}, theta={self.proposal[1]:.4g}), seed={self.seed}; "
            f"remove={self.remove.estimate:.4g}, add={self.add.estimate:.4g})"
        )


@dataclass(frozen=True)
class MonteCarloEpsilon:
    """Monte-Carlo ``ε(δ)``: the root of ``δ̂(ε) = δ`` on one set of sampled losses, and the ``ε`` interval
    on which the ``δ`` CI band contains ``δ``."""

    eps: float
    lo: float
    hi: float
    delta: float
    level: float
    sigma: float
    q: float
    T: int
    n_samples: int
    proposal: tuple[float, float]
    seed: int
    pilot_eps: float  # where the final proposal was aimed (the pilot run's root; nan if proposal was given)

    def __float__(self) -> float:
        return self.eps

    def __repr__(self) -> str:
        return (
            f"MonteCarloEpsilon(eps={self.eps:.6g}, {self.level:.0%} CI [{self.lo:.6g}, {self.hi:.6g}] at "
            f"delta={self.delta:g}; sigma={self.sigma:g}, q={self.q:g}, T={self.T}, n_samples={self.n_samples}, "
            f"proposal=(q'={self.proposal[0]:.4g}, theta={self.proposal[1]:.4g}), seed={self.seed})"
        )


# --------------------------------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------------------------------


def _check_model(sigma, q, T) -> tuple[float, float, int]:
    sigma = check_in_interval("sigma", sigma, 0.0)
    q = check_in_interval("q", q, 0.0, 1.0, hi_closed=True)
    return sigma, q, check_int("T", T, 1)


def _check_run(n_samples, level, chunk, T) -> tuple[int, float, int]:
    n_samples = check_int("n_samples", n_samples, 2)
    level = check_in_interval("level", level, 0.0, 1.0)
    chunk = _default_chunk(n_samples, T) if chunk is None else check_int("chunk", chunk, 1)
    return n_samples, level, chunk


def _check_proposal(proposal, q: float) -> tuple[float, float] | None:
    """``None`` (automatic), ``"plain"`` → ``(q, 0)``, or ``(q', θ)`` with ``q' ≥ 0``, ``θ ≥ 0``."""
    if proposal is None:
        return None
    if isinstance(proposal, str) and proposal == "plain":
        return q, 0.0
    if isinstance(proposal, str) or np.ndim(proposal) != 1 or len(proposal) != 2:
        raise ValueError(f"proposal must be None, 'plain' or a pair (q', theta), got {proposal!r}")
    qr = check_in_interval("proposal[0] (q')", proposal[0], 0.0, math.inf, lo_closed=True)
    theta = check_in_interval("proposal[1] (theta)", proposal[1], 0.0, math.inf, lo_closed=True)
    return qr, theta


def _default_chunk(n: int, T: int) -> int:
    return int(max(1, min(T, _CHUNK_ELEMENTS // n)))


# --------------------------------------------------------------------------------------------------
# one round's loss; the proposals (host side, floats)
# --------------------------------------------------------------------------------------------------


def _log_mix(p: float, z, xp):
    """``log(1 − p + p·e^z)`` elementwise, stable for every ``z`` (module docstring)."""
    if p == 0.0:
        return xp.zeros_like(z)
    if p == 1.0:
        return z
    return xp.maximum(z, 0.0) + xp.log1p(xp.where(z > 0.0, 1.0 - p, p) * xp.expm1(-xp.abs(z)))


def _softplus(y, xp):
    return xp.maximum(y, 0.0) + xp.log1p(xp.exp(-xp.abs(y)))


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


def _round_moments(sigma: float, q: float, b: float, second: bool = True) -> tuple[float, float]:
    """``(E ℓ, E ℓ²)`` of one round's loss for ``x ~ N(b, σ²)`` (``E ℓ²`` is nan unless ``second``)."""
    c = (b - 0.5) / sigma**2
    kink = [sigma * (-math.log(q / (1.0 - q)) - c)] if q < 1.0 else []
    # E ℓ under N(0, σ²) is a near-cancelling O(q²/σ²) mean of O(q/σ) values: an absolute tolerance at
    # 1e-12 of the integrand's scale (these moments only aim the proposal).
    tol = 1e-12 * (abs(_loss(q, c + 1.0 / sigma)) + abs(_loss(q, c - 1.0 / sigma)))
    m1 = _quad(lambda n: _phi(n) * _loss(q, c + n / sigma), 0.0, kink, tol)
    m2 = _quad(lambda n: _phi(n) * _loss(q, c + n / sigma) ** 2, 0.0, kink, tol**2) if second else math.nan
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


def default_proposal(sigma, *, q, T, eps) -> tuple[float, float]:
    """The automatic ``(q', θ)`` for ``δ(ε)``: each direction's proposal mean of ``L`` at ``ε + s/max(a, 1)``.

    ``m, s`` are the mean and standard deviation of ``L`` under the direction's own measure and
    ``a = (ε − m)/s`` (module docstring); ``q' ≥ q``, ``θ ≥ 0``, untilted when ``ε ≤ m``.

    >>> qr, theta = default_proposal(6.572, q=406.8 / 50000, T=860, eps=0.107)
    >>> bool(0.008 < qr < 1.0 and theta > 0.0)
    True
    """
    sigma, q, T = _check_model(sigma, q, T)
    eps = check_in_interval("eps", eps, 0.0, math.inf, lo_closed=True)
    (a0, e0), (a1, e1) = _round_moments(sigma, q, 0), _round_moments(sigma, q, 1)
    # "remove": x ~ (1 − q')N(0) + q'N(1); E L = T((1 − q')a0 + q'a1), linear in q'.
    mean_p = (1.0 - q) * a0 + q * a1
    aim = _aim(eps, T * mean_p, math.sqrt(max(T * ((1.0 - q) * e0 + q * e1 - mean_p**2), 0.0)))
    qr = q if aim is None else max((aim / T - a0) / (a1 - a0), q)
    if qr > 1.0:  # x ~ N(q', σ²): solve T·E_{N(q',σ²)}ℓ = aim, increasing in q'
        hi = 2.0
        while T * _round_moments(sigma, q, hi, second=False)[0] < aim:
            hi *= 2.0
        qr = optimize.brentq(lambda c: T * _round_moments(sigma, q, c, second=False)[0] - aim, 1.0, hi, rtol=1e-6)
    # "add": x ~ Q_θ; E L = T κ'(θ), increasing from −T a0 to −T log(1 − q).
    aim = _aim(eps, -T * a0, math.sqrt(max(T * (e0 - a0**2), 0.0)))
    if aim is None:
        return float(qr), 0.0
    if q == 1.0:  # κ'(θ) = (1 + 2θ)/(2σ²)
        return float(qr), max((2.0 * sigma**2 * aim / T - 1.0) / 2.0, 0.0)
    top = -T * math.log1p(-q)
    if eps >= top:  # L ≤ −T log(1 − q) ≤ ε: δ_add = 0 exactly, nothing to tilt towards
        return float(qr), 0.0
    aim = min(aim, 0.5 * (eps + top))
    target = -math.log1p(-q) - aim / T  # E_θ softplus(z + λ), decreasing in θ

    def gap(theta):
        return _add_tilted(sigma, q, theta)[1] - target

    hi = 1.0
    while gap(hi) > 0.0:
        hi *= 4.0
    return float(qr), float(optimize.brentq(gap, 0.0, hi, rtol=1e-6))


# --------------------------------------------------------------------------------------------------
# the kernel (array namespace only)
# --------------------------------------------------------------------------------------------------


def _exp_safe(sigma: float, q: float, qr: float) -> bool:
    """Whether ``e^z`` and ``e^{z + λ}`` cannot overflow (``|n| < 40``), so that every round's loss is the
    logarithm of a finite factor (:class:`_Kernel`); otherwise the stable forms per element (small ``σ`` only)."""
    lam = math.log(q) - math.log1p(-q) if q < 1.0 else 0.0
    return 40.0 / sigma + max(qr, 1.0) / sigma**2 + max(lam, 0.0) < 700.0


def _rows(a, xp):
    """``Σ_t a[t]`` over the rounds of a chunk ``(K, n)`` (row 0 itself when ``K = 1``)."""
    return a[0, ...] if a.shape[0] == 1 else xp.sum(a, axis=0)


class _LogSum:
    """``Σ_t ℓ_t`` per path over the rounds, fed the terms ``ℓ_t`` (``every = None``) or the factors
    ``e^{ℓ_t}``: these are multiplied over at most ``every`` rounds between two logarithms (one ``log`` per path
    every ``every`` rounds instead of one per path and round; the product's rounding is ``every`` ulps)."""

    def __init__(self, n: int, every: int | None, xp):
        self.xp, self.every, self.rounds = xp, every, 0
        self.total = xp.zeros((n,), dtype=xp.float64)
        self.product = xp.ones((n,), dtype=xp.float64)

    def add(self, terms):
        """Adds the rounds of a chunk ``(K, n)``."""
        xp, K = self.xp, terms.shape[0]
        if self.every is None:
            self.total += _rows(terms, xp)
            return
        i = 0
        while i < K:
            r = min(K - i, self.every - self.rounds)
            self.product *= _rows(terms[i : i + r, ...], xp) if r == 1 else xp.prod(terms[i : i + r, ...], axis=0)
            self.rounds, i = self.rounds + r, i + r
            if self.rounds == self.every:
                self._flush()

    def _flush(self):
        self.total += self.xp.log(self.product)
        self.product = self.xp.ones_like(self.product)
        self.rounds = 0

    def value(self):
        if self.rounds:
            self._flush()
        return self.total


def _rounds_per_log(pairs, s: float) -> int:
    """Rounds whose factors ``a + b·e^u`` (``(a, b)`` in ``pairs``, ``|u| ≤ s``) multiply without overflow or
    underflow: each factor's ``|log|`` is at most ``A`` (at ``u = ±s``, monotone in ``u``), and ``G·A ≤ 600``."""
    A = max(abs(math.log(a + b * math.exp(u))) for a, b in pairs for u in (-s, s))
    return max(1, int(600.0 / max(A, 1e-3)))


class _Kernel:
    """Both directions over ``n`` paths, one chunk of rounds at a time; fixed model, proposal and backend.

    Per path and round: one exponential ``E = e^u`` (``u = n/σ``) shared by both directions, then only
    arithmetic. Every round's loss is ``log f`` of a factor ``f = a + b·E`` (``1 − p + p·e^z`` for the
    mixtures, ``1 + e^{z+λ}`` for the ``"add"`` softplus), and :class:`_LogSum` multiplies the factors over
    up to ``every`` rounds before one logarithm. The rejection step of ``"add"`` accepts a candidate when
    ``U < 1 + s⁻`` with ``s⁻ = d·v − θ·e^{z+λ} + c ≤ s`` (``softplus(x) ≤ e^x``, ``1 + s ≤ e^s``) and evaluates
    its exact acceptance probability ``e^s`` only for the candidates that squeeze leaves in doubt (~0.3% at
    Table 9): the same accept/reject decisions as ``U < e^s``. On NumPy the chunk-sized temporaries are
    written into buffers kept across chunks (a fresh 512 KiB temporary is faulted in from the OS on every
    chunk: half the time at Table 9); elsewhere the same operations return new arrays, the same numbers.
    When ``e^z`` can overflow (:func:`_exp_safe`, small ``σ``) it takes the stable forms per element
    (``_log_mix``, ``_softplus``: two or three logarithms and exponentials per path and round) and sums them.
    """

    def __init__(self, sigma: float, q: float, T: int, proposal: tuple[float, float], n: int, rng, bk):
        # Python floats throughout: a NumPy scalar is not an array of another namespace (array-api-strict refuses it)
        self.sigma, self.q, self.T, self.rng, self.bk, self.xp = float(sigma), float(q), T, rng, bk, bk.xp
        xp, s2 = bk.xp, self.sigma**2
        self.numpy = array_api_compat.is_numpy_namespace(xp)
        self.buffers = {}
        self.qr = qr = float(proposal[0])
        self.tilt = tilt = _add_tilt(sigma, q, proposal[1])
        self.fast = _exp_safe(sigma, q, qr)
        self.half = half = 0.5 / s2
        self.lam = math.log(q) - math.log1p(-q) if q < 1.0 else math.inf
        # Number of included rounds of each "remove" path; they come first (only their count matters).
        self.B = bk.asarray(rng.binomial(T, min(qr, 1.0), size=n), dtype=xp.float64)
        # "add" envelope N(−d, σ²): x = σn − d, z = v − shift; log-acceptance d·v − θ·softplus(v + c_sp) + c_h
        d = float(tilt.d)
        shift = half + d / s2
        self.c_sp = float(self.lam - shift)
        self.c_h = float((d + d**2) / (2.0 * s2) - tilt.h_star - d * shift)
        pairs = [(1.0 - q, q * math.exp(half)), (1.0 - q, q * math.exp(-half))]  # e^{ℓ_q} at z = u ± ½/σ²
        if qr > 1.0:
            pairs.append((1.0 - q, q * math.exp((qr - 0.5) / s2)))
        elif qr != q:
            pairs += [(1.0 - qr, qr * math.exp(half)), (1.0 - qr, qr * math.exp(-half))]
        if tilt.theta > 0.0 and q < 1.0:
            pairs.append((1.0, math.exp(self.c_sp)))
        every = _rounds_per_log(pairs, 40.0 / self.sigma) if self.fast else None
        self.loss_r, self.mix_r, self.loss_a = (_LogSum(n, every, xp) for _ in range(3))
        self.sum_u = xp.zeros((n,), dtype=xp.float64)  # Σ_t u_t: the weight of q' > 1 and L of "add" at q = 1

    def _buffer(self, name: str, shape):
        buf = self.buffers.get(name)
        if buf is None or buf.shape != shape:
            buf = self.buffers[name] = self.xp.empty(shape, dtype=self.xp.float64)
        return buf

    def _f(self, f, x, *args, out: str | None = None):
        """``f(x, *args)``, into the buffer ``out`` (shaped like ``x``) on NumPy."""
        if out is None or not self.numpy:
            return f(x, *args)
        return f(x, *args, out=self._buffer(out, x.shape))

    def normals(self, shape, out: str | None = None):
        """Standard normals of the run's generator (into the buffer ``out`` on NumPy)."""
        if out is None or not self.numpy:
            return self.bk.asarray(self.rng.standard_normal(size=shape))
        return self.rng.standard_normal(size=shape, out=self._buffer(out, shape))

    def _uniforms(self, m: int, out: str | None = None):
        if out is None or not self.numpy:
            return self.bk.asarray(self.rng.random(size=m))
        return self.rng.random(size=m, out=self._buffer(out, (m,)))

    def _factor(self, p: float, E, b: float, out: str | None = None):
        """``e^{ℓ_p} = 1 − p + p·e^z`` at ``e^z = b·E``."""
        f = self._f(self.xp.multiply, E, p * b, out=out)
        f += 1.0 - p
        return f

    def chunk(self, u, t0: int):
        """Rounds ``t0 … t0 + K − 1`` of every path from ``u = n/σ`` ``(K, n)``, shared by both directions."""
        xp, q, qr, tilt, half, fast = self.xp, self.q, self.qr, self.tilt, self.half, self.fast
        E = self._f(xp.exp, u, out="E") if fast else None
        if qr > 1.0 or (q == 1.0 and tilt.theta > 0.0):
            self.sum_u += _rows(u, xp)
        # "remove": x = b + σn, z = u + (b − ½)/σ² (round t included when t < B), or x = q' + σn when q' > 1
        if qr > 1.0:
            c = (qr - 0.5) / self.sigma**2
            self.loss_r.add(self._factor(q, E, math.exp(c), out="f") if fast else _log_mix(q, u + c, xp))
        else:
            K = u.shape[0]
            t = xp.reshape(xp.arange(t0, t0 + K, dtype=xp.float64), (K, 1))
            included = xp.astype(t < self.B, xp.float64)
            if fast:
                lo = math.exp(-half)
                ez = E * (included * (math.exp(half) - lo) + lo)
                self.loss_r.add(self._factor(q, ez, 1.0))
                if qr != q:
                    self.mix_r.add(self._factor(qr, ez, 1.0))
            else:
                z = u + (included * (2.0 * half) - half)
                self.loss_r.add(_log_mix(q, z, xp))
                if qr != q:
                    self.mix_r.add(_log_mix(qr, z, xp))
        # "add": x ~ Q_θ (L_t = −ℓ), by rejection when θ > 0 and q < 1
        if tilt.theta == 0.0:
            self.loss_a.add(self._factor(q, E, math.exp(-half), out="f") if fast else _log_mix(q, u - half, xp))
        elif q < 1.0:
            self.loss_a.add(self._tilted(u, E))

    def _tilted(self, u, E):
        """Softplus terms of ``x ~ Q_θ`` (factors ``1 + e^{z+λ}`` when fast) by rejection from ``N(−d, σ²)``:
        the chunk's ``u`` are the first candidates, and a rejected candidate is replaced by a fresh one."""
        xp = self.xp
        flat = lambda a: None if a is None else xp.reshape(a, (-1,))  # noqa: E731
        terms, pending = self._candidates(flat(u), flat(E), out="")
        while (m := int(xp.count_nonzero(pending))) > 0:
            v = self.normals(m) * (1.0 / self.sigma)
            new, rejected = self._candidates(v, xp.exp(v) if self.fast else None)
            terms[pending] = new
            still = xp.zeros_like(pending)
            still[pending] = rejected
            pending = still
        return xp.reshape(terms, u.shape)

    def _candidates(self, v, E, out: str | None = None):
        """Terms of the candidates ``z = v − shift`` and which are rejected (one uniform each): accepted with
        probability ``e^s``, ``s = d·v − θ·softplus(v + c_sp) + c_h ≤ 0`` (up to rounding). ``out``: a
        prefix of the buffer names, or ``None``."""
        xp, d, theta, c_h = self.xp, float(self.tilt.d), float(self.tilt.theta), self.c_h
        name = (lambda s: None) if out is None else (lambda s: out + s)  # noqa: E731
        U = self._uniforms(v.shape[0], out=name("U"))
        if not self.fast:
            sp = _softplus(v + self.c_sp, xp)
            return sp, U >= xp.exp(d * v - theta * sp + c_h)
        y = self._f(xp.multiply, E, math.exp(self.c_sp), out=name("y"))  # e^{z+λ} ≥ softplus(z + λ)
        lower = self._f(xp.multiply, v, d, out=name("lower"))
        lower -= self._f(xp.multiply, y, theta, out=name("f"))
        lower += 1.0 + c_h
        doubt = U >= lower
        rejected = xp.zeros_like(doubt)
        rejected[doubt] = U[doubt] >= xp.exp(d * v[doubt] - theta * xp.log1p(y[doubt]) + c_h)
        y += 1.0
        return y, rejected

    def result(self):
        """``((L, log W) of "remove", (L, log W) of "add")``, each ``(n,)``."""
        T, q, qr, tilt = self.T, self.q, self.qr, self.tilt
        L_r = self.loss_r.value()
        if qr > 1.0:  # log N(q',σ²)/Q = q'·u + q'²/(2σ²) per round
            W_r = L_r - qr * self.sum_u - T * qr**2 * self.half
        else:
            W_r = L_r - self.mix_r.value() if qr != q else self.xp.zeros_like(L_r)
        if tilt.theta == 0.0:
            L_a = -self.loss_a.value()
        elif q == 1.0:  # Q_θ = N(−θ, σ²): x = σn − θ, L_t = −z = −n/σ + 1/(2σ²) + θ/σ²
            L_a = T * (self.half + tilt.theta / self.sigma**2) - self.sum_u
        else:
            L_a = -self.loss_a.value() - T * math.log1p(-q)
        return (L_r, W_r), (L_a, -tilt.theta * L_a + T * tilt.kappa)


def _sample(sigma: float, q: float, T: int, proposal: tuple[float, float], n: int, rng, bk, chunk: int):
    """``((L, log W) of "remove", (L, log W) of "add")`` for ``n`` paths each, as backend arrays ``(n,)``.

    Cost per path and round (:class:`_Kernel`): one normal, one uniform (plus ``1 − acceptance`` of each for
    the redrawn candidates), one exponential and ~12 arithmetic passes when ``e^z`` cannot overflow."""
    kernel = _Kernel(sigma, q, T, proposal, n, rng, bk)
    for t0 in range(0, T, chunk):
        u = kernel.normals((min(chunk, T - t0), n), out="u")
        u *= 1.0 / sigma  # noise/σ, shared by both directions
        kernel.chunk(u, t0)
    return kernel.result()


def _direction(name: str, samples, eps: float, z: float, proposal: float, xp) -> DirectionDelta:
    """``δ̂`` of one direction at ``ε`` from its ``(L, log W)``, with the CLT interval."""
    L, logW = samples
    n = L.shape[0]
    g = -xp.expm1(xp.minimum(eps - L, 0.0))  # (1 − e^{ε−L})₊
    live = g > 0.0
    if not bool(xp.any(live)):
        return DirectionDelta(name, 0.0, 0.0, 0.0, 0.0, proposal, 0.0)
    c = float(xp.max(xp.where(live, logW, -math.inf)))  # shift: Y/e^c ≤ 1
    Y = g * xp.exp(xp.minimum(logW - c, 0.0))
    mean = float(xp.mean(Y))
    sd = float(xp.std(Y, correction=1))
    ess = mean**2 * n**2 / float(xp.sum(Y * Y))
    scale = math.exp(c)
    est, se = mean * scale, sd * scale / math.sqrt(n)
    return DirectionDelta(name, est, max(est - z * se, 0.0), min(est + z * se, 1.0), se, proposal, ess)


def _z(level: float) -> float:
    return float(stats.norm.ppf(0.5 + level / 2.0))


# --------------------------------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------------------------------


def mc_delta(
    sigma,
    *,
    q,
    T,
    eps,
    n_samples: int = 2**16,
    seed: int = 0,
    level: float = 0.99,
    proposal=None,
    backend: str | None = None,
    chunk: int | None = None,
) -> MonteCarloDelta:
    r"""Monte-Carlo ``δ(ε)`` of ``T`` rounds of DP-SGD (Poisson rate ``q``, noise multiplier ``σ``, add/remove).

    Importance-sampled estimate of ``max(δ_remove(ε), δ_add(ε))``, ``δ_dir(ε) = E[(1 − e^{ε−L})₊]``
    (hockey-stick divergence), with the CLT interval of each direction and of the maximum (module docstring:
    model, estimator, proposals, interval).

    Parameters
    ----------
    sigma : noise multiplier ``σ > 0`` (sensitivity 1).
    q : Poisson sampling rate in ``(0, 1]`` (``q = 1``: the Gaussian mechanism without subsampling).
    T : number of rounds, an integer ``≥ 1``.
    eps : ``ε ≥ 0``.
    n_samples : sampled paths per direction, ``≥ 2``.
    seed : seed of the run's single generator; the same seed gives the same numbers.
    level : confidence level of each direction's interval, in ``(0, 1)``.
    proposal : ``None`` (automatic, :func:`default_proposal`), ``"plain"`` (plain Monte Carlo, ``(q, 0)``),
        or ``(q', θ)``: the ``"remove"`` tilt ``q' ≥ 0`` (inclusion rate; ``q' > 1``: ``x ~ N(q', σ²)``) and the
        ``"add"`` tilt ``θ ≥ 0``.
    backend : ``"numpy"`` or ``"cupy"`` (default ``$DPTHEORY_BACKEND`` or NumPy).
    chunk : rounds processed at once (default ``max(1, 2¹⁶ // n_samples)``; memory ``O(n_samples × chunk)``).

    Examples
    --------
    Without subsampling, ``T`` rounds are one Gaussian mechanism with ``μ = √T/σ``, whose ``δ(ε)`` is in
    closed form (Dong–Roth–Su Cor. 2.13):

    >>> import math
    >>> from scipy.stats import norm
    >>> r = mc_delta(sigma=2.0, q=1.0, T=4, eps=1.0, n_samples=4096)
    >>> exact = norm.cdf(-1.0 + 0.5) - math.e * norm.cdf(-1.0 - 0.5)
    >>> bool(r.lo <= exact <= r.hi)
    True
    """
    sigma, q, T = _check_model(sigma, q, T)
    eps = check_in_interval("eps", eps, 0.0, math.inf, lo_closed=True)
    n_samples, level, chunk = _check_run(n_samples, level, chunk, T)
    prop = _check_proposal(proposal, q)
    if prop is None:
        prop = default_proposal(sigma, q=q, T=T, eps=eps)
    bk = get_backend(backend)
    rem, add = _sample(sigma, q, T, prop, n_samples, bk.rng(seed), bk, chunk)
    z = _z(level)
    r = _direction("remove", rem, eps, z, prop[0], bk.xp)
    a = _direction("add", add, eps, z, prop[1], bk.xp)
    return MonteCarloDelta(
        estimate=max(r.estimate, a.estimate), lo=max(r.lo, a.lo), hi=max(r.hi, a.hi), level=level,
        remove=r, add=a, sigma=sigma, q=q, T=T, eps=eps, n_samples=n_samples, proposal=prop, seed=seed,
    )  # fmt: skip


def _invert(samples, delta: float, z: float, xp) -> tuple[float, float, float]:
    """``(ε̂, ε_lo, ε_hi)`` on fixed samples: the roots of ``δ̂ = δ``, of ``lo = δ`` (below ``ε̂``) and of
    ``hi = δ`` (above ``ε̂``)."""

    def band(eps, which):
        d = [_direction("", s, eps, z, 0.0, xp) for s in samples]
        return max((x.estimate, x.lo, x.hi)[which] for x in d) - delta

    top = max(0.0, *(float(xp.max(L)) for L, _ in samples)) + 1.0  # δ̂ = lo = hi = 0 beyond every sampled L

    def root(which, a, b):
        if band(a, which) <= 0.0:
            return a
        return optimize.brentq(band, a, b, args=(which,), xtol=1e-12, rtol=1e-10)

    est = root(0, 0.0, top)
    return est, root(1, 0.0, est), root(2, est, top)


def mc_epsilon(
    sigma,
    *,
    q,
    T,
    delta,
    n_samples: int = 2**16,
    seed: int = 0,
    level: float = 0.99,
    proposal=None,
    backend: str | None = None,
    chunk: int | None = None,
) -> MonteCarloEpsilon:
    r"""Monte-Carlo ``ε(δ)`` of ``T`` rounds of DP-SGD (Poisson rate ``q``, noise multiplier ``σ``, add/remove).

    The losses are sampled once and ``δ̂(ε) = max(δ̂_remove, δ̂_add)`` (nonincreasing in ``ε``) is inverted on
    those same samples; the interval is ``{ε : lo(ε) ≤ δ ≤ hi(ε)}`` for the CI band of :func:`mc_delta`,
    found as ``[root of lo = δ, root of hi = δ]``. The proposal must suit the ``ε`` sought, so a pilot aims
    it: the Gaussian-DP CLT guess ``ε₀`` (``μ = q√(T(e^{1/σ²} − 1))``) aims a pilot run of ``n_samples/8``
    paths, and the pilot's root aims the final run (one generator for both). ``proposal`` replaces both;
    ``delta`` lies in ``(0, 1)``, the other parameters are those of :func:`mc_delta`.

    Examples
    --------
    >>> import math
    >>> from scipy.stats import norm
    >>> r = mc_epsilon(sigma=2.0, q=1.0, T=4, delta=1e-3, n_samples=4096)  # μ = 1
    >>> d = lambda e: norm.cdf(-e + 0.5) - math.exp(e) * norm.cdf(-e - 0.5)
    >>> bool(d(r.hi) <= 1e-3 <= d(r.lo))
    True
    """
    sigma, q, T = _check_model(sigma, q, T)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    n_samples, level, chunk = _check_run(n_samples, level, chunk, T)
    prop = _check_proposal(proposal, q)
    bk = get_backend(backend)
    rng = bk.rng(seed)
    z = _z(level)
    pilot_eps = math.nan
    if prop is None:
        guess = gdp_epsilon(mu_clt(sigma, q=q, T=T, form="poisson"), delta=delta)
        n_pilot = max(n_samples // 8, 2)
        pilot_prop = default_proposal(sigma, q=q, T=T, eps=guess)
        pilot = _sample(sigma, q, T, pilot_prop, n_pilot, rng, bk, _default_chunk(n_pilot, T))
        pilot_eps = _invert(pilot, delta, z, bk.xp)[0]
        prop = default_proposal(sigma, q=q, T=T, eps=pilot_eps)
    samples = _sample(sigma, q, T, prop, n_samples, rng, bk, chunk)
    est, lo, hi = _invert(samples, delta, z, bk.xp)
    return MonteCarloEpsilon(
        eps=est, lo=lo, hi=hi, delta=delta, level=level, sigma=sigma, q=q, T=T, n_samples=n_samples,
        proposal=prop, seed=seed, pilot_eps=pilot_eps,
    )  # fmt: skip
