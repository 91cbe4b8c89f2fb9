r"""Monte-Carlo simulation of Noisy-FTRL / DP-FTRL (seed 004, Algorithm 1), vectorised over seeds.

``θ_{t+1} = θ_t − η (g_t + G σ_dp (N w)_t)`` with ``g_t`` the stochastic gradient of the problem (clipped to
norm ``G`` for DP-FTRL), ``w_t ~ N(0, I_d)``, the mechanism's noising matrix ``N`` (its own
:meth:`~dptheory.Mechanism.noise_stream`) and ``σ_dp`` from :func:`dptheory.accounting.calibrate_noise`
(Thm 1.1). Independent chains run side by side as one ``(chains, d)`` array; every random number of a run comes
from one seeded generator of the chosen backend (:mod:`dptheory.backend`), so the same seed gives the same
numbers. The problem supplies its data, gradients and suboptimality (:meth:`~dptheory.problems.MeanEstimation.dynamics`).

``horizon=None``: the stationary suboptimality ``F∞`` is estimated per chain by the time average of
``F(θ_t) − F⋆`` after a burn-in of several mixing times, and its standard error across the independent chains.
``horizon=n``: ``E[F(θ_n) − F⋆]`` from ``θ_0 = θ⋆`` (what :func:`dptheory.F_inf` gives at ``horizon=n``) is
estimated by the mean over chains of the last iterate's suboptimality.

An infinite ``β`` (ν-DP-FTRL, ``β*``) is simulated through its first ``taps`` coefficients: the simulated
mechanism is that finite ``β`` (``result.mechanism``), calibrated to its own ``γ∞``, so that
``F_inf(result.mechanism, …)`` is the exact prediction for what was simulated. The truncation is a different
mechanism: ``result.truncation`` records ``F∞`` of both, and :func:`simulate` warns when they differ by more
than the run's standard error (``tests/test_simulation.py``: on ``MeanEstimation(0.1)``, ν-FTRL with ν = 1e-6 loses 15 % of
``F∞`` at the default 2¹⁴ taps). ν-DP-FTRL has a closer stand-in with no history: its BLT approximation
:func:`dptheory.nu_ftrl_blt` (a sum of ~50 exponentials, ``F∞`` within 2.3e-7 relative for ν from 1e-5 to 0.5),
which, like every BLT, is simulated whole; at the default ``taps`` and ν in that range :func:`simulate` runs it
wherever the cost model finds its stream cheaper than the truncation's (always, past a dozen taps), and
``result.truncation.stand_in`` names it. Pass ``taps`` to simulate the truncation instead.

Which stream ran is ``result.settings["route"]``: the direct sum or the overlap-save FFT of a finite ``β``,
whichever :func:`~dptheory.mechanisms.streaming.fir_route` estimates cheaper at the run's block; a BLT's buffers;
a mechanism's own stream. A finite ``β`` streams only the taps that reach back within the run (a 2048-step run of a
65 536-tap filter transforms 2048 of them, exactly). Every array of a run (the white noise, each data array) has
its own generator, spawned from ``seed``, drawn block after block: the block changes no random number, so the
route and block the cost model picks change a result only by rounding (1e-12 relative, ``tests/test_simulation.py``).
From dptheory 0.2.0; 0.1.0 drew every array from one generator, block by block, and ran ν-DP-FTRL's truncation at
the default taps, so the same seed gives other (equally distributed) numbers.

A time average has a confidence interval only if ``F(θ_t) − F⋆`` has a finite variance, i.e. ``θ_t`` a
finite fourth moment. Mean estimation and the strongly convex problems have a deterministic contraction and
additive noise with all moments, so every moment is finite at every stable ``η``; linear regression with
Gaussian inputs has multiplicative noise, and :func:`simulate` refuses
``η ≥ LinearRegression.eta_max_fourth_moment``.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ._validation import check_int, check_privacy
from .accounting.calibration import calibrate_noise
from .backend import BACKENDS, get_backend
from .mechanisms.base import Mechanism, Participation, require_stationary
from .mechanisms.blt import BLT, nu_ftrl_blt
from .mechanisms.streaming import _BLT_CHUNK, blt_cost, fir_route
from .mechanisms.toeplitz import FiniteToeplitz, MechanismLike, SqrtToeplitz, ToeplitzMechanism, as_mechanism
from .problems import LinearRegression, MeanEstimation, StronglyConvex
from .stats import Estimate
from .suboptimality import F_inf

__all__ = ["SimulationResult", "Truncation", "simulate", "simulate_common", "default_taps", "MEMORY", "PrefixErrorSimulation",
           "simulate_prefix_errors"]

_MAX_TAPS = 1 << 14
#: bytes a run may hold by default for its noise stream's history and its blocks (``memory=`` of :func:`simulate`)
MEMORY = 1 << 30


@dataclass(frozen=True)
class Truncation:
    r"""What :func:`simulate` ran in place of the requested ``β``.

    Its first ``taps`` coefficients, calibrated to their own ``γ∞`` (Thm 1.1), which is a different mechanism; or,
    for ν-DP-FTRL at the default ``taps`` where the cost model finds it cheaper, its BLT approximation
    :func:`dptheory.nu_ftrl_blt` run whole (``stand_in`` names it, ``taps`` is ``None``).

    ``F_inf_simulated`` / ``F_inf_requested``: the exact ``F∞`` (:func:`dptheory.F_inf`) of the simulated and
    of the requested ``β``; ``None`` for :class:`~dptheory.problems.StronglyConvex`, which has none.

    Attributes
    ----------
    requested : str
        The name of the requested mechanism.
    taps : int or None
        The coefficients simulated; ``None`` for a stand-in.
    gamma_ratio : float
        ``γ∞(simulated) / γ∞(requested)``: ``σ_dp`` is scaled by this.
    F_inf_simulated : float or None
        The exact ``F∞`` of the simulated ``β``.
    F_inf_requested : float or None
        The exact ``F∞`` of the requested ``β``.
    stand_in : str or None, default None
        The name of the stand-in simulated whole; ``None`` for a truncation.
    """

    requested: str
    taps: int | None
    gamma_ratio: float  # γ∞(simulated) / γ∞(requested): σ_dp is scaled by this
    F_inf_simulated: float | None
    F_inf_requested: float | None
    stand_in: str | None = None

    @property
    def relative_shift(self) -> float | None:
        """``F∞(simulated)/F∞(requested) − 1``, or ``None`` where no exact ``F∞`` exists."""
        if self.F_inf_simulated is None:
            return None
        return self.F_inf_simulated / self.F_inf_requested - 1.0

    def shift(self, mean: float) -> float:
        """How far the truncation moves ``F∞``.

        ``F∞(simulated) − F∞(requested)``; without an exact ``F∞``, the change of the calibrated noise variance
        ``σ_dp²`` applied to the simulated ``mean``, ``(gamma_ratio² − 1)·mean`` (the DP part's shift when the
        truncation leaves the pole integrals unchanged, an upper bound on it when the DP noise is not all of
        ``F∞``).

        Parameters
        ----------
        mean : float
            The simulated mean (used only without an exact ``F∞``).

        Returns
        -------
        float
            The shift of ``F∞``.
        """
        if self.F_inf_simulated is None:
            return (self.gamma_ratio**2 - 1.0) * mean
        return self.F_inf_simulated - self.F_inf_requested


@dataclass(frozen=True)
class SimulationResult:
    """Estimated suboptimality with its standard error across independent chains, and every setting used.

    ``mechanism`` is the mechanism that was simulated (``F_inf(result.mechanism, …)`` at the same ``horizon`` is
    its exact prediction): at ``horizon=None`` the finite ``β`` run in place of an infinite one, which
    ``truncation`` records (``None`` when the requested mechanism ran whole). ``chain_means`` holds one replicate
    per chain: its time average (``horizon=None``) or its last iterate's suboptimality (``horizon=n``).

    Attributes
    ----------
    mean : float
        The estimated suboptimality, the mean over chains.
    stderr : float
        Its standard error across chains.
    chain_means : numpy.ndarray
        One replicate per chain.
    mechanism : Mechanism
        The mechanism that was simulated.
    settings : dict
        Every setting used.
    truncation : Truncation or None, default None
        The truncation of an infinite ``β``; ``None`` when the requested mechanism ran whole.
    """

    mean: float
    stderr: float
    chain_means: np.ndarray = field(repr=False)
    mechanism: Mechanism = field(repr=False)
    settings: dict = field(repr=False)
    truncation: Truncation | None = field(default=None, repr=False)

    @property
    def estimate(self) -> Estimate:
        """The estimate in the package's one statistics type (:class:`dptheory.stats.Estimate`).

        A suboptimality is non-negative, so its interval allows for the right skew of a squared norm.
        """
        return Estimate(self.mean, self.stderr, int(self.chain_means.size), nonnegative=True)

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """Confidence interval across chains (:meth:`dptheory.stats.Estimate.interval`, non-negative replicates).

        Parameters
        ----------
        level : float in (0, 1), default 0.95
            The confidence level.

        Returns
        -------
        tuple of float
            ``(lo, hi)``.
        """
        return self.estimate.interval(level)

    def __repr__(self) -> str:
        lo, hi = self.interval()
        s = self.settings
        run = f"horizon={s['horizon']}" if s.get("horizon") is not None else f"steps={s['steps']}, burn_in={s['burn_in']}, taps={s['taps']}"
        return (
            f"SimulationResult(mean={self.mean:.6g}, stderr={self.stderr:.3g}, 95% CI=[{lo:.6g}, {hi:.6g}], "
            f"chains={s['seeds']}, {run})"
        )


def default_taps(beta: ToeplitzMechanism) -> int:
    """All coefficients of a finite ``β``; for an infinite one, its support capped at 2¹⁴ taps.

    Parameters
    ----------
    beta : ToeplitzMechanism
        The mechanism.

    Returns
    -------
    int
        The number of taps :func:`simulate` uses by default.
    """
    if isinstance(beta, FiniteToeplitz):
        return beta.beta.size
    return int(min(beta._support(), _MAX_TAPS))


def _clip_rows(grad, G: float, xp):
    """``clip(g, G) = g·min(1, G/‖g‖₂)`` per chain (Alg. 1 of seed 004), over the last axis."""
    norm = xp.sqrt(xp.sum(grad * grad, axis=-1))
    return grad * xp.minimum(1.0, G / xp.maximum(norm, 1e-300))[..., None]


def _check_problem(problem) -> None:
    """Refuse a problem the simulation cannot estimate a suboptimality for, before running."""
    if not isinstance(problem, (MeanEstimation, LinearRegression, StronglyConvex)):
        raise ValueError(f"problem must be MeanEstimation, LinearRegression or StronglyConvex, got {type(problem).__name__}")
    problem.check_simulable()


def _truncation(corr: ToeplitzMechanism, mechanism: FiniteToeplitz | BLT, gamma: float, problem, rho, G, participation):
    """The :class:`Truncation` record when ``mechanism`` (a truncation or a BLT stand-in) is not the whole of
    ``corr``, else ``None``."""
    stand_in = isinstance(mechanism, BLT)
    if not stand_in and isinstance(corr, FiniteToeplitz) and mechanism.beta.size == corr.beta.size:
        return None
    exact = not isinstance(problem, StronglyConvex)
    predict = lambda m: F_inf(m, problem, rho=rho, G=G, participation=participation) if exact else None
    return Truncation(
        requested=corr.name,
        taps=None if stand_in else int(mechanism.beta.size),
        gamma_ratio=gamma / corr.sensitivity(None, participation),
        F_inf_simulated=predict(mechanism),
        F_inf_requested=predict(corr),
        stand_in=mechanism.name if stand_in else None,
    )


def _warn_if_truncation_shows(truncation: Truncation | None, mean: float, stderr: float) -> None:
    """``UserWarning`` when the truncation moves ``F∞`` by more than the run's standard error."""
    if truncation is None or not abs(truncation.shift(mean)) > stderr:
        return
    what = (
        f"F_inf from {truncation.F_inf_requested:.6g} to {truncation.F_inf_simulated:.6g} ({truncation.relative_shift:+.2%})"
        if truncation.F_inf_simulated is not None
        else f"sigma_dp^2 by a factor {truncation.gamma_ratio**2:.6g} (about {truncation.shift(mean):+.3g} in F_inf)"
    )
    ran = (f"simulated {truncation.stand_in} in place of {truncation.requested}, calibrated to its own gamma_inf: "
           if truncation.stand_in else
           f"simulated the first {truncation.taps} taps of {truncation.requested}, calibrated to their own gamma_inf: ")
    warnings.warn(
        ran +
        f"a different mechanism, which moves {what}, more than the run's standard error {stderr:.3g}; "
        f"F_inf(result.mechanism, ...) predicts what was simulated, result.truncation records the shift",
        UserWarning,
        stacklevel=5,  # _warn_if_truncation_shows <- _simulate_on_one_thread <- _simulate <- simulate(_common) <- caller
    )


def _run(problem, streams, *, scales, G, clip, seeds, total, burn_in, block, bk, rngs, record_last):
    """The loop: ``θ ← θ − η(clip(g) + r + Gσ_dp (N w)_t)`` for ``total`` steps, one iterate per mechanism
    (``streams[m]`` and ``scales[m] = Gσ_dp``) on the same data and the same white noise ``w``; returns the per-chain
    sum of ``F(θ_t) − F⋆`` over the steps from ``burn_in`` on, or the last one when ``record_last``, shape
    ``(mechanisms, chains)``. ``rngs``: the white noise's generator, then the data's (:meth:`Dynamics.draw`); each
    draws its arrays block after block, so the numbers do not depend on ``block``."""
    xp, d, m = bk.xp, problem.d, len(streams)
    dyn = problem.dynamics(bk, seeds)
    theta = xp.zeros((m, seeds, d), dtype=xp.float64)
    noises = [stream((seeds, d), theta) for stream in streams]
    loss_sum = xp.zeros((m, seeds), dtype=xp.float64)
    eta = problem.eta
    noise_steps = [-eta * c for c in scales]  # the noise's part of a step, −ηGσ_dp (N w)_t: scales the block
    noise_rng, data_rngs = rngs[0], rngs[1:]
    t0, w, data = 0, None, None
    while t0 < total:
        K = min(block, total - t0)
        del w, data  # the last block's arrays go before the next are drawn: m + 2 block arrays at a time
        z = bk.asarray(noise_rng.standard_normal(size=(K, seeds, d)))
        if m == 1:  # the stream's block scaled in place, not copied: two block arrays fewer to fault in
            # (docs/performance.md); a stream returns a new array or its input, and z is not used again
            w = xp.reshape(noises[0](z), (K, 1, seeds, d))
            w *= noise_steps[0]
        else:
            w = xp.empty((K, m, seeds, d), dtype=xp.float64)
            for j, (noise, scale) in enumerate(zip(noises, noise_steps)):
                w[:, j, ...] = scale * noise(z)
        del z
        data = dyn.draw(data_rngs, K)
        for k in range(K):
            grad, unclipped = dyn.descent(theta, data, k)  # η times the gradients
            if clip:
                grad = _clip_rows(grad, eta * G, xp)
            # θ_{t+1} = θ_t + (−ηGσ_dp N w)_t − η clip(g) − ηr, written in place over the step's noise (a view on
            # NumPy, CuPy and array-api-strict): the block becomes the iterates' trajectory
            theta_next = w[k, ...]
            theta_next += theta
            theta_next -= grad
            if unclipped is not None:
                theta_next -= unclipped
            theta = theta_next
        theta = xp.asarray(theta, copy=True)  # its own memory: the block goes before the next is drawn
        if not record_last and t0 + K > burn_in:
            loss_sum = loss_sum + _trajectory_loss(dyn, w[max(burn_in - t0, 0) :, ...])
        if not (bool(xp.all(xp.isfinite(theta))) and bool(xp.all(xp.isfinite(loss_sum)))):
            raise FloatingPointError(
                f"non-finite iterate or loss by step {t0 + K} (block starting at step {t0}): the values "
                f"overflowed double precision (eta={eta:g}, G*sigma_dp={', '.join(f'{c:.4g}' for c in scales)})"
            )
        t0 += K
    return bk.to_numpy(dyn.suboptimality(theta) if record_last else loss_sum)


#: Entries of the iterates summed at once by :func:`_trajectory_loss` (2 MiB of float64, its temporaries in cache)
_LOSS_ELEMENTS = 1 << 18


def _trajectory_loss(dyn, trajectory):
    """``Σ_t F(θ_t) − F⋆`` over the steps of a block's trajectory ``(K, mechanisms, chains, d)``, a few steps per
    array operation (the loop's per-step suboptimality had been four array operations per step). The steps per
    operation follow ``chains·d`` only, so that each mechanism's sum is the same with or without others beside it
    (:func:`simulate_common`, bit for bit)."""
    xp, K = dyn.xp, trajectory.shape[0]
    rows = max(1, _LOSS_ELEMENTS // math.prod(trajectory.shape[2:]))
    total = 0.0
    for a in range(0, K, rows):
        total = total + xp.sum(dyn.suboptimality(trajectory[a : min(a + rows, K), ...]), axis=0)
    return total


#: Entries of one block array (8 MiB of float64) that a run whose stream needs no long blocks aims at: below glibc's
#: largest mmap threshold (32 MiB), so each block reuses the heap memory the last one freed. Blocks of 1024 steps at
#: 32 chains of ``d = 128`` (34 MB per array) were mapped afresh and faulted in page by page: 300 000 page faults
#: and 21% of the run's time in the kernel, against 6 800 and 0.6% at 256 steps (docs/performance.md).
_BLOCK_ENTRIES = 2**20


def _default_block(total: int, filter_len: int, columns: int) -> int:
    """Twice the filter; else 1024 steps, fewer (down to 256) where a block array would pass :data:`_BLOCK_ENTRIES`;
    within 256 MiB per block array; at most the run."""
    base = min(1024, max(256, _BLOCK_ENTRIES // columns))
    return int(min(total, max(2 * filter_len, base), max(256, 2**25 // columns)))


def _chain_groups(seeds: int, d: int, filter_len: int, total: int, block: int | None, memory: int, *, history: int,
                  streams: int = 1):
    """``(chains per group, block)``: the fewest equal groups (the last may be smaller) whose streams' history
    (``history`` steps: each filter's ``n − 1`` inputs, or none for a stream of a few buffers) and ``streams + 2``
    block arrays (the white noise, each mechanism's correlated stream, the data),
    ``8·(history + (streams + 2)·block)·chains·d`` bytes, fit in ``memory``; one chain per group at worst. The
    default block is sized to each group's columns."""
    for n_groups in range(1, seeds + 1):
        chains = -(-seeds // n_groups)
        if -(-seeds // chains) != n_groups:  # the same split as fewer groups: skip
            continue
        b = _default_block(total, filter_len, chains * d) if block is None else block
        if 8 * (history + (streams + 2) * b) * chains * d <= memory or chains == 1:
            break
    sizes = [chains] * (seeds // chains) + ([seeds % chains] if seeds % chains else [])
    return sizes, b


def _child_seed(child: np.random.SeedSequence) -> int:
    """A 64-bit integer seed from a spawned :class:`numpy.random.SeedSequence` (what every backend's generator takes)."""
    low, high = (int(x) for x in child.generate_state(2, np.uint32))
    return low | high << 32


def _generators(bk, seq: np.random.SeedSequence, count: int) -> list:
    """``count`` generators of the backend from the children of ``seq``: one per array a run draws (its white noise,
    then each data array), each drawn block after block, so a run's numbers do not depend on its block length."""
    return [bk.rng(_child_seed(c)) for c in seq.spawn(count)]


def simulate(
    mechanism: MechanismLike,
    problem: MeanEstimation | LinearRegression | StronglyConvex,
    *,
    rho: float,
    G: float = 1.0,
    horizon: int | None = None,
    participation: Participation | None = None,
    steps: int | None = None,
    seeds: int = 32,
    seed: int = 0,
    burn_in: int | None = None,
    clip: bool = False,
    taps: int | None = None,
    block: int | None = None,
    backend: str | None = None,
    memory: int = MEMORY,
) -> SimulationResult:
    r"""Simulate Noisy-FTRL (``clip=False``) or DP-FTRL (``clip=True``) and estimate its suboptimality.

    The noise is calibrated by :func:`~dptheory.accounting.calibrate_noise` to ``horizon`` steps under
    ``participation``.

    Parameters
    ----------
    mechanism : Mechanism or array_like
        As in :func:`dptheory.F_inf`: any :class:`~dptheory.Mechanism`, or a sequence ``β``.
    problem : MeanEstimation, LinearRegression or StronglyConvex
        The learning problem.
    rho : float in (0, inf)
        The zCDP level ``ρ``, as in :func:`dptheory.F_inf`.
    G : float in (0, inf), default 1.0
        The clip norm, as in :func:`dptheory.F_inf`.
    horizon : int, optional
        As in :func:`dptheory.F_inf`: ``None`` (default) estimates the stationary ``F∞``, an integer ``n ≥ 1``
        ``E[F(θ_n) − F⋆]``.
    participation : Participation, optional
        As in :func:`dptheory.F_inf`; ``None`` (default) is single participation.
    steps : int, optional
        ``horizon=None`` only: number of averaged steps per chain after burn-in, an integer ``≥ 1`` (default
        20 mixing times ``1/(1 − max_j|1 − ηλ_j|)``, i.e. ``20/(ημ)`` when ``ηL ≤ 1``, at least 2000).
    seeds : int, default 32
        Number of independent chains, an integer ``≥ 2`` (the standard error is taken across them).
    seed : int, default 0
        Seed of the run, an integer ``≥ 0``: the white noise and each data array draw from their own generators,
        the children of :class:`numpy.random.SeedSequence` ``(seed)``.
    burn_in : int, optional
        ``horizon=None`` only: discarded steps, an integer ``≥ 0`` (default 5 mixing times ``+ taps``: the
        slowest mode decays by e⁻¹⁰ in second moment and the noise filter is full).
    clip : bool, default False
        ``True`` clips the per-example gradient to norm ``G`` (DP-FTRL, Alg. 1; the regulariser of mean
        estimation is not clipped), ``False`` does not (Noisy-FTRL).
    taps : int, optional
        ``horizon=None`` only: coefficients of ``β`` to simulate, an integer ``≥ 1`` (default
        :func:`default_taps`, or for ν-DP-FTRL with ``1e-5 ≤ ν ≤ 0.5`` its BLT stand-in :func:`dptheory.nu_ftrl_blt`
        where the cost model finds it cheaper; a mechanism whose stream is exact over any horizon,
        ``mechanism.exact_stream`` such as a BLT's ``d`` buffers, is simulated whole unless ``taps`` is given).
    block : int, optional
        Steps generated at once, an integer ``≥ 1`` (default ``min(steps of the run, max(2·taps, b₀),
        max(256, 2²⁵/(seeds·d)))`` with ``b₀ = min(1024, max(256, 2²⁰/(seeds·d)))``: twice the simulated filter
        length, within 256 MiB per block array; ``b₀`` steps, 8 MiB per block array, for a stream of buffers run
        whole, ``exact_stream``, which keeps no history). The FFT
        route of the noise stream costs ``O((1 + taps/block)·log(taps + block))`` per step and coordinate (seed 004,
        Alg. 1; :class:`~dptheory.mechanisms.streaming.StreamingToeplitzNoise`), within 1.5× of its limit at
        ``2·taps``; peak memory is about ``(3·block + taps)·chains·d·8`` bytes for the chains of a group, three blocks
        (white noise, its correlated stream, the data) and the stream's history (0.9 GB measured at 64 seeds,
        ``d = 128``, 4096 taps and steps), within ``memory``. The block changes no random number: the same
        ``(seed, memory)``, the same numbers at any block, to rounding.
    backend : {"numpy", "cupy", "array_api_strict"}, optional
        ``"numpy"`` or ``"cupy"`` (default ``$DPTHEORY_BACKEND`` or NumPy; :func:`dptheory.backend.get_backend`).
    memory : int, default MEMORY
        Bytes the run may hold for its stream's history and its blocks, an integer ``≥ 1`` (default
        :data:`MEMORY`, 1 GiB), estimated as ``8·(filter − 1 + 3·block)·chains·d``, the ``filter − 1`` past inputs
        being those the stream keeps (none for a few buffers, ``exact_stream``; at most the length of a finite
        ``β``, and of those at most the run's steps). A run above it is split into the fewest groups of chains that
        fit, run one after the other, each from its own seed (group ``g`` is the one-group run of the seed drawn from
        :func:`numpy.random.SeedSequence` ``(seed).spawn`` 's ``g``-th child); a run that fits is one group from
        ``seed`` itself. ``settings["chain_groups"]`` records the split.
        Groups keep ν-DP-FTRL's 65 536-tap history within the budget at 32 chains of ``d = 128`` (2.1 GB in one
        group), and their larger blocks make its FFT cheaper per step.

    Returns
    -------
    SimulationResult
        The estimate, its standard error across chains, the mechanism simulated and every setting used
        (``settings["route"]``: the noise stream that ran).

    Raises
    ------
    ValueError
        Naming the parameter before running for a malformed argument (non-integers,
        NaN/inf, out-of-range), for a non-stationary mechanism at ``horizon=None``, and for linear regression at
        ``η ≥ problem.eta_max_fourth_moment``, where the iterate's fourth moment, hence the variance of every time
        average, is infinite (the threshold is that of the unclipped recursion; with ``clip=True`` the refusal is
        conservative). Mean estimation and the strongly convex problems contract deterministically and add noise
        with all moments, so every moment is finite at every ``η`` their constructors accept.
    FloatingPointError
        Naming the step if an iterate or the loss becomes non-finite.

    Warns
    -----
    UserWarning
        When the truncation (or stand-in) of an infinite ``β`` moves ``F∞`` by more than the run's standard error.

    Notes
    -----
    Mean estimation draws ``z_t = σ_sgd·s_t`` with Rademacher ``s_t``, so ``|z| ≤ 1`` needs ``σ_sgd ≤ 1``
    (larger ``σ_sgd`` is refused); linear regression draws ``x_t ~ N(0, H)`` and ``ξ_t ~ N(0, σ_sgd²)`` in
    ``H``'s eigenbasis; a :class:`~dptheory.problems.StronglyConvex` problem uses ``∇F`` of its ``loss`` plus
    ``ε_t`` uniform on the sphere of radius ``σ_sgd``.

    What it estimates. ``horizon=None`` (stationary mechanisms only): ``F∞`` of ``result.mechanism``, the first
    ``taps`` coefficients of ``β`` calibrated to their own sensitivity, by the mean over chains of each chain's
    time average, with a Student-t interval across chains. When that is not the whole ``β``,
    ``result.truncation`` records ``F∞`` of both (for :class:`~dptheory.problems.StronglyConvex`, which has no
    exact ``F∞``, the ratio of the sensitivities) and a ``UserWarning`` says so when the difference exceeds the
    run's standard error. ``horizon=n`` (any mechanism): ``E[F(θ_n) − F⋆]`` from ``θ_0 = θ⋆`` by the mean over
    chains of the last iterate's suboptimality; the ``n`` steps of the mechanism's own noise stream are exact.
    """
    return _simulate([mechanism], problem, rho=rho, G=G, horizon=horizon, participation=participation, steps=steps,
                     seeds=seeds, seed=seed, burn_in=burn_in, clip=clip, taps=taps, block=block, backend=backend,
                     memory=memory)[0]


def simulate_common(
    mechanisms: Sequence[MechanismLike],
    problem: MeanEstimation | LinearRegression | StronglyConvex,
    *,
    rho: float,
    G: float = 1.0,
    horizon: int | None = None,
    participation: Participation | None = None,
    steps: int | None = None,
    seeds: int = 32,
    seed: int = 0,
    burn_in: int | None = None,
    clip: bool = False,
    taps: int | None = None,
    block: int | None = None,
    backend: str | None = None,
    memory: int = MEMORY,
) -> tuple[SimulationResult, ...]:
    r"""Simulate several mechanisms on one problem with common random numbers: one run, one draw per step.

    Every mechanism sees the same data and the same white noise ``w`` (each through its own noising matrix ``N``
    and its own ``σ_dp``), so the random numbers are drawn once for all of them. Each result is what
    :func:`simulate` estimates for that mechanism, valid on its own: its chains are independent of one another.
    Across mechanisms the results are correlated, which makes a difference between two of them more precise than
    from independent runs, and a confidence statement about several of them at once needs a correction valid under
    dependence (Bonferroni is). On Gaussian linear regression the draws are most of a step's cost.

    One setting holds for all: ``steps``, ``burn_in`` (default 5 mixing times plus the largest of their ``taps``),
    the chain groups and the block. With one mechanism it is :func:`simulate`, number for number.

    Parameters
    ----------
    mechanisms : list or tuple of Mechanism or array_like
        The mechanisms, each as ``mechanism`` of :func:`simulate`; at least one.
    problem : MeanEstimation, LinearRegression or StronglyConvex
        The learning problem, shared by all.
    rho : float in (0, inf)
        As in :func:`simulate`: each mechanism is calibrated to it on its own.
    G : float in (0, inf), default 1.0
        As in :func:`simulate`.
    horizon : int, optional
        As in :func:`simulate`.
    participation : Participation, optional
        As in :func:`simulate`.
    steps : int, optional
        As in :func:`simulate`.
    seeds : int, default 32
        As in :func:`simulate`.
    seed : int, default 0
        As in :func:`simulate`: the one generator of the whole run.
    burn_in : int, optional
        As in :func:`simulate`; the default waits for the largest ``taps`` of the mechanisms.
    clip : bool, default False
        As in :func:`simulate`.
    taps : int, optional
        As in :func:`simulate`, for each mechanism.
    block : int, optional
        As in :func:`simulate`; the default is sized to the longest filter.
    backend : {"numpy", "cupy", "array_api_strict"}, optional
        As in :func:`simulate`.
    memory : int, default MEMORY
        As in :func:`simulate`, for the whole run: ``m + 2`` block arrays and every stream's history for ``m``
        mechanisms.

    Returns
    -------
    tuple of SimulationResult
        One per mechanism, in order; ``settings["common_random_numbers"]`` names all of them (when more than one).

    Raises
    ------
    ValueError
        As :func:`simulate`, and for an empty or non-sequence ``mechanisms``.
    FloatingPointError
        Naming the step if an iterate or the loss becomes non-finite.

    Warns
    -----
    UserWarning
        As :func:`simulate`, for each truncated mechanism.
    """
    if not isinstance(mechanisms, (list, tuple)) or not mechanisms:
        raise ValueError(f"mechanisms must be a non-empty list or tuple of mechanisms (each a Mechanism or a sequence "
                         f"beta), got {mechanisms!r:.80}")
    return _simulate(list(mechanisms), problem, rho=rho, G=G, horizon=horizon, participation=participation, steps=steps,
                     seeds=seeds, seed=seed, burn_in=burn_in, clip=clip, taps=taps, block=block, backend=backend,
                     memory=memory)


@dataclass(frozen=True)
class _Plan:
    """One mechanism of a run (:func:`_plan`): what is simulated and its calibration."""

    requested: Mechanism
    simulated: Mechanism
    truncation: Truncation | None
    taps: int | None  # the taps of an infinite β (the default burn-in waits for them); None at a finite horizon
    sigma_dp: float


#: ν over which ν-DP-FTRL's BLT approximation is measured (:func:`dptheory.nu_ftrl_blt`: ``‖β̃ − β‖₂ ≤ 3.1e-8``,
#: ``F∞`` within 2.3e-7 relative), where :func:`simulate` may run it in place of a truncation
_STAND_IN_NU = (1e-5, 0.5)


def _stand_in(corr: Mechanism, n_taps: int) -> BLT | None:
    """ν-DP-FTRL's BLT approximation where its accuracy is measured (:data:`_STAND_IN_NU`) and the cost model finds
    its stream cheaper than the FIR of ``n_taps`` at blocks of ``2·n_taps`` (:func:`~dptheory.mechanisms.streaming.
    blt_cost`, :func:`~dptheory.mechanisms.streaming.fir_route`); else ``None``."""
    if not isinstance(corr, SqrtToeplitz) or not _STAND_IN_NU[0] <= corr.nu <= _STAND_IN_NU[1]:
        return None
    blt = nu_ftrl_blt(corr.nu)
    return blt if blt_cost(len(blt.theta)) < fir_route(n_taps, 2 * n_taps)[2] else None


def _default_stand_in(corr: Mechanism) -> BLT | None:
    """The stand-in :func:`simulate` runs for ``corr`` at the default ``taps`` (``None`` where it runs a truncation)."""
    return _stand_in(corr, default_taps(corr)) if isinstance(corr, ToeplitzMechanism) else None


def _plan(mechanism, problem, *, rho, G, horizon, participation, taps) -> _Plan:
    """What :func:`simulate` runs for ``mechanism``: the mechanism itself; or at ``horizon=None`` the first ``taps``
    coefficients of an infinite ``β`` calibrated to their own sensitivity, or at the default ``taps`` its BLT
    stand-in where :func:`_stand_in` takes it; refused before running if not stationary or of infinite
    sensitivity."""
    corr = as_mechanism(mechanism)
    if horizon is None:
        require_stationary(corr, "stationary suboptimality to estimate")
        n_taps = default_taps(corr) if taps is None else taps
        whole = taps is None and corr.exact_stream  # e.g. a BLT: its d-buffer stream is the whole N (no truncation)
        simulated = corr if whole else (
            (_stand_in(corr, n_taps) if taps is None else None)
            or FiniteToeplitz(corr.noising_coeffs(n_taps), name=f"{corr.name}[:{n_taps}]"))
        gamma = simulated.sensitivity(None, participation)
        if not math.isfinite(gamma):
            raise ValueError(f"beta must be minimum phase to be simulated with finite noise: gamma_inf({simulated.name}) = inf")
        truncation = None if whole else _truncation(corr, simulated, gamma, problem, rho, G, participation)
    else:
        simulated, truncation, n_taps = corr, None, None
    sigma_dp = calibrate_noise(simulated, rho=rho, horizon=horizon, participation=participation)
    if not math.isfinite(sigma_dp):
        raise ValueError(f"the sensitivity of {simulated.name} at horizon {horizon} is infinite: no finite noise gives privacy")
    return _Plan(corr, simulated, truncation, n_taps, sigma_dp)


def _stream_steps(simulated: Mechanism, horizon: int | None, total: int) -> int | None:
    """The horizon the stream is built for: ``horizon``; at ``horizon=None`` a finite ``β``'s first ``total`` taps
    (the later ones never reach an output of a ``total``-step run: exact, and its history and transforms sized to the
    run, not to the filter), and ``None`` for a stream exact over any horizon."""
    if horizon is not None:
        return horizon
    return total if isinstance(simulated, FiniteToeplitz) else None


def _route(simulated: Mechanism, steps: int | None, block: int) -> str:
    """How the noise stream of ``simulated`` ran (``settings["route"]``): the cost model's choice at ``block``."""
    if isinstance(simulated, FiniteToeplitz):
        n = simulated.beta.size if steps is None else min(steps, simulated.beta.size)
        kind, L, _ = fir_route(n, block)
        if n == 1:
            return "white noise (beta = (1))"
        return (f"direct sum over {n} taps" if kind == "direct"
                else f"overlap-save FFT over {n} taps, {L}-point transforms per {block}-step block")
    if isinstance(simulated, BLT):
        if simulated._omega_hat is not None:
            return f"BLT, {len(simulated.theta)} buffers, Alg. 2 in chunks of {_BLT_CHUNK} steps"
        return f"BLT, {len(simulated.theta)} buffers, Alg. 3 one step at a time"
    return f"{type(simulated).__name__}.noise_stream"


def _simulate(mechanisms, problem, **kwargs) -> tuple[SimulationResult, ...]:
    """:func:`simulate_common` after its own check of ``mechanisms``, with BLAS on one thread (threadpoolctl).

    Its BLAS calls are small (the BLT stream's 32 × 32 products, ``d × d`` eigenvalues): on an idle 2-core machine
    two threads made the base point of the throughput grid (tests/throughput_grid.py) 9 % faster (0.94 against
    1.03 s), but with the other core busy OpenBLAS's spinning threads made them 10–60× slower (a 128 × 128
    ``eigvals`` 0.8 s against 0.01 s; the BLT stream 3.0 s against 0.05 s), 2026-12-02.
    """
    from threadpoolctl import threadpool_limits  # here, not at import: it inspects the loaded libraries

    with threadpool_limits(limits=1, user_api="blas"):
        return _simulate_on_one_thread(mechanisms, problem, **kwargs)


def _simulate_on_one_thread(mechanisms, problem, *, rho, G, horizon, participation, steps, seeds, seed, burn_in, clip,
                            taps, block, backend, memory) -> tuple[SimulationResult, ...]:
    """:func:`_simulate`'s work; the warnings point at the public caller."""
    rho, G = check_privacy(rho, G)
    _check_problem(problem)
    seeds = check_int("seeds", seeds, 2, why="the standard error is taken across independent chains")
    seed = check_int("seed", seed, 0)
    horizon, steps, burn_in, taps, block = (
        None if value is None else check_int(name, value, lo)
        for name, value, lo in (("horizon", horizon, 1), ("steps", steps, 1), ("burn_in", burn_in, 0), ("taps", taps, 1), ("block", block, 1))
    )
    memory = check_int("memory", memory, 1)
    if not isinstance(clip, (bool, np.bool_)):
        raise ValueError(f"clip must be True or False, got {clip!r}")
    if backend is not None and not isinstance(backend, str):
        raise ValueError(f"backend must be None or one of {BACKENDS}, got {backend!r}")
    if horizon is not None:
        given = [name for name, value in (("steps", steps), ("burn_in", burn_in), ("taps", taps)) if value is not None]
        if given:
            raise ValueError(f"{', '.join(given)} must be None at a finite horizon: the run is exactly horizon = {horizon} steps from theta*")
    plans = [_plan(m, problem, rho=rho, G=G, horizon=horizon, participation=participation, taps=taps) for m in mechanisms]
    if horizon is None:
        mixing = problem.mixing_time
        steps = int(max(2000, math.ceil(20 * mixing))) if steps is None else steps
        burn_in = int(math.ceil(5 * mixing) + max(p.taps for p in plans)) if burn_in is None else burn_in
        total = burn_in + steps
    else:
        total = burn_in = horizon

    bk = get_backend(backend)
    stream_steps = [_stream_steps(p.simulated, horizon, total) for p in plans]
    histories = [p.simulated.stream_history(n) for p, n in zip(plans, stream_steps)]
    groups, block = _chain_groups(seeds, problem.d, max(histories) + 1, total, block, memory, history=sum(histories),
                                  streams=len(plans))
    streams = [functools.partial(p.simulated.noise_stream, steps=n) for p, n in zip(plans, stream_steps)]
    run = functools.partial(_run, problem, streams, scales=[G * p.sigma_dp for p in plans], G=G,
                            clip=clip, total=total, burn_in=burn_in, block=block, bk=bk, record_last=horizon is not None)
    arrays = 1 + problem._dynamics.data_streams  # the white noise, then each data array: one generator each
    root = np.random.SeedSequence(seed)
    if len(groups) == 1:
        replicates = run(seeds=seeds, rngs=_generators(bk, root, arrays))
    else:
        # group g: the one-group run of seed _child_seed(g-th child of SeedSequence(seed))
        replicates = np.concatenate([run(seeds=n, rngs=_generators(bk, np.random.SeedSequence(_child_seed(c)), arrays))
                                     for n, c in zip(groups, root.spawn(len(groups)))], axis=1)
    common = {} if len(plans) == 1 else dict(common_random_numbers=[p.requested.name for p in plans])
    results = []
    for p, rep, n in zip(plans, replicates, stream_steps):
        chain_means = rep if horizon is not None else rep / steps
        settings = dict(
            beta=p.requested.name, problem=repr(problem), rho=rho, G=G, horizon=horizon, participation=repr(participation),
            steps=steps, seeds=seeds, seed=seed, burn_in=None if horizon is not None else burn_in, clip=clip,
            taps=None if p.truncation is None else p.truncation.taps, sigma_dp=p.sigma_dp,
            backend=bk.name, block=block, memory=memory, chain_groups=len(groups),
            route=(f"stand-in {p.simulated.name}: " if p.truncation is not None and p.truncation.stand_in else "")
            + _route(p.simulated, n, block), **common,
        )
        estimate = Estimate.from_samples(chain_means)
        result = SimulationResult(
            mean=estimate.value, stderr=estimate.stderr, chain_means=chain_means, mechanism=p.simulated,
            settings=settings, truncation=p.truncation,
        )
        _warn_if_truncation_shows(p.truncation, result.mean, result.stderr)
        results.append(result)
    return tuple(results)


@dataclass(frozen=True)
class PrefixErrorSimulation:
    r"""Squared prefix-sum errors ``((A N z)_t)²`` of a mechanism's own noise stream, one row per independent chain.

    Made by :func:`simulate_prefix_errors`. Their expectation is the row energy ``‖e_tᵀ B‖²`` of the decoder
    ``B = A C⁻¹`` (seed 003 Eq. 9): :meth:`at` estimates ``MaxError²`` at the step attaining it,
    :meth:`mean_over_steps` ``RmsError²``.

    Attributes
    ----------
    squared : numpy.ndarray
        The squared errors, shape ``(chains, n)``.
    mechanism : str, default ""
        The mechanism's name.
    """

    squared: np.ndarray = field(repr=False)
    mechanism: str = ""

    def at(self, t: int) -> Estimate:
        """``E[(A N z)_t²]`` over the chains.

        Parameters
        ----------
        t : int
            The step, ``0 ≤ t < n``.

        Returns
        -------
        Estimate
            The mean over chains with its standard error.
        """
        t = check_int("t", t, 0, self.squared.shape[1] - 1)
        return Estimate.from_samples(self.squared[:, t], nonnegative=True)

    def mean_over_steps(self) -> Estimate:
        """``E[(1/n) Σ_t (A N z)_t²] = RmsError²``: each chain's mean over steps, then the mean over chains.

        Returns
        -------
        Estimate
            The mean over chains with its standard error.
        """
        return Estimate.from_samples(self.squared.mean(axis=1), nonnegative=True)

    def __repr__(self) -> str:
        return f"PrefixErrorSimulation({self.mechanism}, chains={self.squared.shape[0]}, n={self.squared.shape[1]})"


def simulate_prefix_errors(mechanism: Mechanism, n: int, *, chains: int = 1000, seed: int = 0,
                           backend: str | None = None) -> PrefixErrorSimulation:
    r"""Release the prefix sums of a zero stream with the mechanism's own noise and record the squared errors.

    The noise is :meth:`~dptheory.Mechanism.noise_stream` over ``n`` steps, unit white draws, ``chains`` independent
    coordinates; the squared errors of every prefix are the Monte-Carlo route to seed 003's MaxError/RmsError
    (Eq. 9), independent of the row energies.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    n : int
        The number of steps, ``n ≥ 1``.
    chains : int, default 1000
        Independent chains, ``≥ 2``.
    seed : int, default 0
        Seed of the run's generator, ``≥ 0``.
    backend : {"numpy", "cupy", "array_api_strict"}, optional
        The array backend (:func:`dptheory.backend.get_backend`).

    Returns
    -------
    PrefixErrorSimulation
        The squared errors, one row per chain.
    """
    n = check_int("n", n, 1)
    chains = check_int("chains", chains, 2, why="the standard error is taken across independent chains")
    seed = check_int("seed", seed, 0)
    if not isinstance(mechanism, Mechanism):
        raise ValueError(f"mechanism must be a dptheory.Mechanism, got {type(mechanism).__name__}")
    bk = get_backend(backend)
    xp = bk.xp
    z = bk.asarray(bk.rng(seed).standard_normal(size=(n, chains)))
    noise = mechanism.noise_stream((chains,), z, n)(z)
    errors = bk.to_numpy(xp.cumulative_sum(noise, axis=0) if hasattr(xp, "cumulative_sum") else xp.cumsum(noise, axis=0))
    return PrefixErrorSimulation(np.ascontiguousarray((errors**2).T), mechanism.name)
