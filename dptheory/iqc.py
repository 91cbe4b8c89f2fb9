r"""The frequency-domain bound on ``F∞`` for strongly convex losses (seed 004, Thm 3.1 / Thm E.1).

For a ``μ``-strongly convex, ``L``-smooth ``F`` the gradient map satisfies the Zames–Falb integral quadratic
constraint (IQC) of Heath & Wills (2005) for every multiplier
``Λ(ω) = λ_0 − Σ_{0<|k|≤K} λ_k e^{−iωk}``, ``λ_k ≥ 0``, ``Σ_{k≠0} λ_k ≤ λ_0`` (the sign the OCR of App. E garbles;
``tests/test_iqc.py`` shows that this one is valid and the printed ``+`` is not). Any ``ψ ≥ 0`` with

    diag(−c, ψ(ω)) − A(ω)* M_{μ,L}^{(λ)}(ω) A(ω) ⪰ 0   for all ω           (eq. 90, per coordinate)

with ``A = [[1, 0], [(1 − e^{iω})/η, −1]]`` and ``M`` of eq. (89),
``[[−μL(Λ + Λ*), μΛ + LΛ*], [μΛ* + LΛ, −(Λ + Λ*)]]``, then bounds
``lim E‖θ_t − θ⋆‖² ≤ (1/c)(1/2π)∫ψ(ω) tr S_ζ(ω) dω`` with ``ζ = Bw + ε`` the total noise. Per ω the
constraint is one 2×2 Hermitian PSD block, i.e. a second-order cone (errata 004 §5.2), so minimising over
``(ψ, λ)`` on a grid of ω is an SOCP, solved here with cvxpy + Clarabel. ``BoundResult.multiplier`` holds the
``λ_k`` of this ``Λ`` and ``BoundResult.psi`` the ``ψ`` of this inequality at ``c = 2μL``: together they are the
certificate (``tests/test_iqc.py`` rebuilds the blocks from them). With the DTFT ``X(ω) = Σ_t x_t e^{−iωt}`` of
``A``, eq. (89) with this ``Λ`` is the time-domain IQC ``Σ_t ⟨λ_0 p_t − Σ_k λ_k p_{t−k}, q_t⟩ ≥ 0`` for
``p = Lθ − ∇F(θ)``, ``q = ∇F(θ) − μθ`` — the mirror ``k → −k`` of errata 004 §5.2's form, which is valid too (the
multiplier set is closed under ``λ_k ↔ λ_{−k}``).

Constants. ``F − F⋆ ≤ (L/2)‖θ − θ⋆‖²``; the DP noise has PSD ``G²γ∞²|B(ω)|²/(2ρ)`` per coordinate, and the
gradient noise (a martingale difference, uncorrelated with ``w`` at every lag) has ``tr S_ε ≤ σ_sgd²``. Hence
the default (``variant="corrected"``)

    F∞ ≤ (L/2c) · (1/2π)∫ ψ(ω) (d·G²γ∞²|B(ω)|²/(2ρ) + σ_sgd²) dω,

which is *exact* for quadratics with ``μ = L`` (tested). ``variant="paper"`` returns Thm 3.1 as printed,
``(Ld/2π)∫(G²ρ⁻¹|B|²γ∞² + σ_sgd²)ψ / c``: a Cauchy–Schwarz factor 2 on the noise PSD and the DP PSD counted as
``G²γ²/ρ`` (errata 004 §10.10) make it 4× larger at ``σ_sgd = 0``.

Numerics (errata 004 §5.2, with a program normaliser ``2μ(L − μ)`` in place of ``c``, so that ``λ_0 = O(1)`` as
``μ → L`` too): ``ψ = ψ_0 φ`` with ``ψ_0 = η²/|1 − ημ − e^{iω}|²`` (the exact quadratic answer at curvature
``μ``) and each 2×2 block congruence-scaled by ``diag(1, ψ_0^{-1/2})``, then by a diagonal congruence that brings
its diagonal entries' coefficients to O(1) (:func:`_program`); ω on ``[0, π]`` (all data are even in ω) clustered
at 0 as ``ω = π u^p`` because ψ peaks there with width ~ημ (``p = 2``, larger when ``ημ < 1.4e-4`` at 600
points, :func:`_grid_power`); trapezoid weights.

Certificate (every returned value). The solver's ``(ψ, λ)`` is not trusted: its ``λ`` is projected onto the
multiplier set, and for it the smallest feasible ``ψ`` and the best normaliser are computed in closed form on
the grid (:func:`_certificate`), so the returned ``(ψ, λ)`` satisfies eq. (90) at every grid point up to
rounding, whatever Clarabel's accuracy. The static multiplier ``λ = (1, 0, …)`` is certified the same way and
kept when it is smaller. This fills the program's holes (docs/socp_convergence.md): as ``μ → L`` the blocks
become singular at every ω and Clarabel stops at ``optimal_inaccurate`` (``InsufficientProgress``,
``κ − 1 ≲ 3e-5``) or fails (``NumericalError``, ``κ − 1 ≲ 1e-10`` at η = .3), but the static certificate tends
to the ``μ = L`` closed form (relative excess ~1.1(κ − 1) + grid error). An ``InsufficientProgress`` iterate
is accepted (``accept_unknown``, reported as ``optimal_inaccurate``) and certified like any other; at
``κ ≳ 10⁷`` Clarabel ends ν-FTRL(1/κ)'s solves with ``AlmostSolved`` (also ``optimal_inaccurate``), while
DP-SGD's are ``optimal`` up to ``κ = 10⁹``. Whenever the status is not ``optimal`` the multipliers of the same
program on ``n/2`` and ``n/4`` points are certified on the full grid as further candidates. A solve that fails
outright falls back to the best certified candidate (the static one at worst) and
``solver_stats["certificate"]`` says ``"… (solver failed: …)"``; ``solver_stats["gap"]`` is the value over the
worst quadratic, a lower bound. The static multiplier is certified for every valid problem (its first diagonal
entry is ``≥ 8(1/η − L/2)(1/η − μ/2) > 0`` for ``η < 2/L``), so a bound is returned for every ``κ ≥ 1``
(tested to ``κ = 10⁹``); where the solve is inaccurate it is valid but not necessarily the program's optimum.
At ``κ = 10⁵…10⁹`` (η = 1 and .1) the 600-point bound is within 0.6% of the 2400-point one for both DP-SGD and
ν-FTRL(1/κ) (docs/socp_convergence.md).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np
from scipy.optimize import minimize_scalar

from ._validation import check_in_interval, check_int, check_privacy, check_variant
from .accounting.calibration import calibrate_noise
from .mechanisms.base import SINGLE_PARTICIPATION, Participation
from .mechanisms.toeplitz import MechanismLike, FiniteToeplitz, ToeplitzMechanism, as_mechanism, nu_ftrl
from .problems import StronglyConvex
from .mechanisms.spectral import _pole_modulus_sq

__all__ = [
    "BoundResult",
    "F_inf_bound",
    "OptimizedCorrelation",
    "optimize_correlation",
    "minimum_phase_factor",
    "frequency_grid",
    "DEFAULT_GRID",
    "DEFAULT_TAU_MAX",
]

DEFAULT_GRID = 600  #: grid points on [0, π]; see docs/socp_convergence.md
DEFAULT_TAU_MAX = 20  #: multiplier truncation τ_max (K); see docs/socp_convergence.md
_LAMBDA_CAP = 1e4  # λ_0 ≤ cap in units of the program normaliser 2μ(L − μ); the optimum is O(1)–O(30)
_ACCEPTED = (cp.OPTIMAL, cp.OPTIMAL_INACCURATE)  # statuses that are not a solver failure (every multiplier is certified)


@dataclass(frozen=True)
class BoundResult:
    """The bound with the certificate of eq. (90) at ``c = 2μL``, and the solver's report.

    The certificate is ``ψ`` on the grid ``omega`` and the multiplier ``{k: λ_k}`` (``k = −K..K``, the module's
    convention).

    Attributes
    ----------
    value : float
        The bound on ``F∞`` (``inf`` when the sensitivity is infinite).
    omega : numpy.ndarray
        The frequency grid on ``[0, π]``.
    psi : numpy.ndarray
        ``ψ`` on the grid, at ``c = 2μL``.
    multiplier : dict
        ``{k: λ_k}``, the Zames–Falb multiplier of the certificate.
    solver_stats : dict
        The solver's report: ``status``, ``solver``, ``solve_time``, ``iterations`` and, after a solve,
        ``certificate`` (which candidate was returned), ``gap`` and ``lower_bound``.
    settings : dict
        The mechanism, problem, privacy, grid and variant of the bound.
    """

    value: float
    omega: np.ndarray = field(repr=False)
    psi: np.ndarray = field(repr=False)
    multiplier: dict = field(repr=False)
    solver_stats: dict = field(repr=False)
    settings: dict = field(repr=False)

    def __repr__(self) -> str:
        s = self.settings
        return (
            f"BoundResult(value={self.value:.6g}, beta={s['beta']}, kappa={s['kappa']:g}, eta={s['eta']:g}, "
            f"grid={s['n_grid']}, tau_max={s['tau_max']}, status={self.solver_stats['status']}, "
            f"solve_time={self.solver_stats['solve_time']:.2f}s)"
        )


def _quadratic_weight(eta: float, h: float, omega: np.ndarray) -> np.ndarray:
    """``η²/|1 − ηh − e^{iω}|²``: the exact ψ/c of the quadratic with curvature ``h`` (Thm F.2), with the pole
    modulus formed from the gap ``ηh`` (no cancellation at ``ηh ≪ 1``, i.e. large κ)."""
    return eta**2 / _pole_modulus_sq(eta * h, omega)


def frequency_grid(n: int, power: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    r"""Grid ``ω_j = π u_j^p`` on ``[0, π]`` and trapezoid weights ``q_j``.

    The weights satisfy ``Σ q_j f(ω_j) ≈ (1/2π)∫_{−π}^{π} f`` for even ``f``.

    Parameters
    ----------
    n : int
        The number of points, ``n ≥ 2`` (``u_j`` uniform on ``[0, 1]``).
    power : float in (0, inf), default 2.0
        The exponent ``p`` that clusters the grid at 0.

    Returns
    -------
    omega : numpy.ndarray
        The grid ``ω_j``.
    q : numpy.ndarray
        The weights ``q_j``.
    """
    n = check_int("n", n, 2)
    power = check_in_interval("power", power, 0.0)
    u = np.linspace(0.0, 1.0, n)
    omega = math.pi * u**power
    dw = np.diff(omega)
    q = np.zeros(n)
    q[:-1] += dw / 2
    q[1:] += dw / 2
    return omega, q / math.pi


def _grid_power(n: int, width: float) -> float:
    r"""Exponent ``p`` of the grid ``ω = π u^p``: 2 (errata 004 §5.2), raised when ψ's peak at ω = 0, of width
    ``width = ημ``, is narrower than ``π(4/(n − 1))²`` so that about as many points fall in it as at
    ``ημ = 1.4e-4`` (n = 600): ``p = max(2, log(π/width)/log((n − 1)/4))``."""
    return max(2.0, math.log(math.pi / width) / math.log((n - 1) / 4))


def _check_program(problem, n_grid, tau_max) -> tuple[int, int]:
    """The problem class and the program's sizes, or raise naming the parameter."""
    if not isinstance(problem, StronglyConvex):
        raise ValueError(f"problem must be StronglyConvex, got {type(problem).__name__}")
    return check_int("n_grid", n_grid, 16, 10**6), check_int("tau_max", tau_max, 0, 10**4)


def _lags(omega: np.ndarray, tau_max: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lags ``k = 1..K, −1..−K`` and the matrices ``cos ωk``, ``sin ωk`` (rows: grid points)."""
    k = np.concatenate([np.arange(1, tau_max + 1), -np.arange(1, tau_max + 1)])
    return k, np.cos(np.outer(omega, k)), np.sin(np.outer(omega, k))


def _re_im(lam0, lamk, cos_k, sin_k):
    """``(Re Λ, Im Λ)`` on the grid for ``Λ(ω) = λ_0 − Σ_k λ_k e^{−iωk}``."""
    return lam0 - cos_k @ lamk, sin_k @ lamk


def _block(problem: StronglyConvex, omega: np.ndarray, r, n, mul=np.multiply):
    r"""The ``λ``-part of the 2×2 block of eq. (90), ``diag(−c, ψ) − A*M^{(λ)}A`` with ``M`` of eq. (89):
    ``(D_1 + c, Re u, Im u)`` where the block is ``[[D_1, u], [ū, D_2]]``, ``D_2 = ψ + 2r`` (errata 004 §5.2,
    there with ``Im Λ`` of the mirrored multiplier), affine in ``r = Re Λ``, ``n = Im Λ``; ``mul`` is
    ``np.multiply`` or ``cp.multiply``."""
    eta, mu, L = problem.eta, problem.mu, problem.L
    x, s = 1.0 - np.cos(omega), np.sin(omega)
    d1 = mul(2 * mu * L - (2 / eta) * (L + mu) * x + 4 * x / eta**2, r) + mul((2 / eta) * (L - mu) * s, n)
    u_re = mul(L + mu - 2 * x / eta, r)
    u_im = mul(-(2 / eta) * s, r) - mul(L - mu, n)
    return d1, u_re, u_im


def _certificate(lam0: float, lamk: np.ndarray, omega, q, weight, problem: StronglyConvex, tau_max: int):
    r"""The bound certified by the multiplier direction ``(λ_0, λ_k)``: ``(value, ψ, λ)`` with ``value =
    Σ_j q_j weight_j ψ_j / c`` at ``c = 2μL``, or ``None`` if no normaliser ``c' > 0`` is feasible.

    ``λ`` is projected onto the multiplier set (``λ_k ≥ 0``, ``λ_0 ≥ Σλ_k``). The block of eq. (90) has
    ``D_1 D_2 − |u|² = D_1 ψ − 2rc − (L − μ)²|Λ|²`` (with ``x² + s² = 2x``; no cancellation as ``μ → L``), so for a
    normaliser ``c' < min_ω (D_1 + c)`` the smallest feasible ψ is ``(2rc' + (L − μ)²|Λ|²)/(D_1 + c − c')``, and
    the bound ``Σ q·weight·ψ/c'`` is convex in ``c'``, minimised by Brent on ``log c'``. The program is
    homogeneous in ``(c, ψ, λ)``, so the certificate is rescaled to ``c = 2μL``.
    """
    lamk = np.maximum(np.asarray(lamk, dtype=float), 0.0)
    lam0 = max(float(lam0), float(lamk.sum()))
    k, cos_k, sin_k = _lags(omega, tau_max)
    r, n = _re_im(lam0, lamk, cos_k, sin_k)
    d1 = _block(problem, omega, r, n)[0]
    c_max = float(d1.min())
    if not c_max > 0:
        return None
    excess = (problem.L - problem.mu) ** 2 * (r**2 + n**2)
    psi_at = lambda t: (2 * r * c_max * math.exp(t) + excess) / (d1 - c_max * math.exp(t))
    ratio = lambda t: float(np.sum(q * weight * psi_at(t))) / (c_max * math.exp(t))
    with np.errstate(divide="ignore"):
        t = minimize_scalar(ratio, bounds=(-60.0, -1e-12), method="bounded", options=dict(xatol=1e-10)).x
    scale = 2 * problem.mu * problem.L / (c_max * math.exp(t))
    lam = {0: lam0 * scale} | {int(kk): float(v) * scale for kk, v in zip(k, lamk)}
    return ratio(t), psi_at(t) * scale, lam


def _worst_quadratic(weight: np.ndarray, omega: np.ndarray, q: np.ndarray, problem: StronglyConvex) -> float:
    r"""``max_{h∈{μ,L}} Σ_j q_j weight_j η²/|1 − ηh − e^{iω_j}|²``: a lower bound on the program's value on the
    grid. Every feasible pair has ``ψ/c ≥ η²/|1 − ηh − e^{iω}|²`` pointwise (apply eq. 90 to ``G = hΘ``, for
    which the IQC form is ``2(h − μ)(L − h) Re Λ |Θ|² ≥ 0``)."""
    return max(float(np.sum(q * weight * _quadratic_weight(problem.eta, h, omega))) for h in (problem.mu, problem.L))


def _program(weight: np.ndarray, omega: np.ndarray, q: np.ndarray, problem: StronglyConvex, tau_max: int):
    """Clarabel on the SOCP min Σ_j q_j weight_j ψ_j / c s.t. eq. (90) at every grid point (module docstring's
    scaling); returns the multiplier ``(λ_0, λ_k)`` (``None`` when the solver produced none) and the solver's
    report. Never raises: the multiplier is only a candidate for :func:`_certificate`, so whatever the status
    (Clarabel's ``InsufficientProgress`` iterate is accepted as ``optimal_inaccurate``, ``accept_unknown``) the
    caller certifies it; ``stats["status"]`` says what the solver reported, ``stats["failure"]`` why it failed.

    Formulation: the same program as with ``Re Λ``, ``Im Λ`` substituted into the cones, at ~⅓ of the CPU, and
    better conditioned (bounds equal to ~1e-8 where that one solved accurately, lower where it did not). The
    multiplier enters as ``s_k = λ_k + λ_{−k}``, ``d_k = λ_k − λ_{−k}`` (``k = 1..K``), so its set ``λ_{±k} ≥ 0``,
    ``Σλ_k ≤ λ_0`` is ``|d_k| ≤ s_k``, ``Σ s_k ≤ λ_0``; ``r = λ_0 − Σ s_k cos ωk`` and ``n = Σ d_k sin ωk``
    (``Re Λ``, ``Im Λ``) are variables tied to it by equalities, so each cone holds three variables instead of
    ``2K + 2`` (the dense coupling is two rows of ~K nonzeros per grid point, not four of ~2K). Each block is
    then congruence-scaled by ``diag(a, b)`` so that the largest coefficient of ``D_1`` in ``(r, n, 1)`` and of
    ``(ψ + 2r)/ψ_0`` in ``(φ, r)`` is 1 (``D_1``'s run from O(μ) at ω = 0 to O(1/η²) at π, a range Clarabel's
    equilibration, bounded to ``[1e-4, 1e4]``, does not undo), and the objective is divided by ``c``, below which
    no ``φ`` lies (eq. 90 for the quadratic with curvature μ), so that it is ≥ 1 at every κ (it was ~c, and
    Clarabel's absolute gap tolerance 1e-8 stopped it early at large κ). Measured against the substituted
    program (κ = 1e3…1e9 and κ − 1 = 1e-1…1e-12, η = .1…1, DP-SGD and ν-FTRL): DP-SGD at κ ≥ 1e5 up to 14×
    lower and grid-stable to ≤ 0.4% (600 vs 1200 points, κ = 1e6…1e9), ν-FTRL(1/κ) at κ ≥ 1e6 within 0.5%
    (``optimal`` up to κ = 1e6), no other bound higher by more than 2e-9; without the congruence or the
    objective's scaling DP-SGD at κ = 1e9, η = .1 was ~20× or ~6× higher."""
    eta, mu, L = problem.eta, problem.mu, problem.L
    c = 2.0 * mu * (L - mu)
    psi0 = _quadratic_weight(eta, mu, omega)
    _, cos_k, sin_k = _lags(omega, tau_max)
    phi = cp.Variable(omega.size, nonneg=True)
    lam0 = cp.Variable(nonneg=True)
    lam_sum, lam_diff = cp.Variable(tau_max), cp.Variable(tau_max)
    r, n = cp.Variable(omega.size), cp.Variable(omega.size)
    d1, u_re, u_im = _block(problem, omega, r, n, mul=cp.multiply)
    D1 = d1 - c
    D2 = phi + cp.multiply(2.0 / psi0, r)  # (ψ + 2r)/ψ_0 with ψ = ψ_0 φ: the congruence diag(1, ψ_0^{-1/2})
    root = np.sqrt(psi0)
    # then the congruence diag(a, b): the largest coefficient of D1 in (r, n, 1) and of D2 in (φ, r) becomes 1
    a2 = 1 / np.max([np.abs(_block(problem, omega, *e)[0]) for e in ((1.0, 0.0), (0.0, 1.0))] + [np.full(omega.size, c)], axis=0)
    b2 = 1 / np.maximum(1.0, 2.0 / psi0)
    off = 2 * np.sqrt(a2 * b2) / root
    D1, D2 = cp.multiply(a2, D1), cp.multiply(b2, D2)
    cones = [cp.SOC(D1 + D2, cp.vstack([cp.multiply(off, u_re), cp.multiply(off, u_im), D1 - D2]), axis=0),
             r == lam0 - cos_k[:, :tau_max] @ lam_sum, n == sin_k[:, :tau_max] @ lam_diff,
             lam_sum + lam_diff >= 0, lam_sum - lam_diff >= 0, cp.sum(lam_sum) <= lam0, lam0 <= _LAMBDA_CAP]
    obj_weights = q * weight * psi0
    # φ ≥ c pointwise, so this objective is ≥ 1 (docstring)
    prob = cp.Problem(cp.Minimize(obj_weights / (c * np.sum(obj_weights)) @ phi), cones)
    start = time.perf_counter()
    failure = None
    try:
        prob.solve(solver=cp.CLARABEL, accept_unknown=True)
        status = prob.status
    except cp.error.SolverError as exc:
        status, failure = "solver_error", f"the SOCP solver failed: {exc}"
    stats = dict(status=status, solver="CLARABEL", solve_time=time.perf_counter() - start, n_grid=omega.size,
                 iterations=prob.solver_stats.num_iters if prob.solver_stats else None)
    if failure is None and status not in _ACCEPTED:
        failure = (f"the SOCP of Thm 3.1 was not solved to optimality: solver status {status!r} "
                   f"(eta={eta:g}, mu={mu:g}, L={L:g}, grid={omega.size}, tau_max={tau_max})")
    if failure is not None:
        stats["failure"] = failure
    if lam0.value is None or (tau_max > 0 and lam_sum.value is None):
        return None, stats
    stats["multiplier_cap_active"] = bool(lam0.value >= 0.999 * _LAMBDA_CAP)
    s, d = (np.asarray(v.value, dtype=float) if tau_max > 0 else np.zeros(0) for v in (lam_sum, lam_diff))
    return (float(lam0.value), np.concatenate([s + d, s - d]) / 2), stats


def _solve_psi(weight: np.ndarray, omega: np.ndarray, q: np.ndarray, problem: StronglyConvex, tau_max: int):
    """The bound ``Σ_j q_j weight_j ψ_j / c`` of the best certificate, with ``(ψ, λ)`` at ``c = 2μL``
    (:func:`_certificate`); returns (value, ψ, λ, stats).

    Candidates, each certified on ``omega`` by :func:`_certificate` (so none is trusted): the static multiplier
    ``(1, 0, …)``, the solver's multiplier (even from a failed solve, when it left one), and, when the solve on
    ``omega`` failed, the multipliers of the same program on coarser grids (``n/2``, ``n/4``; the multiplier is
    grid-independent, only ψ is recomputed on ``omega``). ``stats["certificate"]`` names the one returned and,
    when the solver failed, says so (``"static multiplier (solver failed: …)"``); ``stats["gap"]`` is the value
    over :func:`_worst_quadratic` (a lower bound on the program on the grid), minus 1. Raises ``RuntimeError``
    (with the solver's message) only when no candidate is certified, i.e. no normaliser ``c > 0`` exists.
    """
    lower = _worst_quadratic(weight, omega, q, problem)
    multiplier, stats = _program(weight, omega, q, problem, tau_max)
    stats.setdefault("multiplier_cap_active", False)
    candidates = {"static multiplier": _certificate(1.0, np.zeros(2 * tau_max), omega, q, weight, problem, tau_max)}
    if multiplier is not None:
        name = "solver multiplier" if "failure" not in stats else f"solver iterate ({stats['status']})"
        candidates[name] = _certificate(*multiplier, omega, q, weight, problem, tau_max)
    if stats["status"] != cp.OPTIMAL:  # inaccurate or failed: a few more certified candidates (cheap)
        for n in (omega.size // 2, omega.size // 4):
            if n < 16:
                break
            coarse_omega, coarse_q = frequency_grid(n, _grid_power(n, problem.eta * problem.mu))
            coarse_weight = np.interp(coarse_omega, omega, weight)
            coarse, coarse_stats = _program(coarse_weight, coarse_omega, coarse_q, problem, tau_max)
            if coarse is not None:
                name = f"multiplier of the {n}-point grid ({coarse_stats['status']})"
                candidates[name] = _certificate(*coarse, omega, q, weight, problem, tau_max)
    finite = [(n, c) for n, c in candidates.items() if c is not None and math.isfinite(c[0])]
    if not finite:
        raise RuntimeError(f"no certified bound: {stats.get('failure', 'no multiplier admits a normaliser c > 0')}")
    name, (value, psi, lam) = min(finite, key=lambda nc: nc[1][0])
    if "failure" in stats:
        name = f"{name} (solver failed: {stats['failure']})"
    stats.update(certificate=name, gap=value / lower - 1, lower_bound=lower)
    return value, psi, lam, stats


def F_inf_bound(
    mechanism: MechanismLike,
    problem: StronglyConvex,
    *,
    rho: float,
    G: float = 1.0,
    horizon: int | None = None,
    participation: Participation | None = None,
    n_grid: int = DEFAULT_GRID,
    tau_max: int = DEFAULT_TAU_MAX,
    variant: str = "corrected",
) -> BoundResult:
    r"""Upper bound on ``F∞`` for a strongly convex problem (seed 004, Thm 3.1 / Thm E.1), by an SOCP.

    The noise is calibrated by :func:`~dptheory.accounting.calibrate_noise`: ``σ_dp = sens_Π(C; n)/√(2ρ)`` with
    ``n = horizon`` (``None``: the streaming limit ``γ∞``, as in the paper) under ``participation`` (default
    single). The bound is on the stationary ``lim sup E[F(θ_t) − F⋆]`` of the iteration run with that noise; the
    mechanism must be stationary (Toeplitz ``N``), since the theorem works with its spectrum ``|B(ω)|²``.

    The returned ``(psi, multiplier)`` is a certificate of eq. (90) at ``c = 2μL`` on the grid, computed from the
    solver's multiplier or the static one, whichever bounds lower (``solver_stats["certificate"]``), so a bound
    exists for every ``κ ≥ 1``; at ``μ = L`` it is the closed-form limit of the program. Returns ``value = inf``
    (and no program) when the sensitivity is infinite: the noise needed for privacy is unbounded. When Clarabel
    fails the best certified candidate is returned and ``solver_stats["certificate"]`` says ``"(solver failed: …)"``.

    Parameters
    ----------
    mechanism : Mechanism or array_like
        A stationary mechanism (Toeplitz ``N``), or a sequence ``β``.
    problem : StronglyConvex
        The strongly convex problem.
    rho : float in (0, inf)
        The zCDP level ``ρ``.
    G : float in (0, inf), default 1.0
        The clip norm.
    horizon : int, optional
        The ``n`` of the sensitivity the noise is calibrated to; ``None`` (default) is the streaming limit ``γ∞``.
    participation : Participation, optional
        The participation schema; ``None`` (default) is single participation.
    n_grid : int, default DEFAULT_GRID
        Grid points on ``[0, π]``, 16 to ``10⁶``.
    tau_max : int, default DEFAULT_TAU_MAX
        The multiplier truncation ``K``, 0 to ``10⁴``.
    variant : {"corrected", "paper"}, default "corrected"
        ``"corrected"``: the bound with the module docstring's constants; ``"paper"``: Thm 3.1 as printed.

    Returns
    -------
    BoundResult
        The bound and its certificate.

    Raises
    ------
    ValueError
        For a non-stationary mechanism, a problem that is not :class:`~dptheory.StronglyConvex`, or an argument out
        of range.
    RuntimeError
        Only if no multiplier is certified (not reached for valid parameters, module docstring).
    """
    rho, G = check_privacy(rho, G)
    check_variant(variant)
    n_grid, tau_max = _check_program(problem, n_grid, tau_max)
    corr = as_mechanism(mechanism)
    if not corr.stationary:
        raise ValueError(
            f"mechanism must be stationary (a Toeplitz noising matrix) for the frequency-domain bound of Thm 3.1, "
            f"which is stated through its spectrum |B(omega)|^2; {corr.name} is not"
        )
    horizon = None if horizon is None else check_int("horizon", horizon, 1)
    settings = dict(beta=corr.name, kappa=problem.kappa, eta=problem.eta, mu=problem.mu, L=problem.L,
                    sigma_sgd=problem.sigma_sgd, d=problem.d, rho=rho, G=G, n_grid=n_grid, tau_max=tau_max, variant=variant,
                    horizon=horizon, participation=repr(participation or SINGLE_PARTICIPATION))
    sigma_sq = calibrate_noise(corr, rho=rho, horizon=horizon, participation=participation) ** 2
    omega, q = frequency_grid(n_grid, _grid_power(n_grid, problem.eta * problem.mu))
    if not math.isfinite(sigma_sq):
        return BoundResult(math.inf, omega, np.full(n_grid, np.nan), {}, dict(status=f"not solved: gamma_{'inf' if horizon is None else horizon} = inf",
                           solver=None, solve_time=0.0, iterations=None), settings)
    d, s2 = problem.d, problem.sigma_sgd**2
    # corrected: d G² σ² = d G² γ²/(2ρ); as printed (module docstring): G² γ²/ρ = 2 G² σ²
    dp, factor = (d * G**2 * sigma_sq, problem.L / 2) if variant == "corrected" else (2 * G**2 * sigma_sq, problem.L * d)
    if problem.mu == problem.L:
        return _quadratic_limit(corr, problem, dp, factor, omega, settings)
    value, psi, lam, stats = _solve_psi(dp * corr.spectrum(omega) + s2, omega, q, problem, tau_max)
    return BoundResult(factor * value, omega, psi, lam, stats, settings)


def _quadratic_limit(corr, problem: StronglyConvex, dp: float, factor: float, omega, settings) -> BoundResult:
    r"""``μ = L``: the program's infimum is approached as ``λ_0/c → ∞`` and not attained (the 2×2 blocks become
    singular at every ω), so no solver reports ``optimal``. Its limit is ``ψ/c = η²/|1 − ηL − e^{iω}|²``, the
    exact transfer function of the quadratic, which makes the bound the exact quadratic ``F∞`` (Thm F.2):
    ``factor·η²(dp·E_q(β) + σ_sgd²/(1 − q²))``, ``q = 1 − ηL``, with the pole integral of the analytic core,
    given ``1 − q = ηL`` (and ``1 − q² = ηL(2 − ηL)``) directly, so that small ``ηL`` cancels nothing."""
    eta, gap = problem.eta, problem.eta * problem.L
    value = eta**2 * (dp * corr.filtered_energy(gap=gap) + problem.sigma_sgd**2 / (gap * (2.0 - gap)))
    psi = _quadratic_weight(eta, problem.L, omega)
    stats = dict(status="closed form (mu = L: the limit of the program)", solver=None, solve_time=0.0, iterations=None)
    return BoundResult(factor * value, omega, psi, {0: math.inf}, stats, settings)


@dataclass(frozen=True)
class OptimizedCorrelation:
    """Result of :func:`optimize_correlation`: the causal ``β`` and the history of the alternating minimisation.

    Attributes
    ----------
    beta : FiniteToeplitz
        The minimum-phase spectral factor of the final ``|B|²``.
    history : list of float
        ``J`` at each iteration.
    abs2 : numpy.ndarray
        The final ``|B|²`` on the grid.
    omega : numpy.ndarray
        The frequency grid.
    psi : numpy.ndarray
        The last ``ψ`` on the grid.
    """

    beta: object
    history: list = field(repr=False)
    abs2: np.ndarray = field(repr=False)
    omega: np.ndarray = field(repr=False)
    psi: np.ndarray = field(repr=False)

    def __repr__(self) -> str:
        return f"OptimizedCorrelation(J={self.history[-1]:.6g}, iterations={len(self.history) - 1}, taps={self.beta.beta.size})"


def minimum_phase_factor(abs2, n_fft: int = 1 << 15, taps: int | None = None, tol: float = 1e-12):
    r"""Causal, minimum-phase ``β`` with ``|B(ω)|² = abs2(ω)`` (``abs2`` a callable on ``[0, π]``, even in ω).

    Real-cepstrum method: ``log|B| = ½ log abs2`` on a uniform grid of ``n_fft`` points; fold the cepstrum onto
    ``t ≥ 0`` (double ``1 ≤ t < n/2``); exponentiate its FFT. ``β`` is normalised to ``β_0 = 1`` (``F∞`` and the
    bound are scale-free) and cut where the remaining energy is below ``tol`` (or after ``taps`` coefficients).

    Parameters
    ----------
    abs2 : callable
        ``|B(ω)|²`` on ``[0, π]`` (vectorised, even in ω).
    n_fft : int, default 1 << 15
        The FFT size, ``≥ 16``.
    taps : int, optional
        The number of coefficients kept, 1 to ``n_fft // 2``; ``None`` (default) cuts by ``tol``.
    tol : float in (0, 1), default 1e-12
        The relative energy of the tail that is cut.

    Returns
    -------
    FiniteToeplitz
        ``β`` with ``β_0 = 1``.
    """
    if not callable(abs2):
        raise ValueError(f"abs2 must be a callable |B(ω)|² on [0, π], got {type(abs2).__name__}")
    n_fft = check_int("n_fft", n_fft, 16)
    if taps is not None:
        taps = check_int("taps", taps, 1, n_fft // 2)
    tol = check_in_interval("tol", tol, 0.0, 1.0)
    w = 2 * math.pi * np.arange(n_fft) / n_fft
    log_mag = 0.5 * np.log(abs2(np.minimum(w, 2 * math.pi - w)))
    cep = np.fft.ifft(log_mag).real
    fold = np.zeros(n_fft)
    fold[0] = cep[0]
    fold[1 : n_fft // 2] = 2 * cep[1 : n_fft // 2]
    fold[n_fft // 2] = cep[n_fft // 2]
    beta = np.fft.ifft(np.exp(np.fft.fft(fold))).real[: n_fft // 2]
    beta = beta / beta[0]
    if taps is None:
        tail = np.cumsum((beta**2)[::-1])[::-1]
        taps = int(np.argmax(tail <= tol * tail[0])) or beta.size
    return FiniteToeplitz(beta[:taps], name=f"optimized[{taps} taps]")


def optimize_correlation(
    problem: StronglyConvex,
    *,
    start: MechanismLike | None = None,
    n_grid: int = DEFAULT_GRID,
    tau_max: int = DEFAULT_TAU_MAX,
    max_iter: int = 20,
    rtol: float = 1e-4,
) -> OptimizedCorrelation:
    r"""Alternating minimisation of ``J(B, ψ) = γ∞(B)²·(1/2π)∫|B|²ψ`` (the "Optimized" DP-FTRL of Fig. 3).

    ψ-step: the SOCP of Thm 3.1 for fixed ``|B|²``. B-step: Cauchy–Schwarz, ``|B|² ∝ ψ^{-1/2}``, which gives
    ``J = ((1/2π)∫√ψ)²`` (errata 004 §5.3). Starts from ν-DP-FTRL with ``ν = ημ`` unless ``start`` is given; stops
    when ``J`` decreases by less than ``rtol`` relative. ``σ_sgd`` does not depend on ``B`` and is ignored here.

    Parameters
    ----------
    problem : StronglyConvex
        The strongly convex problem, with ``μ < L``.
    start : Mechanism or array_like, optional
        The mechanism to start from; ``None`` (default) is ν-DP-FTRL with ``ν = ημ``.
    n_grid : int, default DEFAULT_GRID
        Grid points on ``[0, π]``.
    tau_max : int, default DEFAULT_TAU_MAX
        The multiplier truncation ``K``.
    max_iter : int, default 20
        The most iterations.
    rtol : float in (0, inf), default 1e-4
        Stop when ``J`` decreases by less than this, relative.

    Returns
    -------
    OptimizedCorrelation
        The minimum-phase spectral factor of the final ``|B|²`` as a causal Toeplitz ``β`` usable everywhere in
        the toolkit, and the history. ``history`` holds ``J`` in the units of Thm 3.1 with ``L = G = ρ = d = 1``
        (the paper-constant bound is ``L·d·G²/ρ·J``; the corrected one is a quarter of it).

    Raises
    ------
    ValueError
        At ``μ = L`` (no alternating minimisation is needed there), or for an argument out of range.
    RuntimeError
        If ``J`` increases by more than the solver's tolerance (1e-5 relative).
    """
    n_grid, tau_max = _check_program(problem, n_grid, tau_max)
    max_iter = check_int("max_iter", max_iter, 1)
    rtol = check_in_interval("rtol", rtol, 0.0)
    if problem.mu == problem.L:
        raise ValueError("mu must be < L for the alternating minimisation (at mu = L the optimum is beta* of Thm 2.1)")
    omega, q = frequency_grid(n_grid, _grid_power(n_grid, problem.eta * problem.mu))
    corr = as_mechanism(start) if start is not None else nu_ftrl(min(problem.eta * problem.mu, 0.999))
    abs2 = corr.spectrum(omega)
    history = []
    for _ in range(max_iter):
        gamma_sq = float(np.sum(q / abs2))  # γ∞² = (1/2π)∫|B|^{-2} on the same grid
        J, psi, _, _ = _solve_psi(gamma_sq * abs2, omega, q, problem, tau_max)
        if history and J > history[-1] * (1 + 1e-5):
            raise RuntimeError(f"alternating minimisation is not monotone: J rose from {history[-1]:.8g} to {J:.8g}")
        history.append(J)
        if len(history) > 1 and history[-2] - J <= rtol * J:
            break
        abs2 = 1.0 / np.sqrt(psi)
        abs2 = abs2 / abs2[0]
    abs2_final = abs2
    interp = lambda w: np.exp(np.interp(w, omega, np.log(abs2_final)))
    beta = minimum_phase_factor(interp)
    return OptimizedCorrelation(beta, history, abs2_final, omega, psi)
