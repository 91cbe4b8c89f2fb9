r"""Monte-Carlo simulation of Noisy-FTRL / DP-FTRL (seed 004, Algorithm 1), vectorised over seeds.

``θ_{t+1} = θ_t − η (g_t + G σ_dp Σ_τ β_τ w_{t−τ})`` with ``g_t`` the stochastic gradient of the problem
(clipped to norm ``G`` for DP-FTRL), ``w_t ~ N(0, I_d)`` and ``σ_dp = γ∞(β)/√(2ρ)`` (Thm 1.1). Independent
chains run side by side as one ``(chains, d)`` array; every random number of a run comes from one seeded
generator of the chosen backend (:mod:`dptheory.backend`), so the same seed gives the same numbers.

The stationary suboptimality ``F∞`` is estimated per chain by the time average of ``F(θ_t) − F⋆`` after a
burn-in of several mixing times, and its standard error across the independent chains.

An infinite ``β`` (ν-DP-FTRL, ``β*``) is simulated through its first ``taps`` coefficients: the simulated
mechanism is that finite ``β`` (``result.mechanism``), calibrated to its own ``γ∞``, so that
``F_inf(result.mechanism, …)`` is the exact prediction for what was simulated. The truncation is a different
mechanism: ``result.truncation`` records ``F∞`` of both, and :func:`simulate` warns when they differ by more
than the run's standard error (``tests/test_simulation.py``: on ``MeanEstimation(0.1)``, ν-FTRL with ν = 1e-6 loses 15 % of
``F∞`` at the default 2¹⁴ taps; ν = 0.05 loses nothing measurable).

A time average has a confidence interval only if ``F(θ_t) − F⋆`` has a finite variance, i.e. ``θ_t`` a
finite fourth moment. Mean estimation and the strongly convex problems have a deterministic contraction and
additive noise with all moments, so every moment is finite at every stable ``η``; linear regression with
Gaussian inputs has multiplicative noise, and :func:`simulate` refuses
``η ≥ LinearRegression.eta_max_fourth_moment``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from ._validation import check_int, check_privacy
from .backend import BACKENDS, get_backend
from .mechanisms.toeplitz import MechanismLike, FiniteToeplitz, ToeplitzMechanism, as_mechanism
from .problems import LinearRegression, MeanEstimation, StronglyConvex
from .mechanisms.streaming import StreamingToeplitzNoise
from .suboptimality import F_inf

__all__ = ["SimulationResult", "Truncation", "simulate", "default_taps", "t_interval"]

_MAX_TAPS = 1 << 14


def t_interval(mean, stderr, n: int, level: float = 0.95):
    """Student-t confidence interval ``mean ± t_{n−1}·stderr`` of a mean over ``n`` independent replicates
    (elementwise for arrays)."""
    q = stats.t.ppf(0.5 + level / 2, df=max(1, n - 1))
    return mean - q * stderr, mean + q * stderr


@dataclass(frozen=True)
class Truncation:
    r"""What :func:`simulate` ran in place of the requested ``β``: its first ``taps`` coefficients, calibrated
    to their own ``γ∞`` (Thm 1.1), which is a different mechanism.

    ``F_inf_simulated`` / ``F_inf_requested``: the exact ``F∞`` (:func:`dptheory.F_inf`) of the simulated and
    of the requested ``β``; ``None`` for :class:`~dptheory.problems.StronglyConvex`, which has none.
    """

    requested: str
    taps: int
    gamma_ratio: float  # γ∞(simulated) / γ∞(requested): σ_dp is scaled by this
    F_inf_simulated: float | None
    F_inf_requested: float | None

    @property
    def relative_shift(self) -> float | None:
        """``F∞(simulated)/F∞(requested) − 1``, or ``None`` where no exact ``F∞`` exists."""
        if self.F_inf_simulated is None:
            return None
        return self.F_inf_simulated / self.F_inf_requested - 1.0

    def shift(self, mean: float) -> float:
        """How far the truncation moves ``F∞``: ``F∞(simulated) − F∞(requested)``; without an exact ``F∞``,
        the change of the calibrated noise variance ``σ_dp²`` applied to the simulated ``mean``,
        ``(gamma_ratio² − 1)·mean`` (the DP part's shift when the truncation leaves the pole integrals unchanged,
        an upper bound on it when the DP noise is not all of ``F∞``)."""
        if self.F_inf_simulated is None:
            return (self.gamma_ratio**2 - 1.0) * mean
        return self.F_inf_simulated - self.F_inf_requested


@dataclass(frozen=True)
class SimulationResult:
    """Estimated ``F∞`` with its standard error across independent chains, and every setting used.

    ``mechanism`` is the finite ``β`` that was simulated (``F_inf(result.mechanism, …)`` is its exact
    prediction); ``truncation`` says what it replaced (``None`` when the requested ``β`` ran whole).
    """

    mean: float
    stderr: float
    chain_means: np.ndarray = field(repr=False)
    mechanism: FiniteToeplitz = field(repr=False)
    settings: dict = field(repr=False)
    truncation: Truncation | None = field(default=None, repr=False)

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """Student-t confidence interval across chains."""
        return t_interval(self.mean, self.stderr, self.chain_means.size, level)

    def __repr__(self) -> str:
        lo, hi = self.interval()
        s = self.settings
        return (
            f"SimulationResult(mean={self.mean:.6g}, stderr={self.stderr:.3g}, 95% CI=[{lo:.6g}, {hi:.6g}], "
            f"chains={s['seeds']}, steps={s['steps']}, burn_in={s['burn_in']}, taps={s['taps']})"
        )


def default_taps(beta: ToeplitzMechanism) -> int:
    """All coefficients of a finite ``β``; for an infinite one, its support capped at 2¹⁴ taps."""
    if isinstance(beta, FiniteToeplitz):
        return beta.beta.size
    return int(min(beta._support(), _MAX_TAPS))


def _mixing_time(problem) -> float:
    r"""``1/(1 − max_j |1 − ηλ_j|)``: the e-folding time of the slowest mode of ``I − ηH`` (``1/(ημ)`` when
    ``ηλ_max ≤ 1``; mean estimation at ``η ∈ (1, 2)``: ``1/(2 − η)``, not ``1/η``)."""
    return 1.0 / (1.0 - float(np.max(np.abs(1.0 - problem.eta * problem.eigs))))


def _clip_rows(grad, G: float, xp):
    """``clip(g, G) = g·min(1, G/‖g‖₂)`` per chain (Alg. 1 of seed 004)."""
    norm = xp.sqrt(xp.sum(grad * grad, axis=1))
    return grad * xp.minimum(1.0, G / xp.maximum(norm, 1e-300))[:, None]


def _convex_gradient(problem: StronglyConvex, theta, xp):
    """``∇F(θ)`` of the losses of :class:`~dptheory.problems.StronglyConvex` (coordinate-wise)."""
    mu, L = problem.mu, problem.L
    if problem.loss == "quadratic":
        return mu * theta
    if problem.loss == "piecewise_quadratic":
        return mu * theta + (L - mu) * xp.maximum(theta, 0.0)
    return mu * theta + 4.0 * (L - mu) * (1.0 / (1.0 + xp.exp(-theta)) - 0.5)


def _convex_suboptimality(problem: StronglyConvex, theta, xp):
    """``F(θ) − F⋆`` per chain (``F⋆ = 0`` at ``θ⋆ = 0``)."""
    mu, L = problem.mu, problem.L
    quad = 0.5 * mu * xp.sum(theta * theta, axis=1)
    if problem.loss == "quadratic":
        return quad
    if problem.loss == "piecewise_quadratic":
        pos = xp.maximum(theta, 0.0)
        return quad + 0.5 * (L - mu) * xp.sum(pos * pos, axis=1)
    softplus = xp.log1p(xp.exp(-xp.abs(theta))) + xp.maximum(theta, 0.0)
    return quad + 4.0 * (L - mu) * xp.sum(softplus - 0.5 * theta - np.log(2.0), axis=1)


def _check_problem(problem) -> None:
    """Refuse a problem the simulation cannot estimate ``F∞`` for, before running."""
    if not isinstance(problem, (MeanEstimation, LinearRegression, StronglyConvex)):
        raise ValueError(f"problem must be MeanEstimation, LinearRegression or StronglyConvex, got {type(problem).__name__}")
    if isinstance(problem, MeanEstimation) and problem.sigma_sgd > 1.0:
        raise ValueError(
            f"sigma_sgd must lie in [0, 1] to simulate MeanEstimation: z = sigma_sgd*s with Rademacher s, and the "
            f"simulation assumes |z| <= 1 as seed 004 Thm 2.1 does (|grad f| = |z| within the clip norm G >= 1), got {problem.sigma_sgd:g}"
        )
    if isinstance(problem, LinearRegression) and not problem.fourth_moment_gain() < 1.0:  # i.e. η ≥ η₄
        eta4 = problem.eta_max_fourth_moment
        raise ValueError(
            f"eta must lie in (0, {eta4:.6g}) to simulate SGD on Gaussian data: from "
            f"LinearRegression.eta_max_fourth_moment = {eta4:.6g} on, the iterate's stationary fourth moment is "
            f"infinite (its second moment from eta_max_gaussian = {problem.eta_max_gaussian:.6g}), so the "
            f"per-chain time average has infinite variance and no confidence interval is valid; got {problem.eta:g}"
        )


def _truncation(corr: ToeplitzMechanism, mechanism: FiniteToeplitz, gamma: float, problem, rho: float, G: float):
    """The :class:`Truncation` record when ``mechanism`` is not the whole of ``corr``, else ``None``."""
    if isinstance(corr, FiniteToeplitz) and mechanism.beta.size == corr.beta.size:
        return None
    exact = not isinstance(problem, StronglyConvex)
    return Truncation(
        requested=corr.name,
        taps=int(mechanism.beta.size),
        gamma_ratio=gamma / corr.limiting_sensitivity(),
        F_inf_simulated=F_inf(mechanism, problem, rho=rho, G=G) if exact else None,
        F_inf_requested=F_inf(corr, problem, rho=rho, G=G) if exact else None,
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
    warnings.warn(
        f"simulated the first {truncation.taps} taps of {truncation.requested}, calibrated to their own gamma_inf: "
        f"a different mechanism, which moves {what}, more than the run's standard error {stderr:.3g}; "
        f"F_inf(result.mechanism, ...) predicts what was simulated, result.truncation records the shift",
        UserWarning,
        stacklevel=3,
    )


def simulate(
    beta: MechanismLike,
    problem: MeanEstimation | LinearRegression | StronglyConvex,
    *,
    rho: float,
    G: float = 1.0,
    steps: int | None = None,
    seeds: int = 32,
    seed: int = 0,
    burn_in: int | None = None,
    clip: bool = False,
    taps: int | None = None,
    block: int | None = None,
    backend: str | None = None,
) -> SimulationResult:
    r"""Simulate Noisy-FTRL (``clip=False``) or DP-FTRL (``clip=True``) and estimate ``F∞``.

    Parameters
    ----------
    beta, problem, rho, G : as in :func:`dptheory.F_inf`.
    steps : number of averaged steps per chain after burn-in, an integer ``≥ 1`` (default 20 mixing times
        ``1/(1 − max_j|1 − ηλ_j|)``, i.e. ``20/(ημ)`` when ``ηL ≤ 1``, at least 2000).
    seeds : number of independent chains, an integer ``≥ 2`` (the standard error is taken across them).
    seed : seed of the run's single generator, an integer ``≥ 0``.
    burn_in : discarded steps, an integer ``≥ 0`` (default 5 mixing times ``+ taps``: the slowest mode decays by
        e⁻¹⁰ in second moment and the noise filter is full).
    clip : ``True`` clips the per-example gradient to norm ``G`` (DP-FTRL, Alg. 1; the regulariser of mean
        estimation is not clipped), ``False`` does not (Noisy-FTRL).
    taps : coefficients of ``β`` to simulate, an integer ``≥ 1`` (default :func:`default_taps`).
    block : steps generated at once, an integer ``≥ 1`` (default: a few thousand, bounded by memory).
    backend : ``"numpy"`` or ``"cupy"`` (default ``$DPTHEORY_BACKEND`` or NumPy).

    Mean estimation draws ``z_t = σ_sgd·s_t`` with Rademacher ``s_t``, so ``|z| ≤ 1`` needs ``σ_sgd ≤ 1``
    (larger ``σ_sgd`` is refused); linear regression draws ``x_t ~ N(0, H)`` and ``ξ_t ~ N(0, σ_sgd²)`` in
    ``H``'s eigenbasis; a :class:`~dptheory.problems.StronglyConvex` problem uses ``∇F`` of its ``loss`` plus
    ``ε_t`` uniform on the sphere of radius ``σ_sgd``.

    What it estimates: ``F∞`` of ``result.mechanism``, the first ``taps`` coefficients of ``β`` calibrated to
    their own ``γ∞``, by the mean over chains of each chain's time average, with a Student-t interval across
    chains. When that is not the whole ``β``, ``result.truncation`` records ``F∞`` of both (for
    :class:`~dptheory.problems.StronglyConvex`, which has no exact ``F∞``, the ratio of the ``γ∞``) and a
    ``UserWarning`` says so when the difference exceeds the run's standard error.

    Raises ``ValueError`` naming the parameter before running for a malformed argument (non-integers,
    NaN/inf, out-of-range), and for linear regression at ``η ≥ problem.eta_max_fourth_moment``, where the
    iterate's fourth moment, hence the variance of every time average, is infinite (the threshold is that of
    the unclipped recursion; with ``clip=True`` the refusal is conservative). Mean estimation and the
    strongly convex problems contract deterministically and add noise with all moments, so every moment is
    finite at every ``η`` their constructors accept. Raises ``FloatingPointError`` naming the step if an
    iterate or the loss becomes non-finite.
    """
    rho, G = check_privacy(rho, G)
    _check_problem(problem)
    seeds = check_int("seeds", seeds, 2, why="the standard error is taken across independent chains")
    seed = check_int("seed", seed, 0)
    steps, burn_in, taps, block = (
        None if value is None else check_int(name, value, lo)
        for name, value, lo in (("steps", steps, 1), ("burn_in", burn_in, 0), ("taps", taps, 1), ("block", block, 1))
    )
    if not isinstance(clip, (bool, np.bool_)):
        raise ValueError(f"clip must be True or False, got {clip!r}")
    if backend is not None and not isinstance(backend, str):
        raise ValueError(f"backend must be None or one of {BACKENDS}, got {backend!r}")
    corr = as_mechanism(beta)
    if not isinstance(corr, ToeplitzMechanism):
        raise ValueError(f"beta must be a Toeplitz correlation, got {corr!r}")
    n_taps = default_taps(corr) if taps is None else taps
    mechanism = FiniteToeplitz(corr.noising_coeffs(n_taps), name=f"{corr.name}[:{n_taps}]")
    gamma = mechanism.limiting_sensitivity()
    if not math.isfinite(gamma):
        raise ValueError(f"beta must be minimum phase to be simulated with finite noise: gamma_inf({mechanism.name}) = inf")
    truncation = _truncation(corr, mechanism, gamma, problem, rho, G)
    sigma_dp = gamma / math.sqrt(2.0 * rho)
    mixing = _mixing_time(problem)
    steps = int(max(2000, math.ceil(20 * mixing))) if steps is None else steps
    burn_in = int(math.ceil(5 * mixing) + n_taps) if burn_in is None else burn_in

    bk = get_backend(backend)
    xp = bk.xp
    rng = bk.rng(seed)
    lam = bk.asarray(problem.eigs)
    d = problem.d if isinstance(problem, StronglyConvex) else int(lam.shape[0])
    total = burn_in + steps
    if block is None:
        block = int(min(total, max(2 * n_taps, 1024), max(256, 2**25 // (seeds * d))))
    theta = xp.zeros((seeds, d), dtype=xp.float64)
    noise = StreamingToeplitzNoise(mechanism.beta, (seeds, d), theta)
    loss_sum = xp.zeros((seeds,), dtype=xp.float64)
    sqrt_lam = xp.sqrt(lam)
    eta, s_sgd, scale = problem.eta, problem.sigma_sgd, G * sigma_dp
    linreg = isinstance(problem, LinearRegression)
    convex = isinstance(problem, StronglyConvex)

    t0 = 0
    while t0 < total:
        K = min(block, total - t0)
        w = noise(bk.asarray(rng.standard_normal(size=(K, seeds, d))))
        if linreg or convex:
            z = bk.asarray(rng.standard_normal(size=(K, seeds, d)))
        if linreg:
            xi = bk.asarray(rng.standard_normal(size=(K, seeds))) * s_sgd
        elif convex:  # ε uniform on the sphere of radius σ_sgd
            z = s_sgd * z / xp.sqrt(xp.sum(z * z, axis=2))[:, :, None]
        else:
            z = (xp.astype(bk.asarray(rng.random(size=(K, seeds, 1))) < 0.5, xp.float64) * 2.0 - 1.0) * s_sgd
        for k in range(K):
            if linreg:
                x = z[k] * sqrt_lam
                grad = x * (xp.sum(x * theta, axis=1) - xi[k])[:, None]
            elif convex:
                grad = _convex_gradient(problem, theta, xp) + z[k]
            else:  # f(θ; z) = z²/2 − zθ, r(θ) = θ²/2 (eq. 6): ∇f = −z, ∇r = θ (the regulariser is not clipped)
                grad = -z[k]
            if clip:
                grad = _clip_rows(grad, G, xp)
            if not (linreg or convex):
                grad = grad + theta
            theta = theta - eta * (grad + scale * w[k])
            if t0 + k >= burn_in:
                loss_sum = loss_sum + (_convex_suboptimality(problem, theta, xp) if convex else 0.5 * xp.sum(lam * theta * theta, axis=1))
        if not (bool(xp.all(xp.isfinite(theta))) and bool(xp.all(xp.isfinite(loss_sum)))):
            raise FloatingPointError(
                f"non-finite iterate or loss by step {t0 + K} (block starting at step {t0}): the values "
                f"overflowed double precision (eta={eta:g}, sigma_dp={sigma_dp:.4g}, G={G:g})"
            )
        t0 += K

    chain_means = bk.to_numpy(loss_sum) / steps
    settings = dict(
        beta=corr.name, problem=repr(problem), rho=rho, G=G, steps=steps, seeds=seeds, seed=seed, burn_in=burn_in,
        clip=clip, taps=n_taps, sigma_dp=sigma_dp, backend=bk.name, block=block,
    )
    result = SimulationResult(
        mean=float(np.mean(chain_means)),
        stderr=float(np.std(chain_means, ddof=1) / math.sqrt(seeds)),
        chain_means=chain_means,
        mechanism=mechanism,
        settings=settings,
        truncation=truncation,
    )
    _warn_if_truncation_shows(truncation, result.mean, result.stderr)
    return result
