r"""Seed 000 Thm C.1 (the regret of DP-FTRL, the detailed Thm 4.1), printed and corrected, and the experiments that
test it: online logistic regression under the corrected bound, and the failure of the proof's concentration step.

Thm C.1 as printed: with probability ``≥ 1 − β``, for every ``θ* ∈ C``,

``(1/n)Σ_t ℓ(θ_t; d_t) − (1/n)Σ_t ℓ(θ*; d_t) ≤ (Lσ√(p⌈lg n⌉ ln(n/β)) + L²)/λ + (λ/2n)(‖θ*‖² − ‖θ_1‖²)``.

**Missing factor L** (errata 000 §3, §7 #3): the proof's step (7) bounds the noise part by
``L·max_t‖b_t‖/λ`` with ``‖b_t‖ ≤ Lσ√(p⌈lg n⌉ ln(n/β))``, i.e. ``L²σ√(·)/λ``; scaling ``ℓ → cℓ`` (``L → cL``, ``σ``
fixed) scales the left side by ``c`` but the printed term only by 1 — it is dimensionally wrong. Corrected:
``X = L²(1 + σ√(p⌈lg n⌉ ln(n/β)))``, bound ``X/λ + (λ/2n)(‖θ*‖² − ‖θ_1‖²)``, optimised (``θ_1 = 0``) at
``λ* = √(2nX)/‖θ*‖`` with value ``R* = ‖θ*‖√(2X/n)`` (errata 000 §5 #26: ``n = 4096, p = 10, L = 1, σ = 2,
β = .05, ‖θ*‖ = 3`` → ``λ* = 260.741``, ``R* = 0.57292``). The count ``⌈lg n⌉`` is the printed one (it bounds the
prefix variance ``popcount(t) ≤ ⌊lg(n+1)⌋`` only up to the concentration step's constants; the privacy count is
``⌊lg n⌋ + 1``, errata 000 §2.11). ``R*`` decays like ``n^{−1/2}`` times ``(lg n · ln(n/β))^{1/4}`` — the
theorem's rate for the *average* regret, i.e. ``√n``-type growth of the cumulative regret.

**Step (i) holds only up to constants** (errata 000 §3, §5 #25): ``P(∃t ≤ n: ‖b_t‖ > Lσ√(p⌈lg n⌉ ln(n/β)))`` is
``≈ 0.108 > β = 0.05`` at ``p = 1, n = 2`` (:func:`concentration_failure`; exactly ``1 − (1 − 2Φ(−r))²`` there, the
two prefix noises being independent nodes) and ``≤ β`` for ``n ≥ 4``.

* :func:`c1_noise_radius`, :func:`c1_bound` (``variant="corrected"|"paper"``), :func:`c1_lambda_star`,
  :func:`c1_r_star`;
* :func:`concentration_failure` — Monte Carlo of step (i)'s failure probability, with its interval;
* :func:`logistic_data`, :func:`hindsight_logistic`, :func:`logistic_regret` — online logistic regression
  (errata 000 §3 C.1: ``p = 10``, ``n = 4096``, ``σ = 2``, ``λ = λ*``) run by :func:`~dptheory.treeagg.ftrl.dp_ftrl`,
  its average regret against the best ``θ*`` in hindsight over the ball ``‖θ‖ ≤ ‖θ_true‖``, and the ratio to the
  corrected bound at that ``θ*``, per seed. Its data have ``L = 1``, where the printed and the corrected bound
  coincide;
* :func:`c1_norm_regret` — the check at ``L ≠ 1`` where they do not: the losses ``ℓ(θ) = L‖θ‖``
  (:class:`~dptheory.treeagg.ftrl.NormLosses`), on which DP-FTRL's iterates are exactly ``L/λ`` times a run that
  depends on neither, so the regret is ``(L²/λ)Q``: below the corrected ``L²(1 + σ√·)/λ`` and, for ``Q > 1 +
  σ√·/L``, above the printed ``L(L + σ√·)/λ`` (``Q ≈ 9.3`` at ``n = 256, p = 10, σ = 2``: the printed bound fails at
  ``L = 10`` in every seed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from array_api_compat import array_namespace

from .._validation import check_in_interval, check_int, check_variant
from ..backend import get_backend
from ..mechanisms.tree import TreeStream
from ..stats import Estimate
from .ftrl import LogisticLosses, NormLosses, dp_ftrl, project_ball

__all__ = [
    "c1_noise_radius", "c1_bound", "c1_lambda_star", "c1_r_star", "concentration_failure", "logistic_data",
    "hindsight_logistic", "RegretRun", "logistic_regret", "NormRegretRun", "c1_norm_regret",
]


def _ceil_lg(n: int) -> int:
    return (n - 1).bit_length()


def _common(n, p, clip, sigma, beta):
    n = check_int("n", n, 1)
    p = check_int("p", p, 1)
    clip = check_in_interval("clip", clip, 0.0, math.inf)
    sigma = check_in_interval("sigma", sigma, 0.0, math.inf)
    beta = check_in_interval("beta", beta, 0.0, 1.0)
    return n, p, clip, sigma, beta


def c1_noise_radius(n: int, p: int, sigma: float, beta: float, clip: float = 1.0) -> float:
    r"""Step (i) of Thm C.1's proof: the radius ``Lσ√(p⌈lg n⌉ ln(n/β))`` claimed to bound ``max_t ‖b_t‖``.

    The claim is that ``max_t ‖b_t‖`` stays below it with probability ``≥ 1 − β`` (only up to constants: errata 000
    §5 #25).

    Parameters
    ----------
    n : int
        Number of steps, at least 1.
    p : int
        Dimension, at least 1.
    sigma : float in (0, inf)
        Noise multiplier σ.
    beta : float in (0, 1)
        Failure probability β.
    clip : float in (0, inf), default 1.0
        Clip norm ``L``.

    Returns
    -------
    float
        ``Lσ√(p⌈lg n⌉ ln(n/β))``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    n, p, clip, sigma, beta = _common(n, p, clip, sigma, beta)
    return clip * sigma * math.sqrt(p * _ceil_lg(n) * math.log(n / beta))


def _X(n, p, clip, sigma, beta, variant):
    variant = check_variant(variant)
    r = c1_noise_radius(n, p, sigma, beta, clip)
    return (clip * r + clip**2) if variant == "corrected" else (r + clip**2)


def c1_bound(n: int, p: int, sigma: float, lam: float, beta: float, theta_star_norm: float, *, clip: float = 1.0,
             theta1_norm: float = 0.0, variant: str = "corrected") -> float:
    r"""Thm C.1's right side ``X/λ + (λ/2n)(‖θ*‖² − ‖θ_1‖²)``.

    ``variant="corrected"``: ``X = L²(1 + σ√(p⌈lg n⌉ ln(n/β)))`` (errata 000 §3), ``"paper"`` the printed
    ``X = Lσ√(·) + L²`` (missing a factor ``L``).

    Parameters
    ----------
    n : int
        Number of steps, at least 1.
    p : int
        Dimension, at least 1.
    sigma : float in (0, inf)
        Noise multiplier σ.
    lam : float in (0, inf)
        Regularisation λ.
    beta : float in (0, 1)
        Failure probability β.
    theta_star_norm : float in [0, inf)
        ``‖θ*‖``.
    clip : float in (0, inf), default 1.0
        Clip norm ``L``.
    theta1_norm : float in [0, inf), default 0.0
        ``‖θ_1‖``.
    variant : {"corrected", "paper"}, default "corrected"
        The corrected ``X = L²(1 + σ√(·))`` or the printed ``X = Lσ√(·) + L²``.

    Returns
    -------
    float
        The bound on the average regret.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    lam = check_in_interval("lam", lam, 0.0, math.inf)
    ts = check_in_interval("theta_star_norm", theta_star_norm, 0.0, math.inf, lo_closed=True)
    t1 = check_in_interval("theta1_norm", theta1_norm, 0.0, math.inf, lo_closed=True)
    n = check_int("n", n, 1)
    return _X(n, p, clip, sigma, beta, variant) / lam + lam / (2 * n) * (ts**2 - t1**2)


def c1_lambda_star(n: int, p: int, sigma: float, beta: float, theta_star_norm: float, *, clip: float = 1.0,
                   variant: str = "corrected") -> float:
    r"""The ``λ`` minimising :func:`c1_bound` at ``θ_1 = 0``: ``λ* = √(2nX)/‖θ*‖`` (errata 000 §3, §5 #26).

    Parameters
    ----------
    n : int
        Number of steps, at least 1.
    p : int
        Dimension, at least 1.
    sigma : float in (0, inf)
        Noise multiplier σ.
    beta : float in (0, 1)
        Failure probability β.
    theta_star_norm : float in (0, inf)
        ``‖θ*‖``.
    clip : float in (0, inf), default 1.0
        Clip norm ``L``.
    variant : {"corrected", "paper"}, default "corrected"
        The corrected ``X = L²(1 + σ√(·))`` or the printed ``X = Lσ√(·) + L²``.

    Returns
    -------
    float
        ``λ*``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    ts = check_in_interval("theta_star_norm", theta_star_norm, 0.0, math.inf)
    n = check_int("n", n, 1)
    return math.sqrt(2 * n * _X(n, p, clip, sigma, beta, variant)) / ts


def c1_r_star(n: int, p: int, sigma: float, beta: float, theta_star_norm: float, *, clip: float = 1.0,
              variant: str = "corrected") -> float:
    r""":func:`c1_bound` at ``λ*`` and ``θ_1 = 0``: ``R* = ‖θ*‖√(2X/n)``.

    Errata 000 §5 #26: 0.57292 at ``n = 4096, p = 10, σ = 2, β = .05, ‖θ*‖ = 3``.

    Parameters
    ----------
    n : int
        Number of steps, at least 1.
    p : int
        Dimension, at least 1.
    sigma : float in (0, inf)
        Noise multiplier σ.
    beta : float in (0, 1)
        Failure probability β.
    theta_star_norm : float in (0, inf)
        ``‖θ*‖``.
    clip : float in (0, inf), default 1.0
        Clip norm ``L``.
    variant : {"corrected", "paper"}, default "corrected"
        The corrected ``X = L²(1 + σ√(·))`` or the printed ``X = Lσ√(·) + L²``.

    Returns
    -------
    float
        ``R*``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    ts = check_in_interval("theta_star_norm", theta_star_norm, 0.0, math.inf)
    n = check_int("n", n, 1)
    return ts * math.sqrt(2 * _X(n, p, clip, sigma, beta, variant) / n)


def concentration_failure(n: int, p: int, beta: float = 0.05, *, reps: int = 20000, readout: str = "vanilla",
                          seed: int = 0, backend: str | None = None) -> Estimate:
    r"""Monte Carlo of step (i)'s failure probability ``P(max_{t≤n} ‖b_t‖ > √(p⌈lg n⌉ ln(n/β)))``.

    For the tree's prefix noise ``b_t`` (node std 1; the event is scale-free in ``Lσ``), ``reps`` independent trees
    on the backend (the
    :class:`~dptheory.mechanisms.tree.TreeStream`), as an :class:`~dptheory.stats.Estimate` of a Bernoulli mean.
    Thm C.1's step (i) claims ``≤ β``; it fails at ``p = 1, n = 2`` (errata 000 §5 #25).

    Parameters
    ----------
    n : int
        Number of steps, at least 1.
    p : int
        Dimension, at least 1.
    beta : float in (0, 1), default 0.05
        Failure probability β of the radius.
    reps : int, default 20000
        Number of independent trees, at least 2.
    readout : {"vanilla", "honaker"}, default "vanilla"
        The tree's online read-out.
    seed : int, default 0
        Seed of the node draws.
    backend : str, optional
        Array backend (:func:`dptheory.backend.get_backend`).

    Returns
    -------
    Estimate
        The estimated probability with its standard error over ``reps``.

    Raises
    ------
    ValueError
        If an argument lies outside its range or ``readout`` is unknown.
    """
    n = check_int("n", n, 1)
    p = check_int("p", p, 1)
    reps = check_int("reps", reps, 2)
    beta = check_in_interval("beta", beta, 0.0, 1.0)
    if readout not in ("vanilla", "honaker"):
        raise ValueError(f"readout must be 'vanilla' or 'honaker', got {readout!r}")
    bk = get_backend(backend)
    xp = bk.xp
    rng = bk.rng(check_int("seed", seed, 0))
    r2 = p * _ceil_lg(n) * math.log(n / beta)
    hits = 0
    for start in range(0, reps, 50000):
        R = min(50000, reps - start)
        like = xp.zeros((R, p), dtype=xp.float64)
        stream = TreeStream(readout, (R, p), like, n)
        b = xp.zeros((R, p), dtype=xp.float64)
        worst = xp.zeros((R,), dtype=xp.float64)
        for t0 in range(0, n, 256):
            K = min(256, n - t0)
            a = stream(rng.standard_normal((K, R, p)))
            for k in range(K):
                b = b + a[k]
                worst = xp.maximum(worst, xp.sum(b * b, axis=-1))
        hits += int(bk.to_numpy(xp.sum(xp.astype(worst > r2, xp.int64))))
    q = hits / reps
    return Estimate(q, math.sqrt(max(q * (1 - q), 0.25 / reps) / reps), reps)


def logistic_data(n: int, p: int, chains: int, *, theta_norm: float = 3.0, clip: float = 1.0, seed: int = 0):
    r"""Online logistic-regression streams, one per chain.

    ``x_t`` uniform on the sphere of radius ``L = clip`` (so
    gradients have norm ``≤ L`` and clipping is inactive), ``y_t = ±1`` with ``P(+1) = 1/(1 + e^{−⟨x_t, θ_true⟩})``,
    ``θ_true`` a uniform direction of norm ``theta_norm`` per chain. Returns ``(X (chains, n, p), y (chains, n),
    θ_true (chains, p))`` (NumPy; the data are fixed inputs of the online problem).

    Parameters
    ----------
    n : int
        Number of steps, at least 1.
    p : int
        Dimension, at least 1.
    chains : int
        Number of streams, at least 1.
    theta_norm : float in [0, inf), default 3.0
        ``‖θ_true‖``.
    clip : float, default 1.0
        Radius ``L`` of the sphere of the ``x_t``.
    seed : int, default 0
        Seed of the draws.

    Returns
    -------
    X : numpy.ndarray
        Inputs, shape ``(chains, n, p)``.
    y : numpy.ndarray
        Labels ±1, shape ``(chains, n)``.
    theta_true : numpy.ndarray
        The teachers ``θ_true``, shape ``(chains, p)``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    n, p, chains = check_int("n", n, 1), check_int("p", p, 1), check_int("chains", chains, 1)
    theta_norm = check_in_interval("theta_norm", theta_norm, 0.0, math.inf, lo_closed=True)
    rng = np.random.default_rng(check_int("seed", seed, 0))
    X = rng.standard_normal((chains, n, p))
    X *= clip / np.linalg.norm(X, axis=-1, keepdims=True)
    u = rng.standard_normal((chains, p))
    theta = theta_norm * u / np.linalg.norm(u, axis=-1, keepdims=True)
    prob = 1.0 / (1.0 + np.exp(-np.einsum("cnp,cp->cn", X, theta)))
    y = np.where(rng.random((chains, n)) < prob, 1.0, -1.0)
    return X, y, theta


def hindsight_logistic(X, y, radius: float, *, iters: int = 300):
    r"""The best fixed ``θ`` in hindsight over the ball ``‖θ‖ ≤ radius``, per chain.

    It is ``argmin (1/n)Σ_t ln(1 + e^{−y_t⟨x_t,θ⟩})``
    per chain, by accelerated projected gradient (FISTA, step ``4/max‖x‖²``; the loss is ``max‖x‖²/4``-smooth),
    on the arrays' namespace. ``X`` ``(chains, n, p)``, ``y`` ``(chains, n)``; returns ``(θ̂ (chains, p), loss (chains,))``.

    Parameters
    ----------
    X : array
        Inputs, shape ``(chains, n, p)``.
    y : array
        Labels ±1, shape ``(chains, n)``.
    radius : float in (0, inf)
        Radius of the ball.
    iters : int, default 300
        Number of FISTA iterations, at least 1.

    Returns
    -------
    theta : array
        ``θ̂``, shape ``(chains, p)``.
    loss : array
        The average loss at ``θ̂``, shape ``(chains,)``.

    Raises
    ------
    ValueError
        If ``radius`` or ``iters`` lies outside its range.
    """
    xp = array_namespace(X, y)
    radius = check_in_interval("radius", radius, 0.0, math.inf)
    iters = check_int("iters", iters, 1)
    step = 4.0 / float(xp.max(xp.sum(X * X, axis=-1)))
    n = X.shape[-2]

    def grad(th):
        m = y * xp.sum(X * th[:, None, :], axis=-1)
        w = -y / (1.0 + xp.exp(xp.clip(m, -700.0, 700.0)))
        return xp.sum(w[..., None] * X, axis=-2) / n

    theta = xp.zeros((X.shape[0], X.shape[-1]), dtype=X.dtype)
    z, tk = theta, 1.0
    for _ in range(iters):
        new = project_ball(z - step * grad(z), radius)
        tn = (1 + math.sqrt(1 + 4 * tk * tk)) / 2
        z = new + ((tk - 1) / tn) * (new - theta)
        theta, tk = new, tn
    m = y * xp.sum(X * theta[:, None, :], axis=-1)
    return theta, xp.mean(xp.logaddexp(xp.zeros_like(m), -m), axis=-1)


@dataclass(frozen=True)
class RegretRun:
    r"""Online logistic regression by DP-FTRL at ``λ = λ*`` (corrected C.1, ``‖θ*‖ = theta_norm``).

    The per-seed attributes are arrays of length ``seeds``; :attr:`ratio_estimate` and :attr:`regret_estimate` are
    their means over seeds with standard errors.

    Attributes
    ----------
    n : int
        Number of steps.
    p : int
        Dimension.
    sigma : float
        Noise multiplier σ.
    beta : float
        Failure probability β.
    lam : float
        ``λ*``.
    regret : numpy.ndarray
        Per seed, the average regret ``(1/n)Σℓ(θ_t; d_t) − (1/n)Σℓ(θ̂; d_t)`` against the hindsight-best ``θ̂`` in the ball
        of radius ``theta_norm``.
    bound : numpy.ndarray
        Per seed, the corrected C.1 right side at ``λ*`` and ``‖θ̂‖``.
    ratio : numpy.ndarray
        Per seed, ``regret/bound``.
    r_star : float
        The optimised corrected bound at ``‖θ*‖ = theta_norm``.
    r_star_paper : float
        The optimised printed bound at ``‖θ*‖ = theta_norm``.
    settings : dict
        The seeds, ``theta_norm``, clip norm, read-out, seed and backend.
    """

    n: int
    p: int
    sigma: float
    beta: float
    lam: float
    regret: np.ndarray
    bound: np.ndarray
    ratio: np.ndarray
    r_star: float
    r_star_paper: float
    settings: dict

    @property
    def ratio_estimate(self) -> Estimate:
        """Mean of ``ratio`` over the seeds, with its standard error."""
        return Estimate.from_samples(self.ratio)

    @property
    def regret_estimate(self) -> Estimate:
        """Mean of ``regret`` over the seeds, with its standard error."""
        return Estimate.from_samples(self.regret)


def logistic_regret(n: int, p: int = 10, sigma: float = 2.0, *, seeds: int = 16, beta: float = 0.05,
                    theta_norm: float = 3.0, clip: float = 1.0, readout: str = "vanilla", seed: int = 0,
                    backend: str | None = None) -> RegretRun:
    r"""Online logistic regression by DP-FTRL at ``λ = λ*``, and its regret against the corrected bound.

    It runs online logistic regression under Thm C.1 (errata 000 §3: ``p = 10``, ``n = 4096``, ``σ = 2``, ``β = .05``,
    ``‖θ*‖ = 3``, ``λ = λ*``): :func:`logistic_data` streams (one per seed), :func:`~dptheory.treeagg.ftrl.dp_ftrl`
    (unconstrained, ``θ_1 = 0``, tree noise drawn from ``seed`` on the backend), the regret against
    :func:`hindsight_logistic` and its ratio to the corrected bound (see :class:`RegretRun`).

    Parameters
    ----------
    n : int
        Number of steps, at least 1.
    p : int, default 10
        Dimension.
    sigma : float in (0, inf), default 2.0
        Noise multiplier σ.
    seeds : int, default 16
        Number of independent runs (streams and noise), at least 2.
    beta : float in (0, 1), default 0.05
        Failure probability β of the bound.
    theta_norm : float in (0, inf), default 3.0
        ``‖θ*‖``: the teachers' norm and the radius of the hindsight ball.
    clip : float in (0, inf), default 1.0
        Clip norm ``L``.
    readout : {"vanilla", "honaker"}, default "vanilla"
        The tree's online read-out.
    seed : int, default 0
        Seed of the data; the tree noise uses ``seed + 1``.
    backend : str, optional
        Array backend (:func:`dptheory.backend.get_backend`).

    Returns
    -------
    RegretRun
        Per-seed regret, bound and ratio, with ``λ*`` and ``R*``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    n, p, clip, sigma, beta = _common(n, p, clip, sigma, beta)
    seeds = check_int("seeds", seeds, 2)
    theta_norm = check_in_interval("theta_norm", theta_norm, 0.0, math.inf)
    X, y, _ = logistic_data(n, p, seeds, theta_norm=theta_norm, clip=clip, seed=seed)
    lam = c1_lambda_star(n, p, sigma, beta, theta_norm, clip=clip)
    run = dp_ftrl(LogisticLosses(X, y), lam=lam, sigma=sigma, clip=clip, readout=readout, seed=seed + 1,
                  keep_iterates=False, backend=backend)
    bk = get_backend(backend)
    th, best = hindsight_logistic(bk.asarray(X), bk.asarray(y), theta_norm)
    th, best = bk.to_numpy(th), bk.to_numpy(best)
    regret = run.losses.mean(axis=0) - best
    norms = np.linalg.norm(th, axis=-1)
    bound = np.array([c1_bound(n, p, sigma, lam, beta, float(s), clip=clip) for s in norms])
    return RegretRun(n, p, sigma, beta, lam, regret, bound, regret / bound,
                     c1_r_star(n, p, sigma, beta, theta_norm, clip=clip),
                     c1_r_star(n, p, sigma, beta, theta_norm, clip=clip, variant="paper"),
                     dict(seeds=seeds, theta_norm=theta_norm, clip=clip, readout=readout, seed=seed,
                          backend=bk.name))


@dataclass(frozen=True)
class NormRegretRun:
    r"""DP-FTRL on the losses ``ℓ(θ) = L‖θ‖`` against Thm C.1's printed and corrected bounds (:func:`c1_norm_regret`).

    Attributes
    ----------
    n : int
        Number of steps.
    p : int
        Dimension.
    sigma : float
        Noise multiplier σ.
    beta : float
        Failure probability β of the bounds.
    clip : float
        The Lipschitz constant (and clip norm) ``L``.
    lam : float
        λ.
    regret : numpy.ndarray
        Per seed, the average regret ``(1/n)Σ_t L‖θ_t‖`` against ``θ* = 0`` (where the loss is 0).
    corrected : float
        The corrected C.1 bound ``L²(1 + σ√(p⌈lg n⌉ ln(n/β)))/λ`` (``θ* = θ_1 = 0``).
    printed : float
        The printed C.1 bound ``(Lσ√(·) + L²)/λ``.
    settings : dict
        The seeds, read-out, seed and backend.
    """

    n: int
    p: int
    sigma: float
    beta: float
    clip: float
    lam: float
    regret: np.ndarray
    corrected: float
    printed: float
    settings: dict

    @property
    def regret_estimate(self) -> Estimate:
        """Mean of ``regret`` over the seeds, with its standard error."""
        return Estimate.from_samples(self.regret)

    @property
    def invariant(self) -> np.ndarray:
        """Per seed, ``Q = λ·regret/L²``: the same for every ``L`` and ``λ`` (same seed, same numbers up to
        rounding)."""
        return self.regret * self.lam / self.clip**2


def c1_norm_regret(n: int, p: int = 10, sigma: float = 2.0, *, clip: float = 10.0, lam: float | None = None,
                   seeds: int = 200, beta: float = 0.05, readout: str = "vanilla", seed: int = 0,
                   backend: str | None = None) -> NormRegretRun:
    r"""DP-FTRL on ``ℓ(θ) = L‖θ‖`` (``L = clip``), against seed 000 Thm C.1's printed and corrected bounds.

    The losses (:class:`~dptheory.treeagg.ftrl.NormLosses` with every centre 0) are convex and exactly
    ``L``-Lipschitz on ``C = R^p``, minimised at ``θ* = 0``; with ``θ_1 = 0`` both bounds are ``X/λ`` (errata 000 §3).
    DP-FTRL's ``θ_{t+1} = −(Σ_{i≤t} L θ_i/‖θ_i‖ + σL b_t)/λ`` is ``(L/λ) φ_{t+1}`` with ``φ_{t+1} = −(Σ_{i≤t}
    φ_i/‖φ_i‖ + σ b_t)``, which depends on neither ``L`` nor ``λ``: the regret is ``(L²/λ)Q``, ``Q = (1/n)Σ_t‖φ_t‖``
    (:attr:`NormRegretRun.invariant`). So, with ``r = √(p⌈lg n⌉ ln(n/β))``, the corrected bound ``L²(1 + σr)/λ``
    holds iff ``Q ≤ 1 + σr`` and the printed ``(Lσr + L²)/λ`` iff ``Q ≤ 1 + σr/L``: at ``L = 1`` they coincide, and
    at ``L = 10`` the printed bound fails wherever ``Q > 1 + σr/10`` — the missing factor ``L`` measured. At ``n =
    256, p = 10, σ = 2``: ``Q ≈ 9.3`` against ``1 + σr/10 ≈ 6.2`` and ``1 + σr ≈ 53``. Deterministic for a seed.

    Parameters
    ----------
    n : int
        Number of steps, at least 1.
    p : int, default 10
        Dimension.
    sigma : float in (0, inf), default 2.0
        Noise multiplier σ.
    clip : float in (0, inf), default 10.0
        The Lipschitz constant ``L`` (also the clip norm, which never clips: every gradient has norm ``L``).
    lam : float in (0, inf), optional
        λ; the default ``L√n`` keeps the iterates ``O(1)`` (the ratios to the bounds do not depend on it).
    seeds : int, default 200
        Number of independent runs (chains), at least 2.
    beta : float in (0, 1), default 0.05
        Failure probability β of the bounds.
    readout : {"vanilla", "honaker"}, default "vanilla"
        The tree's online read-out.
    seed : int, default 0
        Seed of the tree noise.
    backend : str, optional
        Array backend (:func:`dptheory.backend.get_backend`).

    Returns
    -------
    NormRegretRun
        Per-seed regret and both bounds.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    n, p, clip, sigma, beta = _common(n, p, clip, sigma, beta)
    seeds = check_int("seeds", seeds, 2)
    lam = clip * math.sqrt(n) if lam is None else check_in_interval("lam", lam, 0.0, math.inf)
    run = dp_ftrl(NormLosses(np.zeros((n, p)), scale=clip), lam=lam, sigma=sigma, clip=clip, readout=readout,
                  chains=seeds, seed=seed, keep_iterates=False, backend=backend)
    bounds = {v: c1_bound(n, p, sigma, lam, beta, 0.0, clip=clip, variant=v) for v in ("corrected", "paper")}
    return NormRegretRun(n, p, sigma, beta, clip, lam, run.losses.mean(axis=0), bounds["corrected"], bounds["paper"],
                         dict(seeds=seeds, readout=readout, seed=seed, backend=run.settings["backend"]))
