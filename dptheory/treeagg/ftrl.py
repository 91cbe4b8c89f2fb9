r"""DP-FTRL (seed 000 Alg. 1, appendix B.1/C.1/D), its Noisy-SGD form (Thm B.1) and DP-FTRL-LS (Alg. 2, C.2),
vectorised over independent chains (a leading chain axis) on the array backend (:mod:`dptheory.backend`).

The tree is the shared :class:`~dptheory.mechanisms.TreeAggregation` (read-outs ``"vanilla"`` = GetSum and
``"honaker"`` = GetSumReducedVariance with the corrected divisor, errata 000 §2.3); its prefix noise ``b_t`` comes
from :class:`~dptheory.mechanisms.tree.TreeStream` (``O(log n)`` memory, one white draw per step) as the running sum
of the increments ``a_t = b_t − b_{t−1}``, or, for the Thm B.1 identity with the *same node draws*, from
:func:`tree_noise`, which reads ``b = B z`` off the node draws ``z`` with the tree's decoder (GetSum) and ``a`` by
the stream fed with ``M z`` — two independent routes. Node noise has standard deviation ``σ·L/k`` (clip ``L``,
batch ``k``; errata 000 §2.6), ``σ`` the dimensionless noise multiplier.

* :func:`dp_ftrl` — Alg. 1 (rebuilt in errata 000 §2.4 from B.1–C.1):
  ``θ_{t+1} = argmin_{θ∈C} ⟨s_t, θ⟩ + (λ/2)‖θ − θ_1‖²`` with ``s_t = Σ_{i≤t} ∇_i + b_t`` the tree's noisy prefix sum
  of clipped gradients; with ``C`` the ℓ2 ball of radius ``R`` the argmin is the Euclidean projection of the
  unconstrained minimiser ``θ_1 − s_t/λ`` ("lazy projection"). Mini-batches (D: ``∇_t = (1/k)Σ_i clip(∇ℓ(θ_t;
  d_t^{(i)}), L)``, the paper's ``d_t^{(1)}`` is a typo, errata 000 §7 #4), momentum DP-FTRLM
  (``m_t = γ m_{t−1} + s_t``, ``θ_{t+1} = Π_C(θ_1 − m_t/λ)``: the authors' code, errata 000 §2.8, §7 #8) and tree
  restarts (DP-FTRL-TR, D.1: every ``restart_every`` steps, or after each tree of a schedule of sizes
  ``restart_every=[n_1, n_2, …]``, a new tree, and the anchor ``θ_1``, the gradient sum and the momentum start again
  at the current iterate).
* :func:`noisy_sgd` — Thm B.1's form ``θ_{t+1} = θ_t − η(∇_t + a_t)`` (heavy ball ``v_t = γ v_{t−1} + ∇_t + a_t``,
  ``θ_{t+1} = θ_t − η v_t`` for the momentum pair), with an optional greedy projection. With the same node draws,
  ``η = 1/λ``, ``θ_1 = 0`` and ``C = R^p`` the iterates of :func:`dp_ftrl` and :func:`noisy_sgd` agree to rounding
  (errata 000 §3, §5 #12); with a constraint set they do not (lazy vs greedy projection).
* :func:`dp_ftrl_ls` — Alg. 2 (errata 000 §2.9): a vector tree for ``Σ y x`` (node std ``σL``) and a matrix tree for
  ``Σ x xᵀ`` (symmetric node noise, upper triangle iid ``N(0, σ²L⁴)``, mirrored), ``θ_{t+1} = (W_t + (λ/2)I)⁻¹ s_t``.
  The noisy ``W_t`` can be indefinite; C.4's strong-convexity step silently assumes ``W_t + (λ/2)I ≻ 0``. Where it is
  not, the step is never solved as is: ``psd="project"`` clips the eigenvalues of ``W_t`` at 0 (projection onto the
  PSD cone, post-processing) and records the step in ``LSResult.projected``; ``psd="raise"`` raises
  :class:`IndefiniteObjectiveError`; ``psd="always"`` projects every ``W_t``.

Loss streams (:class:`LinearLosses`, :class:`LogisticLosses`, :class:`NormLosses`) hold the data, shared by all
chains or one data set per chain (a leading chain axis), and return per-example losses and gradients at the chains'
iterates; the kernels take their array namespace from their inputs (``array_api_compat``) and results come back as
NumPy arrays.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from array_api_compat import array_namespace

from .._validation import check_in_interval, check_int
from ..backend import get_backend
from ..mechanisms.tree import READOUTS, TreeAggregation, TreeStream
from .accounting import _schedule

__all__ = [
    "LinearLosses", "LogisticLosses", "NormLosses", "FTRLResult", "LSResult", "IndefiniteObjectiveError",
    "PSD_MODES", "tree_noise", "dp_ftrl", "noisy_sgd", "dp_ftrl_ls", "clip_rows", "project_ball",
]

#: What :func:`dp_ftrl_ls` does with a noisy ``W_t + (λ/2)I`` that is not positive definite.
PSD_MODES = ("project", "always", "raise")
_BLOCK = 256  # white draws per generator call


class IndefiniteObjectiveError(ValueError):
    """DP-FTRL-LS met a noisy ``W_t + (λ/2)I`` that is not positive definite (``psd="raise"``)."""


# -- validation ------------------------------------------------------------------------------------------------------

def _check_online_readout(readout) -> str:
    if readout not in ("vanilla", "honaker"):
        raise ValueError(f"readout must be 'vanilla' or 'honaker' (an online read-out of {READOUTS}), got {readout!r}")
    return readout


def _check_sigma(sigma) -> float:
    return check_in_interval("sigma", sigma, 0.0, math.inf, why="the noise multiplier; pass white=zeros for no noise")


def _check_positive(name, value) -> float:
    return check_in_interval(name, value, 0.0, math.inf)


def _check_momentum(momentum) -> float:
    return check_in_interval("momentum", momentum, 0.0, 1.0, lo_closed=True)


def _check_radius(radius):
    return None if radius is None else _check_positive("radius", radius)


# -- kernels ---------------------------------------------------------------------------------------------------------

def clip_rows(v, clip: float):
    """``clip(v, L) = v·min(1, L/‖v‖)`` along the last axis (a zero row stays zero).

    Parameters
    ----------
    v : array
        Vectors along the last axis (any array-API array).
    clip : float in [0, inf)
        The clip norm ``L``.

    Returns
    -------
    array
        ``v`` with every row of norm above ``L`` scaled down to norm ``L``, in ``v``'s namespace.

    Raises
    ------
    ValueError
        If ``clip`` is not a finite real number ``≥ 0``.
    """
    clip = check_in_interval("clip", clip, 0.0, lo_closed=True)
    xp = array_namespace(v)
    norm = xp.sqrt(xp.sum(v * v, axis=-1, keepdims=True))
    return v * xp.minimum(xp.ones_like(norm), clip / xp.maximum(norm, xp.full_like(norm, 1e-300)))


def project_ball(theta, radius):
    """Euclidean projection of each row of ``theta`` onto the ℓ2 ball of ``radius`` centred at 0 (``None``: identity).

    Parameters
    ----------
    theta : array
        Points along the last axis (any array-API array).
    radius : float in [0, inf) or None
        Radius of the ball; ``None`` returns ``theta`` unchanged.

    Returns
    -------
    array
        The projected rows, in ``theta``'s namespace.

    Raises
    ------
    ValueError
        If ``radius`` is neither ``None`` nor a finite real number ``≥ 0``.
    """
    if radius is None:
        return theta
    radius = check_in_interval("radius", radius, 0.0, lo_closed=True)
    xp = array_namespace(theta)
    norm = xp.sqrt(xp.sum(theta * theta, axis=-1, keepdims=True))
    return theta * xp.minimum(xp.ones_like(norm), radius / xp.maximum(norm, xp.full_like(norm, 1e-300)))


class _Stream:
    """Rows ``d_1 … d_{steps·batch}`` of a loss stream, shared ``(rows, ·)`` or per chain ``(chains, rows, ·)``."""

    batch: int
    steps: int
    p: int
    chains: int | None  # None: shared by all chains

    def _setup(self, arrays: dict, batch, xdim: int):
        self.batch = check_int("batch", batch, 1)
        first = next(iter(arrays.values()))
        if first.ndim not in (xdim, xdim + 1):
            raise ValueError(f"data must have shape (rows, …) or (chains, rows, …), got {first.shape}")
        rows = first.shape[-2] if xdim == 2 else first.shape[-1]
        self.chains = first.shape[0] if first.ndim == xdim + 1 else None
        if rows < self.batch:
            raise ValueError(f"batch must be at most the number of rows ({rows}), got {self.batch}")
        self.steps = rows // self.batch
        self._arrays = arrays

    def bind(self, backend):
        """A copy whose data lives on ``backend`` (a :class:`~dptheory.backend.Backend`)."""
        out = object.__new__(type(self))
        out.__dict__.update(self.__dict__)
        out._arrays = {k: backend.asarray(v) for k, v in self._arrays.items()}
        return out

    def _rows(self, name, t):
        a = self._arrays[name]
        k = self.batch
        return a[..., t * k:(t + 1) * k, :] if a.ndim >= 2 and name in ("G", "X") else a[..., t * k:(t + 1) * k]


class LinearLosses(_Stream):
    r"""Linear losses ``ℓ(θ; g) = ⟨g, θ⟩`` (gradient ``g``, independent of ``θ``).

    Parameters
    ----------
    G : array_like
        Finite gradient rows, shape ``(rows, p)`` or ``(chains, rows, p)``.
    batch : int, default 1
        Rows per step ``k``, at most the number of rows.

    Raises
    ------
    ValueError
        If ``G`` is not finite or has the wrong shape, or ``batch`` exceeds the rows.
    """

    def __init__(self, G, batch: int = 1):
        G = np.asarray(G, float)
        if not np.all(np.isfinite(G)):
            raise ValueError("G must be finite")
        self._setup({"G": G}, batch, 2)
        self.p = G.shape[-1]

    def __call__(self, t: int, theta):
        """Per-example losses ``(chains, k)`` and gradients ``(chains, k, p)`` of step ``t`` (0-based) at ``theta``."""
        xp = array_namespace(theta)
        g = self._rows("G", t)
        g = g + xp.zeros((theta.shape[0], 1, 1), dtype=theta.dtype)
        return xp.sum(g * theta[:, None, :], axis=-1), g


class NormLosses(_Stream):
    r"""Distance losses ``ℓ(θ; c) = L‖θ − c‖``: convex and exactly ``L``-Lipschitz on ``R^p``, minimised at ``θ = c``.

    The gradient is ``L(θ − c)/‖θ − c‖`` (``0`` at ``θ = c``), of norm ``L``: the loss of seed 000 Thm C.1's check
    at ``L ≠ 1`` (:func:`~dptheory.treeagg.regret.c1_norm_regret`), where DP-FTRL's iterates scale exactly with
    ``L/λ``.

    Parameters
    ----------
    C : array_like
        Finite centres ``c``, shape ``(rows, p)`` or ``(chains, rows, p)``.
    scale : float in (0, inf), default 1.0
        The Lipschitz constant ``L``.
    batch : int, default 1
        Rows per step ``k``, at most the number of rows.

    Raises
    ------
    ValueError
        If ``C`` is not finite or has the wrong shape, ``scale`` is not positive, or ``batch`` exceeds the rows.
    """

    def __init__(self, C, scale: float = 1.0, batch: int = 1):
        C = np.asarray(C, float)
        if not np.all(np.isfinite(C)):
            raise ValueError("C must be finite")
        self.scale = _check_positive("scale", scale)
        self._setup({"X": C}, batch, 2)
        self.p = C.shape[-1]

    def __call__(self, t: int, theta):
        """Per-example losses ``(chains, k)`` and gradients ``(chains, k, p)`` of step ``t`` (0-based) at ``theta``."""
        xp = array_namespace(theta)
        d = theta[:, None, :] - self._rows("X", t)
        norm = xp.sqrt(xp.sum(d * d, axis=-1))
        return self.scale * norm, (self.scale / xp.maximum(norm, xp.full_like(norm, 1e-300)))[..., None] * d


class LogisticLosses(_Stream):
    r"""Logistic losses ``ℓ(θ; (x, y)) = ln(1 + e^{−y⟨x, θ⟩})``, ``y ∈ {−1, +1}``.

    The gradient is ``−y x/(1 + e^{y⟨x, θ⟩})``, of norm ``≤ ‖x‖``.

    Parameters
    ----------
    X : array_like
        Finite inputs, shape ``(rows, p)`` or ``(chains, rows, p)``.
    y : array_like
        Labels ±1, shape ``X.shape[:-1]``.
    batch : int, default 1
        Rows per step ``k``, at most the number of rows.

    Raises
    ------
    ValueError
        If ``X`` is not finite, ``y`` has the wrong shape or a label other than ±1, or ``batch`` exceeds the rows.
    """

    def __init__(self, X, y, batch: int = 1):
        X, y = np.asarray(X, float), np.asarray(y, float)
        if X.shape[:-1] != y.shape:
            raise ValueError(f"y must have shape {X.shape[:-1]} (one label per row of X), got {y.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("X must be finite")
        if not np.all(np.abs(y) == 1.0):
            raise ValueError("y must hold labels -1 or +1")
        self._setup({"X": X, "y": y}, batch, 2)
        self.p = X.shape[-1]

    def __call__(self, t: int, theta):
        """Per-example losses ``(chains, k)`` and gradients ``(chains, k, p)`` of step ``t`` (0-based) at ``theta``."""
        xp = array_namespace(theta)
        x, y = self._rows("X", t), self._rows("y", t)
        margin = y * xp.sum(x * theta[:, None, :], axis=-1)  # (chains, k)
        loss = xp.logaddexp(xp.zeros_like(margin), -margin)
        weight = -y / (1.0 + xp.exp(xp.clip(margin, -700.0, 700.0)))
        return loss, weight[..., None] * x

    def mean_loss(self, theta):
        """The average loss over all ``steps·batch`` rows at fixed ``theta`` ``(chains, p)``: ``(chains,)``.

        Parameters
        ----------
        theta : array
            Iterates, shape ``(chains, p)``.

        Returns
        -------
        array
            The average loss per chain, shape ``(chains,)``.
        """
        xp = array_namespace(theta)
        X, y = self._arrays["X"], self._arrays["y"]
        rows = self.steps * self.batch
        margin = y[..., :rows] * xp.sum(X[..., :rows, :] * theta[:, None, :], axis=-1)
        return xp.mean(xp.logaddexp(xp.zeros_like(margin), -margin), axis=-1)


# -- tree noise ------------------------------------------------------------------------------------------------------

def tree_noise(readout: str, node_draws):
    r"""The tree's prefix noise ``b`` and its increments ``a = b_t − b_{t−1}`` from the same node draws, by two routes.

    The result is ``(b, a)``, each ``(n, *shape)``: ``b = B z`` by the decoder (GetSum / GetSumReducedVariance read
    off the node values), ``a`` by
    the ``O(log n)`` :class:`~dptheory.mechanisms.tree.TreeStream` fed with ``w = M z`` (the step mixing matrix).
    Dense ``B`` and ``M`` (``n × m``): meant for checks at ``n`` up to a few thousand.

    Parameters
    ----------
    readout : {"vanilla", "honaker"}
        The online read-out.
    node_draws : array_like
        ``(m, *shape)`` white node values in :func:`~dptheory.mechanisms.tree_nodes` order (``m = n`` for
        ``"vanilla"``, ``2n − popcount(n)`` for ``"honaker"``; ``n`` is read off ``m``).

    Returns
    -------
    b : numpy.ndarray
        The prefix noise, shape ``(n, *shape)``, by the decoder.
    a : numpy.ndarray
        The increments, shape ``(n, *shape)``, by the tree stream.

    Raises
    ------
    ValueError
        If ``readout`` is unknown or ``m`` is not ``2n − popcount(n)`` for any ``n`` (``"honaker"``).
    """
    readout = _check_online_readout(readout)
    z = np.asarray(node_draws, float)
    m = z.shape[0]
    if readout == "vanilla":
        n = m
    else:
        n = next((k for k in range(1, m + 1) if 2 * k - k.bit_count() == m), None)
        if n is None:
            raise ValueError(f"node_draws must have 2n - popcount(n) rows for some n (honaker), got {m}")
    mech = TreeAggregation(readout)
    B, M = mech.decoder_matrix(n), mech.step_mixing_matrix(n)
    flat = z.reshape(m, -1)
    b = (B @ flat).reshape((n, *z.shape[1:]))
    w = (M @ flat).reshape((n, *z.shape[1:]))
    a = TreeStream(readout, w.shape[1:], w, n)(w)
    return b, np.asarray(a)


class _Noise:
    """Per-step tree noise increments ``a_t`` (units of the node std) of shape ``(chains, *shape)``: from a tree stream
    fed with white draws (given, or drawn in blocks), or from given increments; ``restart()`` starts a new tree."""

    def __init__(self, readout, shape, like, steps, rng, white=None, increments=None, symmetric=False):
        self.readout, self.shape, self.like, self.rng = readout, tuple(shape), like, rng
        self.white, self.increments, self.symmetric = white, increments, symmetric
        self.steps, self.t, self.buf_start = steps, 0, 0
        self.restart(steps)

    def restart(self, seg_steps):
        self.stream = TreeStream(self.readout, self.shape, self.like, seg_steps) if self.increments is None else None
        self.seg_left = seg_steps
        self.buf = None

    def _draw(self, K):
        xp = array_namespace(self.like)
        if self.white is not None:
            w = self.white[self.t:self.t + K, ...]
        else:
            w = self.rng.standard_normal((K, *self.shape))
        if self.symmetric:  # upper triangle iid, mirrored (errata 000 §2.9)
            p = self.shape[-1]
            i = xp.arange(p)
            upper = xp.astype(i[:, None] <= i[None, :], w.dtype)
            strict = xp.astype(i[:, None] < i[None, :], w.dtype)
            w = w * upper + xp.matrix_transpose(w * strict)
        return w

    def __call__(self):
        """``a_t`` of the next step."""
        if self.increments is not None:
            a = self.increments[self.t, ...]
        else:
            if self.buf is None or self.t - self.buf_start >= self.buf.shape[0]:
                K = min(_BLOCK, self.seg_left)
                self.buf, self.buf_start = self.stream(self._draw(K)), self.t
            a = self.buf[self.t - self.buf_start, ...]
        self.t += 1
        self.seg_left -= 1
        return a


def _prepare(stream, backend, chains, seed, steps, theta1):
    bk = get_backend(backend)
    data = stream.bind(bk)
    if stream.chains is not None:
        if chains not in (1, stream.chains):
            raise ValueError(f"chains must equal the data's chain axis ({stream.chains}), got {chains}")
        chains = stream.chains
    chains = check_int("chains", chains, 1)
    n = stream.steps if steps is None else check_int("steps", steps, 1, stream.steps, why="at most the stream's steps")
    if theta1 is None:
        theta = bk.xp.zeros((chains, stream.p), dtype=bk.xp.float64)
    else:
        t1 = np.broadcast_to(np.asarray(theta1, float), (chains, stream.p))
        if not np.all(np.isfinite(t1)):
            raise ValueError("theta1 must be finite")
        theta = bk.asarray(np.array(t1))
    return bk, data, chains, n, theta, bk.rng(check_int("seed", seed, 0))


def _given(name, arr, bk, n, chains, p):
    if arr is None:
        return None
    a = np.asarray(arr, float)
    if a.ndim == 2:
        a = a[:, None, :]
    if a.shape[0] < n or a.shape[1:] not in ((chains, p), (1, p)):
        raise ValueError(f"{name} must have shape (steps >= {n}, chains = {chains}, p = {p}), got {np.shape(arr)}")
    return bk.asarray(np.broadcast_to(a[:n], (n, chains, p)).copy())


@dataclass(frozen=True)
class FTRLResult:
    """A run of :func:`dp_ftrl` or :func:`noisy_sgd` (NumPy arrays, leading chain axis after the step axis).

    Attributes
    ----------
    theta : numpy.ndarray or None
        ``(n + 1, chains, p)`` iterates ``θ_1 … θ_{n+1}`` (``θ_t`` is where the ``t``-th gradient is taken; ``None``
        unless ``keep_iterates``).
    final : numpy.ndarray
        ``θ_{n+1}``, shape ``(chains, p)``.
    losses : numpy.ndarray
        ``(n, chains)``: the mean batch loss ``ℓ(θ_t; d_t)``.
    node_std : float
        ``σL/k``.
    settings : dict
        The arguments.
    """

    theta: np.ndarray | None
    final: np.ndarray
    losses: np.ndarray
    node_std: float
    settings: dict


def _tree_sizes(restart_every, n: int) -> tuple[list[int], int | list[int] | None]:
    """The sizes of the successive trees over ``n`` steps (seed 000 D.1, DP-FTRL-TR) and ``restart_every`` checked:
    one tree (``None``), a new one every ``restart_every`` steps (the last one shorter where it does not divide
    ``n``), or a schedule of tree sizes summing to ``n``, as ``n=[…]`` of
    :func:`~dptheory.treeagg.accounting.tree_epsilon` takes it (validated by the same ``_schedule``)."""
    schedule = _schedule(restart_every, name="restart_every")
    if schedule is not None:
        if sum(schedule) != n:
            raise ValueError(f"restart_every as a schedule of tree sizes must sum to the horizon, steps = {n}; got "
                             f"{schedule!r:.80} (sum {sum(schedule)})")
        return schedule, schedule
    if restart_every is None:
        return [n], None
    every = check_int("restart_every", restart_every, 1)
    return [min(every, n - t) for t in range(0, n, every)], every


def _check_common(sigma, clip, readout, momentum, radius):
    """The arguments :func:`dp_ftrl` and :func:`noisy_sgd` share: ``(σ, L, read-out, γ, radius)``, each checked."""
    return (_check_sigma(sigma), _check_positive("clip", clip), _check_online_readout(readout), _check_momentum(momentum),
            _check_radius(radius))


def _step_grads(data, t, theta, clip):
    xp = array_namespace(theta)
    loss, g = data(t, theta)
    return xp.mean(loss, axis=-1), xp.mean(clip_rows(g, clip), axis=-2)


def dp_ftrl(stream, *, lam: float, sigma: float, clip: float = 1.0, readout: str = "vanilla", chains: int = 1,
            seed: int = 0, steps: int | None = None, radius: float | None = None, momentum: float = 0.0,
            restart_every: int | Sequence[int] | None = None, theta1=None, white=None, prefix_noise=None,
            keep_iterates: bool = True, backend: str | None = None) -> FTRLResult:
    r"""DP-FTRL with DP-FTRLM momentum, mini-batches and tree restarts, vectorised over chains.

    DP-FTRL, seed 000 Alg. 1 (``A_FTRL``; rebuilt in errata 000 §2.4), with DP-FTRLM momentum (§2.8),
    mini-batches (D, §2.6) and tree restarts (D.1, §2.7); see the module docstring.

    ``θ_{t+1} = Π_C(θ_1 − m_t/λ)``, ``m_t = γ m_{t−1} + s_t`` (``γ = momentum``; ``m_t = s_t`` at ``γ = 0``),
    ``s_t = Σ_{i≤t} ∇_i + (σL/k) b_t``, ``C`` the ℓ2 ball of ``radius`` (``None``: ``R^p``), ``θ_1 = Π_C(theta1)``
    (default 0). Noise: ``white``, or ``prefix_noise``, else drawn from ``seed`` on the backend.

    Parameters
    ----------
    stream : LinearLosses or LogisticLosses
        The loss stream; its ``batch`` is ``k``.
    lam : float in (0, inf)
        Regularisation λ.
    sigma : float in (0, inf)
        Noise multiplier σ (pass ``white`` zeros for no noise).
    clip : float in (0, inf), default 1.0
        Clip norm ``L`` of the per-example gradients.
    readout : {"vanilla", "honaker"}, default "vanilla"
        The tree's online read-out.
    chains : int, default 1
        Number of independent chains (must equal the stream's chain axis if it has one).
    seed : int, default 0
        Seed of the noise drawn on the backend.
    steps : int, optional
        Use the first ``steps`` steps of ``stream`` (default all).
    radius : float in (0, inf), optional
        Radius ``R`` of the ℓ2 ball ``C``; ``None`` (default): ``C = R^p``.
    momentum : float in [0, 1), default 0.0
        Momentum γ.
    restart_every : int or sequence of int, optional
        Start a new tree (and anchor) every ``restart_every`` steps; or a schedule: the sizes of the successive trees,
        positive integers summing to the horizon (``steps``), as ``n=[…]`` of
        :func:`~dptheory.treeagg.accounting.tree_epsilon` accounts them (``[m] * E`` is ``restart_every=m``); default
        never.
    theta1 : array_like, optional
        Starting point ``θ_1`` before projection (default 0), broadcast to ``(chains, p)``.
    white : array_like, optional
        ``(n, chains, p)`` white draws for the tree stream (the same draws give the same run; zeros give no noise).
    prefix_noise : array_like, optional
        ``(n, chains, p)`` the tree's ``b_t`` in units of the node std (e.g. from :func:`tree_noise`; not with
        restarts, nor with ``white``).
    keep_iterates : bool, default True
        Keep every iterate in :attr:`FTRLResult.theta`.
    backend : str, optional
        Array backend (:func:`dptheory.backend.get_backend`).

    Returns
    -------
    FTRLResult
        The iterates, final iterate, batch losses, node std and settings.

    Raises
    ------
    ValueError
        If an argument lies outside its range (a schedule ``restart_every`` whose sizes are not positive integers
        or do not sum to the horizon), or ``prefix_noise`` is given with ``restart_every`` or ``white``.
    """
    lam = _check_positive("lam", lam)
    sigma, clip, readout, gamma, radius = _check_common(sigma, clip, readout, momentum, radius)
    bk, data, chains, n, theta, rng = _prepare(stream, backend, chains, seed, steps, theta1)
    sizes, restart = _tree_sizes(restart_every, n)
    starts = dict(zip(np.cumsum(sizes[:-1]).tolist(), sizes[1:]))  # step → size of the tree that starts there
    if prefix_noise is not None and restart is not None:
        raise ValueError("prefix_noise must not be given with restart_every (each restart starts a new tree)")
    if white is not None and prefix_noise is not None:
        raise ValueError("white and prefix_noise must not both be given")
    xp, p = bk.xp, stream.p
    white = _given("white", white, bk, n, chains, p)
    prefix = _given("prefix_noise", prefix_noise, bk, n, chains, p)
    std = sigma * clip / stream.batch
    noise = None if prefix is not None else _Noise(readout, (chains, p), theta, n, rng, white=white)
    if noise is not None:
        noise.restart(sizes[0])
    theta = project_ball(theta, radius)
    anchor, G, m, b = theta, xp.zeros_like(theta), xp.zeros_like(theta), xp.zeros_like(theta)
    iters = [theta] if keep_iterates else None
    losses = []
    for t in range(n):
        if t in starts:
            anchor, G, m, b = theta, xp.zeros_like(theta), xp.zeros_like(theta), xp.zeros_like(theta)
            noise.restart(starts[t])
        loss, g = _step_grads(data, t, theta, clip)
        losses.append(loss)
        G = G + g
        b = prefix[t, ...] if prefix is not None else b + noise()
        s = G + std * b
        m = s if gamma == 0.0 else gamma * m + s
        theta = project_ball(anchor - m / lam, radius)
        if keep_iterates:
            iters.append(theta)
    settings = dict(algorithm="dp_ftrl", lam=lam, sigma=sigma, clip=clip, readout=readout, chains=chains, seed=seed,
                    steps=n, batch=stream.batch, radius=radius, momentum=gamma, restart_every=restart, backend=bk.name)
    return FTRLResult(None if iters is None else bk.to_numpy(xp.stack(iters)), bk.to_numpy(theta),
                      bk.to_numpy(xp.stack(losses)), std, settings)


def noisy_sgd(stream, *, eta: float, sigma: float, clip: float = 1.0, readout: str = "vanilla", chains: int = 1,
              seed: int = 0, steps: int | None = None, radius: float | None = None, momentum: float = 0.0,
              theta1=None, white=None, increments=None, keep_iterates: bool = True,
              backend: str | None = None) -> FTRLResult:
    r"""Noisy-SGD with the tree's correlated noise, seed 000 Thm B.1 (errata 000 §3).

    ``θ_{t+1} = Π_C(θ_t − η v_t)``, ``v_t = γ v_{t−1} + ∇_t + (σL/k) a_t`` with ``a_t = b_t − b_{t−1}`` (heavy ball,
    the momentum pair of DP-FTRLM, errata 000 §2.8), a *greedy* projection onto the ball of ``radius``.

    Noise: ``white``, or ``increments``, else drawn from ``seed``. With the same draws,
    ``η = 1/λ``, ``θ_1 = 0`` and no constraint it returns :func:`dp_ftrl`'s iterates (Thm B.1).

    Parameters
    ----------
    stream : LinearLosses or LogisticLosses
        The loss stream; its ``batch`` is ``k``.
    eta : float in (0, inf)
        Step size η.
    sigma : float in (0, inf)
        Noise multiplier σ (pass ``white`` zeros for no noise).
    clip : float in (0, inf), default 1.0
        Clip norm ``L`` of the per-example gradients.
    readout : {"vanilla", "honaker"}, default "vanilla"
        The tree's online read-out.
    chains : int, default 1
        Number of independent chains (must equal the stream's chain axis if it has one).
    seed : int, default 0
        Seed of the noise drawn on the backend.
    steps : int, optional
        Use the first ``steps`` steps of ``stream`` (default all).
    radius : float in (0, inf), optional
        Radius of the ball of the greedy projection; ``None`` (default): no projection.
    momentum : float in [0, 1), default 0.0
        Momentum γ (heavy ball).
    theta1 : array_like, optional
        Starting point ``θ_1`` before projection (default 0), broadcast to ``(chains, p)``.
    white : array_like, optional
        ``(n, chains, p)`` white draws, fed to the same tree stream as :func:`dp_ftrl`.
    increments : array_like, optional
        ``(n, chains, p)`` the ``a_t`` in units of the node std (e.g. from :func:`tree_noise`); not with ``white``.
    keep_iterates : bool, default True
        Keep every iterate in :attr:`FTRLResult.theta`.
    backend : str, optional
        Array backend (:func:`dptheory.backend.get_backend`).

    Returns
    -------
    FTRLResult
        The iterates, final iterate, batch losses, node std and settings.

    Raises
    ------
    ValueError
        If an argument lies outside its range, or both ``white`` and ``increments`` are given.
    """
    eta = _check_positive("eta", eta)
    sigma, clip, readout, gamma, radius = _check_common(sigma, clip, readout, momentum, radius)
    bk, data, chains, n, theta, rng = _prepare(stream, backend, chains, seed, steps, theta1)
    if white is not None and increments is not None:
        raise ValueError("white and increments must not both be given")
    xp, p = bk.xp, stream.p
    white = _given("white", white, bk, n, chains, p)
    incr = _given("increments", increments, bk, n, chains, p)
    std = sigma * clip / stream.batch
    noise = _Noise(readout, (chains, p), theta, n, rng, white=white, increments=incr)
    theta = project_ball(theta, radius)
    v = xp.zeros_like(theta)
    iters = [theta] if keep_iterates else None
    losses = []
    for t in range(n):
        loss, g = _step_grads(data, t, theta, clip)
        losses.append(loss)
        v = (g + std * noise()) if gamma == 0.0 else gamma * v + g + std * noise()
        theta = project_ball(theta - eta * v, radius)
        if keep_iterates:
            iters.append(theta)
    settings = dict(algorithm="noisy_sgd", eta=eta, sigma=sigma, clip=clip, readout=readout, chains=chains, seed=seed,
                    steps=n, batch=stream.batch, radius=radius, momentum=gamma, backend=bk.name)
    return FTRLResult(None if iters is None else bk.to_numpy(xp.stack(iters)), bk.to_numpy(theta),
                      bk.to_numpy(xp.stack(losses)), std, settings)


# -- DP-FTRL-LS --------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LSResult:
    """A run of :func:`dp_ftrl_ls`.

    Attributes
    ----------
    theta : numpy.ndarray
        ``(n + 1, chains, p)`` iterates ``θ_1 = 0, θ_2, …``.
    projected : numpy.ndarray
        ``(n, chains)``: whether step ``t``'s ``W_t`` was projected to the PSD cone.
    min_eig : numpy.ndarray
        ``(n, chains)``: the smallest eigenvalue of the noisy ``W_t + (λ/2)I`` before any projection.
    settings : dict
        The arguments.
    """

    theta: np.ndarray
    projected: np.ndarray
    min_eig: np.ndarray
    settings: dict


def dp_ftrl_ls(X, y, *, lam: float, sigma: float, clip: float = 1.0, readout: str = "vanilla", chains: int = 1,
               seed: int = 0, psd: str = "project", white=None, backend: str | None = None) -> LSResult:
    r"""DP-FTRL-LS, seed 000 Alg. 2 (``A_FTRL-LS``, C.2; errata 000 §2.9), ``C = R^p``, ``θ_1 = 0``.

    ``θ_{t+1} = argmin θᵀW_tθ − 2⟨s_t, θ⟩ + (λ/2)‖θ‖² = (W_t + (λ/2)I)⁻¹ s_t`` with ``s_t`` the vector tree's noisy
    ``Σ_{i≤t} y_i x_i`` (node std ``σL``) and ``W_t`` the matrix tree's noisy ``Σ_{i≤t} x_i x_iᵀ`` (symmetric node
    noise, upper triangle iid ``N(0, σ²L⁴)``). Requires ``‖x_t‖ ≤ L = clip`` and ``|y_t| ≤ 1`` (checked).

    ``psd`` (the caveat of errata 000 §2.9, §3 C.4): where ``W_t + (λ/2)I`` is not positive definite,
    ``"project"`` replaces ``W_t`` by its projection onto the PSD cone (eigenvalues clipped at 0; post-processing)
    and flags the step in ``projected``; ``"always"`` projects every ``W_t``; ``"raise"`` raises
    :class:`IndefiniteObjectiveError` naming the step.

    Parameters
    ----------
    X : array_like
        Inputs ``(n, p)`` or ``(chains, n, p)``, rows of norm at most ``clip``.
    y : array_like
        Targets with ``|y_t| ≤ 1``, shape ``X.shape[:-1]``.
    lam : float in (0, inf)
        Regularisation λ.
    sigma : float in (0, inf)
        Noise multiplier σ (pass ``white`` zeros for no noise).
    clip : float in (0, inf), default 1.0
        ``L``, the bound on ``‖x_t‖``.
    readout : {"vanilla", "honaker"}, default "vanilla"
        The trees' online read-out.
    chains : int, default 1
        Number of independent chains (must equal the data's chain axis if it has one).
    seed : int, default 0
        Seed of the noise drawn on the backend.
    psd : {"project", "always", "raise"}, default "project"
        What to do where ``W_t + (λ/2)I`` is not positive definite (:data:`PSD_MODES`).
    white : tuple of array_like, optional
        ``(wb, wc)`` white draws ``(n, chains, p)`` and ``(n, chains, p, p)`` (only the upper triangle of ``wc`` is
        used); zeros give the noiseless recursion.
    backend : str, optional
        Array backend (:func:`dptheory.backend.get_backend`).

    Returns
    -------
    LSResult
        The iterates, the projection flags and the smallest eigenvalues.

    Raises
    ------
    IndefiniteObjectiveError
        With ``psd="raise"``, at the first step whose ``W_t + (λ/2)I`` is not positive definite.
    ValueError
        If an argument lies outside its range, or the data break ``‖x_t‖ ≤ clip``, ``|y_t| ≤ 1``.
    """
    lam = _check_positive("lam", lam)
    sigma = _check_sigma(sigma)
    clip = _check_positive("clip", clip)
    readout = _check_online_readout(readout)
    if psd not in PSD_MODES:
        raise ValueError(f"psd must be one of {PSD_MODES}, got {psd!r}")
    X, y = np.asarray(X, float), np.asarray(y, float)
    if X.ndim not in (2, 3) or X.shape[:-1] != y.shape:
        raise ValueError(f"X must be (n, p) or (chains, n, p) with y of shape X.shape[:-1], got {X.shape}, {y.shape}")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise ValueError("X and y must be finite")
    if np.any(np.linalg.norm(X, axis=-1) > clip * (1 + 1e-12)) or np.any(np.abs(y) > 1):
        raise ValueError(f"X rows must have norm <= clip = {clip:g} and |y| <= 1 (Alg. 2's sensitivity)")
    bk = get_backend(backend)
    xp = bk.xp
    if X.ndim == 3:
        if chains not in (1, X.shape[0]):
            raise ValueError(f"chains must equal the data's chain axis ({X.shape[0]}), got {chains}")
        chains = X.shape[0]
    chains = check_int("chains", chains, 1)
    n, p = X.shape[-2], X.shape[-1]
    Xb, yb = bk.asarray(X), bk.asarray(y)
    rng = bk.rng(check_int("seed", seed, 0))
    like = xp.zeros((chains, p), dtype=xp.float64)
    wb = wc = None
    if white is not None:
        wb, wc = white
        wb = _given("white[0]", wb, bk, n, chains, p)
        wc = np.asarray(wc, float)
        if wc.shape[0] < n or wc.shape[1:] not in ((chains, p, p), (1, p, p)):
            raise ValueError(f"white[1] must have shape (n >= {n}, chains = {chains}, p, p), got {wc.shape}")
        wc = bk.asarray(np.broadcast_to(wc[:n], (n, chains, p, p)).copy())
    nb = _Noise(readout, (chains, p), like, n, rng, white=wb)
    nc = _Noise(readout, (chains, p, p), like, n, rng, white=wc, symmetric=True)
    S, W = xp.zeros((chains, p), dtype=xp.float64), xp.zeros((chains, p, p), dtype=xp.float64)
    bS, bW = xp.zeros_like(S), xp.zeros_like(W)
    theta = xp.zeros((chains, p), dtype=xp.float64)
    iters, projected, min_eig = [theta], [], []
    for t in range(n):
        x = Xb[..., t, :] + xp.zeros((chains, p), dtype=xp.float64)
        yt = yb[..., t] + xp.zeros((chains,), dtype=xp.float64)
        S = S + yt[:, None] * x
        W = W + x[:, :, None] * x[:, None, :]
        bS, bW = bS + nb(), bW + nc()
        s_t, W_t = S + sigma * clip * bS, W + sigma * clip**2 * bW
        evals, evecs = xp.linalg.eigh(W_t)
        lo = evals[:, 0] + lam / 2
        bad = lo <= 0.0
        if psd == "raise" and bool(xp.any(bad)):
            chain = int(bk.to_numpy(xp.argmax(xp.astype(bad, xp.int64))))
            raise IndefiniteObjectiveError(
                f"step t = {t + 1}, chain {chain}: the noisy W_t + (lam/2) I has smallest eigenvalue "
                f"{float(bk.to_numpy(lo[chain])):.4g} <= 0 (the LS objective is not strongly convex; use psd='project')")
        if psd == "always":
            clipped = xp.maximum(evals, xp.zeros_like(evals))
            flag = evals[:, 0] < 0.0
        else:
            clipped = xp.where(bad[:, None], xp.maximum(evals, xp.zeros_like(evals)), evals)
            flag = bad
        coef = xp.sum(evecs * s_t[:, :, None], axis=-2) / (clipped + lam / 2)  # Vᵀs / (Λ' + λ/2)
        theta = xp.sum(evecs * coef[:, None, :], axis=-1)
        iters.append(theta)
        projected.append(flag)
        min_eig.append(lo)
    settings = dict(algorithm="dp_ftrl_ls", lam=lam, sigma=sigma, clip=clip, readout=readout, chains=chains, seed=seed,
                    steps=n, psd=psd, backend=bk.name)
    return LSResult(bk.to_numpy(xp.stack(iters)), bk.to_numpy(xp.stack(projected)), bk.to_numpy(xp.stack(min_eig)),
                    settings)
