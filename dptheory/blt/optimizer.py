r"""Optimised BLTs under min-separated multiple participation (seed 003 §3.3 and Alg. 4).

The strategy ``C = BLT(θ, ω)`` is parameterised, as in the paper, by its **decay pair** ``(θ, θ̂)``: the decays
of ``C`` and of its inverse ``C⁻¹ = BLT(θ̂, ω̂)``. Both scale vectors follow in closed form (Alg. 5,
:func:`~dptheory.mechanisms.blt.output_scales`), so the loss of seed 003 Alg. 4 costs ``O(nd)``:

* ``ω = output_scales(θ, θ̂)``, ``ω̂ = output_scales(θ̂, θ)``; ``c`` and ``ĉ`` by Eq. 2;
* ``c̄ = Σ_{i<k'} shift_{ib}(c) = C u(π*)`` and ``sens = ‖c̄‖₂`` (Thm 3.1, ``k' = min(k, ⌈n/b⌉)``);
* ``b̄ = cumsum(ĉ)`` — the **inclusive** cumulative sum (the first column of ``B = A C⁻¹``; the sums printed in
  Prop. 3.3 and Alg. 4 are garbled, errata 003 §3.6);
* ``MaxError = (Σ_t b̄_t²)^{1/2}``, ``RmsError = (Σ_t (n − t) b̄_t² / n)^{1/2}``;
* ``loss = error · sens + λ Σ_j (−log θ_j − log(1 − θ_j) − log ω_j)`` — the paper's log barrier, ``λ = 10⁻⁷``
  while optimising and ``0`` when reporting.

Every loss here is **unsquared** (seed 003 Eq. 10); jax_privacy's loss is its square.

**Parameterisation.** With ``θ`` sorted decreasingly, ``ω > 0`` is equivalent to the interlacing
``1 > θ_1 > θ̂_1 > θ_2 > θ̂_2 > … > θ_d > θ̂_d > 0`` (product form of Alg. 5), and the trace gives
``Σ ω = Σ θ − Σ θ̂``. The optimiser's variables are ``2d + 1`` logits ``x``; the gaps ``g = softmax(x)`` between
consecutive points of ``1, θ_1, θ̂_1, …, θ_d, θ̂_d, 0`` are positive and sum to one. So every iterate has
``θ ∈ (0, 1)`` with distinct decays, ``ω > 0`` and ``c_1 = Σ ω = g_1 + g_3 + … + g_{2d−1} < 1``: ``c`` is
non-negative and non-increasing and Thm 3.1 gives the exact sensitivity at every step — no constraint is left
to the barrier or to a penalty. Every difference ``θ_i − θ̂_j``, ``θ_i − θ_j``, ``1 − θ_i`` is formed as a sum
of gaps, never by cancellation (App. A's ``b = 400`` BLT has ``θ_1 = 1 − 7.9·10⁻¹²``; under participation the
optima under ``λ = 10⁻⁷`` have ``1 − θ_1`` between ``10⁻¹⁰`` and ``10⁻⁸``, under ``λ = 10⁻¹⁰`` about ``10⁻¹²``).

The gradient is analytic, ``O(nd)`` (the adjoint of each step above; no autodiff library), and the minimiser is
scipy's L-BFGS-B (the paper uses L-BFGS in JAX) from a few deterministic starts, each under ``λ`` and under
``λ·10⁻³``, keeping the best BLT that has not *collapsed* (:data:`COLLAPSE_RTOL`): a collapsed run is merged to
``d − 1`` buffers, re-optimised, and its freed buffer re-seeded (:func:`optimize`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize

from .._validation import check_in_interval, check_int, check_real_array, check_size
from ..mechanisms import BLT, Participation
from ..mechanisms.base import _check_participation
from ..mechanisms.toeplitz import _windowed
from ..mechanisms.workloads import (PREFIX_SUMS, Workload, _check_workload, _truncated_convolution,
                                    _truncated_correlation)

__all__ = ["optimize", "optimize_for_learning", "LearnedBLT", "BLTOptimization", "DegenerateOptimum", "theta_pair_loss",
           "theta_pair_gradient", "LOSSES", "PENALTY", "COLLAPSE_RTOL"]

#: The two objectives of seed 003 Eq. 10 (unsquared).
LOSSES = ("max", "rms")
#: The log-barrier strength λ of seed 003 §3.3 while optimising.
PENALTY = 1e-7
# ``buffers=None`` tries at most this many buffers: jax_privacy 2.0's ``optimize`` refuses ``max_buffers > 15`` (3 to 7
# buffers give the best utility in typical regimes; 15+ lead to numerical trouble in the optimisation)
_MAX_AUTO_BUFFERS = 15
# the RA-BLT start's largest decay and Pillutla score (jax_privacy's ``get_init_blt``): strictly inside the feasible set
_RATIONAL_START = 1.0 - 1e-6

# deterministic starts ``(top, lo, hi)``: ``1 − θ = (top, logspace(lo, hi, d − 1))``, or ``logspace(lo, hi, d)`` without
# ``top``; each ``θ̂_i`` a fraction of the way to ``θ_{i+1}``. Optima for ``d ≥ 3`` typically put one decay within
# ``10⁻⁹`` of 1 with a small scale (seed 003 App. A, digest C31), which the first start anticipates; the second is
# the digest's ``1 − θ = logspace(−3, −0.3, d)``.
_STARTS = ((1e-4, -2.3, -0.3), (None, -3.0, -0.3), (None, -4.0, -1.0), (None, -2.0, -0.1))
# logits stay in [−32, 32]: every gap is at least e^{−64}/(2d + 1) ≈ 10^{−28}/(2d + 1), so the products of Alg. 5
# never underflow, while a gap below 10^{−16} (``θ_1 = 1`` to double precision) is still reachable
_LOGIT_BOUND = 32.0
#: Two adjacent decays ``p > q`` of ``C`` and ``C⁻¹`` (interlaced, ``1 > θ_1 > θ̂_1 > … > θ̂_d > 0``) whose powers
#: agree over the ``n`` steps, ``n·(p − q)/p < COLLAPSE_RTOL`` (so ``(q/p)^t > 1 − COLLAPSE_RTOL`` for ``t < n``),
#: make a *collapsed* BLT: a ``(d − 1)``-buffer BLT in disguise (two equal decays, or a buffer with ``ω_i ≈ 0``),
#: which C⁻¹'s eigen-decomposition (jax_privacy's ``inverse``) cannot separate. :func:`optimize` never returns one.
#: (The optima of seed 003's settings have ``n·(p − q)/p ≥ 0.5``; the collapsed ones found, ``≤ 4·10⁻³``.)
COLLAPSE_RTOL = 1e-2
# each start also runs under λ·_POLISH (seed 003's λ = 10⁻⁷ holds 1 − θ_1 near 2·10⁻⁹ under participation, 3–9
# parts in 10⁹ above the optimum; λ = 10⁻¹⁰ lets it reach 10⁻¹² — jax_privacy reaches 10⁻¹⁰)
_POLISH = 1e-3


# -- the problem: n, participation and the objective's weights --------------------------------------------------------


@dataclass(frozen=True)
class _Problem:
    n: int
    k: int  # k' = min(k, ⌈n/b⌉)
    b: int
    weights: np.ndarray  # row weights of the error: 1 (MaxError) or (n − t)/n (RmsError)
    penalty: float
    workload: Workload = PREFIX_SUMS
    w: np.ndarray | None = None  # the workload's Toeplitz coefficients; None: the prefix sums (a cumulative sum)

    @classmethod
    def build(cls, n: int, participation: Participation, loss: str, penalty: float,
              workload: Workload = PREFIX_SUMS) -> "_Problem":
        t = np.arange(n, dtype=float)
        weights = np.ones(n) if loss == "max" else (n - t) / n
        w = None if workload.is_prefix_sums else workload.toeplitz_coeffs(n)
        return cls(n, participation.participations(n), participation.min_sep, weights, penalty, workload, w)


def _decoder_column(c_hat: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """The first column of ``B = W C⁻¹``: ``cumsum(ĉ)`` for the prefix sums, else ``(w * ĉ)_{0:n}``."""
    if w is None:
        return np.cumsum(c_hat)
    return _truncated_convolution(w, c_hat)


def _decoder_column_adjoint(g: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """The transpose of :func:`_decoder_column`: ``Σ_{t ≥ j} g_t w_{t−j}`` (a reversed cumulative sum for ``w = 1``)."""
    if w is None:
        return np.cumsum(g[::-1])[::-1]
    return _truncated_correlation(g, w)


def _windowed_adjoint(v: np.ndarray, b: int, k: int) -> np.ndarray:
    r"""The transpose of :func:`_windowed`: ``(Sᵀv)_t = Σ_{i<k, t+ib<n} v_{t+ib}``."""
    n = v.size
    m = -(-n // b)
    blocks = np.zeros((m, b), dtype=v.dtype)
    blocks.ravel()[:n] = v
    s = np.cumsum(blocks[::-1], axis=0)
    if k < m:
        s[k:] -= s[:-k].copy()
    return s[::-1].ravel()[:n]


# -- the decay pair as gaps -------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=32)
def _range_masks(d: int) -> np.ndarray:
    r"""``M[a, b, l] = 1`` for ``a ≤ l < b``: the gaps between points ``a < b`` of ``1, θ_1, θ̂_1, …, θ̂_d, 0``."""
    m = 2 * d + 2
    a, b, l = np.ogrid[:m, :m, : m - 1]
    mask = ((a <= l) & (l < b)).astype(float)
    mask.setflags(write=False)
    return mask


def _differences(gaps: np.ndarray) -> np.ndarray:
    r"""``D[a, b] = p_a − p_b`` for the points ``p = (1, θ_1, θ̂_1, …, θ_d, θ̂_d, 0)``, each a sum of positive gaps."""
    d = (gaps.size - 1) // 2
    upper = _range_masks(d) @ gaps
    return upper - upper.T


def _scales(D: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""``ω``, ``ω̂`` by the product form of Alg. 5 on exact differences, and the reciprocal differences
    ``1/(θ_i − θ̂_j)``, ``1/(θ_i − θ_j)``, ``1/(θ̂_i − θ̂_j)`` (zero on the diagonals) their derivatives need."""
    T, H = np.arange(1, 2 * d, 2), np.arange(2, 2 * d + 1, 2)
    TH, TT, HH = D[np.ix_(T, H)], D[np.ix_(T, T)], D[np.ix_(H, H)]
    eye = np.eye(d, dtype=bool)
    TT1, HH1 = np.where(eye, 1.0, TT), np.where(eye, 1.0, HH)
    omega = np.prod(TH, axis=1) / np.prod(TT1, axis=1)
    omega_hat = np.prod(-TH.T, axis=1) / np.prod(HH1, axis=1)
    return omega, omega_hat, 1.0 / TH, np.where(eye, 0.0, 1.0 / TT1), np.where(eye, 0.0, 1.0 / HH1)


def _log_decays(theta: np.ndarray, one_minus: np.ndarray) -> np.ndarray:
    r"""``log θ``, by ``log1p(−(1 − θ))`` from the exact gap sum ``1 − θ`` where ``θ > 1/2``."""
    out = np.log(theta)
    near_one = theta.real > 0.5
    out[near_one] = np.log1p(-one_minus[near_one])
    return out


def _powers(log_theta: np.ndarray, m: int) -> np.ndarray:
    r"""``θ_j^s`` for ``s < m`` as ``θ^{qB} · θ^r`` (``s = qB + r``, ``B = ⌈√m⌉``): ``O(d√m)`` exponentials and one
    product per entry (``exp`` and ``pow`` cost ten to fifty times a product); two roundings per entry."""
    B = max(math.isqrt(max(m - 1, 0)) + 1, 1)
    q = -(-m // B)
    low = np.exp(np.multiply.outer(log_theta, np.arange(B, dtype=float)))
    high = np.exp(np.multiply.outer(log_theta, B * np.arange(q, dtype=float)))
    return (high[:, :, None] * low[:, None, :]).reshape(log_theta.size, q * B)[:, :m]


def _coeffs(log_theta: np.ndarray, omega: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 2 (``c_0 = 1``, ``c_t = Σ_j ω_j θ_j^{t−1}``) and the powers ``θ_j^s``, ``s < n − 1``, it used."""
    powers = _powers(log_theta, max(n - 1, 0))
    return np.concatenate([np.ones(1, dtype=omega.dtype), omega @ powers]), powers


def _coeffs_adjoint(grad_c: np.ndarray, omega: np.ndarray, powers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""``∂/∂ω_j = Σ_{t≥1} G_t θ_j^{t−1}`` and ``∂/∂θ_j = ω_j Σ_{t≥2} G_t (t−1) θ_j^{t−2}`` for ``G = ∂/∂c``."""
    n = grad_c.size
    d_omega = powers @ grad_c[1:]
    d_theta = omega * (powers[:, : max(n - 2, 0)] @ (grad_c[2:] * np.arange(1, max(n - 1, 1), dtype=float)))
    return d_omega, d_theta


def _evaluate(D: np.ndarray, d: int, problem: _Problem, *, gradient: bool):
    r"""Alg. 4 on the exact differences ``D`` (:func:`_differences`); with ``gradient`` also ``∂/∂p`` for the
    interlaced points ``p = (θ_1, θ̂_1, …, θ_d, θ̂_d)``. Written for complex input too (complex-step checks)."""
    n, T, H = problem.n, np.arange(1, 2 * d, 2), np.arange(2, 2 * d + 1, 2)
    theta, theta_hat = D[T, -1], D[H, -1]
    one_minus = D[0, T]
    omega, omega_hat, A, BT, BH = _scales(D, d)
    c, pw = _coeffs(_log_decays(theta, one_minus), omega, n)
    cbar = _windowed(c, problem.b, problem.k)
    sens = np.sqrt(np.sum(cbar * cbar))
    c_hat, pw_hat = _coeffs(_log_decays(theta_hat, D[0, H]), omega_hat, n)
    bbar = _decoder_column(c_hat, problem.w)
    err = np.sqrt(np.sum(problem.weights * bbar * bbar))
    lam = problem.penalty
    barrier = -np.sum(np.log(theta) + np.log(one_minus) + np.log(omega)) if lam else 0.0
    value = err * sens + lam * barrier
    if not gradient:
        return value, err, sens
    # adjoints of sens = ‖c̄‖ and err = (Σ w b̄²)^{1/2}
    g_c = err * _windowed_adjoint(cbar, problem.b, problem.k) / sens
    g_chat = sens * _decoder_column_adjoint(problem.weights * bbar, problem.w) / err
    u, d_theta = _coeffs_adjoint(g_c, omega, pw)
    u_hat, d_theta_hat = _coeffs_adjoint(g_chat, omega_hat, pw_hat)
    if lam:
        u = u - lam / omega
        d_theta = d_theta + lam * (1.0 / one_minus - 1.0 / theta)
    # through Alg. 5: ∂ω_i/∂θ̂_j = −ω_i/(θ_i − θ̂_j), ∂ω_i/∂θ_k = ω_i/(θ_i − θ_k) (k ≠ i),
    # ∂ω_i/∂θ_i = ω_i (Σ_j 1/(θ_i − θ̂_j) − Σ_{j≠i} 1/(θ_i − θ_j)); the same with roles swapped for ω̂
    uo, uh = u * omega, u_hat * omega_hat
    A_hat = -A.T  # 1/(θ̂_i − θ_j)
    d_theta = d_theta + uo @ BT + uo * (A.sum(1) - BT.sum(1)) - uh @ A_hat
    d_theta_hat = d_theta_hat - uo @ A + uh @ BH + uh * (A_hat.sum(1) - BH.sum(1))
    d_points = np.empty(2 * d)
    d_points[0::2], d_points[1::2] = d_theta, d_theta_hat
    return value, err, sens, d_points


def _gaps(x: np.ndarray) -> np.ndarray:
    """The ``2d + 1`` positive gaps summing to one: the softmax of the logits ``x`` (module docstring)."""
    z = np.exp(x - np.max(x.real))
    return z / np.sum(z)


def _decay_pair(D: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """``(θ, θ̂)``: the points ``θ_i``, ``θ̂_i`` of :func:`_differences` as their distance to the last point, 0."""
    return D[np.arange(1, 2 * d, 2), -1], D[np.arange(2, 2 * d + 1, 2), -1]


def _objective(x: np.ndarray, d: int, problem: _Problem, *, gradient: bool = True):
    r"""The penalised loss as a function of the ``2d + 1`` logits (module docstring) and its gradient."""
    gaps = _gaps(x)
    out = _evaluate(_differences(gaps), d, problem, gradient=gradient)
    if not gradient:
        return out[0]
    value, _, _, d_points = out
    # p_m = Σ_{l≥m} g_l (m = 1 … 2d), so ∂/∂g_l = Σ_{1≤m≤l} ∂/∂p_m; then through the softmax
    d_gaps = np.concatenate([[0.0], np.cumsum(d_points)])
    return float(value), gaps * (d_gaps - gaps @ d_gaps)


# -- the public evaluation of a decay pair ----------------------------------------------------------------------------


def _check_loss(loss: str) -> str:
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES} (MaxLoss or RmsLoss, seed 003 Eq. 10), got {loss!r}")
    return loss


def _check_penalty(penalty) -> float:
    return check_in_interval("penalty", penalty, 0.0, math.inf, lo_closed=True,
                             why="the log-barrier strength λ of seed 003 Alg. 4; 1e-7 in §3.3, 0 to report")


def _pair_differences(theta, theta_hat) -> tuple[np.ndarray, int]:
    """Validate a decay pair (interlacing, i.e. ``ω > 0``) and return its difference matrix ``D``."""
    th = np.sort(check_real_array("theta", theta))[::-1]
    thh = np.sort(check_real_array("theta_hat", theta_hat))[::-1]
    if th.size != thh.size:
        raise ValueError(f"theta and theta_hat must have the same length d, got {th.size} and {thh.size}")
    points = np.concatenate([[1.0], np.ravel(np.column_stack([th, thh])), [0.0]])
    if not np.all(np.diff(points) < 0.0):
        raise ValueError(
            "theta and theta_hat must interlace strictly inside (0, 1): sorted decreasingly "
            "1 > theta_1 > theta_hat_1 > theta_2 > ... > theta_d > theta_hat_d > 0 (equivalently omega > 0, "
            f"seed 003 Alg. 5), got theta={th.tolist()!r}, theta_hat={thh.tolist()!r}"
        )
    return points[:, None] - points[None, :], th.size


def theta_pair_loss(theta, theta_hat, n: int, participation: Participation | None = None, *, loss: str = "max",
                    penalty: float = 0.0) -> float:
    r"""The loss of the BLT with decay pair ``(θ, θ̂)``, seed 003 Alg. 4.

    Seed 003 Alg. 4: the loss of ``BLT(θ, ω)``, ``ω = output_scales(θ, θ̂)``, over ``n`` steps under
    ``participation`` (``None``: single), **unsquared** (Eq. 10). ``penalty = 0`` (reporting) gives MaxLoss or
    RmsLoss itself; ``penalty = λ`` adds the barrier ``λ Σ_j (−log θ_j − log(1 − θ_j) − log ω_j)``.

    ``θ`` and ``θ̂`` must interlace in ``(0, 1)`` (``ω > 0``); with ``Σω = Σθ − Σθ̂ < 1`` the coefficients are
    non-negative and non-increasing and the sensitivity is Thm 3.1's. ``O(nd)``.

    Parameters
    ----------
    theta : array_like
        The decays ``θ`` of ``C`` (any order).
    theta_hat : array_like
        The decays ``θ̂`` of ``C⁻¹``, as many as ``theta``, interlacing with them.
    n : int
        The number of steps, ``n ≥ 1``.
    participation : Participation, optional
        The participation schema; ``None`` (default) is single participation.
    loss : {"max", "rms"}, default "max"
        MaxLoss or RmsLoss.
    penalty : float in [0, inf), default 0.0
        The barrier strength ``λ``.

    Returns
    -------
    float
        The (penalised) loss.

    Raises
    ------
    ValueError
        For a pair that does not interlace strictly inside ``(0, 1)``, or another malformed argument.
    """
    D, d = _pair_differences(theta, theta_hat)
    n = check_int("n", n, 1)
    _check_sizes(n, d)
    problem = _Problem.build(n, _check_participation(participation), _check_loss(loss), _check_penalty(penalty))
    return float(_evaluate(D, d, problem, gradient=False)[0])


def theta_pair_gradient(theta, theta_hat, n: int, participation: Participation | None = None, *, loss: str = "max",
                        penalty: float = 0.0) -> tuple[float, np.ndarray, np.ndarray]:
    r""":func:`theta_pair_loss` and its analytic gradient.

    Returns ``(value, ∂/∂θ, ∂/∂θ̂)``, ``θ`` and ``θ̂`` sorted decreasingly, in ``O(nd)`` (the adjoint of each step
    of seed 003 Alg. 4 and of Alg. 5's product form).

    Parameters
    ----------
    theta : array_like
        The decays ``θ`` of ``C``.
    theta_hat : array_like
        The decays ``θ̂`` of ``C⁻¹``, interlacing with ``theta``.
    n : int
        The number of steps, ``n ≥ 1``.
    participation : Participation, optional
        The participation schema; ``None`` (default) is single participation.
    loss : {"max", "rms"}, default "max"
        MaxLoss or RmsLoss.
    penalty : float in [0, inf), default 0.0
        The barrier strength ``λ``.

    Returns
    -------
    value : float
        The (penalised) loss, as :func:`theta_pair_loss`.
    grad_theta : numpy.ndarray
        ``∂/∂θ``, for ``θ`` sorted decreasingly.
    grad_theta_hat : numpy.ndarray
        ``∂/∂θ̂``, for ``θ̂`` sorted decreasingly.
    """
    D, d = _pair_differences(theta, theta_hat)
    n = check_int("n", n, 1)
    _check_sizes(n, d)
    problem = _Problem.build(n, _check_participation(participation), _check_loss(loss), _check_penalty(penalty))
    value, _, _, d_points = _evaluate(D, d, problem, gradient=True)
    return float(value), d_points[0::2].copy(), d_points[1::2].copy()


# -- the optimiser ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BLTOptimization:
    r"""An optimised BLT (seed 003 §3.3, Alg. 4) and how it was found. Losses are unsquared and penalty-free.

    ``value`` is the chosen ``loss`` (``"max"``: MaxLoss, ``"rms"``: RmsLoss) of ``blt`` over ``n`` steps under
    ``participation`` (``participations = k'``). The constraint fields are checked on the result itself:
    ``theta_in_unit_interval`` (``0 < θ < 1``), ``omega_positive``, ``omega_sum = Σω = c_1`` and
    ``coeffs_monotone`` (the computed ``c_0, …, c_{n−1}`` are non-negative and non-increasing), which is Thm 3.1's
    hypothesis (:attr:`theorem_3_1_applies`). ``converged``, ``message``, ``iterations`` and ``evaluations`` are
    scipy L-BFGS-B's for the best start; ``seconds`` is the wall time of all starts. ``blt`` is never
    collapsed (two decays or a scale within :data:`COLLAPSE_RTOL`, :func:`optimize`): where the requested
    ``d``-buffer optimum collapsed, ``blt`` has ``buffers_used < buffers_requested`` and :attr:`collapsed` is true.

    Attributes
    ----------
    blt : BLT
        The optimised mechanism ``C = BLT(θ, ω)``.
    theta_hat : numpy.ndarray
        The decays ``θ̂`` of its inverse.
    loss : {"max", "rms"}
        The loss minimised.
    value : float
        That loss of ``blt``.
    max_loss : float
        MaxLoss of ``blt``.
    rms_loss : float
        RmsLoss of ``blt``.
    sensitivity : float
        The sensitivity under ``participation`` over ``n`` steps.
    max_error : float
        MaxError of ``blt``.
    rms_error : float
        RmsError of ``blt``.
    n : int
        The number of steps.
    participation : Participation
        The participation schema.
    participations : int
        ``k' = min(k, ⌈n/b⌉)``.
    theta_in_unit_interval : bool
        Whether ``0 < θ < 1``.
    omega_positive : bool
        Whether ``ω > 0``.
    omega_sum : float
        ``Σω = c_1``.
    coeffs_monotone : bool
        Whether ``c_0, …, c_{n−1}`` are non-negative and non-increasing.
    converged : bool
        L-BFGS-B's success flag for the best start.
    iterations : int
        L-BFGS-B's iterations for the best start.
    evaluations : int
        L-BFGS-B's function evaluations for the best start.
    message : str
        L-BFGS-B's message for the best start.
    seconds : float
        The wall time of all starts.
    buffers_requested : int
        The ``buffers`` asked for (with ``buffers=None``: the number chosen); :attr:`buffers_used` (``blt.d``) is
        smaller, and :attr:`collapsed` true, where the optimum for that many buffers collapsed (:func:`optimize`).
    workload : Workload
        The workload whose errors the losses measure (prefix sums by default).
    buffer_losses : tuple of (int, float, int)
        ``(d, value, buffers_used)`` for every number of buffers ``d`` optimised, in order: one triple for
        ``buffers=d``; with ``buffers=None`` one for each ``d`` tried from ``min_buffers`` on, the last the first
        one rejected (where it is not ``max_buffers``). ``value`` is ``inf`` where the ``d``-buffer optimum is
        degenerate (:class:`DegenerateOptimum`); ``buffers_used < d`` where it collapsed, which counts as no
        improvement (:func:`optimize`).
    """

    blt: BLT
    theta_hat: np.ndarray = field(repr=False)
    loss: str
    value: float
    max_loss: float
    rms_loss: float
    sensitivity: float
    max_error: float
    rms_error: float
    n: int
    participation: Participation
    participations: int
    theta_in_unit_interval: bool
    omega_positive: bool
    omega_sum: float
    coeffs_monotone: bool
    converged: bool
    iterations: int
    evaluations: int
    message: str
    seconds: float
    buffers_requested: int = 0
    buffer_losses: tuple = ()
    workload: Workload = PREFIX_SUMS

    @property
    def buffers_used(self) -> int:
        """The number of buffers of :attr:`blt`: :attr:`buffers_requested`, or fewer if that optimum collapsed."""
        return self.blt.d

    @property
    def collapsed(self) -> bool:
        """Whether the optimum for :attr:`buffers_requested` buffers collapsed (:data:`COLLAPSE_RTOL`,
        :func:`optimize`) and :attr:`blt` is the merged, re-optimised BLT with fewer buffers."""
        return self.buffers_used < self.buffers_requested

    @property
    def theorem_3_1_applies(self) -> bool:
        """Whether Thm 3.1 (sensitivity from ``π* = (0, b, …, (k'−1)b)``) holds: ``c ≥ 0`` and non-increasing."""
        return self.coeffs_monotone

    @property
    def theta(self) -> np.ndarray:
        """The decays ``θ`` of :attr:`blt`."""
        return self.blt.theta

    @property
    def omega(self) -> np.ndarray:
        """The output scales ``ω`` of :attr:`blt`."""
        return self.blt.omega

    def __repr__(self) -> str:
        name = "MaxLoss" if self.loss == "max" else "RmsLoss"
        return (
            f"BLTOptimization({name}={self.value:.6g} over n={self.n}, {self.participation} (k'={self.participations}), "
            f"d={self.blt.d}{f' (collapsed from {self.buffers_requested})' if self.collapsed else ''}: "
            f"theta=[{', '.join(f'{t:.12g}' for t in self.theta)}], "
            f"omega=[{', '.join(f'{w:.6g}' for w in self.omega)}]; "
            f"MaxLoss={self.max_loss:.6g}, RmsLoss={self.rms_loss:.6g}, sens={self.sensitivity:.6g}; "
            f"constraints: 0<theta<1 {self.theta_in_unit_interval}, omega>0 {self.omega_positive}, "
            f"sum(omega)={self.omega_sum:.6g}, c non-negative & non-increasing {self.coeffs_monotone} "
            f"(Thm 3.1 applies: {self.theorem_3_1_applies}); converged={self.converged} after {self.iterations} "
            f"iterations, {self.evaluations} evaluations, {self.seconds:.3g} s)"
        )


def _start(d: int, top: float | None, lo: float, hi: float) -> np.ndarray:
    r"""Logits of the start ``1 − θ`` of :data:`_STARTS`, ``θ̂_i`` 30 % of the way from ``θ_i`` to ``θ_{i+1}`` (to
    ``0`` for ``i = d``)."""
    theta = 1.0 - (np.logspace(lo, hi, d) if top is None else np.r_[top, np.logspace(lo, hi, d - 1)])
    below = np.concatenate([theta[1:], [0.0]])
    theta_hat = theta - 0.3 * (theta - below)
    points = np.concatenate([[1.0], np.ravel(np.column_stack([theta, theta_hat])), [0.0]])
    return np.log(-np.diff(points))


def _cost(n: int, d: int) -> float:
    """Bytes one evaluation of Alg. 4 holds: the gap masks ``(2d + 2)² (2d + 1)`` (bool and float), the powers
    ``θ_j^s`` and ``θ̂_j^s`` (``d × n`` each, with a copy) and a dozen arrays of ``n`` steps."""
    return 9.0 * (2 * d + 2) ** 2 * (2 * d + 1) + 32.0 * d * n + 96.0 * n


def _check_sizes(n: int, d: int) -> None:
    """Refuse ``buffers`` or ``n`` before an evaluation of Alg. 4 would exceed the size budget."""
    check_size("buffers", d, lambda m: _cost(1, m), what="the decay-gap masks")
    check_size("n", n, lambda m: _cost(m, d), what=f"the powers of {d} buffers over n steps")


def _check_initial(initial, d: int) -> np.ndarray:
    if isinstance(initial, (str, bytes)) or not hasattr(initial, "__len__") or len(initial) != 2:
        raise ValueError(f"initial must be a decay pair (theta, theta_hat) of two sequences, got {initial!r:.80}")
    theta, theta_hat = initial
    D, size = _pair_differences(theta, theta_hat)
    if size != d:
        raise ValueError(f"initial must be a decay pair of length buffers = {d}, got length {size}")
    return np.log(np.diag(D, 1))


def optimize(n: int, participation: Participation | None = None, *, buffers: int | None = 2, loss: str = "max",
             penalty: float = PENALTY, max_iterations: int = 2000, starts: int = 2, initial=None,
             init: str | None = None, min_buffers: int | None = None, max_buffers: int | None = None,
             rtol: float | None = None, workload: Workload | None = None) -> BLTOptimization:
    r"""Minimise MaxLoss or RmsLoss of a ``d``-buffer BLT over ``n`` steps under ``participation``.

    Minimise MaxLoss or RmsLoss (unsquared, seed 003 Eq. 10) of ``BLT(θ, ω)`` with ``buffers = d`` buffers over
    ``n`` steps under ``participation`` (``None``: single participation) — seed 003 §3.3 with the loss of Alg. 4.

    The variables are the decay pair ``(θ, θ̂)`` through ``2d + 1`` softmax gaps (module docstring), so every
    iterate satisfies ``θ ∈ (0, 1)``, ``ω > 0`` and ``Σω < 1`` (Thm 3.1 applies); ``penalty`` is the barrier
    strength ``λ`` (``10⁻⁷`` as in the paper; the reported losses are penalty-free). Loss and gradient cost
    ``O(nd)`` per evaluation. scipy's L-BFGS-B (logits bounded to ``[−32, 32]``, ``ftol = 10⁻¹²``,
    ``gtol = 10⁻⁸``, at most ``max_iterations`` iterations) runs from ``starts`` deterministic initialisations (at
    most 4: ``1 − θ = (10⁻⁴, logspace(−2.3, −0.3, d − 1))``, then ``logspace(−3, −0.3, d)``, ``logspace(−4, −1, d)``,
    ``logspace(−2, −0.1, d)``) — plus ``initial = (θ, θ̂)``, an interlacing decay pair, if given — and the start
    with the lowest penalty-free loss is kept: the landscape has local optima (seed 003 Table 3, ``d = 3``:
    MaxLoss 10.7514 and 10.7884 both below the paper's 10.79). Each start runs twice, under ``penalty`` and
    under ``penalty·10⁻³``: seed 003's ``λ = 10⁻⁷`` holds ``1 − θ_1`` near ``2·10⁻⁹`` under participation, 3–9
    parts in 10⁹ above the optimum, and the weaker barrier lets it reach ``10⁻¹²`` (jax_privacy reaches
    ``10⁻¹⁰``); a warm start from the first optimum stalls, so both runs start afresh.

    **Collapse.** Under participation L-BFGS-B can run onto the boundary of the ``d``-buffer BLTs: two decays
    ``1.7·10⁻¹⁰`` apart at ``(n = 1500, b = 100, k = 15, d = 4)``, a 3-buffer BLT in disguise that jax_privacy
    cannot invert, or a buffer with ``ω_i ≈ 0``. No such BLT is returned: a run is *collapsed* where two adjacent
    decays ``p > q`` of ``1 > θ_1 > θ̂_1 > … > θ̂_d`` have ``n (p − q)/p <`` :data:`COLLAPSE_RTOL` ``= 10⁻²`` (their
    powers agree to 1 % over the ``n`` steps) or a buffer has ``n ω_i < COLLAPSE_RTOL · Σω``. The lowest
    collapsed run is **merged** (the two points dropped, the three gaps around them summed: an exact
    ``(d − 1)``-buffer pair) and **re-optimised** at ``d − 1`` (recursively); the freed buffer is then
    **re-seeded** — a new pair in each gap of the ``d − 1`` optimum — and optimised at ``d`` again. The result is
    the best run that did not collapse: a genuine ``d``-buffer BLT where the re-seeding finds one (at the case
    above jax_privacy's 4-buffer optimum, MaxLoss 20.99185, 2.6·10⁻⁵ below the 3-buffer one), else the
    ``(d − 1)``-buffer optimum, with ``buffers_used < buffers_requested`` and ``collapsed`` true in the result.
    Merging was chosen over constraining the gap (jax_privacy's ``theta_gap`` barrier): a constrained optimum
    sits on the constraint, still a ``(d − 1)``-buffer BLT in disguise with a loss that depends on the
    constraint, whereas the merged optimum is the exact ``(d − 1)``-buffer optimum, and re-seeding uses the
    buffer the collapse wasted.

    **Buffers chosen automatically** (``buffers=None``; jax_privacy 2.0's ``buffered_toeplitz.optimize`` and its
    ``_optimize_increasing_nbuf``): optimise at ``d = min_buffers, min_buffers + 1, …, max_buffers`` and accept
    ``d + 1`` iff ``rtol · L(d + 1)² < L(d)²`` — jax_privacy's rule on its **squared** loss, so the unsquared
    ``value`` must fall by more than the factor ``√rtol`` (``rtol = 1.01``: about 0.5 %). The search stops at the
    first ``d`` not accepted, and a ``d`` whose optimum collapsed (below) or is degenerate counts as no
    improvement (jax_privacy counts a failed optimisation as an infinite loss); the result is the last accepted
    ``d``, with every ``d`` tried in ``buffer_losses``. jax_privacy starts at ``min_buffers = 0`` (``C = I``); here
    at least one buffer. On five settings of jax_privacy 2.0 (``tests/test_blt_features.py``) both choose the same
    ``d`` and dptheory's loss is jax's or lower (to ``10⁻⁹``; at ``d = 3`` under ``loss="rms"`` up to 0.35 % lower,
    squared, where jax's 3-buffer search stays at its 2-buffer loss).

    ``init="rational"`` adds jax_privacy's start to each ``d``: the RA-BLT (:meth:`BLT.rational_approximation`)
    with ``max_decay = max_pillutla_score = 1 − 10⁻⁶`` (``get_init_blt``), a decay pair strictly inside the
    parameterisation. Every iterate of this parameterisation has ``θ̂_d > 0``, i.e. Pillutla score ``< 1``
    (:meth:`BLT.pillutla_score`; a penalty in jax_privacy).

    Time: about 0.05–0.3 s per optimisation at ``n = 2000``, ``d ≤ 4`` (two starts), up to about 1 s where a
    start collapses; ``buffers=None`` costs one optimisation per ``d`` tried (0.1–0.5 s in all on the five
    settings). scipy's L-BFGS-B calls OpenBLAS at every iteration; on a machine whose cores are busy its threads can
    cost milliseconds per call and dominate the run (``OPENBLAS_NUM_THREADS=1`` removes that overhead).

    Parameters
    ----------
    n : int
        The number of steps, ``n ≥ 1``.
    participation : Participation, optional
        The participation schema; ``None`` (default) is single participation.
    buffers : int or None, default 2
        The number of buffers ``d``; ``None`` chooses it (above) between ``min_buffers`` and ``max_buffers``.
    loss : {"max", "rms"}, default "max"
        MaxLoss or RmsLoss (jax_privacy's ``error="max"`` and ``"mean"``, squared there).
    penalty : float in [0, inf), default PENALTY
        The barrier strength ``λ`` while optimising (:data:`PENALTY` = ``10⁻⁷``); each start also runs under
        ``λ·10⁻³`` (``0``: one run, unpenalised).
    max_iterations : int, default 2000
        The most L-BFGS-B iterations per start.
    starts : int, default 2
        How many of the deterministic starts to run, 1 to 4 (0 allowed when ``initial`` or ``init`` is given).
    initial : tuple of array_like, optional
        An interlacing decay pair ``(θ, θ̂)`` of length ``buffers`` to start from as well (with an integer
        ``buffers`` only).
    init : {None, "rational"}, default None
        ``"rational"``: also start from jax_privacy's RA-BLT (above).
    min_buffers : int in [1, 15], optional
        With ``buffers=None`` only: the fewest buffers tried (default 1).
    max_buffers : int in [min_buffers, 15], optional
        With ``buffers=None`` only: the most buffers tried (default 10). jax_privacy refuses more than 15: 3 to 7
        buffers give the best utility in typical regimes, and 15 or more lead to numerical trouble.
    rtol : float in [1, inf), optional
        With ``buffers=None`` only: the improvement factor of the squared loss that accepts one more buffer
        (default 1.01, jax_privacy's).
    workload : Workload or None, optional
        A Toeplitz workload ``W`` (a constant learning rate: :func:`~dptheory.mechanisms.momentum_workload`) whose
        errors ``B = W C⁻¹`` the loss measures: the decoder's first column is ``(w * ĉ)_{0:n}`` instead of
        ``cumsum(ĉ)`` (direct up to 2048 steps, by FFT above); ``None`` (the default) is the prefix sums.

    Returns
    -------
    BLTOptimization
        The best BLT found that has not collapsed (``buffers_used ≤ buffers``), its losses, the checked
        constraints, the optimiser's report and ``buffer_losses``.

    Raises
    ------
    ValueError
        Naming the parameter for ``n`` or ``buffers`` not a positive integer, ``loss`` not in
        :data:`LOSSES`, a negative or non-finite ``penalty``, a ``participation`` that is not a
        :class:`~dptheory.Participation`, and ``min_sep ≥ n`` with ``max_participations > 1`` (only one participation
        fits: pass ``Participation()``); ``min_buffers``, ``max_buffers`` or ``rtol`` out of range, given with an
        integer ``buffers``, ``initial`` with ``buffers=None``, or ``init`` not ``None`` or ``"rational"``.
    DegenerateOptimum
        If the optimum has ``θ̂_i = θ_i`` (or ``θ_i = 1``) to double precision (with ``buffers=None``: the optimum
        at ``min_buffers``).
    """
    n = check_int("n", n, 1, why="the number of steps")
    participation = _check_participation(participation)
    loss = _check_loss(loss)
    penalty = _check_penalty(penalty)
    max_iterations = check_int("max_iterations", max_iterations, 1)
    init = _check_init(init)
    workload = _check_workload(workload, n, toeplitz_for="a BLT's O(nd) loss")
    seeded = initial is not None or init is not None
    starts = check_int("starts", starts, 0 if seeded else 1, len(_STARTS),
                       why="0 only with initial or init=\"rational\"" if not seeded else "")
    if participation.max_participations > 1 and participation.min_sep >= n:
        raise ValueError(
            f"participation has min_sep = {participation.min_sep} >= n = {n} with max_participations = "
            f"{participation.max_participations}: only k' = 1 participation fits in n steps; pass Participation() "
            f"for single participation (or a min_sep below n)"
        )
    if buffers is not None:
        if min_buffers is not None or max_buffers is not None or rtol is not None:
            raise ValueError(
                f"buffers = {buffers!r} fixes the number of buffers, so min_buffers, max_buffers and rtol (which "
                f"choose it) must be left out; pass buffers=None to choose it automatically")
        d = check_int("buffers", buffers, 1, why="the number of BLT buffers d; None chooses it")
        _check_sizes(n, d)
        x0s = [] if initial is None else [_check_initial(initial, d)]
        problem, report = (_Problem.build(n, participation, loss, penalty, workload),
                           _Problem.build(n, participation, loss, 0.0, workload))
        return _optimize_fixed(d, problem, report, participation, loss, starts, x0s, init, max_iterations)
    if initial is not None:
        raise ValueError("initial is a decay pair of one fixed length: pass buffers=d with it (buffers=None tries "
                         "several d), or init=\"rational\" to seed every d")
    lo = check_int("min_buffers", 1 if min_buffers is None else min_buffers, 1, _MAX_AUTO_BUFFERS,
                   why="the fewest buffers tried")
    hi = check_int("max_buffers", 10 if max_buffers is None else max_buffers, lo, _MAX_AUTO_BUFFERS,
                   why=f"the most buffers tried, at least min_buffers = {lo}; jax_privacy's limit: 3 to 7 buffers "
                       f"give the best utility in typical regimes and 15+ lead to numerical trouble")
    factor = check_in_interval("rtol", 1.01 if rtol is None else rtol, 1.0, math.inf, lo_closed=True,
                               why="d + 1 buffers are accepted iff rtol * loss(d + 1)**2 < loss(d)**2, as in "
                                   "jax_privacy")
    _check_sizes(n, hi)
    problem, report = (_Problem.build(n, participation, loss, penalty, workload),
                           _Problem.build(n, participation, loss, 0.0, workload))
    return _optimize_increasing(lo, hi, factor, problem, report, participation, loss, starts, init, max_iterations)


def _check_init(init) -> str | None:
    if init is not None and init != "rational":
        raise ValueError(f"init must be None (the deterministic starts only) or \"rational\" (also the RA-BLT "
                         f"start, BLT.rational_approximation), got {init!r:.80}")
    return init


def _rational_start(d: int) -> np.ndarray:
    r"""The logits of jax_privacy's start (``get_init_blt``): the RA-BLT of ``d`` buffers with
    ``max_decay = max_pillutla_score = 1 − 10⁻⁶`` (:meth:`BLT.rational_approximation`), whose decay pair interlaces
    strictly inside ``(0, 1)``: ``θ_1 ≤ 1 − 10⁻⁶`` and ``θ̂_d > 0`` (Pillutla score below 1)."""
    ra = BLT.rational_approximation(d, max_decay=_RATIONAL_START, max_pillutla_score=_RATIONAL_START)
    return _check_initial((ra.theta, ra.inverse_decays()), d)


def _optimize_fixed(d: int, problem: _Problem, report: _Problem, participation: Participation, loss: str, starts: int,
                    x0s: list, init: str | None, max_iterations: int) -> BLTOptimization:
    """:func:`optimize` at ``buffers = d``: the ``starts`` deterministic starts, then ``x0s``, then the RA-BLT one."""
    x0s = [_start(d, *start) for start in _STARTS[:starts]] + list(x0s)
    if init == "rational":
        x0s.append(_rational_start(d))
    t0 = time.perf_counter()
    good, bad = _search(d, x0s, problem, report, max_iterations)
    runs = good or bad  # no good run: the best of the rest, which _result reports as degenerate
    # the lowest loss; among runs within 10⁻⁹ of it (the same optimum) the first with d buffers, then converged
    floor = min(run[0] for run in runs)
    _, D, used, res = min((run for run in runs if run[0] <= floor * (1.0 + 1e-9)),
                          key=lambda run: (run[2] != d, not run[3].success))
    seconds = time.perf_counter() - t0
    result = _result(D, used, problem.n, participation, loss, res, seconds, requested=d, workload=problem.workload)
    return dataclasses.replace(result, buffer_losses=((d, result.value, result.buffers_used),))


def _improves(rtol: float, better: float, worse: float) -> bool:
    r"""jax_privacy's rule (``_optimize_increasing_nbuf``) on its **squared** loss: accept ``d + 1`` buffers iff
    ``rtol · L(d + 1)² < L(d)²`` for the unsquared ``L`` of this module."""
    return rtol * better * better < worse * worse


def _optimize_increasing(lo: int, hi: int, rtol: float, problem: _Problem, report: _Problem,
                         participation: Participation, loss: str, starts: int, init: str | None,
                         max_iterations: int) -> BLTOptimization:
    r""":func:`optimize` with ``buffers=None``: ``d = lo, lo + 1, …, hi`` until ``d`` is not an improvement
    (:func:`_improves`; a degenerate or collapsed optimum is none), returning the last accepted."""
    t0 = time.perf_counter()
    best = _optimize_fixed(lo, problem, report, participation, loss, starts, [], init, max_iterations)
    tried = list(best.buffer_losses)
    for d in range(lo + 1, hi + 1):
        try:
            result = _optimize_fixed(d, problem, report, participation, loss, starts, [], init, max_iterations)
        except DegenerateOptimum:
            tried.append((d, math.inf, d))
            break
        tried.extend(result.buffer_losses)
        if result.collapsed or not _improves(rtol, result.value, best.value):
            break
        best = result
    return dataclasses.replace(best, buffer_losses=tuple(tried), seconds=time.perf_counter() - t0)


def _minimise(x0: np.ndarray, d: int, problem: _Problem, max_iterations: int):
    """scipy's L-BFGS-B on :func:`_objective` from the logits ``x0`` (centred and clipped to the bounds)."""
    return minimize(_objective, np.clip(x0 - np.mean(x0), -_LOGIT_BOUND, _LOGIT_BOUND), args=(d, problem),
                    jac=True, method="L-BFGS-B", bounds=[(-_LOGIT_BOUND, _LOGIT_BOUND)] * x0.size,
                    options={"maxiter": max_iterations, "maxfun": 4 * max_iterations, "ftol": 1e-12, "gtol": 1e-8})


def _runs(x0: np.ndarray, d: int, problem: _Problem, report: _Problem, max_iterations: int) -> list:
    r"""One start, run twice: L-BFGS-B under ``λ`` and under ``λ·10⁻³`` (:data:`_POLISH`; a warm start from the
    first optimum stalls, L-BFGS-B's first steps being too short to move ``1 − θ_1`` by decades); each run is
    ``(penalty-free loss, D, d, scipy result)``."""
    out = []
    for lam in ((problem.penalty, problem.penalty * _POLISH) if problem.penalty > 0.0 else (0.0,)):
        res = _minimise(x0, d, dataclasses.replace(problem, penalty=lam), max_iterations)
        D = _differences(_gaps(res.x))
        out.append((float(_evaluate(D, d, report, gradient=False)[0]), D, d, res))
    return out


def _collapsed_point(D: np.ndarray, d: int, n: int) -> int | None:
    r"""Where the decay pair in ``D`` has collapsed, or ``None``: the first ``m`` with two adjacent decays
    ``n (p_m − p_{m+1}) < COLLAPSE_RTOL · p_m`` among ``p = (1, θ_1, θ̂_1, …, θ_d, θ̂_d, 0)`` (``1 ≤ m ≤ 2d − 1``; each
    difference an exact gap sum), for ``d ≥ 2``. Removing ``p_m, p_{m+1}`` leaves the ``(d − 1)``-buffer BLT it is
    in disguise: ``θ_i ≈ θ̂_i`` or ``θ̂_i ≈ θ_{i+1}`` is a buffer with no weight (``ω_i`` or ``ω_{i+1} ≈ 0``), and
    two equal decays of ``C`` (or of ``C⁻¹``) squeeze a point of the other between them. A buffer whose scale is
    below ``COLLAPSE_RTOL / n`` of ``Σω = c_1`` (``n ω_i < COLLAPSE_RTOL Σω``, a buffer with no weight whatever
    its decays) is collapsed too, at ``m = 2i − 1`` (``θ_i, θ̂_i``). As the points are sorted,
    no collapse means every two decays of ``C`` and ``C⁻¹`` are ``COLLAPSE_RTOL / n`` apart relative to the
    larger."""
    if d < 2:
        return None
    for m in range(1, 2 * d):
        if n * D[m, m + 1] < COLLAPSE_RTOL * D[m, -1]:
            return m
    omega = _scales(D, d)[0]
    for i in range(d):
        if n * omega[i] < COLLAPSE_RTOL * np.sum(omega):
            return 2 * i + 1
    return None


def _representable(D: np.ndarray, d: int) -> bool:
    """Whether the decay pair, rounded to double precision, still interlaces strictly inside ``(0, 1)``."""
    theta, theta_hat = _decay_pair(D, d)
    points = np.concatenate([[1.0], np.ravel(np.column_stack([theta, theta_hat])), [0.0]])
    return bool(np.all(np.diff(points) < 0.0))


def _merge(D: np.ndarray, m: int) -> np.ndarray:
    r"""The ``2d − 1`` logits of the ``(d − 1)``-buffer decay pair without the points ``p_m, p_{m+1}``
    (:func:`_collapsed_point`): the three gaps around them become one, their exact sum, and the interlacing
    holds."""
    gaps = np.diag(D, 1)
    return np.log(np.concatenate([gaps[: m - 1], [np.sum(gaps[m - 1: m + 2])], gaps[m + 2:]]))


def _reseeds(D: np.ndarray, d: int) -> list[np.ndarray]:
    r"""Starts for ``d + 1`` buffers from a ``d``-buffer pair: a new pair of points at 35 % and 65 % of each gap
    below ``θ_1`` (any two adjacent new points keep the interlacing) — the freed buffer placed afresh."""
    gaps = np.diag(D, 1)
    return [np.log(np.concatenate([gaps[:l], gaps[l] * np.array([0.35, 0.3, 0.35]), gaps[l + 1:]]))
            for l in range(1, gaps.size)]


def _search(d: int, x0s, problem: _Problem, report: _Problem, max_iterations: int) -> tuple[list, list]:
    r"""The runs (:func:`_runs`) from the starts ``x0s`` at ``d`` buffers, as ``(good, bad)``: good runs are
    neither collapsed (:func:`_collapsed_point`) nor lost to rounding (:func:`_representable`). If a run
    collapses, the lowest collapsed one is merged (:func:`_merge`) and re-optimised at ``d − 1`` (recursively),
    and the best ``d − 1`` optimum re-seeded at ``d`` (:func:`_reseeds`); the good runs returned are the
    ``d``-buffer runs that stay apart and the good runs below ``d``."""
    good, bad, collapsed = [], [], []
    for x0 in x0s:
        for run in _runs(x0, d, problem, report, max_iterations):
            m = _collapsed_point(run[1], d, problem.n)
            if m is not None:
                collapsed.append((run, m))
            elif _representable(run[1], d):
                good.append(run)
            else:
                bad.append(run)
    if not collapsed:
        return good, bad
    (_, D, _, _), m = min(collapsed, key=lambda item: item[0][0])
    lower, lower_bad = _search(d - 1, [_merge(D, m)], problem, report, max_iterations)
    if lower and min(lower, key=lambda run: run[0])[2] == d - 1:
        for x0 in _reseeds(min(lower, key=lambda run: run[0])[1], d - 1):
            good.extend(run for run in _runs(x0, d, problem, report, max_iterations)
                        if _collapsed_point(run[1], d, problem.n) is None and _representable(run[1], d))
    return good + lower, bad + lower_bad


class DegenerateOptimum(RuntimeError):
    """The optimum of Alg. 4 lies on the boundary ``θ̂_i = θ_i`` (``ω_i → 0``), which a BLT with positive scales cannot hold."""


def _result(D: np.ndarray, d: int, n: int, participation: Participation, loss: str, res, seconds: float, *,
            requested: int | None = None, workload: Workload = PREFIX_SUMS):
    theta, theta_hat = _decay_pair(D, d)
    collapsed = np.flatnonzero(~((theta_hat < theta) & (theta < 1.0)))
    if collapsed.size:
        raise DegenerateOptimum(
            f"the optimum for n = {n}, {participation}, d = {d} has theta_hat_i = theta_i (or theta_i = 1) to double "
            f"precision for i in {[int(i) + 1 for i in collapsed]} (1 - theta = {D[0, 2 * collapsed + 1]}): omega_i -> 0, a "
            f"buffer that carries no correlation (with d = 1 the strategy tends to the identity, DP-SGD)"
        )
    blt = BLT.from_theta_pair(theta, theta_hat)
    _, max_err, sens = _evaluate(D, d, _Problem.build(n, participation, "max", 0.0, workload), gradient=False)
    _, rms_err, _ = _evaluate(D, d, _Problem.build(n, participation, "rms", 0.0, workload), gradient=False)
    c = blt.strategy_coeffs(n)
    return BLTOptimization(
        blt=blt,
        theta_hat=theta_hat,
        loss=loss,
        value=float((max_err if loss == "max" else rms_err) * sens),
        max_loss=float(max_err * sens),
        rms_loss=float(rms_err * sens),
        sensitivity=float(sens),
        max_error=float(max_err),
        rms_error=float(rms_err),
        n=n,
        participation=participation,
        participations=participation.participations(n),
        theta_in_unit_interval=bool(np.all((blt.theta > 0.0) & (blt.theta < 1.0))),
        omega_positive=bool(np.all(blt.omega > 0.0)),
        omega_sum=float(np.sum(blt.omega)),
        coeffs_monotone=bool(np.all(c >= 0.0) and np.all(np.diff(c) <= 0.0)),
        converged=bool(res.success),
        iterations=int(res.nit),
        evaluations=int(res.nfev),
        message=str(res.message),
        seconds=seconds,
        buffers_requested=d if requested is None else requested,
        workload=workload,
    )


@dataclass(frozen=True)
class LearnedBLT:
    r"""A BLT whose decay pair minimises a learning problem's ``F_n`` (:func:`optimize_for_learning`).

    It stands beside the BLT it started from (the MaxLoss optimum, or a default start where that is degenerate).

    Attributes
    ----------
    blt : BLT
        The BLT found (the start if nothing better was found).
    F_n : float
        Its ``F_n``.
    start : BLT
        The BLT the search started from.
    start_F_n : float
        The start's ``F_n``.
    evaluations : int
        Nelder–Mead's evaluations of ``F_n``.
    converged : bool
        Nelder–Mead's success flag.
    seconds : float
        The wall time, the MaxLoss start included.
    """

    blt: BLT
    F_n: float
    start: BLT
    start_F_n: float
    evaluations: int
    converged: bool
    seconds: float

    def __repr__(self) -> str:
        return (f"LearnedBLT(F_n={self.F_n:.6g} from {self.start_F_n:.6g} at the start, d={self.blt.d}, "
                f"theta={np.array2string(self.blt.theta, precision=6)}, {self.evaluations} evaluations, "
                f"converged={self.converged}, {self.seconds:.3g} s)")


def optimize_for_learning(problem, n: int, participation: Participation | None = None, *, rho: float,
                          buffers: int = 2, max_evaluations: int = 600) -> LearnedBLT:
    r"""The ``d``-buffer BLT minimising a learning problem's suboptimality ``F_n``.

    The ``d``-buffer BLT minimising the learning suboptimality ``F_n`` of seed 004 (:func:`dptheory.F_inf` at
    ``horizon=n`` under ``participation``, the noise calibrated by the BLT's own sensitivity) instead of seed 003's
    prefix-sum MaxLoss: Nelder–Mead (adaptive) on the ``2d + 1`` gap logits of this module's parameterisation
    (every iterate a valid BLT, ``Σω < 1``, Thm 3.1 exact), from the MaxLoss optimum of :func:`optimize` (or, where
    that optimum is degenerate, :class:`DegenerateOptimum`, or collapsed to fewer buffers, from
    ``1 − θ = logspace(−3, −0.3, d)``), at most ``max_evaluations`` evaluations of ``F_n`` (each ``O(n d²)`` per
    eigen-direction).

    Parameters
    ----------
    problem : MeanEstimation or LinearRegression
        The learning problem (:class:`~dptheory.MeanEstimation` or :class:`~dptheory.LinearRegression`).
    n : int
        The number of steps, ``n ≥ 1``.
    participation : Participation, optional
        The participation schema; ``None`` (default) is single participation.
    rho : float in (0, inf)
        The zCDP target ``ρ`` the noise is calibrated to.
    buffers : int, default 2
        The number of buffers ``d``.
    max_evaluations : int, default 600
        The most evaluations of ``F_n``.

    Returns
    -------
    LearnedBLT
        The BLT found, its ``F_n``, and the start it improved on.
    """
    from ..suboptimality import F_inf  # the shared learning layer (seed 004's quantity)

    n = check_int("n", n, 1, why="the number of steps")
    participation = _check_participation(participation)
    d = check_int("buffers", buffers, 1, why="the number of BLT buffers d")
    max_evaluations = check_int("max_evaluations", max_evaluations, 1)
    _check_sizes(n, d)
    t0 = time.perf_counter()

    def blt_of(x):
        return BLT.from_theta_pair(*_decay_pair(_differences(_gaps(x)), d))

    def objective(x):
        try:
            return F_inf(blt_of(x), problem, rho=rho, horizon=n, participation=participation)
        except (ValueError, FloatingPointError):  # a decay pair that collapses to double precision: not a BLT
            return math.inf

    try:
        start = optimize(n, participation, buffers=d, loss="max").blt
        x0 = _check_initial((start.theta, start.inverse_decays()), d) if start.d == d else None
    except DegenerateOptimum:  # the MaxLoss optimum has no correlation left: start from the digest's decays
        x0 = None
    if x0 is None:  # degenerate, or collapsed to fewer than d buffers (optimize): the digest's decays
        x0 = _start(d, *_STARTS[1])
        start = blt_of(x0)
    start_F = F_inf(start, problem, rho=rho, horizon=n, participation=participation)
    res = minimize(objective, x0, method="Nelder-Mead",
                   options={"maxfev": max_evaluations, "xatol": 1e-6, "fatol": 1e-9 * start_F, "adaptive": True})
    best, value = (blt_of(res.x), float(res.fun)) if res.fun < start_F else (start, start_F)
    return LearnedBLT(best, value, start, start_F, int(res.nfev), bool(res.success), time.perf_counter() - t0)
