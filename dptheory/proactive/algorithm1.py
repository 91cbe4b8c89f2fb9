r"""What Algorithm 1 *as written* spends: a bracket ``[lower, upper]`` on its ε, not a verdict.

Seed 001 (van Dijk et al., *Proactive DP*, ICML 2024) proves Thm 3.1 for Poisson sampling with add/remove
neighbours (footnotes 5 and 14), but its Algorithm 1 draws a **fixed-size** batch of ``s`` records uniformly
without replacement, and with a fixed ``N`` the natural neighbours replace one record: the sum of clipped
gradients then moves by up to ``2C`` (footnote 5's "factor 2 penalty"). No accountant gives the exact ε of
that mechanism; :func:`algorithm1_spend` brackets it.

**Upper bound** (``hi``). The Rényi-DP bound for sampling without replacement under replace-one
(Wang–Balle–Kasiviswanathan 2019, Thm 27; ``dp_accounting``) with the replace-one sensitivity ``2C``
(``exact_epsilon(..., accountant="rdp_wor")``). It holds for every pair of neighbouring data sets and every
loss, but it is a bound: nothing says a data set attains it.

**Lower bound** (``lo``): the exact ε of one *realisable* pair of neighbouring data sets, seen through one
statistic. Take the linear loss ``f(w; ξ) = ⟨ξ, w⟩`` and ``d`` = ``N`` records with ``ξ = +C·e₁``, ``d'`` = ``d``
with one record replaced by ``ξ' = −C·e₁``. Every gradient has norm ``C`` (clipping does nothing) and does not
depend on the model ``ŵ``, so Alg. 1's rounds are independent and identical whatever the server broadcasts.
In a round:

* on ``d``, ``U = sC·e₁ + N(0, C²σ²I)``;
* on ``d'``, the replaced record is in the batch with probability exactly ``q = s/N`` (a fixed record lies in a
  uniform ``s``-subset of ``N`` with that probability), and then the sum is ``(s − 2)C·e₁``:
  ``U = (s − 2B)C·e₁ + N(0, C²σ²I)``, ``B ~ Bernoulli(q)``, independently over rounds.

The coordinates orthogonal to ``e₁`` are the same noise under both data sets; the other clients' messages and
the server's models depend on ``d`` only through the ``U`` already observed. With ``σ' = σ/2`` the map
``u ↦ (u₁ − sC)/(2C)`` turns one round into ``N(0, σ'²)`` against ``(1 − q)N(0, σ'²) + qN(−1, σ'²)``:
*exactly the Poisson-subsampled Gaussian add/remove pair at noise multiplier σ/2 and rate q*, ``T`` times.
Both orders ``(d, d')`` and ``(d', d)`` are replace-one neighbours, so the pair spends the larger ε of the two.

``lo`` is the ε of the post-processed output ``S = Σ_t (U_{t,1} − sC)/(2C)``: ``N(0, Tσ'²)`` on ``d`` against
``Σ_j Bin(j; T, q)·N(−j, Tσ'²)`` on ``d'``. Its likelihood ratio is monotone in ``S``, so the optimal (Neyman–
Pearson) test is a threshold and ``δ(ε)`` is a closed form in normal CDFs (:func:`realisable_pair_delta`).
By the data-processing inequality ``ε_S(δ) ≤ ε_pair(δ) ≤ ε_Alg.1(δ)``: for any ``ε < lo`` Alg. 1 is *not*
(ε, δ)-DP. In the regimes of seed 001 (σ ≥ 6, small ``q``) the per-round log-likelihood ratio is nearly linear,
``S`` is nearly sufficient, and ``lo`` is within 0.5% of the whole pair's ε (``pair_upper``: dp_accounting's
pessimistic PLD of the Poisson pair at σ/2, an upper estimate of that same pair). The pair need not be the
worst case, so the truth lies in ``[lo, hi]``.

Numerics: binomial weights below ``e^{−80}`` are dropped (< ``T·e^{−80}`` of mass), the threshold is found by
Brent's method to ``10⁻¹⁴`` relative (δ is stationary there, so its error is second order), ε to ``10⁻¹²``.
δ is a difference of tail probabilities: accurate to about ``10⁻¹⁴`` absolute, ample for δ ≥ 10⁻⁹.

>>> b = algorithm1_spend(19.29962, s=26, N=10_000, T=1918, delta=1e-4)     # Table 9 (App. D.4)
>>> round(b.lo, 5), round(b.hi, 4)
(0.02373, 0.063)
>>> b.describe(0.049722)
'undetermined: target 0.04972 within [0.02373, 0.063]'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

from .._validation import check_in_interval, check_int
from ..accounting import exact_epsilon

__all__ = ["SpendBracket", "algorithm1_spend", "realisable_pair_delta", "realisable_lower_bound", "VERDICTS"]

#: :meth:`SpendBracket.verdict` values: the upper bound meets the target, the lower bound exceeds it, or neither.
VERDICTS = ("holds", "fails", "undetermined")


def _check(sigma, s, N, T) -> tuple[float, int, int, int]:
    sigma = check_in_interval("sigma", sigma, 0.0)
    N = check_int("N", N, 2, why="the data-set size of Alg. 1")
    s = check_int("s", s, 1, N, why="Alg. 1's batch size, at most N")
    T = check_int("T", T, 1, why="a number of rounds")
    return sigma, s, N, T


class _SumStatistic:
    """``S`` on ``d``: ``N(0, τ²)``; on ``d'``: ``Σ_j b_j N(−j, τ²)``, ``τ = √T·σ/2``, ``b = Bin(T, q)``."""

    def __init__(self, sigma: float, q: float, T: int):
        self.tau = math.sqrt(T) * sigma / 2.0
        j = np.arange(T + 1, dtype=float)
        logb = stats.binom.logpmf(j, T, q)
        keep = logb > -80.0
        self.j, self.logb = j[keep], logb[keep]
        self.b = np.exp(self.logb)
        # u where every kept component's log-density is within reach of the threshold search
        self.u_lo, self.u_hi = -60.0 * self.tau - self.j.max(), 60.0 * self.tau

    def log_ratio(self, u: float) -> float:
        """``log p_d(u)/p_{d'}(u)``, increasing in ``u`` (every ``j ≥ 0`` term of the denominator decreases)."""
        return -float(special.logsumexp(self.logb - (2.0 * u * self.j + self.j**2) / (2.0 * self.tau**2)))

    def delta(self, eps: float) -> float:
        """``max`` over the two orders of ``sup_A P(A) − e^ε Q(A)``, ``A`` the Neyman–Pearson threshold set."""
        out = 0.0
        for order in (1.0, -1.0):  # 1: (d, d'), A = {u > u*};  −1: (d', d), A = {u < u*}
            f = lambda u: order * self.log_ratio(u) - eps
            if f(self.u_lo) * f(self.u_hi) > 0:  # the loss never exceeds ε in this order: δ = 0
                continue
            u = optimize.brentq(f, self.u_lo, self.u_hi, xtol=1e-14 * self.tau, rtol=1e-14)
            z, zj = u / self.tau, (u + self.j) / self.tau
            if order > 0:
                d = special.ndtr(-z) - math.exp(eps) * float(np.sum(self.b * special.ndtr(-zj)))
            else:
                d = float(np.sum(self.b * special.ndtr(zj))) - math.exp(eps) * special.ndtr(z)
            out = max(out, float(d))
        return out


def realisable_pair_delta(eps, sigma, *, s, N, T) -> float:
    """δ(ε) of Alg. 1's output on the ±C·e₁ pair of the module docstring, seen through ``S = Σ_t U_{t,1}``.

    Exact (closed form in normal CDFs at the Neyman–Pearson threshold), the larger of the two orders. A lower
    bound on the δ(ε) of Alg. 1 itself (data processing), for seed 001's Alg. 1 with batch ``s`` of ``N``,
    noise ``N(0, C²σ²I)`` and ``T`` rounds.

    Parameters
    ----------
    eps : float in [0, inf)
        The ε at which δ is evaluated.
    sigma : float in (0, inf)
        Noise multiplier σ: the noise is ``N(0, C²σ²I)``.
    s : int
        Batch size of Alg. 1, ``1 ≤ s ≤ N``.
    N : int
        Data-set size, at least 2.
    T : int
        Number of rounds, at least 1.

    Returns
    -------
    float
        δ(ε) of the statistic ``S`` on the ±C·e₁ pair, the larger of the two orders; a lower bound on the
        δ(ε) of Alg. 1 itself.

    Raises
    ------
    ValueError
        If an argument lies outside the range given above.
    """
    sigma, s, N, T = _check(sigma, s, N, T)
    eps = check_in_interval("eps", eps, 0.0, lo_closed=True)
    return _SumStatistic(sigma, s / N, T).delta(eps)


def realisable_lower_bound(sigma, *, s, N, T, delta) -> float:
    """The smallest ε at which the ±C·e₁ pair's statistic ``S`` meets δ: a lower bound on Alg. 1's ε(δ).

    Inverts :func:`realisable_pair_delta` (decreasing in ε) by Brent's method to 10⁻¹² absolute.

    Parameters
    ----------
    sigma : float in (0, inf)
        Noise multiplier σ: the noise is ``N(0, C²σ²I)``.
    s : int
        Batch size of Alg. 1, ``1 ≤ s ≤ N``.
    N : int
        Data-set size, at least 2.
    T : int
        Number of rounds, at least 1.
    delta : float in (0, 1)
        The target δ.

    Returns
    -------
    float
        The smallest ε with ``realisable_pair_delta(ε) ≤ δ`` (0.0 when already ``δ(0) ≤ δ``).

    Raises
    ------
    ValueError
        If an argument lies outside the range given above.
    """
    sigma, s, N, T = _check(sigma, s, N, T)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    stat = _SumStatistic(sigma, s / N, T)
    if stat.delta(0.0) <= delta:
        return 0.0
    hi = 1.0
    while stat.delta(hi) > delta:
        hi *= 2.0
    return float(optimize.brentq(lambda e: stat.delta(e) - delta, 0.0, hi, xtol=1e-12, rtol=1e-12))


@dataclass(frozen=True)
class SpendBracket:
    """Algorithm 1 as written (fixed batch ``s`` of ``N``, replace-one): its ε at ``δ`` lies in ``[lo, hi]``.

    ``lo``: certified lower bound (the realisable ±C·e₁ pair through its sum, exact); ``pair_upper``: the same
    pair's ε by dp_accounting's pessimistic PLD (Poisson add/remove at σ/2), so the pair spends at most that and at
    least ``lo``; ``hi``: the replace-one RDP upper bound for every pair.

    Attributes
    ----------
    sigma : float
        Noise multiplier σ.
    s : int
        Batch size.
    N : int
        Data-set size.
    T : int
        Number of rounds.
    delta : float
        The δ at which the ε's are taken.
    lo : float
        Certified lower bound on Alg. 1's ε (the realisable ±C·e₁ pair through its sum, exact).
    pair_upper : float
        The same pair's ε by dp_accounting's pessimistic PLD (Poisson add/remove at σ/2).
    hi : float
        The replace-one RDP upper bound, valid for every pair of neighbouring data sets.
    """

    sigma: float
    s: int
    N: int
    T: int
    delta: float
    lo: float
    pair_upper: float
    hi: float

    def verdict(self, eps_target) -> str:
        """Whether the bracket settles that the algorithm meets ``eps_target``.

        ``"holds"`` if ``hi ≤ ε_target`` (certified), ``"fails"`` if ``lo > ε_target`` (a realisable pair spends
        more), else ``"undetermined"``: the target lies inside the bracket.

        Parameters
        ----------
        eps_target : float in (0, inf)
            The ε that the algorithm is claimed to spend.

        Returns
        -------
        {"holds", "fails", "undetermined"}
            One of :data:`VERDICTS`.
        """
        eps_target = check_in_interval("eps_target", eps_target, 0.0)
        return "holds" if self.hi <= eps_target else "fails" if self.lo > eps_target else "undetermined"

    def describe(self, eps_target) -> str:
        """The verdict with the bracket, e.g. ``undetermined: target 0.04972 within [0.02373, 0.063]``.

        Parameters
        ----------
        eps_target : float in (0, inf)
            The ε that the algorithm is claimed to spend.

        Returns
        -------
        str
            The :meth:`verdict` followed by where the target lies relative to ``[lo, hi]``.
        """
        v = self.verdict(eps_target)
        rel = {"holds": "at or above the upper end of", "fails": "below the lower end of", "undetermined": "within"}[v]
        return f"{v}: target {eps_target:.4g} {rel} [{self.lo:.4g}, {self.hi:.4g}]"

    def __repr__(self) -> str:
        return (f"SpendBracket(eps in [{self.lo:.6g}, {self.hi:.6g}] at delta={self.delta:.3g}; sigma={self.sigma:g}, "
                f"s={self.s}, N={self.N}, T={self.T}; lower: the ±C·e₁ pair through its sum (that pair's whole "
                f"output: ≤ {self.pair_upper:.6g}); upper: RDP, fixed batch, replace-one)")


def algorithm1_spend(sigma, *, s, N, T, delta) -> SpendBracket:
    """The ε that seed 001's Algorithm 1 as written spends in ``T`` rounds of batch ``s`` out of ``N``, as a bracket.

    Lower end: :func:`realisable_lower_bound` (a realisable pair, exact). Upper end: replace-one RDP for sampling
    without replacement, sensitivity ``2C``. Thm 3.1 claims ``ε_target`` for Alg. 1 once ``T ≥ T_min`` (eq. (8));
    :meth:`SpendBracket.verdict` says whether the bracket settles that for given ``T``.

    Parameters
    ----------
    sigma : float in (0, inf)
        Noise multiplier σ: the noise is ``N(0, C²σ²I)``.
    s : int
        Batch size of Alg. 1, ``1 ≤ s ≤ N``.
    N : int
        Data-set size, at least 2.
    T : int
        Number of rounds, at least 1.
    delta : float in (0, 1)
        The δ at which ε is bracketed.

    Returns
    -------
    SpendBracket
        ``lo`` (realisable pair, exact), ``pair_upper`` (that pair by pessimistic PLD) and ``hi`` (replace-one RDP).

    Raises
    ------
    ValueError
        If an argument lies outside the range given above.
    """
    sigma, s, N, T = _check(sigma, s, N, T)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    lo = realisable_lower_bound(sigma, s=s, N=N, T=T, delta=delta)
    pair = exact_epsilon(sigma / 2.0, q=s / N, T=T, delta=delta, accountant="pld").eps
    hi = exact_epsilon(sigma, q=s / N, T=T, delta=delta, accountant="rdp_wor", N=N).eps
    return SpendBracket(sigma, s, N, T, delta, lo, float(pair), float(hi))
