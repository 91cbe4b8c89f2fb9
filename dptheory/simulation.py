r"""Monte-Carlo simulation of Noisy-FTRL / DP-FTRL (seed 004, Algorithm 1), vectorised over seeds.

``θ_{t+1} = θ_t − η (g_t + G σ_dp Σ_τ β_τ w_{t−τ})`` with ``g_t`` the stochastic gradient of the problem
(clipped to norm ``G`` for DP-FTRL), ``w_t ~ N(0, I_d)`` and ``σ_dp = γ∞(β)/√(2ρ)`` (Thm 1.1). Independent
chains run side by side as one ``(chains, d)`` array; every random number of a run comes from one seeded
generator of the chosen backend (:mod:`dptheory.backend`), so the same seed gives the same numbers.

The stationary suboptimality ``F∞`` is estimated per chain by the time average of ``F(θ_t) − F⋆`` after a
burn-in of several mixing times, and its standard error across the independent chains.

An infinite ``β`` (ν-DP-FTRL, ``β*``) is simulated through its first ``taps`` coefficients: the simulated
mechanism is that finite ``β`` (``result.mechanism``), calibrated to its own ``γ∞``, so that
``F_inf(result.mechanism, …)`` is the exact prediction for what was simulated (the default truncation
keeps ``F_inf`` within ~1e-5 of the untruncated ``β`` at the sizes of Figure 2; ``verify/`` reports it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from ._validation import check_in_interval, check_privacy
from .backend import get_backend
from .correlations import BetaLike, FiniteToeplitz, ToeplitzCorrelation, as_correlation
from .problems import LinearRegression, MeanEstimation, StronglyConvex
from .streaming import StreamingToeplitzNoise

__all__ = ["SimulationResult", "simulate", "default_taps", "t_interval"]

_MAX_TAPS = 1 << 14


def t_interval(mean, stderr, n: int, level: float = 0.95):
    """Student-t confidence interval ``mean ± t_{n−1}·stderr`` of a mean over ``n`` independent replicates
    (elementwise for arrays)."""
    q = stats.t.ppf(0.5 + level / 2, df=max(1, n - 1))
    return mean - q * stderr, mean + q * stderr


@dataclass(frozen=True)
class SimulationResult:
    """Estimated ``F∞`` with its standard error across independent chains, and every setting used."""

    mean: float
    stderr: float
    chain_means: np.ndarray = field(repr=False)
    mechanism: FiniteToeplitz = field(repr=False)
    settings: dict = field(repr=False)

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


def default_taps(beta: ToeplitzCorrelation) -> int:
    """All coefficients of a finite ``β``; for an infinite one, its support capped at 2¹⁴ taps."""
    if isinstance(beta, FiniteToeplitz):
        return beta.beta.size
    return int(min(beta._support(), _MAX_TAPS))


def _mixing_time(problem) -> float:
    """``1/(ημ)``: the slowest mode of ``I − ηH`` (mean estimation: ``1/η``)."""
    return 1.0 / (problem.eta * float(np.min(problem.eigs)))


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


def simulate(
    beta: BetaLike,
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
    steps : number of averaged steps per chain after burn-in (default ``20/(ημ)``, at least 2000).
    seeds : number of independent chains (≥ 2: the standard error is taken across them).
    seed : seed of the run's single generator.
    burn_in : discarded steps (default ``5/(ημ) + taps``: the slowest mode decays by e⁻¹⁰ in second moment
        and the noise filter is full).
    clip : clip the per-example gradient to norm ``G`` (DP-FTRL, Alg. 1); the regulariser of mean
        estimation is not clipped.
    taps : coefficients of an infinite ``β`` to simulate (default :func:`default_taps`).
    block : steps generated at once (default: a few thousand, bounded by memory).
    backend : ``"numpy"`` or ``"cupy"`` (default ``$DPTHEORY_BACKEND`` or NumPy).

    Mean estimation draws ``z_t = σ_sgd·s_t`` with Rademacher ``s_t`` (``|z| ≤ 1`` for ``σ_sgd ≤ 1``,
    variance ``σ_sgd²``); linear regression draws ``x_t ~ N(0, H)`` and ``ξ_t ~ N(0, σ_sgd²)`` in ``H``'s
    eigenbasis; a :class:`~dptheory.problems.StronglyConvex` problem uses ``∇F`` of its ``loss`` plus ``ε_t``
    uniform on the sphere of radius ``σ_sgd``. Raises ``ValueError`` before running when the step size is
    outside the region where the simulated second moment is stationary, and ``FloatingPointError`` naming
    the step if an iterate or the loss becomes non-finite.
    """
    rho, G = check_privacy(rho, G)
    if not isinstance(problem, (MeanEstimation, LinearRegression, StronglyConvex)):
        raise ValueError(f"problem must be MeanEstimation, LinearRegression or StronglyConvex, got {type(problem).__name__}")
    if isinstance(problem, LinearRegression) and not problem.eta < problem.eta_max_gaussian:
        raise ValueError(
            f"eta must lie in (0, {problem.eta_max_gaussian:.6g}) for SGD on Gaussian data to have a stationary "
            f"second moment (eta*lambda_max < 1 and sum_j eta*lambda_j/(2(1-eta*lambda_j)) < 1), got {problem.eta:g}"
        )
    seeds = int(check_in_interval("seeds", seeds, 2, math.inf, lo_closed=True))
    corr = as_correlation(beta)
    if not isinstance(corr, ToeplitzCorrelation):
        raise ValueError(f"beta must be a Toeplitz correlation, got {corr!r}")
    n_taps = default_taps(corr) if taps is None else int(check_in_interval("taps", taps, 1, math.inf, lo_closed=True))
    mechanism = FiniteToeplitz(corr.coeffs(n_taps), name=f"{corr.name}[:{n_taps}]")
    gamma = mechanism.limiting_sensitivity()
    if not math.isfinite(gamma):
        raise ValueError(f"beta must be minimum phase to be simulated with finite noise: gamma_inf({mechanism.name}) = inf")
    sigma_dp = gamma / math.sqrt(2.0 * rho)
    mixing = _mixing_time(problem)
    steps = int(max(2000, math.ceil(20 * mixing))) if steps is None else int(check_in_interval("steps", steps, 1, math.inf, lo_closed=True))
    burn_in = int(math.ceil(5 * mixing) + n_taps) if burn_in is None else int(check_in_interval("burn_in", burn_in, 0, math.inf, lo_closed=True))

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
    return SimulationResult(
        mean=float(np.mean(chain_means)),
        stderr=float(np.std(chain_means, ddof=1) / math.sqrt(seeds)),
        chain_means=chain_means,
        mechanism=mechanism,
        settings=settings,
    )
