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
paths from a proposal and weights each by its likelihood ratio ``W``; ``δ̂ = mean(Y)``, ``Y = W·(1 − e^{ε − L})₊``.
Both proposals are exponential tilts of the direction's own loss, ``dP_θ ∝ e^{θ L} dP``, whose weight
``W = e^{−θL + Tκ(θ)}`` (``κ(θ) = log E e^{θ L_t}``, one round) depends on the path only through ``L``; hence

    ``Y ≤ sup_{L ≥ ε} (1 − e^{ε−L}) e^{−θL + Tκ} = e^{Tκ − θε}·(θ/(1 + θ))^θ/(1 + θ) =: bound``,

the conversion of Rényi DP of order ``1 + θ`` to ``(ε, δ)`` of Balle et al. 2020 (AISTATS, Thm 21; Canonne,
Kamath & Steinke 2020, Prop. 12). So ``δ ≤ bound`` and ``E Y²/δ² ≤ bound/δ``: every integrand is bounded, the
CLT interval rests on a finite variance, and ``bound/δ`` (2.5–13 at the settings of the tests where the runs are
reliable) caps the variance of one path relative to ``δ²``. (:attr:`DirectionDelta.bound`.)

* ``"remove"`` (``x_t ~ P``, ``L_t = ℓ``): at an integer order ``θ`` the tilt is a finite Gaussian mixture,
  since ``E_Q e^{kz} = e^{k(k−1)/(2σ²)}`` and ``Q·e^{kz} = e^{k(k−1)/(2σ²)} N(k, σ²)``:

      ``P_θ = P^{1+θ} Q^{−θ}/e^{κ} = Σ_{k=0}^{p} w_k N(k, σ²)``,  ``w_k ∝ C(p, k)(1 − q)^{p−k} q^k e^{k(k−1)/(2σ²)}``,
      ``p = 1 + θ``,  ``κ(θ) = log Σ_k C(p, k)(1 − q)^{p−k} q^k e^{k(k−1)/(2σ²)}``

  (the binomial expansion behind the RDP of the sampled Gaussian mechanism at integer orders: Mironov, Talwar
  & Zhang 2019, arXiv 1908.10530, §3.3). A round draws its component ``k`` and ``x = k + σn``; only the counts
  of the components matter, so each path draws them (binomials level by level, ``B_j = #{t : k_t ≥ j}``) and
  sorts its rounds by component. ``θ = 0`` is plain Monte Carlo. *Far components*: for large ``θ`` the
  weights are bimodal -- besides the main mode near ``k ≈ pq``, ``q^k e^{k(k−1)/(2σ²)}`` revives near ``k = p``
  (``θ ≳ 2σ² log(1/q)``, where the RDP of the subsampled Gaussian turns into that of the plain one). Where that
  far mode is separated from the main one (below 1e-17 of ``Σ_k c_k e^{kz}`` wherever a main component draws,
  ``x ≤ k_hi + 10σ``; ``_remove_terms`` in :mod:`.montecarlo_tilts`) it is dropped: the proposal is the main mode alone with its own
  normaliser ``κ_main``, and ``W = e^{−θL + Tκ_main}`` neglects a factor ``Π_t (1 + r_t)``, ``r_t < 1e-17``
  (exact to rounding unless a normal exceeds 10 sd, 1.5e-23 per draw). Without this the best order stops where
  the far mode sets in, short of what ``ε`` needs: at Table 9's ``σ, q`` with ``T = 50, ε = 0.0105``
  (``δ ≈ 2e-30``) the effective sample size was 1 of 2¹⁴; with it 2300 (``bound/δ = 10``).

  This replaces the mixture ``(1 − q')N(0, σ²) + q'N(1, σ²)`` with Rao–Blackwellised weights used before, which
  is the tilt only to first order in ``1/σ``: its weights depend on the path beyond ``L`` and are heavy-tailed at
  ``σ ≲ 1`` -- at ``σ = 0.8, q = 0.02, T = 1000, ε = 12.23`` (``δ = 1e-12``) its effective sample size was ~5 of
  2¹⁴ and ``δ̂`` 30 times too low, against ~1900 and within 2% for the exact tilt; at ``σ = 1, q = 0.01,
  T = 1000, δ = 1e-5`` 130–470 against ~3000.
* ``"add"`` (``x_t ~ Q``, ``L_t = −ℓ``, at most ``−log(1 − q)``): ``Q_θ ∝ Q·e^{θ L_t}`` is sampled exactly by
  rejection from the shifted envelope ``N(−d, σ²)`` (``κ(θ)`` by adaptive quadrature to ~1e-11): ``Q_θ/N(−d,σ²)
  ∝ exp(−θ·softplus(z + λ) + d·z)`` is bounded for ``0 ≤ d ≤ θ`` with its maximum in closed form, and ``d``
  minimises that maximum (``logit(d/θ) + d/σ² = λ − 1/(2σ²)``); the acceptance rate is 0.92–0.999 over the
  settings of the tests. (A mirrored mixture ``(1 − q')N(0,σ²) + q'N(−1,σ²)`` was tried first: at ``σ = 1,
  q = 0.01`` its weights collapse to an effective sample size of ~2 and it underestimated ``δ_add`` ten-fold.)

``proposal="plain"`` (``θ = 0`` in both) is plain Monte Carlo; every ``θ ≥ 0`` gives an unbiased estimator.

**Automatic proposal** (:func:`default_proposal`). ``"remove"``: the integer ``θ`` that minimises ``bound``
(convex in ``θ``; the best Rényi order of the conversion above), which minimises the guaranteed ``E Y²``; as
``T → ∞`` it is the large-deviation tilt ``Tκ'(θ) ≈ ε`` (Siegmund 1976; Bucklew, *Introduction to Rare Event
Simulation*, 2004, ch. 5). Only integer orders have the mixture form, which costs where ``bound/δ`` varies fast
in ``θ`` (σ ≲ 0.7 and small ``T``: at ``σ = 0.7, q = 0.2, T = 20, δ = 1e-10`` the best integer gives ``bound/δ
= 134`` where ``θ = 1.4`` would give 11); the effective-sample-size check below flags it. ``"add"``: the mean ``m``
and standard deviation ``s`` of ``L`` under ``Q`` (quadrature) set the proposal mean of ``L``, ``Tκ'(θ)``, to
``ε + s/max(a, 1)``, ``a = (ε − m)/s`` (no tilt when ``ε ≤ m``): for Gaussian ``L`` the variance-optimal shift
is ``ε + 1.5 s/a`` for ``(L − ε)₊``-like integrands and ``ε + 0.5 s/a`` for an indicator; the rule sits between.

**Confidence interval.** ``CI = δ̂ ± z_{(1+level)/2}·sd(Y)/√n`` from the standard error of the ``n`` weighted
integrands ``Y_i`` by the CLT (clipped to ``[0, 1]``). For ``max(δ_remove, δ_add)`` the CI is ``[max(lo_r,
lo_a), max(hi_r, hi_a)]``: it covers the true maximum whenever both direction CIs cover theirs, so its
coverage is at least ``1 − 2(1 − level)``.

**Trust.** The CLT interval of a mean of ``n`` bounded but skewed ``Y`` needs enough paths that carry the
estimate: :attr:`DirectionDelta.ess`, the Kish effective sample size ``(Σ Y_i)²/Σ Y_i²`` of the weights
``Y_i`` that make up ``δ̂`` (``≈ 1/rse²`` for the relative standard error ``rse``), measures that. A direction
is *reliable* when ``ess ≥`` :data:`MIN_ESS` ``= 100`` (``rse ≲ 10%``). :func:`mc_delta` and :func:`mc_epsilon`
do not enlarge the sample behind the caller's back (same arguments, same cost, same numbers); where a
direction that can be the maximum is not reliable (a direction cannot be when its ``bound`` lies below the
other's lower limit, or is 0) they refuse: a ``ValueError`` that names the setting, ``n_samples``, the effective
sample sizes and the ``n_samples`` that would reach :data:`MIN_ESS` (the ESS grows in proportion to ``n``).
``unreliable="warn"`` returns the estimate instead, with a :class:`MonteCarloWarning` carrying the same message
and ``reliable`` ``False`` on the result. Why 100 suffices here and not for the
mixture it replaces: with every ``Y ≤ bound``, ``E Y²/δ² ≤ bound/δ`` and no heavy tail can hide from the
sample; the coverage test (``tests/test_montecarlo_coverage.py``) finds 2, 0 and 1 misses in 40 runs (5 allowed)
at σ = 0.8–2 and δ down to 1e-12 with ESS 194–529 (2¹¹ paths; 9 in 500 with 2¹⁴ paths, the issue's
settings included), where the Rao–Blackwellised mixture missed 40, 32 and 0 (and 9 of 30 at σ = 1, q = 0.01,
T = 1000, δ = 1e-5 with 2¹⁴ paths, at an ESS of 130–470).

**Inverting the band** (:func:`mc_epsilon`). ``δ̂(ε)`` is nonincreasing on fixed samples, but the band
``lo(ε), hi(ε)`` need not be monotone far from the ``ε`` the proposal aims at (at ``ε = 0`` a tilted sample has
a huge standard error and ``lo`` clips to 0). The interval is the stretch around ``ε̂`` on which the band
contains ``δ``: ``ε_lo`` is the largest ``ε ≤ ε̂`` at which ``lo(ε) ≥ δ`` (below it, ``δ(ε) > δ`` at the
confidence level), ``ε_hi`` the smallest ``ε ≥ ε̂`` at which ``hi(ε) ≤ δ``; each is bracketed by steps
doubling away from ``ε̂`` and then found by Brent's method. (Checking only ``ε = 0`` gave ``[0, 4.518]`` for
``ε̂ = 4.508`` at ``σ = 2, q = 0.5, T = 10, δ = 1e-6``.)

**Sampling.** Both directions start from the same standard normals (common random numbers; the ``"add"``
direction redraws only its rejected candidates), and the rounds of a ``"remove"`` path are sorted by their
mixture component (``L`` is a sum over rounds, so only the counts matter). Rounds are processed
``chunk`` at a time (memory ``O(n_samples × chunk)``). Everything random comes from one
``get_backend(backend).rng(seed)``; the kernel is written against the array namespace and runs unchanged on
CuPy.

The public functions take ``σ`` positionally and the rest by keyword only (``mc_delta(σ, q=…, T=…, eps=…)``).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from .._validation import check_in_interval, check_int
from ..backend import get_backend
from .gdp import gdp_epsilon, mu_clt
from .montecarlo_paths import _Paths, _sample
from .montecarlo_tilts import MAX_REMOVE_ORDER, _check_model, _log_sup, default_proposal

__all__ = [
    "MIN_ESS",
    "MonteCarloWarning",
    "DirectionDelta",
    "MonteCarloDelta",
    "MonteCarloEpsilon",
    "mc_delta",
    "mc_epsilon",
]

#: Elements ``n_samples × chunk`` of one array at the default chunk: 512 KiB in float64. Larger temporaries
#: are returned to the OS and faulted in again by glibc's malloc on every chunk (measured on NumPy at
#: n_samples = 2¹⁶: 33 ns per path and round at 512 KiB, 60 ns at 1 MiB).
_CHUNK_ELEMENTS = 2**16
#: Smallest effective sample size (:attr:`DirectionDelta.ess`) at which an interval is trusted (module docstring,
#: *Trust*): below it :func:`mc_delta` and :func:`mc_epsilon` refuse, or warn (:class:`MonteCarloWarning`) when asked.
MIN_ESS = 100.0

# --------------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------------


class MonteCarloWarning(UserWarning):
    """A Monte-Carlo interval that is not to be trusted (an effective sample size below :data:`MIN_ESS`).

    It is returned, with this warning, because the caller passed ``unreliable="warn"``.
    """


@dataclass(frozen=True)
class DirectionDelta:
    """``δ̂`` of one direction (``"remove"`` or ``"add"``), its CLT interval, standard error and diagnostics.

    ``proposal`` is the tilt ``θ`` of that direction (an integer for ``"remove"``). ``ess`` is the Kish effective
    sample size ``(Σ w_i)²/Σ w_i²`` of the weights ``w_i = W_i·(1 − e^{ε−L_i})₊`` that make up ``δ̂``
    (``n_samples`` for equal weights; ``≈ 1/(relative standard error)²``). ``bound`` is the supremum of one
    weighted integrand, hence an upper bound on that direction's ``δ(ε)`` (:func:`_log_sup`, an RDP-to-DP
    bound; ``0`` where ``δ`` is 0 exactly). ``reliable``: ``ess ≥`` :data:`MIN_ESS`.

    Attributes
    ----------
    direction : {"remove", "add"}
        The direction.
    estimate : float
        ``δ̂`` of that direction.
    lo : float
        The lower end of the CLT interval of ``estimate``.
    hi : float
        The upper end of the CLT interval of ``estimate``.
    stderr : float
        The standard error of ``estimate``.
    proposal : float
        The tilt ``θ`` of that direction (an integer for ``"remove"``).
    ess : float
        The Kish effective sample size of the weights.
    bound : float
        An upper bound on that direction's ``δ(ε)``, the supremum of one weighted integrand.
    """

    direction: str
    estimate: float
    lo: float
    hi: float
    stderr: float
    proposal: float
    ess: float
    bound: float

    @property
    def reliable(self) -> bool:
        """Whether the effective sample size reaches :data:`MIN_ESS` (module docstring, *Trust*)."""
        return self.ess >= MIN_ESS

    def __repr__(self) -> str:
        return (
            f"DirectionDelta({self.direction}: {self.estimate:.6g}, CI [{self.lo:.6g}, {self.hi:.6g}], "
            f"stderr={self.stderr:.3g}, theta={self.proposal:.4g}, ess={self.ess:.4g}, bound={self.bound:.3g})"
        )


def _unreliable(remove: DirectionDelta, add: DirectionDelta) -> list[DirectionDelta]:
    """The directions that can be the maximum ``max(δ_remove, δ_add)`` but are not reliable. A direction cannot be
    the maximum when its ``bound`` is 0 or lies below the other direction's lower limit, that one reliable."""

    def matters(d, other):
        return d.bound > 0.0 and not (other.reliable and d.bound < other.lo)

    return [d for d, o in ((remove, add), (add, remove)) if not d.reliable and matters(d, o)]


def _proposal_text(proposal) -> str:
    return f"proposal=(theta_remove={proposal[0]:d}, theta_add={proposal[1]:.4g})"


@dataclass(frozen=True)
class MonteCarloDelta:
    """Monte-Carlo ``δ(ε)`` of ``T``-fold Poisson-subsampled Gaussian (add/remove), with its CI and settings.

    ``estimate = max(remove.estimate, add.estimate)``; ``(lo, hi) = (max(lo_r, lo_a), max(hi_r, hi_a))`` with
    each direction's interval at ``level`` (module docstring). ``proposal = (θ_remove, θ_add)``. ``reliable``:
    whether the interval is trusted (module docstring, *Trust*); :func:`mc_delta` refuses one that is not,
    unless asked to warn.

    Attributes
    ----------
    estimate : float
        ``δ̂(ε) = max(remove.estimate, add.estimate)`` (``float()`` of the result).
    lo : float
        The lower end of the confidence interval of ``δ(ε)``.
    hi : float
        The upper end of the confidence interval of ``δ(ε)``.
    level : float
        The confidence level of each direction's interval.
    remove : DirectionDelta
        The ``"remove"`` direction.
    add : DirectionDelta
        The ``"add"`` direction.
    sigma : float
        The noise multiplier σ.
    q : float
        The Poisson sampling rate.
    T : int
        The number of rounds.
    eps : float
        The ε at which δ is estimated.
    n_samples : int
        The sampled paths per direction.
    proposal : tuple of (int, float)
        ``(θ_remove, θ_add)``, the tilts used.
    seed : int
        The seed of the run's generator.
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
    proposal: tuple[int, float]
    seed: int

    @property
    def half_width(self) -> float:
        """Half the CI width relative to the estimate (``inf`` when the estimate is 0)."""
        return (self.hi - self.lo) / (2.0 * self.estimate) if self.estimate > 0 else math.inf

    @property
    def reliable(self) -> bool:
        """Whether every direction that can be the maximum has ``ess ≥`` :data:`MIN_ESS`."""
        return not _unreliable(self.remove, self.add)

    def __float__(self) -> float:
        return self.estimate

    def __repr__(self) -> str:
        return (
            f"MonteCarloDelta(delta={self.estimate:.6g}, {self.level:.0%} CI [{self.lo:.6g}, {self.hi:.6g}] at "
            f"eps={self.eps:g}; sigma={self.sigma:g}, q={self.q:g}, T={self.T}, n_samples={self.n_samples}, "
            f"{_proposal_text(self.proposal)}, seed={self.seed}; remove={self.remove.estimate:.4g} "
            f"(ess={self.remove.ess:.4g}), add={self.add.estimate:.4g} (ess={self.add.ess:.4g})"
            f"{'' if self.reliable else '; NOT RELIABLE'})"
        )


@dataclass(frozen=True)
class MonteCarloEpsilon:
    """Monte-Carlo ``ε(δ)`` of ``T``-fold Poisson-subsampled Gaussian (add/remove), with its interval and settings.

    The root of ``δ̂(ε) = δ`` on one set of sampled losses, and the ``ε`` interval around it on which the ``δ``
    CI band contains ``δ`` (module docstring, *Inverting the band*).

    ``remove`` and ``add`` are the two directions at ``ε = eps`` (their ``ess`` the diagnostic); ``reliable`` as
    for :class:`MonteCarloDelta`, at ``eps``.

    Attributes
    ----------
    eps : float
        The root ``ε̂`` of ``δ̂(ε) = δ`` (``float()`` of the result).
    lo : float
        The lower end of the ``ε`` interval on which the ``δ`` CI band contains ``δ``.
    hi : float
        The upper end of that interval.
    delta : float
        The target δ.
    level : float
        The confidence level of the ``δ`` band.
    sigma : float
        The noise multiplier σ.
    q : float
        The Poisson sampling rate.
    T : int
        The number of rounds.
    n_samples : int
        The sampled paths per direction.
    proposal : tuple of (int, float)
        ``(θ_remove, θ_add)``, the tilts of the final run.
    seed : int
        The seed of the run's generator.
    pilot_eps : float
        Where the final proposal was aimed (the pilot run's root; ``nan`` if ``proposal`` was given).
    remove : DirectionDelta
        The ``"remove"`` direction at ``ε = eps``.
    add : DirectionDelta
        The ``"add"`` direction at ``ε = eps``.
    """

    eps: float
    lo: float
    hi: float
    delta: float
    level: float
    sigma: float
    q: float
    T: int
    n_samples: int
    proposal: tuple[int, float]
    seed: int
    pilot_eps: float  # where the final proposal was aimed (the pilot run's root; nan if proposal was given)
    remove: DirectionDelta
    add: DirectionDelta

    @property
    def reliable(self) -> bool:
        """Whether every direction that can be the maximum at ``eps`` has ``ess ≥`` :data:`MIN_ESS`."""
        return not _unreliable(self.remove, self.add)

    def __float__(self) -> float:
        return self.eps

    def __repr__(self) -> str:
        return (
            f"MonteCarloEpsilon(eps={self.eps:.6g}, {self.level:.0%} CI [{self.lo:.6g}, {self.hi:.6g}] at "
            f"delta={self.delta:g}; sigma={self.sigma:g}, q={self.q:g}, T={self.T}, n_samples={self.n_samples}, "
            f"{_proposal_text(self.proposal)}, seed={self.seed}; ess remove={self.remove.ess:.4g}, "
            f"add={self.add.ess:.4g}{'' if self.reliable else '; NOT RELIABLE'})"
        )


# --------------------------------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------------------------------


def _check_run(n_samples, level, chunk, T) -> tuple[int, float, int]:
    n_samples = check_int("n_samples", n_samples, 2)
    level = check_in_interval("level", level, 0.0, 1.0)
    chunk = _default_chunk(n_samples, T) if chunk is None else check_int("chunk", chunk, 1)
    return n_samples, level, chunk


def _check_proposal(proposal) -> tuple[int, float] | None:
    """``None`` (automatic), ``"plain"`` → ``(0, 0)``, or ``(θ_remove, θ_add)``: an integer ``θ_remove`` in
    ``[0, MAX_REMOVE_ORDER]`` and ``θ_add ≥ 0``."""
    if proposal is None:
        return None
    if isinstance(proposal, str) and proposal == "plain":
        return 0, 0.0
    if isinstance(proposal, str) or np.ndim(proposal) != 1 or len(proposal) != 2:
        raise ValueError(f"proposal must be None, 'plain' or a pair (theta_remove, theta_add), got {proposal!r}")
    order = check_int("proposal[0] (theta_remove)", proposal[0], 0, MAX_REMOVE_ORDER,
                      why="the integer order of the remove direction's tilt")
    theta = check_in_interval("proposal[1] (theta_add)", proposal[1], 0.0, math.inf, lo_closed=True)
    return order, theta


def _default_chunk(n: int, T: int) -> int:
    return int(max(1, min(T, _CHUNK_ELEMENTS // n)))


# --------------------------------------------------------------------------------------------------
# one direction's estimate from its paths
# --------------------------------------------------------------------------------------------------


def _direction(name: str, paths: _Paths, eps: float, z: float, xp) -> DirectionDelta:
    """``δ̂`` of one direction at ``ε`` from its paths, with the CLT interval, the ESS and the bound."""
    L, logW = paths.L, paths.logW
    n = L.shape[0]
    bound = 0.0 if eps >= paths.top else math.exp(min(_log_sup(paths.t_kappa, paths.theta, eps), 0.0))
    g = -xp.expm1(xp.minimum(eps - L, 0.0))  # (1 − e^{ε−L})₊
    live = g > 0.0
    if not bool(xp.any(live)):
        return DirectionDelta(name, 0.0, 0.0, 0.0, 0.0, paths.theta, 0.0, bound)
    c = float(xp.max(xp.where(live, logW, -math.inf)))  # shift: Y/e^c ≤ 1
    Y = g * xp.exp(xp.minimum(logW - c, 0.0))
    mean = float(xp.mean(Y))
    sd = float(xp.std(Y, correction=1))
    ess = mean**2 * n**2 / float(xp.sum(Y * Y))
    scale = math.exp(c)
    est, se = mean * scale, sd * scale / math.sqrt(n)
    return DirectionDelta(name, est, max(est - z * se, 0.0), min(est + z * se, 1.0), se, paths.theta, ess, bound)


def _z(level: float) -> float:
    return float(stats.norm.ppf(0.5 + level / 2.0))


def _check_unreliable(unreliable: str) -> str:
    if unreliable not in ("raise", "warn"):
        raise ValueError(f"unreliable must be 'raise' or 'warn', got {unreliable!r}")
    return unreliable


def _refuse_unreliable(result, what: str, unreliable: str) -> None:
    """A ``ValueError`` (``unreliable="raise"``) or :class:`MonteCarloWarning` (``"warn"``) naming the setting,
    ``n_samples``, each short direction's ESS and what to do, where a direction that matters is not reliable."""
    short = _unreliable(result.remove, result.add)
    if not short:
        return
    worst = min(d.ess for d in short)
    if worst >= 1.0:  # the ESS grows in proportion to n_samples
        todo = f"pass n_samples >= {2 ** math.ceil(math.log2(result.n_samples * MIN_ESS / worst))}"
    else:
        todo = "no sampled path reached eps: pass a larger n_samples or a proposal aimed at this eps"
    ess = ", ".join(f"{d.direction} {d.ess:.3g}" for d in short)
    message = (f"{what}: effective sample size below MIN_ESS = {MIN_ESS:g} ({ess}) at sigma={result.sigma:g}, "
               f"q={result.q:g}, T={result.T}, n_samples={result.n_samples}, so the {result.level:.0%} interval may "
               f"not cover; {todo}")
    if unreliable == "raise":
        raise ValueError(f"{message}, or unreliable='warn' to get the estimate flagged as unreliable")
    warnings.warn(f"{message} (the result's .remove.ess and .add.ess show the effective sample sizes).",
                  MonteCarloWarning, stacklevel=3)


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
    unreliable: str = "raise",
) -> MonteCarloDelta:
    r"""Monte-Carlo ``δ(ε)`` of ``T`` rounds of DP-SGD (Poisson rate ``q``, noise multiplier ``σ``, add/remove).

    Importance-sampled estimate of ``max(δ_remove(ε), δ_add(ε))``, ``δ_dir(ε) = E[(1 − e^{ε−L})₊]``
    (hockey-stick divergence), with the CLT interval of each direction and of the maximum (module docstring:
    model, estimator, proposals, interval, trust). Refuses (or warns, with ``unreliable="warn"``) when an
    effective sample size that matters is below :data:`MIN_ESS`.

    Parameters
    ----------
    sigma : float in (0, inf)
        The noise multiplier ``σ > 0`` (sensitivity 1).
    q : float in (0, 1]
        The Poisson sampling rate (``q = 1``: the Gaussian mechanism without subsampling).
    T : int
        The number of rounds, an integer ``≥ 1``.
    eps : float in [0, inf)
        The ``ε ≥ 0`` at which ``δ`` is estimated.
    n_samples : int, default 2**16
        Sampled paths per direction, ``≥ 2``.
    seed : int, default 0
        Seed of the run's single generator; the same seed gives the same numbers.
    level : float in (0, 1), default 0.99
        Confidence level of each direction's interval.
    proposal : None, "plain" or tuple of (int, float), optional
        ``None`` (automatic, :func:`default_proposal`), ``"plain"`` (plain Monte Carlo, ``(0, 0)``), or
        ``(θ_remove, θ_add)``: the exponential tilts of the two directions, an integer ``θ_remove`` in
        ``[0, MAX_REMOVE_ORDER]`` and a real ``θ_add ≥ 0``.
    backend : {"numpy", "cupy"}, optional
        The array backend (default ``$DPTHEORY_BACKEND`` or NumPy).
    chunk : int, optional
        Rounds processed at once (default ``max(1, 2¹⁶ // n_samples)``; memory ``O(n_samples × chunk)``).
    unreliable : {"raise", "warn"}, default "raise"
        ``"raise"`` (default): refuse, with a ``ValueError`` saying which ``n_samples`` would do, where
        an effective sample size that matters is below :data:`MIN_ESS`; ``"warn"``: return the result with a
        :class:`MonteCarloWarning` (module docstring, *Trust*).

    Returns
    -------
    MonteCarloDelta
        The estimate, its interval at ``level``, both directions and the settings.

    Raises
    ------
    ValueError
        With ``unreliable="raise"``, where an effective sample size that matters is below :data:`MIN_ESS`; and
        for an argument out of range.

    Warns
    -----
    MonteCarloWarning
        With ``unreliable="warn"``, where an effective sample size that matters is below :data:`MIN_ESS`.

    Examples
    --------
    Without subsampling, ``T`` rounds are one Gaussian mechanism with ``μ = √T/σ``, whose ``δ(ε)`` is in
    closed form (Dong–Roth–Su Cor. 2.13):

    >>> import math
    >>> from scipy.stats import norm
    >>> r = mc_delta(sigma=2.0, q=1.0, T=4, eps=1.0, n_samples=4096)
    >>> exact = norm.cdf(-1.0 + 0.5) - math.e * norm.cdf(-1.0 - 0.5)
    >>> bool(r.lo <= exact <= r.hi and r.reliable)
    True
    """
    sigma, q, T = _check_model(sigma, q, T)
    unreliable = _check_unreliable(unreliable)
    eps = check_in_interval("eps", eps, 0.0, math.inf, lo_closed=True)
    n_samples, level, chunk = _check_run(n_samples, level, chunk, T)
    prop = _check_proposal(proposal)
    if prop is None:
        prop = default_proposal(sigma, q=q, T=T, eps=eps)
    bk = get_backend(backend)
    rem, add = _sample(sigma, q, T, prop, n_samples, bk.rng(seed), bk, chunk)
    z = _z(level)
    r = _direction("remove", rem, eps, z, bk.xp)
    a = _direction("add", add, eps, z, bk.xp)
    res = MonteCarloDelta(
        estimate=max(r.estimate, a.estimate), lo=max(r.lo, a.lo), hi=max(r.hi, a.hi), level=level,
        remove=r, add=a, sigma=sigma, q=q, T=T, eps=eps, n_samples=n_samples, proposal=prop, seed=seed,
    )  # fmt: skip
    _refuse_unreliable(res, f"mc_delta at eps={eps:g}", unreliable)
    return res


#: First step of the scan for the ends of the ``ε`` interval, relative to ``1 + ε̂`` (:func:`_invert`).
_SCAN_STEP = 1e-6


def _invert(samples, delta: float, z: float, xp) -> tuple[float, float, float]:
    """``(ε̂, ε_lo, ε_hi)`` on fixed samples (module docstring, *Inverting the band*): ``ε̂`` the root of
    ``δ̂(ε) = δ``; ``ε_lo`` the largest ``ε ≤ ε̂`` at which the lower band is still ``≥ δ`` (``0`` if none);
    ``ε_hi`` the smallest ``ε ≥ ε̂`` at which the upper band has dropped to ``δ``. Each end is bracketed by steps
    doubling away from ``ε̂`` and then found by Brent's method."""

    def band(eps, which):
        d = [_direction("", s, eps, z, xp) for s in samples]
        return max((x.estimate, x.lo, x.hi)[which] for x in d) - delta

    top = max(0.0, *(float(xp.max(s.L)) for s in samples)) + 1.0  # δ̂ = lo = hi = 0 beyond every sampled L

    def brent(which, a, b):
        return optimize.brentq(band, a, b, args=(which,), xtol=1e-12, rtol=1e-10)

    est = 0.0 if band(0.0, 0) <= 0.0 else brent(0, 0.0, top)  # δ̂ is nonincreasing in ε

    def end(which, sign, limit, outside):
        # steps doubling from ε̂ towards limit up to the first point outside (the band on δ's far side); the band
        # crosses δ between that point and the previous one
        inside, step = est, _SCAN_STEP * (1.0 + est)
        while True:
            out = est + sign * step
            if sign * (out - limit) >= 0.0:
                out = limit
            v = band(out, which)
            if outside(v):
                break
            if out == limit:
                return limit
            inside, step = out, 2.0 * step
        return out if v == 0.0 else brent(which, min(inside, out), max(inside, out))

    lo = end(1, -1.0, 0.0, lambda v: v >= 0.0)  # lower band ≥ δ: δ(ε) > δ there, so ε < ε_true
    hi = end(2, 1.0, top, lambda v: v <= 0.0)  # upper band ≤ δ: δ(ε) < δ there, so ε > ε_true
    return est, lo, hi


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
    unreliable: str = "raise",
) -> MonteCarloEpsilon:
    r"""Monte-Carlo ``ε(δ)`` of ``T`` rounds of DP-SGD (Poisson rate ``q``, noise multiplier ``σ``, add/remove).

    The losses are sampled once and ``δ̂(ε) = max(δ̂_remove, δ̂_add)`` (nonincreasing in ``ε``) is inverted on
    those same samples; the interval is the stretch around ``ε̂`` on which the CI band of :func:`mc_delta`
    contains ``δ`` (module docstring, *Inverting the band*). The proposal must suit the ``ε`` sought, so a pilot
    aims it: the Gaussian-DP CLT guess ``ε₀`` (``μ = q√(T(e^{1/σ²} − 1))``) aims a pilot run of ``n_samples/8``
    paths, and the pilot's root aims the final run (one generator for both). ``proposal`` replaces both;
    ``delta`` lies in ``(0, 1)``, the other parameters are those of :func:`mc_delta`. Refuses (or warns, with
    ``unreliable="warn"``) when an effective sample size that matters at ``ε̂`` is below :data:`MIN_ESS`.

    Parameters
    ----------
    sigma : float in (0, inf)
        The noise multiplier ``σ > 0`` (sensitivity 1).
    q : float in (0, 1]
        The Poisson sampling rate.
    T : int
        The number of rounds, an integer ``≥ 1``.
    delta : float in (0, 1)
        The target δ.
    n_samples : int, default 2**16
        Sampled paths per direction of the final run, ``≥ 2`` (the pilot uses ``n_samples/8``).
    seed : int, default 0
        Seed of the single generator of both runs.
    level : float in (0, 1), default 0.99
        Confidence level of the ``δ`` band.
    proposal : None, "plain" or tuple of (int, float), optional
        As for :func:`mc_delta`; a given proposal replaces the pilot.
    backend : {"numpy", "cupy"}, optional
        The array backend (default ``$DPTHEORY_BACKEND`` or NumPy).
    chunk : int, optional
        Rounds processed at once, as for :func:`mc_delta`.
    unreliable : {"raise", "warn"}, default "raise"
        As for :func:`mc_delta`, at ``ε̂``.

    Returns
    -------
    MonteCarloEpsilon
        The root ``ε̂``, its interval, both directions at ``ε̂`` and the settings.

    Raises
    ------
    ValueError
        With ``unreliable="raise"``, where an effective sample size that matters at ``ε̂`` is below
        :data:`MIN_ESS`; and for an argument out of range.

    Warns
    -----
    MonteCarloWarning
        With ``unreliable="warn"``, where an effective sample size that matters at ``ε̂`` is below
        :data:`MIN_ESS`.

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
    unreliable = _check_unreliable(unreliable)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    n_samples, level, chunk = _check_run(n_samples, level, chunk, T)
    prop = _check_proposal(proposal)
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
    res = MonteCarloEpsilon(
        eps=est, lo=lo, hi=hi, delta=delta, level=level, sigma=sigma, q=q, T=T, n_samples=n_samples,
        proposal=prop, seed=seed, pilot_eps=pilot_eps,
        remove=_direction("remove", samples[0], est, z, bk.xp), add=_direction("add", samples[1], est, z, bk.xp),
    )  # fmt: skip
    _refuse_unreliable(res, f"mc_epsilon at delta={delta:g} (eps={est:.4g})", unreliable)
    return res
